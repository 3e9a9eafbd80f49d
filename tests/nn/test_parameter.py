"""``nn.Parameter`` and ``nn.Buffer`` against PyTorch's: construction, requires_grad, repr,
what ops on them return, shared memory and version counter, deepcopy and pickling."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_models import arr, tensor
from oracle import assert_same_error, compare


def kind(t) -> str:
    """The class name, as torch names it (chainrule's Tensor is 'Tensor' too)."""
    return type(t).__name__


SAME = {
    "repr": lambda lib: [
        repr(lib.nn.Parameter(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))),
        repr(lib.nn.Parameter(lib.tensor([1.5, 2.5], dtype=lib.float64), requires_grad=False)),
        repr(lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False)),
        repr(lib.nn.Parameter()),
        str(lib.nn.Parameter(lib.tensor(3.0))),
    ],
    "default_requires_grad": lambda lib: [
        lib.nn.Parameter(lib.ones(2)).requires_grad,
        lib.nn.Parameter(lib.ones(2), requires_grad=False).requires_grad,
        lib.nn.Parameter(lib.ones(2)).is_leaf,
    ],
    "under_no_grad": lambda lib: _under_no_grad(lib),
    "from_non_leaf": lambda lib: _from_non_leaf(lib),
    "ops_give_tensors": lambda lib: _ops_give_tensors(lib),
    "shares_memory_and_version": lambda lib: _shares(lib),
    "gradient": lambda lib: _gradient(lib),
    "deepcopy": lambda lib: _deepcopy(lib),
    "pickle": lambda lib: _pickle(lib),
    "copy": lambda lib: _copy(lib),
    "isinstance": lambda lib: [
        isinstance(lib.nn.Parameter(lib.ones(1)), lib.Tensor),
        isinstance(lib.ones(1), lib.nn.Parameter),
        isinstance(lib.nn.Buffer(lib.ones(1)), lib.nn.Buffer),
        isinstance(lib.nn.Buffer(lib.ones(1)), lib.Tensor),
    ],
    "buffer": lambda lib: _buffer(lib),
    "empty_buffer": lambda lib: [repr(lib.nn.Buffer()), lib.nn.Buffer().persistent],
}


def _under_no_grad(lib):
    with lib.no_grad():
        p = lib.nn.Parameter(lib.ones(2))
    return [p.requires_grad, repr(p)]


def _from_non_leaf(lib):
    x = tensor(lib, arr(3), requires_grad=True)
    p = lib.nn.Parameter(x * 2)
    return [p.is_leaf, p.grad_fn is None, p.requires_grad, p]


def _ops_give_tensors(lib):
    p = lib.nn.Parameter(tensor(lib, arr(2, 3)))
    results = [p * 2, p + p, p.detach(), p.clone(), p[0], p.view(6), p.data, p.t(), p.sum()]
    same = [p.requires_grad_(True), p.to(lib.float32), p.cpu()]
    return [kind(r) for r in results] + [r is p for r in same] + [kind(p.double())]


def _shares(lib):
    x = tensor(lib, arr(3))
    p = lib.nn.Parameter(x)
    x.add_(1)
    with lib.no_grad():
        p.mul_(2)
    return [p, x, p._version, x._version]


def _gradient(lib):
    p = lib.nn.Parameter(tensor(lib, arr(2, 3)))
    w = tensor(lib, arr(3, seed=2))
    (p * w).sum().backward()
    return [p.grad, kind(p.grad)]


def _deepcopy(lib):
    p = lib.nn.Parameter(tensor(lib, arr(2)))
    p.grad = lib.ones(2)
    q = copy.deepcopy(p)
    memo_twice = copy.deepcopy([p, p])
    return [kind(q), q, q.grad is None, q is not p, memo_twice[0] is memo_twice[1]]


def _pickle(lib):
    p = lib.nn.Parameter(tensor(lib, arr(2, 2)), requires_grad=False)
    q = pickle.loads(pickle.dumps(p))
    b = pickle.loads(pickle.dumps(lib.nn.Buffer(lib.ones(2), persistent=False)))
    return [kind(q), q, q.requires_grad, b.persistent, b]


def _copy(lib):
    p = lib.nn.Parameter(tensor(lib, arr(2)))
    q = copy.copy(p)
    return [kind(q), q, q.requires_grad]


def _buffer(lib):
    x = tensor(lib, arr(3))
    b = lib.nn.Buffer(x, persistent=False)
    x.mul_(2)
    g = lib.nn.Buffer(tensor(lib, arr(2), requires_grad=True))
    return [b, b.persistent, lib.nn.Buffer(x).persistent, g.requires_grad, g.is_leaf, repr(g)]


@pytest.mark.parametrize("fn", SAME.values(), ids=SAME.keys())
def test_same_as_torch(fn):
    compare(fn, exact=True)


ERRORS = {
    "int_requires_grad": lambda lib: lib.nn.Parameter(lib.tensor([1, 2])),
    "bool_requires_grad": lambda lib: lib.nn.Parameter(lib.tensor([True])),
    "numpy_data": lambda lib: lib.nn.Parameter(np.ones(2)),
    "list_data": lambda lib: lib.nn.Parameter([1.0]),
    "buffer_list_data": lambda lib: lib.nn.Buffer([1.0]),
    "requires_grad_int_later": lambda lib: lib.nn.Parameter(
        lib.tensor([1]), requires_grad=False
    ).requires_grad_(),
    "deepcopy_non_leaf_tensor": lambda lib: copy.deepcopy(lib.nn.Parameter(lib.ones(1)) * 2),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_errors_as_torch(fn):
    if fn is ERRORS["requires_grad_int_later"]:
        # Tensor.requires_grad_'s own message (chainrule's core, outside nn): the type only
        assert type(_error(fn, cr)) is type(_error(fn, torch))
        return
    assert_same_error(fn)


def _error(fn, lib):
    with pytest.raises(Exception) as info:  # noqa: B017 - the type is compared
        fn(lib)
    return info.value


def test_parameter_is_a_leaf_that_accumulates():
    """A Parameter made from a view of a graph is a leaf of its own: its gradient stops there."""
    x = cr.ones(3, requires_grad=True)
    p = cr.nn.Parameter(x * 2)
    (p * 3).sum().backward()
    assert x.grad is None
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 3.0, 3.0])
