"""View and shape ops against PyTorch: seeded random chains of views (view, reshape,
flatten/unflatten, squeeze/unsqueeze, transposes, narrow/select/slicing, unfold, diagonal,
expand, split and its kin, contiguous) from non-contiguous starts, comparing after each step
the shape, strides (of the dims longer than 1), storage offset, contiguity in both memory
formats, the ``_is_view``/``_base`` pattern and whether a write shows through every tensor of
the chain; chains that end in an in-place write with a backward, comparing the gradients,
versions and errors; and the cases the fuzzer found, each pinned down alone."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr

# ----- a random chain of view ops ----------------------------------------------------------------


def _factor(r: random.Random, n: int) -> list[int]:
    """a random shape of n elements (n > 0), with size-1 dims sprinkled in"""
    dims = []
    while n > 1:
        d = r.choice([k for k in range(2, n + 1) if n % k == 0])
        dims.append(d)
        n //= d
    dims += [1] * r.randint(0, 1)
    r.shuffle(dims)
    if dims and r.random() < 0.3:
        dims[r.randrange(len(dims))] = -1
    return dims


def _op(r: random.Random, shape: list[int]) -> tuple[str, Callable]:
    """one view op that suits a tensor of ``shape``, as (name, fn(lib, x))"""
    nd, n = len(shape), int(np.prod(shape)) if shape else 1
    dim = lambda: r.randint(-nd, nd - 1) if nd else 0  # noqa: E731
    kind = r.choice(
        "view reshape flatten unflatten squeeze squeeze_dims unsqueeze transpose permute "
        "movedim t mT narrow select getitem unfold diagonal expand split chunk tensor_split "
        "unbind contiguous".split()
    )
    if kind in ("view", "reshape"):
        s = _factor(r, n)
        return f"{kind}({s})", lambda L, x: getattr(x, kind)(s)
    if kind == "flatten":
        a, b = sorted((dim(), dim()), key=lambda d: d % max(nd, 1))
        return f"flatten({a},{b})", lambda L, x: x.flatten(a, b)
    if kind == "unflatten" and nd:
        d = dim()
        s = _factor(r, shape[d]) or [1]
        return f"unflatten({d},{s})", lambda L, x: x.unflatten(d, s)
    if kind == "squeeze":
        return "squeeze()", lambda L, x: x.squeeze()
    if kind == "squeeze_dims":
        ds = tuple(r.sample(range(-nd, nd), r.randint(0, nd))) if nd else ()
        ds = tuple({d % nd: d for d in ds}.values()) if nd else ()
        return f"squeeze({ds})", lambda L, x: x.squeeze(ds)
    if kind == "unsqueeze":
        d = r.randint(-nd - 1, nd)
        return f"unsqueeze({d})", lambda L, x: x.unsqueeze(d)
    if kind == "transpose":
        a, b = dim(), dim()
        return f"transpose({a},{b})", lambda L, x: x.transpose(a, b)
    if kind == "permute":
        p = list(range(nd))
        r.shuffle(p)
        return f"permute({p})", lambda L, x: x.permute(p)
    if kind == "movedim":
        k = r.randint(0, nd)
        src, dst = r.sample(range(nd), k), r.sample(range(nd), k)
        return f"movedim({src},{dst})", lambda L, x: x.movedim(src, dst)
    if kind == "t" and nd <= 2:
        return "t()", lambda L, x: x.t()
    if kind == "mT" and nd >= 2:
        return "mT", lambda L, x: x.mT
    if kind == "narrow" and nd:
        d = dim()
        start = r.randint(-shape[d], shape[d] - 1)
        length = r.randint(0, shape[d] - start % shape[d])
        return f"narrow({d},{start},{length})", lambda L, x: x.narrow(d, start, length)
    if kind == "select" and nd:
        d = dim()
        i = r.randint(-shape[d], shape[d] - 1)
        return f"select({d},{i})", lambda L, x: x.select(d, i)
    if kind == "getitem" and nd:
        key: list[Any] = []
        for size in shape:
            k = r.random()
            if k < 0.2:
                key.append(r.randint(-size, size - 1))
            elif k < 0.3:
                key.append(None)
            else:
                ends = [None, *range(-size - 1, size + 2)]
                key.append(slice(r.choice(ends), r.choice(ends), r.choice([None, 1, 2, 3])))
        return f"getitem({tuple(key)})", lambda L, x: x[tuple(key)]
    if kind == "unfold" and nd:
        d = dim()
        size, step = r.randint(1, shape[d]), r.randint(1, 3)
        return f"unfold({d},{size},{step})", lambda L, x: x.unfold(d, size, step)
    if kind == "diagonal" and nd >= 2:
        a, b = r.sample(range(nd), 2)
        off = r.randint(-1, 1)
        return f"diagonal({off},{a},{b})", lambda L, x: x.diagonal(off, a, b)
    if kind == "expand":
        s = [r.randint(1, 2) for _ in range(r.randint(0, 1))]
        s += [r.choice([1, 2, -1]) if d == 1 else r.choice([d, -1]) for d in shape]
        return f"expand({s})", lambda L, x: x.expand(s)
    if kind in ("split", "chunk", "tensor_split", "unbind") and nd:
        d, k, pick = dim(), r.randint(1, 3), r.randint(0, 4)
        if kind == "unbind":
            return f"unbind({d})[{pick}]", lambda L, x: x.unbind(d)[pick % x.shape[d]]
        return f"{kind}({k},{d})[{pick}]", lambda L, x: (lambda parts: parts[pick % len(parts)])(
            getattr(x, kind)(k, d)
        )
    if kind == "contiguous":
        fmt = r.choice(["contiguous_format", "channels_last"])
        if fmt == "channels_last" and nd != 4:
            fmt = "contiguous_format"
        return f"contiguous({fmt})", lambda L, x: x.contiguous(memory_format=getattr(L, fmt))
    return "squeeze()", lambda L, x: x.squeeze()


def _start(lib, shape: list[int], how: str):
    """arange(n) as ``shape``, then made non-contiguous ``how``"""
    n = int(np.prod(shape)) if shape else 1
    x = lib.arange(n, dtype=lib.float64).reshape(shape)
    if how == "transpose" and x.dim() >= 2:
        return x.transpose(0, -1)
    if how == "step" and x.dim():
        return x[..., ::2]
    if how == "channels_last" and x.dim() == 4:
        return x.contiguous(memory_format=lib.channels_last)
    if how == "expand":
        return x.unsqueeze(0).expand(2, *shape)
    return x.clone()


def _chain(seed: int) -> tuple[list, str, list]:
    """a start and a chain of ops built on torch's shapes (PyTorch must accept each)"""
    r = random.Random(seed)
    shape = [r.choice([1, 2, 3, 4]) for _ in range(r.randint(0, 4))]
    how = r.choice(["clone", "transpose", "step", "channels_last", "expand"])
    ops, x = [], _start(torch, shape, how)
    for _ in range(r.randint(1, 5)):
        name, fn = _op(r, list(x.shape))
        ops.append((name, fn))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x = fn(torch, x)
        except (RuntimeError, IndexError):  # (a view the strides do not allow: compared)
            break
        if x.numel() == 0:  # (NumPy keeps no strides for an empty array: fixed cases below)
            break
    return shape, how, ops


def _layout(ts: list, lib) -> list:
    out = []
    for t in ts:
        row = [tuple(t.shape)]
        if t.numel():  # (an empty tensor's strides: test_views_of_an_empty_tensor_are_views)
            row.append(tuple(s if n > 1 else None for s, n in zip(t.stride(), t.shape)))
            row += [t.storage_offset(), t.is_contiguous()]
            if t.dim() == 4:
                row.append(t.is_contiguous(memory_format=lib.channels_last))
        base = t._base
        row += [
            t._is_view(),
            None if base is None else next((i for i, u in enumerate(ts) if u is base), "root"),
        ]
        out.append(row)
    return out


def _run(lib, shape, how, ops, write_at: int | None) -> tuple:
    ts, error = [_start(lib, shape, how)], None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, fn in ops:
            try:
                ts.append(fn(lib, ts[-1]))
            except (RuntimeError, IndexError) as e:
                return _layout(ts, lib), f"{type(e).__name__}: {e}"
    layout = _layout(ts, lib)
    if write_at is not None:
        target = ts[write_at]
        try:
            target.add_(1000.0)
        except RuntimeError as e:
            error = str(e)
    values = [t.detach().numpy().tolist() for t in ts]
    return layout, error, values


def _write_at(seed: int, how: str, ops: list) -> int | None:
    """a tensor of the chain to write into; None where it is a view of an expand or unfold
    whose own elements do not overlap (PyTorch writes, chainrule refuses: see the report)"""
    at = random.Random(-seed).randrange(len(ops) + 1)
    x = _start(torch, _chain(seed)[0], how)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _, fn in ops[:at]:
                x = fn(torch, x)
    except (RuntimeError, IndexError):
        return None
    names = [name for name, _ in ops[:at]]
    risky = how == "expand" or any(n.startswith(("expand", "unfold")) for n in names)
    overlaps = x.numel() and any(s == 0 and n > 1 for s, n in zip(x.stride(), x.shape))
    return None if risky and not overlaps else at


@pytest.mark.parametrize("first", range(0, 3000, 100))
def test_view_chains_match_torch(first: int) -> None:
    for seed in range(first, first + 100):
        shape, how, ops = _chain(seed)
        write_at = _write_at(seed, how, ops)
        got = _run(cr, shape, how, ops, write_at)
        want = _run(torch, shape, how, ops, write_at)
        names = [name for name, _ in ops]
        for i, (g, w) in enumerate(zip(got[0], want[0])):
            assert g == w, (seed, shape, how, names[:i], g, w)
        assert got[1:] == want[1:], (seed, shape, how, names, write_at)


# ----- in-place writes through a view, then backward --------------------------------------------


_WRITES = ("mul_", "add_", "copy_", "setitem", "zero_", "setitem_const", "div_", "clamp_")


def _grad_case(seed: int) -> tuple:
    r = random.Random(seed)
    rs = np.random.default_rng(seed)
    shape = [r.choice([1, 2, 3, 4]) for _ in range(r.randint(0, 4))]
    start = r.choice(["clone", "mul", "leaf", "transpose", "step", "no_grad_view"])
    ops, x = [], torch.zeros(shape)
    if start == "transpose" and x.dim() >= 2:
        x = x.transpose(0, -1)
    if start == "step" and x.dim():
        x = x[..., ::2]
    for _ in range(r.randint(0, 4)):
        if not x.numel():
            break
        name, fn = _op(r, list(x.shape))
        if name.startswith(("expand", "unfold", "view(", "squeeze((")):
            continue  # (squeeze(dims) of a split piece: PyTorch's refusal says "Squeeze2")
        try:
            x = fn(torch, x)
        except (RuntimeError, IndexError):  # (the chain tests compare these errors)
            continue
        ops.append((name, fn))
    write = r.choice(_WRITES)
    multi = any(name.startswith(("split", "chunk", "tensor_split", "unbind")) for name, _ in ops)
    if write.startswith("setitem") and (multi or start == "no_grad_view"):
        write = "mul_"  # (PyTorch names the setitem's own slice in those refusals)
    if start == "leaf" and multi:
        start = "clone"  # (PyTorch checks the multi-view refusal before the leaf's)
    b_shape = list(x.shape)
    if b_shape and r.random() < 0.3:
        b_shape[r.randrange(len(b_shape))] = 1
    return shape, start, ops, write, rs.standard_normal(shape), rs.standard_normal(b_shape)


def _grad_run(lib, shape, start, ops, write, a0, b0) -> list:
    a = lib.tensor(a0, requires_grad=True)
    b = lib.tensor(b0, requires_grad=True)
    try:
        x = a if start == "leaf" else a * 2 if start == "mul" else a.clone()
        if start == "transpose" and x.dim() >= 2:
            x = x.transpose(0, -1)
        if start == "step" and x.dim():
            x = x[..., ::2]
        ts = [x]
        for i, (_, fn) in enumerate(ops):
            if start == "no_grad_view" and i == len(ops) - 1:
                with lib.no_grad():
                    ts.append(fn(lib, ts[-1]))
            else:
                ts.append(fn(lib, ts[-1]))
        y = ts[-1]
        if write in ("mul_", "div_"):
            getattr(y, write)(3)
        elif write in ("add_", "copy_"):
            getattr(y, write)(b)
        elif write == "setitem" and y.dim():
            y[..., :1] = b[..., :1] * 2
        elif write == "setitem":
            y[()] = b * 2
        elif write == "setitem_const":
            y[(..., -1) if y.dim() and y.shape[-1] else ...] = 7.0
        elif write == "zero_":
            y.zero_()
        else:
            y.clamp_(min=0)
        versions = [t._version for t in ts]
        loss = sum((t * t * (k + 1)).sum() for k, t in enumerate(ts) if t.requires_grad)
        if not isinstance(loss, int):
            loss.backward()
        grads = [None if t.grad is None else t.grad.numpy().round(9).tolist() for t in (a, b)]
        return [versions, grads, [t.detach().numpy().round(9).tolist() for t in ts]]
    except RuntimeError as e:
        return [str(e)]


@pytest.mark.parametrize("first", range(0, 2000, 100))
def test_inplace_through_views_backward_matches_torch(first: int) -> None:
    for seed in range(first, first + 100):
        case = _grad_case(seed)
        got, want = _grad_run(cr, *case), _grad_run(torch, *case)
        assert got == want, (seed, case[:2], [n for n, _ in case[2]], case[3])


# ----- the cases the fuzzer found ---------------------------------------------------------------


def _both(fn: Callable) -> tuple:
    out = []
    for lib in (cr, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(fn(lib))
    return tuple(out)


def _error(fn: Callable, lib) -> str:
    with pytest.raises(Exception) as info:  # noqa: B017 - the type is compared by the caller
        fn(lib)
    return f"{type(info.value).__name__}: {str(info.value).split(chr(10) + 'Exception raised')[0]}"


def _views(lib, x, y) -> tuple:
    return y._is_view(), y._base is x, tuple(y.shape)


@pytest.mark.parametrize(
    "make",
    [
        lambda L, x: x.unbind(-1)[0],
        lambda L, x: x.chunk(1, 2)[0],
        lambda L, x: x.split(1, 1)[2],
        lambda L, x: x.tensor_split(3, 0)[1],
        lambda L, x: x.hsplit([1])[0],
        lambda L, x: x.unfold(2, 0, 1),
        lambda L, x: x.squeeze(),
        lambda L, x: x.as_strided((0, 3), (1, 1), 5),
    ],
    ids=["unbind", "chunk", "split", "tensor_split", "hsplit", "unfold", "squeeze", "as_strided"],
)
def test_views_of_an_empty_tensor_are_views(make: Callable) -> None:
    """(these came back as copies: NumPy gives an empty piece no link to its input)"""
    got, want = _both(lambda L: (lambda x: _views(L, x, make(L, x)))(L.zeros(0, 4, 3)))
    assert got == want


@pytest.mark.parametrize(
    "make",
    [
        lambda L, x: x.unbind(0)[1],
        lambda L, x: x[1:].unbind()[0],
        lambda L, x: x[2].expand(()),
        lambda L, x: L.broadcast_to(x[2], ()),
    ],
    ids=["unbind", "unbind-offset", "expand-0d", "broadcast_to-0d"],
)
def test_a_write_into_a_0d_view_shows_in_its_base(make: Callable) -> None:
    """(a 0-d piece of unbind and a 0-d expand were scalar copies: the write was lost)"""

    def run(L):
        x = L.arange(3.0, dtype=L.float64)
        y = make(L, x)
        y.add_(100)
        return x.tolist(), y._is_view(), y.storage_offset()

    got, want = _both(run)
    assert got == want


def test_unfold_of_a_0d_tensor_with_an_empty_window() -> None:
    def run(L):
        a = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        y = a.unfold(0, 0, 1)
        (y * 2).sum().backward()
        return tuple(y.shape), a.grad.item()

    got, want = _both(run)
    assert got == want


def test_as_strided_with_a_zero_stride_refuses_writes() -> None:
    def run(L):
        y = L.arange(5.0).as_strided((2, 2), (0, 1))
        return _error(lambda _: y.add_(1), L)

    got, want = _both(run)
    assert got == want


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.zeros(0).view(0, -1),
        lambda L: L.zeros(2, 0).reshape(-1, 0, 3),
        lambda L: L.zeros(6).view(-2, -1),
        lambda L: L.zeros(6).view(-1, -1, -2),
        lambda L: L.zeros(6).view(-1, 4),
        lambda L: L.zeros(2, 6).unflatten(-1, [0, -1]),
        lambda L: L.zeros(2, 0).unflatten(-1, [0, -1]),
        lambda L: L.zeros(2, 6).unflatten(-1, [4, -1]),
        lambda L: L.zeros(2, 6).unflatten(-1, [-2, -1]),
        lambda L: L.zeros(2, 3).unflatten(-1, [3, -1, -1]),
        lambda L: L.zeros(2, 6).unflatten(-1, []),
        lambda L: L.zeros(()).unflatten(0, []),
        lambda L: L.zeros(2, 3).select(-2, 5),
        lambda L: L.zeros(2, 0).select(-1, 0),
        lambda L: L.view_as_complex(L.zeros((), dtype=L.float64)),
        lambda L: L.view_as_complex(L.zeros(5, dtype=L.float64)[1:3]),
        lambda L: L.view_as_complex(L.zeros(1, 3, dtype=L.float64)[:, 1:]),
    ],
)
def test_shape_errors_match_torch(fn: Callable) -> None:
    assert _error(fn, cr) == _error(fn, torch)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: a.t().reshape(4, 3),
        lambda L, a: a[:, 1].reshape(1, 3),
        lambda L, a: a[:, 1:2].reshape(3),
        lambda L, a: a[:1].reshape(4),
        lambda L, a: a.t().reshape(12),
        lambda L, a: a[:, 1].unflatten(0, (3, 1)),
        lambda L, a: a.t().unflatten(0, (2, 2)),
        lambda L, a: L.view_as_complex(a[:, :2]),
    ],
)
def test_reshape_names_its_view_as_torch(fn: Callable) -> None:
    """reshape of a tensor that is not contiguous is PyTorch's _reshape_alias"""

    def run(L):
        a = L.arange(12.0, dtype=L.float64).reshape(3, 4).requires_grad_() * 1
        y = fn(L, a)
        y.sum().backward() if not y.is_complex() else None
        return type(y.grad_fn).__name__, y._is_view(), tuple(y.stride())

    got, want = _both(run)
    assert got == want


@pytest.mark.parametrize(
    "piece",
    [
        lambda a: a.clone()[:1].chunk(1)[0].squeeze((0,)),  # SqueezeBackward2: "Squeeze2"
        lambda a: a.clone().unsqueeze(0).chunk(1)[0].squeeze(0),  # SqueezeBackward1
        lambda a: a.clone().split(2)[0],  # SplitBackward0: "Split"
    ],
)
def test_a_split_piece_written_in_place_names_its_node_as_torch(piece: Callable) -> None:
    def write(lib):
        piece(lib.ones(4, requires_grad=True)).mul_(2)

    got, want = _error(write, cr), _error(write, torch)
    assert got == want


_WRITES_INTO_EXPANDS = [
    lambda L, x: x.expand(2, 3)[0].mul_(3),  # a row of an expand: apart, written
    lambda L, x: x.expand(2, 3)[1].add_(1),
    lambda L, x: x.unfold(0, 2, 1)[:, 0].fill_(7),  # a column of overlapping windows
    lambda L, x: x.expand(2, 3).mul_(2),  # refused: elements share memory
    lambda L, x: x.expand(2, 3).fill_(2),  # one value everywhere: written
    lambda L, x: x.expand(2, 3).zero_(),
    lambda L, x: x.expand(2, 3).fill_(L.tensor(4.0)),  # refused (a tensor's value)
    lambda L, x: x.expand(2, 3).__setitem__(0, L.tensor([5.0, 6.0, 7.0])),
    lambda L, x: x.expand(2, 3).__setitem__(0, 1.0),
    lambda L, x: x.expand(2, 3).__setitem__((0, slice(1, None)), 9.0),
    lambda L, x: x.expand(2, 3).__setitem__((slice(None), 0), 1.0),  # refused: a column
    lambda L, x: x.expand(2, 3).fill_(2).mul_(2),  # filled, then refused
]


@pytest.mark.parametrize("write", _WRITES_INTO_EXPANDS)
def test_writes_into_expands_as_torch(write: Callable) -> None:
    """PyTorch refuses a write into elements that share memory, except one value written
    everywhere; a part of an expand whose elements are apart takes the write."""

    def run(lib):
        x = lib.arange(3.0)
        try:
            write(lib, x)
        except RuntimeError as exc:
            return "refused" if "single memory location" in str(exc) else str(exc), x.tolist()
        return "written", x.tolist()

    assert run(cr) == run(torch)
