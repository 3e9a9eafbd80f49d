"""The variants the name table derives from a public function: the in-place method
(``x.add_(y)``), ``out=``, and the operators (``x + y``, ``x == y``)."""

from __future__ import annotations

import functools
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


def inplace_method(op_function: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The in-place variant of ``op_function``: ``x.add_(y)`` is ``x = x + y`` written into x."""
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
            return _inplace(self, op_function, (self, *args), kwargs)

    else:

        def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
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
    if dtype._category != 2 or _fw_state.level:
        return False
    c = other.__class__
    if isinstance(other, Tensor):
        if other._dtype is not dtype:
            return False
        if grad_mode._state.enabled and (self._requires_grad or other._requires_grad):
            return False
        other = other._data
        if alpha is not None:
            if alpha.__class__ is not float and alpha.__class__ is not int:
                return False
            other = alpha * other  # as the out-of-place op scales it (ops/arithmetic._scaled)
    elif alpha is not None:
        return False
    elif c is float or c is int:
        if grad_mode._state.enabled and self._requires_grad:
            return False
    else:
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


def operator(fn: Callable[..., Tensor], reflected: bool = False) -> Callable[..., Tensor]:
    """``self <op> other``, or ``other <op> self`` for a reflected operator."""

    def method(self: Tensor, other: Any) -> Tensor:
        if other is None:
            return NotImplemented
        if not isinstance(other, (Tensor, int, float, bool)):
            other = tensor_arg(other)
        return fn(other, self) if reflected else fn(self, other)

    return method


# ----- out= ------------------------------------------------------------------------------------


def write_out(
    name: str,
    function: Callable[..., Tensor],
    args: tuple,
    kwargs: dict,
    out: Tensor,
    exact: bool = False,
) -> Tensor:
    """``function(*args, **kwargs)`` written into ``out`` (resized if its shape differs), as
    PyTorch's out= does; no autograd through it, so inputs requiring grad raise. ``exact``:
    out must have the result's dtype (PyTorch's clamp with number bounds)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if grad_mode._state.enabled and any(
        isinstance(a, Tensor) and a._requires_grad for a in (*args, *kwargs.values(), out)
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    result = function(*args, **kwargs)
    bounds = (*args[1:], *kwargs.values())
    if exact and out._dtype is not result._dtype and not any(isinstance(b, Tensor) for b in bounds):
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {result._dtype.scalar_name}"
        )
    if result._dtype._category > out._dtype._category:
        raise RuntimeError(
            f"result type {result._dtype.scalar_name} can't be cast to the desired "
            f"output type {out._dtype.scalar_name}"
        )
    if out._data.shape != result._data.shape:
        if out._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=3,
            )
        with on_device_of(out._data):  # the new storage where out was
            out._data = xp.empty(result._data.shape, dtype=out._dtype.np)
    xp.copyto(out._data, result._data, casting="unsafe")
    out._bump()
    return out


def with_out(
    function: Callable[..., Tensor], exact: bool = False, name: str | None = None
) -> Callable[..., Tensor]:
    """``function`` with PyTorch's ``out=`` keyword (``name``: the op its errors name)."""
    name = name or function.__name__

    def wrapper(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
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
            if other is None:
                return NotImplemented
            other = tensor_arg(other)
        return apply((self, other), _NO_PARAMS)

    return binary_entry(op, general)


def binary_operator(
    fn: Callable[..., Tensor], reflected: bool = False
) -> Callable[[Tensor, Any], Tensor]:
    if reflected:

        def op(self: Tensor, other: Any) -> Tensor:
            return fn(self, other)

    else:

        def op(self: Tensor, other: Any) -> Tensor:
            if not isinstance(other, (Tensor, int, float, bool)):
                if other is None:
                    return NotImplemented
                other = tensor_arg(other)
            return fn(self, other)

    return op


_eq = compare(logical.eq)
_ne = compare(logical.ne)


def eq_operator(self: Tensor, other: Any) -> Tensor | bool:
    if (
        other is None
        or not isinstance(other, (Tensor, int, float, bool, complex))
        and not hasattr(other, "__array__")
        and not isinstance(other, (list, tuple))
    ):
        return False
    return _eq(self, other)


def ne_operator(self: Tensor, other: Any) -> Tensor | bool:
    if (
        other is None
        or not isinstance(other, (Tensor, int, float, bool, complex))
        and not hasattr(other, "__array__")
        and not isinstance(other, (list, tuple))
    ):
        return True
    return _ne(self, other)
