"""PyTorch's signatures for the pointwise ops (arithmetic, unary, special,
binary, logical, copies): the argument handling that turns a public call into an op call,
and the Tensor methods whose signatures differ from the functions (``x.to(...)``,
``x.round(decimals=)``, ``x.T``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ... import _backend, _dtypes, _memory_format, _meta
from ..._dtypes import dtype as DType
from ..._dtypes import float64
from ..._promotion import as_number, result_type
from ..._tensor import Tensor, check_device, device, move
from ...autograd.inplace import constant_write, inplace
from ...autograd.recorders import recorder
from ...ops import arithmetic, binary, complex_parts, copies, logical, shapes, special, unary
from ..args import require_tensor, shape_args, tensor_arg
from . import shapes as p_shapes
from .shapes import transpose

# ----- Tensor conversions and in-place fills ---------------------------------------------


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert dtype (``to(torch.float64)``) or layout (``memory_format=``); devices other
    than 'cpu' are refused."""
    target = kwargs.pop("dtype", None)
    layout = kwargs.pop("memory_format", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    dev = kwargs.pop("device", None)
    # positional non_blocking, copy (after a dtype, device or tensor: only with 2+ args)
    flags = [a for a in args if isinstance(a, bool)] if len(args) > 1 else ()
    if len(flags) > 2:
        raise TypeError(
            f"to() takes at most 2 positional booleans (non_blocking, copy), got {flags}"
        )
    if len(flags) == 2:
        copy = flags[1]
    for a in args:
        if isinstance(a, bool):
            continue
        if isinstance(a, DType):
            target = a
        elif isinstance(a, Tensor):
            target = a._dtype
        elif isinstance(a, (str, device)) or (isinstance(a, int) and not isinstance(a, bool)):
            dev = a
        elif a is not None:
            target = _dtypes.to_dtype(a)
    if dev is not None:
        if isinstance(dev, int):
            dev = device(dev)  # the accelerator's device of that index
        check_device(dev)
        kind = str(dev).partition(":")[0]
        here = _backend.device_type(self._data)
        if kind == "cuda" or (here != "cpu" and kind == "cpu"):
            moved = move(self, device(kind, 0) if kind == "cuda" else device("cpu"))
            if target is not None and target is not moved._dtype:
                return copies.to_dtype(moved, dtype=target)
            return copies.clone(moved) if copy and moved is self else moved
        if _meta.is_meta(self._data) != _meta.wants_meta(dev):
            if _meta.is_meta(self._data):  # no data to copy
                raise NotImplementedError("Cannot copy out of meta tensor; no data!")
            # onto the meta device: a copy that keeps the shape and dtype, and the graph
            same = target is None or target is self._dtype
            out = copies.clone(self) if same else copies.to_dtype(self, dtype=target)
            return _meta.to_meta(out)
    if layout is not None and layout is not _memory_format.preserve_format:
        return _to_layout(self, target, layout, copy)
    if target is None or target is self._dtype:
        return copies.clone(self) if copy else self
    if self._dtype._category == 3 and target._category in (1, 2):  # (bool: nonzero or not)
        return _real_part_cast(self, target)  # (the warning points at to's caller)
    return copies.to_dtype(self, dtype=target)


def _real_part_cast(self: Tensor, target: DType) -> Tensor:
    """Complex self cast to a real dtype: its real part, with PyTorch's UserWarning (once per
    process) in place of NumPy's ComplexWarning."""
    from ..._creation import warn_discarding_imaginary

    warn_discarding_imaginary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _backend.xp.exceptions.ComplexWarning)
        return copies.to_dtype(self, dtype=target)


def _to_layout(self: Tensor, target: DType | None, layout: Any, copy: bool) -> Tensor:
    """self cast to ``target`` and laid out as ``layout`` (ToCopyBackward0); self itself when
    no copy is asked for, the dtype stays and self's strides suggest ``layout`` (PyTorch's
    rule: a size-1 channel dim makes a row-major tensor suggest row-major)."""
    _memory_format.check_format(self._data.ndim, layout)
    same = target is None or target is self._dtype
    if same and not copy and _memory_format.suggested(self._data) is layout:
        return self
    return copies.to_dtype(self, dtype=self._dtype if same else target, memory_format=layout)


def type_method(self: Tensor, dtype: Any = None, **kwargs: Any) -> str | Tensor:
    """The legacy type name (``'torch.FloatTensor'``), or self cast to ``dtype``."""
    if dtype is None:
        return self._dtype.legacy_type
    if isinstance(dtype, str):
        dtype = _dtypes.from_legacy_type(dtype)
    elif isinstance(getattr(dtype, "_dtype", None), _dtypes.dtype):  # (torch.DoubleTensor)
        dtype = dtype._dtype
    return to(self, dtype)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return to(self, other._dtype)


def _cast_method(dtype: DType) -> Callable[[Tensor], Tensor]:
    def method(self: Tensor) -> Tensor:
        return to(self, dtype)

    method.__doc__ = f"self cast to {dtype!r}."
    return method


# Tensor.float(), .double(), ...: the casts by their C names
CAST_METHODS = {
    "float": _cast_method(_dtypes.float32),
    "double": _cast_method(_dtypes.float64),
    "half": _cast_method(_dtypes.float16),
    "bfloat16": _cast_method(_dtypes.bfloat16),
    "long": _cast_method(_dtypes.int64),
    "int": _cast_method(_dtypes.int32),
    "short": _cast_method(_dtypes.int16),
    "char": _cast_method(_dtypes.int8),
    "byte": _cast_method(_dtypes.uint8),
    "bool": _cast_method(_dtypes.bool),
    "cfloat": _cast_method(_dtypes.complex64),
    "cdouble": _cast_method(_dtypes.complex128),
}


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (bumps the version counter)."""
    if not self._data.flags.writeable:  # (an expand: PyTorch fills it)
        return constant_write(self, copies.zero, (self,), {})
    return inplace(self, copies.zero, (self,), {})


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into self in place; the gradient flows to ``src``. A
    Python number fills self with it, as PyTorch's ``copy_`` of a number does."""
    if not isinstance(src, Tensor):
        if isinstance(src, (bool, int, float, complex)) or hasattr(src, "__index__"):
            from ..._creation import tensor

            src = tensor(src)
        else:
            raise TypeError(
                f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
            )
    return inplace(self, copies.copy_from, (self, src), {})


# ----- arithmetic ------------------------------------------------------------------


def add(
    input: Tensor, other: Tensor | float, *, alpha: float = 1, out: Tensor | None = None
) -> Tensor:
    """input + alpha * other, broadcasting."""
    return arithmetic.add(input, tensor_arg(other), alpha=alpha)


def sub(
    input: Tensor, other: Tensor | float, *, alpha: float = 1, out: Tensor | None = None
) -> Tensor:
    """input - alpha * other, broadcasting."""
    return arithmetic.sub(input, tensor_arg(other), alpha=alpha)


def rsub(input: Tensor, other: Tensor | float, *, alpha: float = 1) -> Tensor:
    """other - alpha * input."""
    if isinstance(other, Tensor):
        return arithmetic.sub(other, input, alpha=alpha)
    return arithmetic.rsub(input, other=other, alpha=alpha)


def mul(input: Tensor, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:
    """input * other, broadcasting."""
    return arithmetic.mul(input, tensor_arg(other))


def div(
    input: Tensor,
    other: Tensor | float,
    *,
    rounding_mode: str | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """input / other (true division: integers give the default float dtype)."""
    if rounding_mode is not None:
        return rounded_div(input, other, rounding_mode)
    return arithmetic.div(input, tensor_arg(other))


def pow(input: Tensor | float, exponent: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """input ** exponent; a Python number on either side."""
    input, exponent = as_number(input), as_number(exponent)
    if not isinstance(input, Tensor):
        return arithmetic.pow_scalar_base(exponent, base=input)
    if isinstance(exponent, Tensor):
        return arithmetic.pow_tensor(input, exponent)
    if not isinstance(exponent, (int, float, complex)):
        return arithmetic.pow_tensor(input, tensor_arg(exponent))
    return arithmetic.pow_scalar(input, exponent=exponent)


def where(
    condition: Tensor, input: Tensor | float | None = None, other: Tensor | float | None = None
) -> Tensor:
    if input is None and other is None:  # the indices where condition is nonzero
        return tensor_arg(condition).nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError(
            "where() received an invalid combination of arguments - got (Tensor, Tensor), but "
            "expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor "
            "other, *, Tensor out = None)\n * (Tensor condition, Number self, Tensor other)\n * "
            "(Tensor condition, Tensor input, Number other)\n * (Tensor condition, Number self, "
            "Number other)\n"
        )
    return logical.where(_condition(tensor_arg(condition)), tensor_arg(input), tensor_arg(other))


def _condition(condition: Any) -> Any:
    """where's condition: a bool tensor (a uint8 one, deprecated, with PyTorch's warning)."""
    if not isinstance(condition, Tensor) or condition._dtype is _dtypes.bool:
        return condition
    if condition._dtype is _dtypes.uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=3,
        )
        return condition.to(_dtypes.bool)
    raise RuntimeError(
        "where expected condition to be a boolean tensor, but got a tensor with dtype "
        f"{condition._dtype.scalar_name}"
    )


def equal(input: Tensor, other: Tensor) -> bool:
    """Same shape and same values."""
    require_tensor("equal", input, 1, "input")
    require_tensor("equal", other, 2, "other")
    return input.shape == other.shape and logical.builtins_bool((input._data == other._data).all())


def square(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input ** 2, as PyTorch computes it (pow): integers stay integers, bool gives int64."""
    return arithmetic.pow_scalar(input, exponent=2)


def round(input: Tensor, *, decimals: int | None = None, out: Tensor | None = None) -> Tensor:  # noqa: A001, A002
    """input rounded half to even, to ``decimals`` decimal places (0 when not given)."""
    if decimals is None:
        return unary.round(input)
    return unary.round(input, decimals=int(decimals))


def clamp(
    input: Tensor,
    min: Tensor | float | None = None,
    max: Tensor | float | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """min(max(input, min), max); the bounds both Python numbers or both tensors (None for
    no bound). The gradient passes where min <= input <= max, at the bounds included."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if (
        input.__class__ is Tensor
        and out is None
        and (min is None or min.__class__ is float or min.__class__ is int)
        and (max is None or max.__class__ is float or max.__class__ is int)
        and input._dtype._native
        and input._data.__class__ is _backend.ndarray
    ):  # a float tensor and number bounds: the forward here, recorded by _record_clamp
        x = input._data
        y = _backend.run_quietly(_clamp_forward, x, min, max)
        return _record_clamp(input, x, y, {"min": min, "max": max})
    if isinstance(input, Tensor) and input._dtype._category == 3:
        raise NotImplementedError("clamp is not supported for complex types")
    lo, hi = _bound(min), _bound(max)
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        if not (lo is None or isinstance(lo, Tensor)) or not (hi is None or isinstance(hi, Tensor)):
            raise TypeError(
                "clamp() received an invalid combination of arguments - got (Tensor, "
                f"{type(lo).__name__}, {type(hi).__name__}): min and max are both tensors "
                "or both numbers (either may be None)"
            )
        return binary.clamp_tensor(input, lo, hi)
    return binary.clamp_scalar(input, min=lo, max=hi)


_clamp_forward = binary.clamp_scalar.forward
_record_clamp = recorder(binary.clamp_scalar, binary.clamp_scalar.node_class)


def _bound(b: Any) -> Any:
    if b is None or isinstance(b, (Tensor, int, float)):
        return b
    if isinstance(b, complex):  # clamp reads a bound as a double
        if b.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return b.real
    return tensor_arg(b)


def nan_to_num(
    input: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """input with nan, +inf and -inf replaced (the infinities by the dtype's extremes unless
    given); the gradient is 0 at the replaced elements."""
    for name, value in (("nan' (position 2)", nan), ("posinf'", posinf), ("neginf'", neginf)):
        if isinstance(value, complex):  # (PyTorch's parser: the numbers are floats)
            raise TypeError(f"nan_to_num(): argument '{name} must be float, not complex")
    return unary.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


def lerp(
    input: Tensor, end: Tensor, weight: Tensor | float, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """input + weight (end - input); weight a Python number or a tensor, broadcasting."""
    require_tensor("lerp", input, 1, "input")
    require_tensor("lerp", end, 2, "end")
    if not isinstance(weight, (int, float, complex)):
        weight = require_tensor("lerp", tensor_arg(weight), 3, "weight")
    return binary.lerp(input, end, weight)


def remainder(input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input - other ⌊input/other⌋ (the sign of other, as Python's %); input or other may
    be a Python number. (PyTorch has no derivative for remainder(number, tensor).)"""
    if not isinstance(input, Tensor):
        return arithmetic.remainder_scalar_tensor(
            input, require_tensor("remainder", other, 2, "other")
        )
    return arithmetic.remainder(input, tensor_arg(other))


def fmod(input: Tensor, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input - other trunc(input/other) (the sign of input, as C's fmod)."""
    require_tensor("fmod", input, 1, "input")
    return arithmetic.fmod(input, tensor_arg(other))


def floor_divide(
    input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """⌊input / other⌋; integers stay integers. PyTorch has no derivative for it (backward
    raises): div(input, other, rounding_mode='floor') has the zero gradient."""
    if not isinstance(input, Tensor):
        require_tensor("floor_divide", other, 2, "other")
    return arithmetic.floor_divide(tensor_arg(input), tensor_arg(other))


def rounded_div(input: Tensor | float, other: Tensor | float, rounding_mode: str) -> Tensor:
    """div(input, other, rounding_mode='trunc' or 'floor'): functions.div calls this."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    return arithmetic.div_rounding(
        tensor_arg(input), tensor_arg(other), rounding_mode=rounding_mode
    )


# ----- more pointwise signatures --------------------------------------------------------------


def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """z/|z| for complex input (0 at 0), the sign for real input (gradient 0)."""
    return complex_parts.sgn(input)


def positive(input: Tensor) -> Tensor:  # noqa: A002
    """input itself (PyTorch returns the same tensor); bool raises, as PyTorch's ``+``."""
    if input._dtype._category == 0:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def clamp_min(input: Tensor, min: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """max(input, min); min a Python number or a tensor (broadcasting)."""
    if isinstance(min, Tensor):
        return binary.clamp_min_tensor(input, min)
    return binary.clamp_min_scalar(input, min=min if isinstance(min, complex) else _bound(min))


def clamp_max(input: Tensor, max: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """min(input, max); max a Python number or a tensor (broadcasting)."""
    if isinstance(max, Tensor):
        return binary.clamp_max_tensor(input, max)
    return binary.clamp_max_scalar(input, max=max if isinstance(max, complex) else _bound(max))


def xlogy(input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input · ln(other), 0 where input is 0; either may be a Python number."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        require_tensor("xlogy", other, 2, "other")
    return binary.xlogy(tensor_arg(input), tensor_arg(other))


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """ln(input / (1 - input)), input first clamped to [eps, 1 - eps] when eps is given."""
    return special.logit(input, eps=eps)


def copysign(input: Tensor, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """|input| with the sign of other (a tensor or a Python number)."""
    require_tensor("copysign", input, 1, "input")
    return binary.copysign(input, tensor_arg(other))


def float_power(
    input: Tensor | float, exponent: Tensor | float, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """input ** exponent computed in float64, or complex128 where either is complex
    (PyTorch's graph: a cast, then pow)."""
    wide = float64
    if any(
        isinstance(v, complex) or isinstance(v, Tensor) and v._dtype._category == 3
        for v in (input, exponent)
    ):
        wide = _dtypes.complex128
    if isinstance(input, Tensor):
        input = input.to(wide)  # noqa: A001
    if isinstance(exponent, Tensor):
        exponent = exponent.to(wide)
    elif not isinstance(input, Tensor):
        require_tensor("float_power", exponent, 2, "exponent")
    return pow(input, exponent)


def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """0 where input < 0, values where input = 0, 1 where input > 0 (no derivative)."""
    require_tensor("heaviside", input, 1, "input")
    require_tensor("heaviside", values, 2, "values")
    return binary.heaviside(input, values)


def isreal(input: Tensor) -> Tensor:  # noqa: A002
    """True where the imaginary part is 0 (everywhere, for a real tensor): a bool tensor."""
    from ..._creation import ones_like
    from ..._dtypes import bool as b

    require_tensor("isreal", input, 1, "input")
    if input._dtype._category == 3:
        return logical.eq(complex_parts.imag(input.detach()), 0)
    return ones_like(input, dtype=b)


def isclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:  # noqa: A002
    """|input - other| <= atol + rtol |other|, elementwise: a bool tensor."""
    require_tensor("isclose", input, 1, "input")
    require_tensor("isclose", other, 2, "other")
    return logical.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """ψ⁽ⁿ⁾(input), the n-th derivative of the digamma function ψ (n = 0: ψ itself)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return special.polygamma(input, n=int(n))


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    return polygamma(n, self)


def bitwise_left_shift(
    input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """input << other, on integers."""
    return logical.bitwise_left_shift(tensor_arg(input), tensor_arg(other))


def bitwise_right_shift(
    input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """input >> other, on integers (arithmetic: the sign is kept)."""
    return logical.bitwise_right_shift(tensor_arg(input), tensor_arg(other))


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:  # noqa: A002
    """Whether |input - other| <= atol + rtol |other| everywhere (broadcasting; one dtype)."""
    require_tensor("allclose", input, 1, "input")
    require_tensor("allclose", other, 2, "other")
    return bool(
        logical.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)._data.all()
    )


def fill_(input: Tensor, value: Tensor | float) -> Tensor:  # noqa: A002
    """Fill input with value in place: a Python number, or a 0-d tensor (which then gets
    the gradient: the sum of the output gradient, FillBackward3)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        return inplace(input, copies.fill_tensor, (input, value), {})  # (an expand refuses)
    from ..._creation import converted_fill

    value = converted_fill(as_number(value), input._dtype)
    write = inplace if input._data.flags.writeable else constant_write  # (an expand fills)
    return write(input, copies.fill, (input,), {"value": value})


def _invert(self: Tensor) -> Tensor:
    if self._dtype._category >= 2:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return logical.bitwise_not(self)


def _round_method(self: Tensor, *, decimals: int | None = None) -> Tensor:
    return round(self, decimals=decimals)


def _float_power_(self: Tensor, exponent: Tensor | float) -> Tensor:
    complex_result = self._dtype._category == 3 or (
        isinstance(exponent, complex)
        or isinstance(exponent, Tensor)
        and exponent._dtype._category == 3
    )
    wide = _dtypes.complex128 if complex_result else float64
    if self._dtype is not wide:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self._dtype.scalar_name} but "
            f"the operation's result requires dtype {wide.scalar_name}"
        )
    return inplace(self, float_power, (self, exponent), {})


def _compare_inplace(name: str) -> Callable[[Tensor, Tensor | float], Tensor]:
    op = logical._COMPARE_INPLACE[name]

    def method(self, other: Tensor | float) -> Tensor:
        # a float or complex tensor keeps a (zero-gradient) node, as PyTorch's EqBackward0 ...
        params = {"dtype": self._dtype.np} if self._dtype._category >= 2 else {}
        return inplace(self, op, (self, tensor_arg(other)), params)

    method.__name__ = name + "_"
    method.__doc__ = f"In-place {name}: 1 where true, 0 elsewhere, in self's dtype."
    return method


def _T(self: Tensor) -> Tensor:  # noqa: N802
    if self.ndim == 0:
        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
    elif self.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return shapes.permute(self, dims=tuple(range(self.ndim - 1, -1, -1)))


def _mT(self: Tensor) -> Tensor:  # noqa: N802
    return transpose(self, -2, -1)


def _reshape(self: Tensor, *sizes: Any, shape: Any = None) -> Tensor:
    if shape is not None:
        sizes = p_shapes.keyword_sizes(sizes, shape, "reshape", "shape")
    return p_shapes.reshape(self, shape_args(sizes))


def where_method(self: Tensor, condition: Tensor, other: Tensor | float) -> Tensor:
    """``x.where(condition, y)``: x where condition, else y."""
    return where(condition, self, other)


def pos_operator(self: Tensor) -> Tensor:
    """``+x`` is x itself."""
    return self


# the comparisons' names and aliases, for their in-place methods (x.eq_(y), x.less_(y), ...)
COMPARISONS = (
    ("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"),
    ("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"), ("greater", "gt"),
    ("greater_equal", "ge"),
)  # fmt: skip


# ----- conf-names: addcmul, addcdiv ------------------------------------------------------


def _integral_value(tensors: tuple, value: Any) -> Any:
    """value as the op computes with it: truncated to an integer for integer tensors; a
    complex value for real tensors is PyTorch's overflow error."""
    if isinstance(value, float) and all(t._dtype._category < 2 for t in tensors):
        return int(value)
    if isinstance(value, complex):
        dtype = result_type(tensors)
        if dtype._category != 3:
            raise RuntimeError(f"value cannot be converted to type {dtype.c_name} without overflow")
    return value


def addcmul(
    input: Tensor,
    tensor1: Tensor,
    tensor2: Tensor,
    *,
    value: float = 1,
    out: Tensor | None = None,
) -> Tensor:
    """input + value · tensor1 · tensor2, broadcasting."""
    for i, (name, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        require_tensor("addcmul", t, i + 1, name)
    value = _integral_value((input, tensor1, tensor2), value)
    return arithmetic.addcmul(input, tensor1, tensor2, value=value)


def addcdiv(
    input: Tensor,
    tensor1: Tensor,
    tensor2: Tensor,
    *,
    value: float = 1,
    out: Tensor | None = None,
) -> Tensor:
    """input + value · tensor1 / tensor2, broadcasting (floating tensors only)."""
    for i, (name, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        require_tensor("addcdiv", t, i + 1, name)
    if tensor1._dtype._category < 2 and tensor2._dtype._category < 2:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    return arithmetic.addcdiv(
        input, tensor1, tensor2, value=_integral_value((input, tensor1, tensor2), value)
    )


def xlog1py(input: Tensor | float, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input · ln(1 + other), 0 where input is 0; either may be a Python number."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        require_tensor("xlog1py", other, 2, "other")
    return special.xlog1py(tensor_arg(input), tensor_arg(other))
