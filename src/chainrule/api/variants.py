"""The variants the name table derives from a public function: the in-place method
(``x.add_(y)``), ``out=``, and the operators (``x + y``, ``x == y``)."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._backend import loud, on_device_of, quiet, xp
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.entries import binary_entry
from ..autograd.forward_ad import state as _fw_state
from ..autograd.inplace import inplace as _inplace
from ..ops import logical
from .args import compare, tensor_arg

if TYPE_CHECKING:
    from ..autograd.recording import Op


def inplace_method(
    op_function: Callable[..., Tensor], as_operator: bool = False
) -> Callable[..., Tensor]:
    """The in-place variant of ``op_function``: ``x.add_(y)`` is ``x = x + y`` written into x.
    As an operator (``as_operator``: ``x += y``) it returns ``NotImplemented`` for a ``y`` that is not a
    number or array-like, so that Python raises its TypeError, as for PyTorch's tensors."""
    ufunc = _OUT_UFUNCS.get((op_function.__module__, op_function.__name__))
    if ufunc is not None:

        def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
            if len(args) == 1:
                if not kwargs:
                    if _written_with_out(self, ufunc, args[0]):
                        return self
                elif ufunc in _ALPHA_UFUNCS and len(kwargs) == 1 and "alpha" in kwargs:
                    # p.add_(g, alpha=-lr), the hand-written optimizer's step
                    if _written_with_out(self, ufunc, args[0], kwargs["alpha"]):
                        return self
            if as_operator and _not_an_operand(args[0]):
                return NotImplemented
            return _inplace(self, op_function, (self, *args), kwargs)

    else:

        def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
            if as_operator and _not_an_operand(args[0]):
                return NotImplemented
            return _inplace(self, op_function, (self, *args), kwargs)

    method.__name__ = op_function.__name__ + "_"
    method.__doc__ = f"In-place {op_function.__name__}: writes the result into self."
    return method


# In-place arithmetic where nothing is recorded (``p -= lr * g`` under no_grad): the ufunc
# writes into the tensor's memory with ``out=``, as NumPy's ``a -= b`` does, rather than the
# out-of-place op making a temporary that is copied back. The same result as the general
# path (tests/api/test_inplace_fast.py pins it), which takes every other case and every error.
_OUT_UFUNCS = {
    ("chainrule.api.parsers.pointwise", "add"): xp.add,
    ("chainrule.api.parsers.pointwise", "sub"): xp.subtract,
    ("chainrule.api.parsers.pointwise", "mul"): xp.multiply,
    ("chainrule.api.parsers.pointwise", "div"): xp.true_divide,
}
_ALPHA_UFUNCS = (xp.add, xp.subtract)  # the ops with an alpha


def _written_with_out(self: Tensor, ufunc: Any, other: Any, alpha: Any = None) -> bool:
    """``self <- ufunc(self, other)`` (``ufunc(self, alpha * other)`` for add and sub with a
    number alpha and a tensor other) in place when no graph or tangent is recorded, self is
    floating, writable and keeps its shape, and other is a Python number or a tensor of self's
    dtype; False (nothing written) otherwise."""
    dtype = self._dtype
    if not dtype._native or _fw_state.level:
        return False
    if grad_mode._state.enabled:
        view = self._view  # (a view of a base that requires grad: the general path decides)
        if (
            self._requires_grad
            or view is not None
            and view[0] is not None
            and view[0]._requires_grad
        ):
            return False
    c = other.__class__
    if isinstance(other, Tensor):
        if other._dtype is not dtype:
            return False
        if grad_mode._state.enabled and other._requires_grad:
            return False
        other = other._data
        if alpha is not None:
            if alpha.__class__ is not float and alpha.__class__ is not int:
                return False
            other = alpha * other  # as the out-of-place op scales it (ops/arithmetic._scaled)
    elif alpha is not None or c is not float and c is not int:
        return False
    data = self._data
    if not data.flags.writeable:
        return False
    token = quiet()
    try:
        ufunc(data, other, out=data)
    except (ValueError, TypeError, OverflowError):  # the general path raises PyTorch's error
        return False
    finally:
        loud(token)
    self._bump()
    return True


# ----- operators: x + y, x == y, ... -----------------------------------------------------------


def _not_an_operand(other: Any) -> bool:
    """Whether ``other`` is neither a number nor array-like (see ``_operand``)."""
    if isinstance(other, (Tensor, int, float, bool, complex)):
        return False
    return _operand(other) is NotImplemented


def _operand(other: Any) -> Any:
    """The other side of ``self <op> other`` as a number or tensor, or ``NotImplemented``
    when it is neither (``None``, a string, a ``Decimal``, a list or tuple): Python then
    tries the other side's operator, as it does for PyTorch's tensors, so ``[0] * t`` repeats
    the list by ``t.__index__()`` and ``t == [1, 2]`` is ``False``."""
    if other is None or isinstance(other, (list, tuple)):
        return NotImplemented
    try:
        return tensor_arg(other)
    except TypeError:
        return NotImplemented


def operator(fn: Callable[..., Tensor], reflected: bool = False) -> Callable[..., Tensor]:
    """``self <op> other``, or ``other <op> self`` for a reflected operator."""

    def method(self: Tensor, other: Any) -> Tensor:
        if not isinstance(other, (Tensor, int, float, bool)):
            other = _operand(other)
            if other is NotImplemented:
                return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    return method


# ----- out= ------------------------------------------------------------------------------------


def write_out(
    name: str,
    function: Callable[..., Any],
    args: tuple,
    kwargs: dict,
    out: Any,
    exact: bool = False,
) -> Any:
    """``function(*args, **kwargs)`` written into ``out`` (resized if its shape differs), as
    PyTorch's out= does; no autograd through it, so an input requiring grad that the result
    would depend on raises (``composite_out``: out is a recorded copy instead). A function
    returning several tensors takes a tuple of tensors, one for each, and returns them as its
    result's (named) tuple. ``exact``: out must have the result's dtype (PyTorch's clamp with
    number bounds); ``out_dtype`` marks the dtypes a function's out may have."""
    outs = _out_tensors(name, out)
    rule = getattr(function, "out_dtype", ("kind", None))
    if rule[0] == "any-dtype" and isinstance(out, Tensor):
        dtype = kwargs.get("dtype")
        if dtype is None:
            kwargs = {**kwargs, "dtype": out._dtype}
        elif rule[1] and dtype is not out._dtype:  # (a dtype= that out must have: sum's)
            raise RuntimeError(rule[1].format(out=_Names(out._dtype), result=_Names(dtype)))
    result = function(*args, **kwargs)
    several = isinstance(result, tuple)
    if several and not isinstance(out, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    if not several and isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if several and len(outs) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(outs)}")
    # refused where the result would carry a gradient (an input requiring grad into a
    # differentiable function: argmax or eq of one is written), or out itself requires grad;
    # a composite's result is copied into out with its graph instead
    carries_grad = grad_mode._state.enabled and any(
        t._requires_grad for t in (*_tensors_in((result,)), *outs)
    )
    if carries_grad and getattr(function, "composite_out", False):
        return _copied(function, out, result)
    if carries_grad:
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if several:
        for o, r in zip(outs, result):
            _check_dtype(function, o, r)
        for o, r in zip(outs, result):
            _write(o, r)
        return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)
    bounds = (*args[1:], *kwargs.values())
    if exact and out._dtype is not result._dtype and not any(isinstance(b, Tensor) for b in bounds):
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {result._dtype.scalar_name}"
        )
    _check_dtype(function, out, result)
    _write(out, result)
    return out


def _copied(function: Callable[..., Any], out: Any, result: Any) -> Any:
    """A composite's out=, as PyTorch's (a differentiable function written in terms of
    others, then copied): each result is copied into its out, resized to its shape, with the
    copy recorded, so out requires grad and gradients flow back through it."""
    pairs = list(zip(out, result)) if isinstance(result, tuple) else [(out, result)]
    for o, r in pairs:
        _check_dtype(function, o, r)
    for o, r in pairs:
        if tuple(o.shape) != tuple(r.shape):
            if o._data.size:
                _warn_resized(o, r)
            o.resize_(r.shape)
        o.copy_(r)
    if isinstance(result, tuple):
        outs = tuple(o for o, _ in pairs)
        return type(result)(*outs) if hasattr(result, "_fields") else outs
    return out


def _out_tensors(name: str, out: Any) -> tuple[Tensor, ...]:
    """The tensors of ``out`` (one, or a tuple of them), or PyTorch's TypeError."""
    if isinstance(out, Tensor):
        return (out,)
    if isinstance(out, (tuple, list)) and all(isinstance(o, Tensor) for o in out):
        return tuple(out)
    # (PyTorch names the element of a tuple out that is not a tensor, for a function
    # returning several; this is its message for one returning a tensor)
    raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")


def _tensors_in(values: tuple) -> list[Tensor]:
    """The tensors among ``values``, and in the lists and tuples among them (cat's)."""
    found: list[Tensor] = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v)
        elif isinstance(v, (tuple, list)):
            found.extend(_tensors_in(tuple(v)))
    return found


def _check_dtype(function: Callable[..., Any], out: Tensor, result: Tensor) -> None:
    """PyTorch's refusal of an out it cannot write the result into, by the rule ``out_dtype``
    gave the function: by default (``"kind"``) one of a lower kind (a float result into an
    integer out); ``"same"``: one of any other dtype; ``"bool"``: one neither bool nor
    uint8 (all, any); ``"any"``: none."""
    rule, message, error = getattr(function, "out_dtype", ("kind", None, RuntimeError))
    if rule == "bool":
        refused = out._dtype.name not in ("bool", "uint8")
    elif rule == "same":
        refused = out._dtype is not result._dtype
        message = message or _SAME_DTYPE
    elif rule == "kind":
        refused = result._dtype._category > out._dtype._category
        message = message or _KIND
    else:
        refused = False
    if refused:
        raise error(message.format(out=_Names(out._dtype), result=_Names(result._dtype)))


class _Names:
    """A dtype's names in PyTorch's messages: ``scalar_name`` (``Long``) and ``cpp``, the C++
    type's name as the compiler spells it (``long int``)."""

    def __init__(self, dtype: Any) -> None:
        self.scalar_name = dtype.scalar_name
        self.cpp = _CPP_NAMES.get(dtype.name, dtype.c_name)


_CPP_NAMES = {
    "int64": "long int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
}
_SAME_DTYPE = "Expected out tensor to have dtype {result.cpp}, but got {out.cpp} instead"
_KIND = (
    "result type {result.scalar_name} can't be cast to the desired output type {out.scalar_name}"
)


def _write(out: Tensor, result: Tensor) -> None:
    """result's values into out, resized to result's shape (with PyTorch's warning when out
    had elements), its version bumped."""
    if out._data.shape != result._data.shape:
        if out._data.size:
            _warn_resized(out, result)
        with on_device_of(out._data):  # the new storage where out was
            out._data = xp.empty(result._data.shape, dtype=out._dtype.np)
    xp.copyto(out._data, result._data, casting="unsafe")
    out._bump()


def _warn_resized(out: Tensor, result: Tensor) -> None:
    warnings.warn(
        f"An output with one or more elements was resized since it had shape "
        f"{list(out.shape)}, which does not match the required output shape "
        f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
        "release outputs will not be resized unless they have zero elements. You can "
        "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
        "with t.resize_(0).",
        UserWarning,
        stacklevel=5,
    )


def out_dtype(
    function: Callable[..., Any],
    rule: str = "same",
    message: str | None = None,
    error: type[Exception] = RuntimeError,
) -> Callable[..., Any]:
    """Marks which out dtypes ``function``'s out= takes, as PyTorch's kernel for it does:
    ``"same"`` only the result's (linear algebra, sorting, gathering: no cast, not even
    float64 into float32), ``"kind"`` any of the result's kind or above (the default of an
    unmarked function), ``"any"`` every dtype, the result computed in out's where the
    function takes a ``dtype=`` (cumsum), cast into it otherwise. ``message``: PyTorch's
    error (``{out.scalar_name}``, ``{result.cpp}``: the dtypes' names), raised as ``error``."""
    if rule == "any" and "dtype" in inspect.signature(function).parameters:
        rule = "any-dtype"
    function.out_dtype = (rule, message, error)  # type: ignore[attr-defined]
    return function


def composite_out(function: Callable[..., Any]) -> Callable[..., Any]:
    """Marks ``function`` as one whose out= PyTorch lets an input requiring grad into
    (``tensordot``, ``linalg.cond``, ``softmax``, the ``*_copy`` forms): out is a recorded
    copy of the result. Where PyTorch composes the function of others (``tensordot``) its
    backward runs as here; for the rest (``softmax``, ``diag``, ``*_copy``, ``heaviside``,
    ``floor_divide``, ``conj_physical``) PyTorch's out requires grad but its backward
    raises "derivative for aten::<op> is not implemented", where chainrule's gives the
    gradient (a deliberate difference: the copy's gradient is exact)."""
    function.composite_out = True  # type: ignore[attr-defined]
    return function


def with_out(
    function: Callable[..., Any], exact: bool = False, name: str | None = None
) -> Callable[..., Any]:
    """``function`` with PyTorch's ``out=`` keyword (``name``: the op its errors name): one
    tensor, or a tuple of tensors for a function returning several."""
    name = name or function.__name__

    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return function(*args, **kwargs)
        return write_out(name, function, args, kwargs, out, exact)

    functools.update_wrapper(wrapper, function)
    return wrapper


_NO_PARAMS: dict = {}


def fast_operator(op: Op) -> Callable[[Tensor, Any], Tensor]:
    """``self <op> other`` straight to the op (the hot path of every tutorial loop): the op's
    binary entry (``recording.binary_entry``), which hands what it does not take here."""
    apply = op._apply

    def general(self: Tensor, other: Any) -> Tensor:
        c = other.__class__
        if c is not float and c is not int and not isinstance(other, Tensor):
            other = _operand(other)
            if other is NotImplemented:
                return NotImplemented
        return apply((self, other), _NO_PARAMS)

    return binary_entry(op, general)


def binary_operator(
    fn: Callable[..., Tensor], reflected: bool = False
) -> Callable[[Tensor, Any], Tensor]:
    if reflected:

        def op(self: Tensor, other: Any) -> Tensor:
            if not isinstance(other, (Tensor, int, float, bool, complex)):
                other = _operand(other)
                if other is NotImplemented:
                    return NotImplemented
            return fn(self, other)

    else:

        def op(self: Tensor, other: Any, modulo: Any = None) -> Tensor:
            if not isinstance(other, (Tensor, int, float, bool)):
                other = _operand(other)
                if other is NotImplemented:
                    return NotImplemented
            if modulo is not None:  # pow(t, 2, 5): Python's TypeError, as for PyTorch
                return NotImplemented
            return fn(self, other)

    return op


_eq = compare(logical.eq)
_ne = compare(logical.ne)


def eq_operator(self: Tensor, other: Any) -> Tensor | bool:
    if (
        other is None
        or not isinstance(other, (Tensor, int, float, bool, complex))
        and not hasattr(other, "__array__")
    ):
        return False
    return _eq(self, other)


def ne_operator(self: Tensor, other: Any) -> Tensor | bool:
    if (
        other is None
        or not isinstance(other, (Tensor, int, float, bool, complex))
        and not hasattr(other, "__array__")
    ):
        return True
    return _ne(self, other)


# NumPy's names that PyTorch's argument parser takes for its own (``axis`` for ``dim``)
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}
# ops on model code's hot path, left without the renaming wrapper (its call costs about
# 0.2 us): they refuse axis=/keepdims= (sum and mean take them in their own signatures)
_UNWRAPPED = frozenset(
    "softmax log_softmax unsqueeze squeeze gather select index_select narrow chunk unbind "
    "cat concat concatenate stack split_with_sizes".split()
)


def numpy_names(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, taking ``axis=``/``keepdims=`` for its ``dim``/``keepdim`` as PyTorch's
    native functions and methods do (a name given both ways is left to ``function``'s own
    TypeError). Functions without those parameters, and the hot ones of ``_UNWRAPPED``,
    are returned as they are."""
    code = getattr(function, "__code__", None)
    if code is None or function.__name__ in _UNWRAPPED:
        return function
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    wanted = {k: v for k, v in _NUMPY_NAMES.items() if v in names and k not in names}
    if not wanted:
        return function

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias, name in wanted.items():
                if alias in kwargs and name not in kwargs:
                    kwargs[name] = kwargs.pop(alias)
        return function(*args, **kwargs)

    functools.update_wrapper(wrapper, function)
    return wrapper
