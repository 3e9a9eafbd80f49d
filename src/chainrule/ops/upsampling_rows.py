"""Integer upsampling (linear or cubic taps at scale p) as sums of shifted rows: the fast
path of ``windows.gather_axes`` and ``windows.scatter_axes`` for such tap maps.

Away from the edges, output o = k·p + r reads x[k + shift] with one weight per tap and
phase r. Each tap's reads for a phase are then x shifted by whole rows (x laid out as rows
of the dims after the axis), so each product and sum runs over all of x at once, where a
gather's NumPy calls step through rows as short as an image's. A product x·w is the same
wherever it is used, so each weight's is made once (linear taps at scale 2: two products
for four terms). The outputs that read otherwise (at the edges) come out wrong there, and
are made again column by column, as are the inputs whose sums differ. The sums are NumPy's,
term for term, so the results are the gathers' bits: the forward's as np.sum's over the
taps (from +0: ``_from_zero``), the transpose's as add.reduceat's (``_first_and_rest``).
Bilinear at scale 2 on (16, 32, 16, 16): forward 3.4 -> 1.1 ms, backward 5.3 -> 1.6 ms
(PyTorch 1.3 and 2.9)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from .._backend import ndarray, xp


class _Upsampling(NamedTuple):
    """A tap map (T, p·n) that upsamples by p (``phases``): output o = k·p + r reads
    x[k + shift[t, r]] with weight scale[t, r] (shift and scale (T, p)) for each tap t
    wherever steady[k, r] (n, p)."""

    shift: Any
    scale: Any
    steady: Any
    # the unsteady outputs: (o, where its taps read in ``reads``, their weights)
    outputs: tuple
    reads: Any
    # the inputs that take otherwise in the transpose: (j, where the values it takes are in
    # ``takes``, in sum_into's order, their weights)
    inputs: tuple
    takes: Any


def phased(x: Any) -> bool:
    """Whether x is a host array of float32 or float64 (in float16, add.reduceat adds in
    float32, rounding once: not ``scatter_phases``'s order), not empty."""
    return x.__class__ is ndarray and x.dtype.char in "fd" and x.size > 0


# Each unsteady output or input costs a few NumPy calls of its own: with more than this
# many the gathers are as fast (measured at scales 3, 5 and 6, whose weights differ in the
# last bits from row to row: scale 3 on 16 rows, 14 unsteady outputs, forward and backward
# 1.6 and 2.3 times faster; on 256 rows, 194, the forward 1.2 times slower).
_UNSTEADY = 32


_PLANS: dict = {}  # what phases found per tap map (a few hundred kept)


def phases(index: Any, weight: Any, n: int) -> _Upsampling | None:
    """The taps (index, weight), (T, p·n), as an integer upsampling by p (at least half the
    outputs steady, at most _UNSTEADY not); None otherwise, or for one tap or beyond 8
    (where NumPy's sum over the taps stops adding in turn)."""
    if weight is None or index.__class__ is not ndarray or index.ndim != 2 or not n:
        return None
    taps, size = index.shape
    if not size or size % n or not 2 <= taps <= 8:
        return None
    key = ("phases", n, index.shape, index.dtype.str, index.tobytes(), weight.tobytes())
    found = _PLANS.get(key)
    if found is None:
        found = _upsampling(index, weight, n) or False
        if len(_PLANS) < 256:
            _PLANS[key] = found
    return found or None


def _upsampling(index: Any, weight: Any, n: int) -> _Upsampling | None:
    """``phases``'s finding, made: each tap's shift and weight in each phase are those of
    the middle row of outputs; the unsteady outputs and inputs are listed with their taps."""
    taps, size = index.shape
    p = size // n
    shifted = index.reshape(taps, n, p) - xp.arange(n)[:, None]
    weights = weight.reshape(taps, n, p)
    shift, scale = shifted[:, n // 2], weights[:, n // 2]
    steady = ((shifted == shift[:, None]) & (weights == scale[:, None])).all(axis=0)
    wrong = xp.flatnonzero(~steady.reshape(-1))
    if 2 * len(wrong) > steady.size or len(wrong) > _UNSTEADY:
        return None
    reads, at = xp.unique(index[:, wrong], return_inverse=True)
    at = at.reshape(taps, len(wrong))
    outputs = tuple((int(o), at[:, m], weight[:, o]) for m, o in enumerate(wrong))
    inputs = _unsteady_inputs(shift, steady, index[:, wrong])
    if len(inputs) > _UNSTEADY:
        return None
    flat = index.reshape(-1)  # position t·size + o: sum_into's order
    sources = [xp.flatnonzero(flat == j) for j in inputs]
    takes, at = xp.unique(
        xp.concatenate([xp.zeros(0, xp.intp), *sources]) % size, return_inverse=True
    )
    parts = xp.split(at.reshape(-1), xp.cumsum([len(s) for s in sources])[:-1].astype(xp.intp))
    inputs = tuple(
        (int(j), part, weight.reshape(-1)[source])
        for j, source, part in zip(inputs, sources, parts)
    )
    return _Upsampling(shift, scale, steady, outputs, reads, inputs, takes)


def _unsteady_inputs(shift: Any, steady: Any, wrong: Any) -> Any:
    """The inputs that do not take exactly one value from each tap and phase, all of steady
    outputs (``wrong``: the index of the others)."""
    n = len(steady)
    j = xp.arange(n)
    ok = xp.ones(n, dtype=bool)
    for (_, r), c in xp.ndenumerate(shift):
        k = j - c
        inside = (k >= 0) & (k < n)
        ok &= inside
        ok[inside] &= steady[k[inside], r]
    ok[wrong.reshape(-1)] = False
    return xp.flatnonzero(~ok)


def _row_range(rows: int, shifts: Any) -> tuple[int, int]:
    """[start, stop): the rows i of ``rows`` that can read row i + c for every shift c."""
    return max(0, -int(min(shifts))), rows - max(0, int(max(shifts)))


def _in_turn(parts: Sequence, out: Any, acc: Any = None) -> Any:
    """out = ((parts[0] + parts[1]) + parts[2]) + ... (at least two parts; acc, shaped as
    out, holds the partial sums beyond two)."""
    if len(parts) == 2:
        return xp.add(parts[0], parts[1], out=out)
    xp.add(parts[0], parts[1], out=acc)
    for part in parts[2:-1]:
        xp.add(acc, part, out=acc)
    return xp.add(acc, parts[-1], out=out)


def _from_zero(part: Any) -> Any:
    """part + 0 (in place): -0 made +0, as a term is that NumPy's sum adds first (to its
    identity, +0)."""
    return xp.add(part, 0.0, out=part)


def _first_and_rest(parts: Sequence, out: Any) -> Any:
    """out = parts[0] + ((parts[1] + parts[2]) + ...): add.reduceat's sum of up to 8 (beyond
    8, add.reduceat's own; 0 for none)."""
    if len(parts) > 8:
        return xp.add.reduceat(xp.stack(parts, axis=1), [0], axis=1, out=out[:, None])
    if len(parts) < 2:
        out[...] = parts[0] if parts else 0
        return out
    rest = parts[1]
    if len(parts) > 2:
        rest = _in_turn(parts[1:], xp.empty_like(rest), xp.empty_like(rest))
    return xp.add(parts[0], rest, out=out)


def _taken(columns: Any, index: Any) -> Any:
    """``columns`` (outer, n, inner) at ``index``, as a contiguous (len(index), outer, inner):
    each column's products and sums then run along it (NumPy steps through a column of
    short rows at several times the cost)."""
    return xp.ascontiguousarray(xp.take(columns, index, axis=1).transpose(1, 0, 2))


# The phases work through x in blocks of whole rows of about this many elements (of x, or
# of g in the transpose), so that a block's products and outputs stay in the core's cache
# (scale 2 on (16, 32, 16, 16): 10% off the forward, 25% off the backward).
_PHASE_BLOCK = 1 << 16


def _in_blocks(a: Any, axis: int, length: int, block: Any, plan: _Upsampling) -> tuple:
    """``block(columns, plan, out)`` over blocks of a's leading dims (about _PHASE_BLOCK
    elements each), a as (outer, n, inner) ``columns`` around ``axis``, into a new array of
    ``length`` along it: (columns, the new array, its (outer, length, inner) view)."""
    columns = xp.ascontiguousarray(a).reshape(math.prod(a.shape[:axis]), a.shape[axis], -1)
    out = xp.empty(a.shape[:axis] + (length,) + a.shape[axis + 1 :], dtype=a.dtype)
    view = out.reshape(len(columns), length, -1)
    step = max(1, _PHASE_BLOCK // max(1, columns.shape[1] * columns.shape[2]))
    for start in range(0, len(columns), step):
        block(columns[start : start + step], plan, view[start : start + step])
    return columns, out, view


def gather_phases(x: Any, axis: int, plan: _Upsampling) -> Any:
    """``_gather`` along ``axis`` for an integer upsampling: block by block of x's leading
    dims, its phases (``_gather_block``); then the unsteady outputs column by column."""
    length = x.shape[axis] * plan.shift.shape[1]
    columns, out, outputs = _in_blocks(x, axis, length, _gather_block, plan)
    if plan.outputs:
        read = _taken(columns, plan.reads)
        for o, at, weight in plan.outputs:
            parts = [read[i] * w for i, w in zip(at, weight.astype(x.dtype))]
            _in_turn([_from_zero(parts[0]), *parts[1:]], outputs[:, o], xp.empty_like(parts[0]))
    return out


def _gather_block(columns: Any, plan: _Upsampling, out: Any) -> None:
    """Into ``out`` (outer, n·p, inner), ``columns`` (outer, n, inner) upsampled, but for
    the unsteady outputs: per phase r, the products of x's rows with each tap's weight,
    shifted by shift[:, r] rows, added in turn (as ``_gather`` adds) into every p-th output."""
    taps, p = plan.shift.shape
    rows = columns.reshape(-1, columns.shape[2])
    phases = out.reshape(len(rows), p, -1)
    scale = plan.scale.astype(columns.dtype)
    bits = scale.view(f"u{scale.itemsize}").tolist()  # (a weight's product by its bits)
    products = {}
    for b, s in zip(itertools.chain(*bits), scale.flat):
        if b not in products:
            products[b] = xp.multiply(rows, s)
    for b in set(bits[0]):  # each phase's first term
        _from_zero(products[b])
    acc = xp.empty_like(rows) if taps > 2 else None
    for r in range(p):
        start, stop = _row_range(len(rows), plan.shift[:, r])
        parts = [products[bits[t][r]][start + c : stop + c] for t, c in enumerate(plan.shift[:, r])]
        _in_turn(parts, phases[start:stop, r], None if acc is None else acc[start:stop])


def scatter_phases(g: Any, axis: int, plan: _Upsampling) -> Any:
    """The transpose of ``gather_phases``, as ``sum_into`` sums: block by block of g's
    leading dims, its phases' sums (``_scatter_block``); then the inputs that take
    otherwise column by column."""
    length = g.shape[axis] // plan.shift.shape[1]
    columns, out, inputs = _in_blocks(g, axis, length, _scatter_block, plan)
    if plan.inputs:
        taken = _taken(columns, plan.takes)
        for j, at, weights in plan.inputs:
            parts = [taken[i] * w for i, w in zip(at, weights.astype(g.dtype))]
            _first_and_rest(parts, inputs[:, j])
    return out


def _scatter_block(columns: Any, plan: _Upsampling, out: Any) -> None:
    """Into ``out`` (outer, n, inner), the transpose of ``_gather_block`` of ``columns``
    (outer, n·p, inner): input j takes, from each tap t and phase r, output
    (j - shift[t, r])·p + r's value times scale[t, r], in the order of the taps and then of
    the outputs, and sums them as add.reduceat does (the first plus the others' sum)."""
    taps, p = plan.shift.shape
    split = columns.reshape(-1, p, columns.shape[2])
    phases = [xp.ascontiguousarray(split[:, r]) for r in range(p)]
    scale = plan.scale.astype(columns.dtype)
    bits = scale.view(f"u{scale.itemsize}").tolist()
    shift = plan.shift.tolist()
    terms = sorted(
        itertools.product(range(taps), range(p)),
        key=lambda t_r: (t_r[0], t_r[1] - p * shift[t_r[0]][t_r[1]]),
    )
    products = {}
    for t, r in terms:
        if (r, bits[t][r]) not in products:
            products[r, bits[t][r]] = xp.multiply(phases[r], scale[t, r])
    rows = out.reshape(len(phases[0]), -1)
    start, stop = _row_range(len(rows), [-shift[t][r] for t, r in terms])
    parts = [products[r, bits[t][r]][start - shift[t][r] : stop - shift[t][r]] for t, r in terms]
    _first_and_rest(parts, rows[start:stop])
