"""Sparse COO tensors (chainrule/sparse) against PyTorch: construction, printing, the ops
on them, their gradients (first and second order) and the embedding's sparse gradients
with the optimizers that take them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from tests.oracle import assert_same_error, error_of

import chainrule

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse invariant checks"),
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support"),  # (torch, in mm)
]


INDICES = [[0, 1, 1, 2, 0], [2, 0, 2, 1, 2]]  # (0, 2) twice: uncoalesced
VALUES = [3.0, -4.0, 5.0, 0.5, 2.0]


def _np(t) -> np.ndarray:
    if t.is_sparse:
        t = t.to_dense()
    return t.detach().numpy()


def _both(make):
    """``make(lib)`` run on chainrule and on torch."""
    return make(chainrule), make(torch)


def _same(a, b, tol: float = 1e-6) -> None:
    assert a.is_sparse == b.is_sparse
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _sparse(lib, requires_grad: bool = False, dtype=None):
    values = lib.tensor(VALUES, dtype=dtype or lib.float64)
    return lib.sparse_coo_tensor(lib.tensor(INDICES), values, (3, 3), requires_grad=requires_grad)


def test_repr_matches_pytorch():
    def make(lib):
        i = lib.tensor([[0, 1, 1], [2, 0, 2]])
        v = lib.tensor([3.0, 4.0, 5.0])
        out = [
            lib.sparse_coo_tensor(i, v, (2, 3)),
            lib.sparse_coo_tensor(i, v.double(), (2, 3), requires_grad=True),
            lib.sparse_coo_tensor(i, lib.tensor([3, 4, 5]), (2, 3)),
            lib.sparse_coo_tensor(i, lib.tensor([[3.0, 4], [5, 6], [7, 8]])),
            lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.long), lib.zeros(0), (2, 2)),
            lib.sparse_coo_tensor(i, v, (2, 3)) * 2,
            lib.sparse_coo_tensor([[0, 1]], [1, 2]),
            lib.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
            lib.tensor([[0.5, 0, 2], [0, 0, 1], [3, 0, 0]]).to_sparse().sin(),
        ]
        return [repr(t) for t in out]

    ours, theirs = _both(make)
    assert ours[:5] == theirs[:5]
    assert ours[5] == theirs[5]  # grad_fn=<MulBackward0> in both
    assert ours[6:] == theirs[6:]


def test_metadata():
    def make(lib):
        s = _sparse(lib)
        c = s.coalesce()
        return [
            s.layout == lib.sparse_coo,
            s.is_sparse,
            lib.ones(2).is_sparse,
            s.is_coalesced(),
            c.is_coalesced(),
            s._nnz(),
            c._nnz(),
            s.sparse_dim(),
            s.dense_dim(),
            tuple(s.shape),
            s.size(1),
            s.dim(),
            s.numel(),
            s.stride(),
            s.is_contiguous(),
            len(s),
            str(s.dtype),
            s.type(),
            c.indices().tolist(),
            c.values().tolist(),
            s._indices().tolist(),
            s._values().tolist(),
        ]

    ours, theirs = _both(make)
    assert ours == theirs


@pytest.mark.parametrize(
    "code",
    [
        "s.indices()",
        "s.values()",
        "s.numpy()",
        "s.tolist()",
        "s.data_ptr()",
        "s.item()",
        "s.reshape(9)",
        "lib.ones(2, 2).smm(lib.ones(2, 2))",
        "lib.sspaddmm(s, s, lib.ones(3, 2))",
        "s + lib.ones(3, 3)",
        "lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES[:3]), (3, 3))",
        "lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3,))",
        "lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (2, 3), "
        "check_invariants=True)",
        "lib.nn.Embedding(4, 2, sparse=True, scale_grad_by_freq=True)"
        "(lib.tensor([1, 1])).sum().backward()",
    ],
)
def test_errors_match_pytorch(code):
    def run(lib):
        s = _sparse(lib)  # noqa: F841 - used by the code
        return eval(code)

    assert_same_error(run)


def test_unsupported_op_raises_not_implemented():
    assert_same_error(
        lambda lib: _sparse(lib).exp(),
        "Could not run 'aten::exp' with arguments from the 'SparseCPU' backend.",
    )
    s = _sparse(chainrule)
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        s.cumsum(0)
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        chainrule.nn.functional.linear(chainrule.ones(2, 3), s)


OPS = {
    "to_dense": lambda lib, s, d: s.to_dense(),
    "coalesce": lambda lib, s, d: s.coalesce(),
    "neg": lambda lib, s, d: -s,
    "mul_number": lambda lib, s, d: s * 2.5,
    "rmul_number": lambda lib, s, d: 3 * s,
    "div_number": lambda lib, s, d: s / 4,
    "mul_dense": lambda lib, s, d: s * d,
    "dense_mul": lambda lib, s, d: d * s,
    "mul_sparse": lambda lib, s, d: s * (s * 2),
    "add_sparse": lambda lib, s, d: s + s * 3,
    "sub_sparse": lambda lib, s, d: s - s * 3,
    "dense_add": lambda lib, s, d: d + s,
    "dense_add_alpha": lambda lib, s, d: lib.add(d, s, alpha=2),
    "unary_sin": lambda lib, s, d: s.sin(),
    "unary_tanh": lambda lib, s, d: lib.tanh(s),
    "unary_abs": lambda lib, s, d: s.abs(),
    "pow": lambda lib, s, d: s.pow(2),
    "mm": lambda lib, s, d: lib.mm(s, d),
    "sparse_mm": lambda lib, s, d: lib.sparse.mm(s, d),
    "matmul": lambda lib, s, d: s @ d,
    "mv": lambda lib, s, d: s.mv(d[:, 0]),
    "addmm": lambda lib, s, d: lib.addmm(d, s, d, beta=0.5, alpha=2),
    "sparse_addmm": lambda lib, s, d: lib.sparse.addmm(d, s, d),
    "dense_mm_sparse": lambda lib, s, d: lib.mm(d, s),
    "sparse_mm_sparse": lambda lib, s, d: lib.mm(s, s.t()),
    "smm": lambda lib, s, d: lib.smm(s, d),
    "dsmm": lambda lib, s, d: lib.dsmm(s, d),
    "spmm": lambda lib, s, d: lib.spmm(s, d),
    "hspmm": lambda lib, s, d: lib.hspmm(s, d),
    "hsmm": lambda lib, s, d: lib.hsmm(s, d),
    "sspaddmm": lambda lib, s, d: lib.sspaddmm(s * 2, s, d, beta=2, alpha=3),
    "saddmm": lambda lib, s, d: lib.saddmm(s, s, d),
    "t": lambda lib, s, d: s.t(),
    "transpose": lambda lib, s, d: s.transpose(0, 1),
    "sum": lambda lib, s, d: s.sum(),
    "sum_dim": lambda lib, s, d: s.sum(0),
    "sparse_sum": lambda lib, s, d: lib.sparse.sum(s),
    "sparse_sum_dim": lambda lib, s, d: lib.sparse.sum(s, dim=1),
    "sparse_sum_dims": lambda lib, s, d: lib.sparse.sum(s, dim=(0, 1)),
    "softmax": lambda lib, s, d: lib.sparse.softmax(s, 1),
    "log_softmax": lambda lib, s, d: lib.sparse.log_softmax(s, 0),
    "norm": lambda lib, s, d: s.norm(),
    "sparse_mask": lambda lib, s, d: d.sparse_mask(s.coalesce()),
    "select": lambda lib, s, d: s[1],
    "select_dim1": lambda lib, s, d: s.select(1, 2),
    "unsqueeze": lambda lib, s, d: s.unsqueeze(0),
    "cat": lambda lib, s, d: lib.cat([s, s * 2]),
    "cat_dim1": lambda lib, s, d: lib.cat([s, s], dim=1),
    "stack": lambda lib, s, d: lib.stack([s, s]),
    "index_select": lambda lib, s, d: s.index_select(0, lib.tensor([2, 0, 2])),
    "clone": lambda lib, s, d: s.clone(),
    "to_float": lambda lib, s, d: s.float(),
    "to_dtype": lambda lib, s, d: s.to(lib.float32),
    "values": lambda lib, s, d: s.coalesce().values(),
}


# ops whose backward PyTorch cannot run on sparse tensors (cos, select_backward, expand ...
# have no sparse kernel): their values are compared with PyTorch's and chainrule's
# gradients are checked by finite differences (test_gradcheck_where_torch_cannot)
NO_TORCH_BACKWARD = {
    "cat", "cat_dim1", "index_select", "norm", "select", "select_dim1", "smm", "sum_dim",
    "unary_sin", "unary_tanh", "unsqueeze", "sparse_mm_sparse", "stack", "hspmm", "hsmm",
    "sspaddmm", "saddmm",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_value_and_gradients(name):
    """Values, and the gradients of the sparse tensor's values and of the dense operand."""
    backward = name not in NO_TORCH_BACKWARD
    rng = np.random.default_rng(len(name))
    dense = rng.standard_normal((3, 3))
    weights = {}

    def run(lib):
        v = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), v, (3, 3))
        d = lib.tensor(dense, requires_grad=True)
        out = OPS[name](lib, s, d)
        flat = out.to_dense() if out.is_sparse else out
        if flat.is_floating_point() and backward:
            w = weights.setdefault(tuple(flat.shape), rng.standard_normal(tuple(flat.shape)))
            (flat * lib.tensor(w)).sum().backward()
        return out, v.grad, d.grad

    (ours, gv, gd), (theirs, tv, td) = run(chainrule), run(torch)
    _same(ours, theirs)
    for a, b in ((gv, tv), (gd, td)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(NO_TORCH_BACKWARD))
def test_gradcheck_where_torch_cannot(name):
    """chainrule's gradients of those ops, for the values and the dense operand, against
    central differences in float64."""
    dense = np.random.default_rng(1).standard_normal((3, 3))

    def f(v, d):
        s = chainrule.sparse_coo_tensor(chainrule.tensor(INDICES), v, (3, 3))
        out = OPS[name](chainrule, s, d)
        return out.to_dense() if out.is_sparse else out

    v = chainrule.tensor(VALUES, dtype=chainrule.float64, requires_grad=True)
    d = chainrule.tensor(dense, requires_grad=True)
    assert chainrule.autograd.gradcheck(f, (v, d))
    assert chainrule.autograd.gradgradcheck(f, (v, d))


def test_sparse_leaf_grad_is_sparse_at_its_indices():
    def run(lib):
        s = _sparse(lib, requires_grad=True)
        w = lib.arange(9.0, dtype=lib.float64).reshape(3, 3)
        (s.to_dense() * w).sum().backward()
        g = s.grad
        return g.is_sparse, g.coalesce().indices().tolist(), _np(g), s.is_leaf, s.grad_fn

    ours, theirs = run(chainrule), run(torch)
    assert ours[0] == theirs[0] and ours[1] == theirs[1] and ours[3:] == theirs[3:]
    np.testing.assert_array_equal(ours[2], theirs[2])


def test_second_order_through_sparse_mm():
    """d/dv of (d/dx sum((S x)^3)) with S's values v: create_graph through the sparse ops."""

    def run(lib):
        v = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), v, (3, 3))
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = (lib.sparse.mm(s, x.unsqueeze(1)) ** 3).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        (gv,) = lib.autograd.grad(gx.sum(), v)
        return gx.detach().numpy(), gv.numpy()

    for a, b in zip(run(chainrule), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_to_sparse_and_back_with_gradient():
    data = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])

    def run(lib):
        x = lib.tensor(data, requires_grad=True)
        s = x.to_sparse()
        (s.to_dense() * lib.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=lib.float64)).sum().backward()
        hybrid = lib.tensor(data).to_sparse(1)
        return s.indices().tolist(), x.grad.numpy(), hybrid.indices().tolist(), _np(hybrid)

    ours, theirs = run(chainrule), run(torch)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    np.testing.assert_array_equal(ours[1], theirs[1])
    np.testing.assert_array_equal(ours[3], theirs[3])


def test_hybrid_values():
    def run(lib):
        v = lib.tensor([[1.0, 2], [3, 4], [5, 6]], dtype=lib.float64, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor([[0, 2, 0]]), v, (3, 2))
        out = s.to_dense() * lib.tensor([[1.0, -1], [2, 3], [0.5, 4]], dtype=lib.float64)
        out.sum().backward()
        return _np(s), _np(s.coalesce()), v.grad.numpy(), lib.sparse.sum(s, 1).to_dense()

    for a, b in zip(run(chainrule), run(torch)):
        np.testing.assert_allclose(
            _np(a) if hasattr(a, "is_sparse") else a, _np(b) if hasattr(b, "is_sparse") else b
        )


def _embedding_steps(lib, name: str, kwargs: dict, steps: int = 3) -> np.ndarray:
    e = lib.nn.Embedding(4, 2, sparse=True)
    with lib.no_grad():
        e.weight.copy_(lib.tensor([[0.5, -1.0], [1.5, 0.25], [-2.0, 3.0], [0.75, -0.5]]))
    opt = getattr(lib.optim, name)(e.parameters(), **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        (e(lib.tensor([[1, 3], [1, 0]])) ** 2).sum().backward()
        opt.step()
    return e.weight.detach().numpy()


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("SGD", {"lr": 0.1}),
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        ("SGD", {"lr": 0.1, "maximize": True}),
        ("Adagrad", {"lr": 0.1}),
        ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
        ("SparseAdam", {"lr": 0.1}),
        ("SparseAdam", {"lr": 0.1, "betas": (0.8, 0.9), "maximize": True}),
    ],
)
def test_optimizers_take_sparse_gradients(name, kwargs):
    np.testing.assert_allclose(
        _embedding_steps(chainrule, name, kwargs),
        _embedding_steps(torch, name, kwargs),
        rtol=1e-6,
        atol=1e-7,
    )


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("Adam", {}),
        ("AdamW", {}),
        ("RMSprop", {}),
        ("Adamax", {}),
        ("SGD", {"lr": 0.1, "weight_decay": 0.1}),
        ("Adagrad", {"weight_decay": 0.1}),
    ],
)
def test_optimizers_refuse_sparse_gradients(name, kwargs):
    assert_same_error(lambda lib: _embedding_steps(lib, name, kwargs, 1))


def test_sparse_adam_refuses_dense_gradients():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.sum().backward()
        lib.optim.SparseAdam([p]).step()

    assert_same_error(run)


def test_embedding_sparse_gradient():
    def run(lib):
        e = lib.nn.Embedding(5, 2, sparse=True, padding_idx=2)
        idx = lib.tensor([[0, 2], [2, 4]])
        (e(idx) * lib.tensor([1.0, -2.0])).sum().backward()
        (e(lib.tensor([4])) * 3).sum().backward()
        g = e.weight.grad
        return g.is_sparse, g.sparse_dim(), g.dense_dim(), _np(g), _np(g.coalesce())

    ours, theirs = run(chainrule), run(torch)
    assert ours[:3] == theirs[:3]
    np.testing.assert_array_equal(ours[3], theirs[3])
    np.testing.assert_array_equal(ours[4], theirs[4])


def test_sparse_gradient_added_to_a_dense_one():
    def run(lib):
        w = lib.nn.Parameter(lib.ones(4, 2))
        lib.nn.functional.embedding(lib.tensor([1, 1, 3]), w, sparse=True).sum().backward()
        (w * 2).sum().backward()
        return w.grad.is_sparse, w.grad.numpy()

    ours, theirs = run(chainrule), run(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])


def test_in_place_ops():
    def run(lib):
        d = lib.zeros(3, 3, dtype=lib.float64)
        s = _sparse(lib)
        d.add_(s, alpha=2)
        t = s.clone()
        t.mul_(3)
        t.add_(s)
        u = s.clone().zero_()
        return d.numpy(), _np(t), u._nnz(), _np(lib.zeros_like(s))

    for a, b in zip(run(chainrule), run(torch)):
        np.testing.assert_array_equal(a, b)


def test_check_sparse_tensor_invariants():
    def run(lib):
        with lib.sparse.check_sparse_tensor_invariants():
            inside = lib.sparse.check_sparse_tensor_invariants.is_enabled()
            err = error_of(
                lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 5]]), lib.tensor([1.0, 2]), (3,)),
                lib,
            )
        return inside, lib.sparse.check_sparse_tensor_invariants.is_enabled(), type(err), str(err)

    assert run(chainrule) == run(torch)


def test_deepcopy_and_detach():
    import copy

    s = _sparse(chainrule, requires_grad=True)
    c = copy.deepcopy(s)
    assert c.is_sparse and c.requires_grad and c is not s
    np.testing.assert_array_equal(_np(c), _np(s))
    d = s.detach()
    assert not d.requires_grad and d.is_sparse


def _checkpoint(lib) -> dict:
    """A sparse tensor, a coalesced one, and SGD's state with a sparse momentum buffer."""
    s = lib.sparse_coo_tensor([[0, 1, 0], [1, 0, 1]], [1.0, 2.0, 3.0], (2, 3))
    e = lib.nn.Embedding(4, 2, sparse=True)
    e(lib.tensor([1, 3, 1])).sum().backward()
    opt = lib.optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
    opt.step()
    return {"s": s, "c": s.coalesce(), "state": opt.state_dict(), "layout": lib.sparse_coo}


@pytest.mark.parametrize("saver, loader", [(chainrule, torch), (torch, chainrule)])
def test_save_and_load_with_pytorch(tmp_path, saver, loader):
    """Sparse tensors move between the libraries' files both ways (PyTorch's
    ``_rebuild_sparse_tensor``), their coalesced flag kept."""
    path = tmp_path / "sparse.pt"
    saver.save(_checkpoint(saver), path)
    got = loader.load(path)
    assert got["s"].is_sparse and got["c"].is_sparse
    assert (got["s"].is_coalesced(), got["c"].is_coalesced()) == (False, True)
    assert got["c"].indices().tolist() == [[0, 1], [1, 0]]
    np.testing.assert_array_equal(_np(got["s"]), [[0, 4, 0], [2, 0, 0]])
    buf = got["state"]["state"][0]["momentum_buffer"]
    assert buf.is_sparse
    np.testing.assert_array_equal(_np(buf), [[0, 0], [2, 2], [0, 0], [1, 1]])
    assert got["layout"] == loader.sparse_coo


def test_load_checks_indices_against_the_size(tmp_path):
    """A file's sparse tensor whose indices are out of its size is refused on load."""
    path = tmp_path / "bad.pt"
    bad = torch.sparse_coo_tensor([[0, 7]], [1.0, 2.0], (3,), check_invariants=False)
    torch.save(bad, path)
    with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
        chainrule.load(path)


@pytest.mark.parametrize(
    "mode, two_d, last, weighted",
    [
        ("sum", False, False, True),
        ("sum", True, False, False),
        ("mean", False, False, False),
        ("mean", False, True, False),
        ("mean", True, False, False),
    ],
)
def test_embedding_bag_sparse_gradient(mode, two_d, last, weighted):
    """EmbeddingBag(sparse=True): one gradient element per index read (none for padding),
    per_sample_weights' gradient, and a SparseAdam step, as PyTorch's."""

    def run(lib):
        e = lib.nn.EmbeddingBag(5, 2, mode=mode, sparse=True, padding_idx=3,
                                include_last_offset=last)  # fmt: skip
        with lib.no_grad():
            e.weight.copy_(lib.arange(10.0).reshape(5, 2) / 7)
        if two_d:
            inp, off = lib.tensor([[0, 2, 3], [2, 4, 1]]), None
        else:
            inp, off = lib.tensor([0, 2, 3, 2, 4, 1]), lib.tensor([0, 3, 6] if last else [0, 3])
        psw = lib.tensor([1.0, 2, 3, 4, 5, 6], requires_grad=True) if weighted else None
        if weighted and two_d:
            psw = psw.reshape(2, 3)
        out = e(inp, off, per_sample_weights=psw)
        (out * lib.tensor([[1.0, -1], [2, 3]])).sum().backward()
        g = e.weight.grad
        opt = lib.optim.SparseAdam(e.parameters(), lr=0.1)
        opt.step()
        return (
            g.is_sparse, g._indices().tolist(), _np(g.coalesce()), g._values().numpy(),
            None if psw is None else psw.grad.numpy(), e.weight.detach().numpy(),
        )  # fmt: skip

    ours, theirs = run(chainrule), run(torch)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2:], theirs[2:]):
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_embedding_bag_sparse_refusals():
    assert_same_error(lambda lib: lib.nn.EmbeddingBag(5, 2, mode="max", sparse=True)(
        lib.tensor([[0, 1]])))  # fmt: skip
    assert_same_error(
        lambda lib: (
            lib.nn.EmbeddingBag(5, 2, sparse=True, scale_grad_by_freq=True)(lib.tensor([[0, 1]]))
            .sum()
            .backward()
        )
    )


# ----- compressed layouts (CSR, CSC) -------------------------------------------------------

DENSE = [[0.0, 0.0, 3.0], [4.0, 0.0, 5.0]]


def test_compressed_reprs_and_accessors():
    def make(lib):
        d = lib.tensor(DENSE)
        c = d.to_sparse_csr()
        v = lib.tensor([3.0, 4.0, 5.0], dtype=lib.float64, requires_grad=True)
        c2 = lib.sparse_csr_tensor(lib.tensor([0, 1, 3]), lib.tensor([2, 0, 2]), v, (2, 3))
        csc = d.to_sparse_csc()
        out = [c, c * 2, -c, c.sin(), c + c, c.t(), c.double(), csc, c.t().to_sparse_csr(),
               lib.zeros_like(c), lib.sparse.sampled_addmm(c, lib.ones(2, 4), lib.ones(4, 3)),
               lib.sparse_csr_tensor([0, 1, 3], [2, 0, 2], [3.0, 4, 5]),
               lib.sparse_csc_tensor([0, 1, 1, 3], [1, 0, 1], [4.0, 3, 5], (2, 3)),
               d.to_sparse().to_sparse_csr(), c.to_sparse(), c[0], c2.detach()]  # fmt: skip
        info = [c.layout == lib.sparse_csr, c.is_sparse, c.is_sparse_csr, csc.layout,
                c.crow_indices().tolist(), c.col_indices().tolist(), c.values().tolist(),
                csc.ccol_indices().tolist(), csc.row_indices().tolist(), c._nnz(),
                c.sparse_dim(), c.dense_dim(), tuple(c.shape), c.numel(), c.dim()]  # fmt: skip
        return [repr(t) for t in out], [str(x) for x in info], repr(c2).split("grad_fn")[0]

    assert make(chainrule) == make(torch)


@pytest.mark.parametrize(
    "code",
    [
        "c.indices()",
        "c.coalesce()",
        "c.is_coalesced()",
        "c.exp()",
        "c.stride()",
        "c.is_contiguous()",
        "c.type()",
        "c.sum(0)",
        "lib.sparse.sum(c)",
        "lib.sparse_coo_tensor([[0], [1]], [1.0], (2, 2)).crow_indices()",
    ],
)
def test_compressed_errors_match_pytorch(code):
    def run(lib):
        c = lib.tensor(DENSE).to_sparse_csr()  # noqa: F841 - used by the code
        return eval(code)

    assert_same_error(run)


COMPRESSED_OPS = {
    "to_dense": lambda lib, c, w: c.to_dense(),
    "mm": lambda lib, c, w: lib.mm(c, w),
    "matmul": lambda lib, c, w: c @ w,
    "sparse_mm": lambda lib, c, w: lib.sparse.mm(c, w),
    "addmm": lambda lib, c, w: lib.addmm(lib.ones(2, 2, dtype=lib.float64), c, w),
    "mv": lambda lib, c, w: c.mv(w[:, 0]),
    "mul": lambda lib, c, w: (c * 3).to_dense(),
    "sum": lambda lib, c, w: c.sum(),
    "csc_mm": lambda lib, c, w: c.to_sparse_csc() @ w,
    "transposed_to_dense": lambda lib, c, w: c.t().to_dense(),
    "sampled_addmm": lambda lib, c, w: lib.sparse.sampled_addmm(c, w.t(), w @ w.t()).to_dense(),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMPRESSED_OPS))
def test_compressed_values_and_gradients(name):
    """Values, and the gradients of the CSR tensor's values and of the dense operand, as
    PyTorch's where it can differentiate them (else by finite differences)."""
    dense = np.arange(6.0).reshape(3, 2) / 5

    def run(lib):
        v = lib.tensor([3.0, 4.0, 5.0], dtype=lib.float64, requires_grad=True)
        c = lib.sparse_csr_tensor(lib.tensor([0, 1, 3]), lib.tensor([2, 0, 2]), v, (2, 3))
        w = lib.tensor(dense, requires_grad=True)
        out = COMPRESSED_OPS[name](lib, c, w)
        return out, v, w

    ours, v, w = run(chainrule)
    theirs, tv, tw = run(torch)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    try:
        theirs.sum().backward()
    except (RuntimeError, NotImplementedError):  # PyTorch has no derivative: gradcheck
        assert chainrule.autograd.gradcheck(
            lambda a, b: COMPRESSED_OPS[name](
                chainrule,
                chainrule.sparse_csr_tensor(chainrule.tensor([0, 1, 3]),
                                            chainrule.tensor([2, 0, 2]), a, (2, 3)),
                b,
            ),
            (v.detach().requires_grad_(), w.detach().requires_grad_()),
        )  # fmt: skip
        return
    for a, b in ((v.grad, tv.grad), (w.grad, tw.grad)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


@pytest.mark.parametrize("saver, loader", [(chainrule, torch), (torch, chainrule)])
def test_compressed_save_and_load_with_pytorch(tmp_path, saver, loader):
    path = tmp_path / "compressed.pt"
    d = saver.tensor(DENSE)
    saver.save({"csr": d.to_sparse_csr(), "csc": d.to_sparse_csc()}, path)
    got = loader.load(path)
    assert got["csr"].layout == loader.sparse_csr and got["csc"].layout == loader.sparse_csc
    assert got["csr"].crow_indices().tolist() == [0, 1, 3]
    assert got["csc"].ccol_indices().tolist() == [0, 1, 1, 3]
    np.testing.assert_array_equal(got["csr"].to_dense().numpy(), DENSE)
    np.testing.assert_array_equal(got["csc"].to_dense().numpy(), DENSE)


def test_spdiags_legacy_constructors_and_spsolve():
    def run(lib):  # (PyTorch warns once a process of the legacy forms: not compared)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return made_by(lib)

    def made_by(lib):
        d = lib.tensor([[1.0, 2, 3], [4, 5, 6]])
        out = [
            lib.sparse.spdiags(d, lib.tensor([0, -1]), (3, 3)),
            lib.sparse.spdiags(d, lib.tensor([0, 1]), (3, 4), layout=lib.sparse_csr),
            lib.sparse.spdiags(d, lib.tensor([2, -2]), (4, 4)),
            lib.sparse.FloatTensor(lib.tensor([[0, 1], [1, 0]]), lib.tensor([1.0, 2.0]),
                                   lib.Size([2, 2])),
            lib.sparse.LongTensor(lib.tensor([[0, 1]]), lib.tensor([1, 2]), lib.Size([3])),
        ]  # fmt: skip
        out.append(lib.sparse.FloatTensor(2, 3))
        return [repr(t) for t in out]

    assert run(chainrule) == run(torch)
    assert_same_error(
        lambda lib: lib.sparse.spsolve(lib.eye(2).to_sparse_csr(), lib.ones(2)),
        "Could not run 'aten::_spsolve' with arguments from the 'SparseCsrCPU' backend.",
    )


def test_spdiags_gradient_and_as_sparse_gradcheck():
    d = chainrule.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=chainrule.float64, requires_grad=True)
    assert chainrule.autograd.gradcheck(
        lambda x: chainrule.sparse.spdiags(x, chainrule.tensor([0, -1]), (3, 3)).to_dense(), (d,)
    )
    gc = chainrule.sparse.as_sparse_gradcheck(chainrule.autograd.gradcheck)
    s = chainrule.tensor([[0.0, 1.5], [2.0, 0.0]], dtype=chainrule.float64).to_sparse()
    x = chainrule.tensor([[1.0], [2.0]], dtype=chainrule.float64, requires_grad=True)
    assert gc(lambda a, b: chainrule.sparse.mm(a, b), (s.requires_grad_(), x))


def test_pickle_state_dict_and_copy():
    """Pickled (a DataLoader worker's batch), in a state_dict and loaded into a sparse
    buffer (copy_), as PyTorch's."""
    import pickle

    def run(lib):
        s = lib.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
        back = pickle.loads(pickle.dumps(s))
        csr = pickle.loads(pickle.dumps(s.to_sparse_csr()))
        m = lib.nn.Module()
        m.register_buffer("adj", s)
        m2 = lib.nn.Module()
        m2.register_buffer("adj", lib.sparse_coo_tensor([[0, 0], [0, 0]], [0.0, 0.0], (2, 2)))
        m2.load_state_dict(m.state_dict())
        return (
            str(back.layout), back.to_dense().tolist(), back.is_coalesced(), str(csr.layout),
            csr.to_dense().tolist(), m2.adj.to_dense().tolist(), m2.adj._nnz(),
        )  # fmt: skip

    assert run(chainrule) == run(torch)


def test_default_collate_refuses_sparse_and_workers_carry_them():
    """PyTorch's default_collate refuses a batch of sparse tensors; a custom collate_fn gets
    them, through worker processes too (pickled)."""

    def run(lib):
        data = lib.utils.data
        items = [lib.sparse_coo_tensor([[i % 3]], [1.0], (3,)) for i in range(4)]
        err = error_of(lambda L: data.default_collate(items[:2]), lib)
        loader = data.DataLoader(items, batch_size=2, collate_fn=lambda b: b, num_workers=1)
        return type(err), str(err), [[t.to_dense().tolist() for t in b] for b in loader]

    assert run(chainrule) == run(torch)


def _sparse_param(lib):
    s = lib.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], [1.0, 2.0, 3.0], (2, 3)).coalesce()
    return lib.nn.Parameter(s)


@pytest.mark.parametrize("kwargs", [{}, {"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}])
def test_sparse_parameter_trains_with_sgd(kwargs):
    """nn.Parameter of a sparse tensor: a leaf whose gradient is sparse, stepped by SGD (its
    values in place), zero_grad clearing it, as PyTorch's."""

    def run(lib):
        p = _sparse_param(lib)
        x = lib.arange(6.0).reshape(3, 2)
        opt = lib.optim.SGD([p], lr=0.01, **kwargs)
        for _ in range(3):
            opt.zero_grad()
            (lib.sparse.mm(p, x) ** 2).sum().backward()
            opt.step()
        return p.detach().to_dense().numpy(), p.requires_grad, p.is_leaf, p.is_sparse

    ours, theirs = run(chainrule), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    assert ours[1:] == theirs[1:]


def test_sparse_parameter_in_a_module():
    def run(lib):
        m = lib.nn.Module()
        m.w = _sparse_param(lib)
        sd = m.state_dict()
        m2 = lib.nn.Module()
        m2.w = lib.nn.Parameter(lib.sparse_coo_tensor([[0], [0]], [9.0], (2, 3)))
        m2.load_state_dict(sd)
        frozen = lib.nn.Parameter(lib.sparse_coo_tensor([[0], [0]], [9.0], (2, 3)), False)
        return (
            [n for n, _ in m.named_parameters()], repr(m.w), str(sd["w"].layout),
            sd["w"].requires_grad, m2.w.to_dense().tolist(), m2.w.requires_grad, m2.w.is_leaf,
            frozen.requires_grad,
        )  # fmt: skip

    assert run(chainrule) == run(torch)
    assert_same_error(lambda lib: _step_once(lib, "Adam"))
    assert_same_error(lambda lib: _step_once(lib, "SparseAdam"))


def _step_once(lib, name):
    p = _sparse_param(lib)
    opt = getattr(lib.optim, name)([p], lr=0.1)
    lib.sparse.mm(p, lib.ones(3, 2)).sum().backward()
    opt.step()


def test_register_hook_sees_and_replaces_the_sparse_gradient():
    def run(lib):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        s = lib.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2), requires_grad=True)
        seen = []
        handle = s.register_hook(lambda g: seen.append((g.layout, g.to_dense().tolist())))
        (s.to_dense() * w).sum().backward()
        handle.remove()
        t = lib.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2), requires_grad=True)
        t.register_hook(lambda g: g * 10)
        (t.to_dense() * w).sum().backward()
        return (
            [(str(a), b) for a, b in seen],
            s.grad.to_dense().tolist(),
            t.grad.to_dense().tolist(),
        )

    assert run(chainrule) == run(torch)


def test_bmm_of_a_batch_of_sparse_matrices():
    """torch.bmm(sparse (B, n, k), dense (B, k, m)): values and gradients as PyTorch's."""

    def run(lib):
        i = lib.tensor([[0, 0, 1, 1], [0, 1, 0, 2], [1, 0, 2, 1]])
        v = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
        s = lib.sparse_coo_tensor(i, v, (2, 3, 3))
        d = lib.arange(12.0, dtype=lib.float64).reshape(2, 3, 2).requires_grad_()
        y = lib.bmm(s, d)
        (y * lib.arange(12.0, dtype=lib.float64).reshape(2, 3, 2)).sum().backward()
        return y.detach().numpy(), v.grad.numpy(), d.grad.numpy()

    for a, b in zip(run(chainrule), run(torch)):
        np.testing.assert_allclose(a, b)
    assert_same_error(
        lambda lib: lib.bmm(
            lib.sparse_coo_tensor([[0], [0], [0]], [1.0], (2, 3, 3)), lib.ones(3, 3, 2)
        )
    )
