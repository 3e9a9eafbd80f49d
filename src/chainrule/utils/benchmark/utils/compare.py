"""``Compare``: many measurements as text tables, one per ``label``.

A table has one row per (``num_threads``, ``env``, ``sub_label`` or ``stmt``) and one
column per ``description``; a cell is the median in the table's unit (that of the
smallest median). Rows are grouped by thread count under a ``N threads: ----`` rule;
replicates of one task are merged first. Options: trim each cell to the digits its
measurement supports, colour cells against the best of their column (or row), and mark
cells whose IQR / median is high with ``(! XX%)``.
"""

from __future__ import annotations

import collections
import enum
import math
from collections.abc import Iterable, Sequence

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"

Cell = common.Measurement | None


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x: float) -> int:
    """Digits before the decimal point: ``ceil(log10(x))`` (in float32)."""
    return math.ceil(common._log10_f32(x))


class _Column:
    """One description's cells, by thread group; fixes the number format of the column."""

    def __init__(
        self, groups: list[tuple[Cell, ...]], time_scale: float, trim: bool, highlight: bool
    ) -> None:
        self.groups = groups
        cells = [m for g in groups for m in g if m is not None]
        self._trim = trim
        self._highlight = highlight and any(m.has_warnings for m in cells)
        digits = [_leading_digits(m.median / time_scale) for m in cells]
        decimals = (
            min(max(m.significant_figures - d, 0) for m, d in zip(cells, digits, strict=True))
            if trim
            else 1
        )
        width = max(digits) + decimals + (1 if decimals else 0)
        self._template = f"{{:>{width}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def format(self, value: float | None, sigfigs: int, spread: float | None) -> str:
        """A cell's text: the value (trimmed to ``sigfigs``), and ``(! XX%)`` for a spread."""
        if value is None:
            return " " * len(self.format(1, sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        mark = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._template.format(value, mark)


def _colored(text: str, value: float, best: float) -> str:
    """Green within 1% (or 100 ns) of the best, blue within 10%, red from 2x, bright red 5x."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Row:
    """One row's cells; ``num_threads`` is set on the first row of a thread group."""

    def __init__(
        self,
        cells: list[Cell],
        group: int,
        show_env: bool,
        env_width: int,
        time_scale: float,
        colorize: Colorize,
        num_threads: int | None,
    ) -> None:
        self.cells = cells
        self.group = group
        self.show_env = show_env
        self.env_width = env_width
        self.time_scale = time_scale
        self.colorize = colorize
        self.num_threads = num_threads
        self.columns: Sequence[_Column] = ()

    def texts(self) -> list[str]:
        first = next(m for m in self.cells if m is not None)
        env = f"({first.env})" if self.show_env else ""
        texts = ["  " + env.ljust(self.env_width + 4) + first.as_row_name]
        for m, column in zip(self.cells, self.columns, strict=False):
            if m is None:
                texts.append(column.format(None, 1, None))
            else:
                spread = m.iqr / m.median if m.has_warnings else None
                texts.append(
                    column.format(m.median / self.time_scale, m.significant_figures, spread)
                )
        return texts

    def separator(self, width: int) -> list[str]:
        if self.num_threads is None:
            return []
        return [f"{self.num_threads} threads: ".ljust(width, "-")]

    def line(self, texts: list[str], widths: list[int]) -> str:
        if self.colorize == Colorize.ROWWISE:
            row_best = min(m.median for m in self.cells if m is not None)
            bests: list[float | None] = [row_best] * len(texts)
        elif self.colorize == Colorize.COLUMNWISE:
            bests = [
                min((m.median for m in c.groups[self.group] if m is not None), default=None)
                for c in self.columns
            ]
        else:
            bests = [None] * len(texts)
        parts = [texts[0].ljust(widths[0])]
        for text, width, m, best in zip(texts[1:], widths[1:], self.cells, bests, strict=False):
            text = text.center(width)
            if m is not None and best is not None:
                text = _colored(text, m.median, best)
            parts.append(text)
        return "  |  ".join(parts)


class _Table:
    """The table of one label."""

    def __init__(
        self, results: list[common.Measurement], colorize: Colorize, trim: bool, highlight: bool
    ) -> None:
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self.label = results[0].label
        self.highlight = highlight
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        row_keys = common.ordered_unique(self._row_key(r) for r in results)
        row_keys.sort(key=lambda k: k[:2])  # by threads and env; stmt order kept
        self.column_keys = common.ordered_unique(r.description for r in results)

        grid: list[list[Cell]] = [[None] * len(self.column_keys) for _ in row_keys]
        row_of = {k: i for i, k in enumerate(row_keys)}
        col_of = {k: j for j, k in enumerate(self.column_keys)}
        for r in results:
            grid[row_of[self._row_key(r)]][col_of[r.description]] = r

        envs = {r.env for r in results}
        show_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if show_env else 0
        self.rows: list[_Row] = []
        groups: list[list[list[Cell]]] = []
        prior_threads, prior_env = -1, ""
        for (threads, env, _), cells in zip(row_keys, grid, strict=True):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env = threads, ""
                groups.append([])
            self.rows.append(
                _Row(
                    cells,
                    len(groups) - 1,
                    show_env and env != prior_env,
                    env_width,
                    self.time_scale,
                    colorize,
                    threads if new_group else None,
                )
            )
            groups[-1].append(cells)
            prior_env = env
        columns = [
            _Column([tuple(row[j] for row in g) for g in groups], self.time_scale, trim, highlight)
            for j in range(len(self.column_keys))
        ]
        for row in self.rows:
            row.columns = columns

    @staticmethod
    def _row_key(m: common.Measurement) -> tuple[int, str | None, str]:
        return m.num_threads, m.env, m.as_row_name

    def render(self) -> str:
        table = [["", *self.column_keys]] + [row.texts() for row in self.rows]
        n_cols = max(len(t) for t in table)
        for t in table:
            t.extend([""] * (n_cols - len(t)))
        widths = [max(len(s) for s in col) for col in zip(*table, strict=True)]
        lines = ["  |  ".join(s.center(w) for s, w in zip(table[0], widths, strict=True))]
        width = len(lines[0])
        for texts, row in zip(table[1:], self.rows, strict=True):
            lines.extend(row.separator(width))
            lines.append(row.line(texts, widths))
        title = f" {self.label or ''} ".center(width - 2, "-")
        unit = self.time_unit
        out = [f"[{title}]", *lines, "", f"Times are in {common.unit_to_english(unit)}s ({unit})."]
        if self.highlight and any(r.has_warnings for r in self.results):
            out.append(
                "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
            )
        else:
            out.append("")
        return "\n".join(out)


class Compare:
    """Tables of measurements: one per label, rows by ``sub_label`` (or ``stmt``) within
    thread counts, columns by ``description``. ``str(compare)`` or ``compare.print()``."""

    def __init__(self, results: Iterable[common.Measurement]) -> None:
        self._results: list[common.Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results: Iterable[common.Measurement]) -> None:
        """Add more measurements (each must be a ``Measurement``)."""
        results = list(results)
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show each cell to the significant figures its measurement supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour cells against the best of their column (or of their row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark cells whose measurement has a high IQR / median."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict[str | None, list[common.Measurement]] = collections.defaultdict(list)
        for m in common.Measurement.merge(self._results):
            by_label[m.label].append(m)
        return [
            _Table(
                group, self._colorize, self._trim_significant_figures, self._highlight_warnings
            ).render()
            for group in by_label.values()
        ]
