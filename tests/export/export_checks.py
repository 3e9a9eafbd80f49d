"""What the export tests share: a module made in both libraries with the same weights,
outputs compared in float64, the printed program without PyTorch's source-location
comments, and the check that chainrule's export is PyTorch's (node names, targets, code,
signature) and that its saved file runs in the real ``torch.export.load``."""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import chainrule as cr
import chainrule.export as cexport

_COMMENTS = ("# File", "# No stacktrace")


def printed(ep: Any) -> list[str]:
    """The non-blank lines of ``str(ep)`` but PyTorch's source-location comments."""
    return [
        line
        for line in str(ep).split("\n")
        if line.strip() and not line.strip().startswith(_COMMENTS)
    ]


def flat(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in flat(v)]
    return [x]


def same(got: Any, want: Any) -> None:
    """The same tensors (shapes, dtypes), values within 1e-10."""
    g, w = flat(got), flat(want)
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(
            a.detach().double().numpy(), b.detach().double().numpy(), rtol=1e-10, atol=1e-10
        )


def modules(make: Callable, kind: str) -> tuple:
    """PyTorch's and chainrule's module ``make(lib, kind)`` in float64, with PyTorch's
    weights (seeded)."""
    torch.manual_seed(0)
    tm = make(torch, kind).double()
    cm = make(cr, kind).double()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def pair(make: Callable, inputs: dict, kind: str) -> tuple:
    """``modules`` in eval mode, and ``inputs[kind]()`` for each."""
    tm, cm = (m.eval() for m in modules(make, kind))
    arrays = inputs[kind]()
    return tm, cm, tuple(torch.tensor(a) for a in arrays), tuple(cr.tensor(a) for a in arrays)


def forward_module(lib: Any, forward: Callable) -> Any:
    """A module of ``lib`` whose forward is ``forward(lib, x)``."""

    class M(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return forward(lib, x)

    return M()


def listed(out: Any) -> list:
    """A forward's outputs (a tensor, or tuples and lists of them) as (shape, dtype, values)."""
    if isinstance(out, (tuple, list)):
        return [item for t in out for item in listed(t)]
    return [(tuple(out.shape), str(out.dtype).split(".")[-1], out.tolist())]


def one_call_module(lib: Any, expr: str, n: int, plain: bool = False) -> Any:
    """A module of ``lib`` whose forward takes ``n`` inputs (``a``, ``b``, ...) and returns
    ``expr``, an expression of ``L`` (``lib``) and ``F`` (its nn.functional) (``plain``: a
    named tuple as a tuple, which PyTorch's own save cannot write)."""
    code = compile(expr, "<case>", "eval")

    def run(*args: Any) -> Any:
        out = eval(code, {"L": lib, "F": lib.nn.functional, **dict(zip("abcd", args))})
        return tuple(out) if plain and isinstance(out, tuple) else out

    forwards = {
        1: lambda self, a: run(a),
        2: lambda self, a, b: run(a, b),
        3: lambda self, a, b, c: run(a, b, c),
    }
    return type("One", (lib.nn.Module,), {"forward": forwards[n]})()


def one_call_pair(expr: str, arrays: list, plain: bool = False) -> tuple:
    """``one_call_module`` of PyTorch and of chainrule, and ``arrays`` as each one's inputs."""
    return (
        one_call_module(torch, expr, len(arrays), plain),
        one_call_module(cr, expr, len(arrays), plain),
        tuple(torch.tensor(a) for a in arrays),
        tuple(cr.tensor(a) for a in arrays),
    )


def export_is_pytorchs(tm: Any, cm: Any, targs: tuple, cargs: tuple, path: Any) -> None:
    """chainrule's export of ``cm`` is PyTorch's of ``tm`` and runs to its outputs, on
    chainrule and saved into the real ``torch.export.load``. (Warnings are PyTorch's
    deprecation notes and the modules' own, checked where they matter.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.export.export(tm, targs)
        got = cexport.export(cm, cargs)
        expected = tm(*targs)
        computed = got.module()(*cargs)
    assert [(n.op, n.name) for n in got.graph.nodes] == [(n.op, n.name) for n in want.graph.nodes]
    assert [str(n.target) for n in got.graph.nodes if n.op == "call_function"] == [
        str(n.target) for n in want.graph.nodes if n.op == "call_function"
    ]
    assert got.graph_module.code == want.graph_module.code
    assert str(got.graph_signature) == str(want.graph_signature)
    same(computed, expected)
    cexport.save(got, path / "m.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = torch.export.load(path / "m.pt2")
        ran = loaded.module()(*targs)
    assert loaded.graph_module.code == want.graph_module.code
    same(ran, expected)


def decomposed_programs(make: Callable, arrays: list) -> tuple:
    """PyTorch's module ``make(torch)`` and chainrule's ``make(cr)`` (float64, eval,
    PyTorch's weights in both), each exported with ``arrays`` and decomposed to core ATen:
    (PyTorch's module, its program, chainrule's program, PyTorch's inputs, chainrule's)."""
    torch.manual_seed(0)
    tm = make(torch).double().eval()
    cm = make(cr).double().eval()
    cm.load_state_dict({k: cr.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(cr.tensor(a) for a in arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's notes (masks of two types, ...), export's own
        want = torch.export.export(tm, targs).run_decompositions()
        got = cexport.export(cm, cargs).run_decompositions()
    return tm, want, got, targs, cargs


def decomposed_program_runs(tm: Any, got: Any, targs: tuple, cargs: tuple) -> None:
    """chainrule's decomposed program ``got`` runs to PyTorch's module's outputs, on
    chainrule and saved into the real ``torch.export.load``."""
    buffer = io.BytesIO()
    cexport.save(got, buffer)
    buffer.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the modules' own notes, kl_div's on its mean)
        expected = tm(*targs)
        computed = got.module()(*cargs)
        loaded = torch.export.load(buffer).module()(*targs)
    same(computed, expected)
    same(loaded, expected)
