"""PyTorch's runtime checks: ``torch._check`` and its family (a condition, a message made
on failure, the exception type each one raises) and ``torch._assert_async`` (on the CPU,
PyTorch checks at once: so does chainrule)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "_assert_async",
    "_check",
    "_check_index",
    "_check_is_size",
    "_check_not_implemented",
    "_check_tensor_all",
    "_check_type",
    "_check_value",
]

_DEFAULT = (
    "Expected cond to be True, but got False. (Could this error message be improved? If so, "
    "please report an enhancement request to PyTorch.)"
)


def _fail(cond: Any, message: Callable[[], Any] | None, error: type[Exception]) -> None:
    if hasattr(cond, "_export_check"):  # (a Tensor.item's range in an export: checked there)
        return cond._export_check()
    if not isinstance(cond, bool):
        from ._tensor import Tensor

        if isinstance(cond, Tensor):
            raise TypeError(
                "cond must be a bool, but got a Tensor. For tensor conditions, use "
                "torch._check_tensor_all() to assert that all elements are true."
            )
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        raise error(_DEFAULT)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error(str(message()))


def _check(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """RuntimeError (``message()``'s text) unless the bool ``cond`` is True."""
    _fail(cond, message, RuntimeError)


def _check_index(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """``_check`` raising IndexError."""
    _fail(cond, message, IndexError)


def _check_value(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """``_check`` raising ValueError."""
    _fail(cond, message, ValueError)


def _check_type(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """``_check`` raising TypeError."""
    _fail(cond, message, TypeError)


def _check_not_implemented(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """``_check`` raising NotImplementedError."""
    _fail(cond, message, NotImplementedError)


def _check_is_size(i: Any, message: Callable[[], Any] | None = None, *, max: Any = None) -> None:
    """``_check(i >= 0)`` (and ``i <= max``); deprecated in PyTorch, which warns."""
    warnings.warn(
        "_check_is_size will be removed in a future PyTorch release along with "
        "guard_size_oblivious.     Use _check(i >= 0) instead.",
        FutureWarning,
        stacklevel=2,
    )
    cond = i >= 0
    _check(cond if hasattr(cond, "_export_check") else bool(cond), message)
    if max is not None:
        _check(bool(i <= max), message)


def _check_tensor_all(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """RuntimeError unless every element of the bool tensor ``cond`` is True."""
    from ._tensor import Tensor

    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype.name != "bool":
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _fail(bool(cond.all()), message, RuntimeError)


def _assert_async(tensor: Any, assert_msg: str | None = None) -> None:
    """RuntimeError unless the one-element ``tensor`` is nonzero (NaN is nonzero); the
    error says ``assert_msg`` where given."""
    from ._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(
            "_assert_async(): argument 'input' (position 1) must be Tensor, "
            f"not {type(tensor).__name__}"
        )
    if not bool(tensor):  # (Tensor.__bool__: the ambiguous-value errors)
        raise RuntimeError(
            assert_msg
            if assert_msg is not None
            else "Expected Tensor with single nonzero value, but got zero"
        )
