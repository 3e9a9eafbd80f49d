"""torch.jit.trace of code whose result sizes depend on the data (``unique``, ``nonzero``,
a boolean mask, ``bincount``, ``repeat_interleave``): chainrule's trace against the real
``torch.jit.trace`` of the same code. Its ``.code`` writes the calls as PyTorch's does
(``_0, _1, _2 = torch._unique2(x)``), neither has size checks, and the traced module, its
saved archive in PyTorch's ``torch.jit.load`` and PyTorch's saved trace in chainrule's
``torch.jit.load`` give PyTorch's eager outputs on inputs with other counts."""

from __future__ import annotations

import io
import re

import pytest
import torch

import chainrule as cr
import chainrule.jit as cjit

pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning", "ignore::FutureWarning", "ignore::torch.jit.TracerWarning"
)

VECTOR = [3, 1, 2, 3, 1]
OTHERS = [[0, 4, 4, 2, 1, 0, 7, 7, 7], [5, 5], [2, 0, 1]]  # (other lengths and counts)

# name -> the forward, the same code for torch and chainrule (``t`` the library)
CASES = {
    "unique_times_two": lambda t, x: t.unique(x) * 2,
    "unique_all": lambda t, x: t.unique(x, return_inverse=True, return_counts=True),
    "unique_unsorted": lambda t, x: t.unique(x, sorted=False).sort()[0],
    "unique_dim": lambda t, x: t.unique(x, dim=0, return_inverse=True),
    "unique_consecutive": lambda t, x: t.unique_consecutive(x),
    "unique_consecutive_all": lambda t, x: t.unique_consecutive(
        x, return_inverse=True, return_counts=True
    ),
    "nonzero": lambda t, x: t.nonzero(x),
    "nonzero_as_tuple": lambda t, x: t.nonzero(x, as_tuple=True),
    "where_condition": lambda t, x: t.where(x > 1),
    "boolean_mask": lambda t, x: x[x > 1],
    "masked_select": lambda t, x: t.masked_select(x, x > 1),
    "bincount": lambda t, x: t.bincount(x),
    "repeat_interleave": lambda t, x: t.repeat_interleave(x, x),
    "argwhere": lambda t, x: t.argwhere(x),
}
# the 2-d cases: ``where`` of a matrix gives one index tensor per dim
MATRIX_CASES = {
    "where_matrix": lambda t, x: t.where(x.view(-1, 1) > 1),
    "nonzero_matrix": lambda t, x: t.nonzero(x.view(-1, 1) - 1, as_tuple=True),
}
ALL = {**CASES, **MATRIX_CASES}


def _module(t, forward):
    class Model(t.nn.Module):
        def forward(self, x):
            return forward(t, x)

    return Model()


def _leaves(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _same(got, want):
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert list(g.shape) == list(w.shape) and g.tolist() == w.tolist()


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """name -> (chainrule's trace, PyTorch's trace, the path of each's saved archive)."""
    folder = tmp_path_factory.mktemp("data_dependent")
    out = {}
    for name, forward in ALL.items():
        ours = cjit.trace(_module(cr, forward), (cr.tensor(VECTOR),))
        theirs = torch.jit.trace(_module(torch, forward), (torch.tensor(VECTOR),))
        ours.save(str(folder / f"{name}_cr.pt"))
        theirs.save(str(folder / f"{name}_pt.pt"))
        out[name] = (ours, theirs, folder / f"{name}_cr.pt", folder / f"{name}_pt.pt")
    return out


# PyTorch's trace keeps a Python number of an arithmetic call as a tensor constant
SCALAR_CONSTANTS = {"unique_times_two": "2", "nonzero_matrix": "1"}


@pytest.mark.parametrize("name", list(ALL))
def test_code_is_pytorchs(traces, name):
    """The same text as PyTorch's trace: calls of several results unpacked
    (``_0, _1, _2 = torch._unique2(x)``), values read once written inside their reader,
    no size checks."""
    ours, theirs = traces[name][:2]
    want = theirs.code
    if name in SCALAR_CONSTANTS:
        want = want.replace("CONSTANTS.c0", SCALAR_CONSTANTS[name])
    assert ours.code == want
    for forbidden in ("sym_size", "_assert", "sym_constrain", "ge(", "le(", "TupleIndex"):
        assert forbidden not in ours.code and forbidden not in ours.graph


def test_exact_code_of_multi_result_calls(traces):
    assert traces["unique_all"][0].code == (
        "def forward(self,\n    x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:\n"
        "  _0, _1, _2 = torch._unique2(x, True, True, True)\n"
        "  return (_0, _1, _2)\n"
    )
    assert "  _0, = torch.nonzero_numpy(x)\n" in traces["nonzero_as_tuple"][0].code
    assert "  _1, _2, = _0\n" in traces["where_matrix"][0].code  # (a long call taken out)
    assert "annotate(List[Optional[Tensor]], [torch.gt(x, 1)])" in traces["boolean_mask"][0].code


def test_graph_writes_several_results_on_one_line(traces):
    graph = traces["unique_all"][0].graph
    assert re.search(
        r"%\w+ : Long\(\*\), %\w+ : Long\(5\), %\w+ : Long\(\*\) = aten::_unique2", graph
    )
    graph = traces["where_matrix"][0].graph
    assert re.search(r"%(\w+) : Tensor\[\] = aten::where\(%\w+\)\n", graph)
    assert re.search(r"%\w+ : Long\(\*\), %\w+ : Long\(\*\) = prim::ListUnpack\(%\w+\)", graph)
    assert "aten::nonzero(%x)" in traces["nonzero"][0].graph
    assert "Long(*, 1)" in traces["nonzero"][0].graph


@pytest.mark.parametrize("name", list(ALL))
def test_trace_runs_on_other_counts(traces, name):
    ours, theirs, ours_path, theirs_path = traces[name]
    pytorch_loads_ours = torch.jit.load(str(ours_path))
    we_load_pytorchs = cjit.load(str(theirs_path))
    we_load_ours = cjit.load(str(ours_path))
    for values in OTHERS:
        want = ALL[name](torch, torch.tensor(values))
        _same(theirs(torch.tensor(values)), want)
        _same(ours(cr.tensor(values)), want)
        _same(pytorch_loads_ours(torch.tensor(values)), want)
        _same(we_load_pytorchs(cr.tensor(values)), want)
        _same(we_load_ours(cr.tensor(values)), want)


def test_float_mask_gradient_flows_through_replay():
    """x[x > 0] keeps the gradient of the selected entries, as PyTorch's trace does."""

    def forward(t, x):
        return (x[x > 0] * 3).sum()

    ours = cjit.trace(_module(cr, forward), (cr.tensor([1.0, -2.0, 3.0]),))
    x = cr.tensor([0.5, -1.0, 2.0, 4.0, -3.0], requires_grad=True)
    ours(x).backward()
    xt = torch.tensor([0.5, -1.0, 2.0, 4.0, -3.0], requires_grad=True)
    forward(torch, xt).backward()
    assert x.grad.tolist() == xt.grad.tolist()
    buffer = io.BytesIO()
    cjit.save(ours, buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    assert loaded(torch.tensor([1.0, 2.0, -1.0])).item() == 9.0
