"""Complex numbers through the structural ops against PyTorch: reshapes and views, joining
and splitting, indexing, gathers and scatters, padding, copies, reductions (the real
results of var, std and the norms among them) and scans, matrix products (vdot conjugating
its first operand); values, dtypes, gradients for a random complex output gradient,
forward-mode tangents, second derivatives; the ordering ops' refusals, word for word."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    L64,
    assert_same,
    check,
    check_double_backward,
    compare,
    crandn,
    error_of,
    randn,
)

Z = crandn((3, 4), 0)
W = crandn((3, 4), 1)
X = randn((3, 4), 2)
Z3 = crandn((2, 3, 4), 3)
V = crandn((4,), 4)
MASK = np.array(
    [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
)
IDX = L64(2, 0, 2)
PAIRS = L64([0, 3], [1, 2], [2, 0])
Z0 = np.array([[1 + 2j, 0j, -1 + 0.5j], [2 - 1j, 0.5j, 0j], [1j, -2 + 0j, 1 + 1j]])  # zeros


def _setitem(z, w):
    out = z * 1
    out[0] = 1j
    out[1:, 1] = w[1:, 2]
    return out


CASES = {
    # reshapes and views
    "reshape": (lambda L, z: z.reshape(2, 6), [Z]),
    "reshape_copy": (lambda L, z: z.t().reshape(12), [Z]),
    "view": (lambda L, z: z.view(4, 3), [Z]),
    "flatten": (lambda L, z: z.flatten(), [Z3]),
    "unflatten": (lambda L, z: z.unflatten(1, (2, 2)), [Z]),
    "squeeze_unsqueeze": (lambda L, z: z.unsqueeze(1).squeeze(1).unsqueeze(-1), [Z]),
    "permute_movedim": (lambda L, z: z.permute(2, 0, 1).movedim(0, 2), [Z3]),
    "transpose_mT": (lambda L, z: z.transpose(0, 2).mT, [Z3]),
    "expand_broadcast_to": (
        lambda L, z: z[:1].expand(2, 3, 4) + L.broadcast_to(z, (2, 3, 4)),
        [Z],
    ),
    "unfold": (lambda L, z: z.unfold(1, 2, 1), [Z]),
    "as_strided": (lambda L, z: L.as_strided(z, (2, 2), (1, 2)), [Z]),
    # joining and splitting
    "cat": (lambda L, a, b: L.cat([a, b], 1), [Z, W]),
    "cat_real": (lambda L, a, x: L.cat([a, x]), [Z, X]),
    "stack": (lambda L, a, b: L.stack([a, b], 2), [Z, W]),
    "hstack_vstack_dstack": (
        lambda L, a, b: L.hstack([a, b]).sum() + L.vstack([a, b]).sum() + L.dstack([a, b]),
        [Z, W],
    ),
    "split": (lambda L, z: L.cat(z.split([1, 3], 1)[::-1], 1), [Z]),
    "chunk": (lambda L, z: z.chunk(2, 1)[1], [Z]),
    "unbind": (lambda L, z: z.unbind(0)[2], [Z]),
    "tensor_split": (lambda L, z: L.tensor_split(z, 3, 1)[0], [Z]),
    # indexing
    "narrow_select": (lambda L, z: z.narrow(1, 1, 2).select(0, 2), [Z]),
    "getitem": (lambda L, z: z[1:, ::2][[0, 1, 0]], [Z]),
    "getitem_mask": (lambda L, z, m: z[m], [Z, MASK]),
    "index_select": (lambda L, z, i: L.index_select(z, 1, i), [Z, IDX]),
    "gather": (lambda L, z, i: L.gather(z, 1, i), [Z, PAIRS]),
    "take": (lambda L, z, i: L.take(z, i), [Z, L64(0, 5, 11, 5)]),
    "take_along_dim": (lambda L, z, i: L.take_along_dim(z, i, 1), [Z, PAIRS]),
    "masked_select": (lambda L, z, m: L.masked_select(z, m), [Z, MASK]),
    "masked_fill": (lambda L, z, m: z.masked_fill(m, 2 - 1j), [Z, MASK]),
    "masked_fill_tensor": (lambda L, z, m, v: z.masked_fill(m, v), [Z, MASK, crandn((), 5)]),
    "masked_scatter": (lambda L, z, m, s: z.masked_scatter(m, s), [Z, MASK, crandn((12,), 6)]),
    "scatter": (lambda L, z, i, s: z.scatter(1, i, s), [Z, PAIRS, crandn((3, 2), 7)]),
    "scatter_value": (lambda L, z, i: z.scatter(1, i, 1j), [Z, PAIRS]),
    "scatter_add": (
        lambda L, z, i, s: z.scatter_add(1, i, s),
        [Z, L64([0, 0], [1, 2], [2, 0]), crandn((3, 2), 7)],
    ),
    "index_add": (lambda L, z, i, s: z.index_add(1, i, s, alpha=2), [Z, IDX, crandn((3, 3), 8)]),
    "index_copy": (lambda L, z, i, s: z.index_copy(1, i, s), [Z, L64(3, 0, 2), crandn((3, 3), 8)]),
    "index_fill": (lambda L, z, i: z.index_fill(1, i, -1j), [Z, IDX]),
    "index_put": (lambda L, z, i, s: z.index_put((i,), s), [Z, L64(2, 0), crandn((2, 4), 9)]),
    "index_put_accumulate": (
        lambda L, z, i, s: z.index_put((i,), s, accumulate=True),
        [Z, L64(2, 2), crandn((2, 4), 9)],
    ),
    "put": (lambda L, z, i, s: z.put(i, s), [Z, L64(1, 7), crandn((2,), 10)]),
    "diagonal_scatter": (lambda L, z, s: L.diagonal_scatter(z, s, 1), [Z, crandn((3,), 11)]),
    # triangles and diagonals
    "tril_triu": (lambda L, z: L.tril(z, 1) + L.triu(z, 1), [Z]),
    "diag": (lambda L, z, v: L.diag(z, 1).sum() + L.diag(v), [Z, V]),
    "diagonal": (lambda L, z: L.diagonal(z, 0, 1, 2), [Z3]),
    "diag_embed": (lambda L, z: L.diag_embed(z), [Z]),
    "trace": (lambda L, z: L.trace(z), [Z]),
    # rearrangements
    "roll": (lambda L, z: L.roll(z, (1, -1), (0, 1)), [Z]),
    "flip_rot90": (lambda L, z: L.rot90(z.flip(1), 1, (0, 1)), [Z]),
    "repeat_tile": (lambda L, z: z.repeat(2, 1, 1).sum(0) + L.tile(z, (1, 1)), [Z]),
    "repeat_interleave": (lambda L, z: z.repeat_interleave(2, 0), [Z]),
    # padding (a constant pad's value is a real number, as in PyTorch)
    "pad_constant": (lambda L, z: L.nn.functional.pad(z, (1, 2, 0, 1), value=1.5), [Z]),
    # copies
    "clone_contiguous": (lambda L, z: z.t().clone().contiguous() * 1, [Z]),
    "copy_": (lambda L, z, w: (z * 1).copy_(w), [Z, W]),
    "copy_real_into_complex": (lambda L, z, x: (z * 1).copy_(x), [Z, X]),
    "setitem_index": (lambda L, z, w: _index_setitem(L, z, w), [Z, W]),
    "inplace_variants": (lambda L, z, w, m: _inplace_writes(L, z, w, m), [Z, W, MASK]),
    # reductions
    "sum_all": (lambda L, z: z.sum(), [Z]),
    "sum_dim": (lambda L, z: z.sum((0, 2), keepdim=True), [Z3]),
    "sum_dtype": (lambda L, z: z.sum(1, dtype=L.complex128), [Z]),
    "mean_dim": (lambda L, z: z.mean(1), [Z3]),
    "prod_all": (lambda L, z: z.prod(), [Z]),
    "prod_dim": (lambda L, z: z.prod(1), [Z]),
    "prod_one_zero": (lambda L, z: z.prod(1), [Z0]),
    "prod_all_zeros": (lambda L, z: z.prod(), [Z0]),
    "var": (lambda L, z: L.var(z, 1), [Z]),
    "var_all": (lambda L, z: z.var(), [Z]),
    "std": (lambda L, z: L.std(z), [Z]),
    "std_dim": (lambda L, z: L.std(z, (0, 2), keepdim=True), [Z3]),
    "var_mean": (lambda L, z: L.var_mean(z, 0, correction=0)[0] + L.var_mean(z, 0)[1], [Z]),
    "std_mean": (lambda L, z: L.std_mean(z, 1)[0], [Z]),
    "vector_norm": (lambda L, z: L.linalg.vector_norm(z, dim=1), [Z]),
    "vector_norm_ord3": (lambda L, z: L.linalg.vector_norm(z, 3, dim=1), [Z]),
    "vector_norm_inf": (lambda L, z: L.linalg.vector_norm(z, float("inf"), dim=0), [Z]),
    "vector_norm_zero": (lambda L, z: L.linalg.vector_norm(z, 2, dim=1), [Z0]),
    "norm": (lambda L, z: L.norm(z), [Z]),
    "norm_fro_dim": (lambda L, z: z.norm(dim=0), [Z]),
    "norm_1": (lambda L, z: z.norm(p=1), [Z]),
    "dist": (lambda L, a, b: L.dist(a, b, 3), [Z, W]),
    "renorm": (lambda L, z: L.renorm(z, 2, 0, 1.5), [Z]),
    # scans
    "cumsum": (lambda L, z: L.cumsum(z, 1), [Z]),
    "cumprod": (lambda L, z: L.cumprod(z, 1), [Z]),
    "cumprod_zeros": (lambda L, z: L.cumprod(z, 1), [Z0]),
    "logcumsumexp": (lambda L, z: L.logcumsumexp(z, 1), [Z]),
    "logcumsumexp_dim0": (lambda L, z: z.logcumsumexp(0), [Z3]),
    # products
    "matmul_real_complex": (lambda L, x, m: L.matmul(x.to(m.dtype), m), [X, crandn((4, 2), 11)]),
    "mv": (lambda L, z, v: L.mv(z, v), [Z, V]),
    "addmv": (lambda L, c, z, v: L.addmv(c, z, v, beta=0.5, alpha=2), [crandn((3,), 12), Z, V]),
    "addr": (lambda L, c, u, v: L.addr(c, u, v, alpha=1 - 1j), [Z, crandn((3,), 12), V]),
    "baddbmm": (
        lambda L, c, a, b: L.baddbmm(c, a, b, alpha=0.5),
        [crandn((2, 3, 2), 13), Z3, crandn((2, 4, 2), 14)],
    ),
    "addbmm": (
        lambda L, c, a, b: L.addbmm(c, a, b),
        [crandn((3, 2), 13), Z3, crandn((2, 4, 2), 14)],
    ),
    "addmm_complex_beta": (
        lambda L, c, a, b: L.addmm(c, a, b, beta=2j, alpha=0.5 + 1j),
        [crandn((3, 2), 12), Z, crandn((4, 2), 11)],
    ),
    "inner": (lambda L, a, b: L.inner(a, b), [Z, W]),
    "outer": (lambda L, a, b: L.outer(a, b), [V, Z[0]]),
    "vdot": (lambda L, a, b: L.vdot(a, b), [V, W[0]]),
    "vdot_real_cast": (lambda L, x, b: L.vdot(x.to(b.dtype), b), [X[0], W[0]]),
    "vecdot": (lambda L, a, b: L.linalg.vecdot(a, b), [Z, crandn((2, 1, 4), 18)]),
    "einsum": (lambda L, a, b: L.einsum("bij,jk->bik", a, b), [Z3, crandn((4, 2), 15)]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=([2], [1])), [Z3, Z]),
    "kron": (lambda L, a, b: L.kron(a, b), [Z[:2, :2], W[:2, :3]]),
    "multi_dot": (
        lambda L, a, b, c: L.linalg.multi_dot([a, b, c]),
        [Z, crandn((4, 2), 16), crandn((2, 3), 17)],
    ),
    "matmul_batched_vector": (lambda L, a, b: a @ b, [Z3, V]),
}


def _inplace_writes(L, z, w, m):
    out = z * 1
    out.masked_fill_(m, 1j).index_add_(1, L.tensor([3, 0]), w[:, :2], alpha=0.5)
    out.scatter_(0, L.tensor([[2, 0, 1, 1]]), w[:1]).index_copy_(0, L.tensor([1]), w[2:])
    out.put_(L.tensor([0, 5]), w[0, :2], accumulate=True)
    return out.index_put_((L.tensor([2]),), w[0] * 1j)


def _index_setitem(L, z, w):
    out = z * 1
    out[L.tensor([2, 0])] = w[:2] * 2
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *inputs, dtype=dtype)


SECOND = [
    "cat",
    "split",
    "gather",
    "index_put",
    "masked_scatter",
    "pad_constant",
    "prod_dim",
    "prod_one_zero",
    "var",
    "std",
    "vector_norm",
    "vector_norm_ord3",
    "renorm",
    "cumprod",
    "cumprod_zeros",
    "logcumsumexp",
    "mv",
    "addmv",
    "vdot",
    "baddbmm",
]


# complex values written into real tensors keep their real parts (PyTorch's warning, once
# per process, is ignored here: whichever test comes first would see it)
INTO_REAL = {
    "copy_complex_into_real": (lambda L, x, z: (x * 1).copy_(z), [X, Z]),
    "setitem_complex_into_real": (lambda L, x, z: _setitem_real(x, z), [X, Z]),
}


def _setitem_real(x, z):
    out = x * 1
    out[1:, :2] = z[1:, 1:3]
    out[0] = z[2]
    return out


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", INTO_REAL)
def test_complex_values_written_into_real_tensors_match_torch(name, dtype):
    fn, inputs = INTO_REAL[name]
    check(fn, *inputs, dtype=dtype)


@pytest.mark.parametrize("name", SECOND)
def test_second_derivatives_match_torch(name):
    fn, inputs = CASES[name]
    check_double_backward(fn, *inputs, dtype=np.float64)


# Ops defined outside the structural modules: the write through a view (autograd/inplace.py's
# view_scatter) and the pads that gather along an axis (ops/windows.py)
OUTSIDE = {
    "setitem": (lambda L, z, w: _setitem(z, w), [Z, W]),
    "pad_reflect": (lambda L, z: L.nn.functional.pad(z, (2, 1), mode="reflect"), [Z3]),
    "pad_replicate": (lambda L, z: L.nn.functional.pad(z, (2, 1), mode="replicate"), [Z3]),
    "pad_circular": (lambda L, z: L.nn.functional.pad(z, (2, 1), mode="circular"), [Z3]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", OUTSIDE)
def test_writes_and_gathering_pads_match_torch(name, dtype):
    fn, inputs = OUTSIDE[name]
    check(fn, *inputs, dtype=dtype)
    if dtype is np.float64:
        check_double_backward(fn, *inputs, dtype=dtype)


def test_reductions_of_complex_values_have_torchs_dtypes():
    def dtypes(L):
        z = L.tensor(Z.astype(np.complex64))
        return [
            str(f(z).dtype)
            for f in (
                lambda z: z.sum(),
                lambda z: z.mean(0),
                lambda z: z.prod(1),
                lambda z: z.cumsum(0),
                lambda z: z.cumprod(1),
                lambda z: z.var(),
                lambda z: z.std(1),
                lambda z: L.var_mean(z)[1],
                lambda z: z.norm(),
                lambda z: L.linalg.vector_norm(z.to(L.complex128), 1),
                lambda z: L.dist(z, z * 2),
                lambda z: L.sum(z, 0, dtype=L.complex128),
            )
        ]

    compare(dtypes)


def test_float32_sums_of_complex64_keep_their_precision():
    """float32 sums have paths of their own (BLAS, float64 running sums): complex64 ones
    are PyTorch's to its tolerance, over many terms."""
    big = crandn((64, 300), 20).astype(np.complex64)
    compare(
        lambda L: [
            L.tensor(big).sum(),
            L.tensor(big).sum(1),
            L.tensor(big).sum(0),
            L.tensor(big).mean((0, 1)),
            L.tensor(big).cumsum(1),
            L.tensor(big.reshape(8, 8, 300)).sum((0, 2)),
        ],
        rtol=2e-5,
        atol=2e-4,
    )
    # the product: each library within the standard bound n·u·(|A||B|) of the exact one
    # (PyTorch's MKL on an Intel AVX-512 machine errs by 3e-4 where a row's terms add up
    # to 600 in magnitude, chainrule's BLAS by 1e-5: a fixed tolerance fails one of them)
    exact = big.astype(np.complex128) @ big.T.astype(np.complex128)
    bound = big.shape[1] * 2.0**-24 * (np.abs(big).astype(np.float64) @ np.abs(big).T)
    got = (cr.tensor(big) @ cr.tensor(big.T.copy())).numpy()
    want = (torch.tensor(big) @ torch.tensor(big.T.copy())).numpy()
    assert got.dtype == want.dtype == np.complex64
    assert (np.abs(got - exact) <= bound).all()
    assert (np.abs(want - exact) <= bound).all()


# (index_reduce's beta warning comes once per process, in both libraries)
@pytest.mark.filterwarnings("ignore:index_reduce")
def test_scatter_and_index_reductions_of_complex_values_match_torch():
    z = crandn((2, 3), 21)
    index = L64([0, 0], [2, 2])

    def values(L):
        x = L.tensor(z)
        i = L.tensor(index)
        return [
            x.scatter_reduce(1, i, x[:, :2], "sum", include_self=False),
            x.scatter_reduce(1, i, x[:, :2], "mean"),
            x.scatter_reduce(1, i, x[:, :2], "mean", include_self=False),
            x.scatter_reduce(1, i, x[:, :2], "prod"),
            x.index_reduce(1, L.tensor([0, 2]), x[:, :2], "mean"),
        ]

    compare(values, rtol=1e-12, atol=1e-12)


def _ordering(L, z):
    """Each ordering op's call on complex z, by name."""
    return {
        "sort": lambda: L.sort(z),
        "sort_stable": lambda: L.sort(z, stable=True),
        "argsort": lambda: L.argsort(z, 0),
        "msort": lambda: L.msort(z),
        "topk": lambda: L.topk(z, 1),
        "max": lambda: L.max(z),
        "max_dim": lambda: z.max(dim=0, keepdim=True),
        "min": lambda: z.min(),
        "min_dim": lambda: L.min(z, 1),
        "amax": lambda: L.amax(z, 1),
        "amin": lambda: L.amin(z),
        "argmax": lambda: L.argmax(z),
        "argmin": lambda: L.argmin(z, 1),
        "kthvalue": lambda: L.kthvalue(z, 1),
        "median": lambda: L.median(z),
        "median_dim": lambda: L.median(z, 1),
        "nanmedian": lambda: L.nanmedian(z),
        "nanmedian_dim": lambda: z.nanmedian(0),
        "mode": lambda: L.mode(z, 1),
        "aminmax": lambda: L.aminmax(z),
        "aminmax_dim": lambda: L.aminmax(z, dim=1),
        "cummax": lambda: L.cummax(z, 1),
        "cummin": lambda: L.cummin(z, 0),
        "nansum": lambda: L.nansum(z),
        "nanmean": lambda: L.nanmean(z),
        "scatter_reduce_amax": lambda: z.scatter_reduce(1, L.tensor([[0], [1]]), z, "amax"),
        "index_reduce_amin": lambda: z.index_reduce(0, L.tensor([1, 0]), z, "amin"),
    }


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("name", list(_ordering(torch, None)))
def test_ordering_ops_refuse_complex_input_as_torch(name, dtype):
    data = crandn((2, 3), 22).astype(dtype)
    for requires_grad in (False, True):

        def run(L, requires_grad=requires_grad):
            z = L.tensor(data, requires_grad=requires_grad)
            return _ordering(L, z)[name]()

        want = error_of(run, torch)
        got = error_of(run, cr)
        assert type(got) is type(want), (got, want)
        assert str(got) == str(want)


@pytest.mark.parametrize(
    "name,shape,want",
    [
        ("amax", (0, 3), "empty"),  # nothing to compare: an empty result
        ("mode", (0, 3), "empty"),
        ("cummax", (0, 3), "empty"),
        ("median", (0, 3), "nan"),
        ("max_dim", (0, 3), "IndexError"),  # the empty dim's error comes first
        ("aminmax_dim", (0, 3), "NotImplementedError"),
        ("min_dim", (3, 0), "RuntimeError"),
    ],
)
def test_ordering_ops_on_empty_complex_input_match_torch(name, shape, want):
    def run(L):
        z = L.zeros(shape, dtype=L.complex64)
        calls = {
            "amax": lambda: L.amax(z, 1),
            "mode": lambda: L.mode(z, 1).values,
            "cummax": lambda: L.cummax(z, 0).values,
            "median": lambda: L.median(z),
            "max_dim": lambda: L.max(z, 0),
            "aminmax_dim": lambda: L.aminmax(z, dim=1),
            "min_dim": lambda: L.min(z, 0),
        }
        return calls[name]()

    if want in ("empty", "nan"):
        assert_same(run(cr), run(torch))
    else:
        t, c = error_of(run, torch), error_of(run, cr)
        assert type(t).__name__ == want
        assert type(c) is type(t) and str(c) == str(t)


def _mixed(L):
    """Each product's call on operands of two dtypes (real and complex, or two reals)."""
    a = L.ones(2, 2)
    b = L.ones(2, 2, dtype=L.float64)
    z = L.ones(2, 2, dtype=L.complex64)
    return {
        "mv": lambda: L.mv(a, b[0]),
        "mv_complex": lambda: L.mv(z, a[0]),
        "mv_shape_first": lambda: L.mv(a, L.ones(3, dtype=L.float64)),
        "bmm": lambda: L.bmm(z[None], a[None]),
        "bmm_shape_first": lambda: L.bmm(a, b),
        "einsum": lambda: L.einsum("ij,jk->ik", a, z),
        "tensordot": lambda: L.tensordot(z, a, 1),
        "vecdot": lambda: L.linalg.vecdot(a, z),
        "vecdot_integers": lambda: L.linalg.vecdot(a.long(), a.long()),
        "masked_scatter": lambda: a.masked_scatter(a > 0, z),
        "index_add": lambda: a.index_add(0, L.tensor([0]), z[:1]),
    }


@pytest.mark.parametrize("name", list(_mixed(torch)))
def test_products_of_two_dtypes_raise_torchs_errors(name):
    t, c = error_of(lambda L: _mixed(L)[name](), torch), error_of(lambda L: _mixed(L)[name](), cr)
    assert type(c) is type(t) and str(c) == str(t)


WRITES = {
    "masked_fill": lambda x, v: x.masked_fill(x == 0, v),
    "index_fill": lambda x, v: x.index_fill(0, x.new_tensor([0]).long(), v),
    "setitem": lambda x, v: x.__setitem__(0, v) or x,
    "setitem_all": lambda x, v: x.__setitem__(slice(None), v) or x,
    "setitem_index": lambda x, v: x.__setitem__(x.new_tensor([1]).long(), v) or x,
}


# (PyTorch and chainrule warn once per process when complex values lose their imaginary
# parts: whichever test comes first would see it)
@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("value", [1j, 2.5 + 0j, "tensor"], ids=["imag", "real", "tensor"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
@pytest.mark.parametrize("name", WRITES)
def test_complex_numbers_written_into_tensors_as_torch(name, dtype, value):
    """A complex number into a real tensor: its real part when its imaginary part is 0,
    else PyTorch's error (index_fill refuses any); into a bool tensor, whether it is 0."""

    def run(L):
        x = L.zeros(3, dtype=getattr(L, dtype))
        v = L.tensor(1j) if value == "tensor" else value
        return WRITES[name](x, v)

    try:
        want = run(torch)
    except RuntimeError as exc:
        got = error_of(run, cr)
        assert type(got) is RuntimeError and str(got) == str(exc)
        return
    assert_same(run(cr), want)


@pytest.mark.parametrize("dtype", ["float64", "complex64", "complex128"])
def test_running_sums_and_products_sign_their_zeros_as_torch(dtype):
    """cumsum starts from +0 (a -0 entry sums to +0) and complex cumprod from 1 + 0i, as
    PyTorch's CPU kernels: the signs of zeros are PyTorch's."""

    def run(L):
        x = L.tensor([-0.0, -0.0, 1.0], dtype=L.float64)
        x = L.complex(x, -x * 0) if "complex" in dtype else x
        x = x.to(getattr(L, dtype))
        out = [L.cumsum(x, 0), L.cumprod(x, 0)]
        return [L.signbit(L.view_as_real(y) if y.is_complex() else y) for y in out]

    compare(run, exact=True)


def test_complex64_running_sums_accumulate_in_complex128_as_torch():
    big = crandn((20000,), 23).astype(np.complex64) + np.complex64(100 + 100j)
    compare(lambda L: L.cumsum(L.tensor(big), 0), rtol=1e-7, atol=0)
