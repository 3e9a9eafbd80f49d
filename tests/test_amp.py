"""torch.amp: autocast's casts (output and gradient dtypes and values) and GradScaler's
trajectories, state and errors, against PyTorch."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import _modes
from chainrule.amp import policy
from chainrule.autograd import recording
from oracle import assert_same_error, compare, error_of, randn

HALF = (1e-2, 1e-2)  # float16 results: numpy and PyTorch round at different places


def leaves(lib, *arrays, dtype="float32"):
    """Leaf tensors of ``lib`` that require grad, from NumPy arrays, in ``dtype``."""
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def run_with_grads(lib, fn, arrays, dtype="float32"):
    """``fn`` inside a float16 CPU autocast on leaves made of ``arrays``, then backward
    outside: (output, each leaf's gradient)."""
    xs = leaves(lib, *arrays, dtype=dtype)
    with lib.autocast("cpu", dtype=lib.float16):
        out = fn(lib, *xs)
    out.float().sum().backward()
    return out, [x.grad for x in xs]


# ----- lower precision: float16 outputs, float32 gradients -----------------------------

LOWER = {
    "mm": (lambda lib, a, b: lib.mm(a, b), [(3, 4), (4, 5)]),
    "matmul": (lambda lib, a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "bmm": (lambda lib, a, b: lib.bmm(a, b), [(2, 3, 4), (2, 4, 2)]),
    "baddbmm": (lambda lib, c, a, b: lib.baddbmm(c, a, b), [(2, 3, 2), (2, 3, 4), (2, 4, 2)]),
    "addmm": (lambda lib, c, a, b: lib.addmm(c, a, b), [(3, 2), (3, 4), (4, 2)]),
    "addbmm": (lambda lib, c, a, b: lib.addbmm(c, a, b), [(3, 2), (2, 3, 4), (2, 4, 2)]),
    "linear": (lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [(3, 4), (5, 4), (5,)]),
    "linear_3d": (
        lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
        [(2, 3, 4), (5, 4), (5,)],
    ),
    "linear_nobias": (lambda lib, x, w: lib.nn.functional.linear(x, w), [(3, 4), (5, 4)]),
    "conv1d": (lambda lib, x, w: lib.nn.functional.conv1d(x, w), [(1, 2, 6), (3, 2, 3)]),
    "conv2d": (
        lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, padding=1),
        [(1, 2, 4, 4), (3, 2, 3, 3), (3,)],
    ),
    "conv_transpose2d": (
        lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, stride=2),
        [(1, 2, 3, 3), (2, 1, 2, 2)],
    ),
    "prelu": (lambda lib, x, w: lib.nn.functional.prelu(x, w), [(2, 3), (1,)]),
    "sdpa": (
        lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v),
        [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)],
    ),
}


@pytest.mark.parametrize("name", sorted(LOWER))
def test_lower_precision_ops_run_in_float16_and_grads_return_in_float32(name):
    fn, shapes = LOWER[name]
    arrays = [randn(s, seed=i) for i, s in enumerate(shapes)]
    got = run_with_grads(cr, fn, arrays)
    want = run_with_grads(torch, fn, arrays)
    assert str(got[0].dtype) == "torch.float16" == str(want[0].dtype)
    assert [str(g.dtype) for g in got[1]] == ["torch.float32"] * len(arrays)
    compare(lambda lib: got if lib is cr else want, *HALF)


def test_the_casts_are_recorded_as_pytorch_records_them():
    """mm's inputs come from ToCopyBackward0 nodes, whose gradients are cast back."""

    def graph(lib):
        x, w = leaves(lib, randn((2, 3)), randn((3, 2), seed=1))
        with lib.autocast("cpu", dtype=lib.float16):
            y = x @ w
        return y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions]

    assert graph(cr) == graph(torch) == ("MmBackward0", ["ToCopyBackward0"] * 2)


def test_float64_inputs_are_not_cast():
    compare(
        lambda lib: run_with_grads(lib, LOWER["mm"][0], [randn((2, 3)), randn((3, 2))], "float64"),
        1e-12,
        1e-12,
    )


# ----- float32 list: float16 inputs give float32 outputs, float16 gradients ------------


def _targets(lib):
    return lib.tensor([0, 2, 1])


FLOAT32 = {
    "mse_loss": (lambda lib, a, b: lib.nn.functional.mse_loss(a, b), [(3, 4), (3, 4)]),
    "huber_loss": (lambda lib, a, b: lib.nn.functional.huber_loss(a, b), [(3, 4), (3, 4)]),
    "smooth_l1_loss": (lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b), [(5,), (5,)]),
    "nll_loss": (lambda lib, x: lib.nn.functional.nll_loss(x, _targets(lib)), [(3, 4)]),
    "bce_with_logits": (
        lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(x, x.detach().sigmoid()),
        [(3, 2)],
    ),
    "bce": (
        lambda lib, x: lib.nn.functional.binary_cross_entropy(x.sigmoid(), lib.ones(3, 2) / 2),
        [(3, 2)],
    ),
    "soft_margin_loss": (
        lambda lib, x: lib.nn.functional.soft_margin_loss(x, lib.ones(3, 2)),
        [(3, 2)],
    ),
    "multi_margin_loss": (
        lambda lib, x: lib.nn.functional.multi_margin_loss(x, _targets(lib)),
        [(3, 4)],
    ),
    "prod": (lambda lib, x: x.prod(), [(4,)]),
    "trace": (lambda lib, x: lib.trace(x), [(3, 3)]),
    "avg_pool3d": (lambda lib, x: lib.nn.functional.avg_pool3d(x, 2), [(1, 1, 4, 4, 4)]),
    "max_pool3d": (lambda lib, x: lib.nn.functional.max_pool3d(x, 2), [(1, 1, 4, 4, 4)]),
    "adaptive_avg_pool3d": (
        lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x, 2),
        [(1, 1, 4, 4, 4)],
    ),
    "reflect_pad1d": (
        lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="reflect"),
        [(1, 2, 4)],
    ),
    "replicate_pad2d": (
        lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1, 1), mode="replicate"),
        [(1, 1, 3, 3)],
    ),
    "grid_sample": (
        lambda lib, x, g: lib.nn.functional.grid_sample(x, g.tanh(), align_corners=False),
        [(1, 1, 4, 4), (1, 2, 2, 2)],
    ),
    "qr": (lambda lib, a: lib.linalg.qr(a + 3 * lib.eye(3))[1], [(3, 3)]),
    "eigvalsh": (lambda lib, a: lib.linalg.eigvalsh(a @ a.mT + lib.eye(3)), [(3, 3)]),
    "solve": (lambda lib, a, b: lib.linalg.solve(a + 4 * lib.eye(3), b), [(3, 3), (3,)]),
}


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_list_casts_half_inputs_to_float32(name):
    fn, shapes = FLOAT32[name]
    arrays = [randn(s, seed=i) * 0.5 for i, s in enumerate(shapes)]
    got = run_with_grads(cr, fn, arrays, dtype="float16")
    want = run_with_grads(torch, fn, arrays, dtype="float16")
    assert str(got[0].dtype) == "torch.float32" == str(want[0].dtype)
    assert [str(g.dtype) for g in got[1]] == ["torch.float16"] * len(arrays)
    compare(lambda lib: got if lib is cr else want, *HALF)


UNLISTED = {
    "softmax": lambda lib, x: lib.softmax(x, -1),
    "relu": lambda lib, x: lib.relu(x),
    "avg_pool2d": lambda lib, x: lib.nn.functional.avg_pool2d(x, 2),
    "reflect_pad3d": lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"),
    "exp": lambda lib, x: x.exp(),
    "sum": lambda lib, x: x.sum(),
}


@pytest.mark.parametrize("name", sorted(UNLISTED))
def test_unlisted_ops_keep_their_input_dtype(name):
    fn = UNLISTED[name]
    shape = (1, 2, 4, 4, 4) if name == "reflect_pad3d" else (2, 4, 4)
    arrays = [randn(shape, seed=3) * 0.5]
    got = run_with_grads(cr, fn, arrays, dtype="float16")
    want = run_with_grads(torch, fn, arrays, dtype="float16")
    assert str(got[0].dtype) == "torch.float16" == str(want[0].dtype)
    compare(lambda lib: got if lib is cr else want, *HALF)


def test_promotion_of_mixed_inputs_follows_type_promotion():
    def f(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float16)
        b = lib.tensor([0.5, 0.25])
        with lib.autocast("cpu", dtype=lib.float16):
            return a + b, lib.cat([a, b]), lib.stack([a, b]), lib.addcmul(a, a, b)

    compare(f, *HALF)


def test_runs_in_float32_casts_a_composite_as_a_whole():
    """The helper for a public function PyTorch's float32 list names as a whole (l1_loss)."""

    @policy.runs_in_float32
    def l1(input, target):
        return (input - target).abs().mean()

    def f(lib, impl):
        x, y = leaves(lib, randn((3,)), randn((3,), seed=1), dtype="float16")
        with lib.autocast("cpu", dtype=lib.float16):
            out = impl(x, y)
        out.backward()
        return out, x.grad, y.grad

    got = f(cr, l1)
    want = f(torch, torch.nn.functional.l1_loss)
    assert str(got[0].dtype) == "torch.float32"
    compare(lambda lib: got if lib is cr else want, *HALF)
    assert l1(cr.ones(2, dtype=cr.float16), cr.zeros(2, dtype=cr.float16)).dtype == cr.float16


# ----- the region: state, nesting, decorators, errors ----------------------------------


def test_state_inside_nested_and_disabled_regions():
    def f(lib):
        x, w = lib.ones(2, 3), lib.ones(3, 2)
        seen = [lib.is_autocast_enabled("cpu")]
        with lib.autocast("cpu", dtype=lib.float16):
            seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"), (x @ w).dtype]
            with lib.autocast("cpu", enabled=False):
                seen += [lib.is_autocast_enabled("cpu"), (x @ w).dtype]
                with lib.amp.autocast("cpu", dtype=lib.float16):
                    seen += [lib.is_autocast_enabled("cpu"), (x @ w).dtype]
            seen += [lib.is_autocast_enabled("cpu"), (x @ w).dtype, lib.is_autocast_enabled()]
        seen += [lib.is_autocast_enabled("cpu"), (x @ w).dtype]
        return [str(s) for s in seen]

    got, want = f(cr), f(torch)
    assert got == want
    assert _modes.usual[0] and recording.AUTOCAST[0] is None  # off again: the hot paths


def test_autocast_as_a_decorator_and_an_exception_inside():
    def f(lib):
        @lib.autocast("cpu", dtype=lib.float16)
        def mm(a, b):
            return a @ b

        out = str(mm(lib.ones(2, 2), lib.ones(2, 2)).dtype)
        try:
            with lib.autocast("cpu", dtype=lib.float16):
                raise KeyError("inside")
        except KeyError:
            pass
        return out, lib.is_autocast_enabled("cpu")

    assert f(cr) == f(torch) == ("torch.float16", False)


# ----- bfloat16, the CPU's default autocast dtype ------------------------------------------

BF16 = (1.6e-2, 1e-2)  # bfloat16 results: PyTorch's kernels round some intermediates too


def widened(value):
    """``value`` with each bfloat16 tensor as (its dtype's name, its float32 values): NumPy
    has no bfloat16, so the oracle compares the float32 copies."""
    if isinstance(value, (cr.Tensor, torch.Tensor)) and str(value.dtype) == "torch.bfloat16":
        return "bfloat16", value.float()
    if isinstance(value, (list, tuple)):
        return type(value)(widened(v) for v in value)
    return value


def compare_bf16(fn, rtol=BF16[0], atol=BF16[1]):
    """``compare`` for results holding bfloat16 tensors: dtypes equal, values within tol."""
    compare(lambda lib: widened(fn(lib)), rtol, atol)


def run_in_default_autocast(lib, fn, arrays, dtype="float32"):
    """``fn`` inside ``autocast("cpu")`` (PyTorch's default dtype, bfloat16) on leaves made
    of ``arrays``, backward outside: (output, each leaf's gradient)."""
    xs = leaves(lib, *arrays, dtype=dtype)
    with lib.autocast("cpu"):
        out = fn(lib, *xs)
    out.float().sum().backward()
    return out, [x.grad for x in xs]


def test_bfloat16_is_the_cpu_default_as_torch():
    """Every spelling of the CPU autocast starts in bfloat16; the state queries say so."""

    def f(lib):
        x, w = lib.ones(2, 3), lib.ones(3, 2)
        seen = [lib.get_autocast_dtype("cpu"), lib.get_autocast_dtype("cuda")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            for make in (
                lambda: lib.autocast("cpu"),
                lambda: lib.autocast("cpu", dtype=None),
                lambda: lib.autocast("cpu", dtype=lib.bfloat16),
                lambda: lib.amp.autocast("cpu"),
                lambda: lib.cpu.amp.autocast(),
                lambda: lib.cpu.amp.autocast(dtype=lib.bfloat16),
            ):
                with make():
                    seen += [lib.get_autocast_dtype("cpu"), (x @ w).dtype]
                    with lib.autocast("cpu", dtype=lib.float16):
                        with lib.autocast("cpu"):  # (no dtype: the region's own)
                            seen += [lib.get_autocast_dtype("cpu"), (x @ w).dtype]
                seen += [lib.get_autocast_dtype("cpu"), lib.is_autocast_enabled("cpu")]
        return [str(s) for s in seen]

    assert f(cr) == f(torch)
    assert _modes.usual[0] and recording.AUTOCAST[0] is None


LOWER_BF16 = {
    **LOWER,
    "conv3d": (
        lambda lib, x, w: lib.nn.functional.conv3d(x, w),
        [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)],
    ),
}


@pytest.mark.parametrize("name", sorted(LOWER_BF16))
def test_lower_precision_ops_run_in_bfloat16_and_grads_return_in_float32(name):
    fn, shapes = LOWER_BF16[name]
    arrays = [randn(s, seed=i) for i, s in enumerate(shapes)]
    got = run_in_default_autocast(cr, fn, arrays)
    want = run_in_default_autocast(torch, fn, arrays)
    assert str(got[0].dtype) == "torch.bfloat16" == str(want[0].dtype)
    assert [str(g.dtype) for g in got[1]] == ["torch.float32"] * len(arrays)
    compare_bf16(lambda lib: got if lib is cr else want)


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_list_casts_bfloat16_inputs_to_float32(name):
    fn, shapes = FLOAT32[name]
    arrays = [randn(s, seed=i) * 0.5 for i, s in enumerate(shapes)]
    got = run_in_default_autocast(cr, fn, arrays, dtype="bfloat16")
    want = run_in_default_autocast(torch, fn, arrays, dtype="bfloat16")
    assert str(got[0].dtype) == "torch.float32" == str(want[0].dtype)
    assert [str(g.dtype) for g in got[1]] == ["torch.bfloat16"] * len(arrays)
    compare_bf16(lambda lib: got if lib is cr else want)


UNLISTED_BF16 = {
    **UNLISTED,
    "log_softmax": lambda lib, x: lib.log_softmax(x, -1),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
}


@pytest.mark.parametrize("name", sorted(UNLISTED_BF16))
def test_unlisted_ops_keep_bfloat16_inputs_in_bfloat16(name):
    fn = UNLISTED_BF16[name]
    shape = (1, 2, 4, 4, 4) if name == "reflect_pad3d" else (2, 4, 4)
    arrays = [randn(shape, seed=3) * 0.5]
    got = run_in_default_autocast(cr, fn, arrays, dtype="bfloat16")
    want = run_in_default_autocast(torch, fn, arrays, dtype="bfloat16")
    assert str(got[0].dtype) == "torch.bfloat16" == str(want[0].dtype)
    compare_bf16(lambda lib: got if lib is cr else want)


@pytest.mark.parametrize("name", ["cross_entropy", "l1_loss", "kl_div", "cdist"])
def test_float32_list_composites_run_in_float32_from_bfloat16(name):
    def run(lib):
        x = lib.tensor(np.linspace(-1, 1, 20).reshape(4, 5)).bfloat16().requires_grad_()
        y = lib.tensor(np.linspace(0.1, 0.9, 20).reshape(4, 5)).bfloat16()
        with lib.autocast("cpu"):
            out = COMPOSITES[name](lib, x, y)
        (g,) = lib.autograd.grad(out.sum(), x)
        return out, g

    compare_bf16(run)


def test_a_float32_model_step_in_bfloat16_autocast():
    """A float32 MLP (and an LSTM, whose layer PyTorch's list casts) under autocast: the
    activations in bfloat16, the loss in float32, the gradients and the SGD step in float32."""

    def f(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
        lstm = lib.nn.LSTM(3, 3)
        with lib.no_grad():
            for i, p in enumerate([*net.parameters(), *lstm.parameters()]):
                p.copy_(lib.tensor(randn(tuple(p.shape), seed=i) * 0.5))
        opt = lib.optim.SGD([*net.parameters(), *lstm.parameters()], lr=0.1)
        x = lib.tensor(randn((5, 4), seed=9), dtype=lib.float32)
        target = lib.tensor([0, 2, 1, 1, 0])
        with lib.autocast("cpu"):
            h = net(x)
            seq, _ = lstm(h.unsqueeze(1))
            loss = lib.nn.functional.cross_entropy(seq.squeeze(1), target)
        loss.backward()
        grads = [p.grad for p in net.parameters()]
        opt.step()
        return h, seq, loss, grads, list(net.parameters())

    compare_bf16(f)


def test_bfloat16_autocast_without_ml_dtypes_is_a_clear_error():
    """Without the optional package ml_dtypes, entering a bfloat16 CPU autocast raises the
    NotImplementedInChainrule of ``_dtypes._load_bfloat16`` (an AttributeError and a
    NotImplementedError both); float16 autocast and the state queries work as before."""
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['ml_dtypes'] = None\n"
        "import chainrule as torch\n"
        "from chainrule._missing import NotImplementedInChainrule\n"
        "print(torch.get_autocast_dtype('cpu'))\n"
        "for make in (lambda: torch.autocast('cpu'), lambda: torch.cpu.amp.autocast()):\n"
        "    try:\n"
        "        make()\n"
        "    except NotImplementedInChainrule as e:\n"
        "        print(isinstance(e, AttributeError), isinstance(e, NotImplementedError), e)\n"
        "with torch.autocast('cpu', enabled=False):\n"
        "    print(torch.is_autocast_enabled('cpu'))\n"
        "with torch.autocast('cpu', dtype=torch.float16):\n"
        "    print((torch.ones(2, 2) @ torch.ones(2, 2)).dtype)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == "torch.bfloat16"
    for line in lines[1:3]:
        assert line.startswith("True True ") and "ml_dtypes" in line
    assert lines[3:] == ["False", "torch.float16"]


def warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category.__name__, str(w.message)) for w in caught]


def test_warnings_unsupported_dtype_cuda_and_deprecated_aliases():
    def f(lib):
        x = lib.ones(2, 2)
        results = []

        def region(make):
            with make():
                return str((x @ x).dtype), lib.is_autocast_enabled("cpu")

        results.append(warnings_of(lambda: region(lambda: lib.autocast("cpu", lib.float64))))
        results.append(warnings_of(lambda: region(lambda: lib.autocast("cuda"))))
        results.append(warnings_of(lambda: region(lambda: lib.cpu.amp.autocast(dtype=lib.float16))))
        results.append(warnings_of(lambda: region(lambda: lib.cuda.amp.autocast())))
        results.append(warnings_of(lambda: lib.cuda.amp.GradScaler().is_enabled()))
        results.append(warnings_of(lambda: lib.cpu.amp.GradScaler().is_enabled()))
        results.append(warnings_of(lambda: lib.amp.GradScaler().is_enabled()))
        return results

    assert f(cr) == f(torch)


def test_errors_of_the_region():
    assert_same_error(lambda lib: lib.autocast(0))
    assert_same_error(lambda lib: lib.autocast("xyz"))
    assert_same_error(lambda lib: lib.autocast("meta", dtype=lib.float16))
    assert_same_error(lambda lib: lib.is_autocast_enabled("xyz"))
    assert_same_error(lambda lib: lib.autocast("cpu", dtype=lib.float16)(3))
    assert_same_error(lambda lib: lib.amp.custom_fwd(device_type=1))


def test_custom_fwd_casts_inputs_and_custom_bwd_restores_the_state():
    def f(lib):
        seen = []

        class Square(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
            def forward(ctx, x):
                seen.append((str(x.dtype), lib.is_autocast_enabled("cpu")))
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                seen.append(lib.is_autocast_enabled("cpu"))
                (x,) = ctx.saved_tensors
                return 2 * x * g

        class Plain(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu")
            def forward(ctx, a, b):
                seen.append(lib.is_autocast_enabled("cpu"))
                return a @ b

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                seen.append((str(g.dtype), lib.is_autocast_enabled("cpu")))
                return g, g

        (x,) = leaves(lib, randn((3,)), dtype="float16")
        a, b = leaves(lib, np.eye(2), np.eye(2))
        with lib.autocast("cpu", dtype=lib.float16):
            y = Square.apply(x)
            z = Plain.apply(a, b)
        y.sum().backward()
        z.float().sum().backward()
        return y, x.grad, z, seen

    got, want = f(cr), f(torch)
    assert got[3] == want[3]
    compare(lambda lib: got[:3] if lib is cr else want[:3], *HALF)


def test_double_backward_inside_autocast():
    def f(lib):
        (x,) = leaves(lib, randn((2, 2)))
        with lib.autocast("cpu", dtype=lib.float16):
            y = (x @ x).float().pow(2).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            g.sum().backward()
        return y, g, x.grad

    compare(f, 3e-2, 3e-2)


# ----- GradScaler ------------------------------------------------------------------------


def _scaler_run(lib, steps, bad_steps, **kw):
    """SGD on a tiny model, its loss scaled; at ``bad_steps`` one gradient is made inf. Per
    step: the step's return value, the scale, the growth tracker; then the parameters and
    the final state dict."""
    w = lib.tensor([[0.5, -0.25], [0.125, 1.0]], requires_grad=True)
    b = lib.tensor([0.1, -0.2], requires_grad=True)
    opt = lib.optim.SGD([w, b], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **kw)
    x = lib.tensor([[1.0, 2.0], [-1.0, 0.5]])
    log = []
    for i in range(steps):
        opt.zero_grad()
        loss = ((x @ w + b) ** 2).mean()
        scaler.scale(loss).backward()
        if i in bad_steps:
            with lib.no_grad():
                b.grad[0] = float("inf")
        ret = scaler.step(opt)
        scaler.update()
        log.append((ret, scaler.get_scale(), scaler._get_growth_tracker()))
    return log, w, b, scaler.state_dict()


@pytest.mark.parametrize(
    "kw",
    [
        {"init_scale": 2.0**10, "growth_interval": 2},
        {"init_scale": 3.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 3},
        {"init_scale": 3.0e38, "growth_interval": 1},  # growth overflows float32: kept
    ],
)
def test_scaler_trajectory_with_skipped_steps(kw):
    compare(lambda lib: _scaler_run(lib, 7, {1, 4, 5}, **kw), 1e-6, 1e-7)


def test_scaler_unscale_then_clip_then_step():
    def f(lib):
        (w,) = leaves(lib, randn((3,)))
        opt = lib.optim.SGD([w], lr=0.5)
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        scaler.scale((w * w).sum()).backward()
        scaler.unscale_(opt)
        grad = w.grad.clone()
        lib.nn.utils.clip_grad_norm_([w], 0.5)
        scaler.step(opt)
        scaler.update(new_scale=4.0)
        s1 = scaler.get_scale()
        scaler.update(new_scale=lib.tensor(2.0))
        return grad, w, s1, scaler.get_scale()

    compare(f)


def test_scale_of_nested_outputs():
    def f(lib):
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0)
        a, b = lib.tensor([1.0, 2.0]), lib.tensor([3.0], dtype=lib.float16)
        out = scaler.scale([a, (b, [a])])
        return out, list(scaler.scale(iter([a])))

    compare(f)


def test_scaler_state_dict_round_trip_and_pickle():
    def f(lib):
        _, _, _, state = _scaler_run(lib, 3, {1}, init_scale=16.0, growth_interval=5)
        fresh = lib.amp.GradScaler("cpu")
        fresh.load_state_dict(state)
        used = lib.amp.GradScaler("cpu")
        used.scale(lib.ones(1))
        used.load_state_dict(state)
        copied = pickle.loads(pickle.dumps(used))
        fresh.set_growth_factor(4.0)
        fresh.set_backoff_factor(0.125)
        fresh.set_growth_interval(7)
        return (
            state,
            fresh.state_dict(),
            used.state_dict(),
            copied.state_dict(),
            [fresh.get_growth_factor(), fresh.get_backoff_factor(), fresh.get_growth_interval()],
        )

    compare(f)


def test_disabled_scaler_passes_everything_through():
    def f(lib):
        (w,) = leaves(lib, randn((2,)))
        opt = lib.optim.SGD([w], lr=1.0)
        scaler = lib.amp.GradScaler("cpu", enabled=False)
        loss = (w * 3).sum()
        same = scaler.scale(loss) is loss
        loss.backward()
        scaler.unscale_(opt)
        ret = scaler.step(opt)
        scaler.update()
        scaler.load_state_dict({})
        return same, ret, w, scaler.get_scale(), scaler.state_dict(), scaler.is_enabled()

    compare(f)


def _scaled(lib, dtype="float32"):
    (w,) = leaves(lib, randn((2,)), dtype=dtype)
    opt = lib.optim.SGD([w], lr=1.0)
    scaler = lib.amp.GradScaler("cpu")
    scaler.scale(w.sum()).backward()
    return scaler, opt


@pytest.mark.parametrize(
    "case",
    [
        "unscale_twice",
        "unscale_after_step",
        "step_twice",
        "update_before_scale",
        "step_before_scale",
        "fp16_grads",
        "closure",
        "growth_factor",
        "backoff_factor",
        "empty_state",
        "new_scale_shape",
        "new_scale_requires_grad",
        "scale_not_tensor",
        "update_without_step",
    ],
)
def test_scaler_errors(case):
    def f(lib):
        if case == "unscale_twice":
            s, o = _scaled(lib)
            s.unscale_(o)
            s.unscale_(o)
        elif case == "unscale_after_step":
            s, o = _scaled(lib)
            s.step(o)
            s.unscale_(o)
        elif case == "step_twice":
            s, o = _scaled(lib)
            s.step(o)
            s.step(o)
        elif case == "update_before_scale":
            lib.amp.GradScaler("cpu").update()
        elif case == "step_before_scale":
            lib.amp.GradScaler("cpu").step(lib.optim.SGD([lib.ones(1, requires_grad=True)]))
        elif case == "fp16_grads":
            s, o = _scaled(lib, "float16")
            s.step(o)
        elif case == "closure":
            s, o = _scaled(lib)
            s.step(o, closure=lambda: None)
        elif case == "growth_factor":
            lib.amp.GradScaler("cpu", growth_factor=1.0)
        elif case == "backoff_factor":
            lib.amp.GradScaler("cpu", backoff_factor=1.0)
        elif case == "empty_state":
            lib.amp.GradScaler("cpu").load_state_dict({})
        elif case == "new_scale_shape":
            s, o = _scaled(lib)
            s.update(lib.ones(2))
        elif case == "new_scale_requires_grad":
            s, o = _scaled(lib)
            s.update(lib.ones(1, requires_grad=True))
        elif case == "scale_not_tensor":
            lib.amp.GradScaler("cpu").scale([1.0])
        elif case == "update_without_step":
            s, o = _scaled(lib)
            s.update()

    assert_same_error(f)


def test_autocast_is_per_thread():
    """Another thread's ops are not cast while this thread is in an autocast region."""
    import threading

    def f(lib):
        seen = []
        x = lib.ones(2, 2)
        with lib.autocast("cpu", dtype=lib.float16):
            t = threading.Thread(
                target=lambda: seen.append((str((x @ x).dtype), lib.is_autocast_enabled("cpu")))
            )
            t.start()
            t.join()
            seen.append(str((x @ x).dtype))
        return seen

    assert f(cr) == f(torch) == [("torch.float32", False), "torch.float16"]


COMPOSITES = {  # PyTorch's float32 list, composed of several ops in chainrule
    "cross_entropy": lambda L, x, y: L.nn.functional.cross_entropy(x, L.tensor([0, 1, 2, 3])),
    "l1_loss": lambda L, x, y: L.nn.functional.l1_loss(x, y),
    "kl_div": lambda L, x, y: L.nn.functional.kl_div(x, y, reduction="batchmean"),
    "poisson_nll_loss": lambda L, x, y: L.nn.functional.poisson_nll_loss(x, y),
    "cdist": lambda L, x, y: L.cdist(x, y),
    "quantile": lambda L, x, y: L.quantile(x, 0.5),
    "margin_ranking_loss": lambda L, x, y: L.nn.functional.margin_ranking_loss(
        x[0], y[0], L.ones(5).half()
    ),
    "hinge_embedding_loss": lambda L, x, y: L.nn.functional.hinge_embedding_loss(x, y),
    "cosine_embedding_loss": lambda L, x, y: L.nn.functional.cosine_embedding_loss(
        x, y, L.ones(4).half()
    ),
    "triplet_margin_loss": lambda L, x, y: L.nn.functional.triplet_margin_loss(x, y, y),
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_float32_list_composites_run_in_float32_as_torch(name):
    def run(lib):
        x = lib.tensor(np.linspace(-1, 1, 20).reshape(4, 5)).half().requires_grad_()
        y = lib.tensor(np.linspace(0.1, 0.9, 20).reshape(4, 5)).half()
        with lib.autocast("cpu", dtype=lib.float16):
            out = COMPOSITES[name](lib, x, y)
        (g,) = lib.autograd.grad(out.sum(), x)
        return str(out.dtype), out.float(), str(g.dtype), g.float()

    compare(run, rtol=2e-3, atol=2e-3)


def test_the_deprecated_modules_import_as_torchs(tmp_path):
    code = (
        "import warnings\nimport torch\nimport torch.cuda.amp\nimport torch.cpu.amp\n"
        "from torch.cuda.amp import GradScaler\nfrom torch.cpu.amp import autocast\n"
        "print(GradScaler.__name__, autocast.__name__, torch.cpu.is_available(), "
        "torch.cpu.device_count(), torch.cpu.current_device())\n"
    )
    import subprocess
    import sys

    script = tmp_path / "amp_imports.py"
    script.write_text(code)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    ours = subprocess.run(
        [sys.executable, "-m", "chainrule", "run", str(script)], capture_output=True, text=True
    )
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout, ours.stderr


def test_index_copy_promotes_inside_autocast_as_torch():
    def run(lib):
        x = lib.zeros(3, 2, dtype=lib.float16, requires_grad=True)
        s = lib.ones(2, 2, dtype=lib.float32, requires_grad=True)
        with lib.autocast("cpu", dtype=lib.float16):
            y = lib.index_copy(x, 0, lib.tensor([0, 2]), s)
            z = x.index_copy(0, lib.tensor([0, 2]), s)
        (y.sum() + z.sum()).backward()
        outside = error_of(lambda L: L.index_copy(x, 0, L.tensor([0, 2]), s), lib)
        return str(y.dtype), str(z.dtype), x.grad, s.grad, str(outside)

    compare(run)


def test_set_autocast_dtype_and_enabled_as_torch():
    """torch.set_autocast_dtype / set_autocast_enabled: the state autocast's regions read."""
    for lib in (cr, torch):
        assert str(lib.get_autocast_dtype("cpu")) == "torch.bfloat16"
        lib.set_autocast_dtype("cpu", lib.float16)
        lib.set_autocast_enabled("cpu", True)
        try:
            assert lib.is_autocast_enabled("cpu")
            assert str(lib.nn.Linear(2, 2)(lib.ones(1, 2)).dtype) == "torch.float16"
        finally:
            lib.set_autocast_enabled("cpu", False)
            lib.set_autocast_dtype("cpu", lib.bfloat16)
        with lib.autocast("cpu"):
            assert str(lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype) == "torch.bfloat16"


@pytest.mark.parametrize(
    "name, fn",
    [
        ("lu_solve", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b)),
        ("legacy_lu_solve", lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a))),
        ("cdist", lambda L, a, b: L.cdist(a, b.mT)),
    ],
)
def test_float32_list_functions_run_their_inner_products_in_float32_too(name, fn):
    # (PyTorch's autocast runs a float32-list op with autocast off inside: lu_solve's
    # products would otherwise be bfloat16 and refused by its solves, cdist's less precise)
    a = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]], dtype=np.float32)
    b = np.array([[1.0, -2.0], [0.25, 3.0], [-1.5, 0.75]], dtype=np.float32)
    out = []
    for L in (cr, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # (torch.lu_solve's deprecation)
            with L.autocast("cpu", dtype=L.bfloat16):
                y = fn(L, L.tensor(a), L.tensor(b))
        out.append((str(y.dtype), y.numpy()))
    assert out[0][0] == out[1][0] == "torch.float32"
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-5, atol=1e-6)
