"""The one array backend: every array call in chainrule goes through ``xp``.

NumPy on the CPU; on 'cuda', CuPy (the device registry below), reached through NumPy's
own dispatch and through ``xp`` once a device is loaded, so nothing in the op definitions
knows the device.
"""

from __future__ import annotations

import contextvars
import functools
import math
import os
from typing import Any

import numpy

from . import _modes

xp = numpy
ndarray = numpy.ndarray
# the NumPy dtypes of the reduced floats (bfloat16, float8: ml_dtypes'), once loaded
# (_dtypes._load_reduced): ``d in REDUCED`` tells their arrays (ml_dtypes gives most of
# them the kind "V", float8_e5m2 the kind "f")
REDUCED: set = set()
name = "numpy"


# Floating-point errors: chainrule's math produces inf and nan where PyTorch's does (log 0,
# 1/0, exp overflow, 0/0), silently as PyTorch does. NumPy would warn (and under
# ``python -W error`` raise), so ops compute with NumPy's error state set to "ignore" between
# ``quiet()`` and ``loud(token)``. In NumPy 2 that state is a context variable, set here
# directly: np.errstate, which builds its state anew on every entry, costs several times
# more, and this runs around every op's forward.
try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj
except ImportError:  # NumPy 1.x: its thread-local error state, through seterr

    def quiet():
        """Ignore floating-point errors until ``loud(token)``; returns the token."""
        return numpy.seterr(all="ignore")

    def loud(token) -> None:
        """Restore the floating-point error state ``quiet()`` replaced."""
        numpy.seterr(**token)

    IGNORE: object = {"all": "ignore"}

    def set_errstate(state) -> object:
        """Set NumPy's floating-point error state (``IGNORE``); returns the token for ``loud``."""
        return numpy.seterr(**state)

    def quietly(fn: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` with floating-point errors ignored."""
        return quiet_call(fn, *args, **kwargs)

else:
    IGNORE = _make_extobj(all="ignore")
    # quiet() is set_errstate(IGNORE); the hot path calls the latter, one call less
    set_errstate = _extobj_contextvar.set
    quiet = functools.partial(set_errstate, IGNORE)
    loud = _extobj_contextvar.reset
    # Cheaper still for one call: a context in which the error state already is "ignore",
    # entered to run it, ``quietly(forward, x, y)``. Entering costs about 20 ns; setting and
    # resetting the variable around the call about 190 (each set makes a new mapping of
    # the context's variables, and NumPy's next read of the variable misses its cache). A
    # context is entered by one thread at a time and never within itself: when it is in
    # use, ``quietly`` raises RuntimeError before calling anything (``in_use``), and the
    # caller falls back to ``quiet_call``. The context is a copy of the one at import: a
    # forward run in it sees the error state ignored and every other context variable as
    # it was then (NumPy's print options among them, which only an array's repr reads).
    _ignoring = contextvars.copy_context()
    _ignoring.run(set_errstate, IGNORE)
    quietly = _ignoring.run


def quiet_call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with floating-point errors ignored, the error state set around
    the call (``quietly``'s fallback)."""
    token = set_errstate(IGNORE)
    try:
        return fn(*args, **kwargs)
    finally:
        loud(token)


def in_use(exc: RuntimeError) -> bool:
    """Whether ``exc`` is ``quietly``'s refusal to enter its context (in use in another
    thread, or around this call): then nothing was called, and ``quiet_call`` is the way."""
    message = exc.args[0] if exc.args else None
    return message.__class__ is str and message.startswith("cannot enter context")


def run_quietly(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with floating-point errors ignored: ``quietly``, else
    ``quiet_call``."""
    try:
        return quietly(fn, *args, **kwargs)
    except RuntimeError as exc:
        if not in_use(exc):
            raise
    return quiet_call(fn, *args, **kwargs)


# The C allocator: glibc hands memory over 128 KiB back to the operating system as soon as it
# is freed (munmap, or trimming the heap's top), so a training loop that frees a gradient or
# a temporary of a weight's size and allocates one again each step pays the page faults of
# fresh memory on every step (an MLP 784-256-10 step on batch 16: 1.2 ms against 0.75 ms).
# glibc raises both thresholds when a block mapped on its own is freed (to that block's size,
# and twice it for trimming), as happens anyway once a process frees a large array; one 16 MiB
# block freed here does it at import. Other C libraries are left as they are.
def _raise_allocator_thresholds() -> None:
    block = numpy.empty(16 << 20, numpy.uint8)  # (untouched: no page is ever faulted in)
    del block


_raise_allocator_thresholds()


try:  # the ufunc np.clip wraps (NumPy 2): faster than maximum for relu, and PyTorch's bits
    from numpy._core.umath import clip as clip_ufunc
except ImportError:
    clip_ufunc = None


def asarray(value, dtype=None):
    """Return ``value`` as a backend array (no copy when it already is one)."""
    return xp.asarray(value, dtype=dtype)


# A Python number meeting an array in a ufunc is converted to the array's dtype on every call
# (NEP 50: NumPy 2's promotion), about 250 ns on a small array, as long as the whole
# operation; a 0-d array of that dtype, made once and kept, is the same operand without it.
_SCALARS: dict = {}  # NumPy dtype -> {number: its 0-d array, read-only}
_WEAK = int(numpy.__version__.split(".")[0]) >= 2  # (NumPy 1 promotes by value: not the same)


def scalar(value: Any, dtype: Any) -> Any:
    """``value``, a Python float or int, as a read-only 0-d array of NumPy ``dtype``, kept for
    the next call: for a ufunc, the same operand as the number beside an array of ``dtype``.
    Zero (a cache keyed by value would lose its sign: 0.0 == -0.0), nan, and an int too large
    to be exact in a double are given back as they are, as on NumPy 1."""
    cache = _SCALARS.get(dtype)
    if cache is None:
        cache = _SCALARS[dtype] = {}
    arr = cache.get(value)
    if arr is None:
        if (
            not _WEAK
            or not value
            or value != value
            or value.__class__ is int
            and not -(2**53) <= value <= 2**53
        ):
            return value
        if len(cache) >= 256:  # (a loop over many numbers: kept small)
            cache.clear()
        arr = quiet_call(xp.asarray, value, dtype)  # (1e5 as float16 is inf, silently)
        arr.flags.writeable = False
        cache[value] = arr
    return arr


# ----- devices: which array library holds a tensor's data ----------------------------------
#
# A CPU tensor holds a NumPy array, and every op calls NumPy (``xp``) directly. A tensor on
# another device holds that device's array (CuPy's on 'cuda'): NumPy hands each ufunc and
# array function that meets such an array to the array's own library (NEP 13 and 18:
# ``numpy.add(a, b)`` on CuPy arrays runs ``cupy.add``), so the ops' forwards and VJPs run
# there unchanged. What NumPy cannot hand over (making an array from nothing, strided views)
# goes through the helpers below, which ask the array for its module. The CPU pays nothing:
# ``live`` stays False until a device array exists, and the ops check devices only then.

DEVICE_ENV = "CHAINRULE_CUDA"  # 'standin': the 'cuda' device is the CPU stand-in (_standin.py)

_modules: dict[str, Any] = {}  # device type -> its array module, once loaded
_types: dict[type, str] = {}  # a device's array type -> the device type
live = [False]  # whether a device array was ever made (or a meta array lives: _meta)
device_made = [False]  # whether a device array was ever made


def _load_cuda() -> Any:
    """CuPy, when it imports and sees a GPU (or the stand-in, when DEVICE_ENV says so);
    None otherwise. Imported here only, and only when a CUDA tensor or query asks."""
    if os.environ.get(DEVICE_ENV) == "standin":
        from . import _standin

        return _standin
    try:
        import cupy
    except Exception:  # noqa: BLE001 - no CuPy, or one that fails to load its CUDA libraries
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
    except Exception:  # noqa: BLE001 - a CUDA driver error: no usable GPU
        return None
    return cupy


_LOADERS = {"cuda": _load_cuda}
_missing = object()


def module_of_device(kind: str) -> Any:
    """The array module of the device type ``kind`` ('cuda'), or None when it has none."""
    mod = _modules.get(kind, _missing)
    if mod is _missing:
        loader = _LOADERS.get(kind)
        mod = loader() if loader is not None else None
        _modules[kind] = mod
        if mod is not None:
            _types[mod.ndarray] = kind
            _install_dispatch()
    return mod


def loaded(kind: str) -> Any:
    """The array module of ``kind`` if it was loaded already, else None (never loads it)."""
    mod = _modules.get(kind)
    return mod


def device_type(arr: Any) -> str:
    """The device type an array lives on: 'cpu' for NumPy's (and the meta device's)."""
    return _types.get(type(arr), "cpu")


def xp_of(arr: Any) -> Any:
    """The array module that computes on ``arr``: NumPy, or its device's."""
    kind = _types.get(type(arr))
    return xp if kind is None else _modules[kind]


def is_array(value: Any) -> bool:
    return isinstance(value, ndarray) or type(value) in _types


def asanyarray(value: Any, dtype: Any = None, order: Any = None) -> Any:
    """``value`` as an array (of ``dtype`` when given) on the device it is on: a device
    array stays there, anything else goes through NumPy."""
    kind = _types.get(type(value))
    if kind is not None:
        if dtype is None and order is None:
            return value
        return _modules[kind].asanyarray(value, dtype, order)
    data = getattr(value, "_data", None)  # a tensor (a VJP that ran tensor ops) on a device
    if type(data) in _types:
        return asanyarray(data, dtype, order)
    if data is not None and data.__class__ is ndarray and data.dtype in REDUCED:
        return xp.asanyarray(data, dtype, order)  # a bfloat16 tensor's (no __array__ for it)
    return xp.asanyarray(value, dtype, order)


def to_device(arr: Any, kind: str) -> Any:
    """``arr`` (any array) copied onto the device type ``kind`` ('cpu' for the host)."""
    here = _types.get(type(arr), "cpu")
    if here == kind:
        return arr
    if here != "cpu":
        arr = _modules[here].asnumpy(arr)
    if kind == "cpu":
        return arr
    if arr.dtype in REDUCED:  # (bfloat16, float8: ml_dtypes' dtypes, which CuPy lacks)
        raise no_bfloat16(kind, arr.dtype.name)
    live[0] = device_made[0] = True
    _modes.mark("device", True)
    return _modules[kind].asarray(arr)


def no_bfloat16(kind: str, name: str = "bfloat16") -> TypeError:
    """The error of a bfloat16 (or float8) array asked for on a device: CuPy has none."""
    return TypeError(
        f"chainrule has no {name} on '{kind}': CuPy has no {name} dtype (a {name} "
        "tensor lives on the CPU; cast it to float16 or float32 first)"
    )


def to_host(arr: Any) -> Any:
    """``arr`` as a NumPy array (a copy when it lives on a device)."""
    kind = _types.get(type(arr))
    return arr if kind is None else _modules[kind].asnumpy(arr)


def like(arr: Any, value: Any, dtype: Any = None) -> Any:
    """``value`` as an array on the device of ``arr`` (no copy when it is already there)."""
    kind = _types.get(type(arr))
    if kind is None:
        return xp.asarray(value, dtype=dtype)
    return _modules[kind].asarray(to_host(value) if isinstance(value, ndarray) else value, dtype)


def address(arr: Any) -> int:
    """The address of ``arr``'s first element (host or device memory)."""
    if type(arr) in _types:
        return arr.data.ptr
    return arr.__array_interface__["data"][0]


def _reshape_takes_copy() -> bool:
    try:
        numpy.zeros(1).reshape((1,), copy=False)
    except TypeError:  # (NumPy before 2.1)
        return False
    return True


_RESHAPE_COPY = _reshape_takes_copy()


def viewable(x: Any, shape: tuple) -> bool:
    """Whether ``x`` takes ``shape`` as a view, without a copy (NumPy's rule, PyTorch's):
    a host array asks its reshape not to copy (0.5 µs), anything else is probed by setting
    the shape of a view of it (5 µs: the error NumPy raises for a copy is slow to make)."""
    if x.__class__ is ndarray and _RESHAPE_COPY:
        try:
            x.reshape(shape, copy=False)
        except ValueError:
            return False
        return True
    probe = x.view()
    try:
        probe.shape = shape
    except AttributeError:
        return False
    return True


def strided_view(x: Any, size: tuple, byte_strides: tuple, byte_offset: int) -> Any:
    """A view of the memory that holds ``x``: ``size`` elements of x's dtype, ``byte_strides``
    apart, the first ``byte_offset`` bytes from x's first element (before it, for a negative
    offset, as long as that is still x's storage). The caller checks the bounds."""
    kind = _types.get(type(x))
    if kind is not None:  # device memory: a view from x's pointer (CuPy's ndarray(memptr=))
        return _modules[kind].ndarray(
            size, x.dtype, memptr=x.data + byte_offset, strides=byte_strides
        )
    root = x  # the array that owns x's memory (the end of its chain of NumPy bases)
    while isinstance(root.base, ndarray):
        root = root.base
    start = address(x) - address(root)
    if root.flags.c_contiguous:
        return ndarray(size, x.dtype, buffer=root, offset=start + byte_offset, strides=byte_strides)
    # a root without a flat buffer (itself a strided view): from x's first element onwards
    shifted = x.reshape(-1)[byte_offset // x.itemsize :] if byte_offset > 0 else x
    return numpy.lib.stride_tricks.as_strided(shifted, size, byte_strides)


_SINGLE = numpy.dtype(numpy.float32)


def mm(a: Any, b: Any) -> Any:
    """``a @ b`` for two matrices: the same values (the same bits on the machines measured),
    in a row-major result.

    OpenBLAS's time for a product depends on which operand it is handed first: for float32
    rows ``a`` (m, k) times a transposed matrix ``b`` (``x @ w.T``, linear's forward), with
    few rows (m <= 32) and many columns (n >= 128, m n >= 2048), (bᵀ aᵀ)ᵀ copied back to
    rows takes 0.55-0.75x the time of ``a @ b`` (784 -> 256 on batch 16: 156 -> 99 µs), and
    0.8-0.95x up to 64 rows over a long inner dim (k >= 512); from 96 rows on, about the same
    or slower (the grid of m, n, k, both dtypes and layouts: tools/mm_orders.py). Elsewhere,
    ``a @ b``.
    """
    if (
        a.__class__ is ndarray
        and b.__class__ is ndarray
        and a.dtype is _SINGLE
        and b.dtype is _SINGLE
        and (a.shape[0] <= 32 or a.shape[0] <= 64 and a.shape[1] >= 512)
    ):
        m, n = a.shape[0], b.shape[1]
        if n >= 128 and m * n >= 2048 and a.flags.c_contiguous and b.T.flags.c_contiguous:
            return numpy.ascontiguousarray(numpy.matmul(b.T, a.T).T)
    return a @ b  # (a device array: its own product)


# ----- sums by BLAS, maxima by columns ------------------------------------------------
# A float array's sum along its first or last axis is a product with a vector of ones, which
# BLAS runs 1.2-14 times faster than add.reduce (the grid of rows, columns and axes:
# tools/sums_by_blas.py), from some 500 elements counting the Python around it; its sum over
# every element a dot with ones, 0.4-0.8 of add.reduce's time up to 2^14 elements (a
# float32 3-vector 0.38 µs against 0.57, 100x100 0.78 against 1.07 for vdot's flattening).
# BLAS's accumulators add their shares in order, an error growing with the length summed, so
# sums longer than _ONES elements keep add.reduce (a pairwise sum along the last axis). A sum
# of negative zeros is +0, as in PyTorch (add.reduce's is -0).
_DOUBLE = numpy.dtype(numpy.float64)
_ONES = 1 << 14
_ones: dict = {}  # dtype -> _ONES ones
_add_reduce = numpy.add.reduce
_dot = numpy.dot


def _ones_of(dtype: Any) -> Any:
    ones = _ones.get(dtype)
    if ones is None:
        ones = _ones[dtype] = numpy.ones(_ONES, dtype)
        ones.flags.writeable = False
    return ones


def add_reduce(x: Any, axis: int, keepdims: bool = False) -> Any:
    """``add.reduce(x, axis, keepdims=keepdims)`` for one int ``axis``: Σ x along it, by BLAS
    for a float32 or float64 C-contiguous host array of 512 elements or more summed along
    its first or last axis (x viewed as a matrix times ones), else by add.reduce; a
    bfloat16 array accumulated in float32 (``widened_add_reduce``)."""
    if x.__class__ is ndarray:
        dtype = x.dtype
        if dtype is _SINGLE or dtype is _DOUBLE:
            if x.size >= 512 and x.ndim > 1 and x.flags.c_contiguous:
                shape = x.shape
                last = len(shape) - 1
                a = axis + last + 1 if axis < 0 else axis  # (out of range: add.reduce's error)
                if a == 0 and shape[0] <= _ONES:
                    m = shape[0]
                    out = _dot(_ones_of(dtype)[:m], x.reshape(m, -1))
                    return out.reshape((1,) + shape[1:] if keepdims else shape[1:])
                if a == last and shape[last] <= _ONES:
                    n = shape[last]
                    out = _dot(x.reshape(-1, n), _ones_of(dtype)[:n])
                    return out.reshape(shape[:last] + (1,) if keepdims else shape[:last])
        elif dtype in REDUCED:  # bfloat16 (ml_dtypes)
            return widened_add_reduce(x, axis, keepdims)
        return _add_reduce(x, axis, None, None, keepdims)
    if isinstance(x, numpy.generic):
        return _add_reduce(x, axis, None, None, keepdims)
    return x.sum(axis=axis, keepdims=keepdims)  # (a device or meta array: its own sum)


def widened_add_reduce(x: Any, axis: Any, keepdims: bool = False) -> Any:
    """Σ x along ``axis`` (an int, a tuple or None) for a bfloat16 array: accumulated in
    float32 and rounded once to x's dtype, as PyTorch sums bfloat16 (ml_dtypes' own
    add.reduce would round every partial sum to bfloat16)."""
    total = _add_reduce(x, axis, _SINGLE, None, keepdims)
    return numpy.asarray(total).astype(x.dtype)


def add_reduce_run(x: Any, axes: tuple, keepdims: bool = False) -> Any:
    """Σ x over ``axes`` (sorted, non-negative, at least two) when they are adjacent and
    lead or end x's dims, x a C-contiguous float32 or float64 host array: x viewed as a
    matrix whose rows or columns are those dims, summed along one axis by ``add_reduce``
    (BLAS where faster: a sum over batch and time of a (B, T, F) gradient, a layer norm's
    weight gradient), where add.reduce over several dims walks them row by row; None
    otherwise (the caller sums as it would)."""
    if x.__class__ is not ndarray or not (x.dtype is _SINGLE or x.dtype is _DOUBLE):
        return None
    ndim = x.ndim
    k = len(axes)
    first = axes[0]
    if not 1 < k < ndim or axes[-1] - first != k - 1 or not x.flags.c_contiguous:
        return None
    shape = x.shape
    if first == 0:
        rows = math.prod(shape[:k])
        if rows > _ONES:  # (BLAS's error grows with the length summed: add.reduce's order)
            return None
        out = add_reduce(x.reshape(rows, x.size // rows if rows else math.prod(shape[k:])), 0)
        rest = shape[k:]
        return out.reshape((1,) * k + rest if keepdims else rest)
    if axes[-1] == ndim - 1:
        cols = math.prod(shape[first:])
        if cols > _ONES:
            return None
        lead = shape[:first]
        out = add_reduce(x.reshape(math.prod(lead), cols), 1)
        return out.reshape(lead + (1,) * k if keepdims else lead)
    return None


def add_reduce_dims(x: Any, axes: tuple, keepdims: bool = False) -> Any:
    """Σ x over several sorted non-negative ``axes`` by BLAS where add.reduce walks them row
    by row: adjacent leading or trailing dims (``add_reduce_run``), or every dim but the
    second of a batch of channels (N, C, ...): a batch norm's statistics, a convolution's
    bias gradient, x viewed as (N·C, S), each row summed, then the batch. None otherwise
    (and for an empty array, a longer sum than BLAS takes, a non-float or strided one)."""
    out = add_reduce_run(x, axes, keepdims)
    if out is not None:
        return out
    ndim = x.ndim
    if (
        ndim < 3
        or x.__class__ is not ndarray
        or not (x.dtype is _SINGLE or x.dtype is _DOUBLE)
        or not x.size
        or axes != (0, *range(2, ndim))
        or not x.flags.c_contiguous
    ):
        return None
    n, c = x.shape[0], x.shape[1]
    s = x.size // (n * c)
    if s > _ONES or n > _ONES:
        return None
    rows = add_reduce(x.reshape(n * c, s), 1)
    out = add_reduce(rows.reshape(n, c), 0)
    return out.reshape((1, c) + (1,) * (ndim - 2) if keepdims else (c,))


def max_reduce(x: Any, axis: int, keepdims: bool = False) -> Any:
    """``maximum.reduce(x, axis, keepdims=keepdims)`` for one int ``axis`` (the same values:
    a max is exact, a nan wins in both; only a tie of -0 and +0 may give the other zero).
    NumPy reduces along the last axis row by row, some 60 ns a row: for a float
    C-contiguous host array, rows of 64 to 2048 are read at each row's argmax (64 x 256: 2.9
    µs against 7.5; 256 x 64: 6.4 against 22.6); at least 32 rows no longer than there are
    rows (a batch's scores over few classes) are copied to columns and reduced along the
    first axis, 2-10x faster (128 x 10: 1.7 µs against 8.5)."""
    if x.__class__ is ndarray:
        if x.size >= 256 and x.ndim > 1 and (x.dtype is _SINGLE or x.dtype is _DOUBLE):
            shape = x.shape
            last = len(shape) - 1
            n = shape[last]
            rows = x.size // n
            if (axis == last or axis == -1) and 64 <= n <= 2048 and rows >= 8:
                if x.flags.c_contiguous:
                    flat = x.reshape(rows, n)
                    out = flat[row_indices(rows), flat.argmax(1)]
                    return out.reshape(shape[:last] + (1,) if keepdims else shape[:last])
            if (axis == last or axis == -1) and 32 <= rows >= n and x.flags.c_contiguous:
                columns = numpy.ascontiguousarray(x.reshape(-1, n).T)
                out = _max_reduce(columns, 0)
                return out.reshape(shape[:last] + (1,) if keepdims else shape[:last])
        return _max_reduce(x, axis, None, None, keepdims)
    if isinstance(x, numpy.generic):
        return _max_reduce(x, axis, None, None, keepdims)
    return x.max(axis=axis, keepdims=keepdims)  # (a device or meta array: its own max)


_max_reduce = numpy.maximum.reduce
_ARANGES: dict = {}  # arange(n) per row count, read-only


def row_indices(n: int) -> Any:
    """0, 1, ..., n - 1 in host memory, read-only, made once per n (a few hundred kept):
    the row indices of x[rows, i] (a row's argmax, a sample's target class)."""
    rows = _ARANGES.get(n)
    if rows is None:
        rows = numpy.arange(n)
        rows.flags.writeable = False
        if len(_ARANGES) < 256:
            _ARANGES[n] = rows
    return rows


_ones_views: dict = {}  # dtype -> {n: the first n of its ones}, for whole_sum
_VIEWS_KEPT = 1 << 12  # (per dtype, at most: past that, sliced on each call)
_asarray = numpy.asarray


def whole_sum(x: Any) -> Any:
    """Σ x over every element of a float32 or float64 host array, as a 0-d array, by BLAS;
    None where add.reduce is the one to use (over 2^14 elements, or not contiguous)."""
    n = x.size
    if n <= _ONES and x.flags.c_contiguous:
        dtype = x.dtype
        views = _ones_views.get(dtype)
        if views is None:
            views = _ones_views[dtype] = {}
        ones = views.get(n)
        if ones is None:
            ones = _ones_of(dtype)[:n]
            if len(views) < _VIEWS_KEPT:
                views[n] = ones
        return _asarray((x if x.ndim == 1 else x.ravel()).dot(ones))
    return None


# Running sums by BLAS (``running_sums``): NumPy's cumsum is a sequential loop, about 3 ns an
# element whatever the axis (45 µs for 64 x 256 float32 values, 50 in float64). Blocks of
# BLOCK_SCAN along the axis are summed by one product with a triangle of ones, with one
# more row of ones against each block's carry (the total of the blocks before it, a short
# cumsum of the blocks' totals): 64 x 256 float32 values in float64 25 µs, 1024 x 64 110
# against 200 (blocks of 8, 32 or 64 are slower, with OpenBLAS's Haswell kernels as with
# its SkylakeX ones). From RUNNING_SUMS_FROM elements (below, as fast as the loop), along
# an axis of at least 2 blocks; an axis with 2 to 15 elements after it keeps cumsum (the
# products would be too narrow).
BLOCK_SCAN = 16
RUNNING_SUMS_FROM = 1 << 12
_triangles: dict = {}  # block -> the float64 triangle of ones, and its carry's row


def _triangle(block: int) -> Any:
    """(block + 1, block): t[i, j] = [i <= j] for i < block, and a last row of ones (each
    block's carry added to each of its sums), read-only."""
    t = _triangles.get(block)
    if t is None:
        t = numpy.ones((block + 1, block), numpy.float64)
        t[:block] = numpy.tri(block, dtype=numpy.float64).T
        t.flags.writeable = False
        _triangles[block] = t
    return t


def running_sums(x: Any, axis: int) -> Any:
    """The running sums of a C-contiguous float32 or float64 host array along a non-negative
    ``axis``, from +0, in float64, by blocks: each block and its carry (the blocks before it
    summed) times ``_triangle``. None where the caller's cumsum is the one to use: a small
    array, an axis not a multiple of 8 or under 2 blocks, 2 to 15 elements after the axis,
    a non-finite element (inf times the triangle's zeros would be nan)."""
    if x.__class__ is not ndarray or x.size < RUNNING_SUMS_FROM or x.dtype.char not in "fd":
        return None
    shape = x.shape
    n = shape[axis]
    block = BLOCK_SCAN if n % BLOCK_SCAN == 0 else 8
    if n % block or n < 2 * block or not x.flags.c_contiguous:
        return None
    outer = math.prod(shape[:axis])
    inner = x.size // (outer * n)
    if 1 < inner < 16:
        return None
    blocks = n // block
    # x in float64 (+0 added: a -0 becomes +0, the start PyTorch's sums have) beside each
    # block's carry: rows (A·B, b + 1), or (A, B, b + 1, inner) (no dim of 1 for NumPy's
    # loops to walk element by element)
    rows = inner == 1
    laid = numpy.empty((outer * blocks, block + 1) if rows else (outer, blocks, block + 1, inner))
    values = laid[..., :block] if rows else laid[:, :, :block]
    numpy.add(x.reshape(values.shape), 0.0, out=values)
    if rows:  # (A·B): each block summed by BLAS (add.reduce walks short rows one by one)
        totals = _dot(values, _ones_of(_DOUBLE)[:block])
    else:  # (A, B, inner)
        totals = _add_reduce(values, axis=2)
    if not numpy.isfinite(_add_reduce(totals, axis=None)):
        return None
    if rows:
        totals = totals.reshape(outer, blocks)
        carry = laid[:, block].reshape(outer, blocks)  # (a view: laid's rows are b + 1 long)
    else:
        carry = laid[:, :, block]
    carry[:, 0] = 0.0
    numpy.cumsum(totals[:, :-1], axis=1, out=carry[:, 1:])
    t = _triangle(block)
    if rows:  # (A·B, b + 1) @ (b + 1, b)
        return _dot(laid, t).reshape(shape)
    return numpy.matmul(t.T, laid).reshape(shape)  # (b, b + 1) @ (A, B, b + 1, inner)


# BLAS's axpy (y += alpha·x in one pass, each element a fused multiply-add) from the
# OpenBLAS that NumPy's wheels bundle (its scipy_openblas symbols, 64-bit integers), found
# on first use: an optimizer's update without a temporary of the parameter's size (W1 of an
# MLP 784-256, 200,704 float32 values, 17 µs against 28), and PyTorch's bits, whose
# add_(x, alpha=...) kernel fuses the multiply-add too (NumPy's y += alpha * x rounds the
# product first: a last-bit difference in about 2% of the elements). A call costs about
# 2 µs through ctypes, so arrays under AXPY_FROM elements keep NumPy's two ufuncs; without
# that library (NumPy built against another BLAS), all do.
AXPY_FROM = 1 << 15
_axpy_functions: list = []  # [{dtype char: the C function}], filled on first use


def _find_axpy() -> dict:
    """NumPy's bundled OpenBLAS's saxpy and daxpy, by dtype char ({} where not found)."""
    import ctypes
    import glob

    here = os.path.dirname(numpy.__file__)
    paths = glob.glob(os.path.join(here + ".libs", "*openblas*"))
    paths += glob.glob(os.path.join(here, ".dylibs", "*openblas*"))
    found: dict = {}
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for char, symbol, number in (
            ("f", "scipy_cblas_saxpy64_", ctypes.c_float),
            ("d", "scipy_cblas_daxpy64_", ctypes.c_double),
        ):
            fn = getattr(library, symbol, None)
            if fn is not None:
                fn.restype = None
                fn.argtypes = (ctypes.c_int64, number, ctypes.c_void_p, ctypes.c_int64,
                               ctypes.c_void_p, ctypes.c_int64)  # fmt: skip
                found[char] = fn
        if found:
            break
    return found


def axpy(y: Any, x: Any, alpha: float) -> bool:
    """``y += alpha·x`` in place by BLAS's axpy, for C-contiguous float32 or float64 host
    arrays of one shape and dtype, from AXPY_FROM elements, x not overlapping y; False
    (nothing done) otherwise, for the caller's NumPy."""
    if (
        y.__class__ is not ndarray
        or x.__class__ is not ndarray
        or y.size < AXPY_FROM
        or x.dtype is not y.dtype
        or x.shape != y.shape
        or not (y.flags.c_contiguous and x.flags.c_contiguous and y.flags.writeable)
        or numpy.may_share_memory(x, y)
    ):
        return False
    if not _axpy_functions:
        _axpy_functions.append(_find_axpy())
    fn = _axpy_functions[0].get(y.dtype.char)
    if fn is None:
        return False
    fn(y.size, alpha, x.ctypes.data, 1, y.ctypes.data, 1)
    return True


# Lent gradients. A VJP on arrays whose result would equal one of its saved arrays (g · a
# with g the broadcast of one: a sum's gradient) may hand on that array itself, as a
# read-only view: nothing in the engine or the ops writes into it (they write only into
# arrays that own their memory), and the engine copies it before user code can see it
# (hooks, ``grad()``'s results, a custom Function's backward; ``.grad`` keeps only writable
# arrays). User code run during backward may also write into the tensor whose memory was
# lent (an optimizer step in a post-accumulate hook): before any runs, the lent arrays
# still waiting in the engine's loop are copied (``unlend_waiting``), so each keeps the
# values it had when its VJP ran, as PyTorch's products do. ops/_scratch.py says when a
# VJP lends.
def lend(a: Any) -> Any:
    """``a`` as a read-only view: a gradient that is one of a node's saved arrays."""
    view = a.view()
    view.flags.writeable = False
    _modes.state.lent_out = True
    return view


def is_lent(g: Any) -> bool:
    """Whether ``g`` is lent, or read-only as a lent array is (a read-only contiguous view;
    a broadcast is not contiguous): copied before user code sees it."""
    if type(g) is not ndarray:
        return False
    flags = g.flags
    return not flags.writeable and flags.c_contiguous and not flags.owndata


def unlend(g: Any) -> Any:
    """``g`` copied if it is lent, else ``g`` itself."""
    return g.copy() if is_lent(g) else g


def unlend_waiting() -> None:
    """Before user code runs in backward: copy the lent arrays among the gradients waiting
    in the engine's running loop (``_modes.state.lending``: its ready queue and buffers), if
    a VJP has lent since user code last ran."""
    state = _modes.state
    if not state.lent_out:
        return
    state.lent_out = False
    waiting = state.lending
    if not waiting:
        return
    ready, buffers = waiting
    for grads in [entry[2] for entry in ready] + list(buffers.values()):
        if grads is not None:
            for i, g in enumerate(grads):
                if is_lent(g):
                    grads[i] = g.copy()


def all_finite(x: Any) -> bool:
    """Whether every element of a float host array is finite, by its sum (an overflow to
    inf answers no: a caller's slower path then); a contiguous x's rows of its trailing dims
    (up to 2^14 elements) summed by BLAS first (half add.reduce's time)."""
    n = 1
    for d in reversed(x.shape):
        if n * d > _ONES:
            break
        n *= d
    with numpy.errstate(all="ignore"):
        if x.dtype.char in "fd" and x.flags.c_contiguous and 64 <= n < x.size:
            total = _add_reduce(_dot(x.reshape(-1, n), _ones_of(x.dtype)[:n]))
        else:
            total = _add_reduce(x, axis=None)
    return bool(numpy.isfinite(total))


def _name(arr: Any) -> str:
    kind = _types.get(type(arr))
    return "cpu" if kind is None else f"{kind}:{int(arr.device.id)}"


def align(arrays: Any) -> Any:
    """One op's input arrays on one device: a 0-d host array joins the device's arrays (a
    0-d CPU tensor goes with CUDA tensors, as in PyTorch); any other mix raises PyTorch's
    RuntimeError. Called only once a device array exists (``live``)."""
    first = None
    for a in arrays:
        if type(a) in _types:
            first = a
            break
    if first is None:
        return arrays
    where = _name(first)
    moved = None
    for i, a in enumerate(arrays):
        if isinstance(a, ndarray):
            if a.ndim:
                names = [_name(b) for b in arrays if is_array(b) and (b.ndim or b is first)]
                raise RuntimeError(
                    "Expected all tensors to be on the same device, but found at least two "
                    f"devices, {names[0]} and {next(n for n in names if n != names[0])}!"
                )
            if moved is None:
                moved = list(arrays)
            moved[i] = _modules[_types[type(first)]].asarray(a)
        elif type(a) in _types and a is not first and _name(a) != where:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {where} and {_name(a)}!"
            )
    if moved is None:
        return arrays
    return tuple(moved) if type(arrays) is tuple else moved


# ----- the array module of the op running ----------------------------------------------------
#
# What NumPy cannot hand over by itself (``xp.zeros(shape)``, ``xp.asarray(3.0)``,
# ``xp.arange(n)`` inside a forward or a VJP: nothing tells them the device) follows the op
# that runs: while an op's forward or a node's VJPs run on a device's arrays, ``current``
# names that device's module, and once a device is loaded the modules of chainrule see
# ``xp`` as ``DISPATCH``, which looks each name up there (NumPy's where the device module
# lacks it). Until a device is loaded ``xp`` is NumPy itself: the CPU pays nothing.

current: list[Any] = [None]  # the device module of the op running (None: NumPy)


def use(arrays: Any) -> Any:
    """Make the device of ``arrays`` (the first device array among them, or among their
    tensors' arrays) the current one;
    returns the previous, for ``current[0] = previous`` afterwards."""
    previous = current[0]
    mod = None
    for a in arrays:
        kind = _types.get(type(a))
        if kind is None:  # a tensor (the gradients of a backward that records a graph)
            kind = _types.get(type(getattr(a, "_data", None)))
        if kind is not None:
            mod = _modules[kind]
            break
    current[0] = mod
    return previous


class _Dispatch:
    """``xp`` once a device is loaded: the current device module's name, else NumPy's."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        mod = current[0]
        if mod is not None:
            value = getattr(mod, name, _missing)
            if value is not _missing:
                return value
        return getattr(numpy, name)

    def __repr__(self) -> str:
        return "<chainrule array module: NumPy, or the running op's device module>"


DISPATCH = _Dispatch()
_KEEP = {"chainrule._backend", "chainrule._standin", "chainrule._meta"}


def _install_dispatch() -> None:
    """Rebind ``xp`` in chainrule's loaded modules to ``DISPATCH`` (once a device exists)."""
    import sys

    for name, mod in list(sys.modules.items()):
        if name.startswith("chainrule.") and name not in _KEEP:
            if getattr(mod, "xp", None) is numpy:
                mod.xp = DISPATCH


class on_device_of:  # noqa: N801 - used as a function: ``with on_device_of(arr):``
    """Array code outside an op (a parser's index arithmetic) on the device of ``arr``:
    its module is current inside the block."""

    __slots__ = ("arrays", "previous")

    def __init__(self, *arrays: Any) -> None:
        self.arrays = arrays

    def __enter__(self) -> None:
        self.previous = use(self.arrays) if live[0] else current[0]

    def __exit__(self, *exc: Any) -> None:
        current[0] = self.previous
