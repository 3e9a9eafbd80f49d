"""Checks of DistributedDataParallel, run on every rank of an MPI job.

The reference is one process training the same model on the ranks' batches concatenated:
DDP's averaged gradients are the gradients of that batch's mean loss, so after the same
steps the parameters must agree. Every rank computes the reference itself.
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_digits

import chainrule as torch
import chainrule.nn as nn
import chainrule.nn.functional as F
from chainrule.nn.parallel import DistributedDataParallel as DDP

STEPS = 20
GLOBAL_BATCH = 32


class DigitsNet(nn.Module):
    """examples/digits.py's CNN without its dropout (whose masks would differ by rank)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def digits(dtype):
    d = load_digits()
    images = torch.from_numpy((d.images.reshape(-1, 1, 8, 8) / 16.0).astype("float64"))
    return images.to(dtype), torch.from_numpy(d.target).long()


def model_seeded(seed, dtype):
    torch.manual_seed(seed)
    return DigitsNet().to(dtype)


def train(model, xs, ys, steps, lr=0.05):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for step in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(xs[step]), ys[step]).backward()
        opt.step()


def batches(x, y, rank, world):
    """Step s's global batch, and this rank's slice of it."""
    b = GLOBAL_BATCH // world
    whole = [(x[s * GLOBAL_BATCH : (s + 1) * GLOBAL_BATCH], y[s * GLOBAL_BATCH : (s + 1) * GLOBAL_BATCH]) for s in range(STEPS)]  # fmt: skip
    mine = [(bx[rank * b : (rank + 1) * b], by[rank * b : (rank + 1) * b]) for bx, by in whole]
    return whole, mine


def same_parameters(got, want, rtol):
    """Equal to ``rtol`` of each tensor's largest magnitude (float32's last bit on an entry
    near zero is a relative error larger than 1e-6 of that entry)."""
    for (name, a), (_, b) in zip(got.named_parameters(), want.named_parameters()):
        a, b = a.detach().double().numpy(), b.detach().double().numpy()
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max(), err_msg=name)


_REFERENCES = {}


def check_training(dtype, rtol, bucket_cap_mb, steps=STEPS):
    def run(rank, world):
        x, y = digits(dtype)
        whole, mine = batches(x, y, rank, world)
        if dtype not in _REFERENCES:  # one process, the concatenated batches
            reference = model_seeded(0, dtype)
            train(reference, [b[0] for b in whole], [b[1] for b in whole], steps)
            _REFERENCES[dtype] = reference
        reference = _REFERENCES[dtype]
        model = DDP(model_seeded(rank, dtype), bucket_cap_mb=bucket_cap_mb)  # rank 0's start
        train(model, [b[0] for b in mine], [b[1] for b in mine], steps)
        same_parameters(model.module, reference, rtol)

    return run


def check_buckets(rank, world):
    model = DDP(model_seeded(rank, torch.float64), bucket_cap_mb=0.01)
    params = list(model.module.parameters())
    order = [i for b in model._buckets for i in b.indices]
    assert order == list(reversed(range(len(params)))), order
    assert len(model._buckets) > 2, len(model._buckets)
    # with the default cap the first bucket is 1 MiB: the whole model here
    assert len(DDP(model_seeded(rank, torch.float64))._buckets) == 1
    keys = list(model.state_dict())
    assert keys == ["module." + k for k in model.module.state_dict()], keys
    assert isinstance(model.module, DigitsNet)


def check_broadcast(rank, world):
    net = nn.BatchNorm1d(3)
    net.running_mean.fill_(float(rank))
    with torch.no_grad():
        net.weight.fill_(float(rank + 1))
    model = DDP(net)  # rank 0's parameters and buffers everywhere
    assert bool((net.running_mean == 0).all()) and bool((net.weight == 1).all())
    net.running_mean.fill_(float(rank))
    model.eval()
    model(torch.randn(4, 3))  # buffers are broadcast again before each forward
    assert bool((net.running_mean == 0).all())


def check_no_sync(rank, world):
    x, y = digits(torch.float64)
    whole, mine = batches(x, y, rank, world)
    reference = model_seeded(0, torch.float64)
    for bx, by in whole[:2]:
        F.cross_entropy(reference(bx), by).backward()
    model = DDP(model_seeded(rank, torch.float64), bucket_cap_mb=0.01)
    with model.no_sync():
        F.cross_entropy(model(mine[0][0]), mine[0][1]).backward()
    local = [p.grad.clone() for p in model.parameters()]
    F.cross_entropy(model(mine[1][0]), mine[1][1]).backward()
    for (name, p), q in zip(model.module.named_parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)  # fmt: skip
    if world > 1:  # inside no_sync the gradients were this rank's own
        assert any(not np.allclose(a.numpy(), p.grad.numpy()) for a, p in zip(local, model.parameters()))  # fmt: skip


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.used = nn.Linear(4, 2)
        self.unused = nn.Linear(4, 2)

    def forward(self, x):
        return self.used(torch.tanh(self.body(x)))


def check_unused(rank, world):
    torch.manual_seed(0)
    reference = TwoHeads().double()
    x = torch.randn(4 * world, 4, dtype=torch.float64)
    reference(x).square().mean().backward()
    torch.manual_seed(0)
    model = DDP(TwoHeads().double(), find_unused_parameters=True, bucket_cap_mb=1e-4)
    model(x[4 * rank : 4 * rank + 4]).square().mean().backward()
    for (name, p), q in zip(model.module.named_parameters(), reference.parameters()):
        if name.startswith("unused"):
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, err_msg=name)
    # without find_unused_parameters the reduction never ends: the next forward says so
    model = DDP(TwoHeads().double())
    model(x[:4]).sum().backward()
    try:
        model(x[:4])
    except RuntimeError as exc:
        assert "Expected to have finished reduction in the prior iteration" in str(exc)
    else:
        raise AssertionError("a forward after an unfinished reduction did not raise")


CHECKS = {
    "ddp_training[float64]": check_training(torch.float64, 1e-6, 0.01),
    "ddp_training[float64,one_bucket]": check_training(torch.float64, 1e-6, None),
    "ddp_training[float32]": check_training(torch.float32, 1e-6, 0.01),
    # (bfloat16 gradients averaged over the ranks in float32 and rounded, against the whole
    # batch's rounded once: the trajectories part by rounding, so 3 steps, to 2 ulps)
    "ddp_training[bfloat16]": check_training(torch.bfloat16, 2**-7, 0.01, steps=3),
    "ddp_buckets": check_buckets,
    "ddp_broadcast": check_broadcast,
    "ddp_no_sync": check_no_sync,
    "ddp_unused": check_unused,
}
