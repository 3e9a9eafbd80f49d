"""Tensors in shared memory, as PyTorch's CPU tensors: ``share_memory_`` and
``Module.share_memory`` move values into a shared memory file; processes forked after, or
given the tensor through ``torch.multiprocessing`` (a spawned process's arguments, a
Queue), write the same memory (Hogwild training), compared with the real PyTorch."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import chainrule as cr
from oracle import compare
from script_sides import both_outputs

HOGWILD = textwrap.dedent(
    """
    import sys

    import torch
    import torch.multiprocessing as mp
    import torch.nn as nn


    def train(rank, model, queue):
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        for _ in range(4):
            opt.zero_grad()
            model(torch.ones(1, 2)).sum().backward()
            opt.step()
        queue.put((rank, model.weight.is_shared(), model.weight.grad.is_shared()))


    def add_ten(inbox, outbox):
        t = inbox.get()
        t += 10
        outbox.put(t.is_shared())


    if __name__ == "__main__":
        ctx = mp.get_context(sys.argv[1])
        model = nn.Linear(2, 1, bias=False)
        with torch.no_grad():
            model.weight.zero_()
        model(torch.ones(1, 2)).sum().backward()  # (a gradient to share too)
        model.share_memory()
        print(model.weight.is_shared(), model.weight.grad.is_shared(), type(model.weight))
        queue = ctx.Queue()
        workers = [ctx.Process(target=train, args=(r, model, queue)) for r in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        print(sorted(queue.get() for _ in workers), model.weight.tolist())
        t = torch.arange(3.0).share_memory_()
        inbox, outbox = ctx.Queue(), ctx.Queue()
        worker = ctx.Process(target=add_ten, args=(inbox, outbox))
        worker.start()
        inbox.put(t)
        print(outbox.get(), t.tolist(), torch.ones(2).is_shared())
        worker.join()
    """
)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_training_shares_the_weights_as_pytorch(tmp_path, method):
    script = tmp_path / "hogwild.py"
    script.write_text(HOGWILD)
    outs = both_outputs(script, method)
    # (the two workers' SGD steps write one weight: 8 steps of -0.5 each, whatever the order)
    assert "[[-4.0, -4.0]]" in outs[0]
    assert outs[1] == outs[0]


def test_share_memory_keeps_values_gradients_and_views():
    def fn(lib):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        was = x.is_shared()
        same = x.share_memory_()
        view = x[1]
        (x * x).sum().backward()
        return [was, same is x, x.is_shared(), view.is_shared(), x, x.grad, x.share_memory_() is x]

    compare(fn)


def test_writes_reach_a_forked_process_and_back():
    import multiprocessing

    t = cr.zeros(4).share_memory_()
    ctx = multiprocessing.get_context("fork")
    worker = ctx.Process(target=t.add_, args=(cr.ones(4),))
    worker.start()
    worker.join()
    assert worker.exitcode == 0
    np.testing.assert_array_equal(t.numpy(), np.ones(4, np.float32))


def test_every_tensor_sent_moves_to_shared_memory():
    def fn(lib):
        from multiprocessing.reduction import ForkingPickler

        t = lib.ones(3)
        back = ForkingPickler.loads(ForkingPickler.dumps(t))  # (in this process: its memory)
        shared = lib.ones(2, dtype=lib.float64).share_memory_()
        moved = ForkingPickler.loads(ForkingPickler.dumps(shared))
        moved += 1
        return [t.is_shared(), back.is_shared(), back, shared, moved.dtype == lib.float64]

    compare(fn)
