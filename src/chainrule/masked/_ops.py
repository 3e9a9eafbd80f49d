"""The masked reductions and normalizations of ``torch.masked``, composed of chainrule's ops.

Each op first replaces the masked-out elements of ``input`` by the identity of its reduction
(``torch.where(mask, input, identity)``: 0 for sum, 1 for prod, -inf for amax and softmax,
+inf for amin and softmin, NaN for median), then applies the plain op. Autograd therefore
needs no rule of its own: ``where`` sends no gradient to the masked-out elements. A slice
with no element left gets the value of the reduction on identities only (sum 0, amax -inf,
softmax NaN), or NaN where the result is a quotient by the count (mean, var, std).

A MaskedTensor input (maskedtensor.py) brings its own mask, which fills its masked-out
elements in place of ``mask``; ``mask`` still gives the counts of mean, var and std (with
``mask=None`` every element counts), as in PyTorch. The result is a plain tensor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import chainrule as torch  # (absolute: under `chainrule run` it is also torch)
from chainrule import Tensor
from chainrule._dtypes import dtype as DType

DimOrDims = int | Sequence[int] | None

_PROMOTED_TO_INT64 = ("uint8", "bool", "int8", "int16", "int32")


def _canonical_dim(dim: DimOrDims, ndim: int) -> tuple[int, ...]:
    """``dim`` as a sorted tuple of non-negative dims; None and () are all dims."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return tuple(range(ndim))
    rank = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if not -rank <= d < rank:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}],"
                f" but got {d})"
            )
        dims.append(d % rank)
    return tuple(sorted(dims))


def _input_mask(input: Tensor, mask: Tensor) -> Tensor:
    """``mask`` broadcast to the shape of ``input``, as booleans."""
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher "
                "than of the input)"
            )
        mask = torch.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=torch.bool)


def _identity(op: str, input: Tensor, ord: float = 2.0) -> Tensor:
    """The value x with ``op(x, y) == y``, as a 0-d tensor of the dtype of ``input``."""
    dtype = input.dtype
    if op == "median":  # (nanmedian skips NaN)
        return torch.tensor(math.nan, dtype=dtype if dtype.is_floating_point else torch.float)
    if op == "norm":
        return torch.tensor(math.inf if ord == -math.inf else 0, dtype=dtype)
    if op in ("sum", "prod"):
        return torch.tensor(0 if op == "sum" else 1, dtype=dtype)
    largest = op == "amin"
    if dtype.is_floating_point or (dtype.is_complex and op == "logsumexp"):
        return torch.tensor(math.inf if largest else -math.inf, dtype=dtype)
    if dtype.is_signed or dtype == torch.uint8:
        info = torch.iinfo(dtype)
        return torch.tensor(info.max if largest else info.min, dtype=dtype)
    raise NotImplementedError(f"identity of {op} on {dtype} input")


def _masked_input(op: str, input: Tensor, mask: Tensor | None, ord: float = 2.0) -> Tensor:
    """``input`` with its masked-out elements replaced by the identity of ``op``. A
    MaskedTensor brings its own mask, which replaces ``mask`` (as in PyTorch)."""
    if getattr(type(input), "_is_masked_tensor", False):
        input, mask = input.get_data(), input.get_mask()  # type: ignore[attr-defined]
    if mask is None:
        return input
    return torch.where(_input_mask(input, mask), input, _identity(op, input, ord))


def _sum_dtype(input: Tensor, dtype: DType | None) -> DType:
    """The dtype of a masked sum or prod: ``dtype``, else that of ``input`` with small
    integers and bool promoted to int64."""
    if dtype is not None:
        return dtype
    return torch.int64 if str(input.dtype).split(".")[-1] in _PROMOTED_TO_INT64 else input.dtype


def sum(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The sum of the masked-in elements over ``dim`` (0 where none is masked in)."""
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    return torch.sum(_masked_input("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The product of the masked-in elements over ``dim`` (1 where none is masked in)."""
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    result = _masked_input("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):  # one dim at a time, the last first, so the others keep place
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(
    input: Tensor, dim: int, *, dtype: DType | None = None, mask: Tensor | None = None
) -> Tensor:
    """The running sum along ``dim``, masked-out elements counted as 0."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return torch.cumsum(_masked_input("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


def cumprod(
    input: Tensor, dim: int, *, dtype: DType | None = None, mask: Tensor | None = None
) -> Tensor:
    """The running product along ``dim``, masked-out elements counted as 1."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return torch.cumprod(_masked_input("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def amax(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The largest masked-in element over ``dim`` (-inf, or the dtype's least, if none)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    return torch.amax(_masked_input("amax", input, mask), dims, bool(keepdim)).to(dtype=dtype)


def amin(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The smallest masked-in element over ``dim`` (inf, or the dtype's largest, if none)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    return torch.amin(_masked_input("amin", input, mask), dims, bool(keepdim)).to(dtype=dtype)


def argmax(
    input: Tensor,
    dim: int | None = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The index of the largest masked-in element along ``dim``, in the dtype of ``input``
    (as PyTorch gives it)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input("amax", input, mask)
    return torch.argmax(masked, dim, bool(keepdim)).to(dtype=dtype)


def argmin(
    input: Tensor,
    dim: int | None = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The index of the smallest masked-in element along ``dim``, in the dtype of
    ``input`` (as PyTorch gives it)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input("amin", input, mask)
    return torch.argmin(masked, dim, bool(keepdim)).to(dtype=dtype)


def _count(input: Tensor, mask: Tensor | None, dim: DimOrDims, keepdim: bool) -> Tensor:
    """How many elements are masked in over ``dim`` (int64)."""
    if mask is None:
        ones = torch.ones(input.shape, dtype=torch.int64)
        return sum(ones, dim, keepdim=keepdim)
    return _input_mask(input, mask).sum(dim=dim, keepdim=bool(keepdim))


def mean(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The mean of the masked-in elements over ``dim`` (NaN where none is masked in)."""
    source = "Input" if dtype is None else "Optional"
    dtype = input.dtype if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either "
            f"a floating point or complex dtype. Got: {dtype}"
        )
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    return total / _count(input, mask, dim, bool(keepdim))


def median(
    input: Tensor,
    dim: int = -1,
    *,
    keepdim: bool = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The median of the masked-in elements along ``dim`` (NaN where none is masked in;
    ValueError for such a slice of an integer input)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=torch.float)
    output = torch.nanmedian(_masked_input("median", input, mask), d, keepdim).values
    if is_float:
        return output
    if torch.isnan(output).any():
        raise ValueError(
            "masked median expects no fully masked out rows if dtype is not floating point"
        )
    return output.to(dtype=dtype)


def logsumexp(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """log(sum(exp(x))) over the masked-in elements x (-inf where none is masked in)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    masked = _masked_input("logsumexp", input, mask)
    return torch.logsumexp(masked, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(
    input: Tensor,
    other: Tensor,
    *,
    dtype: DType | None = None,
    input_mask: Tensor | None = None,
    other_mask: Tensor | None = None,
) -> Tensor:
    """log(exp(input) + exp(other)), masked-out elements of each counted as -inf."""
    dtype = input.dtype if dtype is None else dtype
    a = _masked_input("logaddexp", input, input_mask)
    b = _masked_input("logaddexp", other, other_mask)
    return torch.logaddexp(a, b).to(dtype=dtype)


def norm(
    input: Tensor,
    ord: float | None = 2.0,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The vector ``ord``-norm of the masked-in elements over ``dim``."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input("norm", input, mask, ord)  # type: ignore[arg-type]
    dims = _canonical_dim(dim, input.ndim)
    return torch.linalg.vector_norm(masked, ord, dims, bool(keepdim), dtype=dtype)


def _real(dtype: DType) -> DType:
    """The real dtype of the parts of a complex ``dtype``; a real one itself."""
    names = {"complex64": torch.float32, "complex128": torch.float64}
    return names.get(str(dtype).split(".")[-1], dtype)


def _std_var(
    input: Tensor,
    dim: DimOrDims,
    unbiased: bool | None,
    correction: float | None,
    keepdim: bool | None,
    dtype: DType | None,
    mask: Tensor | None,
) -> Tensor:
    """The masked variance: sum((x - mean)^2) / max(count - correction, 0)."""
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is None:
        correction = 1.0 if unbiased is None else float(unbiased)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = torch.float32
    compute_dtype = dtype if dtype.is_floating_point or dtype.is_complex else torch.float32
    count = _count(input, mask, dim, True)
    sample_mean = torch.divide(sum(input, dim, keepdim=True, dtype=dtype, mask=mask), count)
    x = torch.subtract(input, sample_mean)
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=mask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = torch.subtract(count.to(_real(compute_dtype)), correction)
        count = torch.maximum(count, count.new_zeros([]))
    return torch.divide(total, count).to(dtype=dtype)


def var(
    input: Tensor,
    dim: DimOrDims = None,
    unbiased: bool | None = None,
    *,
    correction: float | None = None,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The variance of the masked-in elements over ``dim``, divided by count - correction
    (NaN where none is masked in)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask)


def std(
    input: Tensor,
    dim: DimOrDims = None,
    unbiased: bool | None = None,
    *,
    correction: int | None = None,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The square root of :func:`var`."""
    return torch.sqrt(_std_var(input, dim, unbiased, correction, keepdim, dtype, mask))


def softmax(
    input: Tensor, dim: int, *, dtype: DType | None = None, mask: Tensor | None = None
) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` over the masked-in x; 0 at the masked-out ones
    (NaN in a slice with none masked in)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return torch.nn.functional.softmax(_masked_input("amax", input, mask), d, dtype=dtype)


def log_softmax(
    input: Tensor, dim: int, *, dtype: DType | None = None, mask: Tensor | None = None
) -> Tensor:
    """The log of :func:`softmax` (-inf at the masked-out elements)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _masked_input("amax", input, mask)
    return torch.nn.functional.log_softmax(masked, d, dtype=dtype)


def softmin(
    input: Tensor, dim: int, *, dtype: DType | None = None, mask: Tensor | None = None
) -> Tensor:
    """:func:`softmax` of -input (0 at the masked-out elements)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return torch.nn.functional.softmin(_masked_input("amin", input, mask), d, dtype=dtype)


def normalize(
    input: Tensor,
    ord: float,
    dim: int,
    *,
    eps: float = 1e-12,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """input / max(norm(input, ord, dim), eps) over the masked-in elements; 0 at the
    masked-out ones."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input("sum", input, mask)
    size = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return torch.divide(masked, torch.maximum(size, size.new_full([], eps)))
