"""``torch.distributed._tensor`` (the old name of ``torch.distributed.tensor``) and
``torch.distributed.tensor.experimental.implicit_replication`` beside PyTorch's: the same
names, and the context running plain-tensor code unchanged (opacus imports both)."""

from __future__ import annotations

import importlib

import numpy as np
import torch.distributed._tensor.experimental
import torch.distributed.tensor.experimental  # noqa: F401

import chainrule.distributed._tensor.experimental
import chainrule.distributed.tensor.experimental  # noqa: F401
from oracle import compare


def test_old_package_has_the_names_of_the_new_one():
    for lib in (chainrule, torch):
        old, new = lib.distributed._tensor, lib.distributed.tensor
        for name in ("DTensor", "DeviceMesh", "Placement", "Replicate", "Shard", "Partial"):
            assert getattr(old, name) is getattr(new, name), (lib.__name__, name)
        old_experimental = importlib.import_module(f"{old.__name__}.experimental")
        assert old_experimental.implicit_replication is new.experimental.implicit_replication


def test_implicit_replication_leaves_plain_tensors_alone():
    def fn(lib):
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        with lib.distributed.tensor.experimental.implicit_replication() as entered:
            y = (x * 2).sum(0)
        y.sum().backward()
        return y, x.grad, entered

    compare(fn)
