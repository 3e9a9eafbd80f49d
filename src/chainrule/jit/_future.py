"""``torch.futures.Future`` (which is ``torch.jit.Future``): a value that a thread sets
once and others wait for; also what ``torch.jit.fork`` returns (the forked call has already
run: chainrule runs it eagerly, on the calling thread)."""

from __future__ import annotations

import sys
import threading
import traceback
import warnings
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
S = TypeVar("S")

_UNSET = object()


def _callback_error(exc: BaseException) -> str:
    """PyTorch's report of an exception raised in a callback: the exception, then the
    frames it went through, innermost first."""
    frames = reversed(traceback.extract_tb(exc.__traceback__))
    at = "".join(f"  {f.filename}({f.lineno}): {f.name}\n" for f in frames)
    return (
        "Got the following error when running the callback: "
        f"{type(exc).__name__}: {exc}\n\nAt:\n{at}"
    )


def _check_device(d: Any) -> None:
    """PyTorch's errors for a device a CPU-only build cannot hand a future's values to."""
    from .. import device

    if isinstance(d, int):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    dev = device(d)
    if dev.index is None:
        raise ValueError(f"Expected devices to have indices, got {dev}")
    if dev.type != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")


class Future(Generic[T]):
    """A value (or an exception) set once, by ``set_result`` or ``set_exception``, from any
    thread. ``wait()`` blocks until then; callbacks run, in the order they were added, on
    the thread that completes the future (at once if it already has).

    Where chainrule differs from PyTorch: ``value()`` on a future not yet complete raises a
    RuntimeError of its own (PyTorch fails an internal assert); ``devices`` names no device
    chainrule can use but CPU ones (as in a CPU-only PyTorch)."""

    def __init__(self, *, devices: list | None = None) -> None:
        for d in devices or ():
            _check_device(d)
        self._value: Any = _UNSET
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], Any]] = []
        self._completed = threading.Condition()

    def done(self) -> bool:
        """Whether a result or an exception has been set."""
        return self._value is not _UNSET or self._exception is not None

    def _complete(self, value: Any, exception: BaseException | None) -> None:
        with self._completed:
            if self.done():
                raise RuntimeError(
                    "Attempting to mark a completed Future as complete again. Note that a "
                    "Future can only be marked completed once."
                )
            self._value, self._exception = value, exception
            callbacks, self._callbacks = self._callbacks, []
            self._completed.notify_all()
        for callback in callbacks:
            self._run(callback)

    def set_result(self, result: T) -> None:
        """Complete the future with ``result``: wake its waiters, run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result: T) -> None:
        """Complete the future with the exception ``result``, which ``wait()`` raises."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(_UNSET, result)

    def value(self) -> T:
        """The result of a completed future (raising the exception it holds)."""
        if self._exception is not None:
            raise self._exception
        if self._value is _UNSET:
            raise RuntimeError("Future.value() called before the Future completed: wait() first")
        return self._value

    def wait(self) -> T:
        """The result, once some thread completes the future (blocking until then)."""
        with self._completed:
            self._completed.wait_for(self.done)
        return self.value()

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A future of ``callback(self)``, run once this one completes; an exception the
        callback raises completes it with a RuntimeError that reports it."""
        chained: Future[S] = Future()

        def run(done: Future[T]) -> None:
            try:
                result = callback(done)
            except Exception as exc:  # noqa: BLE001 - the chained future carries it
                chained.set_exception(RuntimeError(_callback_error(exc)))
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """Run ``callback(self)`` once the future completes; an exception it raises is
        reported on stderr, not raised."""
        with self._completed:
            if not self.done():
                self._callbacks.append(callback)
                return
        self._run(callback)

    def _run(self, callback: Callable[[Future[T]], Any]) -> None:
        try:
            callback(self)
        except Exception as exc:  # noqa: BLE001 - PyTorch logs it and goes on
            sys.stderr.write(_callback_error(exc))


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
