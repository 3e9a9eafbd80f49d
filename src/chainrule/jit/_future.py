"""A future that is complete when it is made: what ``torch.jit.fork`` returns when the
forked call has already run (chainrule runs it eagerly, on the calling thread)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

_UNSET = object()


class Future:
    """A value (or an exception) that ``wait()`` gives back: ``torch.futures.Future``'s
    methods, without threads. A future is completed once, by ``set_result`` or
    ``set_exception``; callbacks run when it completes (at once if it already has).

    Where chainrule differs from PyTorch: nothing completes a future in the background, so
    ``wait()`` on a future never completed raises a RuntimeError instead of blocking
    forever."""

    def __init__(self) -> None:
        self._value: Any = _UNSET
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Future], Any]] = []

    def done(self) -> bool:
        return self._value is not _UNSET or self._exception is not None

    def _complete(self) -> None:
        if self.done():
            raise RuntimeError(
                "Attempting to mark a completed Future as complete again. Note that a Future "
                "can only be marked completed once."
            )

    def set_result(self, result: Any) -> None:
        self._complete()
        self._value = result
        self._run_callbacks()

    def set_exception(self, result: BaseException) -> None:
        self._complete()
        self._exception = result
        self._run_callbacks()

    def value(self) -> Any:
        """The result (raising the exception the future holds)."""
        if self._exception is not None:
            raise self._exception
        if self._value is _UNSET:
            raise RuntimeError("this Future has no value yet: nothing in chainrule completes it")
        return self._value

    def wait(self) -> Any:
        return self.value()

    def then(self, callback: Callable[[Future], Any]) -> Future:
        """A future of ``callback(self)``, run once this one completes."""
        chained = Future()

        def run(done: Future) -> None:
            try:
                chained.set_result(callback(done))
            except Exception as exc:  # noqa: BLE001 - the chained future carries it
                chained.set_exception(exc)

        self.add_done_callback(run)
        return chained

    def add_done_callback(self, callback: Callable[[Future], Any]) -> None:
        if self.done():
            callback(self)
        else:
            self._callbacks.append(callback)

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)


def deprecated(name: str) -> None:
    """PyTorch 2.13's DeprecationWarning for ``torch.jit.<name>``."""
    warnings.warn(
        f"`torch.jit.{name}` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def fork(func: Callable, *args: Any, **kwargs: Any) -> Future:
    """``func(*args, **kwargs)`` run now; its result in a completed Future (an exception it
    raises is raised here, as PyTorch's eager fork does). Deprecated in PyTorch 2.13."""
    deprecated("fork")
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future: Future) -> Any:
    """The result of a forked call. Deprecated in PyTorch 2.13."""
    deprecated("wait")
    return future.wait()
