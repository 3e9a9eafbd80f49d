"""ONNX translations of the neural-network functions (convolutions, pooling,
normalizations, embeddings, resampling, padding, losses) and attention, registered in
``_ops.TABLE`` (see ``_ops.py`` for what a translation gets and returns)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._graph import Graph
from ._ops import (
    TABLE,
    Translation,
    _arg,
    _c,
    _dtype,
    _reduce_node,
    _register,
    _shape,
    _tuple,
    _unsupported,
)
from ._ops_shapes import _bool

# ----- neural-network functions ------------------------------------------------------------


def _conv_pads(padding: Any, kernel: list[int], dilation: list[int], n: int) -> list[int]:
    """ONNX's pads (all begins, then all ends) of PyTorch's ``padding``."""
    if padding == "valid":
        return [0] * (2 * n)
    if padding == "same":
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    p = _tuple(padding, n)
    return p + p


@_register("conv1d", "conv2d", "conv3d")
def _conv(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, w = args[0], _arg(args, kwargs, 1, "weight")
    b = _arg(args, kwargs, 2, "bias")
    n = len(_shape(w)) - 2
    kernel = list(_shape(w)[2:])
    stride = _tuple(_arg(args, kwargs, 3, "stride", 1), n)
    padding = _arg(args, kwargs, 4, "padding", 0)
    dilation = _tuple(_arg(args, kwargs, 5, "dilation", 1), n)
    groups = int(_arg(args, kwargs, 6, "groups", 1))
    dt = _dtype(out)
    inputs = [g.as_type(x, dt), g.as_type(w, dt)] + ([g.as_type(b, dt)] if b is not None else [])
    xn = inputs[0]
    unbatched = len(_shape(x)) == n + 1
    if unbatched:
        inputs[0] = g.op("Unsqueeze", xn, g.ints([0]))
    y = g.node(
        "Conv",
        inputs,
        hint="conv",
        kernel_shape=kernel,
        strides=stride,
        pads=_conv_pads(padding, kernel, dilation, n),
        dilations=dilation,
        group=groups,
    )[0]
    return g.op("Squeeze", y, g.ints([0])) if unbatched else y


@_register("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
def _conv_transpose(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x, w = args[0], _arg(args, kwargs, 1, "weight")
    b = _arg(args, kwargs, 2, "bias")
    n = len(_shape(w)) - 2
    kernel = list(_shape(w)[2:])
    stride = _tuple(_arg(args, kwargs, 3, "stride", 1), n)
    padding = _tuple(_arg(args, kwargs, 4, "padding", 0), n)
    output_padding = _tuple(_arg(args, kwargs, 5, "output_padding", 0), n)
    groups = int(_arg(args, kwargs, 6, "groups", 1))
    dilation = _tuple(_arg(args, kwargs, 7, "dilation", 1), n)
    dt = _dtype(out)
    inputs = [g.as_type(x, dt), g.as_type(w, dt)] + ([g.as_type(b, dt)] if b is not None else [])
    return g.node(
        "ConvTranspose",
        inputs,
        hint="conv_transpose",
        kernel_shape=kernel,
        strides=stride,
        pads=padding + padding,
        output_padding=output_padding,
        dilations=dilation,
        group=groups,
    )[0]


def _pool_n(name: str) -> int:
    return int(name[-2])


def _max_pool(name: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Any) -> str:
        n = _pool_n(name)
        x = args[0]
        kernel = _tuple(_arg(args, kwargs, 1, "kernel_size"), n)
        stride = _arg(args, kwargs, 2, "stride")
        stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, n)
        padding = _tuple(_arg(args, kwargs, 3, "padding", 0), n)
        dilation = _tuple(_arg(args, kwargs, 4, "dilation", 1), n)
        ceil = int(bool(_arg(args, kwargs, 5, "ceil_mode", False)))
        if _arg(args, kwargs, 6, "return_indices", False):
            raise _unsupported(g, f"{name}_with_indices")
        return g.op(
            "MaxPool",
            g.value(x),
            kernel_shape=kernel,
            strides=stride,
            pads=padding + padding,
            dilations=dilation,
            ceil_mode=ceil,
            hint=name,
        )

    return tr


def _avg_pool(name: str) -> Translation:
    def tr(g: Graph, args: tuple, kwargs: dict, out: Any) -> str:
        n = _pool_n(name)
        x = args[0]
        kernel = _tuple(_arg(args, kwargs, 1, "kernel_size"), n)
        stride = _arg(args, kwargs, 2, "stride")
        stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, n)
        padding = _tuple(_arg(args, kwargs, 3, "padding", 0), n)
        ceil = int(bool(_arg(args, kwargs, 4, "ceil_mode", False)))
        include = int(bool(_arg(args, kwargs, 5, "count_include_pad", True)))
        if n > 1 and _arg(args, kwargs, 6, "divisor_override") is not None:
            raise _unsupported(g, f"{name} (divisor_override)")
        return g.op(
            "AveragePool",
            g.value(x),
            kernel_shape=kernel,
            strides=stride,
            pads=padding + padding,
            ceil_mode=ceil,
            count_include_pad=include,
            hint=name,
        )

    return tr


for _n in (1, 2, 3):
    TABLE[f"max_pool{_n}d"] = _max_pool(f"max_pool{_n}d")
    TABLE[f"avg_pool{_n}d"] = _avg_pool(f"avg_pool{_n}d")


def _adaptive(kind: str, n: int) -> Translation:
    name = f"adaptive_{kind}_pool{n}d"

    def tr(g: Graph, args: tuple, kwargs: dict, out: Any) -> str:
        x = args[0]
        if kind == "max" and _arg(args, kwargs, 2, "return_indices", False):
            raise _unsupported(g, f"{name}_with_indices")
        result = out[0] if isinstance(out, tuple) else out
        rank = len(_shape(x))
        size_in, size_out = _shape(x)[-n:], _shape(result)[-n:]
        if all(s == 1 for s in size_out):
            op = "GlobalAveragePool" if kind == "avg" else "GlobalMaxPool"
            return g.op(op, g.value(x), hint=name)
        if rank == n + 2 and not any(i % o for i, o in zip(size_in, size_out)):
            kernel = [i // o for i, o in zip(size_in, size_out)]
            op = "AveragePool" if kind == "avg" else "MaxPool"
            return g.op(op, g.value(x), kernel_shape=kernel, strides=kernel, hint=name)
        # the windows [floor(i * in / out), ceil((i + 1) * in / out)), one axis at a time (a
        # mean or max over a box is one over its rows, then over its columns)
        reduce = "ReduceMean" if kind == "avg" else "ReduceMax"
        y = g.value(x)
        for k, (size, target) in enumerate(zip(size_in, size_out)):
            axis = rank - n + k
            if size == target:
                continue
            cells = []
            for i in range(target):
                start, end = (i * size) // target, -(-((i + 1) * size) // target)
                window = g.op("Slice", y, g.ints([start]), g.ints([end]), g.ints([axis]))
                cells.append(g.op(reduce, window, g.ints([axis]), keepdims=1))
            y = g.op("Concat", *cells, axis=axis)
        return g.op("Identity", y, hint=name)

    return tr


for _n in (1, 2, 3):
    TABLE[f"adaptive_avg_pool{_n}d"] = _adaptive("avg", _n)
    TABLE[f"adaptive_max_pool{_n}d"] = _adaptive("max", _n)


def _ones_or(g: Graph, t: Any, shape: tuple, value: float, dt: np.dtype) -> str:
    if t is None:
        return g.const(np.full(shape, value, dtype=dt))
    return g.as_type(t, dt)


@_register("batch_norm")
def _batch_norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    mean, var = _arg(args, kwargs, 1, "running_mean"), _arg(args, kwargs, 2, "running_var")
    weight, bias = _arg(args, kwargs, 3, "weight"), _arg(args, kwargs, 4, "bias")
    training = bool(_arg(args, kwargs, 5, "training", False))
    eps = float(_arg(args, kwargs, 7, "eps", 1e-5))
    dt = _dtype(out)
    c = _shape(x)[1]
    scale = _ones_or(g, weight, (c,), 1.0, dt)
    shift = _ones_or(g, bias, (c,), 0.0, dt)
    xn = g.as_type(x, dt)
    if training or mean is None:
        rank = len(_shape(x))
        dims = [0] + list(range(2, rank))
        m = _reduce_node(g, "ReduceMean", xn, dims, True)
        d = g.op("Sub", xn, m)
        v = _reduce_node(g, "ReduceMean", g.op("Mul", d, d), dims, True)
        norm = g.op("Div", d, g.op("Sqrt", g.op("Add", v, _c(g, eps, dt))))
        bshape = g.ints([-1] + [1] * (rank - 2))
        return g.op(
            "Add",
            g.op("Mul", norm, g.op("Reshape", scale, bshape)),
            g.op("Reshape", shift, bshape),
            hint="batch_norm",
        )
    return g.op(
        "BatchNormalization",
        xn,
        scale,
        shift,
        g.as_type(mean, dt),
        g.as_type(var, dt),
        epsilon=eps,
        hint="batch_norm",
    )


@_register("instance_norm")
def _instance_norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    weight, bias = _arg(args, kwargs, 3, "weight"), _arg(args, kwargs, 4, "bias")
    if not bool(_arg(args, kwargs, 5, "use_input_stats", True)):
        raise _unsupported(g, "instance_norm (running statistics)")
    eps = float(_arg(args, kwargs, 7, "eps", 1e-5))
    dt = _dtype(out)
    c = _shape(x)[1]
    return g.op(
        "InstanceNormalization",
        g.as_type(x, dt),
        _ones_or(g, weight, (c,), 1.0, dt),
        _ones_or(g, bias, (c,), 0.0, dt),
        epsilon=eps,
        hint="instance_norm",
    )


@_register("layer_norm")
def _layer_norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    normalized = _arg(args, kwargs, 1, "normalized_shape")
    normalized = [int(normalized)] if isinstance(normalized, int) else [int(s) for s in normalized]
    weight, bias = _arg(args, kwargs, 2, "weight"), _arg(args, kwargs, 3, "bias")
    eps = float(_arg(args, kwargs, 4, "eps", 1e-5))
    dt = _dtype(out)
    inputs = [g.as_type(x, dt), _ones_or(g, weight, tuple(normalized), 1.0, dt)]
    if bias is not None:
        inputs.append(g.as_type(bias, dt))
    return g.node(
        "LayerNormalization", inputs, axis=-len(normalized), epsilon=eps, hint="layer_norm"
    )[0]


@_register("rms_norm")
def _rms_norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    normalized = _arg(args, kwargs, 1, "normalized_shape")
    normalized = [int(normalized)] if isinstance(normalized, int) else [int(s) for s in normalized]
    weight = _arg(args, kwargs, 2, "weight")
    eps = _arg(args, kwargs, 3, "eps")
    dt = _dtype(out)
    if eps is None:
        eps = float(np.finfo(dt).eps)
    xn = g.as_type(x, dt)
    rank = len(_shape(x))
    dims = list(range(rank - len(normalized), rank))
    ms = _reduce_node(g, "ReduceMean", g.op("Mul", xn, xn), dims, True)
    y = g.op("Div", xn, g.op("Sqrt", g.op("Add", ms, _c(g, eps, dt))))
    if weight is not None:
        y = g.op("Mul", y, g.as_type(weight, dt))
    return g.op("Identity", y, hint="rms_norm")


@_register("group_norm")
def _group_norm(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    groups = int(_arg(args, kwargs, 1, "num_groups"))
    weight, bias = _arg(args, kwargs, 2, "weight"), _arg(args, kwargs, 3, "bias")
    eps = float(_arg(args, kwargs, 4, "eps", 1e-5))
    dt = _dtype(out)
    shape = _shape(x)
    rank = len(shape)
    xn = g.as_type(x, dt)
    grouped = g.op("Reshape", xn, g.ints([0, groups, -1]))
    m = g.op("ReduceMean", grouped, g.ints([2]), keepdims=1)
    d = g.op("Sub", grouped, m)
    v = g.op("ReduceMean", g.op("Mul", d, d), g.ints([2]), keepdims=1)
    norm = g.op("Div", d, g.op("Sqrt", g.op("Add", v, _c(g, eps, dt))))
    y = g.op("Reshape", norm, g.op("Shape", xn))
    bshape = g.ints([-1] + [1] * (rank - 2))
    if weight is not None:
        y = g.op("Mul", y, g.op("Reshape", g.as_type(weight, dt), bshape))
    if bias is not None:
        y = g.op("Add", y, g.op("Reshape", g.as_type(bias, dt), bshape))
    return g.op("Identity", y, hint="group_norm")


_DROPOUTS = (
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "dropout_",
)


@_register(*_DROPOUTS)
def _dropout(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    p = float(_arg(args, kwargs, 1, "p", 0.5))
    training = bool(_arg(args, kwargs, 2, "training", _arg(args, kwargs, 2, "train", True)))
    if not training or p == 0:
        return g.value(x)
    return g.node(
        "Dropout",
        [g.value(x), g.const(np.asarray(p, dtype=_dtype(out))), g.const(np.bool_(True))],
        hint="dropout",
    )[0]


@_register("pad")
def _pad(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    pad = [int(p) for p in _arg(args, kwargs, 1, "pad")]
    mode = _arg(args, kwargs, 2, "mode", "constant")
    value = _arg(args, kwargs, 3, "value")
    rank = len(_shape(x))
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        begins[rank - 1 - i] = pad[2 * i]
        ends[rank - 1 - i] = pad[2 * i + 1]
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}.get(mode)
    if mode == "circular" and g.opset >= 19:
        onnx_mode = "wrap"
    if onnx_mode is None:
        raise _unsupported(g, f"pad (mode={mode!r})")
    dt = _dtype(out)
    inputs = [g.value(x), g.ints(begins + ends)]
    if mode == "constant":
        inputs.append(g.const(np.asarray(0 if value is None else value, dtype=dt)))
    return g.node("Pad", inputs, mode=onnx_mode, hint="pad")[0]


@_register("interpolate", "upsample")
def _interpolate(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    x = args[0]
    scale = _arg(args, kwargs, 2, "scale_factor")
    mode = _arg(args, kwargs, 3, "mode", "nearest")
    align = _arg(args, kwargs, 4, "align_corners")
    recompute = _arg(args, kwargs, 5, "recompute_scale_factor")
    if _arg(args, kwargs, 6, "antialias", False) or mode == "area":
        raise _unsupported(g, f"interpolate (mode={mode!r})")
    n = len(_shape(x)) - 2
    axes = list(range(2, n + 2))
    attrs: dict[str, Any] = {}
    if mode == "nearest":
        attrs = dict(
            mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"
        )
    elif mode == "nearest-exact":
        attrs = dict(
            mode="nearest",
            coordinate_transformation_mode="half_pixel",
            nearest_mode="round_prefer_ceil",
        )
    elif mode in ("linear", "bilinear", "trilinear", "bicubic"):
        attrs = dict(
            mode="cubic" if mode == "bicubic" else "linear",
            coordinate_transformation_mode="align_corners" if align else "pytorch_half_pixel",
        )
        if mode == "bicubic":
            attrs["cubic_coeff_a"] = -0.75
    else:
        raise _unsupported(g, f"interpolate (mode={mode!r})")
    if scale is not None and not recompute:
        scales = np.asarray(_tuple_f(scale, n), dtype=np.float32)
        return g.node(
            "Resize", [g.value(x), "", g.const(scales)], axes=axes, hint="interpolate", **attrs
        )[0]
    sizes = list(_shape(out)[2:])
    return g.node(
        "Resize", [g.value(x), "", "", g.ints(sizes)], axes=axes, hint="interpolate", **attrs
    )[0]


def _tuple_f(v: Any, n: int) -> list[float]:
    if isinstance(v, (list, tuple)):
        return [float(s) for s in v]
    return [float(v)] * n


@_register("pixel_shuffle")
def _pixel_shuffle(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    r = int(_arg(args, kwargs, 1, "upscale_factor"))
    return g.op("DepthToSpace", g.value(args[0]), blocksize=r, mode="CRD", hint="pixel_shuffle")


# ----- attention ---------------------------------------------------------------------------


def _attention(
    g: Graph,
    q: str,
    k: str,
    v: str,
    dt: np.dtype,
    scale: float,
    mask: Any = None,
    causal: tuple[int, int] | None = None,
) -> tuple[str, str]:
    """softmax(q k^T * scale + mask) v over the last two axes; (output, weights)."""
    k_t = g.op("Transpose", k, perm=_swap_last(4))
    scores = g.op("Mul", g.op("MatMul", q, k_t), _c(g, scale, dt))
    if causal is not None:
        length, source = causal
        allowed = np.tril(np.ones((length, source), dtype=bool))
        scores = g.op("Where", g.const(allowed), scores, _c(g, -np.inf, dt), hint="causal")
    if mask is not None:
        scores = _add_mask(g, scores, mask, dt)
    weights = g.op("Softmax", scores, axis=-1)
    return g.op("MatMul", weights, v), weights


def _swap_last(rank: int) -> list[int]:
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def _add_mask(g: Graph, scores: str, mask: Any, dt: np.dtype, keep_true: bool = True) -> str:
    """``scores`` with a mask applied: a boolean mask keeps the True places (``keep_true``) or
    the False ones; a float mask is added."""
    if isinstance(mask, str):
        name, is_bool = mask, g.dtype(mask) == np.bool_
    else:
        is_bool = mask.dtype == _bool()
        name = g.as_type(mask, np.bool_) if is_bool else g.as_type(mask, dt)
    if is_bool:
        if keep_true:
            return g.op("Where", name, scores, _c(g, -np.inf, dt))
        return g.op("Where", name, _c(g, -np.inf, dt), scores)
    return g.op("Add", scores, name)


@_register("_canonical_mask")
def _canonical_mask(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    """A boolean attention mask as the float one it stands for (True: -inf)."""
    mask = _arg(args, kwargs, 0, "mask")
    dt = _dtype(out)
    if mask.dtype == _bool():
        return g.op(
            "Where", g.as_type(mask, np.bool_), _c(g, -np.inf, dt), _c(g, 0, dt), hint="mask"
        )
    return g.as_type(mask, dt)


@_register("scaled_dot_product_attention")
def _sdpa(g: Graph, args: tuple, kwargs: dict, out: Tensor) -> str:
    q, k, v = args[0], _arg(args, kwargs, 1, "key"), _arg(args, kwargs, 2, "value")
    mask = _arg(args, kwargs, 3, "attn_mask")
    is_causal = bool(_arg(args, kwargs, 5, "is_causal", False))
    scale = _arg(args, kwargs, 6, "scale")
    if kwargs.get("enable_gqa") and _shape(q)[-3] != _shape(k)[-3]:
        raise _unsupported(g, "scaled_dot_product_attention (enable_gqa)")
    dt = _dtype(out)
    rank = len(_shape(q))
    e = _shape(q)[-1]
    scale = 1 / math.sqrt(e) if scale is None else float(scale)
    qn, kn, vn = g.as_type(q, dt), g.as_type(k, dt), g.as_type(v, dt)
    k_t = g.op("Transpose", kn, perm=_swap_last(rank))
    scores = g.op("Mul", g.op("MatMul", qn, k_t), _c(g, scale, dt))
    if is_causal:
        allowed = np.tril(np.ones((_shape(q)[-2], _shape(k)[-2]), dtype=bool))
        scores = g.op("Where", g.const(allowed), scores, _c(g, -np.inf, dt))
    if mask is not None:
        scores = _add_mask(g, scores, mask, dt)
    weights = g.op("Softmax", scores, axis=-1)
    return g.op("MatMul", weights, vn, hint="scaled_dot_product_attention")


@_register("multi_head_attention_forward")
def _mha(g: Graph, args: tuple, kwargs: dict, out: Any) -> list[str | None]:
    names = (
        "query key value embed_dim_to_check num_heads in_proj_weight in_proj_bias bias_k bias_v "
        "add_zero_attn dropout_p out_proj_weight out_proj_bias training key_padding_mask "
        "need_weights attn_mask use_separate_proj_weight q_proj_weight k_proj_weight "
        "v_proj_weight static_k static_v average_attn_weights is_causal"
    ).split()
    p = dict(zip(names, args))
    p.update(kwargs)
    get = p.get
    if get("bias_k") is not None or get("add_zero_attn") or get("static_k") is not None:
        raise _unsupported(g, "multi_head_attention_forward (bias_k, add_zero_attn, static_k)")
    if get("training", True) and get("dropout_p", 0.0) > 0:
        raise _unsupported(g, "multi_head_attention_forward (dropout in training)")
    query, key, value = p["query"], p["key"], p["value"]
    heads = int(p["num_heads"])
    e = _shape(query)[-1]
    hd = e // heads
    dt = _dtype(out[0])
    batched = len(_shape(query)) == 3
    qkv = [g.as_type(t, dt) for t in (query, key, value)]
    if not batched:
        qkv = [g.op("Unsqueeze", t, g.ints([1])) for t in qkv]
    if get("use_separate_proj_weight"):
        weights = [g.as_type(p[n], dt) for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight")]
    else:
        weights = g.node("Split", [g.as_type(p["in_proj_weight"], dt), g.ints([e, e, e])], n_out=3)
    biases: list[str | None] = [None, None, None]
    if get("in_proj_bias") is not None:
        biases = g.node("Split", [g.as_type(p["in_proj_bias"], dt), g.ints([e, e, e])], n_out=3)
    heads_first = []
    for t, w, b in zip(qkv, weights, biases):
        y = g.op("MatMul", t, g.op("Transpose", w, perm=[1, 0]))
        if b is not None:
            y = g.op("Add", y, b)
        # (L, N, E) -> (L, N, H, hd) -> (N, H, L, hd)
        y = g.op("Reshape", y, g.ints([0, 0, heads, hd]))
        heads_first.append(g.op("Transpose", y, perm=[1, 2, 0, 3]))
    q, k, v = heads_first
    length, source = _shape(query)[0], _shape(key)[0]
    mask = get("attn_mask")
    mask_name = None
    if mask is not None:
        is_bool = mask.dtype == _bool()
        mask_name = g.as_type(mask, np.bool_ if is_bool else dt)
        if is_bool:  # True marks a place not to attend: the opposite of sdpa's
            mask_name = g.op("Not", mask_name, dtype=np.bool_)
        if len(_shape(mask)) == 3:
            mask_name = g.op("Reshape", mask_name, g.ints([-1, heads, length, source]))
            g.meta[mask_name] = (np.dtype(np.bool_) if is_bool else dt, ())
    causal = (length, source) if get("is_causal") and mask is None else None
    o, attn = _attention(g, q, k, v, dt, 1 / math.sqrt(hd), mask_name, causal)
    padding = get("key_padding_mask")
    if padding is not None:
        # recompute with the padding mask added (it masks keys: (N, S) -> (N, 1, 1, S))
        k_t = g.op("Transpose", k, perm=_swap_last(4))
        scores = g.op("Mul", g.op("MatMul", q, k_t), _c(g, 1 / math.sqrt(hd), dt))
        if causal is not None:
            allowed = np.tril(np.ones(causal, dtype=bool))
            scores = g.op("Where", g.const(allowed), scores, _c(g, -np.inf, dt))
        if mask_name is not None:
            scores = _add_mask(g, scores, mask_name, dt)
        pad = g.op(
            "Unsqueeze",
            g.as_type(padding, np.bool_ if padding.dtype == _bool() else dt),
            g.ints([1, 2]),
        )
        scores = _add_mask(g, scores, pad, dt, keep_true=False)
        attn = g.op("Softmax", scores, axis=-1)
        o = g.op("MatMul", attn, v)
    # (N, H, L, hd) -> (L, N, H, hd) -> (L, N, E)
    o = g.op("Reshape", g.op("Transpose", o, perm=[2, 0, 1, 3]), g.ints([0, 0, e]))
    y = g.op("MatMul", o, g.op("Transpose", g.as_type(p["out_proj_weight"], dt), perm=[1, 0]))
    if get("out_proj_bias") is not None:
        y = g.op("Add", y, g.as_type(p["out_proj_bias"], dt))
    if not batched:
        y = g.op("Squeeze", y, g.ints([1]))
    result: list[str | None] = [g.op("Identity", y, hint="multi_head_attention")]
    if out[1] is not None:
        if get("average_attn_weights", True):
            attn = g.op("ReduceMean", attn, g.ints([1]), keepdims=0)
        if not batched:
            attn = g.op("Squeeze", attn, g.ints([0]))
        result.append(attn)
    return result
