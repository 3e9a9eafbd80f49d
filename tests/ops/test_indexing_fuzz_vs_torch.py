"""x[key] and x[key] = value against PyTorch: a seeded sample of random keys (ints,
slices, None, Ellipsis, bools, lists, index and mask tensors) and the cases the fuzzer
found, comparing values, gradients, and errors (type and message)."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import chainrule


def _part(r: random.Random, size: int, rs: np.random.RandomState) -> tuple:
    k = r.random()
    if k < 0.25:
        return ("int", r.randint(-size - 1, size))
    if k < 0.5:
        b = lambda: None if r.random() < 0.3 else r.randint(-size - 3, size + 3)  # noqa: E731
        return ("slice", b(), b(), r.choice([None, 1, 2, 3]))
    if k < 0.6:
        return r.choice([("none",), ("ell",), ("bool", True), ("bool", False)])
    if k < 0.7:
        return ("list", [r.randint(-size, max(size - 1, 0)) for _ in range(r.randint(0, 3))])
    if k < 0.8:
        return ("mask", rs.rand(size) < 0.5)
    shape = r.choice([(), (2,), (1,), (2, 1), (0,), (1, 3)])
    return ("t", r.choice(["int64", "int32"]), rs.randint(-size, size + 1, size=shape))


def _key(seed: int) -> tuple[tuple, tuple]:
    r, rs = random.Random(seed), np.random.RandomState(seed)
    shape = tuple(r.choice([0, 1, 2, 3, 4]) for _ in range(r.randint(1, 4)))
    parts = tuple(_part(r, shape[min(i, len(shape) - 1)], rs) for i in range(r.randint(1, 4)))
    if parts.count(("ell",)) > 1:  # (PyTorch reads a second Ellipsis past the end)
        parts = tuple(p for p in parts if p != ("ell",)) + (("ell",),)
    return shape, parts


def _build(lib: Any, parts: tuple) -> Any:
    out = []
    for p in parts:
        tag = p[0]
        if tag == "int" or tag == "bool" or tag == "list":
            out.append(p[1])
        elif tag == "slice":
            out.append(slice(*p[1:]))
        elif tag == "none":
            out.append(None)
        elif tag == "ell":
            out.append(Ellipsis)
        elif tag == "mask":
            out.append(lib.tensor(p[1].tolist(), dtype=lib.bool))
        else:
            out.append(lib.tensor(p[2].tolist(), dtype=getattr(lib, p[1])))
    return tuple(out)


def _get(lib: Any, shape: tuple, key: Any) -> tuple:
    leaf = lib.tensor(np.arange(np.prod(shape), dtype=float).reshape(shape), requires_grad=True)
    try:
        out = leaf.clone()[key]
    except Exception as exc:  # noqa: BLE001 (the error is what is compared)
        return ("error", type(exc).__name__, str(exc).split("\n")[0])
    if out.numel():
        (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    grad = None if leaf.grad is None else leaf.grad.tolist()
    return ("ok", tuple(out.shape), out.tolist(), grad)


@pytest.mark.parametrize("seed", range(300))
def test_random_getitem_matches_torch(seed: int) -> None:
    shape, parts = _key(seed)
    ours = _get(chainrule, shape, _build(chainrule, parts))
    assert ours == _get(torch, shape, _build(torch, parts))


def _t(lib: Any, values: list, dtype: str) -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype))


# (shape, key): the fuzzer's failures, each PyTorch's error
GET_ERRORS = [
    ((2, 2), lambda lib: (_t(lib, [0, 1, 1], "int64"), slice(None, -5, -1), slice(4, None, 2))),
    ((1, 4, 1), lambda lib: ([True, True, True], None, slice(None, 7), slice(1, -1))),
    ((1, 2, 4, 2), lambda lib: (0, [], [True])),
    ((3, 1, 3, 0), lambda lib: (Ellipsis, _t(lib, [[False], [False], [True]], "bool"))),
    ((1, 1, 2, 4), lambda lib: (_t(lib, False, "bool"), _t(lib, [[0, 1, 1, 0], [0] * 4], "uint8"))),
    ((0,), lambda lib: (_t(lib, [0], "int32"), 0)),
    ((0, 4, 1), lambda lib: (True, 0, -3, -1)),
    ((2, 2, 1), lambda lib: (None, _t(lib, [-2], "int64"), 2)),
    ((1, 3, 4, 2), lambda lib: (Ellipsis, _t(lib, [[-1], [-1]], "int64"), -3)),
    ((4, 2), lambda lib: (0, True, _t(lib, [2, 1], "int64"))),
    ((1, 4, 3), lambda lib: (slice(-4, None), _t(lib, [[4, 0], [0, -1]], "int64"))),
    ((1, 4, 3), lambda lib: (None, slice(None), _t(lib, [0], "int64"), _t(lib, [5], "int64"))),
    ((0, 3, 4, 3), lambda lib: (_t(lib, [[0, 0]] * 2, "int64"), [], _t(lib, [1, 0], "int64"))),
    ((2, 3, 2, 4), lambda lib: (slice(-1, -5), [], -2, -5)),
    ((3, 4), lambda lib: (Ellipsis, slice(2, 1, -1))),
]


@pytest.mark.parametrize("case", range(len(GET_ERRORS)))
def test_getitem_error_matches_torch(case: int) -> None:
    shape, key = GET_ERRORS[case]
    with warnings.catch_warnings():  # (PyTorch warns once about uint8 masks)
        warnings.simplefilter("ignore", UserWarning)
        expected = _get(torch, shape, key(torch))
    assert expected[0] == "error"
    assert _get(chainrule, shape, key(chainrule)) == expected


def _set(lib: Any, shape: tuple, key: Any, value: Any) -> tuple:
    leaf = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
    x = leaf.clone()
    try:
        x[key] = value(lib) if callable(value) else value
    except Exception as exc:  # noqa: BLE001 (the error is what is compared)
        return ("error", type(exc).__name__, str(exc).split("\n")[0])
    x.sum().backward()
    return ("ok", x.tolist(), leaf.grad.tolist(), x._version)


SET_CASES = [
    ((1, 4), lambda lib: _t(lib, [1], "uint8"), lambda lib: lib.ones(1, dtype=lib.float64)),
    ((1, 4), lambda lib: (_t(lib, [1], "uint8"), slice(None)), 2.0),
    ((3, 3, 2), lambda lib: (slice(0, 0), Ellipsis, _t(lib, [0, 1, 1], "uint8"), None), 1.0),
    ((3, 3), lambda lib: False, lambda lib: lib.ones(7)),
    ((3, 3), lambda lib: True, lambda lib: lib.ones(1, 1, dtype=lib.int64)),
    ((3, 3), lambda lib: True, lambda lib: lib.ones(7)),
    ((3, 1, 1, 0), lambda lib: (slice(-1, -4), Ellipsis, _t(lib, [1], "bool"), 0), 1.0),
]


@pytest.mark.parametrize("case", range(len(SET_CASES)))
def test_setitem_matches_torch(case: int) -> None:
    shape, key, value = SET_CASES[case]
    with warnings.catch_warnings():  # (PyTorch warns once about uint8 masks)
        warnings.simplefilter("ignore", UserWarning)
        expected = _set(torch, shape, key(torch), value)
    assert _set(chainrule, shape, key(chainrule), value) == expected
