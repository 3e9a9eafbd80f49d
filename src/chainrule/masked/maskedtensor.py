"""``torch.masked.MaskedTensor``: a Tensor subclass that carries a boolean mask beside its data.

The MaskedTensor is a tensor whose own values are its data (masked-out elements included);
the mask rides along as an attribute. Ops reach it through ``__torch_function__``
(chainrule/overrides.py) and are handled by family, as PyTorch's prototype does:

- elementwise ops (``exp``, ``x + y``, ``x < 2``, ...) run on the data and keep the mask;
  two MaskedTensors must have equal masks;
- the reductions (``sum``, ``mean``, ``amax``, ``amin``, ``argmax``, ``argmin``, ``prod``,
  ``all``, ``var``, ``std``) are ``torch.masked``'s; their mask says where any element was
  masked in;
- ``softmax``, ``log_softmax``, ``softmin`` are ``torch.masked``'s, with the same mask;
- shape ops (``view``, ``reshape``, ``t``, ``transpose``, indexing, ``cat``, ...) apply to
  data and mask alike;
- the attributes (``shape``, ``dtype``, ``requires_grad``, ...) are the data's, and ``.grad``
  is a MaskedTensor with the leaf's mask.

The data of an op's result is in the graph (an alias of the plain result), so autograd
reaches the leaf MaskedTensor. Other ops raise PyTorch's TypeError for a subclass that does
not handle them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import chainrule as torch  # (absolute: under `chainrule run` it is also torch)
from chainrule import Tensor
from chainrule._dtypes import dtype as DType
from chainrule.overrides import DisableTorchFunctionSubclass

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]

_PROTOTYPE = (
    "The PyTorch API of MaskedTensors is in prototype stage and will change in the near "
    "future. Please open a Github issue for features requests and see our documentation on "
    "the torch.masked module for further information about the project."
)
_GRAD_DATA = (
    "It is not recommended to create a MaskedTensor with a tensor that requires_grad. "
    "To avoid this, you can use data.detach().clone()"
)
_SUPPORTED = ("float16", "float32", "float64", "bool", "int8", "int16", "int32", "int64")


def is_masked_tensor(obj: Any, /) -> bool:
    """Whether ``obj`` is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


def _check_types(data: Any, mask: Any) -> None:
    if is_masked_tensor(data) or not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if is_masked_tensor(mask) or not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")


def _validate(data: Tensor, mask: Tensor) -> None:
    """PyTorch's checks of a MaskedTensor's data and mask, in its order."""
    if mask.dtype != torch.bool:
        raise TypeError("mask must have dtype bool.")
    if str(data.dtype).split(".")[-1] not in _SUPPORTED:
        raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
    if data.dim() != mask.dim():
        raise ValueError("data.dim() must equal mask.dim()")
    if data.size() != mask.size():
        raise ValueError("data.size() must equal mask.size()")


def _checked(data: Any, mask: Any) -> None:
    """PyTorch's checks and warnings on making a MaskedTensor of ``data`` and ``mask``."""
    _check_types(data, mask)
    warnings.warn(_PROTOTYPE, UserWarning, stacklevel=3)
    if data.requires_grad:
        warnings.warn(_GRAD_DATA, UserWarning, stacklevel=3)
    _validate(data, mask)


def _plain(t: Tensor) -> Tensor:
    """A MaskedTensor's data as a plain tensor, in the graph (an alias of it)."""
    with DisableTorchFunctionSubclass():
        return Tensor.as_subclass(t, Tensor)


def _wrap(data: Tensor, mask: Tensor) -> MaskedTensor:
    """A MaskedTensor over ``data`` itself (in the graph: an alias of it) and ``mask``."""
    with DisableTorchFunctionSubclass():
        out = Tensor.as_subclass(data, MaskedTensor)
    out._masked_mask = mask
    return out


def _wrap_result(data: Any, mask: Any) -> Any:
    """``data`` made MaskedTensors with ``mask`` (item by item for tuples and lists)."""
    if isinstance(data, (tuple, list)):
        return type(data)(_wrap_result(d, m) for d, m in zip(data, mask, strict=True))
    warnings.warn(_PROTOTYPE, UserWarning, stacklevel=3)
    return _wrap(data, mask)


class MaskedTensor(Tensor):
    """Data and a boolean mask of the same shape: the elements where the mask is False are
    masked out (printed ``--``, skipped by the reductions)."""

    _is_masked_tensor = True  # (what torch.masked's ops look for, without importing this)
    _masked_mask: Tensor

    def __new__(cls, data: Tensor, mask: Tensor, requires_grad: bool = False) -> MaskedTensor:
        _checked(data, mask)
        with DisableTorchFunctionSubclass():
            out = Tensor._make_subclass(cls, data.detach().clone(), requires_grad)
        out._masked_mask = mask.clone()
        return out

    def get_data(self) -> Tensor:
        """The data, masked-out elements included (in the graph: gradients reach ``self``)."""
        return _plain(self)

    def get_mask(self) -> Tensor:
        """The mask: True where an element is masked in."""
        return self._masked_mask

    def to_tensor(self, value: Any) -> Tensor:
        """The data with ``value`` at the masked-out elements."""
        return self.get_data().masked_fill(~self._masked_mask, value)

    def is_sparse_coo(self) -> bool:
        return False

    def is_sparse_csr(self) -> bool:  # type: ignore[override]
        return False

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        data = _plain(self).detach().numpy().tolist()
        mask = self._masked_mask.numpy().tolist()
        if self.dim() == 0:
            shown = _format(data) if mask else "--"
            return f"MaskedTensor({shown}, {mask})"
        return "MaskedTensor(\n" + _indent(_nested(data, mask)) + "\n)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return object.__format__(self, spec)

    @classmethod
    def __torch_function__(
        cls, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        """Run ``func`` by its family (see the module's docstring); NotImplemented for the
        ops MaskedTensor does not handle."""
        kwargs = kwargs or {}
        name = _name(func)
        with DisableTorchFunctionSubclass():
            if name in _REDUCTIONS:
                return _reduce(name, *args, **kwargs)
            if name in _NORMALIZATIONS:
                return _normalize(name, *args, **kwargs)
            if name in _ELEMENTWISE:
                return _elementwise(func, args, kwargs)
            if name in _SHAPE:
                return _shape(func, args, kwargs)
            if name == "grad":
                grad = func(*args)
                return None if grad is None else _wrap(grad, args[0]._masked_mask)
            if name == "where":
                return _where(*args, **kwargs)
            if name == "backward":  # (from the MaskedTensor itself: its graph)
                return func(args[0], *_map(args[1:], _plain), **_map(kwargs, _plain))
            if name in ("tolist", "numpy"):
                raise RuntimeError(_NO_EXPORT[name])
            if name in _ATTRIBUTES:
                return func(*args, **kwargs)
        return NotImplemented


def masked_tensor(data: Any, mask: Any, requires_grad: bool = False) -> MaskedTensor:
    """A MaskedTensor holding a copy of ``data`` and ``mask`` (a new leaf)."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data: Any, mask: Any) -> MaskedTensor:
    """A MaskedTensor over ``data`` and ``mask``, in the graph of ``data`` (gradients flow
    back to ``data``)."""
    _checked(data, mask)
    return _wrap(data, mask)


# ----- printing ------------------------------------------------------------------------------


def _format(value: Any) -> str:
    return f"{value:8.4f}" if isinstance(value, float) else str(value)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.split("\n"))


def _nested(data: list, mask: list) -> str:
    """The rows of data, ``--`` at the masked-out elements (padded to the width of 8
    that a float takes)."""
    if not data or not isinstance(data[0], list):
        shown = [_format(d) for d in data]
        width = max((8 if not m else len(s) for s, m in zip(shown, mask)), default=0)
        return "[" + ", ".join(s if m else "--".rjust(width) for s, m in zip(shown, mask)) + "]"
    rows = [_indent(_nested(d, m)) for d, m in zip(data, mask)]
    return "[\n" + ",\n".join(rows) + "\n]"


# ----- the families of ops -------------------------------------------------------------------

_REDUCTIONS = {"sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "all", "var", "std"}
_NORMALIZATIONS = {"softmax", "log_softmax", "softmin"}
_UNARY = """abs absolute acos arccos acosh arccosh angle asin arcsin asinh arcsinh atan arctan
atanh arctanh bitwise_not ceil clamp clip conj conj_physical cos cosh deg2rad digamma erf erfc
erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit i0 isnan nan_to_num neg
negative positive pow rad2deg reciprocal round rsqrt sigmoid sign sgn signbit sin sinc sinh sqrt
square tan tanh trunc clone detach contiguous to double float half bool int long data real
invert pos""".split()
_BINARY = """add atan2 arctan2 bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift div divide floor_divide fmod logaddexp logaddexp2 mul multiply nextafter
remainder sub subtract true_divide eq ne le ge greater greater_equal gt less_equal lt less
maximum minimum fmax fmin not_equal rsub rpow rtruediv rfloordiv rmod and or xor rand ror rxor
truediv floordiv mod""".split()
_ELEMENTWISE = set(_UNARY) | set(_BINARY)
_SHAPE = {"select", "transpose", "t", "split", "getitem", "expand", "view", "reshape"}
_SHAPE |= {"flatten", "unsqueeze", "cat", "stack"}
# (read from the data as they are)
_ATTRIBUTES = set(
    """dim size numel len requires_grad_ is_floating_point is_complex element_size stride
is_contiguous ndimension nelement retain_grad register_hook data_ptr is_signed item shape dtype
device layout requires_grad is_leaf grad_fn ndim is_cuda is_sparse is_meta is_quantized
output_nr retains_grad itemsize nbytes is_nested _version requires_grad.__set__
grad.__set__""".split()
)
_CONVERSIONS = {"__float__", "__int__", "__bool__", "__complex__", "__index__", "__array__"}
_ATTRIBUTES |= _CONVERSIONS
_NO_EXPORT = {
    "tolist": ".tolist() is not supported for tensor subclasses, got MaskedTensor",
    "numpy": ".numpy() is not supported for tensor subclasses.",
}

# Tensor's operators and properties -> name; refilled when dispatch wraps them anew
_DUNDERS: dict[Any, str] = {}


def _name(func: Callable) -> str:
    """The op's name: ``sum`` for ``torch.sum`` and ``Tensor.sum``, ``lt`` for ``<``,
    ``shape`` for reading ``shape``, ``grad.__set__`` for setting ``.grad``."""
    public = getattr(func, "_name", None)
    if public:
        return _undunder(public.rsplit(".", 1)[-1])
    owner = getattr(func, "__self__", None)
    key = owner if isinstance(owner, property) else func
    try:
        name = _DUNDERS.get(key) or _refill().get(key, "")
    except TypeError:  # (not hashable: not Tensor's)
        return ""
    if isinstance(owner, property) and func.__name__ != "__get__":
        return f"{name}.__set__"
    return name


def _refill() -> dict[Any, str]:
    """``_DUNDERS`` from Tensor's attributes as they are now."""
    _DUNDERS.clear()
    for key, value in vars(Tensor).items():
        if isinstance(value, property):
            _DUNDERS[value] = key
        elif key.startswith("__") and callable(value):
            _DUNDERS[value] = _undunder(key)
    return _DUNDERS


def _undunder(name: str) -> str:
    """``lt`` for ``__lt__``; other names (``__float__`` too) as they are."""
    if name.startswith("__") and name.endswith("__") and name not in _CONVERSIONS:
        return name[2:-2]
    return name


def _mask_of(args: tuple, kwargs: dict) -> Tensor:
    """The mask of the MaskedTensors among the first two arguments (they must agree), else
    of the first MaskedTensor among the others."""
    masks = [a._masked_mask for a in args[:2] if is_masked_tensor(a)]
    if not masks:
        found: list[Tensor] = []
        _map((args, kwargs), lambda t: found.append(t._masked_mask))
        return found[0]
    if len(masks) == 2 and not _same_mask(masks[0], masks[1]):
        raise ValueError(
            "Input masks must match. If you need support for this, please open an issue on Github."
        )
    return masks[0]


def _same_mask(a: Tensor, b: Tensor) -> bool:
    return a.dim() == b.dim() and bool(torch.eq(a, b).all().item())


def _map(value: Any, fn: Callable[[MaskedTensor], Any]) -> Any:
    """``value`` with ``fn`` applied to its MaskedTensors (in lists and tuples too)."""
    if is_masked_tensor(value):
        return fn(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def _elementwise(func: Callable, args: tuple, kwargs: dict) -> Any:
    """An elementwise op on the data; the result keeps the (common) mask."""
    mask = _mask_of(args, kwargs)
    data = func(*_map(args, _plain), **kwargs)
    return _wrap_result(data, mask)


def _shape(func: Callable, args: tuple, kwargs: dict) -> Any:
    """A shape op applied to the data and to the mask alike."""
    data = func(*_map(args, _plain), **kwargs)
    mask = func(*_map(args, lambda t: t._masked_mask), **kwargs)
    return _wrap_result(data, mask)


def _where(condition: Tensor, input: Any, other: Any) -> MaskedTensor:
    """``torch.where`` on data and masks alike; a plain operand is all masked in."""

    def mask(x: Any) -> Tensor:
        return (
            x._masked_mask
            if is_masked_tensor(x)
            else torch.ones_like(torch.as_tensor(x), dtype=torch.bool)
        )

    data = torch.where(condition, _map(input, _plain), _map(other, _plain))
    return _wrap_result(data, torch.where(condition, mask(input), mask(other)))


def _reduction_args(
    input: MaskedTensor, dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> tuple:
    return input, dim, keepdim, dtype


def _any(mask: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """Whether any element is masked in over ``dim`` (an int or a sequence of them)."""
    for d in sorted((dim,) if isinstance(dim, int) else dim, reverse=True):
        mask = torch.any(mask, dim=d, keepdim=keepdim)
    return mask


def _reduce(name: str, *args: Any, **kwargs: Any) -> MaskedTensor:
    """A reduction of ``torch.masked``; the result is masked in where any element was."""
    from . import _ops

    input, dim, keepdim, dtype = _reduction_args(*args, **kwargs)
    mask = input._masked_mask
    if name == "all":
        filled = _plain(input).masked_fill(~mask, True)
        data = filled.all() if len(args) + len(kwargs) == 1 else torch.all(filled, dim, keepdim)
    elif len(args) + len(kwargs) == 1:
        data = getattr(_ops, name)(input, mask=mask)
    else:
        data = getattr(_ops, name)(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    whole = len(args) + len(kwargs) == 1
    return _wrap_result(data, torch.any(mask) if whole else _any(mask, dim, keepdim))


def _normalize(name: str, input: MaskedTensor, dim: int, *args: Any, **kwargs: Any) -> Any:
    """``torch.masked``'s softmax, log_softmax or softmin; the mask is kept."""
    from . import _ops

    dtype = kwargs.get("dtype", next((a for a in args if isinstance(a, DType)), None))
    data = getattr(_ops, name)(input, dim, dtype=dtype)
    return _wrap_result(data, input._masked_mask)
