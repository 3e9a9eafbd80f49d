"""Errors of the autograd core as PyTorch raises them: a write in place into a view made
under no_grad of a tensor that requires grad (refused, rather than an untracked write the
base's gradient would miss), a write into a leaf's region, requires_grad on integers,
``.data =`` of a non-tensor, ``in`` of a non-scalar, ``autograd.grad`` with fewer
gradients than outputs or with no outputs at all."""

from __future__ import annotations

import numpy as np
import pytest

from oracle import assert_same_error, compare


def _no_grad_view(L, key=slice(0, 2)):
    x = L.ones(3, requires_grad=True).clone()
    with L.no_grad():
        v = x[key]
    return v


WRITES = {
    "mul_": lambda L: _no_grad_view(L).mul_(2),
    "add_tensor": lambda L: _no_grad_view(L).add_(L.ones(2)),
    "sub_": lambda L: _no_grad_view(L).sub_(1),
    "copy_": lambda L: _no_grad_view(L).copy_(L.zeros(2)),
    "fill_": lambda L: _no_grad_view(L).fill_(3.0),
    "exp_": lambda L: _no_grad_view(L).exp_(),
    "of_a_leaf": None,  # (below)
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_into_a_no_grad_view_refused(name):
    if name == "of_a_leaf":

        def run(L):
            x = L.ones(3, requires_grad=True)
            with L.no_grad():
                v = x[:2]
            v.mul_(2)

        assert_same_error(run)
    else:
        assert_same_error(WRITES[name])


def test_setitem_into_a_no_grad_view_refused():
    def run(L):
        v = _no_grad_view(L)
        v[0] = 5.0

    assert_same_error(run, "created in no_grad mode and is being modified inplace")


@pytest.mark.parametrize("inside", ["view", "write", "both"])
def test_no_grad_view_allowed_where_pytorch_allows(inside):
    def run(L):
        x = L.ones(3, requires_grad=True).clone()
        if inside == "both":
            with L.no_grad():
                v = x[:2]
                v.mul_(2)
        elif inside == "write":
            v = x[:2]
            with L.no_grad():
                v.mul_(2)
        else:
            with L.no_grad():
                v = x.detach()[:2]
            v.mul_(2)
        return x.detach()

    compare(run)


@pytest.mark.parametrize("key", [0, (0,), None, slice(1, None), slice(None), Ellipsis, [0, 1]])
def test_setitem_into_a_leaf(key):
    def run(L):
        x = L.ones(3, requires_grad=True)
        x[key] = 1.0

    assert_same_error(run)


CASES = {
    "requires_grad_setter": lambda L: setattr(L.tensor([1]), "requires_grad", True),
    "requires_grad_method": lambda L: L.tensor([1]).requires_grad_(),
    "data_list": lambda L: setattr(L.randn(3), "data", [1]),
    "data_ndarray": lambda L: setattr(L.randn(3), "data", np.ones(3)),
    "contains_str": lambda L: "a" in L.randn(3),
    "contains_list": lambda L: [1] in L.tensor([1, 2]),
    "grad_count": lambda L: (lambda x: L.autograd.grad([x * 2, x * 3], x, [L.ones(3)]))(
        L.ones(3, requires_grad=True)
    ),
    "backward_count": lambda L: (lambda x: L.autograd.backward([x * 2, x * 3], [L.ones(3)]))(
        L.ones(3, requires_grad=True)
    ),
    "grad_no_outputs": lambda L: L.autograd.grad([], L.ones(3, requires_grad=True)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_errors_as_pytorch(name):
    assert_same_error(CASES[name])


def test_contains_scalars_and_tensors():
    def run(L):
        t = L.tensor([1, 2])
        return L.tensor([np.int64(2) in t, L.tensor(2) in t, 2.0 in t, 3 in t])

    compare(run)


def test_grad_of_no_outputs_unused():
    def run(L):
        x = L.ones(3, requires_grad=True)
        (none,) = L.autograd.grad([], x, allow_unused=True)
        assert none is None
        return L.autograd.grad([], x, materialize_grads=True)[0]

    compare(run)


def _coo(L, indices):
    return L.sparse_coo_tensor(L.tensor(indices), L.tensor([1.0, 2.0]), (2, 2))


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
@pytest.mark.parametrize("indices", [[[0, 1], [1, 0]], [[1, 0], [0, 1]]])
def test_grad_with_respect_to_a_sparse_input(indices):
    def run(L):
        s = _coo(L, indices).requires_grad_()
        (g,) = L.autograd.grad(L.sparse.mm(s, L.ones(2, 2)).sum(), s)
        assert g.layout == L.sparse_coo and g.is_coalesced()
        return g.to_dense()

    compare(run)


def test_grad_of_a_sparse_embedding():
    def run(L):
        L.manual_seed(0)
        e = L.nn.Embedding(5, 3, sparse=True)
        (g,) = L.autograd.grad(e(L.tensor([1, 2, 1])).sum(), e.weight)
        assert g.layout == L.sparse_coo
        return g.to_dense()

    compare(run)


def test_augmented_write_into_a_view_of_another_view():
    # (kornia's quaternion_to_axis_angle: the first view's base gets its graph through the
    # second; the first is then stale, not a view made under no_grad)
    def run(L):
        leaf = L.arange(8.0).reshape(2, 4).requires_grad_()
        q = leaf * 1
        aa = L.zeros_like(q)[..., :3]
        aa[..., 0] += q[..., 1] * 2
        aa.pow(2).sum().backward()
        return aa.detach(), leaf.grad

    compare(run)
