"""Matrix products. The VJPs of C = A @ B are dA = G @ Bᵀ and dB = Aᵀ @ G."""

from __future__ import annotations

from .._backend import xp
from .._op import defop
from .shape import reshape, transpose


def _check_matmul(a, b) -> None:
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and "
            f"{b.ndim}D"
        )
    k_a = a.shape[-1]
    k_b = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if k_a != k_b:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{k_a}] and src [{b.shape[0]}] to have the same "
                f"number of elements, but got {k_a} and {b.shape[0]} elements respectively"
            )
        sa = "x".join(map(str, a.shape if a.ndim > 1 else (1, k_a)))
        sb = "x".join(map(str, b.shape if b.ndim > 1 else (k_b, 1)))
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})"
            if a.ndim <= 2 and b.ndim <= 2
            else f"Expected size for first two dimensions of batch2 tensor to match: "
            f"shapes {list(a.shape)} and {list(b.shape)} cannot be multiplied"
        )


_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _same_dtype(args, params):
    """Matrix products do not promote: both operands must have one dtype, as in PyTorch."""
    a, b = args
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if da is not None and db is not None and da is not db:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{_NAMES[da.name]} and {_NAMES[db.name]}"
            )
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_NAMES[da.name].lower()} != {_NAMES[db.name].lower()}"
        )
    return da or db


def _matmul(a, b):
    """a @ b, with NumPy's (and PyTorch's) rules for 1-D and batched operands"""
    _check_matmul(a, b)
    return xp.matmul(a, b)


def _mT(x):  # noqa: N802 - the math's name
    return transpose(x, dim0=-1, dim1=-2)


def _matmul_vjp_a(g, a, b):
    """d(a @ b)/da contracted with g: g @ bᵀ, with 1-D operands promoted and squeezed back"""
    if b.ndim == 1:
        if a.ndim == 1:  # dot: g is 0-d
            return g * b
        return reshape(g, tuple(g.shape) + (1,)) * b  # (..., n, 1) * (k,) -> (..., n, k)
    if a.ndim == 1:  # (k,) @ (..., k, m) -> (..., m)
        return reshape(b @ reshape(g, tuple(g.shape) + (1,)), tuple(g.shape[:-1]) + (b.shape[-2],))
    return g @ _mT(b)


def _matmul_vjp_b(g, a, b):
    """d(a @ b)/db contracted with g: aᵀ @ g, with 1-D operands promoted and squeezed back"""
    if a.ndim == 1:
        if b.ndim == 1:
            return g * a
        return reshape(a, (a.shape[0], 1)) * reshape(g, tuple(g.shape[:-1]) + (1,) + g.shape[-1:])
    if b.ndim == 1:  # (..., n, k) @ (k,) -> (..., n)
        return reshape(_mT(a) @ reshape(g, tuple(g.shape) + (1,)), tuple(g.shape[:-1]) + (a.shape[-1],))
    return _mT(a) @ g


def _matmul_node(a, b) -> str:
    if a.ndim == 1 and b.ndim == 1:
        return "DotBackward0"
    if a.ndim == 2 and b.ndim == 2:
        return "MmBackward0"
    if a.ndim == 2 and b.ndim == 1:
        return "MvBackward0"
    return "MatmulBackward0"


matmul = defop(
    "matmul", _matmul, args=("a", "b"), node=_matmul_node, dtypes=_same_dtype,
    vjp=(_matmul_vjp_a, _matmul_vjp_b),
    jvp=(lambda t, b: matmul(t, b), lambda t, a: matmul(a, t)),  # d(AB) = dA B + A dB
)


def _mm(a, b):
    """the product of two matrices"""
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_matmul(a, b)
    return a @ b


mm = defop(
    "mm", _mm, args=("a", "b"), dtypes=_same_dtype,
    vjp=(
        lambda g, b: g @ t_(b),  # d(AB)/dA: G Bᵀ
        lambda g, a: t_(a) @ g,  # d(AB)/dB: Aᵀ G
    ),
    jvp=(lambda t, b: mm(t, b), lambda t, a: mm(a, t)),
)


def t_(x):
    return transpose(x, dim0=0, dim1=1)
