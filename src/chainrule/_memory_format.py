"""Memory formats: the order in which a tensor's elements lie in memory.

``contiguous_format`` is row-major (NCHW for an image batch); ``channels_last`` puts the
channel dim innermost (NHWC, strides ``(H*W*C, 1, W*C, C)``) and ``channels_last_3d`` does
the same for 5-D tensors (NDHWC); ``preserve_format`` asks a copy to keep its input's layout.
A chainrule tensor is a NumPy array, so a format is just the strides of that array: a
channels-last tensor is an NHWC array viewed with its axes permuted back to NCHW.

Ops lay out their outputs as PyTorch's CPU kernels do (``follow``, one look at the input's
strides on the common path): convolutions (2-d ones when the input or the weight is
channels-last; 3-d ones only where PyTorch picks its oneDNN kernel), max, average and
adaptive pooling (2-d; 3-d max pooling), batch norm, group norm, local response norm,
upsampling (nearest, bilinear, bicubic, trilinear, antialiased) and pixel (un)shuffle give a
channels-last output for a channels-last input; layer norm, instance norm, 3-d average and
adaptive pooling give a row-major one; elementwise ops keep their inputs' common layout
(NumPy's order 'K').

``dropout``, ``gelu``, ``F.pad`` (but circular) and ``cat`` of inputs all in one
channels-last format keep it, as PyTorch's.

Where chainrule differs from PyTorch: elementwise ops of mixed layouts (channels-last first,
row-major second; ``where`` of such) follow NumPy's order 'K', which gives row-major where
PyTorch follows the first input, and ``stack`` of channels-last inputs gives a row-major
result where PyTorch keeps each slice's strides; ``preserve_format`` copies and reductions follow NumPy's order 'K', which gives a
size-1 dim its row-major stride; a leaf's ``.grad`` takes the layout of the last VJP, where
PyTorch gives it the leaf's strides, and gradients inside a backward pass take the layout of
the op that computes them; and NumPy gives zero-size arrays zero strides, so their
channels-last contiguity cannot be told. The 3-d convolution rule reads the CPU's: float16
never takes the oneDNN kernel here (PyTorch's does on CPUs with float16 arithmetic).
"""

from __future__ import annotations

from typing import Any

from ._backend import xp_of
from ._meta import MetaArray


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


def channels_last_of(*arrays: Any) -> memory_format | None:
    """The channels-last format the first of ``arrays`` whose strides suggest one suggests
    (``suggested``), or None. One look at the strides rejects the common case: a dim walked
    after the channels never has a stride below the channels' one in that format."""
    for a in arrays:
        nd = a.ndim
        if (nd == 4 or nd == 5) and a.strides[1] <= a.strides[-1]:
            fmt = suggested(a)
            if fmt is not contiguous_format:
                return fmt
    return None


def follow(out: Any, *sources: Any) -> Any:
    """``out`` laid out as PyTorch lays out the result of an op that keeps its input's
    format (convolutions, pooling, upsampling, ...): in the channels-last format one of the
    ``sources`` (arrays of out's rank) suggests, with the strides that format gives every dim
    (size-1 dims too); otherwise ``out`` as it is."""
    fmt = channels_last_of(*sources)
    if fmt is None or out.ndim != _rank_of(fmt) or out.__class__ is MetaArray:
        return out
    return as_format(out, fmt)


def as_format(out: Any, fmt: memory_format) -> Any:
    """``out`` in the channels-last format ``fmt`` with PyTorch's strides for it (a copy
    where out is laid out otherwise, out itself where it already is)."""
    if out.strides == _format_strides(out.shape, out.itemsize, _ORDER[fmt]):
        return out
    return laid_out(out, fmt)


def row_major(out: Any) -> Any:
    """``out`` laid out row-major, as PyTorch allocates the results of ops that do not keep
    a channels-last format (layer norm, 3-D average pooling): NumPy's order 'K' would."""
    if out.flags.c_contiguous or out.__class__ is MetaArray:  # (a meta array: no layout)
        return out
    return xp_of(out).ascontiguousarray(out)


def _format_strides(shape: tuple, itemsize: int, order: tuple) -> tuple:
    """The strides (in bytes) of a dense array of ``shape`` whose dims lie innermost first
    in ``order``: each the product of the sizes inside it (size-1 dims too, as PyTorch)."""
    strides = [0] * len(shape)
    step = itemsize
    for d in order:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def follow_result(t: Any, *sources: Any) -> Any:
    """``follow`` for the tensor ``t`` an op just returned (its array swapped for an equal
    one in the format; for ops whose node keeps no output array to read back)."""
    t._data = follow(t._data, *sources)
    return t


def common_format_result(t: Any, sources: Any) -> Any:
    """The tensor ``t`` an op joining ``sources`` returned (``cat``), in their channels-last
    format when every one of them suggests the same one, as PyTorch's; else as it is."""
    fmt = channels_last_of(sources[0])
    if fmt is None or t._data.ndim != _rank_of(fmt) or t._data.__class__ is MetaArray:
        return t
    for a in sources[1:]:
        if suggested(a) is not fmt:
            return t
    t._data = as_format(t._data, fmt)
    return t


def row_major_result(t: Any) -> Any:
    """``row_major`` for the tensor ``t`` an op just returned (as ``follow_result``)."""
    t._data = row_major(t._data)
    return t


def batch_of_one(out: Any) -> Any:
    """A row-major ``out`` whose batch dim has size 1, given that dim the stride PyTorch gives
    it (the size of one sample) where NumPy's transposes left another (a view)."""
    if out.shape[0] == 1 and out.ndim > 1 and out.flags.c_contiguous:
        return out.reshape(-1).reshape(out.shape)
    return out


def as_leaf_grad(grad: Any, leaf: Any) -> Any:
    """``grad`` laid out as PyTorch stores a leaf's ``.grad`` (AccumulateGrad's layout
    contract): with the strides of the leaf's array ``leaf`` where that is dense (its
    elements fill a block without overlap, in any dim order), row-major otherwise; the
    strides of size-1 dims do not count. ``grad`` itself where it already is so laid out."""
    if grad.shape != leaf.shape or grad.strides == leaf.strides:
        return grad
    if not _dense(leaf):
        return row_major(grad)
    if all(n == 1 or g == s for n, g, s in zip(grad.shape, grad.strides, leaf.strides)):
        return grad
    out = xp_of(grad).empty_like(leaf, dtype=grad.dtype)  # (order 'K': leaf's dim order)
    out[...] = grad
    return out


def _dense(array: Any) -> bool:
    """Whether ``array``'s elements fill one block without overlap, in some order of dims."""
    step = array.itemsize
    for stride, size in sorted((s, n) for s, n in zip(array.strides, array.shape) if n != 1):
        if stride != step:
            return False
        step *= size
    return True
