"""``chainrule.testing`` (PyTorch's ``torch.testing``): ``assert_close``, the comparison
tests written for PyTorch use, with its default tolerances per dtype, its treatment of
numbers, sequences and mappings, and its messages; ``make_tensor``.

Inputs are compared in two steps, as PyTorch does: the nested sequences and mappings are
walked first (a length or key mismatch is reported before any value), then each pair of
leaves is compared in order and the first failure raised. A leaf pair is two Nones, two
booleans, two numbers (Python's or NumPy's) or two tensor-likes (tensors, or any two
values of related types that ``as_tensor`` takes, NumPy arrays among them).
"""

from __future__ import annotations

import cmath
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy

from . import _dtypes
from ._tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# (rtol, atol) per dtype; other dtypes (integers, bool) compare exactly
_PRECISIONS = {
    _dtypes.float16: (1e-3, 1e-5),
    _dtypes.bfloat16: (1.6e-2, 1e-5),
    _dtypes.float32: (1.3e-6, 1e-5),
    _dtypes.float64: (1e-7, 1e-7),
    _dtypes.complex64: (1.3e-6, 1e-5),
    _dtypes.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: _dtypes.int64, float: _dtypes.float64, complex: _dtypes.complex128}


class _Failure(Exception):
    """A failed comparison: the exception type to raise, its message, and where it happened
    (the indices and keys leading to the failing pair)."""

    def __init__(self, kind: type[Exception], message: str, where: tuple = ()) -> None:
        super().__init__(message)
        self.kind, self.message, self.where = kind, message, where

    def error(self, msg: str | Callable[[str], str] | None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.where:
            text += "\n\nThe failure occurred for item " + "".join(str([k]) for k in self.where)
        return self.kind(msg(text) if callable(msg) else text)


def _tolerances(dtypes: list, rtol: float | None, atol: float | None, where: tuple) -> tuple:
    """(rtol, atol): as given, or the loosest defaults of the dtypes when both are omitted."""
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(
            ValueError,
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.",
            where,
        )
    if rtol is not None:
        return rtol, atol
    pairs = [_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_message(
    what: str, extra: str, abs_diff: Any, abs_idx: Any, atol: float, rel_diff: Any,
    rel_idx: Any, rtol: float,
) -> str:  # fmt: skip
    """PyTorch's message: a header, ``extra``, then the greatest absolute and relative
    differences (with the tolerances unless both are 0: an equality check)."""
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, idx: Any, tol: float) -> str:
        if idx is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    text = f"{what} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    text += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx, rtol)
    return text.strip()


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    diff = abs(actual - expected)
    rel = float("inf") if expected == 0 else diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    return _mismatch_message("Scalars", extra, diff, None, atol, rel, None, rtol)


# ----- leaf pairs: each returns a check (a function raising _Failure), or None if it does
# not take the inputs


def _none_pair(actual: Any, expected: Any, where: tuple, options: dict) -> Callable | None:
    if actual is not None and expected is not None:
        return None

    def check() -> None:
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", where)

    return check


def _bool_pair(actual: Any, expected: Any, where: tuple, options: dict) -> Callable | None:
    kinds = (bool, numpy.bool_)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        return None
    a, e = bool(actual), bool(expected)

    def check() -> None:
        if a is not e:
            raise _Failure(AssertionError, f"Booleans mismatch: {a} is not {e}", where)

    return check


def _number_pair(actual: Any, expected: Any, where: tuple, options: dict) -> Callable | None:
    kinds = (int, float, complex, numpy.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        return None
    a, e = (v.item() if isinstance(v, numpy.number) else v for v in (actual, expected))
    dtypes = [_NUMBER_DTYPES.get(type(v), _dtypes.float64) for v in (a, e)]
    rtol, atol = _tolerances(dtypes, options["rtol"], options["atol"], where)

    def check() -> None:
        if options["check_dtype"] and type(a) is not type(e):
            raise _Failure(
                AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", where
            )
        if a == e or options["equal_nan"] and cmath.isnan(a) and cmath.isnan(e):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(e):
            return
        raise _Failure(AssertionError, _scalar_message(a, e, rtol, atol), where)

    return check


def _tensor_pair(actual: Any, expected: Any, where: tuple, options: dict) -> Callable | None:
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or not options["allow_subclasses"] and type(actual) is not type(expected):
        return None
    try:
        from ._creation import as_tensor

        a, e = (v if isinstance(v, Tensor) else as_tensor(v) for v in (actual, expected))
    except Exception:
        return None
    rtol, atol = _tolerances([a.dtype, e.dtype], options["rtol"], options["atol"], where)

    def check() -> None:
        _compare_tensors(a, e, rtol, atol, options, where)

    return check


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _compare_tensors(a: Tensor, e: Tensor, rtol: float, atol: float, options: dict,
                     where: tuple) -> None:  # fmt: skip
    """The attributes (shape; device, dtype and strides when asked), then the values."""

    def differ(name: str, x: Any, y: Any) -> _Failure:
        message = f"The values for attribute '{name}' do not match: {x} != {y}."
        return _Failure(AssertionError, message, where)

    if a.shape != e.shape:
        raise differ("shape", a.shape, e.shape)
    if options["check_stride"] and a.stride() != e.stride():
        raise differ("stride()", a.stride(), e.stride())
    if options["check_device"] and a.device != e.device:
        raise differ("device", a.device, e.device)
    if options["check_dtype"] and a.dtype != e.dtype:
        raise differ("dtype", a.dtype, e.dtype)
    if a.device.type == "meta" or e.device.type == "meta":
        return  # (shapes only)
    dtype = a.dtype if a.dtype == e.dtype else _dtypes.promote_types(a.dtype, e.dtype)
    x = a.detach().cpu().to(dtype)
    y = e.detach().cpu().to(dtype)
    if dtype is _dtypes.bfloat16:  # (compared in float32, which holds its values exactly)
        x, y = x.float(), y.float()
    x, y = x.numpy(), y.numpy()
    close = _isclose(x, y, rtol, atol, options["equal_nan"])
    if close.all():
        return
    if not x.shape:
        raise _Failure(AssertionError, _scalar_message(x.item(), y.item(), rtol, atol), where)
    rounding = dtype.np if dtype is _dtypes.bfloat16 else None
    raise _Failure(AssertionError, _tensor_message(x, y, close, rtol, atol, rounding), where)


def _isclose(x: Any, y: Any, rtol: float, atol: float, equal_nan: bool) -> Any:
    """|x - y| <= atol + rtol |y| elementwise (equal values, infinities among them, always;
    two nans when ``equal_nan``), in the arrays' dtype; equality for integers and bools."""
    if x.dtype.kind not in "fc":
        if rtol == 0 and atol == 0:
            return x == y
        x, y = x.astype(numpy.float64), y.astype(numpy.float64)
    with numpy.errstate(all="ignore"):
        return numpy.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _tensor_message(
    x: Any, y: Any, close: Any, rtol: float, atol: float, rounding: Any = None
) -> str:
    """PyTorch's message for tensors: how many elements differ, and where the greatest
    absolute and relative differences are (among the elements that differ), each rounded
    to ``rounding`` where given (bfloat16 values compared in float32: PyTorch's
    differences are bfloat16)."""
    n = close.size
    bad = n - int(close.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    xf, yf, ok = x.reshape(-1), y.reshape(-1), close.reshape(-1)
    if xf.dtype.kind not in "fc":  # (integers and bools: differences in int64)
        xf, yf = xf.astype(numpy.int64), yf.astype(numpy.int64)
    with numpy.errstate(all="ignore"):
        abs_diff = numpy.abs(xf - yf)
        abs_diff[ok] = 0
        if abs_diff.dtype.kind != "f":  # (PyTorch's true division: the default float dtype)
            rel_diff = abs_diff.astype(_dtypes.get_default_dtype().np) / numpy.abs(yf).astype(
                _dtypes.get_default_dtype().np
            )
        elif rounding is not None:
            abs_diff = abs_diff.astype(rounding).astype(abs_diff.dtype)
            rel_diff = (abs_diff / numpy.abs(yf)).astype(rounding).astype(abs_diff.dtype)
        else:
            rel_diff = abs_diff / numpy.abs(yf)
        rel_diff[ok] = 0
    i, j = int(numpy.argmax(abs_diff)), int(numpy.argmax(rel_diff))

    def index(flat: int) -> tuple:
        return tuple(int(k) for k in numpy.unravel_index(flat, x.shape))

    return _mismatch_message(
        "Tensor-likes", extra, abs_diff[i].item(), index(i), atol, rel_diff[j].item(),
        index(j), rtol,
    )  # fmt: skip


def _leaf_checks(actual: Any, expected: Any, where: tuple, options: dict) -> list[Callable]:
    """The checks of every pair of leaves, walking sequences (not strings) and mappings;
    a length or key mismatch, or a pair no kind of leaf takes, raises here."""
    if (
        isinstance(actual, Sequence)
        and not isinstance(actual, str)
        and isinstance(expected, Sequence)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                where,
            )
        checks = []
        for i in range(len(actual)):
            checks += _leaf_checks(actual[i], expected[i], (*where, i), options)
        return checks
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        keys, wanted = set(actual.keys()), set(expected.keys())
        if keys != wanted:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(wanted - keys)}\n"
                f"Additional keys in the actual mapping: {sorted(keys - wanted)}",
                where,
            )
        try:
            ordered = sorted(keys)
        except Exception:
            ordered = list(keys)
        checks = []
        for k in ordered:
            checks += _leaf_checks(actual[k], expected[k], (*where, k), options)
        return checks
    for pair in _PAIRS:
        check = pair(actual, expected, where, options)
        if check is not None:
            return [check]
    raise _Failure(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        where,
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Raise AssertionError unless ``actual`` and ``expected`` are close: for each pair of
    tensors, the same shape (and device and dtype, unless told not to check them), and
    |actual - expected| <= atol + rtol |expected| elementwise, with the defaults per dtype
    when ``rtol`` and ``atol`` are omitted (float16 1e-3 and 1e-5, float32 and complex64
    1.3e-6 and 1e-5, float64 and complex128 1e-7 and 1e-7, others exact; complex values by
    the modulus of their difference). Numbers, booleans and None compare as such;
    sequences and mappings elementwise. ``msg`` replaces the message (or, callable, is
    given it). chainrule has one layout, so ``check_layout`` changes nothing."""
    __tracebackhide__ = True
    options = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_stride": check_stride,
    }
    try:
        checks = _leaf_checks(actual, expected, (), options)
    except _Failure as failure:
        raise failure.error(None) from None
    for check in checks:
        try:
            check()
        except _Failure as failure:
            raise failure.error(msg) from None


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """The deprecated spelling: ``assert_close`` with nans equal, dtypes not checked and
    looser defaults (float16 1e-3 and 1e-3, float32 1e-4 and 1e-5, float64 1e-5 and 1e-8)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    from ._creation import tensor

    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        loose = {
            _dtypes.float16: (1e-3, 1e-3),
            _dtypes.float32: (1e-4, 1e-5),
            _dtypes.float64: (1e-5, 1e-8),
        }
        pairs = [loose.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False,
        msg=msg or None,
    )  # fmt: skip


def make_tensor(
    *shape: Any,
    dtype: Any,
    device: Any = None,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A tensor of ``shape`` and ``dtype`` filled with uniform random values in [low, high)
    (defaults: floats in [-9, 9), integers in [-9, 10), uint8 in [0, 10), bools either
    way; complex numbers with both parts so drawn), as PyTorch's ``make_tensor``, with
    PyTorch's draws (the same seed gives PyTorch's tensor). ``exclude_zero`` replaces
    zeros by the smallest positive normal value of a float dtype (both parts of a complex
    one; 1 for integers, True for bools); ``noncontiguous`` draws twice as many values
    along the last dim and keeps every second one from the second; ``memory_format`` is
    accepted and ignored (one layout)."""
    from . import randint, view_as_real
    from ._creation import empty

    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = tuple(shape[0])
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # (drawn doubled, then every second value kept)
        shape = (*shape[:-1], 2 * shape[-1])
    dt = dtype
    if dt == _dtypes.bool:
        out = randint(0, 2, shape, device=device, dtype=dt)
    elif dt.is_floating_point or dt.is_complex:
        lo = -9.0 if low is None else low
        hi = 9.0 if high is None else high
        out = empty(shape, dtype=dt, device=device)
        if lo >= hi:  # (low == high: every value low)
            out.fill_(complex(lo, lo) if dt.is_complex else lo)
        else:
            real = view_as_real(out) if dt.is_complex else out
            if hi - lo >= float(numpy.finfo(dt.to_real().np).max):  # (halved, then doubled)
                real.uniform_(lo / 2, hi / 2).mul_(2)
            else:
                real.uniform_(lo, hi)
    else:
        default_low = 0 if dt == _dtypes.uint8 else -9
        lo = default_low if low is None else int(low)
        hi = 10 if high is None else int(high)
        out = randint(lo, max(hi, lo + 1), shape, dtype=dt, device=device)
    if exclude_zero:
        if dt.is_floating_point:
            tiny = float(numpy.finfo(dt.np).tiny)
            out = out.masked_fill(out == 0, tiny)
        elif dt.is_complex:
            tiny = float(numpy.finfo(dt.np).tiny)
            out = out.masked_fill(out == 0, complex(tiny, tiny))
        elif dt != _dtypes.bool:
            out = out.masked_fill(out == 0, 1)
        else:
            out = out.masked_fill(out == 0, True)
    if noncontiguous:
        out = out[..., 1::2]
    if requires_grad:
        out.requires_grad_(True)
    return out
