"""Grad modes: whether ops record the graph. Thread-local, as in PyTorch."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import _tensor
from .._modes import set_enabled, set_modes
from .._modes import state as _state

if TYPE_CHECKING:
    _F = TypeVar("_F", bound=Callable[..., Any])


def is_grad_enabled() -> bool:
    """True when ops on tensors that require grad record a backward graph."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


def _decorate(func: Callable[..., Any], make_mode: Callable[[], Any]) -> Any:
    """``func`` run inside a fresh ``make_mode()``; a generator gets it around each step."""
    if inspect.isgeneratorfunction(func):

        @functools.wraps(func)
        def generator(*args: Any, **kwargs: Any) -> Any:
            gen = func(*args, **kwargs)
            value = None
            while True:
                with make_mode():
                    try:
                        item = gen.send(value)
                    except StopIteration as stop:
                        return stop.value
                value = yield item

        return generator

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with make_mode():
            return func(*args, **kwargs)

    return wrapper


class _Mode:
    """A context manager that is also a decorator (``@no_grad()`` and ``@no_grad``)."""

    _enabled = True

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:
        self = object.__new__(cls)
        if func is not None and callable(func):  # used bare as ``@no_grad``
            self.__init__()
            return self(func)
        return self

    def __init__(self, func: Callable[..., Any] | None = None) -> None:
        self._stack: list[tuple[bool, bool]] = []

    def _set(self) -> None:
        set_enabled(self._enabled)

    def __enter__(self) -> None:
        state = _state
        self._stack.append((state.enabled, state.inference))
        self._set()
        return None

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        enabled, inference = self._stack.pop()
        state = _state
        if state.inference is not inference:  # (set_modes, one write less when unchanged)
            state.inference = inference
        set_enabled(enabled)
        return False

    def __call__(self, func: _F) -> _F:
        return _decorate(func, self.__class__)


class no_grad(_Mode):  # noqa: N801 - PyTorch's spelling
    """Context manager and decorator: ops inside record no graph."""

    _enabled = False


class enable_grad(_Mode):  # noqa: N801
    """Context manager and decorator: turn recording back on inside ``no_grad``."""

    _enabled = True


class inference_mode(_Mode):  # noqa: N801
    """Like ``no_grad``, and the tensors made inside are inference tensors (``is_inference()``):
    they track no version, cannot be saved for backward, and are written in place only
    inside inference mode. ``mode=False`` leaves inference mode, with grad mode on."""

    def __new__(cls, mode: bool | Callable[..., Any] = True) -> Any:
        if callable(mode):
            self = super().__new__(cls)
            self.__init__()
            return self(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self.mode = mode

    def _set(self) -> None:  # (mode=False turns grad mode back on, as PyTorch's does)
        set_modes(not self.mode, bool(self.mode))

    def __enter__(self) -> None:
        super().__enter__()
        _tensor._inference_opened(1)  # (counted even for mode=False: it may leave one)

    def __exit__(self, *exc: Any) -> bool:
        _tensor._inference_opened(-1)
        return super().__exit__(*exc)

    def __call__(self, func: _F) -> _F:
        mode = self.mode
        return _decorate(func, lambda: inference_mode(mode))


class set_grad_enabled(_Mode):  # noqa: N801
    """Set recording on or off now; used as a context manager it restores on exit."""

    def __new__(cls, mode: bool) -> set_grad_enabled:
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        if mode.__class__ is not bool:
            raise TypeError(
                "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{type(mode).__name__}"
            )
        self._prev = (_state.enabled, _state.inference)
        self._stack = []
        self._enabled = bool(mode)
        set_enabled(self._enabled)

    def __enter__(self) -> None:
        self._stack.append(self._prev)
        set_enabled(self._enabled)
        return None

    def __call__(self, func: _F) -> _F:
        set_modes(*self._prev)
        mode = self._enabled
        return _decorate(func, lambda: set_grad_enabled(mode))


class set_multithreading_enabled:  # noqa: N801 - PyTorch's spelling
    """Whether backward may run the graph's nodes on several threads: chainrule's engine
    runs them on one thread in either case, so this only records the choice (and, as a
    context manager, restores the previous one on exit)."""

    _on = [True]

    def __init__(self, mode: bool) -> None:
        self._prev = set_multithreading_enabled._on[0]
        set_multithreading_enabled._on[0] = bool(mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        set_multithreading_enabled._on[0] = self._prev

    def clone(self) -> set_multithreading_enabled:
        return self.__class__(set_multithreading_enabled._on[0])
