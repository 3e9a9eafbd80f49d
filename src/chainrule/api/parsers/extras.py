"""PyTorch's everyday small names that need a little code: ``is_inference``, the function
forms of ``detach``/``detach_``, ``fill`` (out of place), ``scalar_tensor``, ``logspace``,
``sum_to_size``, ``nbytes``/``itemsize``/``get_device``, ``isin`` and ``unravel_index``."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

from ... import _dtypes
from ..._backend import on_device_of, xp
from ..._creation import _check_device, _check_requires_grad, invalid_spacing, steps_refused
from ..._dtypes import dtype as DType
from ..._meta import data_device, on_device, to_data_device
from ..._promotion import as_number, result_type
from ..._tensor import Tensor, _make
from ...ops import copies, reductions, shapes
from ..args import shape_args


def is_inference(input: Tensor) -> bool:
    """Whether input was made under ``inference_mode`` (an inference tensor)."""
    return input.is_inference()


def detach(input: Tensor) -> Tensor:
    """input.detach(): a new leaf sharing input's memory and version counter."""
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """input.detach_(): input becomes a leaf that does not require grad."""
    return input.detach_()


def fill(input: Tensor, value: Tensor | float) -> Tensor:
    """A tensor like input full of ``value`` (a number or a 0-d tensor, which then gets the
    gradient: the sum of the output's)."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return copies.fill_tensor(input, value, inplace=False)
    value = _dtypes.checked_fill(as_number(value), input._dtype)
    return copies.fill(input, value=value, inplace=False)


@on_device
def scalar_tensor(
    s: float | Tensor,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """A 0-d tensor holding ``s``, of the default float dtype unless ``dtype`` is given
    (converted as ``full`` converts its value: a complex number needs a complex dtype unless
    its imaginary part is 0, and a value beyond the dtype's range raises PyTorch's error)."""
    _check_device(device)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    value = _dtypes.checked_fill(_number_arg(s), dt)
    with xp.errstate(over="ignore"):  # (a float64 beyond complex64's parts: inf, as PyTorch)
        arr = xp.asarray(value).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


def _number_arg(s: Any) -> Any:
    """scalar_tensor's ``s`` as PyTorch's parser reads a Number: a Python or NumPy number,
    or a 0-d tensor that does not require grad (its value)."""
    if isinstance(s, Tensor):
        if s._data.ndim == 0 and not s._requires_grad:
            return s.item()
    elif isinstance(s, numbers.Number):
        return as_number(s)
    raise TypeError(
        f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}"
    )


@on_device
def logspace(
    start: float | Tensor,
    end: float | Tensor,
    steps: int,
    base: float = 10.0,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """``steps`` values base**e for e evenly spaced from start to end inclusive: complex where
    start or end is complex (the default complex dtype) or ``dtype`` is, then
    base**e = exp(e · log(base)) on the principal branch (a negative base gives complex
    values there, nan in a real dtype)."""
    _check_device(device)
    if isinstance(base, (complex, str)) or not isinstance(base, numbers.Real):
        given = f", base={type(base).__name__}"  # (a complex base: no signature takes it)
        raise TypeError(
            invalid_spacing("logspace", (start, end, steps), "float base = 10.0, ", given)
        )
    if steps_refused(steps):
        got = (start, end, steps) if base == 10.0 else (start, end, steps, base)
        raise TypeError(invalid_spacing("logspace", got, "float base = 10.0, "))
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    for label, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v.ndim:
            raise RuntimeError(
                "logspace only supports 0-dimensional start and end tensors, but got "
                f"{label} with {v.ndim} dimension(s)."
            )
    ends = [v.item() if isinstance(v, Tensor) else as_number(v) for v in (start, end)]
    if any(isinstance(v, complex) for v in ends):
        inferred = _dtypes.default_complex()
        if dtype is None:
            dt = inferred
        elif dt._category != 3:
            raise RuntimeError(
                f"torch.logspace(): inferred dtype {inferred.c_name} can't be safely cast to "
                f"passed dtype {dt.scalar_name}"
            )
    with xp.errstate(over="ignore", invalid="ignore", divide="ignore"):  # (as PyTorch casts)
        if dt._category == 3:
            exponents = xp.linspace(complex(ends[0]), complex(ends[1]), int(steps))
            arr = xp.exp(exponents * xp.log(complex(base))).astype(dt.np)
        elif dt._category < 2 and int(steps) > 1:
            arr = _integer_logspace(ends, int(steps), float(base), dt)
        elif dt._category == 1 and int(steps) == 1:  # base**start, PyTorch's checked cast
            arr = xp.full(1, _dtypes.checked_fill(float(base) ** float(ends[0]), dt), dt.np)
        else:
            exponents = xp.linspace(float(ends[0]), float(ends[1]), int(steps))
            arr = (float(base) ** exponents).astype(dt.np)
    return _check_requires_grad(_make(arr, dt), requires_grad)


def _integer_logspace(ends: list, steps: int, base: float, dt: DType) -> Any:
    """logspace into an integer dtype as PyTorch computes it: the ends cast to dt first
    (its checked cast), the exponents s + step·i for the first half of the points and
    e - step·(steps - 1 - i) for the rest, base**exponent in doubles, then cast to dt."""
    if dt._category == 0:
        raise _dtypes.not_implemented("logspace_cpu", dt)
    first, last = (int(xp.asarray(_dtypes.checked_fill(v, dt)).astype(dt.np)) for v in ends)
    step = (last - first) / (steps - 1)
    half = steps // 2
    i = xp.arange(steps, dtype=xp.float64)
    exponents = xp.where(i < half, first + step * i, last - step * (steps - 1 - i))
    return (base**exponents).astype(dt.np)


def sum_to_size(self: Tensor, *sizes: Any, size: Any = None) -> Tensor:
    """self summed down to ``size`` (which self broadcasts from): self itself if it is."""
    if size is not None:
        sizes = (size,)
    size = sizes
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    target = tuple(int(s) for s in shape_args(size))
    shape = self._data.shape
    lead = len(shape) - len(target)
    if lead < 0 or any(t != s and t != 1 for t, s in zip(target, shape[lead:])):
        raise RuntimeError(f"size {{{list(target)}}} is not expandable to size {{{list(shape)}}}.")
    if target == shape:
        return self
    dims = tuple(range(lead)) + tuple(
        lead + i for i, t in enumerate(target) if t == 1 and shape[lead + i] != 1
    )
    out = reductions.sum(self, dim=dims, keepdim=True) if dims else self
    return shapes.view(out, shape=target) if lead else out


def nbytes(self: Tensor) -> int:
    """The bytes the tensor's elements take: numel * itemsize."""
    return int(self._data.size) * self._dtype.itemsize


def itemsize(self: Tensor) -> int:
    """The bytes one element takes."""
    return self._dtype.itemsize


def get_device(input: Tensor) -> int:
    """The CUDA device index of input: -1 on any other device (the CPU, meta)."""
    d = input.device
    return d.index if d.type == "cuda" else -1


def _isin_operand(v: Any, name: str) -> Any:
    if isinstance(v, Tensor):
        if v._dtype is _dtypes.bool:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
        return v
    if isinstance(v, bool) or not isinstance(v, numbers.Number):
        raise TypeError(
            f"isin(): argument '{name}' must be Tensor or Number, not {type(v).__name__}"
        )
    if isinstance(as_number(v), complex):  # (PyTorch wraps it as a complex128 tensor)
        raise RuntimeError("Unsupported input type encountered for isin(): ComplexDouble")
    return as_number(v)


def isin(
    elements: Tensor | float,
    test_elements: Tensor | float,
    *,
    assume_unique: bool = False,
    invert: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """A bool tensor of elements' shape: whether each element is among test_elements
    (compared in their promoted dtype; ``invert`` negates)."""
    for t in (elements, test_elements):
        if isinstance(t, Tensor) and t._dtype._category == 3:
            raise RuntimeError(
                f"Unsupported input type encountered for isin(): {t._dtype.scalar_name}"
            )
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(
            "isin() received an invalid combination of arguments - got "
            f"({type(elements).__name__}, {type(test_elements).__name__}), but expected one "
            "of:\n * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)\n * (Number element, Tensor test_elements, "
            "*, bool assume_unique = False, bool invert = False, Tensor out = None)\n * (Tensor "
            "elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n"
        )
    a = _isin_operand(elements, "elements")
    b = _isin_operand(test_elements, "test_elements")
    with on_device_of(*(t._data for t in (a, b) if isinstance(t, Tensor))):  # where they are
        common = result_type([a, b]).np
        arr_a = a._data.astype(common) if isinstance(a, Tensor) else xp.asarray(a, dtype=common)
        arr_b = b._data.astype(common) if isinstance(b, Tensor) else xp.asarray(b, dtype=common)
        hits = xp.isin(arr_a, arr_b, assume_unique=bool(assume_unique), invert=bool(invert))
        return _make(xp.asarray(hits), _dtypes.bool)


def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """The coordinates, in a tensor of ``shape``, of each flat index in ``indices``: one
    int64 tensor per dim, of indices' shape (indices wrap as Python's // and % do)."""
    if not isinstance(indices, Tensor):  # (PyTorch's own error for a Python int)
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices._dtype._category != 1:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    if isinstance(shape, bool) or not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    shape = tuple(shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    with on_device_of(indices._data):  # the coordinates where the indices are
        flat = indices._data.astype(xp.int64)
        with xp.errstate(divide="ignore"):  # (a dim of size 0: PyTorch divides by zero too)
            return tuple(
                _make(xp.asarray((flat // stride) % size if size else flat * 0), _dtypes.int64)
                for stride, size in zip(strides, shape)
            )


def range_(
    start: float = 0,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """The deprecated ``torch.range``: start, start + step, ... up to end inclusive, of the
    default float dtype unless ``dtype`` is given (PyTorch warns to use ``arange``)."""
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    _check_device(device)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.get_default_dtype()
    start, end, step = (float(v.item() if isinstance(v, Tensor) else v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    arr = (start + step * xp.arange(count, dtype=xp.float64)).astype(dt.np)
    out = _make(arr, dt)
    kind = None if device is None else data_device(device)  # (PyTorch's range is not made
    if kind is not None:  # on the default device, only on the one given)
        to_data_device(out, kind)
    return _check_requires_grad(out, requires_grad)
