"""``run_decompositions`` rules of the layers: convolutions, batch norm (eval and
training), pools, dropout, softmax, layer norm, activations and dtype casts, each written as
the core ATen calls PyTorch's decomposition of it makes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..fx import Node
from ._decompose import Writer


def _conv(n: int) -> Callable[..., Node]:
    def write(
        w: Writer,
        x: Node,
        weight: Node,
        bias: Node | None = None,
        stride: Any = None,
        padding: Any = None,
        dilation: Any = None,
        groups: int = 1,
    ) -> Node:
        if isinstance(padding, str):
            raise NotImplementedError(
                "run_decompositions: a convolution with string padding is not written yet; "
                "give the padding as numbers"
            )
        ones, zeros = [1] * n, [0] * n
        args = [stride or ones, padding or zeros, dilation or ones, False, zeros, groups]
        return w.call("convolution.default", x, weight, bias, *args)

    return write


def _batch_norm(
    w: Writer,
    x: Node,
    weight: Any,
    bias: Any,
    mean: Any,
    var: Any,
    training: bool,
    momentum: float,
    eps: float,
    cudnn: bool = False,
) -> Node:
    """Eval: ``_native_batch_norm_legit_no_training``. Training: the functional form,
    whose outputs 3 and 4 are the running mean and variance's new values (buffer
    mutations); without running statistics, the ``no_stats`` form."""
    if mean is None:
        return w.call("_native_batch_norm_legit.no_stats", x, weight, bias, True, momentum, eps)[0]
    if not training:
        overload = "_native_batch_norm_legit_no_training.default"
        return w.call(overload, x, weight, bias, mean, var, momentum, eps)[0]
    out = w.call(
        "_native_batch_norm_legit_functional.default",
        x,
        weight,
        bias,
        mean,
        var,
        True,
        momentum,
        eps,
    )
    w.mutate(mean, out[3])
    w.mutate(var, out[4])
    return out[0]


def _max_pool2d(w: Writer, x: Node, *args: Any) -> Node:
    return w.call("max_pool2d_with_indices.default", x, *args)[0]


def _dropout(w: Writer, x: Node, p: float, train: bool) -> Node:
    """Training: ``native_dropout``'s output; eval, or p = 0: a ``clone``."""
    if train and p > 0:
        return w.call("native_dropout.default", x, p, True)[0]
    return w.call("clone.default", x)


def _softmax(op: str) -> Callable[..., Node]:
    def write(w: Writer, x: Node, dim: int, dtype: Any = None) -> Node:
        if dtype is not None:
            raise NotImplementedError(
                f"run_decompositions: {op} with a dtype is not written yet; cast first"
            )
        return w.call(f"{op}.default", x, dim, False)

    return write


def _layer_norm(
    w: Writer,
    x: Node,
    shape: list,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
    *_: Any,
) -> Node:
    return w.call("native_layer_norm.default", x, shape, weight, bias, eps)[0]


def _silu(w: Writer, x: Node) -> Node:
    """silu(x) = x sigmoid(x)."""
    return w.call("mul.Tensor", x, w.call("sigmoid.default", x))


def _check(
    w: Writer, a: Node, size: Any = None, stride: Any = None, dtype: Any = None, **kwargs: Any
) -> Node:
    """The training IR's dtype check before a cast, its arguments given by position."""
    return w.call("_assert_tensor_metadata.default", a, size, stride, dtype, **kwargs)


def _to_dtype(
    w: Writer,
    x: Node,
    dtype: Any,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: Any = None,
) -> Node:
    """``x.to(dtype)``: a ``_to_copy`` to ``dtype``, or ``x`` itself where it has it."""
    if copy or memory_format is not None:
        raise NotImplementedError(
            "run_decompositions: Tensor.to with copy or a memory format is not written yet"
        )
    if w.values[x].dtype == dtype:
        return x
    return w.call("_to_copy.default", x, dtype=dtype)


LAYERS: dict[str, Callable[..., Any]] = {
    "conv1d.default": _conv(1),
    "conv2d.default": _conv(2),
    "conv3d.default": _conv(3),
    "batch_norm.default": _batch_norm,
    "max_pool2d.default": _max_pool2d,
    "dropout.default": _dropout,
    "softmax.int": _softmax("_softmax"),
    "log_softmax.int": _softmax("_log_softmax"),
    "layer_norm.default": _layer_norm,
    "silu.default": _silu,
    "_assert_tensor_metadata.default": _check,
    "to.dtype": _to_dtype,
}
