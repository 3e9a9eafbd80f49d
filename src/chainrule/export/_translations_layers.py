"""``nn.functional`` layers PyTorch's export writes in a form of their own (see
``_translations``): feature dropouts, instance and RMS norms, ``unfold``/``fold`` as
``im2col``/``col2im``, ``grid_sample``/``affine_grid`` as their ATen generators, and the
functions it writes as a few calls (``softmin`` as ``neg`` then ``softmax``, ``softsign``,
``tanhshrink``, ``lp_pool1d/2d`` around an average pool); with the chainrule functions that
run their ATen calls (``LAYERS_RUN``, by operator)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule as torch
import chainrule.nn.functional as F

from ._translations_extra import _pool
from ._translations_more import PREV, Chain, Step

Call = tuple[str, list, dict]
Tensor = torch.Tensor


def _softmin(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None):
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return Chain([("neg.default", [input], {}),
                  ("softmax.int", [PREV, dim] + ([] if dtype is None else [dtype]), {})])  # fmt: skip


def _softsign(input: Any) -> Any:
    return Chain([("abs.default", [input], {}), ("add.Tensor", [PREV, 1], {}),
                  ("div.Tensor", [input, PREV], {})])  # fmt: skip


def _tanhshrink(input: Any) -> Any:
    return Chain([("tanh.default", [input], {}), ("sub.Tensor", [input, PREV], {})])


def _threshold(input: Any, threshold: Any, value: Any, inplace: bool = False) -> Call:
    return f"threshold{'_' if inplace else ''}.default", [input, threshold, value], {}


def _feature_dropout(op: str) -> Callable[..., Call]:
    def call(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Call:
        return f"{op}.default", [input, p, training], {}

    return call


def _instance_norm(input: Any, running_mean: Any = None, running_var: Any = None,
                   weight: Any = None, bias: Any = None, use_input_stats: bool = True,
                   momentum: float = 0.1, eps: float = 1e-5) -> Call:  # fmt: skip
    args = [input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps]
    return "instance_norm.default", [*args, False], {}


def _rms_norm(input: Any, normalized_shape: Any, weight: Any = None, eps: Any = None) -> Call:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    args = [input, shape, weight, eps]
    while len(args) > 2 and args[-1] is None:
        args.pop()
    return "rms_norm.default", args, {}


def _pair(value: Any) -> list:
    return [value, value] if isinstance(value, int) else list(value)


def _unfold(input: Any, *args: Any, **kwargs: Any) -> Call:
    """``Tensor.unfold(dimension, size, step)`` or ``F.unfold`` (``im2col``)."""
    if len(args) == 3 and not kwargs and all(isinstance(a, int) for a in args):
        return "unfold.default", [input, *args], {}
    names = ["kernel_size", "dilation", "padding", "stride"]
    given = {**dict(zip(names, args)), **kwargs}
    values = [_pair(given.get(n, d)) for n, d in zip(names, [None, 1, 0, 1])]
    return "im2col.default", [input, *values], {}


def _fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
          stride: Any = 1) -> Call:  # fmt: skip
    sizes = [output_size, kernel_size, dilation, padding, stride]
    return "col2im.default", [input, *(_pair(s) for s in sizes)], {}


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                 align_corners: bool | None = None) -> Call:  # fmt: skip
    args = [input, grid, _GRID_MODES[mode], _GRID_PADDINGS[padding_mode], bool(align_corners)]
    return "grid_sampler.default", args, {}


def _affine_grid(theta: Any, size: Any, align_corners: bool | None = None) -> Call:
    return "affine_grid_generator.default", [theta, list(size), bool(align_corners)], {}


def _lp_pool(n: int) -> Callable[..., Chain]:
    """``lp_pool{n}d``: ``(sum over the window of x^p)^(1/p)`` as the window's average
    times its size, through ``sign * relu(abs)`` as PyTorch writes it."""

    def call(input: Any, norm_type: float, kernel_size: Any, stride: Any = None,
             ceil_mode: bool = False) -> Chain:  # fmt: skip
        kernel = [kernel_size] * n if isinstance(kernel_size, int) else list(kernel_size)
        size = 1
        for k in kernel:
            size *= k
        pool = _pool("avg", n)(PREV, kernel_size, stride, 0, ceil_mode)
        return Chain([
            ("pow.Tensor_Scalar", [input, norm_type], {}),
            pool,
            ("sign.default", [Step(1)], {}),
            ("abs.default", [Step(1)], {}),
            ("relu.default", [PREV], {}),
            ("mul.Tensor", [Step(2), PREV], {}),
            ("mul.Tensor", [PREV, size], {}),
            ("pow.Tensor_Scalar", [PREV, 1.0 / norm_type], {}),
        ])  # fmt: skip

    return call


LAYERS: dict[str, Callable[..., Any]] = {
    "softsign": _softsign,
    "tanhshrink": _tanhshrink,
    "softmin": _softmin,
    "threshold": _threshold,
    "dropout1d": _feature_dropout("feature_dropout"),
    "dropout2d": _feature_dropout("feature_dropout"),
    "dropout3d": _feature_dropout("feature_dropout"),
    "alpha_dropout": _feature_dropout("alpha_dropout"),
    "feature_alpha_dropout": _feature_dropout("feature_alpha_dropout"),
    "instance_norm": _instance_norm,
    "rms_norm": _rms_norm,
    "unfold": _unfold,
    "fold": _fold,
    "grid_sample": _grid_sample,
    "affine_grid": _affine_grid,
    "lp_pool1d": _lp_pool(1),
    "lp_pool2d": _lp_pool(2),
}


def _dropout_nd(input: Tensor, p: float, train: bool) -> Tensor:
    """``feature_dropout``: whole channels dropped (``F.dropout1d/2d/3d`` by rank)."""
    run = {2: F.dropout1d, 3: F.dropout1d, 4: F.dropout2d, 5: F.dropout3d}[input.dim()]
    return run(input, p, train)


_GRID_MODE_NAMES = {v: k for k, v in _GRID_MODES.items()}
_GRID_PADDING_NAMES = {v: k for k, v in _GRID_PADDINGS.items()}


LAYERS_RUN: dict[str, Callable] = {
    "threshold_": lambda self, threshold, value: F.threshold(self, threshold, value, True),
    "feature_dropout": _dropout_nd,
    "alpha_dropout": F.alpha_dropout,
    "feature_alpha_dropout": F.feature_alpha_dropout,
    "instance_norm": lambda input, weight, bias, mean, var, stats, momentum, eps, _: (
        F.instance_norm(input, mean, var, weight, bias, stats, momentum, eps)
    ),
    "im2col": lambda self, kernel_size, dilation, padding, stride: F.unfold(
        self, kernel_size, dilation, padding, stride
    ),
    "col2im": lambda self, output_size, kernel_size, dilation, padding, stride: F.fold(
        self, output_size, kernel_size, dilation, padding, stride
    ),
    "grid_sampler": lambda input, grid, mode, padding, align_corners: F.grid_sample(
        input, grid, _GRID_MODE_NAMES[mode], _GRID_PADDING_NAMES[padding], align_corners
    ),
    "affine_grid_generator": lambda theta, size, align_corners: F.affine_grid(
        theta, list(size), align_corners
    ),
}
