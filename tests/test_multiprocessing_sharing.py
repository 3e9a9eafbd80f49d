"""Every CPU tensor sent to another process travels as PyTorch's does: its storage moves to
shared memory in place (the sender's tensor, and the views of it, become shared), the
receiver's writes are seen by the sender, views sent together arrive as views of one
storage, ``requires_grad`` and Parameters travel, ``.grad`` does not, and a non-leaf that
requires grad is refused; compared with the real ``torch.multiprocessing`` (fork and spawn
contexts; a Queue, a Pool's arguments and results, a Process's arguments, a Pipe)."""

from __future__ import annotations

import textwrap
import warnings
from multiprocessing.reduction import ForkingPickler

import pytest
import torch

import chainrule as cr
from script_sides import both_outputs

SCENARIO = textwrap.dedent(
    """
    import sys

    import torch
    import torch.multiprocessing as mp


    def receive(t, inbox, outbox):
        t.add_(100)  # (an argument: seen by the parent where it was pickled, under spawn)
        x, v = inbox.get()
        seen = (
            x.is_shared(), v.is_shared(), x.tolist(), v.tolist(), v.storage_offset(),
            v.stride(), v.data_ptr() - x.data_ptr(), x.untyped_storage().nbytes(),
            v._base is None, t.is_shared(),
        )
        v.mul_(10)  # (seen by the sender's x, v and w)
        x[0, 0] = -1.0
        outbox.put(seen)
        p, leaf = inbox.get()
        outbox.put((type(p).__name__, p.requires_grad, p.grad is None, p.is_leaf,
                    leaf.requires_grad, leaf.is_leaf, leaf.dtype))
        p.data.add_(1)


    def triple(t):
        t.mul_(2)  # (seen by the parent's tensor)
        return t * 3


    if __name__ == "__main__":
        ctx = mp.get_context(sys.argv[1])
        x = torch.arange(6.0).reshape(2, 3)
        v = x[:, 1:]
        w = x[1]  # (never sent: its storage moves with x's)
        print("before", x.is_shared(), v.is_shared(), w.is_shared())
        t, inbox, outbox = torch.zeros(3), ctx.Queue(), ctx.Queue()
        worker = ctx.Process(target=receive, args=(t, inbox, outbox))
        worker.start()
        inbox.put((x, v))
        print("received", outbox.get())
        print("sender", x.is_shared(), v.is_shared(), w.is_shared(), x.tolist(), w.tolist())
        p = torch.nn.Parameter(torch.ones(2))
        p.grad = torch.full((2,), 5.0)
        leaf = torch.ones(3, dtype=torch.float64, requires_grad=True)
        inbox.put((p, leaf))
        print("parameter", outbox.get())
        worker.join()
        print("after", p.tolist(), p.is_shared(), p.grad.is_shared(), leaf.is_shared())
        print("process argument", t.tolist(), t.is_shared())

        a, b = torch.ones(2), torch.arange(3, dtype=torch.int64)
        with ctx.Pool(1) as pool:
            out = pool.map(triple, [a, b])
        print("pool", a.tolist(), b.tolist(), a.is_shared(), b.is_shared(),
              [(o.tolist(), o.dtype, o.is_shared()) for o in out])

        here, there = ctx.Pipe()
        try:
            here.send(torch.ones(2, requires_grad=True) * 2)
        except RuntimeError as error:
            print("refused", type(error).__name__, error)
    """
)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_tensors_travel_through_shared_memory_as_pytorch(tmp_path, method):
    script = tmp_path / "sharing.py"
    script.write_text(SCENARIO)
    outs = both_outputs(script, method)
    # (PyTorch's own: the sender sees the receiver's writes through x, the view and w)
    assert "sender True True True [[-1.0, 10.0, 20.0], [3.0, 40.0, 50.0]]" in outs[0]
    assert outs[1] == outs[0]


def _round_trip(obj):
    return ForkingPickler.loads(ForkingPickler.dumps(obj))


@pytest.mark.parametrize("lib", [torch, cr], ids=["torch", "chainrule"])
def test_a_round_trip_in_one_process_lands_in_the_same_memory(lib):
    t = lib.arange(4.0)
    view = t[1:]
    back, back_view = _round_trip((t, view))
    assert t.is_shared() and view.is_shared()
    # (the receiver's cache of memory files: the sender's own mapping, at its address)
    assert back.data_ptr() == t.data_ptr()
    assert back_view.data_ptr() == t.data_ptr() + 4 and back_view.storage_offset() == 1
    back_view.fill_(7.0)
    assert t.tolist() == [0.0, 7.0, 7.0, 7.0]


def _sent(lib):
    """What arrives of several kinds of tensors, in the same process."""
    t = lib.ones(2)
    t.note = "stays"
    empty = lib.ones(0)
    strided = lib.arange(6.0).reshape(2, 3).t()
    storage = lib.arange(3.0)
    held = storage.untyped_storage()
    frozen = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    got = _round_trip([t, empty, strided, storage, frozen])
    return [
        hasattr(got[0], "note"),
        [empty.is_shared(), got[1].is_shared(), got[1].tolist()],
        [got[2].stride(), got[2].tolist(), got[2].is_contiguous()],
        [held.is_shared(), held.data_ptr() == storage.data_ptr()],
        [type(got[4]).__name__, got[4].requires_grad],
    ]


def test_what_travels_and_what_stays_as_pytorch():
    assert _sent(cr) == _sent(torch)


class TaggedTorch(torch.Tensor):
    pass


class TaggedOurs(cr.Tensor):
    pass


def _subclass_and_hooks(lib, tagged):
    t = lib.ones(3).as_subclass(tagged)
    t.tag = 2
    hooked = lib.ones(2, requires_grad=True)
    hooked.register_hook(lambda g: g)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _round_trip((t, hooked))
    return [
        type(got[0]) is tagged,
        got[0].tag,
        t.is_shared(),
        got[1].requires_grad,
        [str(w.message).split(" at ")[0] for w in caught if "hook" in str(w.message)],
    ]


def test_subclasses_keep_their_class_and_hooks_stay_behind_with_a_warning():
    assert _subclass_and_hooks(cr, TaggedOurs) == _subclass_and_hooks(torch, TaggedTorch)


def test_share_memory_moves_the_whole_storage_with_its_views():
    def fn(lib):
        x = lib.arange(4.0)
        v = x[1:]
        before = [x.is_shared(), v.is_shared()]
        v.share_memory_()
        x[1] = 9.0
        return [before, x.is_shared(), v.is_shared(), v.storage_offset(), v.tolist(),
                lib.ones(0).share_memory_().is_shared()]  # fmt: skip

    assert fn(cr) == fn(torch)


def test_the_sharing_strategies_are_pytorchs():
    mp_ours, mp_theirs = cr.multiprocessing, torch.multiprocessing
    assert mp_ours.get_all_sharing_strategies() == mp_theirs.get_all_sharing_strategies()
    assert mp_ours.get_sharing_strategy() == mp_theirs.get_sharing_strategy()
    errors = []
    for mp in (mp_ours, mp_theirs):
        with pytest.raises(AssertionError) as caught:
            mp.set_sharing_strategy("bogus")
        errors.append(str(caught.value))
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
        mp.set_sharing_strategy("file_descriptor")
    assert errors[0] == errors[1]


def test_a_tensor_made_over_the_old_memory_after_a_move_brings_its_values_over():
    # (chainrule's own case: PyTorch frees the old memory, chainrule's NumPy arrays keep it)
    t = cr.arange(4.0)
    old = t.numpy()  # (an array over t's memory: it does not follow the move)
    _round_trip(t)
    late = cr.from_numpy(old[2:])
    late.fill_(5.0)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and not late.is_shared()
    back = _round_trip(late)
    assert late.is_shared() and back.tolist() == [5.0, 5.0]
    assert t.tolist() == [0.0, 1.0, 5.0, 5.0]  # (its values went to its place in t's storage)
