"""Checks of nn.SyncBatchNorm, run on every rank of an MPI job.

The reference is one process running nn.BatchNorm on the ranks' batches concatenated
(every rank computes it itself): each rank's output and input gradient must be its rows of
the reference's, the running statistics the reference's, and the weight and bias
gradients, summed over the ranks (DistributedDataParallel averages them), the
reference's. The ranks' batches differ in size, one of them empty in one check.
"""

from __future__ import annotations

import numpy as np

import chainrule as torch
import chainrule.distributed as dist
import chainrule.nn as nn
import chainrule.nn.functional as F
from chainrule.nn.parallel import DistributedDataParallel as DDP

CHANNELS = 3


def sizes(world: int, empty: bool = False) -> list[int]:
    """Each rank's batch size: uneven (2, 3, 4, ...), rank 0's empty if ``empty``."""
    return [0 if empty and r == 0 else r + 2 for r in range(world)]


def rows(rank: int, counts: list[int]) -> slice:
    start = sum(counts[:rank])
    return slice(start, start + counts[rank])


def close(got, want, dtype, what):
    tol = 1e-5 if dtype == torch.float32 else 1e-11
    got = got.detach().numpy() if isinstance(got, torch.Tensor) else got
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else want
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def pair(kw: dict, dtype):
    """(SyncBatchNorm, BatchNorm1d) with the same parameters, away from ones and zeros."""
    sync = nn.SyncBatchNorm(CHANNELS, **kw).to(dtype)
    ref = nn.BatchNorm1d(CHANNELS, **kw).to(dtype)
    with torch.no_grad():
        for p, q in zip(sync.parameters(), ref.parameters()):
            values = torch.linspace(0.5, 1.5, CHANNELS, dtype=dtype)
            p.copy_(values)
            q.copy_(values)
    return sync, ref


def check_layer(kw: dict, dtype, steps: int = 2, empty: bool = False):
    def run(rank, world):
        counts = sizes(world, empty)
        mine = rows(rank, counts)
        sync, ref = pair(kw, dtype)
        gen = np.random.default_rng(7)
        for step in range(steps):
            x = gen.normal(3.0, 2.0, (sum(counts), CHANNELS, 4)).astype(str(dtype)[6:])
            g = gen.standard_normal(x.shape).astype(x.dtype)
            x_ref = torch.from_numpy(x).requires_grad_()
            y_ref = ref(x_ref)
            (y_ref * torch.from_numpy(g)).sum().backward()
            x_mine = torch.from_numpy(x[mine].copy()).requires_grad_()
            y = sync(x_mine)
            (y * torch.from_numpy(g[mine].copy())).sum().backward()
            assert y.grad_fn.name() == "SyncBatchNormBackward", y.grad_fn.name()
            close(y, y_ref[mine], dtype, f"output, step {step}")
            close(x_mine.grad, x_ref.grad[mine], dtype, f"input grad, step {step}")
            for (name, p), q in zip(sync.named_parameters(), ref.parameters()):
                total = p.grad.clone()
                dist.all_reduce(total)
                close(total, q.grad, dtype, f"{name} grad summed, step {step}")
                p.grad = None
                q.grad = None
            for (name, b), c in zip(sync.named_buffers(), ref.buffers()):
                close(b, c, dtype, f"{name} after step {step}")
        sync.eval()  # eval: the running statistics, no collective (rank 0 alone calls it)
        ref.eval()
        x = torch.from_numpy(gen.standard_normal((2, CHANNELS, 4)).astype(str(dtype)[6:]))
        if rank == 0:
            close(sync(x), ref(x), dtype, "eval output")

    return run


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        return self.fc(torch.flatten(F.relu(self.bn(self.conv(x))), 1))


def check_ddp(rank, world):
    """Three SGD steps of a converted model under DDP (equal batches, mean loss) end with
    the parameters and running statistics of one process training on the whole batches."""
    gen = np.random.default_rng(3)
    batch = 2 * world
    data = [(gen.standard_normal((batch, 1, 4, 4)), gen.integers(0, 3, batch)) for _ in range(3)]
    torch.manual_seed(0)
    ref = Net().double()
    torch.manual_seed(rank)  # DDP starts every rank from rank 0's parameters
    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(Net().double()))
    assert isinstance(model.module.bn, nn.SyncBatchNorm)
    for net, part in ((ref, slice(None)), (model, slice(2 * rank, 2 * rank + 2))):
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        for x, y in data:
            opt.zero_grad()
            out = net(torch.from_numpy(x[part].copy()))
            F.cross_entropy(out, torch.from_numpy(y[part].copy())).backward()
            opt.step()
    for (name, p), q in zip(model.module.state_dict().items(), ref.state_dict().values()):
        close(p, q, torch.float64, name)


def check_groups(rank, world):
    """With a process group, the statistics are those of the group's ranks only: halves of
    the world (each rank alone when the world is 2: then it is BatchNorm)."""
    half = world // 2
    groups = [dist.new_group(list(range(0, half))), dist.new_group(list(range(half, world)))]
    mine = groups[rank // half]
    members = range(0, half) if rank < half else range(half, world)
    counts = sizes(world)
    gen = np.random.default_rng(11)
    x = gen.standard_normal((sum(counts), CHANNELS, 2))
    g = gen.standard_normal(x.shape)
    sync, ref = pair({}, torch.float64)
    sync.process_group = mine
    group_rows = np.concatenate([np.arange(sum(counts))[rows(r, counts)] for r in members])
    x_ref = torch.from_numpy(x[group_rows]).requires_grad_()
    y_ref = ref(x_ref)
    (y_ref * torch.from_numpy(g[group_rows])).sum().backward()
    x_mine = torch.from_numpy(x[rows(rank, counts)].copy()).requires_grad_()
    y = sync(x_mine)
    (y * torch.from_numpy(g[rows(rank, counts)].copy())).sum().backward()
    start = sum(counts[r] for r in members if r < rank)
    at = slice(start, start + counts[rank])
    if world == 2:  # a group of one: BatchNorm itself
        assert y.grad_fn.name() == "NativeBatchNormBackward0", y.grad_fn.name()
    close(y, y_ref[at], torch.float64, "output")
    close(x_mine.grad, x_ref.grad[at], torch.float64, "input grad")
    for (name, b), c in zip(sync.named_buffers(), ref.buffers()):
        close(b, c, torch.float64, name)


CHECKS = {
    "sync_bn[float64]": check_layer({}, torch.float64),
    "sync_bn[float32]": check_layer({"momentum": 0.3}, torch.float32),
    "sync_bn[no_affine,cumulative]": check_layer({"affine": False, "momentum": None}, torch.float64),
    "sync_bn[no_bias,no_running]": check_layer({"bias": False, "track_running_stats": False}, torch.float64),
    "sync_bn[empty_rank]": check_layer({}, torch.float64, steps=1, empty=True),
    "sync_bn_ddp": check_ddp,
    "sync_bn_groups": check_groups,
}  # fmt: skip
