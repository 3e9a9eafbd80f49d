"""The public namespaces as such: every Tensor method chainrule lists exists in PyTorch and
in chainrule, the public functions and the ops the issues list exist under PyTorch's
names (``torch.X``, ``torch.nn.functional.X``, ``Tensor.X``, ``Tensor.X_``), the
augmented-assignment operators, and ``chainrule.linalg`` names only what
``torch.linalg`` has.
"""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from chainrule.api import build


def test_every_method_exists_in_torch():
    methods = build()["Tensor"]
    missing = [name for name in methods if not hasattr(torch.Tensor, name)]
    assert missing == []
    for name in methods:
        assert hasattr(cr.Tensor, name), name


def test_public_functions_exist_in_torch():
    names = [
        "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "square", "tan", "asin", "acos",
        "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan",
        "arcsinh", "arccosh", "arctanh", "erf", "erfc", "floor", "ceil", "round", "trunc", "fix",
        "frac", "clamp", "clip", "nan_to_num", "maximum", "minimum", "fmax", "fmin", "atan2",
        "arctan2", "hypot", "lerp", "remainder", "fmod", "floor_divide", "logical_and",
        "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_not", "sgn", "positive", "clamp_min",
        "clamp_max", "xlogy", "logaddexp", "logaddexp2", "logit", "copysign", "deg2rad",
        "rad2deg", "sinc", "float_power", "ldexp", "heaviside", "signbit", "isposinf",
        "isneginf", "isreal", "isclose", "exp_", "abs_", "sigmoid_", "clamp_min_", "xlogy_",
        "fill_", "zero_",
    ]  # fmt: skip
    for name in names:
        assert hasattr(torch, name), name
        assert callable(getattr(cr, name)), name


# The ops issue 3 lists (elementwise, one and two inputs; activations and softmax): each
# exists under PyTorch's name wherever PyTorch has it, as torch.X, torch.nn.functional.X,
# Tensor.X and Tensor.X_ (the in-place variant).
ISSUE_ELEMENTWISE = (
    "neg abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square reciprocal sin cos tan "
    "asin acos atan sinh cosh tanh asinh acosh atanh sigmoid relu erf erfc floor ceil round "
    "trunc frac clamp clip pow nan_to_num add sub mul div true_divide floor_divide remainder "
    "fmod maximum minimum fmax fmin atan2 hypot lerp where eq ne lt le gt ge logical_and "
    "logical_or logical_not logical_xor isnan isinf isfinite allclose equal negative absolute "
    "arcsin arccos arctan arcsinh arccosh arctanh arctan2 fix subtract multiply divide less "
    "less_equal greater greater_equal not_equal sgn clamp_min clamp_max positive xlogy "
    "logaddexp logaddexp2 logit copysign deg2rad rad2deg sinc float_power ldexp heaviside "
    "signbit isposinf isneginf isreal isclose lgamma digamma polygamma erfinv nextafter i0 "
    "bitwise_left_shift bitwise_right_shift"
).split()

ISSUE_ACTIVATIONS = (
    "relu relu6 leaky_relu elu selu celu gelu silu mish softplus softsign hardtanh hardsigmoid "
    "hardswish logsigmoid sigmoid tanh softmax log_softmax softmin normalize logsumexp "
    "threshold hardshrink softshrink tanhshrink glu prelu rrelu"
).split()


@pytest.mark.parametrize("name", ISSUE_ELEMENTWISE + ISSUE_ACTIVATIONS)
def test_issue_ops_exist_where_torch_has_them(name):
    tf = torch.nn.functional
    for variant in (name, name + "_"):
        for ours, theirs, where in (
            (cr, torch, "torch"),
            (cr.nn.functional, tf, "torch.nn.functional"),
            (cr.Tensor, torch.Tensor, "Tensor"),
        ):
            if hasattr(theirs, variant):
                assert callable(getattr(ours, variant, None)), f"{where}.{variant} is missing"


def test_augmented_assignment_operators_exist():
    for op in "iadd isub imul itruediv ipow ifloordiv imod iand ior ixor ilshift irshift".split():
        assert hasattr(cr.Tensor, f"__{op}__"), op


# ----- chainrule.linalg -------------------------------------------------------------------


def test_every_linalg_name_exists_in_torch():
    """What chainrule exports here, PyTorch has under the same name (no invented API)."""
    names = build()
    for name in names["torch"]:
        assert hasattr(torch, name), name
    for name in names["Tensor"]:
        assert hasattr(torch.Tensor, name), name
    public = [n for n in vars(cr.linalg) if not n.startswith("_") and n != "annotations"]
    for name in public:
        assert hasattr(torch.linalg, name), name


def test_the_issue_s_linalg_ops_exist():
    for name in (
        "matmul mm bmm mv dot outer inner einsum tensordot trace diag diagonal tril triu cross"
    ).split():
        assert callable(getattr(cr, name)), name
    for name in (
        "inv det slogdet solve cholesky qr eigh svd matrix_norm norm vector_norm cross "
        "eigvalsh svdvals pinv"
    ).split():
        assert callable(getattr(cr.linalg, name)), name
