"""``torch._tensor_str``: the print options object and the values text of a tensor.

Libraries read ``PRINT_OPTS`` (the live options ``torch.set_printoptions`` changes), call
``_tensor_str(tensor, indent)`` for the bracketed values without ``tensor(``, and print
under ``with printoptions(...)`` (sentence-transformers' model cards).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ._printing import _OPTIONS, _values_text, get_printoptions, set_printoptions

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions"]

# the live options (precision, threshold, edgeitems, linewidth, sci_mode)
PRINT_OPTS = _OPTIONS


def _tensor_str(self: Any, indent: int) -> str:
    """The bracketed values of ``self`` as its repr shows them, continuation lines indented
    by ``indent`` columns; ``[]`` for an empty tensor."""
    if self.numel() == 0:
        return "[]"
    return _values_text(np.asarray(self.detach().cpu().numpy()), indent)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Within the block, tensors print with ``set_printoptions(**kwargs)``; the options
    in force before it are restored on leaving (an error in the block too)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)
