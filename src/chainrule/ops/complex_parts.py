"""Complex numbers and their parts: conj, real, imag, view_as_real, view_as_complex,
complex, abs and angle of complex values, sgn.

Gradients follow PyTorch's convention for complex values: for a real loss L of
z = x + iy, the gradient of z is ∂L/∂x + i ∂L/∂y (twice the conjugate Wirtinger derivative
∂L/∂z̄), so that a gradient step moves z downhill. A VJP here maps that gradient of the
output to the input's; for a holomorphic op it is g · conj(f'(z)) (recording.conjugated).
"""

from __future__ import annotations

from .._backend import xp
from .._missing import missing
from ..autograd.recording import KEEP, array_of, defop
from . import arithmetic, logical


def is_complex_value(x) -> bool:
    """Whether a tensor or an array holds complex values."""
    return array_of(x).dtype.kind == "c"


def _conj(x):
    """x̄ = x - iy for x + iy (a real x: a copy of x)"""
    return xp.conj(x) if x.dtype.kind == "c" else x.copy()


conj_physical = defop(
    "conj_physical",
    _conj,
    dtypes=KEEP,
    complex="wirtinger",
    vjp=lambda g: conj_physical(g),  # z̄ is linear over the reals: the gradient conjugated
    jvp=lambda t: conj_physical(t),  # as the VJP
)


def _real(x):
    """Re z, a view (a real x: x itself, viewed)"""
    return x.real if x.dtype.kind == "c" else x.view()


real = defop(
    "real",
    _real,
    dtypes=KEEP,
    view=True,
    complex="wirtinger",
    node="SelectBackward0",  # (PyTorch takes Re z as a select of view_as_real)
    vjp=lambda g: g,  # ∂ Re z / ∂x = 1, ∂ Re z / ∂y = 0: the gradient g + 0i
    jvp=lambda t: real(t),  # Re of the tangent
)


def _imag(x):
    """Im z, a view"""
    if x.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return x.imag


imag = defop(
    "imag",
    _imag,
    dtypes=KEEP,
    view=True,
    complex="wirtinger",
    node="SelectBackward0",
    vjp=lambda g: complex_from_parts(arithmetic.mul(g, 0.0), g),  # ∂/∂y Im z = 1: 0 + i g
    jvp=lambda t: imag(t),  # Im of the tangent
)


def _view_as_real(x):
    """z as its (real, imag) pairs: shape (..., 2), a view"""
    if x.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return x[..., None].view(x.real.dtype)  # (a last dim of size 1: any strides view)


view_as_real = defop(
    "view_as_real",
    _view_as_real,
    dtypes=KEEP,
    view=True,
    complex="wirtinger",
    node="ViewAsRealBackward0",
    vjp=lambda g: view_as_complex(contiguous_pairs(g)),  # (∂L/∂x, ∂L/∂y) as ∂L/∂x + i ∂L/∂y
    jvp=lambda t: view_as_real(t),  # as the forward: linear
)


def _view_as_complex(x):
    """pairs (..., 2) of (real, imag) as complex numbers: shape (...), a view"""
    if x.dtype == xp.float16:  # (PyTorch's result would be complex32, which chainrule lacks)
        raise missing("torch", "complex32")
    if x.dtype not in (xp.float32, xp.float64):
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {_scalar_name(x)}"
        )
    if not x.ndim:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if not x.size:  # (NumPy gives an empty array zero strides: PyTorch's would pass)
        pass
    elif x.strides[-1] != x.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    elif any(s % (2 * x.itemsize) for s, n in zip(x.strides[:-1], x.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    complex_type = xp.complex64 if x.dtype == xp.float32 else xp.complex128
    return x.view(complex_type)[..., 0]  # (NumPy needs only the last dim contiguous)


def _scalar_name(x) -> str:
    from .._dtypes import scalar_name

    return scalar_name(x.dtype)


view_as_complex = defop(
    "view_as_complex",
    _view_as_complex,
    dtypes=KEEP,
    view=True,
    complex="wirtinger",
    node="ViewAsComplexBackward0",
    vjp=lambda g: view_as_real(g),  # ∂L/∂x + i ∂L/∂y as the pair (∂L/∂x, ∂L/∂y)
    jvp=lambda t: view_as_complex(t),  # as the forward: linear
)


def _contiguous_pairs(x):
    """x with its last dim of 2 laid out contiguously (what view_as_complex needs)"""
    if x.strides[-1] == x.itemsize and x.flags.c_contiguous:
        return x
    return xp.ascontiguousarray(x)


contiguous_pairs = defop(
    "contiguous_pairs",
    _contiguous_pairs,
    dtypes=KEEP,
    complex="wirtinger",
    vjp=lambda g: g,  # a copy: the identity
    jvp=lambda t: contiguous_pairs(t),  # as the forward: a copy
)


def _complex_from_parts(re, im):
    """re + i·im (each part set as it is: an infinite part leaves the other alone)"""
    pairs = xp.stack(xp.broadcast_arrays(re, im), axis=-1)  # (..., 2), contiguous
    if pairs.dtype == xp.float16:  # (no complex32 in chainrule: complex64 holds it exactly)
        pairs = pairs.astype(xp.float32)
    return pairs.view(_complex_type(pairs.dtype))[..., 0]


def _complex_type(dtype):
    return xp.complex128 if dtype == xp.float64 else xp.complex64


complex_from_parts = defop(
    "complex",
    _complex_from_parts,
    args=("real", "imag"),
    dtypes=KEEP,
    complex="wirtinger",
    node="ComplexBackward0",
    vjp=(
        lambda g: real(g),  # ∂z/∂re = 1: Re g
        lambda g: imag(g),  # ∂z/∂im = i: Re(conj(i) g) = Im g
    ),
    jvp=(
        lambda t: complex_from_parts(t, arithmetic.mul(t, 0.0)),  # t
        lambda t: complex_from_parts(arithmetic.mul(t, 0.0), t),  # i t
    ),
)


def _sgn(x):
    """z / |z| (0 at 0); for real x: -1, 0 or 1 (0 for nan, a bool stays bool)"""
    if x.dtype == xp.bool_:
        return x.copy()
    if x.dtype.kind != "c":
        out = xp.sign(x)
        return xp.where(out != out, xp.zeros((), out.dtype), out) if out.dtype.kind == "f" else out
    r = xp.abs(x)
    with xp.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(xp.where(r == 0, xp.zeros((), x.dtype), x / r))


def _sgn_vjp(g, x, ans):
    """(g - Re(g · conj(s)) · s) / |z| for s = z/|z| (0 at z = 0); 0 for real x"""
    if not is_complex_value(x):
        return arithmetic.mul(g, 0.0)
    r = abs_of(x)
    along = real(arithmetic.mul(g, conj_physical(ans)))
    step = arithmetic.div(arithmetic.sub(g, arithmetic.mul(along, ans)), r)
    return logical.where(array_of(r) == 0, arithmetic.mul(g, 0.0), step)


def _sgn_jvp(t, x, ans):
    """(t - Re(t · conj(s)) · s) / |z|: the derivative along t (0 for real x)"""
    return _sgn_vjp(t, x, ans)


sgn = defop(
    "sgn",
    _sgn,
    dtypes=KEEP,
    complex="wirtinger",
    node="SgnBackward0",
    vjp=_sgn_vjp,
    jvp=_sgn_jvp,
    conventions="sgn'(0) = 0; for real x, sgn = sign, whose derivative is 0 (almost everywhere).",
)


def abs_of(x):
    """|x| through unary.abs (imported late: unary imports this module)"""
    from .unary import abs as abs_op

    return abs_op(x)


def _angle(x):
    """arg z = atan2(y, x); for real x: 0, or π where x < 0 (nan stays nan)"""
    if x.dtype.kind == "c":
        return xp.angle(x)
    dtype = x.dtype if x.dtype.kind == "f" else xp.dtype(xp.float32)  # (integers: float32)
    out = xp.where(x < 0, xp.asarray(xp.pi, dtype), xp.zeros((), dtype))
    return xp.where(x != x, x, out) if x.dtype.kind == "f" else out


def _angle_vjp(g, x):
    """∇ arg z = i z / |z|² (-y/r², x/r²); 0 for real x"""
    if not is_complex_value(x):
        return arithmetic.mul(g, 0.0)
    r2 = real(arithmetic.mul(x, conj_physical(x)))
    return arithmetic.div(arithmetic.mul(arithmetic.mul(g, 1j), x), r2)


def _angle_jvp(t, x):
    """Im(t · z̄) / |z|²: the derivative of arg z along t (0 for real x)"""
    if not is_complex_value(x):
        return arithmetic.mul(real(t) if is_complex_value(t) else t, 0.0)
    r2 = real(arithmetic.mul(x, conj_physical(x)))
    return arithmetic.div(imag(arithmetic.mul(t, conj_physical(x))), r2)


angle = defop(
    "angle",
    _angle,
    dtypes=KEEP,
    complex="wirtinger",
    node="AngleBackward0",
    vjp=_angle_vjp,
    jvp=_angle_jvp,
)
