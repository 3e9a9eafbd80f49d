"""``Timer``: run a statement in a loop and time it, as ``timeit.Timer`` does, returning
a ``Measurement`` of replicates rather than one number.

The statement runs under ``timeit.Timer`` with ``torch`` (chainrule) in its globals, with
the thread count of ``num_threads`` (see ``_threads``: NumPy's BLAS pool), after a warmup.
chainrule's ``Timer`` differs from PyTorch's in that it times Python statements only
(``language="c++"`` raises NotImplementedError) and has no ``collect_callgrind``.
"""

from __future__ import annotations

import enum
import textwrap
import timeit as _timeit
from collections.abc import Callable
from typing import Any

import numpy as np

from . import common

__all__ = ["Language", "Timer", "timer"]

_MAX_BLOCK = 2**31 - 1  # the largest count a C int loop can run


def timer() -> float:
    """The current time in seconds, after waiting for queued GPU work (CuPy) if any."""
    import chainrule

    cuda = chainrule.cuda
    if cuda.is_available():
        cuda.synchronize()
    return _timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def _trim(code: str) -> str:
    """Dedent, drop one leading newline, strip trailing whitespace."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Times ``stmt`` after ``setup``: ``timeit`` for a fixed count, ``blocked_autorange``
    and ``adaptive_autorange`` for many replicates of an automatically chosen block size.

    ``label``, ``sub_label``, ``description``, ``env`` only annotate the result (``Compare``
    groups by them). ``num_threads`` is the BLAS thread count while timing (chainrule runs
    on NumPy; see ``_threads``). Python statements only: ``language="c++"`` and
    ``collect_callgrind`` raise NotImplementedError here.
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        import chainrule

        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", chainrule)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(
                    f"global_setup is C++ only, got `{global_setup}`. Most "
                    "likely this code can simply be moved to `setup`."
                )
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "chainrule's Timer times Python statements only: it has no C++ front end "
                "to compile a C++ `stmt` against."
            )
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt, setup = _trim(stmt), _trim(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        """Seconds for ``number`` calls, at least 1 ns (so ratios stay finite)."""
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """One replicate of ``number`` calls, after a warmup of ``max(number // 100, 2)``."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(int(number // 100), 2))
            return common.Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], Any] | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of calls whose time dwarfs the timer's overhead
        (overhead / time <= 1e-4, time >= min_run_time / 1000), or exceeds ``min_run_time``."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.sort([self._timeit(0) for _ in range(5)])[2])
            number = 1
            while True:
                elapsed = self._timeit(number)
                if overhead / elapsed <= 1e-4 and elapsed >= min_run_time / 1000:
                    return number
                if elapsed > min_run_time or number * 10 > _MAX_BLOCK:
                    return number
                number *= 10

    def _replicates(
        self,
        number: int,
        enough: Callable[[list[float]], bool],
        min_run_time: float,
        max_run_time: float | None,
        callback: Callable[[int, float], Any] | None,
    ) -> common.Measurement:
        """Time blocks of ``number`` calls until ``min_run_time`` is spent and ``enough``
        holds, or ``max_run_time`` is exceeded."""
        times: list[float] = []
        total, done = 0.0, False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not done:
                elapsed = self._timeit(number)
                times.append(elapsed)
                total += elapsed
                if callback:
                    callback(number, elapsed)
                done = enough(times)
                if max_run_time and total > max_run_time:
                    break
        return common.Measurement(number, times, self._task_spec)

    def blocked_autorange(
        self, callback: Callable[[int, float], Any] | None = None, min_run_time: float = 0.2
    ) -> common.Measurement:
        """Replicates of one block size, for at least ``min_run_time`` seconds in all.
        ``callback(number, seconds)`` is called after each block."""
        number = self._block_size(min_run_time)
        return self._replicates(number, lambda _: True, min_run_time, None, callback)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], Any] | None = None,
    ) -> common.Measurement:
        """Replicates until there are more than 3, ``min_run_time`` is spent and
        ``iqr / median < threshold``, or ``max_run_time`` is spent."""
        number = self._block_size(0.05)

        def enough(times: list[float]) -> bool:
            if len(times) <= 3:
                return False
            return common.Measurement(number, times, self._task_spec).meets_confidence(threshold)

        return self._replicates(number, enough, min_run_time, max_run_time, callback)

    def collect_callgrind(self, number: int = 100, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "chainrule's Timer has no Callgrind support (instruction counts need valgrind "
            "and PyTorch's C++ bindings); use blocked_autorange for wall times."
        )
