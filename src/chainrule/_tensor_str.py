"""``torch._tensor_str``: the print options object and the values text of a tensor.

Libraries read ``PRINT_OPTS`` (the live options ``torch.set_printoptions`` changes), call
``_tensor_str(tensor, indent)`` for the bracketed values without ``tensor(``, and print
under ``with printoptions(...)`` (sentence-transformers' model cards).  Tensor subclasses
build their own repr from ``_tensor_str`` and ``_add_suffixes``, or hand their values
text to ``_str_intern`` (PyG's ``EdgeIndex``, ``Index``, ``HashTensor``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ._printing import (
    _OPTIONS,
    _join_suffixes,
    _values_text,
    get_printoptions,
    set_printoptions,
)

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions", "set_printoptions"]

# the live options (precision, threshold, edgeitems, linewidth, sci_mode)
PRINT_OPTS = _OPTIONS


def _tensor_str(self: Any, indent: int) -> str:
    """The bracketed values of ``self`` as its repr shows them, continuation lines indented
    by ``indent`` columns; ``[]`` for an empty tensor."""
    if self.numel() == 0:
        return "[]"
    return _values_text(np.asarray(self.detach().cpu().numpy()), indent)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
    """``tensor_str`` (``"Name([...]"``) closed with ``, suffix`` items and ``)``, an item
    moved to a new line indented by ``indent`` when it would pass the line width (the
    first item always, with ``force_newline``)."""
    return _join_suffixes(tensor_str, suffixes, indent, force_newline)


def _str(self: Any, *, tensor_contents: str | None = None) -> str:
    """The repr of ``self`` (``tensor_contents``, when given, in place of its values)."""
    return _str_intern(self, tensor_contents=tensor_contents)


def _str_intern(inp: Any, *, tensor_contents: str | None = None) -> str:
    """The repr of ``inp`` as ``Tensor.__repr__`` makes it, skipping a subclass's own
    ``__repr__`` (which may be the caller)."""
    from ._tensor import Tensor

    return Tensor.__repr__(inp, tensor_contents=tensor_contents)


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
