"""Reductions: sum, mean, norm. Their VJPs broadcast the gradient back over the reduced dims."""

from __future__ import annotations

import math

from .._backend import xp
from ..autograd.recording import KEEP, defop
from .elementwise import abs, sign, where
from .shape import expand, reshape


def dims_of(dim, ndim: int) -> tuple | None:
    """``dim`` (None, an int or a sequence, negatives allowed) as sorted non-negative axes."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    elif len(dim) == 0:  # dim=() or [] reduces over every dim, as in PyTorch
        return None
    n = max(ndim, 1)
    out = []
    for d in dim:
        d = int(d)
        if not -n <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        out.append(d % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return tuple(sorted(out)) if ndim else None


def unreduce(g, x_shape: tuple, dim, keepdim: bool):
    """Broadcast a reduction's output gradient back to the input's shape."""
    axes = dims_of(dim, len(x_shape))
    if axes is not None and not keepdim:
        kept = list(x_shape)
        for a in axes:
            kept[a] = 1
        g = reshape(g, tuple(kept))
    return expand(g, x_shape)


def _integral_sum_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    return xp.int64 if x.dtype.kind in "biu" else None


def _sum(x, dim=None, keepdim=False, dtype=None):
    """Σ x over dim (all dims when None); integers and bools sum to int64"""
    axes = dims_of(dim, x.ndim)
    if axes == ():
        axes = None
    return xp.sum(x, axis=axes, keepdims=keepdim, dtype=_integral_sum_dtype(x, dtype))


def _reduction_node(base: str):
    return lambda x, dim=None, keepdim=False, dtype=None, **_: (
        f"{base}Backward0" if dim is None else f"{base}Backward1"
    )


sum = defop(  # noqa: A001
    "sum",
    _sum,
    dtypes=KEEP,
    node=_reduction_node("Sum"),
    vjp=lambda g, x_shape, dim, keepdim: unreduce(g, x_shape, dim, keepdim),  # dΣx/dx_i = 1
    jvp=lambda t, dim, keepdim, dtype: sum(t, dim=dim, keepdim=keepdim, dtype=dtype),
)


def _mean(x, dim=None, keepdim=False, dtype=None):
    """(1/n) Σ x over dim"""
    if x.dtype.kind in "biu" and dtype is None:
        name = {"b": "Bool", "u": "Byte"}.get(x.dtype.kind, _INT_NAMES.get(x.dtype.itemsize))
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {name}"
        )
    axes = dims_of(dim, x.ndim)
    if axes == ():
        axes = None
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    out = xp.sum(x, axis=axes, keepdims=keepdim, dtype=None if dtype is None else dtype.np)
    out = xp.true_divide(out, n)  # 0/0 is nan for an empty input, as in PyTorch
    return out.astype(x.dtype if dtype is None else dtype.np, copy=False)


_INT_NAMES = {1: "Char", 2: "Short", 4: "Int", 8: "Long"}


def _count(x_shape: tuple, dim) -> int:
    axes = dims_of(dim, len(x_shape))
    if axes is None:
        return math.prod(x_shape)
    return math.prod(x_shape[a] for a in axes)


mean = defop(
    "mean",
    _mean,
    dtypes=KEEP,
    node=_reduction_node("Mean"),
    # d mean(x)/dx_i = 1/n
    vjp=lambda g, x_shape, dim, keepdim: unreduce(g, x_shape, dim, keepdim) / _count(x_shape, dim),
    jvp=lambda t, dim, keepdim, dtype: mean(t, dim=dim, keepdim=keepdim, dtype=dtype),
)


def _vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):  # noqa: A002
    """(Σ |x|^p)^(1/p) over dim; p = inf is max |x|, p = 0 counts nonzeros"""
    if x.dtype.kind in "biu":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {_dtype_name(x)}"
        )
    axes = dims_of(dim, x.ndim)
    if axes == ():
        axes = None
    a = xp.abs(x)
    if ord == 2:
        out = xp.sqrt(xp.sum(x * x, axis=axes, keepdims=keepdim))
    elif ord == 1:
        out = xp.sum(a, axis=axes, keepdims=keepdim)
    elif ord in (math.inf, -math.inf):
        if x.size == 0 and (axes is None or any(x.shape[i] == 0 for i in axes)):
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {'' if ord > 0 else '-'}inf norm on an "
                "empty tensor because the operation does not have an identity"
            )
        extreme = xp.max if ord > 0 else xp.min
        out = extreme(a, axis=axes, keepdims=keepdim)
    elif ord == 0:
        out = xp.sum(a != 0, axis=axes, keepdims=keepdim).astype(x.dtype)
    else:
        out = xp.sum(a**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    return xp.asarray(out, dtype=x.dtype)


def _dtype_name(x) -> str:
    return {"b": "Bool", "u": "Byte"}.get(x.dtype.kind, _INT_NAMES.get(x.dtype.itemsize, "?"))


def _vector_norm_vjp(g, x, ans, ord, dim, keepdim):  # noqa: A002
    """d‖x‖_p/dx = sign(x) |x|^(p-1) / ‖x‖_p^(p-1); 0 where the norm is 0 (PyTorch's choice)"""
    shape = x.shape
    g = unreduce(g, shape, dim, keepdim)
    n = unreduce(ans, shape, dim, keepdim)
    # The mask sits on 1/‖x‖, as in PyTorch, so higher derivatives at 0 match its (nan) ones
    zero = n == 0
    if ord == 2:
        return x * (g * where(zero, 0.0, 1 / n))
    if ord == 1:
        return sign(x) * g
    if ord in (math.inf, -math.inf):
        hit = abs(x) == n
        count = unreduce(_count_hits(hit, dim, keepdim, shape), shape, dim, keepdim)
        return where(hit, sign(x) * g / count, 0.0)
    if ord == 0:
        return x * 0
    return sign(x) * abs(x) ** (ord - 1) * where(zero, 0.0, g / n ** (ord - 1))


def _count_hits(hit, dim, keepdim, shape):
    from .._tensor import Tensor

    data = hit._data if isinstance(hit, Tensor) else hit
    return _sum(data, dim=dim, keepdim=keepdim).astype(xp.float64)


vector_norm = defop(
    "vector_norm",
    _vector_norm,
    dtypes=KEEP,
    node="LinalgVectorNormBackward0",
    vjp=_vector_norm_vjp,
    jvp=lambda t, x, ans, ord, dim, keepdim: sum(  # noqa: A002 - the directional derivative
        _vector_norm_vjp(ans * 0 + 1, x, ans, ord, dim, keepdim) * t, dim=dim, keepdim=keepdim
    ),
    conventions=(
        "The gradient is 0 where the norm is 0; for p = ±inf it is shared equally by the "
        "entries that tie for the extreme |x|."
    ),
)
