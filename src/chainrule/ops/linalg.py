"""Matrix products: matmul, mm, bmm, mv, dot, vdot, and the fused beta · input + alpha ·
product ops (addmm, addmv, addr, baddbmm, addbmm). The VJPs of C = A @ B are dA = G @ Bᵀ
and dB = Aᵀ @ G (with 1-D operands promoted to matrices and squeezed back), and the JVP is
dC = dA @ B + A @ dB. The rest of linear algebra is in linalg_fns.py.
"""

from __future__ import annotations

from .._backend import xp
from ..autograd.recording import defop
from .shape import reshape, transpose


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


_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


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
        return reshape(
            _mT(a) @ reshape(g, tuple(g.shape) + (1,)), tuple(g.shape[:-1]) + (a.shape[-1],)
        )
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
    dtypes=_same_dtype,
    vjp=_MATMUL_VJPS,
    jvp=(lambda t, b: matmul(t, b), lambda t, a: matmul(a, t)),  # d(AB) = dA B + A dB
    conventions=(
        "One node for every case; batched products are named as the last step of "
        "PyTorch's decomposition (UnsafeViewBackward0, CloneBackward0, SqueezeBackward4)."
    ),
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
    "mm",
    _mm,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(
        lambda g, b: g @ t_(b),  # d(AB)/dA: G Bᵀ
        lambda g, a: t_(a) @ g,  # d(AB)/dB: Aᵀ G
    ),
    jvp=(lambda t, b: mm(t, b), lambda t, a: mm(a, t)),
)


def _bmm(a, b):
    """the products of two batches of matrices, batch by batch"""
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
        )
    return xp.matmul(a, b)


bmm = defop(
    "bmm",
    _bmm,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(
        lambda g, b: bmm(g, _mT(b)),  # d(AᵢBᵢ)/dAᵢ: Gᵢ Bᵢᵀ
        lambda g, a: bmm(_mT(a), g),  # d(AᵢBᵢ)/dBᵢ: Aᵢᵀ Gᵢ
    ),
    jvp=(lambda t, b: bmm(t, b), lambda t, a: bmm(a, t)),
)


def _mv(a, v):
    """the product of a matrix and a vector"""
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({_dims(a.shape)}), vec ({v.shape[0]})"
        )
    return a @ v


mv = defop(
    "mv",
    _mv,
    args=("a", "v"),
    dtypes=_same_dtype,
    vjp=(
        lambda g, v: reshape(g, (g.shape[0], 1)) * v,  # d(Av)/dA: g vᵀ
        lambda g, a: mv(t_(a), g),  # d(Av)/dv: Aᵀ g
    ),
    jvp=(lambda t, v: mv(t, v), lambda t, a: mv(a, t)),
)


def _dot(a, b):
    """Σᵢ aᵢ bᵢ for two vectors"""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
            "respectively"
        )
    return xp.asarray(xp.dot(a, b))


dot = defop(
    "dot",
    _dot,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(lambda g, b: g * b, lambda g, a: g * a),  # d(a·b)/da = b, d(a·b)/db = a
    jvp=(lambda t, b: dot(t, b), lambda t, a: dot(a, t)),
)


def t_(x):
    return transpose(x, dim0=0, dim1=1)


vdot = defop(
    "vdot",
    _dot,
    args=("a", "b"),
    dtypes=_same_dtype,
    vjp=(lambda g, b: g * b, lambda g, a: g * a),  # real tensors: no conjugation, as dot
    jvp=(lambda t, b: vdot(t, b), lambda t, a: vdot(a, t)),
)


# ----- beta · input + alpha · product --------------------------------------------------------


def _all_same_dtype(args, params):
    """input, and both factors, of one dtype (PyTorch's addmm family does not promote)."""
    dtypes = [a.dtype for a in args if hasattr(a, "dtype")]
    for d in dtypes[1:]:
        if d is not dtypes[0]:
            raise RuntimeError(
                f"self and mat2 must have the same dtype, but got {_NAMES[dtypes[0].name]} and "
                f"{_NAMES[d.name]}"
            )
    return dtypes[0]


def _scaled_sum(x, product, beta, alpha):
    """beta · x + alpha · product, with x broadcast to the product's shape; beta = 0
    ignores x (its nan and inf too), as in PyTorch"""
    try:
        shape = xp.broadcast_shapes(x.shape, product.shape)
    except ValueError:
        shape = None
    if shape != product.shape:
        raise RuntimeError(
            f"The expanded size of the tensor ({product.shape[-1]}) must match the existing size "
            f"({x.shape[-1]}) at non-singleton dimension {product.ndim - 1}.  Target sizes: "
            f"{list(product.shape)}.  Tensor sizes: {list(x.shape)}"
        )
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled
    return (x if beta == 1 else x * beta) + scaled


def _beta_g(g, beta):
    """d/dx of beta · x: beta, broadcast (summed back to x's shape by the engine)"""
    return g * 0 if beta == 0 else g * beta


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
        lambda g, b, alpha: mm(g, t_(b)) * alpha,  # alpha G Bᵀ
        lambda g, a, alpha: mm(t_(a), g) * alpha,  # alpha Aᵀ G
    ),
    jvp=(
        lambda t, beta: t * beta,
        lambda t, b, alpha: mm(t, b) * alpha,
        lambda t, a, alpha: mm(a, t) * alpha,
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
)


def _addmv(x, a, v, beta=1, alpha=1):
    """beta · x + alpha · (a @ v) for a matrix a and a vector v"""
    return _scaled_sum(x, _mv(a, v), beta, alpha)


addmv = defop(
    "addmv",
    _addmv,
    args=("x", "a", "v"),
    dtypes=_all_same_dtype,
    vjp=(
        _beta_g,
        lambda g, v, alpha: reshape(g, (g.shape[0], 1)) * v * alpha,  # alpha g vᵀ
        lambda g, a, alpha: mv(t_(a), g) * alpha,  # alpha Aᵀ g
    ),
    jvp=(
        lambda t, beta: t * beta,
        lambda t, v, alpha: mv(t, v) * alpha,
        lambda t, a, alpha: mv(a, t) * alpha,
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
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
    dtypes=_all_same_dtype,
    vjp=(
        _beta_g,
        lambda g, v, alpha: mv(g, v) * alpha,  # alpha G v
        lambda g, u, alpha: mv(t_(g), u) * alpha,  # alpha Gᵀ u
    ),
    jvp=(
        lambda t, beta: t * beta,
        lambda t, v, alpha: reshape(t, (t.shape[0], 1)) * v * alpha,
        lambda t, u, alpha: reshape(u, (u.shape[0], 1)) * t * alpha,
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
)


def _baddbmm(x, a, b, beta=1, alpha=1):
    """beta · x + alpha · (aᵢ @ bᵢ) for batches of matrices"""
    return _scaled_sum(x, _bmm(a, b), beta, alpha)


baddbmm = defop(
    "baddbmm",
    _baddbmm,
    args=("x", "a", "b"),
    dtypes=_all_same_dtype,
    vjp=(
        _beta_g,
        lambda g, b, alpha: bmm(g, _mT(b)) * alpha,
        lambda g, a, alpha: bmm(_mT(a), g) * alpha,
    ),
    jvp=(
        lambda t, beta: t * beta,
        lambda t, b, alpha: bmm(t, b) * alpha,
        lambda t, a, alpha: bmm(a, t) * alpha,
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
)


def _addbmm(x, a, b, beta=1, alpha=1):
    """beta · x + alpha · Σᵢ aᵢ @ bᵢ"""
    return _scaled_sum(x, _bmm(a, b).sum(axis=0), beta, alpha)


def _batch_of(g, n):
    """g repeated over a new leading batch dim of size n."""
    from .shape import expand

    return expand(reshape(g, (1,) + tuple(g.shape)), shape=(n,) + tuple(g.shape))


addbmm = defop(
    "addbmm",
    _addbmm,
    args=("x", "a", "b"),
    dtypes=_all_same_dtype,
    vjp=(
        _beta_g,
        lambda g, b, alpha: bmm(_batch_of(g, b.shape[0]), _mT(b)) * alpha,  # alpha G Bᵢᵀ
        lambda g, a, alpha: bmm(_mT(a), _batch_of(g, a.shape[0])) * alpha,  # alpha Aᵢᵀ G
    ),
    jvp=(
        lambda t, beta: t * beta,
        lambda t, b, alpha: bmm(t, b).sum(0) * alpha,
        lambda t, a, alpha: bmm(a, t).sum(0) * alpha,
    ),
    conventions="With beta = 0 the input is ignored: no nan or inf from it, a zero gradient.",
)
