"""Distributed benchmarks on 2 MPI processes (``make bench`` runs this after bench/run.py).

1. ``all_reduce`` of a 100 MB float32 tensor with chainrule.distributed against raw mpi4py
   (``Allreduce(IN_PLACE, buf)``) on the same buffer: the best of several interleaved runs.
2. DistributedDataParallel's overlap on an MLP: the share of the gradient communication
   hidden behind backward, ``1 - W / C`` with C the time of the same bucket all-reduces
   alone, one after the other, and W the time backward waits at its end for the buckets
   still in flight; and the time overlapping saves, ``(B + C - T) / C`` with B the backward
   time without DDP and T DDP's (which also pays for copying the gradients in and out of
   the buckets, and for the CPU the communication takes from backward on the same cores).

    python bench/distributed.py [--nproc 2] [--repeat 7]

It launches itself with ``chainrule launch``'s mpirun; rank 0 prints the table.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parent.parent / "src"
sys.path.insert(0, str(SRC))

MB100 = 25_000_000  # float32 elements: 100 MB


def best(fn, repeat: int, comm) -> float:
    times = []
    for _ in range(repeat):
        comm.Barrier()
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def all_reduce_row(repeat: int) -> tuple:
    from mpi4py import MPI

    import chainrule
    import chainrule.distributed as dist

    comm = MPI.COMM_WORLD
    t = chainrule.ones(MB100)
    raw = np.ones(MB100, dtype=np.float32)
    ours, theirs = [], []
    for _ in range(repeat):  # interleaved: load from elsewhere falls on both alike
        ours.append(best(lambda: dist.all_reduce(t), 1, comm))
        theirs.append(best(lambda: comm.Allreduce(MPI.IN_PLACE, raw), 1, comm))
    return min(ours), min(theirs)


def overlap_row(repeat: int) -> tuple:
    from mpi4py import MPI

    import chainrule as torch
    import chainrule.distributed as dist
    from chainrule import nn
    from chainrule.nn.parallel import DistributedDataParallel as DDP

    comm = MPI.COMM_WORLD
    torch.manual_seed(0)
    width, depth, batch = 1024, 6, 128

    def mlp():
        torch.manual_seed(0)
        layers = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), nn.Tanh()]
        return nn.Sequential(*layers)

    x = torch.randn(batch, width)
    plain, ddp = mlp(), DDP(mlp(), bucket_cap_mb=4)

    def backward_time(model) -> float:
        times = []
        for _ in range(repeat):
            model.zero_grad()
            loss = model(x).square().mean()
            comm.Barrier()
            t0 = time.perf_counter()
            loss.backward()
            times.append(time.perf_counter() - t0)
        return min(times)

    b = backward_time(plain)
    waits = []
    finish = ddp._finish_reduction

    def timed_finish():  # the time backward waits for communication still running
        t0 = time.perf_counter()
        finish()
        waits.append(time.perf_counter() - t0)

    ddp._finish_reduction = timed_finish
    t = backward_time(ddp)

    def comm_alone():
        for bucket in ddp._buckets:
            comm.Allreduce(MPI.IN_PLACE, bucket.flat)

    c = best(comm_alone, repeat, comm)
    params = sum(p.numel() for p in plain.parameters())
    del dist
    return b, c, t, min(waits), params, len(ddp._buckets)


def worker(repeat: int) -> None:
    import chainrule.distributed as dist

    dist.init_process_group("mpi")
    ours, raw = all_reduce_row(repeat)
    b, c, t, w, params, buckets = overlap_row(repeat)
    if dist.get_rank() == 0:
        world = dist.get_world_size()
        hidden = min(max((b + c - t) / c, 0.0), 1.0)
        waited = min(max(1 - w / c, 0.0), 1.0)
        print(f"| benchmark ({world} processes) | chainrule | raw mpi4py | ratio |")
        print("|---|---:|---:|---:|")
        print(f"| all_reduce, 100 MB float32 (ms) | {ours * 1e3:.1f} | {raw * 1e3:.1f} | {ours / raw:.2f}x |")  # fmt: skip
        print()
        print(f"DDP overlap, MLP {params / 1e6:.1f}M parameters in {buckets} buckets:")
        print(f"  backward without DDP  B = {b * 1e3:.1f} ms")
        print(f"  bucket all-reduces    C = {c * 1e3:.1f} ms (alone, one after the other)")
        print(f"  backward with DDP     T = {t * 1e3:.1f} ms")
        print(f"  backward's wait at its end  W = {w * 1e3:.1f} ms (for buckets still in flight)")
        print(f"  communication hidden behind backward: 1 - W / C = {waited:.0%}")
        print(f"  time saved by overlapping: (B + C - T) / C = {hidden:.0%}")
    dist.destroy_process_group()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.repeat)
        return 0
    from chainrule.distributed._launch import mpi_environment, mpirun_command

    env = mpi_environment()
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    command = [sys.executable, __file__, "--worker", "--repeat", str(args.repeat)]
    return subprocess.call(mpirun_command(args.nproc, command), env=env)


if __name__ == "__main__":
    sys.exit(main())
