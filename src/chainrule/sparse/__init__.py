"""``torch.sparse``: sparse COO tensors' functions (``mm``, ``addmm``, ``sum``, ``softmax``,
``log_softmax``) and ``check_sparse_tensor_invariants``.

The sparse tensors themselves (``torch.sparse_coo_tensor``, ``Tensor.to_sparse``) are in
``_tensor.py``, every op on them in ``_ops.py``, imported on first use (see its docstring for how
they work and where they differ from PyTorch's)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "addmm",
    "as_sparse_gradcheck",
    "check_sparse_tensor_invariants",
    "log_softmax",
    "mm",
    "sampled_addmm",
    "softmax",
    "spdiags",
    "spsolve",
    "sum",
]


def _impl() -> Any:
    from . import _ops

    return _ops


def _run(name: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """``function``, or the compressed layouts' form of it (_compressed.py) when given one."""
    from . import _tensor

    return _tensor._gated(name, function)(*args, **kwargs)


def _checks() -> list:
    from . import _tensor

    return _tensor.CHECK_INVARIANTS


def mm(mat1: Any, mat2: Any, reduce: str = "sum") -> Any:
    """Sparse @ dense (dense result) or sparse @ sparse (sparse result); both
    differentiable: d/dmat2 = mat1^T g, d/dmat1 = (g mat2^T) at mat1's indices."""
    if reduce != "sum":  # (mean, amax, amin: sparse CSR @ dense)
        from ._mm_reduce import mm_reduce

        return mm_reduce(mat1, mat2, reduce)
    return _run("mm", _impl().mm, mat1, mat2)


def addmm(mat: Any, mat1: Any, mat2: Any, *, beta: float = 1.0, alpha: float = 1.0) -> Any:
    """beta * mat + alpha * (mat1 @ mat2), mat1 sparse."""
    return _run("addmm", _impl().addmm, mat, mat1, mat2, beta=beta, alpha=alpha)


def sampled_addmm(
    input: Any, mat1: Any, mat2: Any, *, beta: float = 1.0, alpha: float = 1.0, out: Any = None
) -> Any:
    """beta * input + alpha * (mat1 @ mat2) at the elements of ``input`` (CSR) only."""
    from . import _compressed

    return _compressed.sampled_addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def sum(input: Any, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A001 - PyTorch's name
    """The sum over ``dim`` (all: a dense scalar); a sparse tensor while sparse dims remain."""
    return _run("sparse_sum", _impl().sparse_sum, input, dim, dtype)


def softmax(input: Any, dim: int, *, dtype: Any = None) -> Any:
    """Softmax over the specified elements along ``dim``: the unspecified ones are -inf."""
    return _run("softmax", _impl().softmax, input, dim, dtype)


def log_softmax(input: Any, dim: int, *, dtype: Any = None) -> Any:
    return _run("log_softmax", _impl().log_softmax, input, dim, dtype)


class check_sparse_tensor_invariants:  # noqa: N801 - PyTorch's spelling
    """Whether sparse tensors' indices are checked when made (a context manager and a
    decorator, with ``enable``, ``disable`` and ``is_enabled`` as PyTorch's)."""

    @staticmethod
    def is_enabled() -> bool:
        return _checks()[0]

    @staticmethod
    def enable() -> None:
        _checks()[0] = True

    @staticmethod
    def disable() -> None:
        _checks()[0] = False

    def __init__(self, enable: bool = True) -> None:
        self.state = enable
        self.saved = False

    def __enter__(self) -> None:
        self.saved = self.is_enabled()
        _checks()[0] = self.state

    def __exit__(self, *exc: Any) -> None:
        _checks()[0] = self.saved

    def __call__(self, func: Any) -> Any:
        import functools

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return run


def spdiags(diagonals: Any, offsets: Any, shape: tuple, layout: Any = None) -> Any:
    """The sparse matrix of ``shape`` with diagonal ``offsets[d]`` taken from row d of
    ``diagonals``: element (i, i + k) is diagonals[d, i + k] (the column's entry), where
    that column is inside the matrix and the row of diagonals (differentiable: a gather)."""
    import chainrule as cr

    from .._backend import xp

    rows, cols, picks = [], [], []
    length = diagonals.shape[1]
    for d, k in enumerate(int(k) for k in offsets.tolist()):
        col = xp.arange(max(k, 0), min(shape[1], shape[0] + k, length))
        rows.append(col - k)
        cols.append(col)
        picks.append(d * length + col)
    rows, cols, picks = (xp.concatenate(x).astype(xp.int64) for x in (rows, cols, picks))
    values = diagonals.reshape(-1)[cr.tensor(picks, dtype=cr.int64)]
    out = cr.sparse_coo_tensor(
        cr.tensor([rows, cols], dtype=cr.int64), values, tuple(shape), check_invariants=False
    )
    if layout is None or layout is cr.sparse_coo:
        return out
    return out.to_sparse(layout=layout)


def spsolve(A: Any, B: Any, *, left: bool = True) -> Any:
    """PyTorch's CPU build has no kernel for it (CUDA's cuDSS only): its error."""
    from ._coo import not_on_sparse

    raise not_on_sparse("_spsolve", "SparseCsrCPU")


def as_sparse_gradcheck(gradcheck: Any) -> Any:
    """``gradcheck`` for functions of sparse tensors: each sparse input is checked through
    its values (the function rebuilds it), each sparse output compared densified."""
    import functools

    import chainrule as cr

    @functools.wraps(gradcheck)
    def gradcheck_with_sparse_support(func: Any, inputs: Any, **kwargs: Any) -> Any:
        inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
        sparse = [isinstance(x, cr.Tensor) and x.layout is not cr.strided for x in inputs]
        flat = tuple(
            x.values().detach().requires_grad_(x.requires_grad) if s else x
            for x, s in zip(inputs, sparse)
        )

        def rebuilt(*values: Any) -> Any:
            args = [_with(x, v) if s else v for x, v, s in zip(inputs, values, sparse)]
            out = func(*args)
            if isinstance(out, (tuple, list)):
                return type(out)(_dense(o) for o in out)
            return _dense(out)

        return gradcheck(rebuilt, flat, **kwargs)

    return gradcheck_with_sparse_support


def _with(x: Any, values: Any) -> Any:
    from ._tensor import _with_values

    return _with_values(x, values)


def _dense(x: Any) -> Any:
    import chainrule as cr

    return x.to_dense() if isinstance(x, cr.Tensor) and x.layout is not cr.strided else x


_WARNED: set = set()


def _once(form: str) -> None:
    """PyTorch's deprecation warning for a legacy constructor's form, once a process."""
    if form in _WARNED:
        return
    _WARNED.add(form)
    import warnings

    args = "indices, values, shape" if form == "indices" else "shape"
    warnings.warn(
        f"torch.sparse.SparseTensor({args}, *, device=) is deprecated.  Please use "
        f"torch.sparse_coo_tensor({args}, dtype=, device=).",
        UserWarning,
        stacklevel=3,
    )


def _legacy(dtype_name: str, name: str) -> Any:
    """``torch.sparse.FloatTensor(indices, values, size)`` (or ``(*size)``: empty), the
    legacy constructors of sparse COO tensors of one dtype."""

    def make(*args: Any, **kwargs: Any) -> Any:
        import chainrule as cr

        dtype = getattr(cr, dtype_name)
        if args and isinstance(args[0], cr.Tensor):
            _once("indices")
            indices, values = args[0], args[1]
            size = args[2] if len(args) > 2 else None
            return cr.sparse_coo_tensor(indices, values.to(dtype), size, check_invariants=False)
        _once("shape")
        empty = cr.zeros((0,), dtype=dtype)
        shape = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else args
        return cr.sparse_coo_tensor(
            cr.zeros((len(shape), 0), dtype=cr.int64), empty, shape, check_invariants=False
        )

    make.__name__ = make.__qualname__ = name
    return make


FloatTensor = _legacy("float32", "FloatTensor")
DoubleTensor = _legacy("float64", "DoubleTensor")
HalfTensor = _legacy("float16", "HalfTensor")
BFloat16Tensor = _legacy("bfloat16", "BFloat16Tensor")
LongTensor = _legacy("int64", "LongTensor")
IntTensor = _legacy("int32", "IntTensor")
ShortTensor = _legacy("int16", "ShortTensor")
CharTensor = _legacy("int8", "CharTensor")
ByteTensor = _legacy("uint8", "ByteTensor")
