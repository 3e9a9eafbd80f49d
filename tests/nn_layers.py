"""What the layer tests of ``tests/nn/`` share (beside oracle.py): a layer built the same
way on both libraries, torch's state copied into chainrule's, run side by side.

``ctor(lib)`` builds the layer on ``lib`` (chainrule or torch). ``pair`` builds both, casts
them to the float dtype and loads torch's ``state_dict`` into chainrule's through NumPy, so
both start from the same parameters (random ones, away from the initial ones and zeros)
and buffers. ``check_module`` then compares the reprs,
the state-dict keys and shapes, the outputs (values, dtypes, ``requires_grad``, node
names), the gradients of the inputs and of every parameter after a backward with a random
non-scalar gradient, and the buffers after the call (running statistics).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import chainrule as cr
from oracle import assert_same, assert_same_grad, rng, to_lib, to_numpy

LIBS = (cr, torch)


def lib_dtype(lib: Any, dtype: Any) -> Any:
    """``lib``'s dtype for a NumPy dtype (``np.float32`` -> ``lib.float32``)."""
    return getattr(lib, np.dtype(dtype).name)


def pair(ctor: Callable[[Any], Any], dtype: Any = np.float32) -> tuple[Any, Any]:
    """(chainrule's module, torch's): built by ``ctor``, cast to ``dtype``, chainrule's
    loaded with torch's state."""
    tm = ctor(torch).to(lib_dtype(torch, dtype))
    cm = ctor(cr).to(lib_dtype(cr, dtype))
    with torch.no_grad():  # parameters away from their initial ones and zeros
        for i, p in enumerate(tm.parameters()):
            p.copy_(torch.from_numpy(rng(100 + i).uniform(-1.5, 1.5, tuple(p.shape))))
    state = {k: cr.tensor(to_numpy(v)) for k, v in tm.state_dict().items()}
    cm.load_state_dict(state)
    return cm, tm


def state_shapes(m: Any) -> list:
    return [(k, tuple(v.shape), str(v.dtype)) for k, v in m.state_dict().items()]


def _tensors(out: Any) -> list:
    """The tensors of an output: itself, or those of a tuple or list."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [out] if isinstance(out, (cr.Tensor, torch.Tensor)) else []


def check_module(
    ctor: Callable[[Any], Any],
    *inputs: Any,
    dtype: Any = np.float32,
    train: bool = True,
    call: Callable[..., Any] | None = None,
    seed: int = 1234,
    rtol: float | None = None,
    atol: float | None = None,
) -> tuple[Any, Any]:
    """Run the layer ``ctor`` builds on ``inputs`` (NumPy arrays, floats requiring grad) in
    both libraries and compare everything; returns (chainrule's module, torch's).

    ``call(module, *tensors)`` replaces ``module(*tensors)`` where the call needs more.
    """
    cm, tm = pair(ctor, dtype)
    if not train:
        cm.eval()
        tm.eval()
    assert repr(cm) == repr(tm)
    assert state_shapes(cm) == state_shapes(tm)
    cin = [to_lib(cr, x, dtype) for x in inputs]
    tin = [to_lib(torch, x, dtype) for x in inputs]
    run = call or (lambda m, *xs: m(*xs))
    couts, touts = _tensors(run(cm, *cin)), _tensors(run(tm, *tin))
    assert len(couts) == len(touts)
    for i, (c, t) in enumerate(zip(couts, touts, strict=True)):
        assert_same(c, t, f"output {i}", rtol, atol)
        assert c.requires_grad == t.requires_grad, f"output {i} requires_grad"
        assert (c.grad_fn is None) == (t.grad_fn is None)
        if t.grad_fn is not None:
            assert c.grad_fn.name() == t.grad_fn.name(), (c.grad_fn.name(), t.grad_fn.name())
    differentiable = [(c, t) for c, t in zip(couts, touts, strict=True) if t.requires_grad]
    if differentiable:
        closs, tloss = 0, 0
        for k, (c, t) in enumerate(differentiable):
            g = rng(seed + k).standard_normal(tuple(t.shape)).astype(to_numpy(t).dtype)
            closs = closs + (c * cr.tensor(g)).sum()
            tloss = tloss + (t * torch.from_numpy(g)).sum()
        tloss.backward()
        closs.backward()
        for i, (c, t) in enumerate(zip(cin, tin, strict=True)):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                assert_same_grad(c.grad, t.grad, f"grad of input {i}", rtol, atol)
        tparams = dict(tm.named_parameters())
        cparams = dict(cm.named_parameters())
        assert list(cparams) == list(tparams)
        for name, p in tparams.items():
            assert_same_grad(cparams[name].grad, p.grad, f"grad of {name}", rtol, atol)
    for name, p in tm.named_parameters():  # layers that write their weights (max_norm)
        assert_same(dict(cm.named_parameters())[name], p, f"parameter {name}", rtol, atol)
    tbufs = dict(tm.named_buffers())
    cbufs = dict(cm.named_buffers())
    assert list(cbufs) == list(tbufs)
    for name, b in tbufs.items():
        assert_same(cbufs[name], b, f"buffer {name}", rtol, atol)
    return cm, tm


def uniform_stats(t: Any, bound: float) -> None:
    """``t``'s values look drawn from U(-bound, bound): inside the bounds, near both ends,
    mean about 0 and standard deviation about bound / sqrt(3)."""
    a = to_numpy(t).ravel()
    assert a.size >= 1000
    assert np.all(np.abs(a) <= bound * (1 + 1e-6))
    assert np.max(a) > 0.95 * bound and np.min(a) < -0.95 * bound
    assert abs(a.mean()) < 0.05 * bound
    assert abs(a.std() - bound / np.sqrt(3)) < 0.05 * bound
