"""Matrix products: matmul (with PyTorch's rules for 1-D and batched
operands), mm, bmm, mv, dot, vdot, the ``beta·input + alpha·product`` family (addmm, addmv,
addr, baddbmm, addbmm), inner, tensordot, vecdot and einsum.

d(AB) = dA B + A dB: the VJPs are G Bᵀ and Aᵀ G (Xᵀ transposes the last two dims).
On complex values the products are holomorphic (the engine conjugates their VJPs:
G Bᴴ, Aᴴ G); vdot and vecdot conjugate their first operand, as PyTorch."""

from __future__ import annotations

import math

from ... import _dtypes
from ..._backend import mm as _mm_arrays
from ..._backend import ndarray, xp
from ..._tensor import Tensor
from ...autograd.entries import view_entry
from ...autograd.recording import PROMOTE, defop
from .. import complex_parts, reductions, shapes
from . import inverses, matrices


def _dims(shape) -> str:
    return "x".join(map(str, shape))


def _broadcast_batch(a_batch: tuple, b_batch: tuple) -> tuple:
    """The broadcast of two batch shapes, with PyTorch's error when they do not broadcast."""
    n = max(len(a_batch), len(b_batch))
    a = (1,) * (n - len(a_batch)) + tuple(a_batch)
    b = (1,) * (n - len(b_batch)) + tuple(b_batch)
    out = []
    for i, (da, db) in enumerate(zip(a, b)):
        if da != db and da != 1 and db != 1:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
        out.append(max(da, db) if da and db else 0)
    return tuple(out)


def _check_matmul(a, b) -> None:
    """PyTorch's errors for matmul's operands, as its decomposition into mm/mv/bmm raises them."""
    if 0 < a.ndim <= 2 and 0 < b.ndim <= 2 and a.shape[-1] == b.shape[0]:
        return  # vectors and matrices whose inner sizes agree (the common case, first)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    k_a = a.shape[-1]
    k_b = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if a.ndim > 2 or b.ndim > 2:
        batch = _broadcast_batch(a.shape[:-2], b.shape[:-2])
    if k_a == k_b:
        return
    if a.ndim == 1 and b.ndim == 1:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{k_a}] and src [{k_b}] to have the same "
            f"number of elements, but got {k_a} and {k_b} elements respectively"
        )
    if b.ndim == 1:  # (..., n, k) @ (k,): an mv on the folded matrix
        rows = a.size // k_a if k_a else 0
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k_a}), vec ({k_b})")
    if a.ndim == 1 and b.ndim > 2:  # (k,) @ (..., k, m): an mv on bᵀ folded
        rows = b.size // b.shape[-2] if b.shape[-2] else 0
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k_b}), vec ({k_a})")
    if b.ndim == 2:  # (..., n, k) @ (k, m): an mm on the folded matrix
        sa = _dims((a.size // k_a if k_a else 0, k_a) if a.ndim > 1 else (1, k_a))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {_dims(b.shape)})")
    # batched: a bmm over the broadcast batch (as PyTorch when the matrix operand of a
    # matrix-times-batch product needs no gradient; when it does, PyTorch folds the batch
    # into an mm and reports that mm's shapes instead)
    n = 1
    for s in batch:
        n *= s
    raise RuntimeError(
        f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k_a}] but got: "
        f"[{n}, {k_b}]."
    )


def _same_dtype(args, params):
    """Matrix products do not promote: both operands must have one dtype, as in PyTorch."""
    a, b = args
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if da is not None and db is not None and da is not db:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{_dtypes.scalar_name(da)} and {_dtypes.scalar_name(db)}"
            )
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_dtypes.type_meta_name(da)} != {_dtypes.type_meta_name(db)}"
        )
    return da or db


def _matmul_dtype(args, params):
    """matmul's dtype check, worded as the product PyTorch reduces it to: a matrix-vector
    product (addmv), a batched one (bmm), else a matrix product (mm)."""
    a, b = args
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if da is None or db is None or da is db:
        return da or db
    if b.ndim == 1 and a.ndim >= 2:
        x, m = _dtypes.scalar_name(db), _dtypes.scalar_name(da)
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {x}, {m}, and {x}"
        )
    if b.ndim >= 3:
        try:  # (batches that do not broadcast: the product's shape error comes first)
            xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            return da
        raise RuntimeError(
            f"expected scalar type {_dtypes.scalar_name(da)} but found {_dtypes.scalar_name(db)}"
        )
    return _same_dtype(args, params)


def _matmul(a, b):
    """a @ b, with NumPy's (and PyTorch's) rules for 1-D and batched operands"""
    if (
        a.ndim == 1
        and b.ndim == 1
        and a.__class__ is ndarray
        and a.shape == b.shape
        and a.dtype.char in "fd"
    ):
        return a.dot(b)  # the same BLAS dot as matmul's, at half its call's cost
    _check_matmul(a, b)
    if a.ndim == 2 and b.ndim == 2:
        return _mm_arrays(a, b)  # (in the operand order the BLAS runs fastest)
    return xp.matmul(a, b)


def _mT(x):  # noqa: N802 - the math's name
    return shapes.transpose(x, dim0=-1, dim1=-2)


def _matmul_vjp_a(g, a, b, a_layout):
    """d(a @ b)/da contracted with g: g @ bᵀ, with 1-D operands promoted and squeezed back"""
    if b.ndim == 1:
        if a.ndim == 1:  # dot: g is 0-d
            return g * b
        return shapes.reshape(g, tuple(g.shape) + (1,)) * b  # (..., n, 1) * (k,) -> (..., n, k)
    if a.ndim == 1:  # (k,) @ (..., k, m) -> (..., m)
        return shapes.reshape(
            b @ shapes.reshape(g, tuple(g.shape) + (1,)), tuple(g.shape[:-1]) + (b.shape[-2],)
        )
    if a.ndim == 2 and b.ndim == 2:
        return _grad_a(g, b, a_layout)
    return g @ _mT(b)


def _matmul_vjp_b(g, a, b, b_layout):
    """d(a @ b)/db contracted with g: aᵀ @ g, with 1-D operands promoted and squeezed back"""
    if a.ndim == 1:
        if b.ndim == 1:
            return g * a
        return shapes.reshape(a, (a.shape[0], 1)) * shapes.reshape(
            g, tuple(g.shape[:-1]) + (1,) + g.shape[-1:]
        )
    if b.ndim == 1:  # (..., n, k) @ (k,) -> (..., n)
        return shapes.reshape(
            _mT(a) @ shapes.reshape(g, tuple(g.shape) + (1,)), tuple(g.shape[:-1]) + (a.shape[-1],)
        )
    if a.ndim == 2 and b.ndim == 2:
        return _grad_b(g, a, b_layout)
    return _mT(a) @ g


def _matmul_node(a, b) -> str:
    """The name of the node PyTorch's matmul leaves on its output.

    PyTorch decomposes matmul into mm, mv, bmm and views; chainrule records one node and
    names it after the last step of PyTorch's decomposition: a vector times a matrix ends
    in a squeeze, a matrix times a batch in a transposing copy (when the matrix needs a
    gradient, assumed here), other batched products in an unsafe view of bmm's result.
    """
    if a.ndim == 1 and b.ndim == 1:
        return "DotBackward0"
    if a.ndim == 2 and b.ndim == 2:
        return "MmBackward0"
    if a.ndim == 2 and b.ndim == 1:
        return "MvBackward0"
    if a.ndim == 1 and b.ndim == 2:
        return "SqueezeBackward4"
    if a.ndim == 2:
        return "CloneBackward0"
    return "UnsafeViewBackward0"


_MATMUL_VJPS = (_matmul_vjp_a, _matmul_vjp_b)

matmul = defop(
    "matmul",
    _matmul,
    args=("a", "b"),
    node=_matmul_node,
    dtypes=_matmul_dtype,
    vjp=_MATMUL_VJPS,
    jvp=(
        lambda t, b: matmul(t, b),  # d(AB) = dA B
        lambda t, a: matmul(a, t),  # d(AB) = A dB
    ),
    conventions=(
        "One node for every case; batched products are named as the last step of "
        "PyTorch's decomposition (UnsafeViewBackward0, CloneBackward0, SqueezeBackward4)."
    ),
    complex="holomorphic",
)


def _mm(a, b):
    """the product of two matrices"""
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_matmul(a, b)
    return _mm_arrays(a, b)


mm = defop(
    "mm",
    _mm,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(
        lambda g, b, a_layout: _grad_a(g, b, a_layout),  # d(AB)/dA: G Bᵀ
        lambda g, a, b_layout: _grad_b(g, a, b_layout),  # d(AB)/dB: Aᵀ G
    ),
    jvp=(
        lambda t, b: mm(t, b),  # d(AB) = dA B
        lambda t, a: mm(a, t),  # d(AB) = A dB
    ),
    complex="holomorphic",
)


def _bmm(a, b):
    """the products of two batches of matrices, batch by batch"""
    _check_batches(a, b)
    return xp.matmul(a, b)


def _check_batches(a, b) -> None:
    """PyTorch's errors for bmm's operands: two 3-D batches of multipliable matrices."""
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
        )


def _bmm_dtype(args, params):
    """bmm does not promote: after its shape checks, PyTorch's error for two dtypes."""
    a, b = args
    if a.dtype is not b.dtype:
        _check_batches(a, b)
        raise RuntimeError(
            f"expected scalar type {_dtypes.scalar_name(a.dtype)} but found "
            f"{_dtypes.scalar_name(b.dtype)}"
        )
    return a.dtype


bmm = defop(
    "bmm",
    _bmm,
    args=("a", "b"),
    dtypes=_bmm_dtype,
    vjp=(
        lambda g, b: bmm(g, _mT(b)),  # d(AᵢBᵢ)/dAᵢ: Gᵢ Bᵢᵀ
        lambda g, a: bmm(_mT(a), g),  # d(AᵢBᵢ)/dBᵢ: Aᵢᵀ Gᵢ
    ),
    jvp=(
        lambda t, b: bmm(t, b),  # d(AᵢBᵢ) = dAᵢ Bᵢ
        lambda t, a: bmm(a, t),  # d(AᵢBᵢ) = Aᵢ dBᵢ
    ),
    complex="holomorphic",
)


def _mv(a, v):
    """the product of a matrix and a vector"""
    _check_mv(a, v)
    return a @ v


def _check_mv(a, v) -> None:
    """PyTorch's errors for mv's operands: a matrix and a vector of its row length."""
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({_dims(a.shape)}), vec ({v.shape[0]})"
        )


def _mv_dtype(args, params):
    """mv does not promote: after its shape checks, PyTorch's error (that of addmv, into
    which it computes: the vector's dtype, the matrix's, the vector's)."""
    a, v = args
    if a.dtype is not v.dtype:
        _check_mv(a, v)
        va, vv = _dtypes.scalar_name(a.dtype), _dtypes.scalar_name(v.dtype)
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {vv}, {va}, and {vv}"
        )
    return a.dtype


mv = defop(
    "mv",
    _mv,
    args=("a", "v"),
    dtypes=_mv_dtype,
    vjp=(
        lambda g, v: shapes.reshape(g, (g.shape[0], 1)) * v,  # d(Av)/dA: g vᵀ
        lambda g, a: mv(_t(a), g),  # d(Av)/dv: Aᵀ g
    ),
    jvp=(
        lambda t, v: mv(t, v),  # d(Av) = dA v
        lambda t, a: mv(a, t),  # d(Av) = A dv
    ),
    complex="holomorphic",
)


def _dot(a, b):
    """Σᵢ aᵢ bᵢ for two vectors"""
    _check_vectors(a, b)
    return xp.asarray(xp.dot(a, b))


def _check_vectors(a, b) -> None:
    """PyTorch's errors for dot's and vdot's operands: two vectors of one length."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
            "respectively"
        )


dot = defop(
    "dot",
    _dot,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(
        lambda g, b: g * b,  # d(a·b)/da = b
        lambda g, a: g * a,  # d(a·b)/db = a
    ),
    jvp=(
        lambda t, b: dot(t, b),  # d(a·b) = da·b
        lambda t, a: dot(a, t),  # d(a·b) = a·db
    ),
    complex="holomorphic",
)


def _t(x):
    """a matrix's transpose: ``t`` (TBackward0, the node PyTorch's mm, mv and addr backward
    record; a one-input op, half the recording cost of ``transpose`` with its dims), a
    matrix's in one call (entries.view_entry)"""
    return _t_matrix(x)


# t of a matrix in one call (anything else goes to shapes.t itself)
_t_matrix = view_entry(shapes.t, shapes.t._class("TBackward0"), 2)


def _grad_a(g, b, a_layout):
    """G Bᵀ, the gradient of A in A @ B (matrices), in A's memory layout (see _grad_b)."""
    if not isinstance(g, Tensor):  # arrays (backward without create_graph): the product
        return (b @ g.T).T if a_layout == "F" else g @ b.T  # (B Gᵀ)ᵀ: see _grad_b
    return _t(mm(b, _t(g))) if a_layout == "F" else mm(g, _t(b))


def _grad_b(g, a, b_layout):
    """Aᵀ G, the gradient of B in A @ B (matrices), in B's memory layout: for a B stored
    transposed (a weight seen through ``.t()``, as ``linear`` does) it is computed as
    (Gᵀ A)ᵀ, so the transpose back to the weight is contiguous and its ``.grad`` needs no
    copy, as PyTorch's mm backward does. On tensors (create_graph) too, as PyTorch does:
    a weight's gradient in the other layout than the weight's makes every elementwise op
    between the two (the ``g * v`` of a Hessian-vector product) several times slower."""
    if not isinstance(g, Tensor):  # arrays: the product itself, no op called (same bits)
        return (g.T @ a).T if b_layout == "F" else a.T @ g
    return _t(mm(_t(g), a)) if b_layout == "F" else mm(_t(a), g)


def _scaled(x, alpha):
    """alpha · x, and x itself when alpha is 1 (no pass over the array)"""
    return x if alpha == 1 else x * alpha


def _vdot(a, b):
    """Σᵢ conj(aᵢ) bᵢ for two vectors (real vectors: their dot product)"""
    _check_vectors(a, b)
    return xp.asarray(xp.vdot(a, b))


def _vdot_vjp_a(g, b):
    """∂/∂a of Σ conj(aᵢ) bᵢ, antilinear in a: conj(g) b (real values: g b)"""
    return (complex_parts.conj_physical(g) if complex_parts.is_complex_value(g) else g) * b


vdot = defop(
    "vdot",
    _vdot,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(
        _vdot_vjp_a,
        lambda g, a: g * a,  # d(ā·b)/db = ā, so the gradient is g a (conj(ā) = a)
    ),
    jvp=(
        lambda t, b: vdot(t, b),  # d(ā·b) = conj(da)·b
        lambda t, a: vdot(a, t),  # d(ā·b) = ā·db
    ),
    complex="wirtinger",
)

# ----- beta · input + alpha · product --------------------------------------------------------


def _all_same_dtype(args, params):
    """input and both factors of one dtype (addmm, addbmm do not promote); PyTorch compares
    the input with mat2 first, then mat1 with mat2."""
    x, a, b = (arg.dtype for arg in args)
    for name, d in (("self", x), ("mat1", a)):
        if d is not b:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got {_dtypes.scalar_name(d)} "
                f"and {_dtypes.scalar_name(b)}"
            )
    return x


def _addmv_dtype(args, params):
    """addmv does not promote: PyTorch names all three dtypes."""
    dtypes = [arg.dtype for arg in args]
    if any(d is not dtypes[0] for d in dtypes):
        x, a, v = (_dtypes.scalar_name(d) for d in dtypes)
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {x}, {a}, and {v}"
        )
    return dtypes[0]


def _baddbmm_dtype(args, params):
    """baddbmm does not promote: PyTorch's two messages (batches differing from an input of
    the first batch's dtype, any other mix)."""
    x, a, b = (arg.dtype for arg in args)
    if x is a and a is not b:
        raise RuntimeError(
            f"expected scalar type {_dtypes.scalar_name(a)} but found {_dtypes.scalar_name(b)}"
        )
    if not (x is a is b):
        names = [_dtypes.type_meta_name(d) for d in (x, a, b)]
        raise RuntimeError(
            "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}".format(*names)
        )
    return x


def _check_expands(shape: tuple, target: tuple, dtype) -> None:
    """PyTorch's errors where an input of ``shape`` does not expand to ``target``: the first
    dim from the right that neither matches nor is 1."""
    if len(shape) > len(target):
        kind = _dtypes.from_numpy_dtype(dtype).legacy_type
        raise RuntimeError(
            f"expand({kind}{{{list(shape)}}}, size={list(target)}): the number of sizes "
            f"provided ({len(target)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({len(shape)})"
        )
    for i in range(1, len(shape) + 1):
        s, p = shape[-i], target[-i]
        if s != 1 and s != p:
            raise RuntimeError(
                f"The expanded size of the tensor ({p}) must match the existing size ({s}) at "
                f"non-singleton dimension {len(target) - i}.  Target sizes: {list(target)}.  "
                f"Tensor sizes: {list(shape)}"
            )


def _scaled_sum(x, product, beta, alpha):
    """beta · x + alpha · product, with x broadcast to the product's shape; beta = 0
    ignores x (its nan and inf too), as in PyTorch"""
    _check_expands(x.shape, product.shape, x.dtype)
    if alpha == 1 and beta == 1 and type(product) is ndarray:
        product += x  # the product is a fresh array: x added into it, no third array
        return product
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled
    return (x if beta == 1 else x * beta) + scaled


def _beta_g(g, beta):
    """d/dx (beta·x + alpha·product) = beta (summed back to x's shape by the engine)"""
    return g * 0 if beta == 0 else _scaled(g, beta)


def _addmm(x, a, b, beta=1, alpha=1):
    """beta · x + alpha · (a @ b) for matrices a, b"""
    return _scaled_sum(x, _mm(a, b), beta, alpha)


addmm = defop(
    "addmm",
    _addmm,
    args=("x", "a", "b"),
    dtypes=_all_same_dtype,
    vjp=(
        _beta_g,
        lambda g, b, a_layout, alpha: _scaled(_grad_a(g, b, a_layout), alpha),  # d/dA: alpha G Bᵀ
        lambda g, a, b_layout, alpha: _scaled(_grad_b(g, a, b_layout), alpha),  # d/dB: alpha Aᵀ G
    ),
    jvp=(
        lambda t, beta: t * beta,  # d/dx = beta
        lambda t, b, alpha: mm(t, b) * alpha,  # alpha dA B
        lambda t, a, alpha: mm(a, t) * alpha,  # alpha A dB
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
    complex="holomorphic",
)


def _addmv(x, a, v, beta=1, alpha=1):
    """beta · x + alpha · (a @ v) for a matrix a and a vector v"""
    return _scaled_sum(x, _mv(a, v), beta, alpha)


addmv = defop(
    "addmv",
    _addmv,
    args=("x", "a", "v"),
    dtypes=_addmv_dtype,
    vjp=(
        _beta_g,
        lambda g, v, alpha: shapes.reshape(g, (g.shape[0], 1)) * v * alpha,  # d/dA: alpha g vᵀ
        lambda g, a, alpha: mv(_t(a), g) * alpha,  # d/dv: alpha Aᵀ g
    ),
    jvp=(
        lambda t, beta: t * beta,  # d/dx = beta
        lambda t, v, alpha: mv(t, v) * alpha,  # alpha dA v
        lambda t, a, alpha: mv(a, t) * alpha,  # alpha A dv
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
    complex="holomorphic",
)


def _outer(u, v):
    if u.ndim != 1 or v.ndim != 1:
        name, bad = ("vec1", u) if u.ndim != 1 else ("vec2", v)
        raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {bad.ndim}-D")
    return u[:, None] * v


def _addr(x, u, v, beta=1, alpha=1):
    """beta · x + alpha · u vᵀ for vectors u, v"""
    return _scaled_sum(x, _outer(u, v), beta, alpha)


addr = defop(
    "addr",
    _addr,
    args=("x", "u", "v"),
    dtypes=PROMOTE,
    vjp=(
        _beta_g,
        lambda g, v, alpha: _scaled(mv(g, v), alpha),  # d/du: alpha G v
        lambda g, u, alpha: _scaled(mv(_t(g), u), alpha),  # d/dv: alpha Gᵀ u
    ),
    jvp=(
        lambda t, beta: t * beta,  # d/dx = beta
        lambda t, v, alpha: shapes.reshape(t, (t.shape[0], 1)) * v * alpha,  # alpha du vᵀ
        lambda t, u, alpha: shapes.reshape(u, (u.shape[0], 1)) * t * alpha,  # alpha u dvᵀ
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
    complex="holomorphic",
)


def _baddbmm(x, a, b, beta=1, alpha=1):
    """beta · x + alpha · (aᵢ @ bᵢ) for batches of matrices"""
    return _scaled_sum(x, _bmm(a, b), beta, alpha)


baddbmm = defop(
    "baddbmm",
    _baddbmm,
    args=("x", "a", "b"),
    dtypes=_baddbmm_dtype,
    vjp=(
        _beta_g,
        lambda g, b, alpha: bmm(g, _mT(b)) * alpha,  # d/dAᵢ: alpha Gᵢ Bᵢᵀ
        lambda g, a, alpha: bmm(_mT(a), g) * alpha,  # d/dBᵢ: alpha Aᵢᵀ Gᵢ
    ),
    jvp=(
        lambda t, beta: t * beta,  # d/dx = beta
        lambda t, b, alpha: bmm(t, b) * alpha,  # alpha dAᵢ Bᵢ
        lambda t, a, alpha: bmm(a, t) * alpha,  # alpha Aᵢ dBᵢ
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
    complex="holomorphic",
)


def _addbmm(x, a, b, beta=1, alpha=1):
    """beta · x + alpha · Σᵢ aᵢ @ bᵢ"""
    return _scaled_sum(x, _bmm(a, b).sum(axis=0), beta, alpha)


def _batch_of(g, n):
    """g repeated over a new leading batch dim of size n."""
    return shapes.expand(shapes.reshape(g, (1,) + tuple(g.shape)), shape=(n,) + tuple(g.shape))


addbmm = defop(
    "addbmm",
    _addbmm,
    args=("x", "a", "b"),
    dtypes=_all_same_dtype,
    vjp=(
        _beta_g,
        lambda g, b, alpha: bmm(_batch_of(g, b.shape[0]), _mT(b)) * alpha,  # d/dAᵢ: alpha G Bᵢᵀ
        lambda g, a, alpha: bmm(_mT(a), _batch_of(g, a.shape[0])) * alpha,  # d/dBᵢ: alpha Aᵢᵀ G
    ),
    jvp=(
        lambda t, beta: t * beta,  # d/dx = beta
        lambda t, b, alpha: bmm(t, b).sum(0) * alpha,  # alpha Σᵢ dAᵢ Bᵢ
        lambda t, a, alpha: bmm(a, t).sum(0) * alpha,  # alpha Σᵢ Aᵢ dBᵢ
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
    complex="holomorphic",
)


# ----- the bilinear form of nn.functional.bilinear --------------------------------------------------


def _trilinear(x1, weight, x2):
    """y[n, o] = Σ_ij x1[n, i]·weight[o, i, j]·x2[n, j]: one bilinear form per output o"""
    partial = xp.tensordot(x1, weight, axes=([1], [1]))  # (n, o, j)
    return xp.matmul(partial, x2[:, :, None])[:, :, 0]


trilinear = defop(
    "trilinear",
    _trilinear,
    args=("x1", "weight", "x2"),
    node="TrilinearBackward0",
    vjp=(
        lambda g, weight, x2: einsum("no,oij,nj->ni", g, weight, x2),  # ∂/∂x1 = Σ_o g_o W_o x2
        lambda g, x1, x2: einsum("no,ni,nj->oij", g, x1, x2),  # ∂/∂W_o = Σ_n g_o x1 x2ᵀ
        lambda g, x1, weight: einsum("no,ni,oij->nj", g, x1, weight),  # ∂/∂x2 = Σ_o g_o W_oᵀ x1
    ),
    jvp=(
        lambda t, weight, x2: einsum("ni,oij,nj->no", t, weight, x2),  # J t = tᵀ W_o x2
        lambda t, x1, x2: einsum("ni,oij,nj->no", x1, t, x2),  # J t = x1ᵀ T_o x2
        lambda t, x1, weight: einsum("ni,oij,nj->no", x1, weight, t),  # J t = x1ᵀ W_o t
    ),
    complex="holomorphic",
)


def inner(input, other, *, out=None):
    """Σ over the last dims: input[..., k] * other[..., k] for every pair of leading indices."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, dims=([-1], [-1]))


def tensordot(a, b, dims=2, out=None):
    """Σ over the paired dims (the last ``dims`` of a with the first of b, or explicit lists)."""
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a = list(range(-dims, 0))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                f"{da} and second has size {b.shape[db]} in dim {db}"
            )
    dims_a, dims_b = reductions.wrap_dims(dims_a, a.ndim), reductions.wrap_dims(dims_b, b.ndim)
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    size = math.prod(a.shape[d] for d in dims_a)
    left = shapes.reshape(
        inverses._permute(a, free_a + dims_a), (math.prod(a.shape[d] for d in free_a), size)
    )
    right = shapes.reshape(
        inverses._permute(b, dims_b + free_b), (size, math.prod(b.shape[d] for d in free_b))
    )
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return shapes.reshape(mm(left, right), shape)


def vecdot(x, y, *, dim=-1, out=None):
    """Σ conj(x) * y over dim, broadcasting (x's conjugate for complex x, as PyTorch)."""
    if x.dtype is not y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_dtypes.scalar_name(x.dtype)} and y of type {_dtypes.scalar_name(y.dtype)} "
            "instead"
        )
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
            f"{_dtypes.scalar_name(x.dtype)}"
        )
    if x.dtype.is_complex:
        x = complex_parts.conj_physical(x)
    return reductions.sum(x * y, dim=dim)


# ----- einsum -------------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation: str, operands) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels (ellipsis dims as labels of their own) and the output's."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ell_dims = 0
    for i, (term, op) in enumerate(zip(terms, operands)):
        named = len(term.replace("...", ""))
        if "..." in term:
            ell_dims = max(ell_dims, op.ndim - named)
        elif named != op.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({op.ndim}) for operand {i} and no ellipsis was given"
            )
    ell = [f"…{j}" for j in range(ell_dims)]  # labels for the ellipsis dims, right-aligned

    def labels(term: str, ndim: int) -> list[str]:
        if "..." not in term:
            return list(term)
        before, after = term.split("...")
        k = ndim - len(before) - len(after)
        return list(before) + ell[ell_dims - k :] + list(after)

    ins = [labels(t, op.ndim) for t, op in zip(terms, operands)]
    for lab in ins:
        for c in lab:
            if not c.startswith("…") and c not in _LETTERS:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {eq.index(c)} in "
                    "the equation string, subscripts must be in [a-zA-Z]"
                )
    if arrow:
        out = labels(rhs, len(rhs.replace("...", "")) + ell_dims)
    else:
        counts: dict[str, int] = {}
        for lab in ins:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and not c.startswith("…"))
    return ins, out


def _einsum_diagonals(x, lab: list[str]):
    """x with repeated labels reduced to their diagonal (each label once)."""
    while len(set(lab)) != len(lab):
        c = next(c for c in lab if lab.count(c) > 1)
        i = lab.index(c)
        j = lab.index(c, i + 1)
        if x.shape[i] != x.shape[j]:
            raise RuntimeError(
                f"einsum(): subscript {c} is repeated for operand but the sizes don't match, "
                f"{x.shape[i]} != {x.shape[j]}"
            )
        x = matrices.diagonal(x, offset=0, dim1=i, dim2=j)
        lab = [c2 for k, c2 in enumerate(lab) if k not in (i, j)] + [c]
    return x, lab


def _einsum_sum_out(x, lab: list[str], keep: set):
    """x summed over the labels not in ``keep``."""
    drop = [i for i, c in enumerate(lab) if c not in keep]
    if not drop:
        return x, lab
    return reductions.sum(x, dim=tuple(drop)), [c for c in lab if c in keep]


def _einsum_pair(a, lab_a: list[str], b, lab_b: list[str], keep: set):
    """The contraction of two operands over their shared labels not in ``keep``, by matmul.
    As in PyTorch, a pair with labels to sum (a batched matmul there) needs one dtype, and
    a pair without (an elementwise product there) promotes."""
    batch = [c for c in lab_a if c in lab_b and c in keep]
    summed = [c for c in lab_a if c in lab_b and c not in keep]
    if summed and a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtypes.scalar_name(a.dtype)} but found "
            f"{_dtypes.scalar_name(b.dtype)}"
        )
    if summed and a.dtype is _dtypes.bool:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if a.dtype is not b.dtype:  # (by dtype alone: PyTorch has given every operand all dims)
        common = _dtypes.promote_types(a.dtype, b.dtype)
        a, b = a.to(common), b.to(common)
    left = [c for c in lab_a if c not in lab_b]
    right = [c for c in lab_b if c not in lab_a]
    size = {}
    for x, lab in ((a, lab_a), (b, lab_b)):
        for c, s in zip(lab, x.shape):
            if c in size and size[c] != s and 1 not in (size[c], s):
                raise RuntimeError(
                    f"einsum(): operands do not broadcast with remapped shapes "
                    f"(original->remapped): subscript {c} has sizes {size[c]} and {s}"
                )
            size[c] = max(size.get(c, s), s)
    for c in summed:  # a contracted label of size 1 on one side: sum the other side first
        ia, ib = lab_a.index(c), lab_b.index(c)
        if a.shape[ia] != b.shape[ib]:
            if a.shape[ia] == 1:
                b = reductions.sum(b, dim=ib, keepdim=True)
            else:
                a = reductions.sum(a, dim=ia, keepdim=True)
            size[c] = 1
    a2 = inverses._permute(a, [lab_a.index(c) for c in batch + left + summed])
    b2 = inverses._permute(b, [lab_b.index(c) for c in batch + summed + right])
    nb = len(batch)
    k = math.prod(size[c] for c in summed)
    a2 = shapes.reshape(a2, tuple(a2.shape[:nb]) + (math.prod(size[c] for c in left), k))
    b2 = shapes.reshape(b2, tuple(b2.shape[:nb]) + (k, math.prod(size[c] for c in right)))
    out = matmul(a2, b2)
    shape = tuple(out.shape[:nb]) + tuple(size[c] for c in left) + tuple(size[c] for c in right)
    return shapes.reshape(out, shape), batch + left + right


def _sublist_label(n) -> str:
    if n is Ellipsis:
        return "..."
    if not 0 <= n < 52:
        raise ValueError(
            "einsum(): subscript in subscript list is not within the valid range [0, 52)"
        )
    return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)


def _sublist_equation(args: tuple) -> tuple:
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as ``("AB,BC->AC", (a, b))``: labels 0-25
    are A-Z, 26-51 a-z, Ellipsis is ..., as in PyTorch."""
    operands = args[0::2][: len(args) // 2]
    subs = ["".join(_sublist_label(n) for n in lab) for lab in args[1::2]]
    if len(args) % 2:  # an output sublist closes the arguments
        operands = args[0:-1:2]
        return ",".join(subs) + "->" + "".join(_sublist_label(n) for n in args[-1]), operands
    return ",".join(subs), operands


def einsum(equation, *operands):
    """Einstein summation: products of the operands summed over the labels not in the output."""
    if not isinstance(equation, str):  # sublist format: op1, sublist1, op2, ..., [out]
        equation, operands = _sublist_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ins, out = _parse_einsum(equation, operands)
    if len(set(out)) != len(out):
        raise RuntimeError("einsum(): output subscript appears more than once in the output")
    every = {c for lab in ins for c in lab}
    for c in out:
        if c not in every:
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any input "
                "operand"
            )
    seen: dict[str, int] = {}
    for i, (x, lab) in enumerate(zip(operands, ins)):
        for c, size in zip(lab, x.shape):
            if c.startswith("…"):
                continue
            if seen.setdefault(c, size) != size and 1 not in (size, seen[c]):
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {size} for operand {i} which does not "
                    f"broadcast with previously seen size {seen[c]}"
                )
            seen[c] = max(seen[c], size)
    xs = []
    for x, lab in zip(operands, ins):
        x, lab = _einsum_diagonals(x, lab)
        xs.append((x, lab))
    # contract left to right; a label is kept while the output or a later operand needs it
    for i in range(len(xs)):
        later = {c for _, lab in xs[i + 1 :] for c in lab} | set(out)
        if i == 0:
            acc, acc_lab = _einsum_sum_out(*xs[0], later)
            continue
        x, lab = _einsum_sum_out(*xs[i], later | set(acc_lab))
        acc, acc_lab = _einsum_sum_out(acc, acc_lab, later | set(lab))
        acc, acc_lab = _einsum_pair(acc, acc_lab, x, lab, later)
    acc, acc_lab = _einsum_sum_out(acc, acc_lab, set(out))
    return inverses._permute(acc, [acc_lab.index(c) for c in out])
