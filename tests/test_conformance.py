"""Cross-cutting conformance with PyTorch: behaviours a user moving code between chainrule
and PyTorch relies on, each run on both libraries (``L`` is torch or chainrule).

Floating-point warnings stay silent; in-place writes that PyTorch refuses at backward are
refused here too; argument types PyTorch rejects are rejected; retained gradients follow
in-place writes; node names, version-counter errors and missing-name errors read as
PyTorch's; results are laid out contiguously where PyTorch allocates them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr

LIBS = [torch, cr]
LIB_IDS = ["torch", "chainrule"]


def both(fn):
    """fn(L) on both libraries: (chainrule's, torch's)."""
    return fn(cr), fn(torch)


def same_error(fn, match_message=True):
    """fn(L) raises on both, chainrule's error of torch's type (and message)."""
    with pytest.raises(Exception) as want:  # noqa: B017 - the type is compared below
        fn(torch)
    with pytest.raises(want.type) as got:
        fn(cr)
    if match_message:
        assert str(got.value) == str(want.value)
    return str(got.value), str(want.value)


# ----- floating-point warnings ----------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "sqrt_backward",
        "log0",
        "div0",
        "exp_overflow",
        "pow_backward",
        "log_backward",
        "norm0",
        "dot_overflow",
        "sum_overflow",
        "sum_dim_none_overflow",
    ],
)
def test_inf_and_nan_arise_without_warnings_as_in_torch(name):
    """NumPy's RuntimeWarnings (divide by zero, invalid value, overflow) do not escape:
    under warnings-as-errors the results are PyTorch's inf and nan."""

    def run(L):
        x = L.tensor([0.0, 4.0, -1.0], requires_grad=True)
        out = {
            "sqrt_backward": lambda: x.sqrt(),
            "log0": lambda: x.log(),
            "div0": lambda: x / L.zeros(3),
            "exp_overflow": lambda: (x * 1000).exp(),
            "pow_backward": lambda: x.pow(0.5),
            "log_backward": lambda: (x * 0).log(),
            "norm0": lambda: (x * 0).norm().reshape(1),
            # BLAS's dot (two vectors' matmul, a whole sum): overflow to inf, silently
            "dot_overflow": lambda: ((x * 0 + 2e38) @ L.ones(3)).reshape(1),
            "sum_overflow": lambda: (x * 0 + 2e38).sum().reshape(1),
            "sum_dim_none_overflow": lambda: (x * 0 + 2e38).sum(dim=None).reshape(1),
        }[name]()
        out.sum().backward()
        return out.detach().numpy(), x.grad.numpy()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, theirs = both(run)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


# ----- in-place writes PyTorch refuses at backward ----------------------------------------


def _modify_then_backward(body):
    def run(L):
        x = L.tensor([0.5, 2.0], requires_grad=True)
        v = x * 1
        body(v)
        v.sum().backward()

    return run


def _imul_self(v):
    v *= v


@pytest.mark.parametrize(
    "body",
    [
        lambda v: (v.exp_(), v.add_(1)),
        _imul_self,
        lambda v: v.mul_(v),
        lambda v: (v.sigmoid_(), v.sqrt_()),
        lambda v: (v.tanh_(), v.mul_(2)),
    ],
    ids=["exp_then_add", "imul_self", "mul_self", "sigmoid_then_sqrt", "tanh_then_mul"],
)
def test_in_place_ops_that_save_their_result_refuse_a_later_write_as_torch(body):
    """An in-place op whose backward needs its result (exp_, sigmoid_, tanh_) or its other
    operand (v *= v saves v) makes a later in-place write fail at backward, with PyTorch's
    message: code that runs here must also run in PyTorch."""
    same_error(_modify_then_backward(body))


def test_a_write_after_an_op_that_saved_nothing_still_runs():
    def run(L):
        x = L.tensor([0.5, 2.0], requires_grad=True)
        v = x * 1
        v.add_(1)
        v.mul_(3)
        v.sum().backward()
        return x.grad.numpy()

    ours, theirs = both(run)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "case",
    ["pow_input", "exp_output", "leaf_mul"],
)
def test_the_version_error_names_the_modified_tensors_producer_as_torch(case):
    def run(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        if case == "pow_input":
            y = x * 1
            z = y.pow(2)
            y.add_(1)
        elif case == "exp_output":
            z = x.exp()
            z.add_(1)
        else:
            w = L.tensor([1.0, 2.0])
            z = x * w
            w.add_(1)
        z.sum().backward()

    same_error(run)


# ----- retain_grad through in-place writes ----------------------------------------------


def test_retain_grad_of_a_view_survives_an_in_place_write_to_its_base():
    def run(L):
        x = L.ones(2, 2, requires_grad=True)
        v = x * 1
        y = v[0]
        y.retain_grad()
        v.mul_(2)
        (y * 3).sum().backward()
        return y.grad.numpy(), x.grad.numpy()

    ours, theirs = both(run)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_retain_grad_moves_with_an_in_place_write():
    def run(L):
        x = L.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * 5).sum().backward()
        return y.grad.numpy()

    ours, theirs = both(run)
    np.testing.assert_array_equal(ours, theirs)


# ----- arguments PyTorch rejects ------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.where(L.tensor([1, 0]), L.ones(2), L.zeros(2)),
        lambda L: L.where(L.tensor([1.0, 0.0]), L.ones(2), L.zeros(2)),
        lambda L: L.set_grad_enabled("yes"),
        lambda L: L.ones(2, requires_grad=True).mul(2).requires_grad_(1),
        lambda L: L.ones(2).view(),
        lambda L: L.ones(2).view("a"),
        lambda L: setattr(L.ones(2, requires_grad=True) * 2, "requires_grad", True),
        lambda L: setattr(L.ones(2), "requires_grad", 1),
    ],
    ids=[
        "where_int",
        "where_float",
        "set_grad_enabled_str",
        "requires_grad__int",
        "view_no_args",
        "view_str",
        "nonleaf_requires_grad",
        "requires_grad_int",
    ],
)
def test_arguments_torch_rejects_are_rejected_alike(fn):
    same_error(fn)


def test_a_uint8_where_condition_warns_and_works_as_torch():
    def run(L):
        with pytest.warns(UserWarning, match="uint8 condition"):
            return L.where(L.tensor([1, 0], dtype=L.uint8), L.ones(2), L.zeros(2)).numpy()

    ours, theirs = both(run)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "condition", [[1, 0, 2], 3.0, [[True, False], [False, True]], [[0.0, 0.0]]], ids=str
)
def test_where_with_one_argument_is_nonzero_as_a_tuple(condition):
    def run(L):
        return [t.numpy().tolist() for t in L.where(L.tensor(condition))]

    ours, theirs = both(run)
    assert ours == theirs


def test_where_with_two_arguments_is_refused_as_torch():
    same_error(lambda L: L.where(L.tensor([True]), L.tensor([1.0])))


def test_view_accepts_what_torch_accepts():
    def run(L):
        x = L.ones(2, 3)
        return [
            tuple(x.view(6).shape),
            tuple(x.view((3, 2)).shape),
            tuple(x.view([-1]).shape),
            tuple(L.ones(()).view(()).shape),
            tuple(L.ones(1).view_as(L.ones(())).shape),
        ]

    ours, theirs = both(run)
    assert ours == theirs


def test_numpy_of_a_tensor_that_requires_grad_is_allowed_under_no_grad():
    def run(L):
        x = L.ones(2, requires_grad=True)
        with L.no_grad():
            a, b = x.numpy(), np.asarray(x)
        return a, b

    (a, b), (c, d) = both(run)
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(b, d)
    same_error(lambda L: L.ones(2, requires_grad=True).numpy())


# ----- printing and missing names --------------------------------------------------------


def test_repr_of_a_tensor_written_through_a_view_names_copyslices():
    def run(L):
        x = L.ones(3, requires_grad=True)
        v = x * 1
        v[0] = 5
        return repr(v), v.grad_fn.name()

    ours, theirs = both(run)
    assert ours == theirs


def test_a_missing_tensor_method_says_it_is_not_implemented():
    from chainrule._missing import NotImplementedInChainrule

    with pytest.raises(NotImplementedInChainrule, match="torch.Tensor.new_bogus"):
        cr.ones(2).new_bogus(3)
    assert issubclass(NotImplementedInChainrule, AttributeError)  # hasattr and getattr work
    assert not hasattr(cr.ones(2), "new_bogus")
    assert getattr(cr.ones(2), "new_bogus", 5) == 5
    with pytest.raises(AttributeError):
        cr.ones(2)._no_such_private  # noqa: B018 - private names stay plain AttributeErrors
    assert not hasattr(cr.ones(2), "__array_interface__")


# ----- result layouts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: L.triu(x, 1),
        lambda L, x: L.tril(x),
        lambda L, x: x.sum(-1),
        lambda L, x: x.mean(-1, keepdim=True),
        lambda L, x: x.softmax(-1),
        lambda L, x: x.log_softmax(0),
        lambda L, x: x.cumsum(1),
        lambda L, x: x.cumprod(1),
        lambda L, x: x.logsumexp(1),
        lambda L, x: x.var(1),
        lambda L, x: x.norm(dim=1),
        lambda L, x: x.all(-1),
        lambda L, x: L.cat([x, x]),
        lambda L, x: L.stack([x, x], 1),
        lambda L, x: x.roll(1, 0),
        lambda L, x: x.contiguous(),
    ],
)
def test_results_torch_allocates_contiguously_can_be_viewed_flat(fn):
    """PyTorch's reductions, scans, softmax, triu, cat, ... allocate their results
    contiguously: ``view(-1)`` of them works even for a permuted input."""

    def run(L):
        x = L.ones(2, 3, 4).movedim(-1, 0)
        out = fn(L, x)
        return out.view(-1).shape, out.is_contiguous()

    ours, theirs = both(run)
    assert tuple(ours[0]) == tuple(theirs[0]) and ours[1] == theirs[1]


# ----- graphs of gradients ------------------------------------------------------------------


def test_cumprod_over_a_size_one_dim_has_a_constant_gradient_as_torch():
    """After topk(1) the cumprod dim has size 1: its gradient g does not depend on x, so the
    result of grad(create_graph=True) does not require grad (PyTorch's)."""

    def run(L):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
        v, _ = x.topk(1, dim=1)
        (g,) = L.autograd.grad(v.cumprod(1).sum(), x, create_graph=True)
        return g.requires_grad, g.detach().numpy()

    ours, theirs = both(run)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize(
    "x_dtype, target_dtype, grad_tol",
    [("float64", "float32", 1e-14), ("float32", "float64", 1e-6), ("float16", "float32", 1e-3)],
)
def test_bce_with_logits_gives_the_targets_dtype_as_torch(x_dtype, target_dtype, grad_tol):
    # the loss in the target's dtype, its input's gradient in the input's full precision
    def run(L):
        rng = np.random.default_rng(0)
        x = L.tensor(rng.standard_normal(64) * 3, dtype=getattr(L, x_dtype), requires_grad=True)
        target = L.tensor(rng.random(64), dtype=getattr(L, target_dtype))
        loss = L.nn.functional.binary_cross_entropy_with_logits(x, target)
        loss.backward()
        return str(loss.dtype), loss.grad_fn.name(), str(x.grad.dtype), loss.item(), x.grad.tolist()

    ours, theirs = both(run)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5)  # (float16 x: PyTorch's rounding)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=0, atol=grad_tol * max(map(abs, theirs[4])))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "float16", "bfloat16"])
def test_linspace_gives_torchs_bits(dtype):
    # PyTorch's kernel: fused multiply-adds from each end (rounded per operation in float16
    # and bfloat16, the ends cast first for integers)
    cases = [(0, 1), (-3.7, 2.2), (1, 0), (0, 10), (-5, 5), (2.5, 2.5), (0, 100)]

    def run(L):
        return [
            L.linspace(a, b, n, dtype=getattr(L, dtype)).double().tolist()
            for a, b in cases
            for n in (0, 1, 2, 3, 7, 15, 50, 101, 1000)
        ]

    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_hann_and_hamming_windows_as_torch_computes_them(dtype):
    # in the window's dtype, as PyTorch: float16 exact here, float64 and float32 but for
    # the last bit of a few cosines (PyTorch's vectorised cos is not correctly rounded)
    def run(L):
        d = getattr(L, dtype)
        return [
            w.double().numpy()
            for n in (7, 64, 400, 1024)
            for periodic in (True, False)
            for w in (
                L.hann_window(n, periodic, dtype=d),
                L.hamming_window(n, periodic, alpha=0.6, beta=0.3, dtype=d),
            )
        ]

    ours, theirs = both(run)
    exact = sum(int((a == b).sum()) for a, b in zip(ours, theirs))
    total = sum(a.size for a in theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=0, atol=1.2e-7)
    assert exact >= {"float16": 1, "float64": 0.99, "float32": 0.95}[dtype] * total


def test_hardsigmoid_gradient_has_torchs_float32_bits():
    # PyTorch multiplies by 1/6 rounded to float32 (g / 6 is an ulp off in a quarter of them)
    def run(L):
        rng = np.random.default_rng(0)
        x = L.tensor(rng.uniform(-4, 4, 1000).astype(np.float32), requires_grad=True)
        L.nn.functional.hardsigmoid(x).backward(
            L.tensor(rng.standard_normal(1000), dtype=L.float32)
        )
        return x.grad.numpy()

    ours, theirs = both(run)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("call", ["tensor", "new_tensor", "parameter"])
def test_copy_constructing_from_a_tensor_warns_as_torch(call):
    def run(lib):
        a = lib.tensor([1.0, 2.0])
        source = lib.nn.Parameter(a) if call == "parameter" else a
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            copy = a.new_tensor(source) if call == "new_tensor" else lib.tensor(source)
        return copy.tolist(), [str(w.message) for w in caught], [w.filename for w in caught]

    values, messages, files = run(cr)
    torch_values, torch_messages, _ = run(torch)
    assert values == torch_values and messages == torch_messages and len(messages) == 1
    assert files == [__file__]  # attributed to the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cr.tensor([cr.tensor(1.0), cr.tensor(2.0)])  # (a list of tensors: no warning)


@pytest.mark.parametrize("default", ["bfloat16", "float16", "float64"])
def test_printing_under_a_reduced_default_dtype_as_torch(default):
    def run(lib):
        before = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            return [
                repr(lib.tensor([1.0, 2.0], dtype=lib.float32)),
                repr(lib.tensor([1 + 2j], dtype=lib.complex64)),
                repr(lib.tensor([1 + 2j], dtype=lib.complex128)),
            ]
        finally:
            lib.set_default_dtype(before)

    assert run(cr) == run(torch)


@pytest.mark.parametrize(
    "name", ["sum", "mean", "all", "any", "amax", "argmax", "std", "logsumexp"]
)
def test_numpys_axis_and_keepdims_spellings_are_taken_as_torch(name):
    def run(lib):
        x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
        if name in ("all", "any"):
            x = x > 0
        method = getattr(x, name)(axis=1, keepdims=True)
        function = getattr(lib, name)(x, axis=0)
        return method.tolist(), function.tolist()

    assert run(cr) == run(torch)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        getattr(cr, name)(
            cr.ones(2, 2) > 0 if name in ("all", "any") else cr.ones(2, 2), dim=0, axis=0
        )
