"""The norms of ``chainrule.linalg`` and ``torch.norm``'s out=: vector_norm, matrix_norm and
norm, their dtype checks and PyTorch's way of taking a matrix norm (the ±1 and ±inf norms
as a column-sum reduction then a max or min, the ±2 and nuclear norms from the singular
values)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ... import _dtypes
from ..._backend import on_device_of, xp
from ..._dtypes import dtype as DType
from ..._tensor import Tensor, wrap
from ...autograd.recording import np_dtype
from ...ops import reductions, shapes
from ...ops.linalg import factorizations, inverses
from ..args import dim_arg
from ..variants import out_dtype, write_out


def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """(Σ |x|^ord)^(1/ord) over dim (all entries when None), computed in ``dtype`` when given
    (real for real x, complex for complex x, and no narrower than x's: PyTorch's errors)."""
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    if out is not None:
        return _vector_norm_into(out, (x, ord, dim, keepdim), dtype)
    if dtype is not None:
        x = vector_norm_input(x, dtype)
    return reductions.vector_norm(x, ord=ord, dim=dim_arg(dim), keepdim=keepdim)


def _vector_norm_into(out: Any, args: tuple, dtype: Any) -> Tensor:
    """vector_norm's out=: a kernel's (no autograd), out of exactly the result's dtype."""

    def computed(*args: Any, **kwargs: Any) -> Tensor:
        return vector_norm(*args, **kwargs)

    return write_out("linalg_vector_norm", out_dtype(computed), args, {"dtype": dtype}, out)


def _composite_into(name: str, result: Tensor, out: Any) -> Tensor:
    """out= of a PyTorch composite (linalg.matrix_norm, linalg.norm): out of exactly the
    result's dtype, resized to its shape, gets a copy of it (recorded, as PyTorch's
    CopyBackwards, where the result requires grad)."""
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{name.replace('.', '_')}(): argument 'out' must be Tensor, not {type(out).__name__}"
        )
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"{name} expected out tensor dtype {result._dtype.scalar_name} but got: "
            f"{out._dtype.scalar_name}"
        )
    if not result.requires_grad:
        return write_out(name, lambda: result, (), {}, out)
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(result.shape)
    return out.copy_(result)


def torch_norm_into(input: Tensor, p: Any, dim: Any, keepdim: bool, dtype: Any, out: Any) -> Tensor:  # noqa: A002
    """torch.norm(..., out=out): linalg.vector_norm's out=, or linalg.matrix_norm's for a
    string p other than 'fro' over at most two dims (as torch.norm dispatches)."""
    dims = (dim,) if isinstance(dim, int) else None if dim is None else tuple(dim)
    if isinstance(p, str) and not (p == "fro" and (dims is None or len(dims) <= 2)):
        every = tuple(range(input.ndim)) if dims is None else dims
        return matrix_norm(input, p, every, keepdim, dtype=dtype, out=out)
    order = 2 if p is None or isinstance(p, str) else p
    return vector_norm(input, order, dims, keepdim, dtype=dtype, out=out)


def vector_norm_input(x: Tensor, dtype: Any) -> Tensor:
    """x in the dtype linalg.vector_norm (and torch.norm) is asked to compute in."""
    _check_norm_input("linalg.vector_norm", x, low_precision=True)
    return norm_in_dtype("linalg.vector_norm", x, dtype)


def _check_norm_input(name: str, x: Tensor, low_precision: bool) -> None:
    """A norm's input is floating or complex (float16 too where ``low_precision``)."""
    if x._dtype._category < 2:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{x._dtype.scalar_name}"
        )
    if not low_precision and x._dtype is _dtypes.float16:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got Half")


def norm_in_dtype(name: str, x: Tensor, dtype: Any) -> Tensor:
    """x cast to the ``dtype`` a norm is asked to compute in, after PyTorch's checks: a
    floating or complex dtype, complex exactly where x is (the norm of complex values is
    computed on them, its result is real), and one x converts to without narrowing."""
    dt = _dtypes.to_dtype(dtype)
    if dt._category < 2:
        raise RuntimeError(
            f"{name}: dtype should be floating point or complex, but got {dt.scalar_name}"
        )
    kind = "complex" if x._dtype._category == 3 else "real"
    if (dt._category == 3) != (kind == "complex"):
        raise RuntimeError(
            f"{name}: dtype should be {kind} for {kind} inputs, but got {dt.scalar_name}"
        )
    if _dtypes.promote_types(x._dtype, dt) is not dt:
        raise RuntimeError(
            f"{name}: the dtype of the input ({x._dtype.scalar_name}) should be convertible "
            f"without narrowing to the specified dtype ({dt.scalar_name})"
        )
    return x.to(dt)


def _last_two(A: Tensor, dim: Sequence[int]) -> tuple:
    """A with the matrix dims ``dim`` moved last, and those dims normalized."""
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d = reductions.wrap_dims(list(dim), A.ndim)
    if len(d) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    if d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d[0]}, {d[1]})")
    rest = [i for i in range(A.ndim) if i not in d]
    return inverses._permute(A, rest + d), d


def _keep(out: Tensor, dims: list, keepdim: bool) -> Tensor:
    if not keepdim:
        return out
    shape = list(out.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return shapes.reshape(out, tuple(shape))


def matrix_norm(
    A: Tensor,
    ord: float | str = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """The matrix norm: 'fro', 'nuc', ±1 (column sums), ±2 (singular values), ±inf (row sums),
    computed in ``dtype`` when given (checked as vector_norm's)."""
    if out is not None:
        return _composite_into(
            "linalg.matrix_norm", matrix_norm(A, ord, dim, keepdim, dtype=dtype), out
        )
    if isinstance(ord, complex):
        raise RuntimeError(
            "linalg.matrix_norm: Expected a non-complex scalar as the order of norm."
        )
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    # (float16 only where no SVD is needed: 'fro', ±1, ±inf)
    _check_norm_input("linalg.matrix_norm", A, low_precision=ord not in ("nuc", 2, -2))
    if len(dim) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}"
        )
    if dtype is not None:
        d = reductions.wrap_dims(list(dim), A.ndim)
        if d[0] == d[1]:
            raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d[0]}, {d[1]})")
        A = norm_in_dtype("linalg.matrix_norm", A, dtype)
    if ord == "fro":
        d = reductions.wrap_dims(list(dim), A.ndim)
        return reductions.vector_norm(A, ord=2, dim=tuple(d), keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        moved, d = _last_two(A, dim)
        s = factorizations.svdvals(moved)
        out = reductions.sum(s, dim=-1) if ord == "nuc" else _max_min(s, -1, False, ord > 0)
        return _keep(out, d, keepdim)
    # ±1: the largest (smallest) column sum, over dim[0] then dim[1]; ±inf: of the rows
    first, then = reductions.wrap_dims(list(dim), A.ndim)
    if first == then:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({first}, {then})")
    if abs(ord) == math.inf:
        first, then = then, first
    if not keepdim and first < then:
        then -= 1
    sums = reductions.vector_norm(A, ord=1, dim=(first,), keepdim=keepdim)
    return _max_min(sums, then, keepdim, ord > 0)


def _max_min(x: Tensor, dim: int, keepdim: bool, largest: bool) -> Tensor:
    """amax (``largest``) or amin of x over ``dim``, as matrix_norm takes them: over an empty
    dim the largest is 0 (PyTorch's zeros, with no graph) and the smallest PyTorch's error."""
    if x.shape[dim] == 0:
        if not largest:
            raise IndexError(f"amin(): Expected reduction dim {dim} to have non-zero size.")
        shape = list(x.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        with on_device_of(x._data):
            return wrap(xp.zeros(tuple(shape), dtype=np_dtype(x)))
    return (reductions.amax if largest else reductions.amin)(x, dim=(dim,), keepdim=keepdim)


def norm(
    A: Tensor,
    ord: float | str | None = None,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
) -> Tensor:  # noqa: A002
    """A vector norm (1-D input, an int dim) or a matrix norm (2-D input, a 2-tuple dim)."""
    if out is not None:
        return _composite_into("linalg.norm", norm(A, ord, dim, keepdim, dtype=dtype), out)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
        )
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.ndim}D."
        )
    if dim is None and ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if dim is None:
        matrix = A.ndim == 2 or isinstance(ord, str)
    else:
        matrix = len(dim) == 2
    if matrix:
        return matrix_norm(
            A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype
        )
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Order {ord} not supported.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
