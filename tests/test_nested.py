"""Nested tensors (chainrule/nested) against PyTorch, in both layouts (strided, jagged):
construction, sizes, printing, the ops on them, PyTorch's errors for the others, and the
gradients that reach the components."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
import torch.nested  # noqa: F401 - (torch.nested, attribute of torch)
import torch.nn.functional as TF
from tests.oracle import assert_same_error, error_of

import chainrule
import chainrule.nested  # noqa: F401
import chainrule.nn.functional as CF

pytestmark = pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")

A = np.arange(6.0).reshape(2, 3) / 7
B = np.arange(9.0).reshape(3, 3) / 9 - 0.4
LAYOUTS = ["strided", "jagged"]


def _F(lib):
    return CF if lib is chainrule else TF


def _nt(lib, layout: str, requires_grad: bool = False, arrays=(A, B)):
    parts = [lib.tensor(a, dtype=lib.float32) for a in arrays]
    return lib.nested.nested_tensor(parts, layout=getattr(lib, layout), requires_grad=requires_grad)


def _np(t) -> np.ndarray:
    return t.detach().numpy()


def _is_nested(t) -> bool:
    # (chainrule's dense tensors lack the property is_nested: see the report)
    return isinstance(t, torch.Tensor) and t.is_nested or type(t).__name__ == "NestedTensor"


def _same(got, want, tol: float = 1e-5) -> None:
    """Equal as PyTorch's: nested or not, layout, dtype, components' values."""
    assert _is_nested(got) == want.is_nested
    assert str(got.dtype) == str(want.dtype)
    if not want.is_nested:
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(_np(got), _np(want), rtol=tol, atol=tol)
        return
    assert str(got.layout) == str(want.layout)
    g, w = got.unbind(), want.unbind()
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _same_error(make) -> None:
    """The same error as PyTorch's (its "Could not run" message up to its list of backends)."""
    got, want = error_of(make, chainrule), error_of(make, torch)
    assert type(got) is type(want), (got, want)
    cut = " is only available for these backends"
    assert _plain(str(got).split(cut)[0]) == _plain(str(want).split(cut)[0])


def _both(make):
    return make(chainrule), make(torch)


def _check(make, tol: float = 1e-5) -> None:
    got, want = _both(make)
    _same(got, want, tol)


def _plain(text: str) -> str:
    """A print with the objects' addresses and the ragged sizes' numbers left out."""
    return re.sub(r"\bj\d+", "j?", re.sub(r"0x[0-9a-f]+", "0x?", text))


# ----- making nested tensors and what they say ---------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_repr_matches_pytorch(layout):
    def make(lib):
        x = _nt(lib, layout, requires_grad=True)
        return [
            _nt(lib, layout),
            x,
            x * 2,
            lib.nested.nested_tensor([lib.tensor([1, 2]), lib.tensor([3])], layout=getattr(lib, layout)),
            lib.nested.nested_tensor(
                [lib.tensor([1.0, 2.0]), lib.tensor([3.0])], dtype=lib.float64,
                layout=getattr(lib, layout),
            ),
        ]  # fmt: skip

    got, want = _both(make)
    assert [_plain(repr(g)) for g in got] == [_plain(repr(w)) for w in want]
    assert [_plain(str(g)) for g in got] == [_plain(str(w)) for w in want]


def test_empty_list_and_mixed_dtype_inputs_as_pytorch():
    def make(lib):
        mixed = [lib.ones(2), lib.ones(3, dtype=lib.float64)]
        return [
            lib.nested.nested_tensor([]),
            lib.nested.nested_tensor([[1.0, 2.0], [3.0]]),
            lib.nested.nested_tensor(mixed),
            lib.nested.nested_tensor(mixed, dtype=lib.float64),
        ]

    got, want = _both(make)
    assert [repr(g) for g in got] == [repr(w) for w in want]
    assert (got[0].dim(), got[0].numel(), got[0].size(0)) == (1, 0, 0)
    _check(lambda lib: lib.nested.nested_tensor([]).to_padded_tensor(0.0))
    assert_same_error(lambda lib: lib.nested.nested_tensor([], layout=lib.jagged))


def test_jagged_size_is_a_new_ragged_int_per_offsets():
    a, b = _nt(chainrule, "jagged"), _nt(chainrule, "jagged")
    ja, jb = a.shape[1], b.shape[1]
    assert int(repr(jb)[1:]) == int(repr(ja)[1:]) + 1
    assert (a * 2).shape[1] is ja and a.sin().shape[1] is ja
    assert repr(a.shape) == f"torch.Size([2, {ja!r}, 3])"
    assert a.size(1) is ja and (a.size(0), a.size(2), a.size(-1)) == (2, 3, 3)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_what_a_nested_tensor_says(layout):
    def make(lib):
        n = _nt(lib, layout)
        return (
            n.is_nested, str(n.layout), n.dim(), n.ndim, str(n.dtype), n.size(0), n.size(-1),
            n.numel(), n.is_contiguous(), n.contiguous().is_contiguous(), n.is_leaf,
            n.requires_grad, n.grad, n.grad_fn, n.is_floating_point(), str(n.to(lib.float64).dtype),
            str(n.double().dtype),
        )  # fmt: skip

    got, want = _both(make)
    assert got == want


@pytest.mark.parametrize(
    "fn",
    [
        lambda n: n.shape,
        lambda n: n.size(),
        lambda n: n.size(1),
        lambda n: n.size(3),
        lambda n: len(n),
        lambda n: n.stride(),
        lambda n: n.numpy(),
        lambda n: n.tolist(),
        lambda n: n.item(),
        lambda n: n.offsets(),
    ],
    ids=["shape", "size", "size1", "size3", "len", "stride", "numpy", "tolist", "item", "offsets"],
)
def test_strided_sizes_errors(fn):
    assert_same_error(lambda lib: fn(_nt(lib, "strided")))


@pytest.mark.parametrize(
    "fn",
    [lambda n: n.size(5), lambda n: n.numpy(), lambda n: n.tolist(), lambda n: n.item()],
    ids=["size5", "numpy", "tolist", "item"],
)
def test_jagged_errors(fn):
    assert_same_error(lambda lib: fn(_nt(lib, "jagged")))


def test_jagged_values_offsets_lengths_len():
    def make(lib):
        n = _nt(lib, "jagged")
        return n.values(), n.offsets(), n.lengths(), len(n)

    (v, o, ln, n), (tv, to, tln, tn) = _both(make)
    _same(v, tv)
    assert o.tolist() == to.tolist() and str(o.dtype) == str(to.dtype)
    assert ln is None and tln is None and n == tn


def test_strided_values_and_nested_size():
    def make(lib):
        n = _nt(lib, "strided")
        return n.values(), n._nested_tensor_size()

    (v, s), (tv, ts) = _both(make)
    _same(v, tv)
    assert s.tolist() == ts.tolist() and str(s.dtype) == str(ts.dtype)


def test_jagged_ragged_inner_dim():
    def make(lib):
        parts = [lib.ones(2, 3), lib.ones(2, 4)]
        return lib.nested.nested_tensor(parts, layout=lib.jagged)

    got, want = _both(make)
    assert _plain(repr(got)) == _plain(repr(want))
    _same(got, want)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nested.nested_tensor([lib.ones(2, 3), lib.ones(2)]),
        lambda lib: lib.nested.nested_tensor([lib.ones(2, 3), lib.ones(3, 4)], layout=lib.jagged),
        lambda lib: lib.nested.nested_tensor([lib.ones(2)], layout=lib.sparse_coo),
        lambda lib: lib.nested.to_padded_tensor(lib.ones(2), 0.0),
        lambda lib: lib.nested.to_padded_tensor(
            lib.nested.nested_tensor([lib.ones(2, 3), lib.ones(3, 3)]), 0.0, (1, 1, 1)
        ),
        lambda lib: lib.nested.narrow(lib.ones(2, 3), 1, 0, 2),
    ],
    ids=["dims", "two-ragged", "layout", "dense-padded", "truncation", "strided-narrow"],
)
def test_making_errors(make):
    _same_error(make)


def test_strided_prototype_warning_matches_pytorch():
    from chainrule.nested import _ops

    _ops._WARNED[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _nt(chainrule, "strided")
        _nt(chainrule, "strided")  # (once, as PyTorch's)
        _nt(chainrule, "jagged")
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, _ops.PROTOTYPE_WARNING)]
    # PyTorch's text, up to its C++ location
    expected = (
        "The PyTorch API of nested tensors is in prototype stage and will change in the near "
        "future. We recommend specifying layout=torch.jagged when constructing a nested tensor,"
        " as this layout receives active development, has better operator coverage, and works "
        "with torch.compile."
    )
    assert _ops.PROTOTYPE_WARNING == expected


# ----- conversions ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("size", [None, (2, 4, 4)])
def test_to_padded_tensor(layout, size):
    _check(lambda lib: lib.nested.to_padded_tensor(_nt(lib, layout), -1.0, size))
    _check(lambda lib: _nt(lib, layout).to_padded_tensor(0.5))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_unbind_and_index(layout):
    def make(lib):
        n = _nt(lib, layout)
        return lib.stack([n.unbind()[1], n[1]])

    _check(make)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_as_nested_tensor_keeps_the_graph(layout):
    def make(lib):
        a = lib.tensor(A, dtype=lib.float32, requires_grad=True)
        n = lib.nested.as_nested_tensor(
            [a, lib.tensor(B, dtype=lib.float32)], layout=getattr(lib, layout)
        )
        (n.sin() * 3).to_padded_tensor(0.0).sum().backward()
        return a.grad, n.is_leaf

    (g, leaf), (tg, tleaf) = _both(make)
    _same(g, tg)
    assert leaf == tleaf


def test_as_nested_tensor_of_a_tensor():
    _check(
        lambda lib: lib.nested.as_nested_tensor(
            lib.arange(24.0).reshape(2, 3, 4), layout=lib.jagged
        )
    )
    _check(lambda lib: lib.nested.as_nested_tensor(lib.arange(24.0).reshape(2, 3, 4)))


def test_nested_tensor_from_jagged():
    def make(lib):
        v = lib.arange(12.0).reshape(6, 2).requires_grad_()
        n = lib.nested.nested_tensor_from_jagged(v, lib.tensor([0, 2, 6]))
        (n.exp() * n).to_padded_tensor(0.0).sum().backward()
        return n, v.grad, n.is_leaf, repr(n)

    (n, g, leaf, r), (tn, tg, tleaf, tr) = _both(make)
    _same(n, tn)
    _same(g, tg)
    # (the grad_fn's name differs: chainrule's AliasBackward0, see chainrule/nested/_ops.py)
    assert leaf == tleaf and _plain(r).split("grad_fn")[0] == _plain(tr).split("grad_fn")[0]


def test_from_jagged_with_lengths_has_holes():
    def make(lib):
        v = lib.arange(12.0).reshape(6, 2)
        n = lib.nested.nested_tensor_from_jagged(
            v, lib.tensor([0, 2, 6]), lengths=lib.tensor([1, 3])
        )
        return n, n.is_contiguous(), _plain(repr(n))

    (n, c, r), (tn, tc, tr) = _both(make)
    _same(n, tn)
    assert (c, r) == (tc, tr)
    assert_same_error(
        lambda lib: lib.nested.nested_tensor_from_jagged(
            lib.ones(6, 2), lib.tensor([0, 2, 6]), lengths=lib.tensor([1, 3])
        ).to_padded_tensor(0.0)
    )


def test_narrow_and_masked_select():
    def make(lib):
        t = lib.arange(12.0).reshape(3, 4)
        n = lib.nested.narrow(t, 1, lib.tensor([0, 1, 2]), lib.tensor([2, 3, 1]), layout=lib.jagged)
        m = lib.nested.masked_select(t, t.remainder(3) == 0)
        return n, m, n.offsets(), n.lengths(), m.offsets(), _plain(repr(n)), _plain(repr(m))

    got, want = _both(make)
    _same(got[0], want[0])
    _same(got[1], want[1])
    for g, w in zip(got[2:5], want[2:5]):
        assert g.tolist() == w.tolist()
    assert got[5:] == want[5:]


# ----- ops -----------------------------------------------------------------------------------

UNARY_BOTH = ["relu", "sin", "cos", "neg", "abs", "tanh", "sgn", "positive"]
UNARY_JAGGED = ["exp", "sigmoid", "log1p", "square", "reciprocal", "floor", "erf", "expm1"]
F_BOTH = ["relu", "gelu", "silu", "softsign", "tanhshrink", "tanh"]
F_JAGGED = ["mish", "elu", "selu", "softplus", "relu6", "hardtanh", "leaky_relu", "sigmoid"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", UNARY_BOTH + UNARY_JAGGED)
def test_unary_methods(layout, name):
    def make(lib):
        return getattr(_nt(lib, layout), name)()

    if layout == "strided" and name in UNARY_JAGGED:
        _same_error(make)
    else:
        _check(make)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", F_BOTH + F_JAGGED)
def test_activations(layout, name):
    def make(lib):
        n = _nt(lib, layout)
        return getattr(_F(lib), name)(n)

    if layout == "strided" and name in F_JAGGED:
        _same_error(make)
    else:
        _check(make)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_dropout_in_eval_and_clone_detach(layout):
    _check(lambda lib: _dropout(lib, _nt(lib, layout)))
    _check(lambda lib: _nt(lib, layout, requires_grad=True).clone().detach())


def _dropout(lib, n):
    return _F(lib).dropout(n, 0.5, training=False)


BINARY = {
    "add": lambda n: n + 1,
    "radd": lambda n: 2 + n,
    "sub": lambda n: n - 0.5,
    "mul": lambda n: n * 3,
    "rmul": lambda n: 3 * n,
    "div": lambda n: n / 2,
    "nested": lambda n: n * n + n - n / (n + 2),
    "alpha": lambda n: n.add(n, alpha=2),
    "gt": lambda n: n > 0.2,
    "eq": lambda n: n == 0.0,
    "inplace": lambda n: n.clone().mul_(2),
    "iadd": lambda n: _iadd(n.clone()),
    "zero-dim": lambda n: n * (n.unbind()[0].sum() * 0 + 2),
    "rsub": lambda n: 1 - n,
    "rdiv": lambda n: 2 / (n + 3),
    "pow": lambda n: n**2,
    "rpow": lambda n: 2**n,
    "maximum": lambda n: n.maximum(n * 2),
    "lt": lambda n: n < 0.2,
    "clamp": lambda n: n.clamp(0.1, 0.5),
}
STRIDED_MISSING = {"rsub", "rdiv", "pow", "rpow", "maximum", "lt", "clamp"}


def _iadd(n):
    n += 1
    return n


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary(layout, name):
    def make(lib):
        return BINARY[name](_nt(lib, layout))

    if layout == "strided" and name in STRIDED_MISSING:
        _same_error(make)
    else:
        _check(make)


@pytest.mark.parametrize("shape", [(3,), (1, 3), (2, 1, 3), (2, 1, 1), (1, 1, 3)])
def test_jagged_with_dense_broadcast(shape):
    _check(lambda lib: _nt(lib, "jagged") * lib.arange(1.0, 1.0 + np.prod(shape)).reshape(shape))
    _check(lambda lib: lib.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) - _nt(lib, "jagged"))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, n: n + lib.ones(3),
        lambda lib, n: n + lib.ones(2, 1, 3),
        lambda lib, n: n == n,
        lambda lib, n: n @ lib.ones(3, 2),
    ],
    ids=["dense", "dense3", "eq-nested", "matmul-dense"],
)
def test_strided_with_dense_errors(fn):
    assert_same_error(lambda lib: fn(lib, _nt(lib, "strided")))


def test_jagged_different_offsets_error():
    assert_same_error(
        lambda lib: _nt(lib, "jagged") + _nt(lib, "jagged"),
        "cannot call binary pointwise function add.Tensor",
    )
    got = error_of(lambda lib: _nt(lib, "jagged") + _nt(lib, "jagged"), chainrule)
    assert re.fullmatch(
        r"cannot call binary pointwise function add.Tensor with inputs of shapes "
        r"\(2, j(\d+), 3\) and \(2, j(\d+), 3\)",
        str(got),
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_linear(layout):
    def make(lib):
        n = _nt(lib, layout)
        w = lib.tensor(np.arange(12.0).reshape(4, 3) / 10, dtype=lib.float32)
        return _F(lib).linear(n, w, lib.arange(4.0))

    _check(make)

    def module(lib):
        n = _nt(lib, layout)
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]]))
            m.bias.copy_(lib.tensor([0.5, -0.25]))
        return m(n)

    _check(module)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [-1, 1, 0])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax(layout, dim, name):
    def make(lib):
        n = _nt(lib, layout)
        return getattr(_F(lib), name)(n, dim)

    if error_of_or_none(make) is None:
        _check(make)
    else:
        _same_error(make)


def error_of_or_none(make):
    try:
        make(torch)
    except Exception as exc:  # noqa: BLE001
        return exc
    return None


REDUCTIONS = {
    "sum-1-keep": lambda n: n.sum(-1, keepdim=True),
    "sum-1": lambda n: n.sum(-1),
    "sum1": lambda n: n.sum(1),
    "sum1-keep": lambda n: n.sum(1, keepdim=True),
    "sum": lambda n: n.sum(),
    "sum0": lambda n: n.sum(0),
    "sum12": lambda n: n.sum((1, 2)),
    "mean-1": lambda n: n.mean(-1),
    "mean1": lambda n: n.mean(1),
    "mean0": lambda n: n.mean(0),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reductions(layout, name):
    def make(lib):
        return REDUCTIONS[name](_nt(lib, layout))

    if error_of_or_none(make) is None:
        _check(make)
    else:
        _same_error(make)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layer_norm(layout):
    def make(lib):
        n = _nt(lib, layout)
        w, b = lib.tensor([1.0, 2.0, 0.5]), lib.tensor([0.0, 0.1, -0.2])
        return _F(lib).layer_norm(n, (3,), w, b)

    def plain(lib):
        n = _nt(lib, layout)
        return _F(lib).layer_norm(n, (3,))

    _check(make)
    if layout == "strided":
        assert_same_error(plain)
    else:
        _check(plain)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_transpose_and_matmul(layout):
    _check(lambda lib: _nt(lib, layout).transpose(1, 2))
    _check(lambda lib: _nt(lib, layout).transpose(-1, -2).transpose(1, 2))
    if layout == "jagged":
        _check(lambda lib: _nt(lib, layout) @ lib.tensor([[1.0, 2.0], [0.0, 1.0], [-1.0, 0.5]]))
        assert_same_error(lambda lib: _nt(lib, layout).transpose(0, 1))
        assert_same_error(
            lambda lib: lib.bmm(_nt(lib, layout), _nt(lib, layout).transpose(1, 2)),
            "matmul(): not supported",
        )
    else:
        _check(lambda lib: _nt(lib, layout) @ _nt(lib, layout).transpose(1, 2))
        _check(lambda lib: lib.bmm(_nt(lib, layout), _nt(lib, layout).transpose(1, 2)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["cumsum", "flip"])
def test_other_ops_raise_pytorchs_error(layout, name):
    def make(lib):
        n = _nt(lib, layout)
        return n.cumsum(0) if name == "cumsum" else lib.flip(n, [0])

    _same_error(make)


# ----- gradients -----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_backward_reaches_the_components(layout):
    def make(lib):
        x = _nt(lib, layout, requires_grad=True)
        w = lib.tensor(np.arange(6.0).reshape(2, 3) / 5, dtype=lib.float32, requires_grad=True)
        y = _F(lib).linear(x.sin() * x + 1, w)
        y = _F(lib).softmax(y, -1)
        y.to_padded_tensor(0.0).pow(2).sum().backward()
        return x.grad, w.grad, x.is_leaf, y.is_leaf

    (g, wg, *flags), (tg, twg, *tflags) = _both(make)
    _same(g, tg)
    _same(wg, twg)
    assert flags == tflags


@pytest.mark.parametrize("layout", LAYOUTS)
def test_backward_with_a_nested_gradient(layout):
    def make(lib):
        x = _nt(lib, layout, requires_grad=True)
        y = x * 2
        y.backward(
            _nt(lib, layout, arrays=(A + 1, B - 1)) if layout == "strided" else lib.ones_like(y)
        )
        return x.grad

    _check(make)
    if layout == "strided":
        assert_same_error(lambda lib: _nt(lib, layout).backward(_nt(lib, layout)))
    else:
        assert_same_error(_grad_of_other_offsets, "Mismatch in shape: grad_output[0] has a shape")
        assert_same_error(lambda lib: _nt(lib, layout).backward(_nt(lib, layout)), "Mismatch")


def _grad_of_other_offsets(lib):
    y = _nt(lib, "jagged", requires_grad=True) * 2
    y.backward(_nt(lib, "jagged"))


def test_jagged_layer_norm_gradient():
    def make(lib):
        x = _nt(lib, "jagged", requires_grad=True)
        y = _F(lib).layer_norm(x, (3,)) * lib.tensor([1.0, 2.0, 3.0])
        y.to_padded_tensor(0.0).sum(1).pow(2).sum().backward()
        return x.grad

    _check(make, tol=1e-4)


def test_sdpa_on_jagged_as_in_pytorchs_tutorial():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((2, 2, 4)), rng.standard_normal((3, 2, 4))]
    wq = rng.standard_normal((4, 4)) / 2

    def make(lib):
        x = _nt(lib, "jagged", requires_grad=True, arrays=arrays)
        w = lib.tensor(wq, dtype=lib.float32)
        q = _F(lib).linear(x, w).transpose(1, 2)  # (B, H, j, D)
        k, v = x.transpose(1, 2), (x * 2).transpose(1, 2)
        out = _F(lib).scaled_dot_product_attention(q, k, v).transpose(1, 2)
        out.values().pow(2).sum().backward()
        return out, x.grad, _plain(repr(out.shape)), out.shape[1] is x.shape[1]

    (o, g, s, same), (to, tg, ts, tsame) = _both(make)
    _same(o, to, 1e-4)
    _same(g, tg, 1e-4)
    assert s == ts and same == tsame


def _njt6(lib):
    arrays = [np.arange(12.0).reshape(2, 6), np.arange(18.0).reshape(3, 6) - 4]
    return _nt(lib, "jagged", arrays=arrays)


SHAPES = {
    "unflatten": lambda lib, n: n.unflatten(-1, [2, 3]),
    "unflatten-flatten": lambda lib, n: n.unflatten(-1, [2, 3]).flatten(-2),
    "view": lambda lib, n: n.view(2, -1, 2, 3),
    "reshape": lambda lib, n: n.reshape(2, n.shape[1], 3, 2),
    "unsqueeze": lambda lib, n: n.unsqueeze(-1),
    "unsqueeze1": lambda lib, n: n.unsqueeze(1),
    "squeeze": lambda lib, n: n.unsqueeze(-1).squeeze(-1),
    "chunk": lambda lib, n: n.chunk(3, -1)[1],
    "split": lambda lib, n: n.split([2, 4], -1)[1],
    "select": lambda lib, n: n.select(0, 1),
    "select2": lambda lib, n: n.select(2, 1),
    "cat": lambda lib, n: lib.cat([n, n * 2], -1),
    "stack": lambda lib, n: lib.stack([n, n * 2], -1),
    "permute": lambda lib, n: n.permute(0, 2, 1),
    "mT": lambda lib, n: n.mT,
    "amax": lambda lib, n: n.amax(-1),
    "unsqueeze0": lambda lib, n: n.unsqueeze(0),
    "flatten1": lambda lib, n: n.flatten(1),
    "cat0": lambda lib, n: lib.cat([n, n], 0),
    "view-bad": lambda lib, n: n.view(2, -1),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_jagged_shape_ops(name):
    def make(lib):
        return SHAPES[name](lib, _njt6(lib))

    if error_of_or_none(make) is None:
        _check(make)
        got, want = _both(make)
        if want.is_nested:
            assert _plain(repr(got.shape)) == _plain(repr(want.shape))
    else:
        _same_error(make)


def test_jagged_shape_ops_keep_the_gradient():
    def make(lib):
        x = _njt6(lib).requires_grad_()
        y = x.unflatten(-1, [2, 3]).transpose(-1, -2).flatten(-2) * lib.arange(6.0)
        lib.cat(y.chunk(2, -1)[::-1], -1).to_padded_tensor(0.0).pow(2).sum().backward()
        return x.grad

    _check(make)


@pytest.mark.parametrize("name", ["unsqueeze", "chunk", "select", "flatten1"])
def test_strided_shape_ops(name):
    def make(lib):
        n = _nt(lib, "strided")
        out = SHAPES[name](lib, n)
        return out if name != "unsqueeze" else out._nested_tensor_size()

    if error_of_or_none(make) is None:
        _check(make)
    else:
        _same_error(make)


def test_multihead_attention_as_in_pytorchs_njt_tutorial():
    """A packed-projection attention layer on jagged inputs (PyTorch's NJT tutorial): linear,
    unflatten into heads, transpose, SDPA, back, output projection; forward and gradients."""
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((3, 8)), rng.standard_normal((5, 8)), rng.standard_normal((1, 8))]
    w_in, w_out = rng.standard_normal((3, 8, 8)) / 3, rng.standard_normal((8, 8)) / 3

    def make(lib, packed: bool = False):
        x = _nt(lib, "jagged", requires_grad=True, arrays=arrays)
        w = lib.tensor(w_in, dtype=lib.float32, requires_grad=True)
        out_proj = lib.nn.Linear(8, 8, bias=False)
        with lib.no_grad():
            out_proj.weight.copy_(lib.tensor(w_out, dtype=lib.float32))
        if packed:  # (PyTorch's kernel refuses the chunks: not contiguous)
            q, k, v = _F(lib).linear(x, w.flatten(0, 1)).chunk(3, dim=-1)
        else:
            q, k, v = (_F(lib).linear(x, w[i]) for i in range(3))
        q, k, v = (t.unflatten(-1, [2, 4]).transpose(1, 2) for t in (q, k, v))
        attn = _F(lib).scaled_dot_product_attention(q, k, v, is_causal=False)
        out = out_proj(attn.transpose(1, 2).flatten(-2))
        out.to_padded_tensor(0.0).pow(2).sum().backward()
        return out, x.grad, w.grad, out_proj.weight.grad

    got, want = _both(make)
    for g, w in zip(got, want):
        _same(g, w, 1e-4)
    assert_same_error(lambda lib: make(lib, packed=True))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("key", [-1, 1, 5, (Ellipsis, 0), slice(0, 1), (slice(None), 0)])
def test_indexing(layout, key):
    def make(lib):
        out = _nt(lib, layout)[key]
        return out._nested_tensor_size() if layout == "strided" and _is_nested(out) else out

    if error_of_or_none(make) is None:
        _check(make)
    else:
        _same_error(make)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nn_modules_on_nested_inputs(layout):
    def make(lib):
        x = _nt(lib, layout, requires_grad=True)
        nn = lib.nn
        m = nn.Sequential(
            nn.Linear(3, 4), nn.ReLU(), nn.Dropout(0.3), nn.LayerNorm(4), nn.GELU(), nn.Linear(4, 2)
        )
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape))
        m.eval()
        y = m(x)
        y.to_padded_tensor(0.0).sum().backward()
        return y, x.grad, m[0].weight.grad

    got, want = _both(make)
    for g, w in zip(got, want):
        _same(g, w)
