"""``torch.export.unflatten``: the module hierarchy of an exported program, checked
against PyTorch's unflatten of the same program (submodule tree, each graph and its
code, parameter and buffer names, outputs), for chainrule's exports, for programs read
from PyTorch's ``.pt2`` files, and for chainrule's files read by PyTorch."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from export_checks import modules, same

import chainrule as cr
import chainrule.export as cexport


def _mlp(lib: Any, kind: str) -> Any:
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 3), nn.Tanh()))


class _Net:
    """A module calling ``fc`` three times, a batch norm and an unused layer."""

    @staticmethod
    def make(lib: Any, kind: str) -> Any:
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.unused = nn.Linear(2, 2)
                self.bn = nn.BatchNorm1d(4)
                self.seq = nn.Sequential(nn.ReLU(), nn.Linear(4, 4))

            def forward(self, x: Any) -> Any:
                y = self.fc(self.fc(x))
                z = self.bn(y)
                return self.seq(z) + self.fc(z), y

        return Net()


def _cnn(lib: Any, kind: str) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU()),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16, 3),
    )


_MODELS = {
    "mlp": (_mlp, (3, 4)),
    "net": (_Net.make, (3, 4)),
    "cnn": (_cnn, (2, 2, 4, 4)),
}


def _tree(u: Any) -> list[tuple]:
    """Each submodule: its name, class, the type it stands for, its graph and code."""
    rows = []
    for name, m in u.named_modules():
        graph = m.__dict__.get("graph")
        gm = m.__dict__.get("graph_module")
        ty = m.type_name() if hasattr(m, "type_name") else None
        rows.append((name, type(m).__name__, ty, str(graph), gm.code if gm else None))
    return rows


def _state(u: Any) -> tuple:
    return [n for n, _ in u.named_parameters()], [n for n, _ in u.named_buffers()]


def _programs(name: str, mode: str = "eval") -> tuple:
    make, shape = _MODELS[name]
    tm, cm = modules(make, name)
    if mode == "eval":
        tm, cm = tm.eval(), cm.eval()
    x = np.random.default_rng(0).standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, (torch.tensor(x),))
    return want, cexport.export(cm, (cr.tensor(x),)), x


def _unflat_torch(ep: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.unflatten(ep)


@pytest.mark.parametrize("name", ["mlp", "net", "cnn"])
def test_unflatten_of_export_is_pytorchs(name: str) -> None:
    want, got, x = _programs(name)
    tu, cu = _unflat_torch(want), cexport.unflatten(got)
    assert type(cu).__name__ == "UnflattenedModule"
    assert str(cu) == str(tu)
    assert _tree(cu) == _tree(tu)
    assert _state(cu) == _state(tu)
    assert list(cu.state_dict()) == list(tu.state_dict())
    same(cu(cr.tensor(x)), tu(torch.tensor(x)))


def test_submodules_run_alone_and_hold_copies() -> None:
    want, got, x = _programs("mlp")
    tu, cu = _unflat_torch(want), cexport.unflatten(got)
    h = np.random.default_rng(1).standard_normal((3, 8))
    same(getattr(cu, "2")(cr.tensor(h)), getattr(tu, "2")(torch.tensor(h)))
    weight = getattr(cu, "0").weight
    assert isinstance(weight, cr.nn.Parameter) and weight.requires_grad
    assert weight is not got.state_dict["0.weight"]
    cu(cr.tensor(x)).sum().backward()
    tu(torch.tensor(x)).sum().backward()
    same(weight.grad, getattr(tu, "0").weight.grad)


def test_unflatten_of_pytorch_file(tmp_path: Any) -> None:
    want, _, x = _programs("net")
    torch.export.save(want, tmp_path / "net.pt2")
    loaded = cexport.load(tmp_path / "net.pt2")
    tu, cu = _unflat_torch(want), cexport.unflatten(loaded)
    assert str(cu) == str(tu)
    assert _tree(cu) == _tree(tu)
    same(cu(cr.tensor(x)), tu(torch.tensor(x)))


def test_pytorch_unflattens_chainrule_file(tmp_path: Any) -> None:
    want, got, x = _programs("net")
    cexport.save(got, tmp_path / "net.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "net.pt2")
    assert _tree(_unflat_torch(loaded)) == _tree(_unflat_torch(want))


def test_train_mode_batch_norm_writes_its_buffers() -> None:
    want, got, x = _programs("cnn", mode="train")
    tu, cu = _unflat_torch(want), cexport.unflatten(got)
    assert _tree(cu) == _tree(tu)
    same(cu(cr.tensor(x)), tu(torch.tensor(x)))
    for (n, a), (m, b) in zip(cu.named_buffers(), tu.named_buffers()):
        assert n == m
        same(a, b)
    assert int(getattr(getattr(cu, "0"), "1").num_batches_tracked) == 1


def test_unflatten_needs_module_stacks() -> None:
    want, got, _ = _programs("mlp")
    for node in got.graph.nodes:
        node.meta.pop("nn_module_stack", None)
    with pytest.raises(RuntimeError, match="nn_module_stack"):
        cexport.unflatten(got)
