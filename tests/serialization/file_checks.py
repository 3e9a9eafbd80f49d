"""Helpers shared by the file tests of the reduced dtypes (bfloat16, float8): a saved
buffer, a safetensors header, a fresh interpreter, and the comparison of loaded trees."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import chainrule as cr


def saved(L: Any, obj: Any) -> io.BytesIO:
    """``obj`` saved by library ``L`` into a buffer, rewound."""
    buffer = io.BytesIO()
    L.save(obj, buffer)
    buffer.seek(0)
    return buffer


def read_header(path: Any) -> dict:
    """A safetensors file's JSON header."""
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(length))


def run_fresh(code: str) -> list[str]:
    """Run ``code`` in a new interpreter; its printed lines."""
    ran = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.splitlines()


def assert_same(got: Any, want: Any, bits: Callable, offsets: bool = False) -> None:
    """Same structure; tensors with the same dtype, shape, strides, type and ``bits`` (and,
    with ``offsets``, the same storage offset where torch loaded them: chainrule counts a
    tensor's offset from the tensor it is an autograd view of, and loaded tensors are views
    of none)."""
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            assert_same(got[k], want[k], bits, offsets)
    elif isinstance(want, (torch.Tensor, cr.Tensor)):
        assert str(got.dtype) == str(want.dtype)
        assert tuple(got.shape) == tuple(want.shape)
        if want.numel() or isinstance(want, torch.Tensor):  # (chainrule's empty: strides 0)
            assert tuple(got.stride()) == tuple(want.stride())
        if offsets and isinstance(got, torch.Tensor):
            assert got.storage_offset() == want.storage_offset()
        assert type(got).__name__ == type(want).__name__
        assert got.requires_grad == want.requires_grad
        np.testing.assert_array_equal(bits(got), bits(want))
    else:
        assert str(got) == str(want)


VIEWS = (("row", (2,)), ("col", (1,)), ("xt", (2, 1)), ("tail", (3,)))  # views of "x"'s [1, 2]


def check_views_share(loaded: dict, L: Any, value: float) -> None:
    """A write into the loaded "x" shows through its loaded views ("row", "col", "xt",
    "tail": one storage in the file, one memory after loading)."""
    with L.no_grad():
        loaded["x"][1, 2] = value
    for key, index in VIEWS:
        assert loaded[key][index].item() == value


def check_one_storage(again: dict, nbytes: int) -> None:
    """The views of "x" in a file saved again from a loaded one share x's storage."""
    storage = again["x"].untyped_storage()
    for key, _ in VIEWS:
        assert again[key].untyped_storage().data_ptr() == storage.data_ptr()
    assert storage.nbytes() == nbytes
