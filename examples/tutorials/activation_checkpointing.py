"""The steps of PyTorch's activation checkpointing guides (``torch.utils.checkpoint``,
written for ``import torch``): a block run under ``checkpoint(..., use_reentrant=False)``
saves only its inputs and recomputes its activations in backward, with gradients equal
to those without it; the reentrant variant (``use_reentrant=True``) and its need for an
input that requires grad; ``checkpoint_sequential`` over the segments of an
``nn.Sequential``; random ops recomputed with the same random state
(``preserve_rng_state``); counting what is saved with ``saved_tensors_hooks`` to see
the memory saved; selective activation checkpointing with
``create_selective_checkpoint_contexts`` and a policy returning
``CheckpointPolicy.MUST_SAVE`` for matrix products and ``PREFER_RECOMPUTE`` for the rest
(and a list of ops as the policy); and the error for a checkpointed function whose
recomputation saves a different number of tensors. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the guides: no CUDA memory statistics, so what autograd saves is
counted with ``saved_tensors_hooks``; small sizes; checks printed where the guides show
memory plots. Under chainrule, which has no dispatcher, a selective-checkpointing policy
is asked about chainrule's own ops (``CheckpointedOp``), not ``torch.ops.aten`` overloads,
and only for ops whose outputs a node saves (see ``chainrule.utils.checkpoint``): the
``aten.mm``/``aten.addmm`` of the policy here match nothing, so everything is
recomputed; the outputs and gradients are the same."""

import functools

import torch
import torch.nn as nn
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    checkpoint_sequential,
    create_selective_checkpoint_contexts,
)

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


class Model(nn.Module):
    def __init__(self, dim=16, depth=4, use_checkpoint=False, **kwargs):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.use_checkpoint = use_checkpoint
        self.kwargs = kwargs

    def forward(self, x):
        for block in self.blocks:
            if self.use_checkpoint:
                x = checkpoint(block, x, **self.kwargs)
            else:
                x = block(x)
        return x


def count_saved(fn, *args):
    """How many tensors (and elements) autograd keeps for backward while running fn."""
    count = {"tensors": 0, "numel": 0}

    def pack(t):
        count["tensors"] += 1
        count["numel"] += t.numel()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(*args)
    return out, count


x = torch.randn(8, 16, requires_grad=True)
plain = Model()
ckpt = Model(use_checkpoint=True, use_reentrant=False)
ckpt.load_state_dict(plain.state_dict())

out_plain, saved_plain = count_saved(plain, x)
out_ckpt, saved_ckpt = count_saved(ckpt, x)
print(torch.allclose(out_plain, out_ckpt))
print(saved_plain["numel"] > saved_ckpt["numel"], saved_ckpt["tensors"] <= saved_plain["tensors"])
out_plain.pow(2).sum().backward()
grads_plain = [p.grad.clone() for p in plain.parameters()] + [x.grad.clone()]
x.grad = None
out_ckpt.pow(2).sum().backward()
grads_ckpt = [p.grad for p in ckpt.parameters()] + [x.grad]
print(all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grads_plain, grads_ckpt)))

# the reentrant variant
reentrant = Model(use_checkpoint=True, use_reentrant=True)
reentrant.load_state_dict(plain.state_dict())
x.grad = None
reentrant(x).pow(2).sum().backward()
print(
    all(torch.allclose(a, p.grad, atol=1e-6) for a, p in zip(grads_plain, reentrant.parameters()))
)
print(torch.allclose(x.grad, grads_plain[-1], atol=1e-6))
# with no input that requires grad, the reentrant variant computes no gradients
reentrant.zero_grad()
out = checkpoint(reentrant.blocks[0], torch.randn(8, 16), use_reentrant=True)
print(out.requires_grad)

# checkpoint_sequential
seq = nn.Sequential(*[Block(16) for _ in range(6)])
x = torch.randn(8, 16, requires_grad=True)
expected = seq(x)
expected.sum().backward()
grads = [p.grad.clone() for p in seq.parameters()]
seq.zero_grad()
out = checkpoint_sequential(seq, 3, x, use_reentrant=False)
out.sum().backward()
print(
    torch.allclose(out, expected),
    all(torch.allclose(g, p.grad) for g, p in zip(grads, seq.parameters())),
)


# random ops are recomputed with the same random state
def noisy(x):
    return nn.functional.dropout(x, p=0.5, training=True) * 3


x = torch.randn(100, requires_grad=True)
out = checkpoint(noisy, x, use_reentrant=False)
out.sum().backward()
print(torch.equal(x.grad != 0, out != 0))

# selective activation checkpointing
ops_to_save = [torch.ops.aten.mm.default, torch.ops.aten.addmm.default]


def policy_fn(ctx, op, *args, **kwargs):
    if op in ops_to_save:
        return CheckpointPolicy.MUST_SAVE
    else:
        return CheckpointPolicy.PREFER_RECOMPUTE


context_fn = functools.partial(create_selective_checkpoint_contexts, policy_fn)
block = Block(16)
x = torch.randn(8, 16, requires_grad=True)
expected = block(x)
expected.sum().backward()
grads = [p.grad.clone() for p in block.parameters()]
block.zero_grad()
out = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)
out.sum().backward()
print(
    torch.allclose(out, expected),
    all(torch.allclose(g, p.grad) for g, p in zip(grads, block.parameters())),
)

block.zero_grad()
context_fn = functools.partial(create_selective_checkpoint_contexts, ops_to_save)
out = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)
out.sum().backward()
print(all(torch.allclose(g, p.grad) for g, p in zip(grads, block.parameters())))
print([p.name for p in CheckpointPolicy])
