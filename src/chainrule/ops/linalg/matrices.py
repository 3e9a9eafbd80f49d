"""Parts of matrices: trace, diagonal (and its embedding), tril, triu, and the
cross product.

All are linear: each VJP puts the gradient back where the forward read it, zeros elsewhere."""

from __future__ import annotations

from ... import _dtypes
from ..._backend import xp
from ...autograd.recording import KEEP, contiguous, defop
from . import inverses

# ----- trace, diagonals, triangles ---------------------------------------------------------


def _trace(x):
    """Σᵢ xᵢᵢ"""
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    if x.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return xp.asarray(xp.trace(x, dtype=xp.int64 if x.dtype.kind in "iu" else None))


trace = defop(
    "trace",
    _trace,
    dtypes=KEEP,
    vjp=lambda g, x_shape: g * inverses._eye(x_shape[0], g, x_shape[1]),  # d tr(X)/dX = I
    jvp=lambda t: trace(t),  # d tr(X) = tr(dX)
    complex="wirtinger",
)


def _writable_diagonal(x, offset, dim1, dim2):
    out = xp.diagonal(x, offset, dim1, dim2)
    if x.flags.writeable:  # PyTorch's diagonal is a view one may write through
        out.flags.writeable = True
    return out


def _diagonal(x, offset=0, dim1=0, dim2=1):
    """the diagonal of x over dims (dim1, dim2), offset above (>0) or below (<0) the main one,
    as the last dim"""
    return _writable_diagonal(x, offset, dim1, dim2)


diagonal = defop(
    "diagonal",
    _diagonal,
    dtypes=KEEP,
    view=True,
    vjp=lambda g, x_shape, offset, dim1, dim2: diagonal_backward(
        g, shape=x_shape, offset=offset, dim1=dim1, dim2=dim2
    ),  # Jᵀg = zeros of x's shape with g on the diagonal
    jvp=lambda t, offset, dim1, dim2: diagonal(
        t, offset=offset, dim1=dim1, dim2=dim2
    ),  # J t = t's diagonal
    complex="wirtinger",
)


def _diagonal_copy(x, offset=0, dim1=0, dim2=1):
    """the diagonal of x, copied"""
    return xp.diagonal(x, offset, dim1, dim2).copy()


diagonal_copy = defop(
    "diagonal_copy",
    _diagonal_copy,
    dtypes=KEEP,
    node="DiagonalBackward0_copy",
    vjp=lambda g, x_shape, offset, dim1, dim2: diagonal_backward(
        g, shape=x_shape, offset=offset, dim1=dim1, dim2=dim2
    ),  # Jᵀg = zeros of x's shape with g on the diagonal
    jvp=lambda t, offset, dim1, dim2: diagonal_copy(
        t, offset=offset, dim1=dim1, dim2=dim2
    ),  # J t = t's diagonal
    complex="wirtinger",
)


def _diagonal_backward(g, shape=(), offset=0, dim1=0, dim2=1):
    """zeros of ``shape`` with g on the diagonal (offset, dim1, dim2)"""
    out = xp.zeros(shape, dtype=g.dtype)
    _writable_diagonal(out, offset, dim1, dim2)[...] = g
    return out


diagonal_backward = defop(
    "diagonal_backward",
    _diagonal_backward,
    args=("g",),
    dtypes=KEEP,
    vjp=lambda gg, offset, dim1, dim2: diagonal(
        gg, offset=offset, dim1=dim1, dim2=dim2
    ),  # Jᵀgg = gg's diagonal
    jvp=lambda t, shape, offset, dim1, dim2: diagonal_backward(
        t, shape=shape, offset=offset, dim1=dim1, dim2=dim2
    ),  # J t = zeros of the shape with t on the diagonal
    complex="wirtinger",
)


def _embed_shape(x_shape: tuple, offset: int, dim1: int, dim2: int) -> tuple:
    n = x_shape[-1] + abs(offset)
    rest = iter(x_shape[:-1])
    return tuple(n if i in (dim1, dim2) else next(rest) for i in range(len(x_shape) + 1))


def _diag_embed(x, offset=0, dim1=-2, dim2=-1):
    """matrices (over dims dim1, dim2) with the last dim of x on their diagonal ``offset``"""
    nd = x.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    return _diagonal_backward(x, _embed_shape(x.shape, offset, d1, d2), offset, d1, d2)


diag_embed = defop(
    "diag_embed",
    _diag_embed,
    dtypes=KEEP,
    vjp=lambda g, offset, dim1, dim2: diagonal(
        g, offset=offset, dim1=dim1 % g.ndim, dim2=dim2 % g.ndim
    ),  # Jᵀg = g's diagonal, read back
    jvp=lambda t, offset, dim1, dim2: diag_embed(
        t, offset=offset, dim1=dim1, dim2=dim2
    ),  # J t = t on the diagonal of zero matrices
    complex="wirtinger",
)


def _tril(x, diagonal=0):
    """x with the entries above its diagonal ``diagonal`` zeroed"""
    if x.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return xp.tril(x, diagonal)


def _triu(x, diagonal=0):
    """x with the entries below its diagonal ``diagonal`` zeroed"""
    if x.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return xp.triu(x, diagonal)


tril = defop(
    "tril",
    contiguous(_tril),
    dtypes=KEEP,
    vjp=lambda g, diagonal: tril(g, diagonal=diagonal),  # Jᵀg = tril(g): a mask, G masked alike
    jvp=lambda t, diagonal: tril(t, diagonal=diagonal),  # as the VJP
    complex="wirtinger",
)

triu = defop(
    "triu",
    contiguous(_triu),
    dtypes=KEEP,
    vjp=lambda g, diagonal: triu(g, diagonal=diagonal),  # Jᵀg = triu(g): a mask, G masked alike
    jvp=lambda t, diagonal: triu(t, diagonal=diagonal),  # as the VJP
    complex="wirtinger",
)

# ----- cross product -------------------------------------------------------------------------


def _cross(a, b, dim=-1):
    """a × b along dim (of size 3)"""
    return xp.cross(a, b, axis=dim)


def _cross_dtype(args, params):
    a, b = args
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtypes.scalar_name(a.dtype)} but found "
            f"{_dtypes.scalar_name(b.dtype)}"
        )
    return a.dtype


cross = defop(
    "cross",
    _cross,
    args=("a", "b"),
    dtypes=_cross_dtype,
    node="LinalgCrossBackward0",
    vjp=(
        lambda g, b, dim: cross(b, g, dim=dim),  # ⟨G, a × b⟩ = ⟨a, b × G⟩: ga = b × G
        lambda g, a, dim: cross(g, a, dim=dim),  # ⟨G, a × b⟩ = ⟨b, G × a⟩: gb = G × a
    ),
    jvp=(
        lambda t, b, dim: cross(t, b, dim=dim),  # d(a × b) = da × b
        lambda t, a, dim: cross(a, t, dim=dim),  # d(a × b) = a × db
    ),
    complex="holomorphic",
)
