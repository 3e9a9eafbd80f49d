"""torch.save / torch.load in PyTorch's zip format, both ways with the real PyTorch: what
chainrule saves, torch loads (with ``weights_only=True``, its default), and what torch
saves, chainrule loads; views share memory again after loading; state_dicts move between
the two libraries' modules."""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import to_numpy


def checkpoint(L):
    """A checkpoint with what real ones hold: tensors of several dtypes, views of one
    tensor, a Parameter, a state_dict, numbers, strings, bytes, sets, dtypes, sizes."""
    x = L.arange(12.0, dtype=L.float64).reshape(3, 4)
    return {
        "x": x,
        "row": x[1],
        "col": x[:, 2],
        "xt": x.t(),
        "p": L.nn.Parameter(L.linspace(0, 1, 5)),
        "frozen": L.nn.Parameter(L.ones(2, 2), requires_grad=False),
        "leaf": L.tensor([1.0, -2.0], requires_grad=True),
        "f16": L.tensor([0.5, 1.5], dtype=L.float16),
        "i64": L.tensor([[1, -2], [3, 4]]),
        "i32": L.tensor([7], dtype=L.int32),
        "u8": L.tensor([0, 255], dtype=L.uint8),
        "flags": L.tensor([True, False]),
        "scalar": L.tensor(3.25),
        "empty": L.zeros(0, 3),
        "state": OrderedDict([("weight", L.ones(2, 3)), ("bias", L.zeros(2))]),
        "epoch": 7,
        "lr": 1e-3,
        "name": "model",
        "blob": b"\x00\xff",
        "tags": {1, 2},
        "counts": Counter("aab"),
        "z": 1 + 2j,
        "dtype": L.float32,
        "shape": L.Size([2, 3]),
        "nested": [(L.ones(1), {"deep": L.zeros(2, dtype=L.int64)})],
    }


def assert_same_checkpoint(got, want):
    """Structures, types, values, dtypes and requires_grad equal, across the libraries."""
    if isinstance(want, (torch.Tensor, cr.Tensor)):
        assert isinstance(got, (torch.Tensor, cr.Tensor))
        assert str(got.dtype) == str(want.dtype)
        assert tuple(got.shape) == tuple(want.shape)
        assert got.requires_grad == want.requires_grad
        assert type(got).__name__ == type(want).__name__  # Tensor or Parameter
        np.testing.assert_array_equal(to_numpy(got), to_numpy(want))
    elif isinstance(want, dict):
        assert type(got).__name__ == type(want).__name__
        assert list(got) == list(want)
        for k in want:
            assert_same_checkpoint(got[k], want[k])
    elif isinstance(want, (list, tuple)) and type(want).__name__ != "Size":
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_same_checkpoint(g, w)
    else:
        assert str(got) == str(want) and type(got).__name__ == type(want).__name__


def saved_by(L, obj, where=None):
    buffer = io.BytesIO() if where is None else where
    L.save(obj, buffer)
    if where is None:
        buffer.seek(0)
    return buffer


@pytest.mark.parametrize("direction", ["chainrule to torch", "torch to chainrule"])
def test_a_checkpoint_moves_between_the_libraries(direction):
    src, dst = (cr, torch) if direction == "chainrule to torch" else (torch, cr)
    original = checkpoint(src)
    loaded = dst.load(saved_by(src, original))
    assert_same_checkpoint(loaded, checkpoint(dst))


@pytest.mark.parametrize("loader", [torch, cr])
def test_views_share_memory_after_loading(loader):
    for saver in (torch, cr):
        loaded = loader.load(saved_by(saver, checkpoint(saver)))
        with loader.no_grad():
            loaded["x"][1, 2] = 100.0
        assert loaded["row"][2].item() == 100.0
        assert loaded["col"][1].item() == 100.0
        assert loaded["xt"][2, 1].item() == 100.0


def test_storages_are_written_once_and_aligned():
    x = cr.arange(6.0).reshape(2, 3)
    buffer = saved_by(cr, {"x": x, "row": x[1], "t": x.t()})
    archive = zipfile.ZipFile(buffer)
    names = archive.namelist()
    assert [n for n in names if "/data/" in n] == ["archive/data/0"]
    assert names[0] == "archive/data.pkl"
    assert {"archive/byteorder", "archive/version", "archive/.format_version"} <= set(names)
    info = archive.getinfo("archive/data/0")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    assert start % 64 == 0
    buffer.seek(0)
    loaded = torch.load(buffer, mmap=False)
    assert loaded["row"].untyped_storage().data_ptr() == loaded["x"].untyped_storage().data_ptr()


def test_paths_and_file_objects(tmp_path):
    path = tmp_path / "model.pt"
    cr.save({"w": cr.ones(2)}, path)
    assert zipfile.ZipFile(path).namelist()[0] == "model/data.pkl"
    assert torch.load(path)["w"].tolist() == [1.0, 1.0]
    with open(path, "rb") as f:
        assert cr.load(f)["w"].tolist() == [1.0, 1.0]
    assert cr.load(str(path))["w"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "map_location",
    [None, "cpu", cr.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage],
    ids=["none", "str", "device", "dict", "callable"],
)
def test_map_location_onto_the_cpu(map_location):
    buffer = saved_by(torch, {"w": torch.ones(2)})
    assert cr.load(buffer, map_location=map_location)["w"].tolist() == [1.0, 1.0]


def test_map_location_cuda_raises_torch_s_error():
    buffer = saved_by(cr, {"w": cr.ones(2)})
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        torch.load(io.BytesIO(buffer.getvalue()), map_location="cuda")
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        cr.load(buffer, map_location="cuda")


def on_cuda(buffer: io.BytesIO) -> io.BytesIO:
    """The archive in ``buffer`` with its storages' location rewritten to 'cuda:0', as a
    file saved from a GPU names them (protocol 2 pickles the name as BINUNICODE)."""
    out = io.BytesIO()
    with zipfile.ZipFile(buffer) as old, zipfile.ZipFile(out, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.endswith("/data.pkl"):
                assert b"X\x03\x00\x00\x00cpu" in data
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            new.writestr(info, data)
    out.seek(0)
    return out


def test_a_cuda_storage_without_cuda_raises_torch_s_error():
    """Without map_location a storage goes back to the device it was saved from: 'cuda:0'
    where CUDA is not available is PyTorch's RuntimeError (map_location='cpu' reads it)."""
    buffer = on_cuda(saved_by(cr, {"w": cr.ones(2)}))
    with pytest.raises(RuntimeError) as want:
        torch.load(buffer)
    assert "Attempting to deserialize object on a CUDA device" in str(want.value)
    buffer.seek(0)
    with pytest.raises(RuntimeError) as got:
        cr.load(buffer)
    assert str(got.value) == str(want.value)
    for map_location in ("cpu", {"cuda:0": "cpu"}):
        buffer.seek(0)
        assert cr.load(buffer, map_location=map_location)["w"].tolist() == [1.0, 1.0]
        buffer.seek(0)
        assert torch.load(buffer, map_location=map_location)["w"].tolist() == [1.0, 1.0]


def linear_pair():
    t = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.ParameterList([torch.ones(1)]))
    return t


class TinyTorch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3, 4, dtype=torch.float64))
        self.bias = torch.nn.Parameter(torch.randn(3, dtype=torch.float64))
        self.register_buffer("running", torch.arange(3.0, dtype=torch.float64))


class TinyChainrule(cr.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = cr.nn.Parameter(cr.randn(3, 4, dtype=cr.float64))
        self.bias = cr.nn.Parameter(cr.randn(3, dtype=cr.float64))
        self.register_buffer("running", cr.arange(3.0, dtype=cr.float64))


@pytest.mark.parametrize("direction", ["chainrule to torch", "torch to chainrule"])
def test_a_state_dict_loads_into_the_other_library_s_module(direction):
    ours, theirs = TinyChainrule(), TinyTorch()
    (src, src_lib), (dst, dst_lib) = (
        ((ours, cr), (theirs, torch))
        if direction == "chainrule to torch"
        else ((theirs, torch), (ours, cr))
    )
    result = dst.load_state_dict(dst_lib.load(saved_by(src_lib, src.state_dict())))
    assert not result.missing_keys and not result.unexpected_keys
    for k, v in src.state_dict().items():
        np.testing.assert_array_equal(to_numpy(dst.state_dict()[k]), to_numpy(v))


def test_safe_globals_admit_a_class_the_user_trusts():
    import argparse

    buffer = saved_by(torch, {"args": argparse.Namespace(lr=0.1)})
    with pytest.raises(Exception, match="add_safe_globals"):
        cr.load(io.BytesIO(buffer.getvalue()))
    with cr.serialization.safe_globals([argparse.Namespace]):
        loaded = cr.load(io.BytesIO(buffer.getvalue()))
    assert loaded["args"].lr == 0.1
    assert cr.serialization.get_safe_globals() == []
    cr.serialization.add_safe_globals([argparse.Namespace])
    try:
        assert cr.load(io.BytesIO(buffer.getvalue()))["args"].lr == 0.1
    finally:
        cr.serialization.clear_safe_globals()


def test_weights_only_false_still_runs_no_code():
    buffer = saved_by(torch, {"w": torch.ones(1)})
    assert cr.load(buffer, weights_only=False)["w"].tolist() == [1.0]


def test_numpy_arrays_load_with_weights_only_false_as_in_torch():
    arrays = {
        "f8": np.arange(6.0).reshape(2, 3),
        "i4": np.array([[1, -2]], dtype=np.int32),
        "f4_t": np.arange(6, dtype=np.float32).reshape(2, 3).T,
        "scalar": np.float64(2.5),
        "w": torch.ones(2),
    }
    buffer = io.BytesIO()
    torch.save(arrays, buffer)
    for L in (torch, cr):
        buffer.seek(0)
        loaded = L.load(buffer, weights_only=False)
        for key in ("f8", "i4", "f4_t", "scalar"):
            assert type(loaded[key]) is type(arrays[key]) and loaded[key].dtype == arrays[key].dtype
            np.testing.assert_array_equal(loaded[key], arrays[key])
        assert loaded["w"].tolist() == [1.0, 1.0]
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        cr.load(buffer)  # weights_only=True refuses them, as torch does
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(buffer)


def whole_model(L):
    """A model whose pickle names layer classes, a Sequential and a Parameter."""
    L.manual_seed(0)
    return L.nn.Sequential(
        L.nn.Conv2d(1, 2, 3), L.nn.ReLU(), L.nn.Flatten(), L.nn.Linear(8, 3), L.nn.Softmax(1)
    )


def test_a_whole_model_saved_by_torch_loads_with_weights_only_false():
    model = whole_model(torch)
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    loaded = cr.load(buffer, weights_only=False)
    assert isinstance(loaded, cr.nn.Sequential) and isinstance(loaded[3], cr.nn.Linear)
    assert type(loaded[3].weight) is cr.nn.Parameter and loaded[3].weight.requires_grad
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    got = loaded(cr.from_numpy(x))
    np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-6)
    assert list(loaded.state_dict()) == list(model.state_dict())
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        cr.load(buffer)  # weights_only=True, the default, refuses the classes


def test_a_whole_model_saved_by_chainrule_loads_with_weights_only_false():
    model = whole_model(cr)
    buffer = io.BytesIO()
    cr.save(model, buffer)
    buffer.seek(0)
    loaded = cr.load(buffer, weights_only=False)
    x = cr.randn(2, 1, 4, 4)
    assert cr.equal(loaded(x), model(x))
    assert repr(loaded) == repr(model)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.ones(2, 3, requires_grad=True),
        lambda L: L.tensor([1, 2], dtype=L.int16),
        lambda L: L.nn.Parameter(L.zeros(2)),
        lambda L: L.arange(6.0).reshape(2, 3).t(),
    ],
)
def test_pickling_a_tensor_round_trips(make):
    import pickle

    t = make(cr)
    back = pickle.loads(pickle.dumps(t))
    assert type(back) is type(t) and back.dtype == t.dtype
    assert back.requires_grad == t.requires_grad
    np.testing.assert_array_equal(back.detach().numpy(), t.detach().numpy())
