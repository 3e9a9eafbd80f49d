"""torch.save/torch.load against the real PyTorch 2.13 over a grid: each file is written by
one library and read by both, and what chainrule reads must be what PyTorch reads (type,
dtype, shape, strides, requires_grad, bits, which tensors share a storage). Then the
options: the legacy format both ways, pickle protocols, mmap, map_location, skip_data,
get_unsafe_globals_in_checkpoint, and PyTorch's errors."""

from __future__ import annotations

import io
import os
import pickle
from collections import OrderedDict, namedtuple
from typing import Any

import numpy as np
import pytest
import torch

import chainrule as cr

LIBS = {"torch": torch, "cr": cr}
DTYPES = [
    "float16", "float32", "float64", "bfloat16", "complex64", "complex128", "bool", "int8",
    "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
]  # fmt: skip
Pair = namedtuple("Pair", "first second")


def bits(t: Any) -> bytes:
    """A tensor's elements as bytes, in row-major order (conjugate and negative bits of
    PyTorch's tensors resolved)."""
    t = t.detach()
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj().resolve_neg()
    L = torch if isinstance(t, torch.Tensor) else cr
    if t.element_size() in (1, 2) and (t.is_floating_point() and t.dtype != L.float16):
        t = t.contiguous().view(L.uint8 if t.element_size() == 1 else L.int16)
    return np.ascontiguousarray(t.numpy()).tobytes()


def describe(obj: Any, storages: dict) -> Any:
    """A comparable description of a loaded object; ``storages`` numbers the storages in
    the order met, so that sharing shows as equal numbers."""
    if isinstance(obj, (torch.Tensor, cr.Tensor)):
        group = storages.setdefault(obj.untyped_storage().data_ptr(), len(storages))
        strides = tuple(obj.stride()) if obj.numel() else None
        return (type(obj).__name__, str(obj.dtype), tuple(obj.shape), strides,
                obj.requires_grad, bits(obj), group, obj.storage_offset())  # fmt: skip
    if isinstance(obj, (torch.dtype, cr.dtype)):  # (chainrule's reduced dtypes: a subclass)
        return "dtype", str(obj)
    if isinstance(obj, dict):
        items = tuple((k, describe(v, storages)) for k, v in obj.items())
        return type(obj).__name__, items, repr(getattr(obj, "_metadata", None))
    if isinstance(obj, (list, tuple)):
        return type(obj).__name__, tuple(describe(v, storages) for v in obj)
    return type(obj).__name__, repr(obj)


def roundtrip(saver: str, loader: str, make: Any, save: dict | None = None, **load: Any):
    buffer = io.BytesIO()
    LIBS[saver].save(make(LIBS[saver]), buffer, **(save or {}))
    buffer.seek(0)
    return LIBS[loader].load(buffer, **load)


def assert_as_torch_loads(make: Any, save: dict | None = None, **load: Any) -> None:
    """Files from either library load in chainrule as they load in PyTorch."""
    for saver in ("torch", "cr"):
        want = describe(roundtrip(saver, "torch", make, save, **load), {})
        got = describe(roundtrip(saver, "cr", make, save, **load), {})
        assert got == want, saver
    mine = describe(roundtrip("cr", "torch", make, save, **load), {})
    assert mine == describe(roundtrip("torch", "torch", make, save, **load), {})


def values(L: Any, dtype: str, shape: tuple) -> Any:
    base = L.arange(int(np.prod(shape)), dtype=L.float64).reshape(shape)
    if dtype == "bool":
        return base.remainder(2) == 0
    if dtype.startswith("complex"):
        return L.complex(base, -base).to(getattr(L, dtype))
    return base.to(getattr(L, dtype))


def views(L: Any, dtype: str) -> dict:
    """A tensor, views of it (a row, a stepped slice, its transpose, an expansion), a 0-d
    and an empty tensor."""
    x = values(L, dtype, (3, 4))
    return {"x": x, "row": x[1], "step": x[:, 1::2], "t": x.t(), "wide": x[0].expand(2, 4),
            "0d": values(L, dtype, ()), "empty": values(L, dtype, (0, 3))}  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_and_its_views_load_as_in_torch(dtype):
    assert_as_torch_loads(lambda L: views(L, dtype))


def test_complex_views_keep_their_strides_and_share_one_storage():
    """chainrule keeps complex numbers in float memory: the file still holds one complex
    storage that the transpose and the row view, as PyTorch's does."""
    loaded = roundtrip("cr", "torch", lambda L: views(L, "complex128"))
    assert loaded["t"].stride() == (1, 4)
    assert loaded["row"].untyped_storage().data_ptr() == loaded["x"].untyped_storage().data_ptr()
    mine = roundtrip("cr", "cr", lambda L: views(L, "complex64"))
    with cr.no_grad():
        mine["x"][1, 2] = 5j
    assert mine["row"][2].item() == 5j and mine["t"][2, 1].item() == 5j


def containers(L: Any) -> Any:
    x = L.arange(6.0)
    state = OrderedDict(w=L.ones(2), b=L.zeros(1))
    state._metadata = OrderedDict({"": {"version": 2}})
    return [{"a": x[:2]}, (x[2:], None), OrderedDict(b=x), state, L.Size([2, 3]),
            L.float8_e5m2, L.device("cpu"), 1 + 2j, -(2**70), b"by", {3, 4}, "s"]  # fmt: skip


def parameters(L: Any) -> dict:
    L.manual_seed(0)
    leaf = L.ones(3, requires_grad=True)
    return {"p": L.nn.Parameter(L.ones(2)), "frozen": L.nn.Parameter(L.ones(2), False),
            "leaf": leaf, "nonleaf": leaf * 2, "sd": L.nn.Linear(2, 3).state_dict()}  # fmt: skip


@pytest.mark.parametrize("make", [containers, parameters])
@pytest.mark.parametrize("weights_only", [True, False])
def test_containers_and_parameters_load_as_in_torch(make, weights_only):
    assert_as_torch_loads(make, weights_only=weights_only)


def plain_values(L: Any) -> list:
    return [slice(1, 5, 2), range(3), frozenset({1}), Pair(1, L.ones(1))]


def test_weights_only_false_loads_plain_values_and_namedtuples():
    assert_as_torch_loads(plain_values, weights_only=False)
    for value, name in ((Pair(1, 2), f"{__name__}.Pair"), (slice(1, 2), "slice")):
        for L in (torch, cr):
            with pytest.raises(pickle.UnpicklingError, match=rf"safe_globals\(\[{name}\]\)"):
                L.load(io.BytesIO(saved(L, value)))


def test_memory_formats_load_in_torch_and_finfo_is_not_saved():
    loaded = roundtrip("cr", "torch", lambda L: [L.channels_last], weights_only=False)
    assert loaded == [torch.channels_last]
    with pytest.raises(pickle.UnpicklingError):  # (not allowed by default, as in PyTorch)
        roundtrip("cr", "cr", lambda L: [L.channels_last])
    for L in (torch, cr):
        with pytest.raises(TypeError, match="cannot pickle 'torch.finfo' object"):
            L.save(L.finfo(L.float32), io.BytesIO())


@pytest.mark.parametrize("bit", ["conj", "neg"])
def test_conjugate_and_negative_bits_in_torch_s_file_are_resolved(bit):
    z = torch.tensor([1 + 2j, -3j]).conj()
    saved = z if bit == "conj" else z.imag
    buffer = io.BytesIO()
    torch.save(saved, buffer)
    buffer.seek(0)
    got = cr.load(buffer)
    np.testing.assert_array_equal(got.numpy(), saved.resolve_conj().resolve_neg().numpy())


@pytest.mark.parametrize("dtype", ["float32", "int16", "complex64", "bool"])
@pytest.mark.parametrize("make", [views, lambda L, _: containers(L), lambda L, _: parameters(L)])
def test_legacy_format_both_ways(make, dtype):
    legacy = {"_use_new_zipfile_serialization": False}
    for saver in ("torch", "cr"):
        want = describe(roundtrip(saver, "torch", lambda L: make(L, dtype), legacy), {})
        got = describe(roundtrip(saver, "cr", lambda L: make(L, dtype), legacy), {})
        assert got == want, saver


def test_legacy_untyped_dtypes_load_in_chainrule():
    """PyTorch 2.13 writes a legacy file of uint16 or float8 tensors that it cannot read
    itself (its legacy loader wants a dtype of UntypedStorage); chainrule reads them."""
    make = lambda L: views(L, "float8_e5m2")  # noqa: E731
    legacy = {"_use_new_zipfile_serialization": False}
    with pytest.raises(AttributeError):
        roundtrip("torch", "torch", make, legacy)
    got = roundtrip("torch", "cr", make, legacy)
    want = roundtrip("torch", "torch", make)
    assert describe(got, {}) == describe(want, {})


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    assert_as_torch_loads(parameters, {"pickle_protocol": protocol}, weights_only=False)


def test_paths_files_and_mmap(tmp_path):
    path = tmp_path / "w.pt"
    cr.save(views(cr, "float32"), path)
    want = torch.load(str(path))
    for f in (path, str(path)):
        for mmap in (None, True):
            assert describe(cr.load(f, mmap=mmap), {}) == describe(want, {})
    with open(path, "rb") as opened:
        assert describe(cr.load(opened), {}) == describe(want, {})
    mapped = cr.load(path, mmap=True)
    with cr.no_grad():
        mapped["x"][0, 0] = 9.0  # (copy on write: the file keeps its bytes)
    assert mapped["t"][0, 0].item() == 9.0 and cr.load(path)["x"][0, 0].item() == 0.0
    for L in (torch, cr):
        with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
            L.load(io.BytesIO(path.read_bytes()), mmap=True)
    L_path = str(tmp_path / "legacy.pt")
    torch.save(torch.ones(1), L_path, _use_new_zipfile_serialization=False)
    for L in (torch, cr):
        with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
            L.load(L_path, mmap=True)


def saved(L: Any, obj: Any, **kw: Any) -> bytes:
    buffer = io.BytesIO()
    L.save(obj, buffer, **kw)
    return buffer.getvalue()


@pytest.mark.parametrize("kind", ["str", "device", "dict"])
def test_map_location_cuda_without_cuda_and_meta(kind):
    data = saved(torch, {"w": torch.ones(2)})
    for L in (torch, cr):
        where = {"str": "cuda", "device": L.device("cuda:0"), "dict": {"cpu": "cuda"}}[kind]
        with pytest.raises(RuntimeError, match=r"torch.cuda.is_available\(\) is False"):
            L.load(io.BytesIO(data), map_location=where)
        meta = L.load(io.BytesIO(data), map_location="meta")["w"]
        assert meta.device.type == "meta" and tuple(meta.shape) == (2,)


def test_load_option_errors():
    data = saved(torch, torch.ones(1))
    for L in (torch, cr):
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit"):
            L.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
        assert L.load(io.BytesIO(data), pickle_module=pickle).tolist() == [1.0]
        with pytest.raises(TypeError):
            L.load(io.BytesIO(data), map_location=3)
        with pytest.raises(AttributeError, match="You can only torch.load from a file that is"):
            L.load(3)
        with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file"):
            L.save(L.ones(1), 3)
        with pytest.raises(RuntimeError, match="Parent directory /nonexistent_dir does not"):
            L.save(L.ones(1), "/nonexistent_dir/x.pt")
        with pytest.raises(EOFError):
            L.load(io.BytesIO(b""))


class Point:
    def __init__(self, x: int) -> None:
        self.x = x


class Evil:
    def __reduce__(self) -> tuple:
        return (os.system, ("echo unsafe",))


def test_unsafe_globals_are_refused_and_listed():
    point, evil = saved(torch, {"p": Point(3)}), saved(torch, [Evil()])
    module = saved(torch, torch.nn.Linear(2, 2))
    for L in (torch, cr):
        S = L.serialization
        for data in (point, evil, module):
            with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
                L.load(io.BytesIO(data))
        name = f"{__name__}.Point"
        with pytest.raises(pickle.UnpicklingError, match=f"add_safe_globals\\(\\[{name}\\]\\)"):
            L.load(io.BytesIO(point))
        assert S.get_unsafe_globals_in_checkpoint(io.BytesIO(point)) == [name]
        assert S.get_unsafe_globals_in_checkpoint(io.BytesIO(evil)) == ["posix.system"]
        assert S.get_unsafe_globals_in_checkpoint(io.BytesIO(module)) == [
            "torch.nn.modules.linear.Linear"
        ]
        assert S.get_unsafe_globals_in_checkpoint(io.BytesIO(saved(L, parameters(L)))) == []
        with S.safe_globals([Point]):
            assert S.get_unsafe_globals_in_checkpoint(io.BytesIO(point)) == []
            assert L.load(io.BytesIO(point))["p"].x == 3
        legacy = saved(L, L.ones(1), _use_new_zipfile_serialization=False)
        with pytest.raises(ValueError, match="Expected input to be a checkpoint returned by"):
            S.get_unsafe_globals_in_checkpoint(io.BytesIO(legacy))


def test_skip_data():
    for L in (torch, cr):
        with L.serialization.skip_data():
            data = saved(L, {"x": L.arange(4.0)})
        assert L.load(io.BytesIO(data))["x"].tolist() == [0.0] * 4
        with L.serialization.skip_data():
            loaded = L.load(io.BytesIO(saved(L, L.arange(4.0))))
            assert (tuple(loaded.shape), str(loaded.dtype)) == ((4,), "torch.float32")
            with pytest.raises(RuntimeError, match="Cannot use skip_data=True with _use_new"):
                L.save(L.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False)
    with cr.serialization.skip_data():  # (chainrule: zeros where PyTorch leaves garbage)
        assert cr.load(io.BytesIO(saved(torch, torch.ones(2)))).tolist() == [0.0, 0.0]
