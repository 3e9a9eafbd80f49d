"""``torch.nn.parallel.scatter_gather``: the splitting of a batch over devices and the
joining of the outputs that ``DataParallel`` does (defined in ``data_parallel``)."""

from __future__ import annotations

import warnings
from typing import Any

from .data_parallel import _is_namedtuple, _scatter_kwargs, gather, scatter

# PyTorch's public spelling of the keyword-splitting helper
scatter_kwargs = _scatter_kwargs

__all__ = ["gather", "is_namedtuple", "scatter", "scatter_kwargs"]


def is_namedtuple(obj: Any) -> bool:
    """Whether ``obj`` is an instance of a namedtuple class (deprecated in PyTorch 2.13:
    it warns with a FutureWarning)."""
    warnings.warn(
        "`is_namedtuple` is deprecated, please use the python checks instead",
        FutureWarning,
        stacklevel=2,
    )
    return _is_namedtuple(obj)
