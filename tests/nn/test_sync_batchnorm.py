"""``nn.SyncBatchNorm`` in one process, side by side with torch: without a process group it
is BatchNorm (outputs, gradients, running statistics, reprs, state dicts, errors); its
synchronised Function, given a sum over ranks that leaves the sums as they are (one
process), equals PyTorch's training-mode batch norm; ``convert_sync_batchnorm``.
The synchronised path across processes is checked in tests/distributed/mp_sync_batchnorm.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule.nn.modules.sync_batchnorm import SyncBatchNorm as SyncBatchNormFunction
from nn_layers import check_module, state_shapes
from oracle import DT_IDS, FLOATS, R, assert_same_error, compare

CASES = [
    ((3,), {}, (4, 3)),
    ((3,), {"momentum": 0.3}, (4, 3, 5)),
    ((2,), {"affine": False}, (3, 2, 4, 4)),
    ((2,), {"track_running_stats": False}, (3, 2, 3, 2)),
    ((2,), {"momentum": None, "eps": 1e-3}, (2, 2, 3, 2, 2)),
    ((2,), {"bias": False}, (3, 2, 3)),
    ((4,), {}, (2, 4, 2, 2, 2, 2)),  # (6-D: any input of 2 dims or more)
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("args,kw,x", CASES, ids=lambda v: str(v))
def test_without_a_process_group_it_is_batch_norm(args, kw, x, train, dtype):
    """Outputs, input and parameter gradients, running statistics and count, repr and
    state-dict keys equal torch's SyncBatchNorm (which falls back to batch norm too)."""
    check_module(lambda lib: lib.nn.SyncBatchNorm(*args, **kw), R(*x), dtype=dtype, train=train)


@pytest.mark.parametrize("momentum", [0.1, None], ids=["ema", "cumulative"])
def test_running_stats_over_steps(momentum):
    """Three training steps (momentum None: the cumulative average), then eval."""

    def run(lib):
        m = lib.nn.SyncBatchNorm(3, momentum=momentum).double()
        outs = [m(lib.tensor(R(4, 3, 2, seed=step))) for step in range(3)]
        m.eval()
        outs.append(m(lib.tensor(R(2, 3, 2, seed=9))))
        return outs + [dict(m.named_buffers())]

    compare(run, rtol=1e-10, atol=1e-12)


FUNCTION_CASES = [
    ((6, 3), True, True, True),
    ((4, 3, 5), True, False, True),
    ((3, 2, 4, 3), False, False, True),
    ((2, 2, 3, 2, 2), True, True, False),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("shape,affine,bias,track", FUNCTION_CASES, ids=lambda v: str(v))
def test_the_sync_function_in_one_process_is_batch_norm(shape, affine, bias, track, dtype):
    """The Function's own forward and backward (sums over ranks a no-op) against torch's
    training-mode batch norm: output, gradients of input, weight and bias, running stats."""
    channels = shape[1]
    x = R(*shape).astype(dtype)
    g = R(*shape, seed=5).astype(dtype)
    w = np.linspace(0.5, 1.5, channels).astype(dtype)
    b = np.linspace(-1.0, 1.0, channels).astype(dtype)

    def run(lib):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True) if affine else None
        bt = lib.tensor(b, requires_grad=True) if affine and bias else None
        rm = lib.full((channels,), 0.5, dtype=xt.dtype) if track else None
        rv = lib.full((channels,), 2.0, dtype=xt.dtype) if track else None
        if lib is cr:
            y = SyncBatchNormFunction.apply(xt, wt, bt, rm, rv, 1e-5, 0.2, lambda t: None)
        else:
            y = torch.nn.functional.batch_norm(xt, rm, rv, wt, bt, True, 0.2, 1e-5)
        (y * lib.tensor(g)).sum().backward()
        grads = [t.grad for t in (xt, wt, bt) if t is not None]
        return y.detach(), grads, [s for s in (rm, rv) if s is not None]

    tol = 1e-10 if dtype == np.float64 else 2e-5
    compare(run, rtol=tol, atol=tol)


def test_the_sync_function_node_and_what_it_sums():
    """One node, SyncBatchNormBackward; forward sums Σx with the count, then the squares;
    backward sums Σg with Σg·(x - mean) (one call), only when the input needs a gradient."""
    sizes = []

    def sum_over_ranks(t):
        sizes.append(t.numel())

    x = cr.randn(4, 3, 2, requires_grad=True)
    w = cr.ones(3, requires_grad=True)
    y = SyncBatchNormFunction.apply(x, w, None, None, None, 1e-5, 0.1, sum_over_ranks)
    assert y.grad_fn.name() == "SyncBatchNormBackward"
    assert sizes == [4, 3]
    y.sum().backward()
    assert sizes == [4, 3, 6]
    sizes.clear()
    y = SyncBatchNormFunction.apply(x.detach(), w, None, None, None, 1e-5, 0.1, sum_over_ranks)
    y.sum().backward()
    assert sizes == [4, 3]  # no input gradient: no sum in backward
    assert w.grad is not None


def test_repr_and_state():
    def mods(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.SyncBatchNorm(3),
            nn.SyncBatchNorm(4, eps=1e-3, momentum=None, affine=False),
            nn.SyncBatchNorm(2, track_running_stats=False, bias=False),
        )

    c, t = mods(cr), mods(torch)
    assert str(c) == str(t)
    assert state_shapes(c) == state_shapes(t)
    assert c[0].process_group is None
    assert cr.nn.SyncBatchNorm(3, process_group="g").process_group == "g"


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(3)),
        lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(())),
        lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(2, 0, 3)),
        lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(1, 3)),
        lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(2, 4)),
        lambda lib: lib.nn.SyncBatchNorm(3).eval()(lib.ones(2, 4, 5)),
    ],
    ids=["1d", "0d", "no-channels", "one-value", "features", "eval-features"],
)
def test_errors(fn):
    assert_same_error(fn)


class Net:
    """A nested model with batch norms of every kind, an instance norm and a lazy one."""

    @staticmethod
    def build(lib):
        nn = lib.nn
        lib.manual_seed(0)
        return nn.Sequential(
            nn.Conv2d(2, 3, 1),
            nn.BatchNorm2d(3, momentum=None),
            nn.Sequential(
                nn.BatchNorm2d(3, affine=False, eps=1e-3),
                nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
                nn.Flatten(),
                nn.BatchNorm1d(12, bias=False),
            ),
            nn.SyncBatchNorm(12, track_running_stats=False),
        )


def test_convert_sync_batchnorm_on_a_nested_model():
    """Every _BatchNorm (not the instance norm) becomes a SyncBatchNorm holding the same
    parameter and buffer objects, requires_grad and training flags; the model is returned
    itself; the converted model computes as torch's."""
    for lib in (cr, torch):
        net = Net.build(lib)
        net[1].weight.requires_grad_(False)
        net[2].eval()
        net[2][3].qconfig = "q"
        weight, mean, count = net[1].weight, net[1].running_mean, net[1].num_batches_tracked
        out = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group="pg")
        assert out is net
        kinds = [type(m).__name__ for m in net.modules()]
        assert kinds == ["Sequential", "Conv2d", "SyncBatchNorm", "Sequential", "SyncBatchNorm",
                         "InstanceNorm2d", "Flatten", "SyncBatchNorm", "SyncBatchNorm"]  # fmt: skip
        assert net[1].weight is weight and net[1].running_mean is mean
        assert net[1].num_batches_tracked is count and not net[1].weight.requires_grad
        assert net[1].training and not net[2][0].training and not net[2][3].training
        assert net[2][3].qconfig == "q" and net[2][3].bias is None
        assert net[1].process_group == "pg" and net[2][3].process_group == "pg"
        assert net[3].process_group == "pg"  # (a SyncBatchNorm is converted anew)
    assert str(Net.build(cr)) == str(Net.build(torch))
    compare(lambda lib: str(lib.nn.SyncBatchNorm.convert_sync_batchnorm(Net.build(lib))))

    def run(lib):
        net = lib.nn.SyncBatchNorm.convert_sync_batchnorm(Net.build(lib)).double()
        net.load_state_dict({k: lib.tensor(v) for k, v in states.items()})
        x = lib.tensor(R(4, 2, 2, 2), requires_grad=True)
        y = net(x)
        y.pow(2).sum().backward()
        return y, x.grad, dict(net.named_buffers())

    states = {k: v.double().numpy() for k, v in Net.build(torch).state_dict().items()}
    compare(run, rtol=1e-10, atol=1e-12)


def test_convert_a_batch_norm_itself():
    """A batch norm layer comes back as a new SyncBatchNorm; any other module as itself."""
    for lib in (cr, torch):
        bn = lib.nn.BatchNorm1d(3, momentum=0.3, eps=1e-4)
        sync = lib.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
        assert type(sync) is lib.nn.SyncBatchNorm and sync is not bn
        assert (sync.momentum, sync.eps, sync.weight) == (0.3, 1e-4, bn.weight)
        lin = lib.nn.Linear(2, 2)
        assert lib.nn.SyncBatchNorm.convert_sync_batchnorm(lin) is lin
    compare(lambda lib: repr(lib.nn.SyncBatchNorm.convert_sync_batchnorm(lib.nn.BatchNorm3d(2))))


@pytest.mark.parametrize("source", ["SyncBatchNorm", "BatchNorm2d"])
def test_state_dict_round_trip(source):
    """A trained torch SyncBatchNorm's or BatchNorm2d's state loads into chainrule's
    SyncBatchNorm, which then computes as torch's; its state loads back into torch's."""
    x = R(3, 2, 2, 2)
    tm = getattr(torch.nn, source)(2).double()
    tm(torch.tensor(x))
    cm = cr.nn.SyncBatchNorm(2).double()
    result = cm.load_state_dict({k: cr.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    assert list(cm.state_dict()) == list(tm.state_dict())
    cm(cr.tensor(x))
    tm(torch.tensor(x))
    back = torch.nn.SyncBatchNorm(2).double()
    back.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in cm.state_dict().items()})
    for name, want in tm.state_dict().items():
        np.testing.assert_allclose(back.state_dict()[name].numpy(), want.numpy(), rtol=1e-12)
