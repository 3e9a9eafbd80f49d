"""The parametrised tests shared by the op families' files.

Each op family (tests/ops/test_<family>.py, tests/ops/linalg/test_<family>.py) keeps its
own case tables: ``name -> (function of (lib, *tensors), inputs...)``. A function here takes
such a table and returns one pytest test function, parametrised over the table's names,
that runs every case through ``oracle``; the family file binds it to a ``test_`` name:

    test_unary_matches_torch = cases.unary_matches_torch(UNARY)

so the pattern "check each case of the table" is written once, here, not in every file.
Tables of the same kind keep the same layout in every family (see each function). The
module also holds the few constants those tables share.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    DT_IDS,
    FLOATS,
    L64,
    R,
    assert_same_tangent,
    check,
    check_double_backward,
    check_fd,
    check_raises,
    check_same_error,
    compare_tangents,
    distinct,
    nonzero,
    positive,
    randn,
    same_node,
    shape_id,
    values,
)

# ----- shared inputs ---------------------------------------------------------------------

# integer, bool and float inputs of the elementwise families' no-grad and error tables
I = np.array([[3, -2, 0], [7, -5, 1]], dtype=np.int64)
I32 = np.array([5, -6, 1], dtype=np.int32)
J = np.array([[2, 3, -4], [-3, 2, 5]], dtype=np.int64)  # nonzero divisors
B = np.array([[True, False, True], [False, False, True]])
C = np.array([True, True, False])
F = np.array([[0.5, 0.0, -2.0], [np.nan, np.inf, 1.0]])

# masks and indices of the shape, indexing and scatter families
MASK = np.array([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
GATHER_INDEX = L64([0, 2], [1, 1], [3, 0])
SCATTER_INDEX = L64([0, 2], [1, 3], [3, 0])  # no place written twice: the result is defined


# ----- any table: check or raise each case -----------------------------------------------


def matches_torch(table: Mapping, *, sort: bool = True) -> Callable:
    """``name -> (fn, *inputs)``: ``check(fn, *inputs)`` (forward, gradients, tangents)."""

    @pytest.mark.parametrize("name", sorted(table) if sort else list(table))
    def test(name):
        fn, *inputs = table[name]
        check(fn, *inputs)

    return test


def raises_like_torch(table: Mapping, *default_inputs, sort: bool = False) -> Callable:
    """``name -> (fn, *inputs)``, or ``name -> fn`` run on ``default_inputs``: both
    libraries raise, chainrule an exception of torch's type (``check_raises``)."""

    @pytest.mark.parametrize("name", sorted(table) if sort else list(table))
    def test(name):
        case = table[name]
        if callable(case):
            check_raises(case, *default_inputs)
        else:
            fn, *inputs = case
            check_raises(fn, *inputs)

    return test


def same_errors_as_torch(table: Mapping) -> Callable:
    """``name -> (fn, [inputs])``: the same exception type and message
    (``check_same_error``)."""

    @pytest.mark.parametrize("name", list(table))
    def test(name):
        fn, inputs = table[name]
        check_same_error(fn, *inputs)

    return test


def error_messages_as_torch(cases: Sequence) -> Callable:
    """``(fn, message)`` pairs: on a 3x4 zero tensor, both libraries raise with a message
    matching ``message``."""

    def test():
        for fn, message in cases:
            for lib in (cr, torch):
                with pytest.raises((IndexError, RuntimeError, ValueError), match=message):
                    fn(lib, lib.zeros(3, 4))

    return test


# ----- ops_oracle's tables: the function and method forms of a one-input op --------------

FORM_SHAPES = [(), (7,), (2, 3), (2, 3, 2), (0,), (2, 0)]


def form_input(domain: str, shape, seed: int = 7):
    if domain == "pos":
        return positive(shape, seed=seed, low=0.2, high=3.0)
    if domain == "nonzero":
        return nonzero(shape, seed=seed)
    return randn(shape, seed=seed) * 1.5


def function_and_method(table: Mapping) -> Callable:
    """``name -> (function form, method form, domain)``: each form matches torch in
    float32 and float64 over 0-d, empty and dimensioned shapes."""

    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("shape", FORM_SHAPES, ids=shape_id)
    @pytest.mark.parametrize("form", [0, 1], ids=["function", "method"])
    @pytest.mark.parametrize("name", list(table))
    def test(name, form, shape, dtype):
        fn, domain = table[name][form], table[name][2]
        check(fn, form_input(domain, shape), dtype=dtype)

    return test


def function_and_method_fd(table: Mapping) -> Callable:
    """The function form's VJP against float64 central differences."""

    @pytest.mark.parametrize("name", list(table))
    def test(name):
        fn, _, domain = table[name]
        check_fd(fn, form_input(domain, (3, 4)))

    return test


def saturation(table: Mapping, names: Sequence[str]) -> Callable:
    """Large |x|: exp overflows to inf, sigmoid and tanh saturate without nan."""

    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", names)
    def test(name, dtype):
        x = np.array([-1000.0, -100.0, -30.0, 0.0, 30.0, 100.0, 1000.0])
        if name == "exp":
            x = np.array([-1000.0, -100.0, 0.0, 50.0, 80.0])
        check(table[name][0], x, dtype=dtype)

    return test


# ----- the elementwise tables: name -> (fn, value kind(s)) --------------------------------

SHAPES = [(3, 4), (), (5,)]
SHAPE_IDS = ["3x4", "0d", "5"]
PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 3, 4)),
    ((), (3,)),
    ((5,), ()),
    ((), ()),
]
PAIR_IDS = ["x".join(map(str, a)) + "_" + "x".join(map(str, b)) for a, b in PAIRS]


def unary_matches_torch(table: Mapping) -> Callable:
    """``name -> (fn, kind)``: values, dtype, node name and gradients, in float32 and
    float64, for a 3x4, a 0-d and a 1-D input of ``values(kind)``."""

    @pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", sorted(table))
    def test(name, dtype, shape):
        fn, kind = table[name]
        same_node(check(fn, values(kind, shape, seed=len(name)), dtype=dtype))

    return test


def unary_finite_differences(table: Mapping) -> Callable:
    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        fn, kind = table[name]
        check_fd(fn, values(kind, (2, 3), seed=len(name) + 1))

    return test


def unary_tangents_match_torch(table: Mapping, names: Sequence[str]) -> Callable:
    """Forward mode at float64 precision, for ``names`` of the table."""

    @pytest.mark.parametrize("name", names)
    def test(name):
        fn, kind = table[name]
        assert_same_tangent(fn, values(kind, (2, 3), seed=11))

    return test


def binary_matches_torch(table: Mapping, forward_only: Mapping | None = None) -> Callable:
    """``name -> (fn, kind of a, kind of b)`` over broadcasting shape pairs; the cases of
    ``forward_only`` (no derivative in PyTorch) without the backward pass."""
    forward_only = forward_only or {}
    both_tables = {**table, **forward_only}

    @pytest.mark.parametrize("shapes", PAIRS, ids=PAIR_IDS)
    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", sorted(table) + sorted(forward_only))
    def test(name, dtype, shapes):
        fn, ka, kb = both_tables[name]
        a = values(ka, shapes[0], seed=len(name))
        b = values(kb, shapes[1], seed=len(name) + 7)
        same_node(check(fn, a, b, dtype=dtype, backward=name in table))

    return test


def fractional_quotient(shape, seed):
    """a, b with a/b at least 0.15 from an integer: remainder's derivative is smooth there."""
    r = np.random.default_rng(seed)
    b = values("nonzero", shape, seed)
    q = (r.integers(-3, 3, shape) + r.uniform(0.15, 0.85, shape)).astype(np.float64)
    return np.asarray(q * b), b


def binary_finite_differences(table: Mapping) -> Callable:
    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        fn, ka, kb = table[name]
        if name in ("remainder", "mod_operator", "fmod", "fmod_method"):
            a, b = fractional_quotient((2, 3), seed=3)
            b = b[:1]  # broadcast b over a's rows
        else:
            a, b = values(ka, (2, 3), seed=1), values(kb, (3,), seed=2)
            if name.startswith(("div_", "divide_")):
                a, b = fractional_quotient((2, 3), seed=5)
        check_fd(fn, a, b)

    return test


def binary_tangents_match_torch(table: Mapping) -> Callable:
    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        fn, ka, kb = table[name]
        assert_same_tangent(fn, values(ka, (2, 3), 12), values(kb, (3,), 13))

    return test


def python_number_operands(table: Mapping) -> Callable:
    """``name -> (fn of (lib, x), backward)``: a Python number as the other operand."""

    @pytest.mark.parametrize("shape", [(4,), ()], ids=["4", "0d"])
    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", sorted(table))
    def test(name, dtype, shape):
        fn, backward = table[name]
        x = values("nonzero", shape, seed=len(name))
        same_node(check(fn, x, dtype=dtype, backward=backward))

    return test


def second_derivatives_match_torch(table: Mapping) -> Callable:
    """``name -> (fn, [kind of each input])``: ``check_double_backward``."""

    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        fn, kinds = table[name]
        check_double_backward(fn, *[values(k, (2, 3), seed=i + 20) for i, k in enumerate(kinds)])

    return test


def inplace_on_a_non_leaf_matches_torch(table: Mapping) -> Callable:
    """``name -> (fn, kind)``: the in-place variant on a non-leaf, node name included."""

    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", sorted(table))
    def test(name, dtype):
        fn, kind = table[name]
        same_node(check(fn, values(kind, (2, 3), seed=len(name)), dtype=dtype))

    return test


# ----- the reductions, scans and sorting: forward mode and second derivatives -------------


def forward_mode_tangents(table: Mapping) -> Callable:
    """``name -> (fn, shape)``: tangents at tie-free inputs (``distinct``) equal torch's."""

    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        fn, shape = table[name]
        primal = distinct(shape, seed=len(name))
        tangent = randn(shape, seed=len(name) + 1)
        compare_tangents(fn, [primal], [tangent])

    return test


def double_backward(fns: Mapping) -> Callable:
    """``id -> fn``: second derivatives at a tie-free 3x4 input."""

    @pytest.mark.parametrize("fn", list(fns.values()), ids=list(fns))
    def test(fn):
        check_double_backward(fn, distinct((3, 4), seed=22) * 0.5)

    return test


# ----- the shape, joining, indexing and scatter tables: name -> (fn, *inputs) -------------


def index_matches_torch(table: Mapping) -> Callable:
    """Values, dtype, node name and gradients in float32 and float64."""

    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", sorted(table))
    def test(name, dtype):
        fn, *inputs = table[name]
        same_node(check(fn, *inputs, dtype=dtype))

    return test


def index_finite_differences(table: Mapping, names: Sequence[str]) -> Callable:
    @pytest.mark.parametrize("name", names)
    def test(name):
        fn, *inputs = table[name]
        check_fd(fn, *inputs)

    return test


def index_second_derivatives(table: Mapping, names: Sequence[str]) -> Callable:
    @pytest.mark.parametrize("name", names)
    def test(name):
        fn, *inputs = table[name]
        check_double_backward(fn, *inputs)

    return test


def index_tangents_match_torch(table: Mapping, names: Sequence[str]) -> Callable:
    """Forward mode: a random tangent on every float input (integer inputs and ``NoGrad``
    stay plain tensors)."""

    @pytest.mark.parametrize("name", names)
    def test(name):
        fn, *inputs = table[name]
        rng = np.random.default_rng(5)
        tangents = [
            rng.standard_normal(np.shape(v)) if isinstance(v, np.ndarray) else None for v in inputs
        ]
        tangents = [
            t if isinstance(v, np.ndarray) and v.dtype.kind == "f" else None
            for v, t in zip(inputs, tangents, strict=True)
        ]
        compare_tangents(fn, inputs, tangents)

    return test


def scalar_inputs_match_torch(table: Mapping) -> Callable:
    """``name -> fn``: on a 0-d input, node name included."""

    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        same_node(check(table[name], R()))

    return test


def scalar_input_errors_match_torch(fns: Mapping) -> Callable:
    """``id -> fn``: on a 0-d input both libraries raise (``check_raises``)."""

    @pytest.mark.parametrize("fn", list(fns.values()), ids=list(fns))
    def test(fn):
        check_raises(fn, R())

    return test


def inplace_variants_match_torch(table: Mapping) -> Callable:
    """``name -> fn of (lib, x, s)``: on a 3x4 x and a 3x2 s, node name included."""

    @pytest.mark.parametrize("name", sorted(table))
    def test(name):
        same_node(check(table[name], R(3, 4), R(3, 2)))

    return test


# ----- linear algebra: name -> (fn, [inputs], PyTorch's node name or None) ----------------

F32_TOL = {np.float32: dict(rtol=2e-4, atol=2e-4), np.float64: {}}


def linalg_matches_torch(
    table: Mapping, loose=(), torch_backward_fails=(), torch_jvp_wrong=()
) -> Callable:
    """float32 at 2e-4 (1e-3 for the ``loose`` cases, whose float32 results differ between
    LAPACK builds with the condition of the problem), float64 at the oracle's tolerance.
    ``torch_backward_fails``: compared forward only (PyTorch's own backward fails);
    ``torch_jvp_wrong``: tangents not compared (checked against finite differences)."""

    @pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
    @pytest.mark.parametrize("name", list(table))
    def test(name, dtype):
        fn, inputs, _ = table[name]
        if name in torch_backward_fails:
            check(fn, *inputs, dtype=dtype, backward=False, **F32_TOL[dtype])
            return
        loose_case = dtype is np.float32 and name in loose
        tol = dict(rtol=1e-3, atol=1e-3) if loose_case else F32_TOL[dtype]
        check(fn, *inputs, dtype=dtype, forward=name not in torch_jvp_wrong, **tol)

    return test


def linalg_node_name(table: Mapping) -> Callable:
    """The output's node has the name the case gives, in both libraries."""

    @pytest.mark.parametrize("name", [n for n, c in table.items() if c[2] is not None])
    def test(name):
        fn, inputs, want = table[name]
        result = check(fn, *inputs, dtype=np.float64, backward=False)
        assert result.torch_out.grad_fn.name() == want  # the case's name is PyTorch's
        assert result.cr_out.grad_fn.name() == want

    return test


def linalg_finite_differences(table: Mapping, skip=()) -> Callable:
    @pytest.mark.parametrize("name", [n for n in table if n not in skip])
    def test(name):
        fn, inputs, _ = table[name]
        check_fd(fn, *inputs, rtol=1e-5, atol=1e-6)

    return test


def linalg_tangents_match_torch(table: Mapping, skip=()) -> Callable:
    @pytest.mark.parametrize("name", [n for n in table if n not in skip])
    def test(name):
        fn, inputs, _ = table[name]
        tangents = [randn(np.shape(x), seed=7 + i) for i, x in enumerate(inputs)]
        compare_tangents(fn, inputs, tangents, 1e-8, 1e-10, primal_rtol=1e-10, primal_atol=1e-12)

    return test


def linalg_double_backward(table: Mapping, skip=()) -> Callable:
    @pytest.mark.parametrize("name", [n for n in table if n not in skip])
    def test(name):
        fn, inputs, _ = table[name]
        check_double_backward(fn, *inputs, rtol=1e-7, atol=1e-9)

    return test


def named_tuples_as_torch(fns: Mapping) -> Callable:
    """``id -> fn`` returning a named tuple: its type name, length, repr's prefix, fields,
    and each field's shape and dtype are PyTorch's."""

    @pytest.mark.parametrize("fn", list(fns.values()), ids=list(fns))
    def test(fn):
        x = randn((3, 3))
        with warnings.catch_warnings():  # (a deprecated name warns once a process, in either
            warnings.simplefilter("ignore")  # library: oracle.warns_as_torch tests that)
            ours, theirs = fn(cr, cr.tensor(x)), fn(torch, torch.tensor(x))
        assert type(ours).__name__ == type(theirs).__name__
        assert len(ours) == len(theirs)
        assert repr(ours).split("(")[0] == repr(theirs).split("(")[0]
        for field in ours._fields:
            assert tuple(getattr(ours, field).shape) == tuple(getattr(theirs, field).shape)
        for o, t in zip(ours, theirs):
            assert tuple(o.shape) == tuple(t.shape)
            assert str(o.dtype) == str(t.dtype)

    return test
