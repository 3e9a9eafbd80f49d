"""cat and stack's common case, pinned to the general path it shortcuts and to PyTorch.

``cr.cat`` and ``cr.stack`` (api/parsers/shapes.py) check their arguments in one pass and,
for the common case (float tensors of one dtype, the sizes off ``dim`` equal, no 1-D empty
tensor to skip, no stale view, nothing rare on: ``_modes.usual``), make the output and its
node in ``SequenceOp._fast`` (autograd/sequence_op.py) with the op's ``plain`` forward
(ops/joining.py). Each such call must give what the general path (``SequenceOp.__call__``)
gives: values bit for bit, dtype, memory layout, grad_fn names, next_functions, saved
values, gradients (first and second order) and errors; every other call must take the
general path."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import _backend, _modes
from chainrule.autograd import forward_ad
from chainrule.ops import joining
from oracle import assert_same_error, compare, graph_names


def _leaf(shape=(4, 5), dtype=cr.float32, seed=0, grad=True):
    r = np.random.default_rng(seed)
    return cr.tensor(r.standard_normal(shape), dtype=dtype, requires_grad=grad)


a, b = _leaf(seed=1), _leaf(seed=2)
c = _leaf(seed=3, grad=False)
r3 = _leaf((2, 5), seed=4)  # fewer rows: joins a and b along dim 0 only
k3 = _leaf((4, 3), seed=5)  # fewer columns: along dim 1 only
h1, h2 = _leaf(dtype=cr.float16, seed=6), _leaf(dtype=cr.float16, seed=7)
d1, d2 = _leaf(dtype=cr.float64, seed=8), _leaf(dtype=cr.float64, seed=9)
v1, v2 = _leaf((2, 3, 4), seed=10), _leaf((2, 3, 4), seed=11)
x1, y1 = _leaf((3,), seed=12), _leaf((2,), seed=13)
s1, s2 = _leaf((), seed=14), _leaf((), seed=15)
INPUTS = [a, b, c, r3, k3, h1, h2, d1, d2, v1, v2, x1, y1, s1, s2]


def _general(op, tensors, params: dict):
    """``op(tensors, **params)`` through the general path (``SequenceOp.__call__``)."""
    return op(list(tensors), **params)


def _cat_params(tensors, dim: int) -> dict:
    """cat's parameters as its parser computes them for tensors none of which is skipped."""
    d = dim % tensors[0].dim()
    offsets = [0]
    for t in tensors:
        offsets.append(offsets[-1] + t.shape[d])
    return {"dim": d, "offsets": tuple(offsets)}


def _stack_params(tensors, dim: int) -> dict:
    return {"dim": dim % (tensors[0].dim() + 1)}


@pytest.fixture
def fast_calls(monkeypatch):
    """How many times each op's ``_fast`` ran (by op name), in a process where nothing rare
    is on: a meta or device array made by an earlier test in this process turns the
    usual-case flag off for good (``_modes.usual``); it is put aside while these tests run
    (on CPU tensors alone), and restored after."""
    was_live = _backend.live[0]
    if was_live:
        _backend.live[0] = False
        _modes.mark("device", False)
    try:
        assert _modes.usual[0], _modes._reasons
        calls = {"cat": 0, "stack": 0}
        for op in (joining.cat, joining.stack):
            method = op._fast

            def spy(*args, _method=method, _name=op.name):
                calls[_name] += 1
                return _method(*args)

            monkeypatch.setattr(op, "_fast", spy)
        yield calls
    finally:
        if was_live:
            _backend.live[0] = True
            _modes.mark("device", True)


def _assert_same_tensor(got, want) -> None:
    g, w = got._data, want._data
    assert g.dtype == w.dtype and g.shape == w.shape
    np.testing.assert_array_equal(g, w)
    assert g.flags.c_contiguous and w.flags.c_contiguous
    assert g.flags.owndata == w.flags.owndata
    assert got.dtype is want.dtype
    assert got.requires_grad == want.requires_grad
    assert got.is_leaf == want.is_leaf
    assert got._version == want._version == 0
    assert got._view is None and want._view is None
    assert (got.grad_fn is None) == (want.grad_fn is None)
    if got.grad_fn is not None:
        node, other = got.grad_fn, want.grad_fn
        assert type(node) is type(other)
        assert node._plan is other._plan
        assert node._saved == other._saved
        assert node._checks == other._checks == ()
        assert node._meta == other._meta
        assert graph_names(got) == graph_names(want)


def _grads(make, create_graph: bool = False) -> list:
    """The inputs' gradients of ``make()`` for a fixed output gradient (and, with
    create_graph, of the sum of those gradients' squares: second order)."""
    for t in INPUTS:
        t.grad = None
    out = make()
    if not out.requires_grad:
        return []
    weights = cr.tensor(np.random.default_rng(99).standard_normal(out.shape), dtype=out.dtype)
    if create_graph:
        leaves = [t for t in INPUTS if t.requires_grad]
        firsts = cr.autograd.grad(
            (out * out * weights).sum(), leaves, create_graph=True, allow_unused=True
        )
        total = sum((f * f).sum() for f in firsts if f is not None)
        total.backward()
    else:
        out.backward(weights)
    return [None if t.grad is None else t.grad.numpy().copy() for t in INPUTS]


# (the call, the op, its tensors, dim): the call takes the fast path
CAT = {
    "cat([a, b])": (lambda: cr.cat([a, b]), [a, b], 0),
    "cat([a, b], 1)": (lambda: cr.cat([a, b], 1), [a, b], 1),
    "cat([a, b], -1)": (lambda: cr.cat([a, b], -1), [a, b], -1),
    "cat([a, b], -2)": (lambda: cr.cat([a, b], -2), [a, b], -2),
    "cat((a, b))": (lambda: cr.cat((a, b)), [a, b], 0),
    "cat([a])": (lambda: cr.cat([a]), [a], 0),
    "cat([a, r3, b])": (lambda: cr.cat([a, r3, b]), [a, r3, b], 0),
    "cat([k3, a], 1)": (lambda: cr.cat([k3, a], dim=1), [k3, a], 1),
    "cat([a, c])": (lambda: cr.cat([a, c]), [a, c], 0),
    "cat([c, a])": (lambda: cr.cat([c, a]), [c, a], 0),
    "cat([c, c])": (lambda: cr.cat([c, c]), [c, c], 0),  # no gradient: no node
    "cat([a, a])": (lambda: cr.cat([a, a]), [a, a], 0),
    "cat 8": (lambda: cr.cat([a, b, c, a, r3, b, c, a]), [a, b, c, a, r3, b, c, a], 0),
    "cat([c, c, a])": (lambda: cr.cat([c, c, a]), [c, c, a], 0),  # only input 2 needs one
    "cat([h1, h2])": (lambda: cr.cat([h1, h2]), [h1, h2], 0),
    "cat([d1, d2], 1)": (lambda: cr.cat([d1, d2], 1), [d1, d2], 1),
    "cat([v1, v2], 2)": (lambda: cr.cat([v1, v2], 2), [v1, v2], 2),
    "cat([v1, v2], 1)": (lambda: cr.cat([v1, v2], 1), [v1, v2], 1),
    "cat([x1, y1])": (lambda: cr.cat([x1, y1]), [x1, y1], 0),
    "concatenate": (lambda: cr.concatenate([a, b], axis=1), [a, b], 1),
    "concat": (lambda: cr.concat([a, b]), [a, b], 0),
}

STACK = {
    "stack([a, b])": (lambda: cr.stack([a, b]), [a, b], 0),
    "stack([a, b], 1)": (lambda: cr.stack([a, b], 1), [a, b], 1),
    "stack([a, b], 2)": (lambda: cr.stack([a, b], 2), [a, b], 2),
    "stack([a, b], -1)": (lambda: cr.stack([a, b], -1), [a, b], -1),
    "stack([a, b], -3)": (lambda: cr.stack([a, b], dim=-3), [a, b], -3),
    "stack((a, b))": (lambda: cr.stack((a, b)), [a, b], 0),
    "stack([a])": (lambda: cr.stack([a]), [a], 0),
    "stack([c, a])": (lambda: cr.stack([c, a]), [c, a], 0),
    "stack([c, c])": (lambda: cr.stack([c, c]), [c, c], 0),
    "stack([a, a])": (lambda: cr.stack([a, a], 1), [a, a], 1),
    "stack 8": (lambda: cr.stack([a, b, c, a, b, c, a, b], 1), [a, b, c, a, b, c, a, b], 1),
    "stack([h1, h2])": (lambda: cr.stack([h1, h2]), [h1, h2], 0),
    "stack([d1, d2], 2)": (lambda: cr.stack([d1, d2], 2), [d1, d2], 2),
    "stack([v1, v2], 3)": (lambda: cr.stack([v1, v2], 3), [v1, v2], 3),
    "stack([x1, x1])": (lambda: cr.stack([x1, x1]), [x1, x1], 0),
    "stack([s1, s2])": (lambda: cr.stack([s1, s2]), [s1, s2], 0),  # 0-d tensors
    "stack([s1, s2], -1)": (lambda: cr.stack([s1, s2], -1), [s1, s2], -1),
}

CASES = {
    **{k: (joining.cat, _cat_params, *v) for k, v in CAT.items()},
    **{k: (joining.stack, _stack_params, *v) for k, v in STACK.items()},
}


@pytest.mark.parametrize("case", CASES)
def test_fast_path_gives_what_the_general_path_gives(case, fast_calls):
    op, params_of, call, tensors, dim = CASES[case]
    params = params_of(tensors, dim)

    def general():
        return _general(op, tensors, params)

    got = call()
    assert fast_calls[op.name] == 1
    _assert_same_tensor(got, general())
    for create_graph in (False, True):
        for g, h in zip(_grads(call, create_graph), _grads(general, create_graph)):
            assert (g is None) == (h is None)
            if g is not None:
                np.testing.assert_array_equal(g, h)


@pytest.mark.parametrize("case", CASES)
def test_fast_path_matches_torch(case):
    op, _, call, tensors, dim = CASES[case]
    order = {id(t): i for i, t in enumerate(INPUTS)}

    def run(lib):
        leaves = [lib.tensor(t.detach().numpy(), requires_grad=t.requires_grad) for t in INPUTS]
        out = getattr(lib, op.name)([leaves[order[id(t)]] for t in tensors], dim)
        result = [out, out.is_contiguous(), out.grad_fn is None]
        if out.requires_grad:
            result.append(out.grad_fn.name())
            out.backward(lib.ones_like(out))
            result += [t.grad for t in leaves]
        return result

    compare(run)


def test_fast_path_made_by_hstack_and_vstack(fast_calls):
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = lib.tensor([[5.0], [6.0]], requires_grad=True)
        z = lib.tensor([[7.0, 8.0]], requires_grad=True)
        h, v = lib.hstack([x, y]), lib.vstack([x, z])
        (h.sum() * 2 + (v * v).sum()).backward()
        return h, v, h.grad_fn.name(), v.grad_fn.name(), x.grad, y.grad, z.grad

    compare(run)
    assert fast_calls["cat"] == 2


def test_transposed_inputs_give_a_contiguous_result(fast_calls):
    """NumPy's concatenate keeps its inputs' memory order; PyTorch's cat and stack allocate a
    contiguous result, which ``view(-1)`` then takes."""

    def run(lib):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        y = lib.arange(6.0, 12.0).reshape(2, 3).requires_grad_()
        outs = [lib.cat([x.t(), y.t()]), lib.cat([x.t(), y.t()], 1), lib.stack([x.t(), y.t()])]
        flat = [o.view(-1) for o in outs]
        sum(f.sum() for f in flat).backward()
        return [*flat, *(o.is_contiguous() for o in outs), x.grad, y.grad]

    compare(run)
    assert fast_calls == {"cat": 2, "stack": 1}


def test_output_is_fresh_and_its_node_freed_without_the_collector():
    gc.disable()
    try:
        out = cr.cat([a * 1, b])
        node = weakref.ref(out.grad_fn)
        assert out._data.base is None and not np.shares_memory(out._data, a._data)
        del out
        assert node() is None
    finally:
        gc.enable()


def test_leaf_edges_share_one_accumulator():
    x = cr.cat([a, b])
    y = cr.stack([b, a])
    accs = [f for f, _ in x.grad_fn.next_functions]
    assert [f.variable for f in accs] == [a, b]
    assert [f for f, _ in y.grad_fn.next_functions] == accs[::-1]


def test_inputs_written_in_place_after_the_join_as_torch():
    """cat and stack save no tensor: a later in-place write to an input is no error."""

    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 2
        out = lib.cat([y, y]) + lib.stack([y, y]).sum(0).repeat(2, 1)
        y.mul_(3)
        out.sum().backward()
        return out, x.grad

    compare(run)


# ----- every other call takes the general path ---------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: cr.cat([a, d1]),  # two dtypes: promoted
        lambda: cr.cat([d1, a]),
        lambda: cr.cat([cr.ones(2, 5, dtype=cr.int64), a]),
        lambda: cr.cat([cr.ones(2, dtype=cr.int64), cr.ones(3, dtype=cr.int64)]),
        lambda: cr.cat([a, cr.zeros(0)]),  # a 1-D empty tensor is skipped
        lambda: cr.cat([cr.zeros(0), a]),
        lambda: cr.cat([cr.zeros(0), cr.zeros(0)]),
        lambda: cr.cat([a, b], np.int64(1)),  # a NumPy integer dim
        lambda: cr.cat(iter([a, b])),  # not a list or tuple
        lambda: cr.cat([a, np.ones((1, 5), np.float32)]),  # an array among the tensors
        lambda: cr.cat([cr.nn.Parameter(a.detach()), b]),  # a subclass
        lambda: cr.stack([a, d1]),
        lambda: cr.stack([cr.ones(2, dtype=cr.int64)] * 2),
        lambda: cr.stack([a, b], np.int64(1)),
        lambda: cr.stack(iter([a, b])),
        lambda: cr.stack([cr.nn.Parameter(a.detach()), b]),
    ],
)
def test_other_calls_take_the_general_path(call, fast_calls):
    call()
    assert fast_calls == {"cat": 0, "stack": 0}


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
@pytest.mark.parametrize("name", ["cat", "stack"])
def test_rare_modes_take_the_general_path_as_torch(name, fast_calls):
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = lib.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)
        join = getattr(lib, name)
        with lib.no_grad():
            plain = join([x, y], 1)
        with lib.inference_mode():
            inferred = join([x, y])
        with lib.autograd.detect_anomaly(check_nan=False):
            anomalous = join([x, y], 1)
            anomalous.sum().backward()
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            dual = fwad.make_dual(x.detach(), lib.ones_like(x))
            tangent = fwad.unpack_dual(join([dual, y.detach()])).tangent
        return [
            plain,
            plain.requires_grad,
            inferred,
            inferred.is_inference(),
            inferred.requires_grad,
            anomalous.grad_fn.name(),
            x.grad,
            tangent,
        ]

    compare(run)
    assert fast_calls == {"cat": 0, "stack": 0}


# (meta tensors take the general path too: tests/test_meta.py's cat_stack; not here, as a
# meta tensor turns the usual-case flag off for the rest of the process: _modes.usual)


def test_a_stale_view_takes_the_general_path_as_torch(fast_calls):
    """A view whose base was written in place since it was taken is re-derived first."""

    def run(lib, name):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        base = x * 1
        view = base[1:]
        base.mul_(x)  # the view's graph now goes through the in-place mul
        out = getattr(lib, name)([view, x[:1]])
        out.sum().backward()
        return out, out.grad_fn.name(), x.grad

    for name in ("cat", "stack"):
        compare(lambda lib, name=name: run(lib, name))
    assert fast_calls == {"cat": 0, "stack": 0}


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)]),  # sizes off dim differ
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3, 3)], 1),
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3, 1)]),  # ndims differ
        lambda lib: lib.cat([lib.ones(2, 3, 1), lib.ones(2, 3)]),
        lambda lib: lib.cat([lib.ones(3), lib.ones(2, 3)]),
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(())]),  # a 0-d tensor
        lambda lib: lib.cat([lib.ones(()), lib.ones(())]),
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3)], 2),  # dim out of range
        lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3)], -3),
        lambda lib: lib.cat([]),
        lambda lib: lib.stack([lib.ones(2, 3), lib.ones(2, 4)]),
        lambda lib: lib.stack([lib.ones(2, 3), lib.ones(3)]),
        lambda lib: lib.stack([lib.ones(2, 3), lib.ones(2, 3)], 3),
        lambda lib: lib.stack([lib.ones(2, 3), lib.ones(2, 3)], -4),
        lambda lib: lib.stack([]),
    ],
)
def test_errors_are_torchs(case):
    assert_same_error(case)


def test_a_forward_mode_level_left_open_elsewhere_is_seen():
    """The fast path is taken only while no rare mode is on anywhere: with a dual level open,
    a tangent given to cat's input reaches its output."""
    with forward_ad.dual_level():
        x = forward_ad.make_dual(cr.ones(2, 2), cr.full((2, 2), 3.0))
        out = cr.cat([x, cr.zeros(2, 2)])
        tangent = forward_ad.unpack_dual(out).tangent
    np.testing.assert_array_equal(tangent.numpy(), np.r_[np.full((2, 2), 3.0), np.zeros((2, 2))])
    assert torch.cat([torch.ones(2, 2)] * 2).shape == out.shape
