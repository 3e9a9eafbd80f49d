"""The fast paths of an MLP's training step, pinned to the general paths they shortcut and
to PyTorch: ``F.linear`` on a batch with a bias (the t view and the addmm node made
directly), ``F.cross_entropy`` on a batch of class indices (log_softmax and nll_loss given
to the ops' recording step), nll_loss's forward and VJP without weights or ignored targets, the
VJPs of addmm, log_softmax and relu on arrays, and ``optim.SGD``'s plain step."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.autograd import forward_ad
from chainrule.ops import shapes
from chainrule.ops.linalg import products
from oracle import assert_same_error, compare, values

DTYPES = ["float32", "float64"]


def _graph(t) -> list:
    """The graph behind ``t`` as names, edges (by the name of the node they reach) and the
    identity of the leaves an AccumulateGrad holds, depth first."""
    out, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        edges = []
        for nxt, nr in fn.next_functions:
            if nxt is None:
                edges.append(None)
                continue
            leaf = getattr(nxt, "variable", None)
            edges.append((nxt.name(), nr, None if leaf is None else id(leaf)))
            if leaf is None:
                stack.append(nxt)
        out.append((fn.name(), edges))
    return out


def _linear_inputs(lib, dt, grads=(True, True, True), seed=0):
    dtype = getattr(lib, dt)
    x = lib.tensor(values("any", (4, 6), seed), dtype=dtype, requires_grad=grads[0])
    w = lib.tensor(values("any", (3, 6), seed + 1), dtype=dtype, requires_grad=grads[1])
    b = lib.tensor(values("any", (3,), seed + 2), dtype=dtype, requires_grad=grads[2])
    return x, w, b


# ----- F.linear ---------------------------------------------------------------------------


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize(
    "grads", [(True, True, True), (False, True, True), (True, False, False), (False, True, False)]
)
def test_linear_fast_path_is_the_general_path(grads, dt):
    """Values bit for bit, the graph (AddmmBackward0 with its TBackward0 edge), versions
    and every gradient, against addmm(bias, input, weight.t()) and PyTorch."""
    x, w, b = _linear_inputs(cr, dt, grads)
    fast = cr.nn.functional.linear(x, w, b)
    general = products.addmm(b, x, shapes.t(w))
    np.testing.assert_array_equal(fast.numpy(force=True), general.numpy(force=True))
    assert _graph(fast) == _graph(general)
    assert w._version == 0 and fast._version == general._version
    g = cr.tensor(values("any", (4, 3), 9), dtype=getattr(cr, dt))
    inputs = [t for t in (x, w, b) if t.requires_grad]
    got = cr.autograd.grad(fast, inputs, g)
    want = cr.autograd.grad(general, inputs, g)
    for a, e in zip(got, want):
        np.testing.assert_array_equal(a.numpy(), e.numpy())

    def run(lib):
        x, w, b = _linear_inputs(lib, dt, grads)
        y = lib.nn.functional.linear(x, w, b)
        y.backward(lib.tensor(values("any", (4, 3), 9), dtype=getattr(lib, dt)))
        return y, x.grad, w.grad, b.grad

    compare(run)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
def test_linear_of_a_batch_of_sequences_is_the_general_path(transposed, dt):
    """A contiguous (B, T, F) input, the same fast path on its rows: values bit for bit, the
    graph (reshape, AddmmBackward0, view) and gradients against reshape + addmm(bias, rows,
    weight.t()) + view, and PyTorch. A transposed one (a view of a (T, B, F) input) is
    PyTorch's matmul then + bias (AddBackward0), as PyTorch computes it."""
    dtype = getattr(cr, dt)
    data = values("any", (3, 4, 6), 3)
    x = cr.tensor(data, dtype=dtype, requires_grad=True)
    x_in = x.transpose(0, 1) if transposed else x
    _, w, b = _linear_inputs(cr, dt)
    fast = cr.nn.functional.linear(x_in, w, b)
    if transposed:
        assert type(fast.grad_fn).__name__ == "AddBackward0"
    else:
        rows = shapes.reshape(x_in, (12, 6))
        general = shapes.view(
            products.addmm(b, rows, shapes.t(w)), shape=tuple(x_in.shape[:-1]) + (3,)
        )
        np.testing.assert_array_equal(fast.numpy(force=True), general.numpy(force=True))
        assert _graph(fast) == _graph(general)
        g = cr.tensor(values("any", tuple(fast.shape), 9), dtype=dtype)
        got = cr.autograd.grad(fast, (x, w, b), g)
        want = cr.autograd.grad(general, (x, w, b), g)
        for a, e in zip(got, want):
            np.testing.assert_array_equal(a.numpy(), e.numpy())

    def run(lib):
        x = lib.tensor(data, dtype=getattr(lib, dt), requires_grad=True)
        _, w, b = _linear_inputs(lib, dt)
        y = lib.nn.functional.linear(x.transpose(0, 1) if transposed else x, w, b)
        y.backward(lib.tensor(values("any", tuple(y.shape), 9), dtype=getattr(lib, dt)))
        return y, x.grad, w.grad, b.grad

    compare(run)


def test_linear_fast_path_second_order_and_forward_mode_match_torch():
    def run(lib):
        x, w, b = _linear_inputs(lib, "float64")
        y = lib.nn.functional.linear(x, w, b)
        (gw,) = lib.autograd.grad((y * y).sum(), w, create_graph=True)
        (hw,) = lib.autograd.grad(gw.pow(2).sum(), w)
        return gw, hw

    compare(run, rtol=1e-10, atol=1e-12)
    x, w, b = _linear_inputs(cr, "float64", (False, False, False))
    tw = cr.tensor(values("any", (3, 6), 5))
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(w, tw)
        tangent = forward_ad.unpack_dual(cr.nn.functional.linear(x, dual, b)).tangent
    np.testing.assert_allclose(tangent.numpy(), x.numpy() @ tw.numpy().T, rtol=1e-12)


def test_linear_fast_path_weight_written_after_the_forward_is_torchs_error():
    for lib in (torch, cr):
        x, w, b = _linear_inputs(lib, "float32")
        v = w * 1
        y = lib.nn.functional.linear(x, v, b)
        with lib.no_grad():
            v.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.nn.functional.linear(lib.ones(4, 5), lib.ones(3, 6), lib.ones(3)),
        lambda lib: lib.nn.functional.linear(lib.ones(4, 6), lib.ones(3, 6), lib.ones(4)),
        lambda lib: lib.nn.functional.linear(
            lib.ones(4, 6), lib.ones(3, 6, dtype=lib.float64), lib.ones(3)
        ),
        lambda lib: lib.nn.functional.linear(
            lib.ones(4, 6), lib.ones(3, 6), lib.ones(3, dtype=lib.float64)
        ),
    ],
)
def test_linear_shapes_and_dtypes_that_do_not_fit_raise_as_torch(case):
    assert_same_error(case)


def test_linear_bias_as_a_row_and_an_overflow_follow_torch():
    def run(lib):
        x = lib.full((2, 3), 1e38)
        w = lib.ones(2, 3, requires_grad=True)
        b = lib.ones(1, 2, requires_grad=True)  # not a vector: the general path
        y = lib.nn.functional.linear(x, w, lib.ones(2) * 3e38)  # the sum overflows, silently
        z = lib.nn.functional.linear(x[:, :1] * 0, w[:, :1], b)
        return y, z

    compare(run)


# ----- F.cross_entropy ----------------------------------------------------------------------


def _ce_inputs(lib, dt, n=6, c=5, seed=3, ignore=False):
    z = lib.tensor(values("any", (n, c), seed), dtype=getattr(lib, dt), requires_grad=True)
    t = np.random.default_rng(seed).integers(0, c, n)
    if ignore:
        t[1] = 2
    return z, lib.tensor(t)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 2, 7])
def test_cross_entropy_fast_path_is_the_general_path(reduction, ignore_index, dt):
    """Against the parser's general path (a weight of ones takes it) bit for bit, and
    against PyTorch: values, graph names and gradients; ignore_index within the targets'
    range takes nll_loss's general branch."""
    z, t = _ce_inputs(cr, dt, ignore=ignore_index == 2)
    F = cr.nn.functional
    kw = {"reduction": reduction, "ignore_index": ignore_index}
    fast = F.cross_entropy(z, t, **kw)
    general = F.cross_entropy(z, t, weight=cr.ones(5, dtype=z.dtype), **kw)
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    assert [n for n, _ in _graph(fast)] == ["NllLossBackward0", "LogSoftmaxBackward0"]
    g = cr.ones_like(fast) * 0.5
    (a,) = cr.autograd.grad(fast, z, g)
    (e,) = cr.autograd.grad(general, z, g)
    np.testing.assert_array_equal(a.numpy(), e.numpy())

    def run(lib):
        z, t = _ce_inputs(lib, dt, ignore=ignore_index == 2)
        loss = lib.nn.functional.cross_entropy(z, t, **kw)
        loss.backward(lib.ones_like(loss) * 0.5)
        return loss, z.grad

    compare(run)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "kw",
    [
        {},  # the fast path: every target a class
        {"weight": [1.0, 1.0, 0.0]},  # the general path; a zero weight: 0 · inf = nan there
        {"ignore_index": 0},  # the general path; an ignored sample's row stays 0
    ],
)
def test_nll_loss_gradient_is_zero_off_the_targets_as_torch(reduction, kw):
    """PyTorch's kernel writes -w[t]·g at each target class and leaves 0 elsewhere, even for
    an infinite or negative output gradient (not 0·g: nan, or -0)."""

    def run(lib):
        z = lib.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]], requires_grad=True)
        extra = {k: lib.tensor(v) if k == "weight" else v for k, v in kw.items()}
        loss = lib.nn.functional.nll_loss(z, lib.tensor([2, 0]), reduction=reduction, **extra)
        g = lib.full_like(loss, float("inf"))
        (inf,) = lib.autograd.grad(loss, z, g, retain_graph=True)
        (neg,) = lib.autograd.grad(loss, z, -2 * lib.ones_like(loss))
        return inf, neg, lib.signbit(neg)

    compare(run, exact=True)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("g0", [0.5, -2.0, float("inf")])
def test_nll_loss_vjp_recorded_fast_path_is_the_general_path(g0, reduction, dt):
    """create_graph=True on a batch without weights: the coefficients' mask read off them
    gives the general path's bits (a weight of ones takes it), its nodes and its gradient in
    the output gradient; 0 off the targets for an infinite or negative g, as PyTorch."""
    z, t = _ce_inputs(cr, dt)
    g = cr.tensor(g0, dtype=z.dtype, requires_grad=True)
    outs = []
    for weight in (None, cr.ones(5, dtype=z.dtype)):
        loss = cr.nn.functional.nll_loss(z, t, weight=weight, reduction=reduction)
        (gz,) = cr.autograd.grad(loss, z, g, create_graph=True)
        (gg,) = cr.autograd.grad((gz * gz.detach()).sum(), g)
        outs.append((gz.detach().numpy(), gz.grad_fn.name(), gg.numpy()))
    (a, a_name, a_gg), (e, e_name, e_gg) = outs
    np.testing.assert_array_equal(a, e)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(e))
    assert a_name == e_name
    np.testing.assert_array_equal(a_gg, e_gg)

    def run(lib):
        z, t = _ce_inputs(lib, dt)
        g = lib.tensor(g0, dtype=z.dtype, requires_grad=True)
        loss = lib.nn.functional.nll_loss(z, t, reduction=reduction)
        (gz,) = lib.autograd.grad(loss, z, g, create_graph=True)
        return gz, lib.signbit(gz)

    compare(run, exact=True)


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.nn.functional.cross_entropy(lib.ones(3, 4), lib.tensor([0, 4, 1])),
        lambda lib: lib.nn.functional.cross_entropy(lib.ones(3, 4), lib.tensor([0, -1, 1])),
        lambda lib: lib.nn.functional.cross_entropy(lib.ones(3, 4), lib.tensor([0, 1])),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(3, 4), lib.tensor([0, 1, 1]), None, None, -100, None, "avg"
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(3, 4, dtype=lib.int64), lib.tensor([0, 1, 1])
        ),
    ],
)
def test_cross_entropy_bad_targets_and_arguments_raise_as_torch(case):
    assert_same_error(case)


def test_cross_entropy_of_every_target_ignored_is_nan_as_torch():
    def run(lib):
        z = lib.tensor(values("any", (3, 4), 4), requires_grad=True)
        loss = lib.nn.functional.cross_entropy(z, lib.tensor([1, 1, 1]), ignore_index=1)
        loss.backward()
        return loss, z.grad

    compare(run)


@pytest.mark.parametrize("dt", DTYPES)
def test_log_softmax_vjp_on_arrays_gives_the_tensor_paths_bits(dt):
    """Backward (arrays: e^y written into) against create_graph=True (the ops as written)."""
    z = cr.tensor(values("any", (5, 7), 6), dtype=getattr(cr, dt), requires_grad=True)
    g = cr.tensor(values("any", (5, 7), 7), dtype=getattr(cr, dt))
    for dim in (0, 1):
        y = cr.nn.functional.log_softmax(z, dim)
        (fast,) = cr.autograd.grad(y, z, g, retain_graph=True)
        (plain,) = cr.autograd.grad(y, z, g, create_graph=True)
        np.testing.assert_array_equal(fast.numpy(), plain.detach().numpy())


@pytest.mark.parametrize("dt", DTYPES)
def test_log_softmax_vjp_recorded_is_one_node_with_the_composite_bits(dt):
    """create_graph=True: one LogSoftmaxBackwardDataBackward0 node (PyTorch's), its value
    the bits of the composite g - e^y Σ_dim g written with exp, sum, mul and sub."""
    z = cr.tensor(values("any", (5, 7), 6), dtype=getattr(cr, dt), requires_grad=True)
    g = cr.tensor(values("any", (5, 7), 7), dtype=getattr(cr, dt), requires_grad=True)
    for dim in (0, 1, -1):
        y = cr.nn.functional.log_softmax(z, dim)
        (got,) = cr.autograd.grad(y, z, g, create_graph=True)
        assert got.grad_fn.name() == "LogSoftmaxBackwardDataBackward0"
        y = y.detach()
        composite = g - y.exp() * g.sum(dim, keepdim=True)
        np.testing.assert_array_equal(got.detach().numpy(), composite.detach().numpy())


@pytest.mark.parametrize("dt", DTYPES)
def test_log_softmax_backward_vjps_on_arrays_give_the_tensor_paths_bits(dt):
    """The VJPs of LogSoftmaxBackwardDataBackward0 (in the output gradient and in the output)
    on arrays against create_graph=True (the ops as written)."""
    z = cr.tensor(values("any", (5, 7), 6), dtype=getattr(cr, dt), requires_grad=True)
    g = cr.tensor(values("any", (5, 7), 7), dtype=getattr(cr, dt), requires_grad=True)
    w = cr.tensor(values("any", (5, 7), 8), dtype=getattr(cr, dt))
    for dim in (0, 1):
        (gz,) = cr.autograd.grad(cr.nn.functional.log_softmax(z, dim), z, g, create_graph=True)
        fast = cr.autograd.grad(gz, (z, g), w, retain_graph=True)
        plain = cr.autograd.grad(gz, (z, g), w, create_graph=True)
        for a, b in zip(fast, plain):
            np.testing.assert_array_equal(a.numpy(), b.detach().numpy())


def _log_softmax_orders(lib, dim):
    """Gradients of log_softmax's VJP in the output gradient and, through the output, in
    the input: second order, and third through a second create_graph."""
    r = np.random.default_rng(12)
    z = lib.tensor(r.standard_normal((4, 5)), requires_grad=True)
    g = lib.tensor(r.standard_normal((4, 5)), requires_grad=True)
    w = lib.tensor(r.standard_normal((4, 5)))
    y = lib.nn.functional.log_softmax(z, dim)
    (gz,) = lib.autograd.grad(y, z, g, create_graph=True)
    second = lib.autograd.grad((gz * w).sum(), (z, g), create_graph=True)
    third = lib.autograd.grad((second[0] * second[0]).sum(), (z, g))
    return gz.grad_fn.name(), gz, second, third


@pytest.mark.parametrize("dim", [0, 1])
def test_log_softmax_vjp_second_and_third_order_match_torch(dim):
    compare(lambda lib: _log_softmax_orders(lib, dim), rtol=1e-10, atol=1e-12)


def test_log_softmax_backward_op_gradchecks_and_its_tangents_match_torch():
    """The op's own VJPs (in grad and in output) against finite differences, first and second
    order; its JVPs against PyTorch's forward mode over the same VJP."""
    from chainrule.ops.normalizations import log_softmax_backward_data

    r = np.random.default_rng(13)
    grad = cr.tensor(r.standard_normal((3, 4)), requires_grad=True)
    out = cr.tensor(r.standard_normal((3, 4)), requires_grad=True)
    for dim in (0, 1):
        fn = lambda a, b, dim=dim: log_softmax_backward_data(a, b, dim=dim)  # noqa: E731
        assert cr.autograd.gradcheck(fn, (grad, out))
        assert cr.autograd.gradgradcheck(fn, (grad, out))

    def run(lib):
        r = np.random.default_rng(14)
        z = lib.tensor(r.standard_normal((3, 4)), requires_grad=True)
        g = lib.tensor(r.standard_normal((3, 4)))
        with lib.autograd.forward_ad.dual_level():
            zd = lib.autograd.forward_ad.make_dual(z.detach(), lib.ones_like(z))
            gd = lib.autograd.forward_ad.make_dual(g, lib.full_like(g, 0.5))
            y = lib.nn.functional.log_softmax(zd.requires_grad_(), 1)
            (gz,) = lib.autograd.grad(y, zd, gd, create_graph=True)
            return gz, lib.autograd.forward_ad.unpack_dual(gz).tangent

    compare(run, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dt", DTYPES)
def test_relu_vjp_on_arrays_gives_the_tensor_paths_bits(dt):
    """The caller's gradient (shared: masked into a new array) and a gradient relu's VJP
    alone holds (mul's: masked in place), against create_graph=True's ops; nan and inf in
    the gradient, nan and zeros in the input."""
    x_np = values("any", (4, 6), 8)
    x_np[0, :3] = [np.nan, 0.0, -0.0]
    x = cr.tensor(x_np, dtype=getattr(cr, dt), requires_grad=True)
    g_np = values("any", (4, 6), 9)
    g_np[0, 3:5] = [np.inf, np.nan]
    g = cr.tensor(g_np, dtype=getattr(cr, dt))
    kept = g.clone()
    for y in (cr.relu(x), cr.relu(x) * 3.0):
        (fast,) = cr.autograd.grad(y, x, g, retain_graph=True)
        (plain,) = cr.autograd.grad(y, x, g, create_graph=True)
        np.testing.assert_array_equal(fast.numpy(), plain.detach().numpy())
        np.testing.assert_array_equal(g.numpy(), kept.numpy())
    assert plain.grad_fn.name() == "ThresholdBackwardBackward0"


def test_relu_vjp_of_a_0d_private_gradient_matches_torch():
    def run(lib):
        x = lib.tensor(1.5, requires_grad=True)
        (lib.relu(x) * 2.0).abs().backward()
        return x.grad

    compare(run)


@pytest.mark.parametrize("dt", DTYPES)
def test_addmm_vjps_on_arrays_give_the_tensor_paths_bits(dt):
    """The weight's product transposed (arrays) and as written (tensors): the same bits."""
    x, w, b = _linear_inputs(cr, dt)
    y = cr.nn.functional.linear(x, w, b)
    g = cr.tensor(values("any", (4, 3), 9), dtype=getattr(cr, dt))
    fast = cr.autograd.grad(y, (x, w, b), g, retain_graph=True)
    plain = cr.autograd.grad(y, (x, w, b), g, create_graph=True)
    for f, p in zip(fast, plain):
        np.testing.assert_array_equal(f.numpy(), p.detach().numpy())
    assert w.grad is None
    y.backward(g)
    assert w.grad.is_contiguous() and not w.grad.numpy().flags.owndata  # kept, not copied


# ----- optim.SGD's plain step ---------------------------------------------------------------


def _sgd_run(lib, steps=3):
    x, w, b = _linear_inputs(lib, "float32", (False, True, True))
    spare = lib.zeros(2, requires_grad=True)  # never gets a gradient: left alone
    opt = lib.optim.SGD([w, b, spare], lr=0.1)
    versions = []
    for _ in range(steps):
        opt.zero_grad()
        lib.nn.functional.linear(x, w, b).pow(2).sum().backward()
        opt.step()
        versions.append((w._version, b._version, spare._version))
    return w, b, spare, versions


def test_sgd_plain_step_matches_the_update_and_torch():
    """Momentum 0, no weight decay, no maximize: p + (-lr) g on each parameter's array (the
    general loop's add_scaled_, bit for bit), one version bump per step on the parameters
    that have a gradient, and PyTorch's trajectory."""
    x, w, b = _linear_inputs(cr, "float32", (False, True, True))
    cr.nn.functional.linear(x, w, b).pow(2).sum().backward()
    want = [p.detach().numpy() + (-0.1) * p.grad.numpy() for p in (w, b)]
    cr.optim.SGD([w, b], lr=0.1).step()
    for p, e in zip((w, b), want):
        np.testing.assert_array_equal(p.detach().numpy(), e)
    compare(lambda lib: _sgd_run(lib)[:3])
    got, expected = _sgd_run(cr)[3], _sgd_run(torch)[3]
    assert got == expected == [(1, 1, 0), (2, 2, 0), (3, 3, 0)]


def _bundled_openblas() -> bool:
    """Whether NumPy runs the OpenBLAS its wheels bundle (scipy_openblas), whose axpy
    ``_backend.axpy`` calls: then the fused path must be taken."""
    from threadpoolctl import threadpool_info

    return any(
        "scipy_openblas" in (info.get("prefix") or "") + (info.get("filepath") or "")
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_axpy_is_pytorchs_fused_add(dtype):
    """``_backend.axpy``: y + alpha·x with the multiply-add fused, PyTorch's
    ``add_(x, alpha=...)`` bit for bit (NumPy's y += alpha * x differs in some elements);
    where it does not apply (small, strided, another dtype, overlapping) nothing is done."""
    from chainrule import _backend

    rng = np.random.default_rng(40)
    n = _backend.AXPY_FROM
    y = rng.standard_normal(n).astype(dtype)
    x = rng.standard_normal(n).astype(dtype)
    want = torch.from_numpy(y.copy()).add_(torch.from_numpy(x), alpha=-0.37).numpy()
    unfused = y + dtype(-0.37) * x
    assert _bundled_openblas()  # (CI's NumPy wheels: the fused path is exercised)
    assert _backend.axpy(y, x, -0.37)
    np.testing.assert_array_equal(y, want)
    assert not np.array_equal(unfused, want)  # (the fused path is the one that gives these)
    for a, b in (
        (y[: n - 1], x[: n - 1]),  # small
        (y[::2], x[::2]),  # strided
        (y, x.astype(np.float16)),  # another dtype
        (y[1:], y[:-1]),  # overlapping
    ):
        before = a.copy()
        assert not _backend.axpy(a, b, 2.0)
        np.testing.assert_array_equal(a, before)


def test_sgd_on_a_large_parameter_is_pytorchs_bit_for_bit():
    """A parameter of AXPY_FROM elements or more updates by axpy: for the same gradients,
    PyTorch's SGD steps bit for bit, plain and with momentum (its buffer's update fused
    too)."""
    from chainrule import _backend

    rng = np.random.default_rng(41)
    w0 = rng.standard_normal((64, _backend.AXPY_FROM // 64)).astype(np.float32)
    grads = [rng.standard_normal(w0.shape).astype(np.float32) for _ in range(3)]

    def run(lib, **kwargs):
        w = lib.nn.Parameter(lib.from_numpy(w0.copy()))
        opt = lib.optim.SGD([w], lr=0.05, **kwargs)
        for g in grads:
            w.grad = lib.from_numpy(g.copy())
            opt.step()
        return w.detach().numpy()

    for kwargs in ({}, {"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}):
        np.testing.assert_array_equal(run(cr, **kwargs), run(torch, **kwargs))
