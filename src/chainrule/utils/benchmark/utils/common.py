"""What a benchmark measured: ``TaskSpec`` (what ran), ``Measurement`` (its times and
their statistics), and the number formatting ``Compare`` and ``Measurement`` share.

Statistics are over the per-call times ``t_i = raw_time_i / number_per_run``: the median
and quartiles by linear interpolation between order statistics, the IQR ``p75 - p25``.
As in PyTorch, ``significant_figures``, ``select_unit`` and ``trim_sigfig`` take their
logarithms in float32, so the digits shown are the ones PyTorch shows.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .... import _threads

__all__ = [
    "Measurement",
    "TaskSpec",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "trim_sigfig",
    "unit_to_english",
]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds: no timer resolves finer than this
_IQR_WARN_THRESHOLD = 0.1  # IQR / median above which a measurement is flagged
_IQR_GROSS_WARN_THRESHOLD = 0.25

_UNITS = {-3: "ns", -2: "us", -1: "ms"}
_SCALES = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_ENGLISH = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def _log10_f32(x: float) -> float:
    """log10(x) of x in float32 (PyTorch's default dtype for a Python float), rounded to
    float32: the float64 logarithm rounded, as PyTorch's float32 log10 nearly always is."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float32(np.log10(np.float64(np.float32(x)))))


@dataclasses.dataclass(frozen=True, repr=False)
class TaskSpec:
    """What a ``Timer`` runs (everything but its globals); hashable, so that replicates
    of one task can be merged."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """``label: sub_label``, else the one-line statement, else the indented statement."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self) -> str:
        """``setup: ...`` (indented below when several lines), empty for no setup."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """Title, description and setup, one per line; a blank line after a multi-line one."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of ``number_per_run`` calls each, repeated ``len(raw_times)`` times.

    ``times`` are per call; ``median``, ``mean`` and ``iqr`` are over them. The fields of
    the ``task_spec`` (``stmt``, ``label``, ``num_threads``, ...) read through.
    ``env`` is the task's ``env`` (None when unset), as PyTorch 2.13 returns it.
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None  # the user's own payload

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    @property
    def times(self) -> list[float]:
        """Seconds per call: ``raw_time / number_per_run`` for each replicate."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._statistics()
        return self._median

    @property
    def mean(self) -> float:
        self._statistics()
        return self._mean

    @property
    def iqr(self) -> float:
        """Interquartile range ``p75 - p25`` of the per-call times."""
        self._statistics()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """Digits the median supports: ``floor(log10(median / ci))`` clamped to [1, 4], where
        ``ci = 1.645 * std / sqrt(m)`` over the m central (interquartile) times, at least 25 ns.
        """
        self._statistics()
        n = len(self._sorted_times)
        central = self._sorted_times[n // 4 : math.ceil(np.float32(3 * n / 4))]
        std = float(np.std(np.asarray(central, dtype=np.float32)))
        ci = max(1.645 * std / float(np.sqrt(np.float32(len(central)))), _MIN_CONFIDENCE_INTERVAL)
        digits = math.floor(_log10_f32(self._median / ci))
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._statistics()
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether ``iqr / median < threshold``."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def _statistics(self) -> None:
        """Sort the times once and compute median, mean, quartiles and warnings."""
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        values = np.asarray(self._sorted_times, dtype=np.float64)
        self._median = float(np.quantile(values, 0.5))
        self._mean = float(values.mean())
        self._p25 = float(np.quantile(values, 0.25))
        self._p75 = float(np.quantile(values, 0.75))
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._warn("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._warn("This could indicate system fluctuation.")

    def _warn(self, why: str) -> None:
        spread = self.iqr / self.median * 100
        self._warnings += (
            f"  WARNING: Interquartile range is {spread:.1f}% of the median measurement.\n"
            f"           {why}",
        )

    def __repr__(self) -> str:
        self._statistics()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}")
        if n >= 4:
            lines.append(
                f"  IQR:    {self.iqr / scale:.2f} {unit} "
                f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"
            )
        threads = self.num_threads
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One measurement per distinct ``task_spec``, pooling the per-call times of its
        replicates (``number_per_run=1``, no metadata), in order of first appearance."""
        pooled: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            pooled[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec, None) for spec, times in pooled.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit for a time of ``t`` seconds: ns, us, ms by ``floor(log10(t) / 3)``, else s."""
    unit = _UNITS.get(int(_log10_f32(t) // 3), "s")
    return unit, _SCALES[unit]


def unit_to_english(u: str) -> str:
    """``"us"`` -> ``"microsecond"``."""
    return _ENGLISH[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (in float32, as PyTorch rounds it)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = math.ceil(_log10_f32(abs(x)))
    scale = 10 ** (magnitude - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements, in order of first appearance."""
    return list(dict.fromkeys(elements))


@contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the body with ``n`` threads (see ``_threads``), then restore the prior count."""
    with _threads.limited(n):
        yield
