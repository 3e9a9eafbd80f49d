"""``torch.nn.functional``'s linear layers: linear (x Wᵀ + b, the graph PyTorch records for
each shape: AddmmBackward0, MmBackward0, a view of addmm, matmul's nodes) and bilinear
(x1ᵀ W x2 + b through the trilinear op, TrilinearBackward0)."""

from __future__ import annotations

import math

from ..._backend import mm as mm_arrays
from ..._backend import run_quietly
from ..._meta import live as _meta_live
from ..._tensor import Tensor
from ...autograd.recording import PROFILER
from ...ops import shapes
from ...ops.linalg import products
from .linalg import _matmul_operator


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weightᵀ + bias, as PyTorch computes it: addmm for a matrix input with a bias,
    addmm of the input flattened to a matrix (then viewed back) for other inputs with a
    vector bias, matmul (then + bias) otherwise."""
    if isinstance(bias, Tensor) and isinstance(input, Tensor) and isinstance(weight, Tensor):
        x, w, b = input._data, weight._data, bias._data
        if (
            x.ndim == 2
            and w.ndim == 2
            and b.ndim == 1
            and x.shape[1] == w.shape[1]
            and b.shape[0] == w.shape[0]
            and input._dtype is weight._dtype is bias._dtype
            and input._dtype._native  # (bfloat16: addmm's own path, in float32)
            and not _meta_live[0]
            and PROFILER[0] is None  # (a profiler times addmm as a whole: the general path)
        ):
            return _addmm_linear(input, weight, bias, x, w.T, b)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.ndim}D and {weight.ndim}D"
        )
    w_t = products._t(weight)  # (a matrix's in one call: entries.view_entry)
    if bias is not None and weight.ndim == 2:
        if input.ndim == 2:
            return products.addmm(bias, input, w_t)
        if bias.ndim == 1 and input.is_contiguous():  # (else matmul, then + bias: PyTorch's)
            rows = math.prod(input.shape[:-1])
            flat = shapes.reshape(input, (rows, input.shape[-1]))
            x, b = flat._data, bias._data
            if (
                b.ndim == 1
                and x.shape[1] == weight.shape[1]
                and b.shape[0] == weight.shape[0]
                and input._dtype is weight._dtype is bias._dtype
                and input._dtype._native
                and not _meta_live[0]
                and PROFILER[0] is None  # (a profiler times addmm as a whole: the general path)
            ):  # (a (B, T, F) input: the matrix case on its rows)
                out = _addmm_linear(flat, weight, bias, x, weight._data.T, b)
            else:
                out = products.addmm(bias, flat, w_t)
            return shapes.view(out, shape=tuple(input.shape[:-1]) + (out.shape[1],))
    if bias is not None and input.ndim == 2:
        raise RuntimeError(f"mat2 must be a matrix, got {weight.ndim}-D tensor")
    # (input @ w_t: matmul's entry for two tensors, entries.matmul_entry)
    out = _matmul_operator(input, w_t) if isinstance(input, Tensor) else products.matmul(input, w_t)
    return out if bias is None else out + bias


def _addmm_linear(input: Tensor, weight: Tensor, bias: Tensor, x, w_t, b) -> Tensor:
    """``linear``'s common case, a matrix input with a vector bias, as the general path
    computes it (``addmm(bias, input, weight.t())``: the same nodes, saved values and bits)
    with the dispatch it has already done left out: addmm's forward on the arrays, given to
    the ops' recording steps (``t._fast``, ``addmm._wrap``) as computed.
    tests/nn/test_mlp_fast_paths.py pins it to the general path."""
    w_t_tensor = products._t(weight)  # (t of a matrix in one call: entries.view_entry)
    # (an overflow in the sum is inf, silently, as in PyTorch)
    out = run_quietly(_addmm_steps, b, x, w_t)
    return products.addmm._wrap((bias, input, w_t_tensor), (b, x, w_t), {}, out)


def _addmm_steps(b, x, w_t):
    """addmm's forward (products._addmm) for beta = alpha = 1 and shapes ``linear`` has
    checked: the product, b added into it (the same steps, the same bits)."""
    out = mm_arrays(x, w_t)
    out += b
    return out


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_o = input1ᵀ weight_o input2 + bias_o over the last dims (the leading dims are a
    batch): the trilinear op on the inputs flattened to matrices, viewed back."""
    named = [("input1", input1), ("input2", input2), ("weight", weight)]
    named += [("bias", bias)] if bias is not None else []
    if any(t._dtype is not input1._dtype for _, t in named):  # (before the shapes, as PyTorch)
        got = ", ".join(f"{name}: {t._dtype.c_name}" for name, t in named)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"
        )
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got "
                f"{input1.shape[i]} and {input2.shape[i]}"
            )
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            "bilinear(): input1 size does not match weight size: got "
            f"{input1.shape[-1]} but expected {weight.shape[1]}"
        )
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            "bilinear(): input2 size does not match weight size: got "
            f"{input2.shape[-1]} but expected {weight.shape[2]}"
        )
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(
            "bilinear(): bias size does not match weight size: got "
            f"{bias.shape[0]} but expected {weight.shape[0]}"
        )
    x1 = shapes.reshape(input1, (-1, input1.shape[-1]))
    x2 = shapes.reshape(input2, (-1, input2.shape[-1]))
    out = shapes.reshape(
        products.trilinear(x1, weight, x2), tuple(input1.shape[:-1]) + (weight.shape[0],)
    )
    return out if bias is None else out + bias
