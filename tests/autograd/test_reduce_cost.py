"""The reductions' and softmax's fast paths, pinned to the general path they shortcut and to
PyTorch.

``x.sum(1)``, ``x.mean()``, ``x.mean(0)``, ``x.norm()``, ``x.max(1)`` (and ``min``),
``softmax`` and ``log_softmax`` run the op's forward on the array in the parser and make the
output and its node with ``autograd.recorders.recorder`` when the call is the common one (a
float tensor, an int dim in range, no dtype). Each must give what the op called with the
parameters the parser's general path passes gives: values bit for bit, dtype, memory
layout, grad_fn class, save plan, next_functions, saved values and their checks, gradients,
tangents, errors, in every mode (no_grad, inference_mode, anomaly detection, forward mode,
create_graph, meta tensors)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
import chainrule.nn.functional as F
from chainrule import _backend
from chainrule.api.parsers.reductions import _MAX, _MIN
from chainrule.autograd import forward_ad
from chainrule.autograd.graph import OUTPUT_CHECK
from chainrule.ops import binary, normalizations, reductions, sorting
from oracle import assert_same_error, compare, graph_names


def _leaf(shape=(4, 5), dtype=cr.float32, seed=0, grad=True):
    r = np.random.default_rng(seed)
    return cr.tensor(r.standard_normal(shape), dtype=dtype, requires_grad=grad)


def _same_value(a, b) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same_value(u, v)
    else:
        assert a == b, (a, b)


def _same_tensor(got, want) -> None:
    a, b = got._data, want._data
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert got.dtype is want.dtype
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
        assert a.flags.c_contiguous == b.flags.c_contiguous
        assert a.strides == b.strides
    assert got.requires_grad == want.requires_grad
    assert got.is_leaf == want.is_leaf
    assert type(got._vc) is type(want._vc)
    if not want.is_inference():
        assert got._version == want._version
    assert got._view is None and want._view is None
    assert (got.grad_fn is None) == (want.grad_fn is None)
    if got.grad_fn is not None:
        fn, gn = got.grad_fn, want.grad_fn
        assert type(fn) is type(gn)
        assert fn._plan is gn._plan
        assert graph_names(got) == graph_names(want)
        got_saved, want_saved = fn._saved_values(False), gn._saved_values(False)
        assert len(got_saved) == len(want_saved)
        for u, v in zip(got_saved, want_saved):
            _same_value(u, v)
        if fn._checks is OUTPUT_CHECK:  # the output's version, in the node's slots
            assert gn._checks is OUTPUT_CHECK
            assert fn._out_id == id(got) and gn._out_id == id(want)
        else:
            assert len(fn._checks) == len(gn._checks)


def _same(got, want) -> None:
    if isinstance(want, tuple):  # (values, indices)
        assert type(got) is type(want)
        assert got._fields == want._fields
        for u, v in zip(got, want):
            _same_tensor(u, v)
    else:
        _same_tensor(got, want)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


# ----- each fast call against the op called as the parser's general path calls it ---------

m = _leaf()
m64 = _leaf(dtype=cr.float64, seed=1)
v = _leaf((7,), seed=2)
b3 = _leaf((2, 3, 4), seed=3)
h = _leaf(dtype=cr.float16, seed=4)
# ties: signed zeros and nans, which a max must read at its index (the first one)
z = cr.tensor(
    [[0.0, -0.0, -1.0, 0.0], [-0.0, 0.0, -2.0, -0.0], [1.0, float("nan"), 1.0, float("nan")]],
    requires_grad=True,
)
big = cr.tensor([[3e38, 3e38, -1.0], [1e-30, 2e-30, 5.0]], requires_grad=True)  # sums overflow
INPUTS = [m, m64, v, b3, h, z, big]


def _max_general(pair, largest):
    """max(input, dim, keepdim) as the parser's general path computes it: the first index of
    the extreme (NumPy's argmax), the op reading the values there, the indices squeezed."""

    def general(x, dim, keepdim=False):
        axis = dim % x.ndim
        index = (np.argmax if largest else np.argmin)(x._data, axis=axis, keepdims=True)
        op = sorting.max_dim if largest else sorting.min_dim
        values = op(x, index=index, dim=axis, keepdim=keepdim)
        indices = index if keepdim else np.squeeze(index, axis=axis)
        return pair(values, cr.from_numpy(indices.astype(np.int64)))

    return general


_max, _min = _max_general(_MAX, True), _max_general(_MIN, False)


def _sum(x, dim, keepdim=False):
    return reductions.sum(x, dim=dim, keepdim=keepdim, dtype=None)


def _mean(x, dim=None, keepdim=False):
    return reductions.mean(x, dim=dim, keepdim=keepdim, dtype=None)


def _var(x, dim=None, correction=1, keepdim=False):
    return reductions.var(x, dim=dim, correction=correction, keepdim=keepdim)


def _std(x, dim=None, correction=1, keepdim=False):
    return reductions.std(x, dim=dim, correction=correction, keepdim=keepdim)


def _softmax(x, dim):
    return normalizations.softmax(x, dim=dim % max(x.ndim, 1))


def _log_softmax(x, dim):
    return normalizations.log_softmax(x, dim=dim % max(x.ndim, 1))


def _norm(x, p=2):
    return reductions.vector_norm(x, ord=p, dim=None, keepdim=False)


# (fast call, general call), both of an input tensor
CASES = {
    "x.sum(1)": (lambda x: x.sum(1), lambda x: _sum(x, 1)),
    "x.sum(-1)": (lambda x: x.sum(-1), lambda x: _sum(x, -1)),
    "x.sum(0, keepdim=True)": (lambda x: x.sum(0, keepdim=True), lambda x: _sum(x, 0, True)),
    "cr.sum(x, -1, True)": (lambda x: cr.sum(x, -1, True), lambda x: _sum(x, -1, True)),
    "x.sum(dim=0)": (lambda x: x.sum(dim=0), lambda x: _sum(x, 0)),
    "x.mean()": (lambda x: x.mean(), lambda x: _mean(x)),
    "cr.mean(x)": (lambda x: cr.mean(x), lambda x: _mean(x)),
    "x.mean(0)": (lambda x: x.mean(0), lambda x: _mean(x, 0)),
    "x.mean(-1, True)": (lambda x: x.mean(-1, True), lambda x: _mean(x, -1, True)),
    "x.norm()": (lambda x: x.norm(), lambda x: _norm(x)),
    "cr.norm(x)": (lambda x: cr.norm(x), lambda x: _norm(x)),
    "x.norm(2)": (lambda x: x.norm(2), lambda x: _norm(x)),
    "x.norm(p=2.0)": (lambda x: x.norm(p=2.0), lambda x: _norm(x, 2.0)),
    "x.norm(None)": (lambda x: cr.norm(x, None), lambda x: _norm(x)),
    "x.max()": (lambda x: x.max(), lambda x: reductions.max_all(x)),
    "cr.min(x)": (lambda x: cr.min(x), lambda x: reductions.min_all(x)),
    "x.max(1)": (lambda x: x.max(1), lambda x: _max(x, 1)),
    "x.max(0, True)": (lambda x: x.max(0, True), lambda x: _max(x, 0, True)),
    "cr.max(x, -1)": (lambda x: cr.max(x, -1), lambda x: _max(x, -1)),
    "x.min(1)": (lambda x: x.min(1), lambda x: _min(x, 1)),
    "x.min(dim=-1, keepdim=True)": (
        lambda x: x.min(dim=-1, keepdim=True),
        lambda x: _min(x, -1, True),
    ),
    "x.amax(1)": (lambda x: x.amax(1), lambda x: reductions.amax(x, dim=1, keepdim=False)),
    "cr.amin(x, -1, True)": (
        lambda x: cr.amin(x, -1, True),
        lambda x: reductions.amin(x, dim=-1, keepdim=True),
    ),
    "x.var()": (lambda x: x.var(), lambda x: _var(x)),
    "x.std(1)": (lambda x: x.std(1), lambda x: _std(x, 1)),
    "cr.std(x, -1, keepdim=True)": (
        lambda x: cr.std(x, -1, keepdim=True),
        lambda x: _std(x, -1, keepdim=True),
    ),
    "x.var(0, correction=0)": (lambda x: x.var(0, correction=0), lambda x: _var(x, 0, 0)),
    "x.std(correction=2.5)": (lambda x: x.std(correction=2.5), lambda x: _std(x, None, 2.5)),
    "x.clamp(0, 1)": (lambda x: x.clamp(0, 1), lambda x: binary.clamp_scalar(x, min=0, max=1)),
    "x.clamp(min=-0.5)": (
        lambda x: x.clamp(min=-0.5),
        lambda x: binary.clamp_scalar(x, min=-0.5, max=None),
    ),
    "cr.clamp(x, None, 0.25)": (
        lambda x: cr.clamp(x, None, 0.25),
        lambda x: binary.clamp_scalar(x, min=None, max=0.25),
    ),
    "x.clip(1.5, -1)": (
        lambda x: x.clip(1.5, -1),
        lambda x: binary.clamp_scalar(x, min=1.5, max=-1),
    ),
    "F.softmax(x, 1)": (lambda x: F.softmax(x, 1), lambda x: _softmax(x, 1)),
    "x.softmax(0)": (lambda x: x.softmax(0), lambda x: _softmax(x, 0)),
    "cr.softmax(x, -1)": (lambda x: cr.softmax(x, -1), lambda x: _softmax(x, -1)),
    "F.log_softmax(x, 1)": (lambda x: F.log_softmax(x, 1), lambda x: _log_softmax(x, 1)),
    "x.log_softmax(-1)": (lambda x: x.log_softmax(-1), lambda x: _log_softmax(x, -1)),
    "F.log_softmax(x, dim=0)": (
        lambda x: F.log_softmax(x, dim=0),
        lambda x: _log_softmax(x, 0),
    ),
}

# the 1-D input has no dim 1
_SKIP = {(case, 2) for case in CASES if "(1" in case or "(x, 1" in case}


def _cases():
    for case in CASES:
        for i in range(len(INPUTS)):
            if (case, i) not in _SKIP:
                yield case, i


@pytest.mark.parametrize("case, i", list(_cases()))
def test_fast_call_gives_what_the_op_gives(case, i):
    fast, general = CASES[case]
    x = INPUTS[i]
    got, want = fast(x), general(x)
    _same(got, want)
    # gradients, bit for bit
    g = np.random.default_rng(9).standard_normal(_first(want).shape)
    grads = []
    for out in (got, want):
        x.grad = None
        _first(out).backward(cr.tensor(g, dtype=x.dtype))
        grads.append(x.grad.numpy().copy())
    x.grad = None
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize("case", CASES)
def test_fast_call_without_gradient_gives_what_the_op_gives(case):
    fast, general = CASES[case]
    x = _leaf(seed=5, grad=False)
    _same(fast(x), general(x))
    with cr.no_grad():
        _same(fast(m), general(m))


@pytest.mark.parametrize("case", CASES)
def test_fast_call_in_inference_mode_gives_what_the_op_gives(case):
    fast, general = CASES[case]
    with cr.inference_mode():
        got, want = fast(m), general(m)
        _same(got, want)
        assert _first(got).is_inference() and _first(want).is_inference()


@pytest.mark.parametrize("case", CASES)
def test_fast_call_with_anomaly_detection_records_where_it_was_made(case):
    fast, general = CASES[case]
    with pytest.warns(UserWarning, match="Anomaly"), cr.autograd.detect_anomaly(check_nan=False):
        got, want = fast(m), general(m)
    _same(got, want)
    assert _first(got).grad_fn.metadata.keys() == _first(want).grad_fn.metadata.keys()


@pytest.mark.parametrize("case", CASES)
def test_fast_call_in_forward_mode_gives_the_ops_tangent(case):
    fast, general = CASES[case]
    t = _leaf(seed=6, grad=False)
    with forward_ad.dual_level():
        x = forward_ad.make_dual(m.detach(), t)
        got, want = (
            forward_ad.unpack_dual(_first(fast(x))),
            forward_ad.unpack_dual(_first(general(x))),
        )
    np.testing.assert_array_equal(got.primal.numpy(), want.primal.numpy())
    np.testing.assert_array_equal(got.tangent.numpy(), want.tangent.numpy())


@pytest.mark.parametrize("case", CASES)
def test_fast_call_second_derivative_is_the_ops(case):
    fast, general = CASES[case]
    x = _leaf((3, 4), dtype=cr.float64, seed=7)
    seconds = []
    for fn in (fast, general):
        out = _first(fn(x))
        (g,) = cr.autograd.grad((out * out).sum(), x, create_graph=True)
        (gg,) = cr.autograd.grad(g.sum(), x, allow_unused=True)
        seconds.append(None if gg is None else gg.numpy())
    if seconds[1] is None:
        assert seconds[0] is None
    else:
        np.testing.assert_array_equal(seconds[0], seconds[1])


@pytest.mark.parametrize("case", CASES)
def test_fast_call_of_a_view_gives_what_the_op_gives(case):
    """A transposed input (a view, its result laid out contiguously as PyTorch's) and a view
    whose base was written in place since (its graph re-derived first)."""
    fast, general = CASES[case]
    base = _leaf((5, 4), seed=8)
    got, want = fast(base.t()), general(base.t())
    for u, w in zip(
        got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)
    ):
        assert u._data.flags.c_contiguous == w._data.flags.c_contiguous
        np.testing.assert_array_equal(u._data, w._data)
    assert type(_first(got).grad_fn) is type(_first(want).grad_fn)
    assert graph_names(_first(got)) == graph_names(_first(want))

    def written(fn):
        a = base * 1
        view = a[1:]
        with cr.no_grad():
            a.mul_(2)
        out = _first(fn(view))
        out.backward(cr.ones_like(out))
        grad = base.grad.numpy().copy()
        base.grad = None
        return out, grad

    (u, gu), (w, gw) = written(fast), written(general)
    np.testing.assert_array_equal(u._data, w._data)
    assert graph_names(u) == graph_names(w)
    np.testing.assert_array_equal(gu, gw)


@pytest.fixture
def meta_then_as_before():
    """Meta tensors made in the test, and then the process as before them: the flags that
    say a device array was ever made turned off again if they were off (later tests in this
    process check what the fast paths keep, which nothing takes while they are on)."""
    from chainrule import _backend, _modes

    was_live, was_marked = _backend.live[0], "device" in _modes._reasons
    yield
    if not was_live:
        _backend.live[0] = False
    if not was_marked:
        _modes.mark("device", False)


@pytest.mark.usefixtures("meta_then_as_before")
@pytest.mark.parametrize("case", CASES)
def test_fast_call_of_a_meta_tensor_gives_what_the_op_gives(case):
    fast, general = CASES[case]
    x = cr.empty(4, 5, device="meta", requires_grad=True)
    got, want = _first(fast(x)), _first(general(x))
    assert got.device == want.device and got.shape == want.shape and got.dtype == want.dtype
    assert type(got.grad_fn) is type(want.grad_fn)


# ----- against PyTorch: names, values, gradients, errors -----------------------------------


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_call_as_torch(case, dtype):
    """The case's call (its name is the call) on both libraries: values, indices, the
    gradient of a non-uniform output gradient, the node's name."""

    def run(lib):
        data = np.random.default_rng(3).standard_normal((4, 5))
        x = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
        out = eval(case, {"x": x, "cr": lib, "F": lib.nn.functional})  # noqa: S307
        first = _first(out)
        g = np.random.default_rng(4).standard_normal(tuple(first.shape))
        first.backward(lib.tensor(g, dtype=getattr(lib, dtype)))
        return tuple(out) if isinstance(out, tuple) else out, x.grad, first.grad_fn.name()

    compare(run, rtol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: x.sum(2),
        lambda lib, x: x.sum(-3),
        lambda lib, x: x.mean(2),
        lambda lib, x: x.mean(-3, True),
        lambda lib, x: x.max(2),
        lambda lib, x: x.min(-3),
        lambda lib, x: lib.nn.functional.softmax(x, 2),
        lambda lib, x: lib.nn.functional.log_softmax(x, -3),
        lambda lib, x: x[:, :0].max(1),  # an empty dim
        lambda lib, x: x.long().mean(),  # an integer mean
        lambda lib, x: x.long().mean(0),
        lambda lib, x: x.long().norm(),
        lambda lib, x: x.long().softmax(0),
    ],
)
def test_fast_call_errors_are_torchs(call):
    assert_same_error(lambda lib: call(lib, lib.ones(2, 3, requires_grad=True)))


@pytest.mark.parametrize(
    "step",
    [
        lambda lib, x: lib.nn.functional.softmax(x, 1),
        lambda lib, x: lib.nn.functional.log_softmax(x, 1),
        lambda lib, x: x.norm(),
    ],
)
def test_saved_output_written_in_place_raises_torchs_error(step):
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True) * 1
        out = step(lib, x)
        with lib.no_grad():
            out.mul_(2)
        out.sum().backward()

    assert_same_error(run)


def test_mean_over_many_entries_divides_by_their_count():
    """Up to 2**24 entries the fast path divides by the count; beyond, the general path."""
    for n in (3, 2**24 - 1):
        x = cr.ones(n) * 0.1
        np.testing.assert_array_equal(x.mean()._data, _mean(x)._data)


# ----- sorting's gather along a dim, pinned to NumPy's take_along_axis ----------------------


@pytest.mark.parametrize("shape", [(4, 5), (3, 4, 5), (7,), (2, 1, 3)])
def test_take_along_reads_what_take_along_axis_reads(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for dim in range(len(shape)):
        for index in (np.argmax(x, axis=dim, keepdims=True), np.argsort(x, axis=dim)):
            want = np.take_along_axis(x, index, axis=dim)
            for keepdim in (True, False) if index.shape[dim] == 1 else (True,):
                got = sorting._take_along(x, index, dim, keepdim)
                expected = want if keepdim else np.squeeze(want, axis=dim)
                assert got.shape == expected.shape and got.strides == expected.strides
                np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("case", CASES)
def test_fast_call_takes_no_op_dispatch(case, monkeypatch):
    """The common call (a float tensor requiring grad, grad mode on) is the fast path: no
    ``Op.__call__`` or ``Op._fast`` runs, so the tests above compare two paths."""
    from chainrule.autograd.recording import Op

    def refuse(*args, **kwargs):
        raise AssertionError("the general path ran")

    monkeypatch.setattr(Op, "__call__", refuse)
    monkeypatch.setattr(Op, "_fast", refuse)
    out = _first(CASES[case][0](m))
    assert out.requires_grad and out.grad_fn is not None


# ----- clamp's number bounds as kept 0-d arrays, pinned to the numbers themselves ----------

_SPECIALS = [-0.0, 0.0, np.nan, -np.nan, -1.0, 2.0, np.inf, -np.inf, 1e-8, 0.5, 1.0, -2.5, 1e-45]
_BOUNDS = [None, 0, 0.0, -0.0, 1, -1, 0.5, 1e-8, np.inf, -np.inf, np.nan, 2**53 + 1, True]


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(13,), ()])
def test_clamp_with_kept_bounds_gives_the_bits_of_the_numbers(dt, shape):
    """min(max(x, lo), hi) with each number bound given as it is, bit for bit (signed zeros,
    nan, lo > hi), for every pair of bounds."""
    from chainrule.ops import binary

    x = np.array(_SPECIALS, dtype=dt) if shape else np.array(-0.0, dtype=dt)
    for lo in _BOUNDS:
        for hi in _BOUNDS:
            if lo is None and hi is None:
                continue
            if dt is np.float16 and 2**53 + 1 in (lo, hi):
                continue  # (PyTorch's overflow error, the same on both paths)
            with np.errstate(all="ignore"):
                want = x if lo is None else np.maximum(x, lo)
                want = want if hi is None else np.minimum(want, hi)
                got = binary._clamp(x, lo, hi)
            assert type(got) is type(want) and got.dtype == want.dtype
            np.testing.assert_array_equal(
                np.asarray(got).reshape(-1).view(np.uint8),
                np.asarray(want).reshape(-1).view(np.uint8),
            )


# ----- forwards through the ufuncs' reductions, pinned to NumPy's functions they replace ----


def _bits(got, want) -> None:
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


def _arrays():
    r = np.random.default_rng(0)
    for dt in (np.float16, np.float32, np.float64):
        for shape in [(4, 5), (3, 4, 5), (7,), ()]:
            x = r.standard_normal(shape).astype(dt)
            if x.size > 2:
                x.reshape(-1)[:3] = [-0.0, 0.0, np.nan if shape == (7,) else 1.0]
            yield x


@pytest.mark.parametrize("x", list(_arrays()), ids=lambda x: f"{x.dtype}{x.shape}")
def test_extreme_prod_and_variance_forwards_are_numpys(x):
    """amax/amin/max/min's forward is np.max/np.min's result, prod's np.prod's; var's over
    dims is Σ/n with xp.sum, under errstate, as it was written before (in float64 for
    float16 and float32 x, as PyTorch's CPU kernel accumulates)."""
    dims = [None] + ([0, -1, (0, -1)] if x.ndim > 1 else [0] if x.ndim else [])
    for dim in dims:
        axes = reductions.dims_of(dim, x.ndim)
        for keepdim in (False, True):
            for fn, name in ((np.max, "amax"), (np.min, "amin")):
                want = fn(x) if axes is None else fn(x, axis=axes, keepdims=keepdim)
                want = np.asarray(want)
                if axes is None:
                    want = want.reshape((1,) * x.ndim if keepdim else ())
                _bits(reductions._extreme(fn, name)(x, dim, keepdim), want)
            for dtype in (None, cr.float64, cr.int64):
                np_dtype = None if dtype is None else dtype.np
                if axes is not None and not isinstance(dim, int):
                    continue
                with np.errstate(all="ignore"):  # (nan as an int64: invalid, on both)
                    if axes is None:
                        want = np.asarray(np.prod(x, dtype=np_dtype))
                        want = want.reshape((1,) * x.ndim if keepdim else ())
                    else:
                        want = np.prod(x, axis=axes[0], keepdims=keepdim, dtype=np_dtype)
                        want = np.asarray(want)
                    got = reductions._prod(x, dim, keepdim, dtype)
                _bits(got, want)
            if axes is None:
                continue
            for correction in (0, 1, 2):
                w = x.astype(np.float64) if x.dtype in (np.float16, np.float32) else x
                n = int(np.prod([w.shape[a] for a in axes]))
                dof = n - correction if n > correction else 0.0
                with np.errstate(all="ignore"):
                    m = np.sum(w, axis=axes, keepdims=True) / w.dtype.type(n)
                    s = np.sum((w - m) ** 2, axis=axes, keepdims=keepdim)
                    want = np.asarray(s / w.dtype.type(dof) if dof else s * np.nan, x.dtype)
                _bits(reductions._var(x, dim, correction, keepdim), want)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("i", range(len(INPUTS) + 1))
def test_arg_extreme_along_a_dim_is_the_general_paths(name, i):
    """x.argmax(dim) straight from NumPy against the general path (a NumPy int dim takes
    it): values, dtype, shape, strides; an empty dim and a bool input raise as before."""
    x = INPUTS[i] if i < len(INPUTS) else cr.tensor([[3, 1, 3], [0, 5, 5]])  # ties
    for dim in range(-x.ndim, x.ndim):
        for keepdim in (False, True):
            got = getattr(x, name)(dim, keepdim)
            want = getattr(x, name)(np.int64(dim), keepdim)
            assert got.dtype is want.dtype is cr.int64 and not got.requires_grad
            assert got._data.strides == want._data.strides
            np.testing.assert_array_equal(got._data, want._data)
            assert got.shape == want.shape
    assert_same_error(lambda lib: getattr(lib.ones(2, 0), name)(1))
    assert_same_error(lambda lib: getattr(lib.ones(2, 3, dtype=lib.bool), name)(1))


@pytest.mark.parametrize("case", CASES)
def test_fast_call_inside_the_quiet_context_sets_the_error_state_instead(case):
    """Run where the quiet context is already entered (as inside a forward): the fast path
    falls back to setting NumPy's error state, silently (an overflowing input: a warning
    would be an error here), and gives what it gives outside."""
    fast = CASES[case][0]
    want = fast(big)
    got = _backend.quietly(fast, big)
    for u, w in zip(
        got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)
    ):
        np.testing.assert_array_equal(u._data, w._data)
