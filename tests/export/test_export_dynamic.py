"""chainrule.export.export with dynamic_shapes against the real torch.export.export:
the symbols (named as PyTorch names them), every value's symbolic sizes, the range
constraints, the errors; and the saved program run by the real torch.export.load at other
sizes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from export_checks import printed

import chainrule as cr
import chainrule.export as cexport

RNG = np.random.default_rng(5)


def _make(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(4, 3)

        def forward(self, x, y):
            h = self.fc(x).relu().sum(1)
            return h, lib.cat([y, y], 1) * 2, x.reshape(-1), y.flatten(1) + 1

    return Net().double()


def _pair():
    torch.manual_seed(0)
    tm, cm = _make(torch), _make(cr)
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def _both(tm, cm, arrays, spec):
    """PyTorch's and chainrule's exports; ``spec(lib)`` gives the dynamic_shapes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(
            tm, tuple(torch.tensor(a) for a in arrays), dynamic_shapes=spec(torch.export)
        )
    got = cexport.export(cm, tuple(cr.tensor(a) for a in arrays), dynamic_shapes=spec(cexport))
    return want, got


def _same(got, want):
    for a, b in zip(got, want):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)


SPECS = {
    "named and auto": lambda e: {
        "x": {0: e.Dim("batch", min=2, max=64)},
        "y": (e.Dim.AUTO, None, e.Dim.STATIC),
    },
    "shared dim": lambda e: {"x": {0: (d := e.Dim("n"))}, "y": {0: d}},
    "as a tuple, dynamic": lambda e: ({0: e.Dim.DYNAMIC}, {0: e.Dim.DYNAMIC, 2: e.Dim.DYNAMIC}),
}


@pytest.mark.parametrize("case", list(SPECS))
def test_dynamic_export_matches_pytorch_and_runs_at_other_sizes(tmp_path, case):
    tm, cm = _pair()
    n = 5
    arrays = (RNG.standard_normal((n, 4)), RNG.standard_normal((n, 2, 3)))
    want, got = _both(tm, cm, arrays, SPECS[case])
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints)
    assert got.graph_module.code == want.graph_module.code
    cexport.save(got, tmp_path / "d.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(tmp_path / "d.pt2")
    assert str(loaded.range_constraints) == str(want.range_constraints)
    assert printed(loaded) == printed(want)
    for m in (3, 9):
        xs = (
            torch.tensor(RNG.standard_normal((m, 4))),
            torch.tensor(RNG.standard_normal((m, 2, 3))),
        )
        _same(loaded.module()(*xs), tm(*xs))
        _same(got.module()(*(cr.tensor(t.numpy()) for t in xs)), tm(*xs))


def test_dim_and_hints_as_pytorch_has_them():
    for lib in (torch.export, cexport):
        assert repr(lib.Dim("b", min=3, max=4)) == "Dim('b', min=3, max=4)"
        assert repr(lib.Dim.DYNAMIC) == "DimHint(DYNAMIC)"
        assert repr(lib.Dim.AUTO) == "DimHint(AUTO)"
        assert repr(lib.Dim.STATIC) == "DimHint(STATIC)"
        b = lib.Dim("b")
        assert (b.__name__, b.min, str(b.max)) == ("b", 0, "int_oo")
    assert [d.__name__ for d in cexport.dims("h", "w")] == ["h", "w"]


def test_constraint_violations_raise_as_pytorch():
    tm, cm = _pair()
    x, y = RNG.standard_normal((5, 4)), RNG.standard_normal((5, 2, 3))
    out_of_range = lambda e: {"x": {0: e.Dim("b", min=3, max=4)}, "y": None}  # noqa: E731
    with pytest.raises(Exception, match=r"5 not in range \[3, 4\]") as want:
        _both(tm, cm, (x, y), out_of_range)
    assert type(want.value).__name__ == "ConstraintViolationError"
    with pytest.raises(RuntimeError, match=r"5 not in range \[3, 4\]") as got:
        cexport.export(cm, (cr.tensor(x), cr.tensor(y)), dynamic_shapes=out_of_range(cexport))
    assert type(got.value).__name__ == "ConstraintViolationError"
    one = lambda e: {"x": {0: e.Dim("b")}, "y": None}  # noqa: E731
    x1 = RNG.standard_normal((1, 4))
    with pytest.raises(Exception, match="specialized it to be a constant") as want:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.export.export(
                tm, (torch.tensor(x1), torch.tensor(y)), dynamic_shapes=one(torch.export)
            )
    with pytest.raises(RuntimeError, match="specialized it to be a constant") as got:
        cexport.export(cm, (cr.tensor(x1), cr.tensor(y)), dynamic_shapes=one(cexport))
    assert type(got.value).__name__ == type(want.value).__name__ == "UserError"


def test_auto_size_one_stays_static():
    tm, cm = _pair()
    arrays = (RNG.standard_normal((1, 4)), RNG.standard_normal((5, 2, 3)))
    want, got = _both(tm, cm, arrays, lambda e: {"x": {0: e.Dim.AUTO}, "y": None})
    assert printed(got) == printed(want)
    assert str(got.range_constraints) == str(want.range_constraints) == "{}"


def test_sizes_read_by_the_forward_are_sym_size_nodes():
    """PyTorch writes ``x.size(0)`` passed to ``view`` as a ``sym_size.int`` node of the
    input (test_export_sym_sizes.py has the models)."""

    class Viewer(cr.nn.Module):
        def forward(self, x):
            return x.view(x.size(0), -1)

    ep = cexport.export(Viewer(), (cr.ones(4, 2, 3),), dynamic_shapes={"x": {0: cexport.Dim("b")}})
    size, view = [n for n in ep.graph.nodes if n.op == "call_function"]
    assert (str(size.target), size.args[1]) == ("aten.sym_size.int", 0)
    assert view.args[1] == [size, -1]
    out = ep.module()(cr.ones(7, 2, 3))
    assert tuple(out.shape) == (7, 6)
