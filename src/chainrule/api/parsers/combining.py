"""Functions built from shape ops, with PyTorch's signatures and errors: broadcast_to,
broadcast_tensors, broadcast_shapes, meshgrid, block_diag, cartesian_prod, combinations,
kron, diff, rot90, vander, repeat_interleave.

Each is a composition of differentiable ops (expand, pad, cat, stack, narrow, index_select,
flip, transpose, cumprod), so its gradient, double backward and forward mode come from
theirs; where PyTorch has one fused node (``BlockDiagBackward0``, ``Rot90Backward0``) the
graph here is the composition's."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

from ... import _dtypes
from ..._backend import on_device_of, to_host, xp
from ..._tensor import Size, Tensor, _make
from ...ops import logical
from .padding import pad
from .shapes import _dim, cat, stack


def _tensors(args: tuple) -> list:
    """``f(a, b)`` or ``f([a, b])``."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


# ----- broadcasting -------------------------------------------------------------------------


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """The shape tensors of the given shapes broadcast to (PyTorch's rules)."""
    sizes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    nd = max((len(s) for s in sizes), default=0)
    result = [1] * nd
    for i, s in enumerate(sizes):
        for k, n in enumerate(s):
            if n < 0:
                raise RuntimeError(
                    f"Trying to create tensor with negative dimension {n}: {list(s)}"
                )
            j = nd - len(s) + k
            if n != result[j] and n != 1:
                if result[j] != 1:
                    raise RuntimeError(
                        f"Attempting to broadcast a dimension of length {n} at {k - len(s)}! "
                        f"Mismatching argument at index {i} had "
                        f"{s if isinstance(shapes[i], int) else shapes[i]!r}; but expected "
                        f"shape should be broadcastable to {result}"
                    )
                result[j] = n
            elif n == 0 and result[j] == 1:
                result[j] = 0
    return Size(result)


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    """input expanded (a view) to ``size`` (-1 keeps a dim)."""
    from .shapes import expanded_shape

    size = [int(n) for n in size]
    expanded_shape(input, size)  # (PyTorch's errors)
    return input.expand(*size)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (views); a tensor already of
    that shape comes back itself, no expand recorded (as in PyTorch)."""
    tensors = tuple(_tensors(tensors))
    shape: tuple = ()
    for t in tensors:
        a, b = shape, tuple(t.shape)
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(
                    f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                    f"non-singleton dimension {k}"
                )
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors)


def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: output i holds tensor i along dim i ('ij'), or with the first two
    dims swapped ('xy'); each a view of its input expanded."""
    tensors = _tensors(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t!r}"
            )
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    places = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        places[0], places[1] = 1, 0
    shape = [0] * len(tensors)
    for t, p in zip(tensors, places):
        shape[p] = t.numel()
    out = []
    for t, p in zip(tensors, places):
        view = [1] * len(tensors)
        view[p] = -1
        out.append(t.reshape(view).expand(*shape))
    return tuple(out)


# ----- products of tensors -------------------------------------------------------------------


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d, 1-D as a row, or 2-D) as blocks along a diagonal, zeros elsewhere."""
    from ..._promotion import result_type

    blocks = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.ndim} dimensions"
            )
        blocks.append(t.reshape(1, -1) if t.ndim < 2 else t)
    dt = result_type(blocks) if blocks else _dtypes.get_default_dtype()
    cols = sum(b.shape[1] for b in blocks)
    rows, offset = [], 0
    for b in blocks:
        c = b.shape[1]
        rows.append(pad(b.to(dt), (offset, cols - offset - c)))
        offset += c
    if not rows:
        return _make(xp.zeros((0, 0), dtype=dt.np), dt)
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element of each 1-D tensor, as rows (a 1-D tensor alone
    comes back as it is)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The r-element combinations of a 1-D tensor's elements, as rows, in
    ``itertools.combinations`` order (``combinations_with_replacement`` with replacement)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    with on_device_of(input._data):  # the indices where the input is
        if r == 0:
            return _make(xp.zeros((0,), dtype=input._dtype.np), input._dtype)
        pick = (
            itertools.combinations_with_replacement if with_replacement else itertools.combinations
        )
        idx = xp.array(list(pick(range(input.shape[0]), r)), dtype=xp.int64).reshape(-1, r)
        picks = [_make(idx[:, j].copy(), _dtypes.int64) for j in range(r)]
    cols = [input.index_select(0, p) for p in picks]
    return stack(cols, 1)


def kron(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The Kronecker product: blocks ``input[i] * other``, over every dim."""
    nd = max(input.ndim, other.ndim)
    a = (1,) * (nd - input.ndim) + tuple(input.shape)
    b = (1,) * (nd - other.ndim) + tuple(other.shape)
    x = input.reshape([v for n in a for v in (n, 1)])
    y = other.reshape([v for n in b for v in (1, n)])
    return (x * y).reshape([m * n for m, n in zip(a, b)])


# ----- differences and rotations -------------------------------------------------------------


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
    *,
    out: Any = None,
) -> Tensor:
    """The n-th forward difference along dim (``x[i+1] - x[i]``, logical xor for bools),
    after joining prepend and append."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim(dim, input.ndim)
    if any(p is not None and p.ndim != input.ndim for p in (prepend, append)):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:  # (PyTorch's 0-th difference: the input alone, prepend and append unused)
        return input.clone()
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = logical.logical_xor(hi, lo) if x.dtype is _dtypes.bool else hi - lo
    return x


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """input rotated by k quarter turns in the plane of dims, from dims[0] toward dims[1]."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _dim(dims[0], input.ndim), _dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip(d0, d1)
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of a 1-D x: columns x^(N-1), ..., x, 1 (reversed if
    ``increasing``), as cumulative products so that x = 0 has its gradient."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _dtypes.promote_types(x.dtype, _dtypes.int64)
    with on_device_of(x._data):  # the first column where x is
        ones = _make(xp.ones((x.shape[0], 1), dtype=dt.np), dt)
    if n <= 1:
        return ones[:, :n]
    powers = cat([ones, x.to(dt).unsqueeze(1).expand(-1, n - 1)], 1).cumprod(1)
    return powers if increasing else powers.flip(1)


# ----- repeating ---------------------------------------------------------------------------


def _host_counts(counts: Tensor) -> list[int]:
    """The repeat counts as Python ints: CuPy's ``repeat`` takes host counts only (the
    result's size is known on the host)."""
    return to_host(counts._data).reshape(-1).tolist()


def repeat_interleave(
    input: Tensor,
    repeats: Tensor | int | None = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """Each element (slice along dim; of the flattened input when dim is None) repeated
    ``repeats`` times in place; ``repeat_interleave(r)`` alone repeats 0, 1, ... r[i] times."""
    if repeats is None:  # repeat_interleave(repeats)
        counts = input
        if counts.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts._dtype not in (_dtypes.int32, _dtypes.int64):  # (as the two-argument form)
            raise _dtypes.not_implemented("repeat_interleave_cpu", counts._dtype)
        if counts.numel() and counts._data.min() < 0:
            raise RuntimeError("repeats can not be negative")
        with on_device_of(counts._data):  # the result where the counts are
            idx = xp.repeat(xp.arange(counts.numel()), _host_counts(counts))
            return _make(idx.astype(counts._dtype.np), counts._dtype)
    if dim is None:
        input = input.flatten()
        d = 0
    else:
        d = _dim(dim, max(input.ndim, 1))
    size = input.shape[d] if input.ndim else 1
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats._dtype._category != 1:
            raise _dtypes.not_implemented("repeat_interleave_cpu", repeats._dtype)
        r = _host_counts(repeats)
        if len(r) == 1:
            r = r * size
        elif len(r) != size:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {len(r)} and input.size({d}) = {size}"
            )
        if r and min(r) < 0:
            raise RuntimeError("repeats can not be negative")
    else:
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        r = int(repeats)
    with on_device_of(input._data):  # the index where the input is
        index = _make(xp.repeat(xp.arange(size), r).astype(xp.int64), _dtypes.int64)
    if input.ndim == 0:
        input = input.reshape(1)
    return input.index_select(d, index)
