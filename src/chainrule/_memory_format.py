"""Memory formats: the order in which a tensor's elements lie in memory.

``contiguous_format`` is row-major (NCHW for an image batch); ``channels_last`` puts the
channel dim innermost (NHWC, strides ``(H*W*C, 1, W*C, C)``) and ``channels_last_3d`` does
the same for 5-D tensors (NDHWC); ``preserve_format`` asks a copy to keep its input's layout.
A chainrule tensor is a NumPy array, so a format is just the strides of that array: a
channels-last tensor is an NHWC array viewed with its axes permuted back to NCHW.

Where chainrule differs from PyTorch: an op's output takes the layout NumPy gives it
(elementwise ops keep their inputs' common layout, order 'K'), not PyTorch's propagation
rules (a convolution of channels-last input comes out row-major here); ``preserve_format``
copies follow NumPy's order 'K', which gives a size-1 dim its row-major stride; and NumPy
gives zero-size arrays zero strides, so their channels-last contiguity cannot be told.
"""

from __future__ import annotations

from typing import Any

from ._backend import xp_of


class memory_format:
    """One of PyTorch's memory formats (``torch.channels_last`` ...); the four objects below
    are the only instances."""

    __slots__ = ("_name",)

    def __new__(cls, *args: Any, **kwargs: Any) -> memory_format:
        raise TypeError("cannot create 'torch.memory_format' instances")

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name  # (the module-level object of that name: copies are the same object)


def _make(name: str) -> memory_format:
    fmt = object.__new__(memory_format)
    fmt._name = name
    return fmt


contiguous_format = _make("contiguous_format")
channels_last = _make("channels_last")
channels_last_3d = _make("channels_last_3d")
preserve_format = _make("preserve_format")
legacy_contiguous_format = contiguous_format  # (PyTorch's alias: the same object)

# the innermost-first dim order of each channels-last format, and its rank
_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}


def _rank_of(fmt: memory_format) -> int:
    return len(_ORDER[fmt])


def is_contiguous_as(array: Any, fmt: Any) -> bool:
    """Whether ``array``'s strides are those of ``fmt``: for channels_last, walking the dims
    C, W, H, N, each dim of size other than 1 has stride equal to the product of the sizes
    before it (PyTorch's rule: size-1 dims take any stride); a tensor of another rank is not
    channels-last. Any other format asks for row-major contiguity."""
    order = _ORDER.get(fmt)
    if order is None:
        return bool(array.flags.c_contiguous)
    if array.ndim != len(order):
        return False
    expected = 1
    for d in order:
        size = array.shape[d]
        if size != 1:
            if array.strides[d] != expected * array.itemsize:
                return False
            expected *= size
    return True


def check_format(ndim: int, fmt: Any) -> None:
    """PyTorch's errors for a layout a tensor of rank ``ndim`` cannot take."""
    if not isinstance(fmt, memory_format):
        raise TypeError(f"memory_format must be torch.memory_format, not {type(fmt).__name__}")
    if fmt in _ORDER and ndim != _rank_of(fmt):
        raise RuntimeError(f"required rank {_rank_of(fmt)} tensor to use {fmt._name} format")


def laid_out(array: Any, fmt: Any) -> Any:
    """A copy of ``array`` in the layout ``fmt`` (same values; ``preserve_format`` keeps
    array's layout, NumPy's order 'K')."""
    check_format(array.ndim, fmt)
    order = _ORDER.get(fmt)
    if order is None:
        return array.copy(order="K" if fmt is preserve_format else "C")
    inner_last = order[::-1]  # (0, 2, 3, 1): N H W C
    back = tuple(inner_last.index(d) for d in range(len(order)))
    permuted = array.transpose(inner_last)
    # (always a fresh array: a view would alias array)
    out = xp_of(array).empty(permuted.shape, dtype=array.dtype)
    out[...] = permuted
    return out.transpose(back)


def _strides_like(array: Any, order: tuple[int, ...]) -> bool:
    """PyTorch's test that strides *look* channels-last (not that they are dense): walking
    the dims innermost first, no size is 0 and the strides never fall below the extent of
    the dims before them; ties that a row-major tensor also has (a channel stride of 0, an
    N111 tensor) count as row-major."""
    sizes, strides = array.shape, array.strides
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * sizes[d] if sizes[d] > 1 else strides[d]
    return True


def suggested(array: Any) -> memory_format:
    """The format ``array``'s strides suggest (PyTorch's ``suggest_memory_format``): the
    channels-last format of its rank when its strides look so, else ``contiguous_format``."""
    for fmt, order in _ORDER.items():
        if array.ndim == len(order) and _strides_like(array, order):
            return fmt
    return contiguous_format


def preserved(t: Any, source: Any) -> Any:
    """A freshly made row-major tensor ``t`` given the layout of the array ``source`` of the
    same shape (NumPy's order 'K', as ``zeros_like`` has it): ``preserve_format``."""
    if source.flags.c_contiguous:
        return t
    data = xp_of(source).empty_like(source, dtype=t._data.dtype)
    data[...] = t._data
    t._data = data
    return t


def relaid(t: Any, fmt: Any) -> Any:
    """A freshly made tensor ``t`` given the layout ``fmt`` (None or ``preserve_format``:
    left as made). For constructors only: t has no history."""
    if fmt is None or fmt is preserve_format:
        return t
    if fmt is contiguous_format and t._data.flags.c_contiguous:
        return t
    t._data = laid_out(t._data, fmt)
    return t
