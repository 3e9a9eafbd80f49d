"""Attention: scaled_dot_product_attention as one op, softmax(q kᵀ·scale + bias) v.

With S = q kᵀ·scale + bias, P = softmax(S) along the last dim (0 on rows that are all
-inf, as PyTorch's), P' = P·mask (the dropout mask, kept entries scaled by 1/(1 - p)) and
O = P' v, the backward is PyTorch's fused one: dV = P'ᵀ G, dP = (G vᵀ)·mask,
dS = P ⊙ (dP - Σ_row dP ⊙ P), dq = dS k·scale, dk = dSᵀ q·scale, dbias = dS, written in
ops so that second derivatives come from the same code. Batch dims broadcast (the engine
sums each gradient back to its input's shape)."""

from __future__ import annotations

import math

from .. import _dtypes
from .._backend import add_reduce, ndarray, xp
from ..autograd.recording import array_of, defop
from ..autograd.sharing import shared
from . import logical, normalizations, reductions, shapes
from .linalg import products

_FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"


def _mT(x):  # noqa: N802 - the math's name
    """x with its last two dims swapped"""
    return shapes.transpose(x, dim0=-2, dim1=-1)


def check_dtypes(q, k, v) -> None:
    """PyTorch's error unless query, key and value have one dtype."""
    if not (q._dtype is k._dtype is v._dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{q._dtype.c_name} key.dtype: {k._dtype.c_name} and value.dtype: "
            f"{v._dtype.c_name} instead."
        )


def _attention_dtype(args, params):
    """query's dtype, which key and value must have (PyTorch's error); floating only."""
    q, k, v = args[:3]
    check_dtypes(q, k, v)
    return q._dtype


def _dead_rows(scores):
    """Rows of the scores that are -inf throughout (masked entirely): as an array mask."""
    s = array_of(scores)
    return xp.all(xp.isneginf(s), axis=-1, keepdims=True)


# ----- on arrays (no create_graph): the key dim first -------------------------------------
# NumPy reduces and broadcasts along a short last dim (32 keys) one row at a time, some 25-90
# ns a row: softmax over (B, H, 32, 32) scores took 138 µs. With the scores laid out keys
# first, (S, ..., L), every reduction and broadcast runs along the long contiguous rest:
# k qᵀ, one copy that moves the key dim to the front, then max, exp and sum along dim 0
# (40 µs in all). P stays in that layout; the VJPs' products take it as a transposed view.


def _keys_first(st, scale=None):
    """k qᵀ (..., S, L) as a contiguous (S, ..., L) array (times ``scale``, in the copy)"""
    nd = st.ndim
    moved = st.transpose((nd - 2, *range(nd - 2), nd - 1))
    if scale is None:
        return xp.ascontiguousarray(moved)
    return xp.multiply(moved, scale, out=xp.empty(moved.shape, st.dtype))


def _keys_last(x):
    """a (S, ..., L) array as the (..., L, S) view the ops see"""
    nd = x.ndim
    return x.transpose((*range(1, nd), 0))


def _keys_last_inverse(p):
    """the (S, ..., L) array behind a view made by _keys_last"""
    nd = p.ndim
    return p.transpose((nd - 1, *range(nd - 1)))


def _softmax_keys_first(x):
    """softmax along dim 0 of the scores x (S, ..., L), in place; None where a row of the
    scores is -inf throughout (the general path gives it 0)"""
    m = xp.maximum.reduce(x, 0)
    if (m == -xp.inf).any():
        return None
    x -= m
    xp.exp(x, out=x)
    x /= add_reduce(x.reshape(x.shape[0], -1), 0).reshape(m.shape)  # (by BLAS)
    return x


def _probabilities_of_arrays(q, k, bias, scale):
    """P = softmax(q kᵀ·scale + bias) for arrays, as the (..., L, S) view of its keys-first
    layout; None where the general path is the one to take"""
    x = _keys_first(xp.matmul(k, xp.swapaxes(q, -1, -2)), scale)
    if bias is not None:
        if bias.dtype != x.dtype:
            return None
        x += xp.moveaxis(xp.broadcast_to(bias, _keys_last(x).shape), -1, 0)
    x = _softmax_keys_first(x)
    return None if x is None else _keys_last(x)


def _arrays(*values) -> bool:
    return all(v is None or v.__class__ is ndarray for v in values)


def _probabilities(q, k, bias, scale):
    """P = softmax(q kᵀ·scale + bias) along the last dim, 0 on rows that are all -inf"""
    if _arrays(q, k, bias) and q.dtype.char in "fd" and q.ndim >= 2 and k.ndim >= 2:
        p = _probabilities_of_arrays(q, k, bias, scale)
        if p is not None:
            return p
    scores = products.matmul(q, _mT(k)) * scale
    if bias is not None:
        scores = scores + bias
    dead = _dead_rows(scores)
    if not dead.any():
        return normalizations.softmax(scores, dim=-1)
    safe = normalizations.softmax(logical.select(dead, 0.0, scores), dim=-1)
    return logical.select(dead, 0.0, safe)


_probabilities_once = shared(_probabilities)  # (P for the VJPs of q, k and v: once per node)


# The most entries of P a node keeps for its backward (16 MB in float32); a larger P is
# computed again in backward, as PyTorch's flash kernel does, so that a deep model's long
# sequences do not hold one P per layer from forward to backward.
KEEP_AT_MOST = 1 << 22


def probabilities_of(q, k, bias, scale):
    """P for the forward to take as its ``probabilities`` (and its VJPs to read, not to
    recompute it): for float arrays of one dtype whose product is defined, with at most
    KEEP_AT_MOST entries; None otherwise (the op then computes P, and raises its errors)"""
    if not (_arrays(q, k, bias) and q.dtype.char in "fd" and q.dtype == k.dtype):
        return None
    if q.ndim < 2 or k.ndim < 2 or q.shape[-1] != k.shape[-1]:
        return None
    try:
        batch = xp.broadcast_shapes(q.shape[:-2], k.shape[:-2])
        if math.prod(batch) * q.shape[-2] * k.shape[-2] > KEEP_AT_MOST:
            return None
        with xp.errstate(invalid="ignore"):
            return _probabilities_of_arrays(q, k, bias, scale)
    except ValueError:  # (batch dims that do not broadcast: the op's error)
        return None


def _p(q, k, bias, scale, probabilities):
    """P for the VJPs: the forward's, on arrays; otherwise computed (once per node), with
    ops for create_graph"""
    if probabilities is not None and q.__class__ is ndarray:
        return probabilities
    return _probabilities_once(q, k, bias, scale)


def _attention(q, k, v, bias, scale=1.0, dropout_mask=None, fused=False, probabilities=None):
    """softmax(q kᵀ·scale + bias)·dropout_mask, times v (rows all masked give 0); P as
    given in ``probabilities`` (``probabilities_of``), kept for backward"""
    if q.dtype.kind == "c":  # (no softmax of complex scores: PyTorch's kernel error)
        raise _dtypes.not_implemented("softmax_lastdim_kernel_impl", q.dtype)
    p = probabilities
    if p is None:
        with xp.errstate(invalid="ignore"):
            p = _probabilities(q, k, bias, scale)
    if dropout_mask is not None:
        p = p * dropout_mask
    return xp.matmul(p, v)


def _attention_node(q, k, v, bias, scale=1.0, dropout_mask=None, fused=False, **_) -> str:
    """PyTorch's node: its fused CPU kernel's where it takes it (4-D inputs of one head
    size, no dropout, no mask needing a gradient), else the last of matmul's."""
    if fused:
        return _FLASH
    return "MmBackward0" if q.ndim == 2 and v.ndim == 2 else "UnsafeViewBackward0"


def _dropped(p, dropout_mask):
    return p if dropout_mask is None else p * dropout_mask


@shared
def _score_grad(g, q, k, v, bias, scale, dropout_mask, probabilities=None):
    """dS = P ⊙ (dP - Σ_row dP ⊙ P), dP = (G vᵀ)·mask (once per node for the VJPs of q, k
    and the bias)"""
    p = _p(q, k, bias, scale, probabilities)
    if _arrays(g, v, p, dropout_mask) and _keys_last_inverse(p).flags.c_contiguous:
        # arrays, P keys first (_probabilities_of_arrays): the same steps in its layout
        dp = _keys_first(xp.matmul(v, xp.swapaxes(g, -1, -2)))
        if dropout_mask is not None:
            dp *= xp.moveaxis(xp.broadcast_to(dropout_mask, p.shape), -1, 0)
        pt = _keys_last_inverse(p)
        t = dp * pt
        dp -= add_reduce(t.reshape(t.shape[0], -1), 0).reshape(t.shape[1:])  # (by BLAS)
        dp *= pt
        return _keys_last(dp)
    dp = _dropped(products.matmul(g, _mT(v)), dropout_mask)
    return p * (dp - reductions.sum(dp * p, dim=-1, keepdim=True))


def _score_tangent(ds, q, k, v, bias, scale, dropout_mask):
    """The output's tangent for a tangent ds of the scores: (P ⊙ (ds - Σ_row ds ⊙ P))·mask v"""
    p = _probabilities(q, k, bias, scale)
    dp = p * (ds - reductions.sum(ds * p, dim=-1, keepdim=True))
    return products.matmul(_dropped(dp, dropout_mask), v)


scaled_dot_product_attention = defop(
    "scaled_dot_product_attention",
    _attention,
    args=("q", "k", "v", "bias"),
    node=_attention_node,
    dtypes=_attention_dtype,
    vjp=(
        lambda g, q, k, v, bias, scale, dropout_mask, probabilities: (
            products.matmul(_score_grad(g, q, k, v, bias, scale, dropout_mask, probabilities), k)
            * scale
        ),  # dq = dS k·scale
        lambda g, q, k, v, bias, scale, dropout_mask, probabilities: (
            products.matmul(
                _mT(_score_grad(g, q, k, v, bias, scale, dropout_mask, probabilities)), q
            )
            * scale
        ),  # dk = dSᵀ q·scale
        lambda g, q, k, bias, scale, dropout_mask, probabilities: products.matmul(
            _mT(_dropped(_p(q, k, bias, scale, probabilities), dropout_mask)), g
        ),  # dv = P'ᵀ G
        lambda g, q, k, v, bias, scale, dropout_mask, probabilities: _score_grad(
            g, q, k, v, bias, scale, dropout_mask, probabilities
        ),  # dbias = dS
    ),
    jvp=(
        lambda t, q, k, v, bias, scale, dropout_mask: _score_tangent(
            products.matmul(t, _mT(k)) * scale, q, k, v, bias, scale, dropout_mask
        ),  # J t = the scores' tangent t kᵀ·scale through softmax, times v
        lambda t, q, k, v, bias, scale, dropout_mask: _score_tangent(
            products.matmul(q, _mT(t)) * scale, q, k, v, bias, scale, dropout_mask
        ),  # J t = the scores' tangent q tᵀ·scale through softmax, times v
        lambda t, q, k, bias, scale, dropout_mask: products.matmul(
            _dropped(_probabilities(q, k, bias, scale), dropout_mask), t
        ),  # J t = P' t
        lambda t, q, k, v, bias, scale, dropout_mask: _score_tangent(
            t, q, k, v, bias, scale, dropout_mask
        ),  # J t = the scores' tangent t through softmax, times v
    ),
    conventions="A row of scores that is -inf throughout (masked entirely) gives 0, and no "
    "gradient (PyTorch's safe softmax).",
    shares=True,  # (P and dS once for the gradients of q, k, v and the bias)
)
