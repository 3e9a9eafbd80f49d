"""uint16, uint32 and uint64: the dtypes, their promotion (PyTorch refuses every mix but
with a floating dtype), creation, casts and the ops PyTorch's CPU kernels run on them,
against PyTorch. (Where PyTorch's kernels refuse one, "add_stub" not implemented for
'UInt16', chainrule computes it, as NumPy does.)"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import chainrule as cr

UNSIGNED = ["uint16", "uint32", "uint64"]
OTHERS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128", *UNSIGNED]  # fmt: skip


def outcome(lib, a: str, b: str) -> str:
    try:
        return str(lib.promote_types(getattr(lib, a), getattr(lib, b)))
    except RuntimeError as e:
        return f"RuntimeError: {e}"


def test_promotion_of_every_pair_as_torch():
    for a, b in itertools.product(UNSIGNED, OTHERS):
        assert outcome(cr, a, b) == outcome(torch, a, b), (a, b)
        assert outcome(cr, b, a) == outcome(torch, b, a), (b, a)


@pytest.mark.parametrize("name", UNSIGNED)
def test_the_dtypes_as_torch(name):
    d, t = getattr(cr, name), getattr(torch, name)
    assert repr(d) == repr(t) and d.itemsize == t.itemsize
    assert not d.is_signed and not d.is_floating_point and not d.is_complex
    assert repr(cr.iinfo(d)) == repr(torch.iinfo(t))
    assert cr.ones(1, dtype=d).type() == torch.ones(1, dtype=t).type()


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d),
        lambda lib, d: lib.full((2,), -1, dtype=d),  # (wraps, as PyTorch's)
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d) * 2,
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d).sum(),
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d).cumsum(0),
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d) == 2,
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d) & 3,
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d) / 2,
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d).float(),
        lambda lib, d: lib.tensor([1, 2, 65535], dtype=d).to(lib.int64),
        lambda lib, d: lib.ones(2, dtype=d) + 1.5,
        lambda lib, d: lib.cat([lib.tensor([3, 1], dtype=d)] * 2).sort().values,
        lambda lib, d: lib.tensor([5, 6, 7], dtype=d)[lib.tensor([2, 0])],
        lambda lib, d: lib.from_numpy(np.array([1, 7], dtype=d.__repr__()[6:])),
    ],
)
@pytest.mark.parametrize("name", UNSIGNED)
def test_what_torch_computes_as_torch(fn, name):
    got, want = fn(cr, getattr(cr, name)), fn(torch, getattr(torch, name))
    assert repr(got) == repr(want)


def test_values_beyond_int64_as_torch():
    for lib in (cr, torch):
        big = lib.tensor([2**64 - 1, 2**63], dtype=lib.uint64)
        assert big.tolist() == [2**64 - 1, 2**63]
        assert lib.tensor(np.array([2**63], dtype=np.uint64)).dtype == lib.uint64
        with pytest.raises(RuntimeError, match="uint16_t without overflow"):
            lib.full((1,), 70000, dtype=lib.uint16)
    messages = []
    for lib in (cr, torch):
        with pytest.raises(TypeError) as info:
            lib.from_numpy(np.array(["a"]))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_files_both_ways_with_torch(tmp_path):
    """torch.save writes uint16/32/64 as untyped storages rebuilt by _rebuild_tensor_v3 (no
    typed storage class): chainrule reads and writes them so; safetensors' U16/U32/U64."""
    values = {"a": [1, 2, 65535], "b": [2**32 - 1, 0], "c": [2**64 - 1]}
    kinds = {"a": "uint16", "b": "uint32", "c": "uint64"}
    for saver, loader in ((torch, cr), (cr, torch)):
        path = tmp_path / f"{saver.__name__}.pt"
        saver.save({k: saver.tensor(v, dtype=getattr(saver, kinds[k])) for k, v in values.items()},
                   path)  # fmt: skip
        loaded = loader.load(path, weights_only=True)
        assert {k: (str(t.dtype), t.tolist()) for k, t in loaded.items()} == {
            k: (f"torch.{kinds[k]}", v) for k, v in values.items()
        }
    from safetensors.torch import load_file, save_file

    save_file({"a": torch.tensor([1, 65535], dtype=torch.uint16)}, tmp_path / "t.safetensors")
    got = cr.load_safetensors(tmp_path / "t.safetensors")["a"]
    assert got.dtype is cr.uint16 and got.tolist() == [1, 65535]
    cr.save_safetensors({"b": cr.tensor([7, 2**32 - 1], dtype=cr.uint32)}, tmp_path / "c.st")
    back = load_file(tmp_path / "c.st")["b"]
    assert back.dtype == torch.uint32 and back.tolist() == [7, 2**32 - 1]
