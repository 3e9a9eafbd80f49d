"""Tensor ``str``/``repr`` text laid out the way PyTorch 2.x lays it out.

Everything here works on plain NumPy arrays: the caller hands over the values and the
already-formatted extra items (``dtype=...``, ``requires_grad=True``, ``grad_fn=<...>``),
and :func:`format_tensor` returns the full ``tensor(...)`` text.

How values are shown (observed from PyTorch):

* Integer and bool tensors print each value with ``str`` and right-align them to the
  widest value.
* Float tensors look only at their finite, nonzero values (the *sample*; for summarised
  tensors only the edge elements that will be shown).  If every sampled value is a whole
  number the tensor prints in "integer mode" (``1.``, ``27.``).  Scientific notation is
  used when ``max/min > 1000``, ``max > 1e8`` or ``min < 1e-4`` (on absolute values), unless
  ``sci_mode`` forces it on or off.  Otherwise values print with ``precision`` decimals.
* Rows wrap so that ``linewidth`` is respected; tensors with more than ``threshold``
  elements are summarised with ``...``, keeping ``edgeitems`` entries at each end of
  every dimension.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]

_PREFIX = "tensor("
_ELLIPSIS = "..."


@dataclass
class _PrintOptions:
    """The mutable, process-wide print settings (PyTorch's defaults)."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTIONS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print, with the same meaning as ``torch.set_printoptions``.

    ``profile`` ("default", "short" or "full") is applied first, then any explicit
    option overrides it; an unknown profile name is ignored, as in PyTorch.  Like PyTorch,
    ``sci_mode`` is always assigned, so omitting it resets it to automatic (``None``).
    """
    if profile in _PROFILES:
        (
            _OPTIONS.precision,
            _OPTIONS.threshold,
            _OPTIONS.edgeitems,
            _OPTIONS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current options as a dict usable as ``set_printoptions(**options)``."""
    return asdict(_OPTIONS)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class _ValueStyle:
    """How every element of one tensor is rendered: a mode and a common column width."""

    mode: str  # "plain" (ints, bools), "whole" (integral floats), "fixed" or "sci"
    width: int
    precision: int

    def render(self, value: Any) -> str:
        """Render one Python scalar, right-aligned to the common width."""
        return self._text(value).rjust(self.width)

    def _text(self, value: Any) -> str:
        if self.mode == "plain":
            return str(value)
        if self.mode == "sci":
            return f"{value:.{self.precision}e}"
        if self.mode == "whole":
            text = f"{value:.0f}"
            return text + "." if math.isfinite(value) else text
        return f"{value:.{self.precision}f}"


@dataclass(frozen=True)
class _ComplexStyle:
    """Complex elements, as PyTorch prints them: the real parts in their own style,
    right-aligned, then the imaginary parts in theirs, signed and unpadded, then ``j``."""

    real: _ValueStyle
    imag: _ValueStyle

    @property
    def width(self) -> int:  # (for the elements per line: PyTorch counts the j)
        return self.real.width + self.imag.width + 1

    def render(self, value: Any) -> str:
        imag = self.imag._text(value.imag) + "j"
        sign = "" if imag[0] in "+-" else "+"
        return self.real.render(value.real) + sign + imag


def _choose_style(sample: np.ndarray) -> _ValueStyle | _ComplexStyle:
    """Decide the element style from the values that will be displayed."""
    precision = _OPTIONS.precision
    flat = sample.reshape(-1)
    if flat.dtype.kind == "c":
        return _ComplexStyle(_choose_style(flat.real), _choose_style(flat.imag))
    if not np.issubdtype(flat.dtype, np.floating):
        widths = [len(str(value)) for value in flat.tolist()]
        return _ValueStyle("plain", max([1, *widths]), precision)

    with np.errstate(invalid="ignore"):  # (a signalling nan's cast warns in NumPy)
        values = flat.astype(np.float64)
    values = values[np.isfinite(values) & (values != 0)]
    if values.size == 0:  # only zeros / nan / inf: shown as whole numbers, no width hint
        return _ValueStyle("whole", 1, precision)

    magnitudes = np.abs(values)
    smallest, largest = float(magnitudes.min()), float(magnitudes.max())
    whole = bool(np.all(values == np.ceil(values)))
    sci = _OPTIONS.sci_mode
    if sci is None:
        sci = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4

    mode = "sci" if sci else "whole" if whole else "fixed"
    probe = _ValueStyle(mode, 0, precision)
    width = max(len(probe.render(value)) for value in np.unique(values).tolist())
    return _ValueStyle(mode, max(1, width), precision)


def _edge_values(array: np.ndarray, edgeitems: int) -> np.ndarray:
    """Flattened values that a summarised print shows (these decide the style)."""
    if array.ndim == 0:
        return array.reshape(-1)
    if array.ndim == 1:
        if array.shape[0] > 2 * edgeitems:
            # PyTorch's slice ``[-0:]`` keeps everything when edgeitems is 0.
            return np.concatenate([array[:edgeitems], array[-edgeitems:]])
        return array
    if edgeitems == 0:
        return array.reshape(-1)[:0]
    count = array.shape[0]
    if count > 2 * edgeitems:
        indices = [*range(edgeitems), *range(count - edgeitems, count)]
    else:
        indices = list(range(count))
    return np.concatenate([_edge_values(array[i], edgeitems) for i in indices])


# --------------------------------------------------------------------------- layout


def _kept_indices(count: int, summarize: bool) -> list[int | None]:
    """Indices shown along one dimension; ``None`` marks the ``...`` gap."""
    edge = _OPTIONS.edgeitems
    if summarize and count > 2 * edge:
        return [*range(edge), None, *range(count - edge, count)]
    return list(range(count))


def _render_row(
    row: np.ndarray, indent: int, summarize: bool, style: _ValueStyle | _ComplexStyle
) -> str:
    """Render a 1-D array, wrapping after as many items as fit in the line width."""
    if summarize and not _OPTIONS.edgeitems:
        items = [_ELLIPSIS]
    else:
        values = row.tolist()
        items = [
            " " + _ELLIPSIS if i is None else style.render(values[i])
            for i in _kept_indices(len(values), summarize)
        ]
    per_line = max(1, math.floor((_OPTIONS.linewidth - indent) / (style.width + 2)))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(
    array: np.ndarray, indent: int, summarize: bool, style: _ValueStyle | _ComplexStyle
) -> str:
    """Render a non-empty array whose opening bracket sits at column ``indent``."""
    if array.ndim == 0:
        return style.render(array.item())
    if array.ndim == 1:
        return _render_row(array, indent, summarize, style)
    parts = [
        _ELLIPSIS if i is None else _render(array[i], indent + 1, summarize, style)
        for i in _kept_indices(array.shape[0], summarize)
    ]
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _values_text(array: np.ndarray, indent: int) -> str:
    """The bracketed values of a non-empty array, summarised if it is too large."""
    if array.dtype == np.float16 or array.dtype.type.__module__ == "ml_dtypes":  # (bfloat16...)
        array = array.astype(np.float32)
    summarize = array.size > _OPTIONS.threshold
    sample = _edge_values(array, _OPTIONS.edgeitems) if summarize else array
    return _render(array, indent, summarize, _choose_style(sample))


def _join_suffixes(
    text: str, suffixes: Sequence[str], indent: int, force_newline: bool = False
) -> str:
    """Append ``, item`` for each suffix, moving one to a new line when it would not fit
    (the first one always, with ``force_newline``: PyTorch's sparse COO layout)."""
    pieces = [text]
    # PyTorch measures the values' last line as two columns longer than it is.
    column = len(text.rsplit("\n", 1)[-1]) + 2
    for suffix in suffixes:
        if force_newline or column + len(suffix) + 2 > _OPTIONS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            column = indent + len(suffix)
            force_newline = False
        else:
            pieces.append(", " + suffix)
            column += len(suffix) + 2
    return "".join(pieces) + ")"


def format_meta(shape: tuple, suffixes: list[str], contents: str | None = None) -> str:
    """A meta tensor: no values, its device and size first ('tensor(..., device='meta',
    size=(2, 3))'), wrapped as PyTorch wraps suffixes.  ``contents`` (the repr's
    ``tensor_contents``) replaces the ``...``."""
    head = ["device='meta'", f"size={tuple(shape)}"]
    body = "..." if contents is None else contents
    return _join_suffixes(_PREFIX + body, head + suffixes, len(_PREFIX))


def format_tensor(data: np.ndarray, suffixes: list[str], contents: str | None = None) -> str:
    """Return e.g. 'tensor([1.0240e+02, 1.0240e+03, 1.0240e-01], requires_grad=True)'.

    ``suffixes`` are appended in order after the values.  For an empty array that is not
    1-D (and for any array while ``edgeitems`` is 0), ``size=(...)`` is put first, as
    PyTorch does.  Note PyTorch shows ``dtype=`` for *every* non-float32 empty tensor
    (int64 and bool included); that choice is left to the caller.  ``contents`` (the
    repr's ``tensor_contents``) is shown instead of the values, with the same suffixes.
    """
    array = np.asarray(data)
    indent = len(_PREFIX)
    empty = array.size == 0
    extra: list[str] = []
    if (empty and array.ndim != 1) or (not empty and not _OPTIONS.edgeitems):
        extra.append(f"size={tuple(array.shape)}")
    if contents is None:
        contents = "[]" if empty else _values_text(array, indent)
    return _join_suffixes(_PREFIX + contents, [*extra, *suffixes], indent)
