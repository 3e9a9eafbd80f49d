"""The PyTorch behaviour x-transformers reaches for, against PyTorch: ``torch.einsum`` of
operands of different dtypes (x-transformers' scaled sinusoidal embedding multiplies integer
positions by float frequencies with ``einsum('i, j -> i j', ...)``). PyTorch promotes where a
pair of operands has no label to sum (it multiplies them elementwise) and asks for one dtype
where it has one (a batched matmul), naming the left operand's dtype first. And
``torch.export``/``torch.jit.trace`` of its attention: the calls it makes (einsum, unbind,
subtract, full_like, scaled_dot_product_attention, normalize, any/all, ``~``, reshape_as)
written as PyTorch writes them, in a program PyTorch loads.
"""

from __future__ import annotations

import numpy as np
import pytest

import chainrule as cr
from oracle import assert_same_error

torch = pytest.importorskip("torch")

LONG = [0, 1, 2]
FLOAT = [1.5, 2.0, 3.0]
BOOL = [True, False, True]
MATRIX = [[0, 1, 2], [3, 4, 5]]


def _t(lib, values: list, dtype: str):
    return lib.tensor(values, dtype=getattr(lib, dtype))


PROMOTING = [
    ("i,j->ij", [(LONG, "int64"), (FLOAT, "float32")]),
    ("i,j->ij", [(FLOAT, "float32"), (LONG, "int64")]),
    ("i,i->i", [(LONG, "int64"), (FLOAT, "float32")]),
    ("i,j->ij", [(FLOAT, "float32"), (FLOAT, "float64")]),
    ("i,i,i->i", [(LONG, "int64"), (FLOAT, "float32"), (FLOAT, "float32")]),
    ("i,i,i->", [(LONG, "int64"), (FLOAT, "float32"), (FLOAT, "float32")]),
    ("i,j,k->ijk", [(LONG, "int64"), (FLOAT, "float32"), (FLOAT, "float64")]),
    ("ij,j->ij", [(MATRIX, "int64"), (FLOAT, "float32")]),
    ("ij,j->j", [(MATRIX, "int64"), (FLOAT, "float32")]),
    ("i,j->ij", [(LONG, "int64"), (BOOL, "bool")]),
    ("i,j->ij", [(BOOL, "bool"), (BOOL, "bool")]),
    ("i,j->ij", [(LONG, "int32"), (LONG, "uint8")]),
    ("i,->i", [(LONG, "int64"), (2.5, "float32")]),
    ("i,->", [(LONG, "int64"), (2.5, "float32")]),
    ("i,->i", [(FLOAT, "float32"), (3.0, "float64")]),  # (a 0-d operand promotes too)
    (",i->i", [(2, "int64"), (FLOAT, "float32")]),
    ("i,->i", [(FLOAT, "float16"), (3.0, "float64")]),
]


@pytest.mark.parametrize("equation, operands", PROMOTING)
def test_einsum_promotes_pairs_without_a_sum(equation: str, operands: list) -> None:
    want = torch.einsum(equation, *[_t(torch, v, d) for v, d in operands])
    got = cr.einsum(equation, *[_t(cr, v, d) for v, d in operands])
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


REFUSING = [
    ("i,i->", [(LONG, "int64"), (FLOAT, "float32")]),
    ("i,i->", [(FLOAT, "float32"), (LONG, "int64")]),
    ("ij,jk->ik", [(MATRIX, "int64"), (np.ones((3, 2)).tolist(), "float32")]),
    ("i,i->", [(FLOAT, "float32"), (FLOAT, "float64")]),
    ("ij,j->i", [(MATRIX, "int64"), (FLOAT, "float32")]),
    ("i,i->", [(LONG, "int64"), (BOOL, "bool")]),
    ("i,i->", [(BOOL, "bool"), (BOOL, "bool")]),
]


@pytest.mark.parametrize("equation, operands", REFUSING)
def test_einsum_sums_need_one_dtype(equation: str, operands: list) -> None:
    assert_same_error(lambda lib: lib.einsum(equation, *[_t(lib, v, d) for v, d in operands]))


def test_einsum_mixed_dtypes_gradients() -> None:
    grads = []
    for lib in (torch, cr):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0, 5.0], dtype=lib.float64, requires_grad=True)
        out = lib.einsum("i,j->ij", a, b)
        (out * lib.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
        grads.append((str(out.dtype), a.grad.dtype, a.grad.numpy(), b.grad.numpy()))
    (want_dt, want_adt, want_a, want_b), (got_dt, got_adt, got_a, got_b) = grads
    assert got_dt == want_dt
    assert str(got_adt) == str(want_adt)
    np.testing.assert_allclose(got_a, want_a)
    np.testing.assert_allclose(got_b, want_b)


def _attention_bits(lib):
    """A module making the calls of x-transformers' attention, masks, rotary embeddings
    and norms that export writes as ATen calls."""
    F = lib.nn.functional

    class Bits(lib.nn.Module):
        def forward(self, q, k, v, m):
            a, b = q[..., :2].unbind(-1)
            sim = lib.einsum("b h i d, b h j d -> b h i j", q, k)
            return (
                F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
                F.scaled_dot_product_attention(q, k, v, is_causal=True),
                lib.subtract(q, k),
                lib.subtract(q, k, alpha=2),
                lib.full_like(q, 2.0),
                lib.full_like(q, 2, dtype=lib.int64),
                a,
                b,
                sim,
                F.normalize(q, dim=-1),
                F.normalize(q, p=1, dim=(0, 1), eps=1e-3),
                ~m,
                m.any(-1),
                m.any(),
                m.all(-1, keepdim=True),
                lib.any(m, dim=(0, 1)),
                q.reshape_as(sim.transpose(-1, -2)),
            )

    g = np.random.default_rng(0)
    q, k, v = (lib.tensor(g.standard_normal((1, 2, 4, 4)), dtype=lib.float32) for _ in range(3))
    m = lib.tensor([[True, False, True, True]] * 4)
    return Bits(), (q, k, v, m)


def test_export_writes_attention_calls_as_pytorch() -> None:
    """The graph chainrule's export writes is PyTorch's, call for call, and runs to the
    module's results; the program saved by chainrule loads into PyTorch."""
    want_module, want_args = _attention_bits(torch)
    got_module, got_args = _attention_bits(cr)
    want = torch.export.export(want_module, want_args)
    got = cr.export.export(got_module, got_args)
    assert got.graph_module.code == want.graph_module.code
    for ours, theirs in zip(got.module()(*got_args), want_module(*want_args)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)


def test_export_saved_by_chainrule_loads_in_pytorch(tmp_path) -> None:
    got_module, got_args = _attention_bits(cr)
    cr.export.save(cr.export.export(got_module, got_args), tmp_path / "bits.pt2")
    loaded = torch.export.load(tmp_path / "bits.pt2")
    want_module, want_args = _attention_bits(torch)
    for ours, theirs in zip(loaded.module()(*want_args), want_module(*want_args)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)
