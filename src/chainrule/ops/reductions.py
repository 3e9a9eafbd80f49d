"""Reductions over dims: sum, mean, nansum, prod, amax, amin, the full max, min
and median, var, std, and vector_norm.

Two gradient patterns recur. A sum's VJP broadcasts the gradient back over the reduced dims
(``unreduce``). A reduction to an extreme value shares the gradient equally among the
entries that tie for it. ``prod`` has exact gradients with zeros in the input.

Complex inputs: sums, means and products are complex; var, std and the norms are real
(of |x|), their gradients built from z/|z|; the ordering reductions raise PyTorch's errors."""

from __future__ import annotations

import math

from .. import _dtypes
from .._backend import add_reduce, add_reduce_dims, loud, ndarray, quiet, whole_sum, xp
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.recording import KEEP, array_of, contiguous, defop
from . import arithmetic, complex_parts, copies, joining, logical, scans, shapes, sorting, unary


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
        for a in axes:  # one unsqueeze per reduced dim, as PyTorch's graph has
            g = shapes.unsqueeze(g, dim=a)
    return shapes.expand(g, x_shape)


def _integral_sum_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    return xp.int64 if x.dtype.kind in "biu" else None


def _widened(x):
    """x as the accumulation type PyTorch sums it in: float32 for float16 (whose range a sum
    of ordinary values overflows), x itself otherwise."""
    return x.astype(xp.float32) if x.dtype == xp.float16 else x


# Arrays above _SPLIT_SUM elements summed over dim 0 and others have dim 0 summed first,
# when that partial sum (the array over its first dim) has at most _SPLIT_PARTIAL elements
_SPLIT_SUM = 1024
_SPLIT_PARTIAL = 1 << 16


def _sum(x, dim=None, keepdim=False, dtype=None):
    """Σ x over dim (all dims when None); integers and bools sum to int64"""
    axes = dims_of(dim, x.ndim)
    if axes == ():
        axes = None
    if axes is None and dtype is None and x.__class__ is ndarray and x.dtype.char in "fd":
        total = whole_sum(x)
        if total is not None:
            return total.reshape((1,) * x.ndim) if keepdim else total
    if dtype is None and x.dtype == xp.float16:  # accumulated in float32, as PyTorch does
        return xp.sum(x, axis=axes, keepdims=keepdim, dtype=xp.float32).astype(x.dtype)
    if axes is not None and 1 < len(axes) and dtype is None:
        total = add_reduce_dims(x, axes, keepdim)  # (by BLAS where that is faster)
        if total is not None:
            return total
    if (
        axes is not None
        and 1 < len(axes) < x.ndim
        and axes[0] == 0
        and dtype is None
        and x.dtype.kind in "fc"
        and x.size > _SPLIT_SUM
        and x.size <= _SPLIT_PARTIAL * x.shape[0]
    ):
        # NumPy reduces several dims of an array together two to ten times slower than dim 0
        # alone (whole rows added into a partial sum that stays in cache) and then the others
        # (a convolution's bias gradient, a batch norm's statistics); with a partial sum too
        # large for the cache, the split is the slower one
        rest = axes[1:] if keepdim else tuple(a - 1 for a in axes[1:])
        return add_reduce(x, 0, keepdim).sum(axis=rest, keepdims=keepdim)
    if axes is not None and len(axes) == 1 and dtype is None and x.dtype.kind == "f":
        return add_reduce(x, axes[0], keepdim)  # (by BLAS where that is faster)
    # (the array's method: xp.sum's argument handling in Python costs more than a small sum)
    return x.sum(axis=axes, keepdims=keepdim, dtype=_integral_sum_dtype(x, dtype))


def _reduction_node(base: str):
    return lambda x, dim=None, keepdim=False, dtype=None, **_: (
        f"{base}Backward0" if dim is None else f"{base}Backward1"
    )


sum = defop(  # noqa: A001
    "sum",
    contiguous(_sum),
    dtypes=KEEP,
    node=_reduction_node("Sum"),
    vjp=lambda g, x_shape, dim, keepdim: unreduce(g, x_shape, dim, keepdim),  # ∂Σx/∂x_i = 1
    jvp=lambda t, dim, keepdim, dtype: sum(t, dim=dim, keepdim=keepdim, dtype=dtype),  # J t = Σ t
    complex="wirtinger",
)


def _mean(x, dim=None, keepdim=False, dtype=None):
    """(1/n) Σ x over dim"""
    if x.dtype.kind in "biu" and dtype is None:
        name = _dtypes.scalar_name(x.dtype)
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {name}"
        )
    axes = dims_of(dim, x.ndim)
    if axes == ():
        axes = None
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    # (np.sum's Python wrapper skipped for NumPy's arrays: add.reduce is what it calls)
    out = None
    if axes is not None and len(axes) == 1 and dtype is None and x.dtype.kind == "f":
        out = add_reduce(_widened(x), axes[0], keepdim)  # (by BLAS where that is faster)
    elif axes is not None and dtype is None:
        out = add_reduce_dims(x, axes, keepdim)  # (the same; None for a float16 x)
    if out is None:
        total = xp.add.reduce if x.__class__ is ndarray else xp.sum
        dt = None if dtype is None else dtype.np
        out = total(_widened(x), axis=axes, keepdims=keepdim, dtype=dt)
    out = xp.true_divide(out, n)  # 0/0 is nan for an empty input, as in PyTorch
    return out.astype(x.dtype if dtype is None else dtype.np, copy=False)


def _count(x_shape: tuple, dim) -> int:
    axes = dims_of(dim, len(x_shape))
    if axes is None:
        return math.prod(x_shape)
    return math.prod(x_shape[a] for a in axes)


mean = defop(
    "mean",
    contiguous(_mean),
    dtypes=KEEP,
    node=_reduction_node("Mean"),
    vjp=lambda g, x_shape, dim, keepdim: (
        unreduce(g, x_shape, dim, keepdim) / _count(x_shape, dim)
    ),  # ∂ mean(x)/∂x_i = 1/n
    jvp=lambda t, dim, keepdim, dtype: mean(
        t, dim=dim, keepdim=keepdim, dtype=dtype
    ),  # J t = mean t
    complex="wirtinger",
)


def _vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None, variant=0):  # noqa: A002
    """(Σ |x|^p)^(1/p) over dim; p = inf is max |x|, p = 0 counts nonzeros"""
    if x.dtype.kind in "biu":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {_dtypes.scalar_name(x.dtype)}"
        )
    if isinstance(ord, complex):
        raise RuntimeError(
            "linalg.vector_norm: Expected a non-complex scalar as the order of norm."
        )
    axes = dims_of(dim, x.ndim)
    if axes == ():
        axes = None
    if x.size == 0 and (ord < 0 or ord == math.inf):
        _no_identity_norm(x.shape, ord, dim if axes is not None else None)
    result_dtype = x.real.dtype  # (complex x: the norm is real, in its parts' dtype)
    x = _widened(x)  # (float16 in float32: 300² overflows it)
    if ord == 2:
        return two_norm(x, axes, keepdim, result_dtype)
    a = xp.abs(x)
    if ord == 1:
        out = xp.sum(a, axis=axes, keepdims=keepdim)
    elif ord in (math.inf, -math.inf):
        extreme = xp.max if ord > 0 else xp.min
        out = extreme(a, axis=axes, keepdims=keepdim)
    elif ord == 0:
        out = xp.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    else:
        out = xp.sum(a**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    return xp.asarray(out, dtype=result_dtype)


def _no_identity_norm(shape: tuple, ord, dim) -> None:  # noqa: A002
    """PyTorch's error for a max/min-like norm (p = inf or p < 0) over an empty slice: it
    names the first empty dim as given (its message lacks a space before 'because')."""
    what = f"linalg.vector_norm cannot compute the {ord:g} norm on "
    if dim is None:
        raise RuntimeError(what + "an empty tensor because the operation does not have an identity")
    for d in (dim,) if isinstance(dim, int) else dim:
        if shape[int(d) % len(shape)] == 0:
            raise RuntimeError(
                what + f"the dimension {int(d)}because this dimension is empty and the "
                "operation does not have an identity"
            )


def two_norm(x, axes, keepdim: bool, dtype):
    """``_vector_norm`` for p = 2 over ``axes`` (sorted non-negative, or None) of a float
    array (float16 widened first), as ``dtype``: the forward a caller that has checked the
    arguments runs directly (api/parsers/reductions.py). Complex x: Σ |x|², real."""
    square = x * x if x.dtype.kind != "c" else x.real * x.real + x.imag * x.imag
    if square.__class__ is ndarray:  # (the ufunc's reduction: the Python wrapper skipped)
        total = _add_reduce(square, axes, None, None, keepdim)
    else:
        total = xp.sum(square, axis=axes, keepdims=keepdim)
    return xp.asarray(xp.sqrt(total), dtype=dtype)


_add_reduce = xp.add.reduce


def _vector_norm_vjp(g, x, ans, ord, dim, keepdim):  # noqa: A002
    """d‖x‖_p/dx = sign(x) |x|^(p-1) / ‖x‖_p^(p-1); 0 where the norm is 0 (PyTorch's choice).
    Complex x: sgn(z) = z/|z| for sign(x), the gradient of |z| (complex_parts.sgn)."""
    shape = x.shape
    if ord == 2 and _two_norm_arrays(g, x, ans):
        return _two_norm_vjp_arrays(g, x, ans, dim, keepdim)
    g = unreduce(g, shape, dim, keepdim)
    n = unreduce(ans, shape, dim, keepdim)
    # The mask sits on 1/‖x‖, as in PyTorch, so higher derivatives at 0 match its (nan) ones
    zero = n == 0
    if ord == 2:
        return x * (g * logical.where(zero, 0.0, 1 / n))
    sign = complex_parts.sgn if complex_parts.is_complex_value(x) else unary.sign
    if ord == 1:
        return sign(x) * g
    if ord in (math.inf, -math.inf):
        hit = unary.abs(x) == n
        count = unreduce(_count_hits(hit, dim, keepdim, shape), shape, dim, keepdim)
        return logical.where(hit, sign(x) * g / count, 0.0)
    if ord == 0:  # (a step function: 0 everywhere, at inf and nan too, as PyTorch's)
        return copies.zero(x)
    scaled = sign(x) * unary.abs(x) ** (ord - 1)
    if ord < 1:  # |0|^(p-1) is inf: a zero entry's gradient is 0 (PyTorch's), not nan
        scaled = logical.where(array_of(x) == 0, 0.0, scaled)
    return scaled * logical.where(zero, 0.0, g / n ** (ord - 1))


def _vector_norm_jvp(t, x, ans, ord, dim, keepdim):  # noqa: A002
    """J t = Σ_i Re(conj(∇_i) t_i) for the gradient ∇ of ‖x‖_p (for real x: Σ_i ∇_i t_i)"""
    grad = _vector_norm_vjp(ans * 0 + 1, x, ans, ord, dim, keepdim)
    return sum(real_inner(grad, t), dim=dim, keepdim=keepdim)


def real_inner(a, b):
    """Re(ā b) elementwise, the real inner product of complex numbers as planar vectors
    (a b for real a): how a real function with gradient a changes along b."""
    if complex_parts.is_complex_value(a):
        return complex_parts.real(complex_parts.conj_physical(a) * b)
    return a * b


def _two_norm_arrays(g, x, ans) -> bool:
    """Whether the 2-norm's VJP runs on float32 or float64 host arrays of one dtype."""
    return (
        g.__class__ is ndarray
        and x.__class__ is ndarray
        and ans.__class__ is ndarray
        and x.dtype.char in "fd"
        and g.dtype == x.dtype
        and ans.dtype == x.dtype
    )


def _two_norm_vjp_arrays(g, x, ans, dim, keepdim):
    """``_vector_norm_vjp`` for p = 2 on arrays: g/‖x‖ (0 where ‖x‖ = 0) formed at the
    norm's shape, then times x by broadcasting; each element's ufuncs and operands are the
    broadcast ones', so the bits are the same (tests/ops/test_reductions.py)."""
    axes = dims_of(dim, x.ndim)
    if axes is not None and not keepdim:
        kept = list(x.shape)
        for a in axes:
            kept[a] = 1
        g, ans = g.reshape(kept), ans.reshape(kept)
    scale = xp.where(ans == 0, 0.0, xp.divide(1, ans))
    scale *= g
    return xp.multiply(x, scale)


def _other_dims(ndim, dim):
    return tuple(d for d in range(ndim) if d != dim)


def _renorm(x, p=2.0, dim=0, maxnorm=1.0):
    """x with each slice along dim whose p-norm n exceeds maxnorm scaled by maxnorm/(n + 1e-7)"""
    n = _vector_norm(x, p, _other_dims(x.ndim, dim), True)
    with xp.errstate(divide="ignore", invalid="ignore"):
        scale = xp.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)
    return (x * scale).astype(x.dtype)


def _renorm_vjp(g, x, p, dim, maxnorm):
    """where n > maxnorm: (maxnorm/(n+1e-7)) (g - (Σ x g) ∂n/∂x / (n+1e-7)), else g
    (complex x: Re Σ x̄ g for Σ x g, the real scale's share of the gradient)"""
    dims = _other_dims(x.ndim, dim)
    n = vector_norm(x, ord=p, dim=dims, keepdim=True)
    inv = 1 / (n + 1e-7)
    along = sum(real_inner(x, g), dim=dims, keepdim=True)
    through_norm = _vector_norm_vjp(along, x, n, p, dims, True)
    return logical.where(n > maxnorm, inv * maxnorm * (g - inv * through_norm), g)


def _renorm_jvp(t, x, p, dim, maxnorm):
    """where n > maxnorm: (maxnorm/(n+1e-7)) (t - x (Σ t ∂n/∂x) / (n+1e-7)), else t"""
    dims = _other_dims(x.ndim, dim)
    n = vector_norm(x, ord=p, dim=dims, keepdim=True)
    inv = 1 / (n + 1e-7)
    dn = _vector_norm_jvp(t, x, n, p, dims, True)
    return logical.where(n > maxnorm, inv * maxnorm * (t - inv * x * dn), t)


renorm = defop(
    "renorm",
    contiguous(_renorm),
    dtypes=KEEP,
    vjp=_renorm_vjp,
    jvp=_renorm_jvp,
    conventions=(
        "A slice whose norm equals maxnorm is left as it is (gradient g); the scale is "
        "maxnorm/(norm + 1e-7), PyTorch's."
    ),
    complex="wirtinger",
)


def _count_hits(hit, dim, keepdim, shape):

    data = hit._data if isinstance(hit, Tensor) else hit
    return _sum(data, dim=dim, keepdim=keepdim).astype(xp.float64)


# variant 1: ATen's norm(p, dim), which PyTorch's own composites call (NormBackward1)
vector_norm = defop(
    "vector_norm",
    contiguous(_vector_norm),
    dtypes=KEEP,
    node=lambda x, variant=0, **_: "NormBackward1" if variant else "LinalgVectorNormBackward0",
    vjp=_vector_norm_vjp,
    jvp=_vector_norm_jvp,
    conventions=(
        "The gradient is 0 where the norm is 0; for p = ±inf it is shared equally by the "
        "entries that tie for the extreme |x|."
    ),
    complex="wirtinger",
)


def _dist(a, b, p=2.0):
    """‖a - b‖_p over every entry of a - b (a and b broadcast)"""
    d = a - b
    if d.dtype.kind in "biu":
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {_dtypes.scalar_name(d.dtype)} instead."
        )
    return _vector_norm(d, ord=p)


def _dist_vjp(g, a, b, ans, p):
    """∂‖a - b‖_p/∂a = ∂‖d‖_p/∂d at d = a - b (vector_norm's rule)"""
    return _vector_norm_vjp(g, a - b, ans, p, None, False)


def _dist_jvp(t, a, b, ans, p):
    """J t = Σ_i t_i ∂‖d‖_p/∂d_i at d = a - b (vector_norm's tangent)"""
    return _vector_norm_jvp(t, a - b, ans, p, None, False)


def _dist_dtype(args, params):
    """a - b's dtype: PyTorch's promotion, and its error for a bool operand."""
    return arithmetic._sub_dtype(args, params)


dist = defop(
    "dist",
    _dist,
    args=("a", "b"),
    dtypes=_dist_dtype,
    vjp=(
        _dist_vjp,
        lambda g, a, b, ans, p: -_dist_vjp(g, a, b, ans, p),  # ∂‖a - b‖_p/∂b = -∂‖d‖_p/∂d
    ),
    jvp=(
        _dist_jvp,
        lambda t, a, b, ans, p: -_dist_jvp(t, a, b, ans, p),  # J t = -Σ_i t_i ∂‖d‖_p/∂d_i
    ),
    conventions="The gradient is 0 where a = b; for p = ±inf it is shared equally by the "
    "entries that tie for the extreme |a - b|.",
    complex="wirtinger",
)


def wrap_dims(dims, ndim: int) -> list:
    """Each of ``dims`` as a non-negative axis, with PyTorch's IndexError."""
    return [dims_of(d, ndim)[0] for d in dims]


def _axis(dim, ndim: int) -> int:
    """One dim as a non-negative axis (0 for a 0-d tensor), with PyTorch's IndexError."""
    axes = dims_of(int(dim), ndim)
    return 0 if axes is None else axes[0]


def _as_1d(x):
    """A 0-d array as 1-D (NumPy's along-axis functions need an axis); others unchanged."""
    return x.reshape(1) if x.ndim == 0 else x


def _nansum(x, dim=None, keepdim=False, dtype=None):
    """Σ x over dim with nan counted as 0"""
    if x.dtype.kind == "f":
        x = xp.where(xp.isnan(x), 0, x)
    return _sum(x, dim=dim, keepdim=keepdim, dtype=dtype)


nansum = defop(
    "nansum",
    contiguous(_nansum),
    dtypes=KEEP,
    # (a product, not a where: a nan or inf g stays nan at nan entries, as in PyTorch)
    vjp=lambda g, x, dim, keepdim: (
        unreduce(g, array_of(x).shape, dim, keepdim)
        * (~xp.isnan(array_of(x))).astype(array_of(x).dtype)
    ),  # ∂/∂x_i = 1 where x_i is not nan, else 0
    jvp=lambda t, x, dim, keepdim, dtype: sum(
        logical.select(xp.isnan(array_of(x)), 0.0, t), dim=dim, keepdim=keepdim, dtype=dtype
    ),  # J t = Σ t over the entries that are not nan
    conventions="nan entries get a gradient of 0.",
)

# ----- prod ------------------------------------------------------------------------------------


def _prod(x, dim=None, keepdim=False, dtype=None):
    """Π x over dim (all dims when None); integers and bools multiply in int64"""
    if dtype is not None:
        np_dtype = dtype.np
    else:
        np_dtype = xp.int64 if x.dtype.kind in "biu" else None
    # (the ufunc's reduction on an array: the Python wrapper skipped)
    product = _multiply_reduce if x.__class__ is ndarray else _prod_of
    if dim is None:
        out = product(x, None, np_dtype, None, False)
        return xp.asarray(out).reshape((1,) * x.ndim if keepdim else ())
    return xp.asarray(product(x, _axis(dim, x.ndim), np_dtype, None, keepdim))


_multiply_reduce = xp.multiply.reduce


def _prod_of(x, axis, dtype, out, keepdims):
    """``xp.prod`` with multiply.reduce's positional arguments (for arrays NumPy hands on)."""
    return xp.prod(x, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def _exclusive_products(x, dim: int):
    """Π_(j≠i) x_j along dim, exactly (zeros included): the products before i times after."""
    before = sorting.shift_along(scans.cumprod(x, dim=dim), dim=dim, fill=1.0)
    flipped = joining.flip(x, dims=(dim,))
    after = joining.flip(
        sorting.shift_along(scans.cumprod(flipped, dim=dim), dim=dim, fill=1.0), dims=(dim,)
    )
    return before * after


def _prod_vjp(g, x, ans, dim, keepdim):
    """∂Πx/∂x_i = Π_(j≠i) x_j: ans / x_i when no entry is 0, else without dividing"""
    shape = x.shape
    g = unreduce(g, shape, dim, keepdim)
    if len(shape) == 0:
        return g  # the product of one entry is that entry
    if not (array_of(x) == 0).any():
        return g * (unreduce(ans, shape, dim, keepdim) / x)
    if dim is None:
        if not grad_mode.is_grad_enabled() and (array_of(x) == 0).sum() > 1:
            # every Π_(j≠i) holds a 0: zeros, nan entries too (PyTorch's shortcut over the
            # whole tensor, taken only where the backward is not itself recorded)
            return copies.zero(x)
        flat = shapes.reshape(x, (-1,))
        return g * shapes.reshape(_exclusive_products(flat, 0), shape)
    return g * _exclusive_products(x, _axis(dim, len(shape)))


def _reduction_node(base: str):
    return lambda x, dim=None, **_: f"{base}Backward0" if dim is None else f"{base}Backward1"


def _prod_jvp(t, x, ans, dim, keepdim):
    """J t = Σ_i t_i ∂Πx/∂x_i"""
    return sum(_prod_vjp(ans * 0 + 1, x, ans, dim, keepdim) * t, dim=dim, keepdim=keepdim)


prod = defop(
    "prod",
    contiguous(_prod),
    dtypes=KEEP,
    node=_reduction_node("Prod"),
    vjp=_prod_vjp,
    jvp=_prod_jvp,
    conventions=(
        "Exact with zeros: the gradient at x_i is the product of the other entries, so "
        "with one zero only that entry gets a gradient, and with two or more none does."
    ),
    complex="holomorphic",
)

# ----- amax, amin, and the full max, min, median: the gradient shared among ties ---------------


def _hits(x, ans, dim, keepdim, nan_ties: bool):
    """(where x equals the result, as x's dtype; how many do, per result)."""
    xa = array_of(x)
    full = array_of(unreduce(array_of(ans), xa.shape, dim, keepdim))
    hit = xa == full
    if nan_ties:
        hit = hit | (xp.isnan(xa) & xp.isnan(full))
    hit = hit.astype(xa.dtype)
    return hit, xp.sum(hit, axis=dims_of(dim, xa.ndim), keepdims=True)


def _share(x, ans, dim, keepdim, nan_ties: bool):
    """Each entry's share of the gradient: 1/count where x equals the result, else 0."""
    hit, count = _hits(x, ans, dim, keepdim, nan_ties)
    with xp.errstate(invalid="ignore"):
        return hit / count  # 0/0 = nan where no entry equals a nan result (amax's nan case)


def _sharing(name: str, forward, node, nan_ties: bool, conventions: str):
    def vjp(g, x, ans, dim, keepdim):
        """∂m/∂x_i = 1/count for the count entries equal to the result m, else 0"""
        g = unreduce(g, array_of(x).shape, dim, keepdim)
        if nan_ties:  # PyTorch's evenly_distribute_backward: 0 off the ties, even for an inf g
            hit, count = _hits(x, ans, dim, keepdim, nan_ties)
            return logical.select(hit != 0, g / count, 0.0)
        return g * _share(x, ans, dim, keepdim, nan_ties)  # (an inf g gives nan off the ties)

    def jvp(t, x, ans, dim, keepdim):
        """J t = Σ_i t_i ∂m/∂x_i: the mean of t over the entries equal to the result m"""
        return sum(t * _share(x, ans, dim, keepdim, nan_ties), dim=dim, keepdim=keepdim)

    return defop(
        name, contiguous(forward), dtypes=KEEP, node=node, vjp=vjp, jvp=jvp, conventions=conventions
    )


def _extreme(np_fn, name: str):
    def forward(x, dim=None, keepdim=False):
        axes = dims_of(dim, x.ndim)
        if x.size == 0:
            if axes is None:
                raise _no_identity(name, x, None)
            for a in axes:
                if x.shape[a] == 0:
                    raise _no_identity(name, x, a)
        if x.dtype.kind == "c" and (x.size or name == "aminmax"):  # (no order: PyTorch's error)
            raise _dtypes.not_implemented(kernel, x.dtype)
        if x.__class__ is ndarray:  # (the ufunc's reduction: the Python wrapper skipped)
            out = reduce(x, axes, None, None, keepdim and axes is not None)
        else:
            out = np_fn(x) if axes is None else np_fn(x, axis=axes, keepdims=keepdim)
        if axes is None:
            return xp.asarray(out).reshape((1,) * x.ndim if keepdim else ())
        return xp.asarray(out)

    reduce = xp.maximum.reduce if np_fn is xp.max else xp.minimum.reduce
    which = "max" if np_fn is xp.max else "min"
    kernel = {"max": "max_all", "min": "min_all", "aminmax": "aminmax_cpu"}.get(
        name, f"{which}_values_cpu"
    )
    forward.__doc__ = f"the {which} of x over dim (all dims when None); nan propagates"
    return forward


def _no_identity(name: str, x, axis):
    if axis is None:
        return RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


_SHARED = "Entries tying for the result share its gradient equally."

amax = _sharing(
    "amax",
    _extreme(xp.max, "amax"),
    "AmaxBackward0",
    False,
    _SHARED + " Where the result is nan every entry's gradient is nan (PyTorch's).",
)

amin = _sharing(
    "amin",
    _extreme(xp.min, "amin"),
    "AminBackward0",
    False,
    _SHARED + " Where the result is nan every entry's gradient is nan (PyTorch's).",
)

max_all = _sharing(
    "max",
    _extreme(xp.max, "max"),
    "MaxBackward1",
    True,
    _SHARED + " A nan result shares it among the nan entries.",
)

min_all = _sharing(
    "min",
    _extreme(xp.min, "min"),
    "MinBackward1",
    True,
    _SHARED + " A nan result shares it among the nan entries.",
)

_NAN_ALL = " Where the result is nan every entry's gradient is nan (PyTorch's)."

aminmax_min = _sharing(
    "aminmax_min", _extreme(xp.min, "aminmax"), "AminmaxBackward0", False, _SHARED + _NAN_ALL
)

aminmax_max = _sharing(
    "aminmax_max", _extreme(xp.max, "aminmax"), "AminmaxBackward0", False, _SHARED + _NAN_ALL
)


def _median_all(x, dim=None, keepdim=False):
    """the lower median of all entries (the ⌊(n-1)/2⌋-th smallest); nan if any is nan"""
    _unordered(x)
    flat = xp.sort(x.reshape(-1))
    if flat.size == 0:
        return _empty_median(x.dtype)
    if flat.dtype.kind == "f" and xp.isnan(flat[-1]):
        return xp.asarray(flat[-1])
    return xp.asarray(flat[(flat.size - 1) // 2])


def _empty_median(dtype):
    """the median of no entries: nan, which PyTorch's CPU kernel casts to an integer dtype
    as the lowest int32/int64 (0 for the narrower ones)"""
    if dtype.kind in "fc":
        return xp.asarray(xp.nan, dtype=dtype)
    low = xp.iinfo(dtype).min if dtype.kind == "i" and dtype.itemsize >= 4 else 0
    return xp.asarray(low, dtype=dtype)


def _unordered(x) -> None:
    """PyTorch's error for the median of complex numbers, which have no order."""
    if x.dtype.kind == "c" and x.size:  # (an empty input's median is nan, as in PyTorch)
        raise _dtypes.not_implemented("median_cpu", x.dtype)


median_all = _sharing(
    "median",
    _median_all,
    "MedianBackward0",
    True,
    _SHARED + " A nan result shares it among the nan entries.",
)


def _nanmedian_all(x, dim=None, keepdim=False):
    """the lower median of the entries that are not nan; nan if all are"""
    _unordered(x)
    flat = x.reshape(-1)
    if flat.dtype.kind == "f":
        flat = flat[~xp.isnan(flat)]
    if flat.size == 0:
        return _empty_median(x.dtype)
    return xp.asarray(xp.sort(flat)[(flat.size - 1) // 2])


nanmedian_all = _sharing(
    "nanmedian",
    _nanmedian_all,
    "NanmedianBackward0",
    True,
    _SHARED + " With every entry nan, the nan entries share it.",
)

# ----- var and std -----------------------------------------------------------------------------


def _var(x, dim=None, correction=1, keepdim=False):
    """Σ |x - mean x|² / (N - correction) over dim (real for complex x)"""
    return xp.asarray(_var_wide(x, dim, correction, keepdim), dtype=x.real.dtype)


def _var_wide(x, dim, correction, keepdim):
    """var(x) in its accumulation dtype (float64 for float16 and float32 x)"""
    # float64 moments for float16 and float32, as PyTorch's CPU kernel accumulates: the
    # squares of large (|x| > 1e19) or tiny (|x| < 1e-19) float32 values overflow or
    # underflow, and a float32 mean of offset data loses digits of every deviation
    x = x.astype(xp.float64) if x.dtype == xp.float32 or x.dtype == xp.float16 else x
    axes = dims_of(dim, x.ndim)
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    dof = max(n - correction, 0)  # (PyTorch's: s / 0 is inf, or nan where s = 0)
    if axes is None:
        m = xp.mean(x) if x.size else xp.asarray(xp.nan, dtype=x.dtype)
        s = xp.sum(_squared(x - m))
        token = quiet()
        try:
            out = xp.asarray(s / s.dtype.type(dof))
            if not dof and x.dtype.kind == "c":
                out = _parts_over_zero(x - m, None, False)
        finally:
            loud(token)
        return out.reshape((1,) * x.ndim) if keepdim else out
    # (Σx / n, not xp.mean: no "Mean of empty slice" warning; the ufunc's reduction on an
    # array, its Python wrapper skipped)
    total = _add_reduce if x.__class__ is ndarray else _sum_of
    token = quiet()  # (an empty slice's 0/0 is nan, silently)
    try:
        m = total(x, axes, None, None, True) / x.dtype.type(n)
        s = total(_squared(x - m), axes, None, None, keepdim)
        out = s / s.dtype.type(dof)
        if not dof and x.dtype.kind == "c":
            out = _parts_over_zero(x - m, axes, keepdim)
    finally:
        loud(token)
    return out


def _parts_over_zero(d, axes, keepdim: bool):
    """Complex var with N - correction = 0, as PyTorch's var of the real part plus var of the
    imaginary part: inf + inf, but nan where either part's Σ is 0 (0/0)."""
    real = xp.sum(d.real**2, axis=axes, keepdims=keepdim)
    imag = xp.sum(d.imag**2, axis=axes, keepdims=keepdim)
    return real / real.dtype.type(0) + imag / imag.dtype.type(0)


def _squared(d):
    """|d|²: d² for real d, (Re d)² + (Im d)² for complex d"""
    if d.dtype.kind == "c":
        return d.real**2 + d.imag**2
    return d**2


def _sum_of(x, axes, dtype, out, keepdims):
    """``xp.sum`` with add.reduce's positional arguments (for arrays NumPy hands on)."""
    return xp.sum(x, axis=axes, dtype=dtype, out=out, keepdims=keepdims)


def _centred(x, dim):
    """x - mean x over dim, formed in float64 for float16 and float32 x (as the forward's
    moments): a float32 mean of offset data (1e4 + noise) is off by an ulp of 1e4, which is
    every deviation's leading digits"""
    dtype = array_of(x).dtype
    if dtype != xp.float32 and dtype != xp.float16:
        return x - mean(x, dim=dim, keepdim=True)
    wide = copies.to_dtype(x, dtype=_dtypes.float64)
    centred = wide - mean(wide, dim=dim, keepdim=True)
    return copies.to_dtype(centred, dtype=_dtypes.from_numpy_dtype(dtype))


def _var_vjp(g, x, dim, correction, keepdim):
    """∂var/∂x_i = 2 (x_i - mean x) / (N - correction) (complex x too: the gradient of
    |x_i - mean x|² is 2 (x_i - mean x), and the mean's own share sums to 0)"""
    shape = array_of(x).shape
    dof = _count(shape, dim) - correction  # (unclamped, as PyTorch's: N < correction
    # flips the sign, N = correction gives inf)
    centred = _centred(x, dim)
    return unreduce(g, shape, dim, keepdim) * centred * (2.0 / dof if dof else math.inf)


def _var_jvp(t, x, dim, correction, keepdim):
    """J t = Σ_i t_i 2 (x_i - mean x) / (N - correction)"""
    n = _count(array_of(x).shape, dim)
    dof = n - correction
    centred = _centred(x, dim)
    # over an empty slice (N = 0) the tangent is an empty sum, 0 (PyTorch's), not nan
    scale = 2.0 / dof if dof else (0.0 if n == 0 else math.inf)
    return sum(real_inner(centred, t), dim=dim, keepdim=keepdim) * scale  # d|c|² = 2 Re(c̄ dc)


var = defop(
    "var",
    contiguous(_var),
    dtypes=KEEP,
    vjp=_var_vjp,
    jvp=_var_jvp,
    conventions="With N - correction <= 0 the value divides by 0 (inf, or nan for a constant "
    "slice) and the gradient's factor 2 / (N - correction) is unclamped, as PyTorch's (it "
    "warns); the forward-mode tangent over an empty slice is 0.",
    complex="wirtinger",
)


def _std(x, dim=None, correction=1, keepdim=False):
    """√var(x) (the root taken in var's accumulation dtype: a float32 variance below 1e-38
    would be subnormal)"""
    return xp.asarray(xp.sqrt(_var_wide(x, dim, correction, keepdim)), dtype=x.real.dtype)


def _inverse_or_zero(ans):
    # 1/(2 std), 0 where std = 0: PyTorch's gradient of std at a constant input is 0
    a = array_of(ans)
    return logical.select(a == 0, 0.0, 0.5 / logical.select(a == 0, 1.0, ans))


std = defop(
    "std",
    contiguous(_std),
    dtypes=KEEP,
    vjp=lambda g, x, ans, dim, correction, keepdim: _var_vjp(
        g * _inverse_or_zero(ans), x, dim, correction, keepdim
    ),  # ∂std/∂x_i = (∂var/∂x_i) / (2 std), 0 where std = 0
    jvp=lambda t, x, ans, dim, correction, keepdim: (
        _var_jvp(t, x, dim, correction, keepdim) * _inverse_or_zero(ans)
    ),  # J t = (Σ_i t_i ∂var/∂x_i) / (2 std), 0 where std = 0
    conventions="Where std is 0 (a constant input) the gradient is 0, as in PyTorch.",
    complex="wirtinger",
)
