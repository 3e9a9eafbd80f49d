"""bfloat16 tensors in files, both ways with the real PyTorch: torch.save/torch.load archives
(storages named ``torch.BFloat16Storage``, two bytes an element) and safetensors ("BF16").
Every comparison is of the bits (each element's 16 bits as int16), exact: a file moves bits,
it computes nothing. Without ml_dtypes, a file holding bfloat16 is refused with chainrule's
NotImplementedInChainrule, and files without bfloat16 still load."""

from __future__ import annotations

import io
import pickletools
import warnings
import zipfile
from collections import OrderedDict

import file_checks
import numpy as np
import pytest
import safetensors.torch
import torch
from file_checks import read_header, run_fresh, saved

import chainrule as cr
from chainrule.serialization._archive import ArchiveWriter

# bfloat16's corners, by their bits (made with no conversion, which could pick another nan):
# signed zeros, infinities, a quiet nan, the all-ones nan, a signalling nan, the largest
# finite, the smallest normal (2**-126), the smallest subnormal, 1.1 rounded
SPECIAL_BITS = [0, -32768, 0x7F80, -128, 0x7FC0, -1, 0x7F81, 0x7F7F, 0x0080, 1, 0x3F8D]


def bits(t) -> np.ndarray:
    """Each element's 16 bits, as int16, from a tensor of either library."""
    lib = torch if isinstance(t, torch.Tensor) else cr
    return t.detach().contiguous().view(lib.int16).numpy()


def values(L):
    """bfloat16 tensors of every kind a checkpoint holds, made the same way in either library:
    views of one tensor (a row, a column, the transpose, a slice off its start), a
    Parameter, special values, a scalar, an empty tensor, beside float32 and int64 ones."""
    x = L.arange(-12.0, 12.0).reshape(4, 6).div(7).to(L.bfloat16)
    return {
        "x": x,
        "row": x[1],
        "col": x[:, 2],
        "xt": x.t(),
        "tail": x.flatten()[5:],
        "p": L.nn.Parameter(L.linspace(-1, 1, 5).bfloat16()),
        "special": L.tensor(SPECIAL_BITS, dtype=L.int16).view(L.bfloat16),
        "scalar": L.tensor(2.5, dtype=L.bfloat16),
        "empty": L.zeros(0, 3, dtype=L.bfloat16),
        "f32": L.tensor([1.1, 2.2]),
        "i64": L.tensor([3, -4]),
        "dtype": L.bfloat16,
        "state": OrderedDict(w=L.ones(2, 2, dtype=L.bfloat16), b=L.zeros(2)),
    }


def assert_same(got, want) -> None:
    file_checks.assert_same(got, want, bits, offsets=True)


@pytest.mark.parametrize("weights_only", [True, False])
def test_torch_saves_chainrule_loads_the_same_bits(weights_only):
    loaded = cr.load(saved(torch, values(torch)), weights_only=weights_only)
    assert_same(loaded, values(torch))
    assert loaded["dtype"] is cr.bfloat16
    assert loaded["x"]._data.dtype.name == "bfloat16"  # two bytes an element, not widened


def test_chainrule_saves_torch_loads_the_same_bits_with_weights_only():
    loaded = torch.load(saved(cr, values(cr)), weights_only=True)
    assert_same(loaded, values(cr))
    assert loaded["dtype"] is torch.bfloat16
    assert_same(loaded, values(torch))  # and chainrule's tensors are torch's, bit for bit


@pytest.mark.parametrize("saver", [torch, cr])
@pytest.mark.parametrize("loader", [torch, cr])
def test_views_share_one_storage_after_loading(saver, loader):
    file_checks.check_views_share(loader.load(saved(saver, values(saver))), loader, 100.0)


def test_a_loaded_file_saved_again_keeps_its_views_in_one_storage():
    loaded = cr.load(saved(torch, values(torch)))
    again = torch.load(saved(cr, loaded))
    file_checks.check_one_storage(again, 24 * 2)
    assert_same(again, values(torch))


def storage_records(buffer: io.BytesIO) -> tuple[list[str], dict[str, int]]:
    """The storage classes data.pkl names, in order, and each storage record's byte size."""
    archive = zipfile.ZipFile(buffer)
    (pkl,) = [n for n in archive.namelist() if n.endswith("/data.pkl")]
    names = [
        arg
        for op, arg, _ in pickletools.genops(archive.read(pkl))
        if op.name == "GLOBAL" and arg.endswith("Storage")
    ]
    sizes = {
        n.rsplit("/", 1)[1]: archive.getinfo(n).file_size
        for n in archive.namelist()
        if "/data/" in n
    }
    return names, sizes


def test_storages_are_named_and_sized_as_torch_writes_them():
    def obj(L):
        x = L.arange(10.0).to(L.bfloat16)
        return {"x": x, "half": x[5:], "f": L.ones(3), "y": L.ones(2, 3, dtype=L.bfloat16).t()}

    ours, theirs = storage_records(saved(cr, obj(cr))), storage_records(saved(torch, obj(torch)))
    assert ours == theirs
    assert ours[0] == ["torch BFloat16Storage", "torch FloatStorage"]  # each named once
    assert ours[1] == {"0": 20, "1": 12, "2": 12}  # numel * 2 bytes for bfloat16
    loaded = torch.load(saved(cr, obj(cr)))
    assert loaded["x"].untyped_storage().nbytes() == 20
    assert loaded["half"].untyped_storage().nbytes() == 20


def test_data_pkl_is_the_one_torch_writes():
    """The same object saved by either library: data.pkl byte for byte (storage classes
    named once each, shared storages referred back to, dtypes and Parameters)."""

    def pickled(L) -> bytes:
        archive = zipfile.ZipFile(saved(L, values(L)))
        (pkl,) = [n for n in archive.namelist() if n.endswith("/data.pkl")]
        return archive.read(pkl)

    assert pickled(cr) == pickled(torch)


def test_element_size_and_nbytes_as_torch():
    ours, theirs = cr.load(saved(torch, values(torch))), values(torch)
    for k in ("x", "col", "tail", "scalar", "empty", "special"):
        got, want = ours[k], theirs[k]
        assert (got.element_size(), got.itemsize, got.nbytes) == (
            want.element_size(),
            want.itemsize,
            want.nbytes,
        )
    assert ours["x"].element_size() == 2 and ours["x"].nbytes == 48


def test_a_bfloat16_model_s_state_dict_moves_both_ways():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3)).bfloat16()
    ours = cr.nn.Sequential(cr.nn.Linear(4, 3), cr.nn.LayerNorm(3)).bfloat16()
    result = ours.load_state_dict(cr.load(saved(torch, theirs.state_dict())))
    assert not result.missing_keys and not result.unexpected_keys
    assert_same(ours.state_dict(), theirs.state_dict())
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    with torch.no_grad():
        want = theirs(torch.from_numpy(x).bfloat16()).float().numpy()
    got = ours(cr.from_numpy(x).bfloat16())
    assert got.dtype is cr.bfloat16
    # a linear layer and a normalization: bfloat16 tolerances (a few ulps, as the brief says)
    np.testing.assert_allclose(got.float().detach().numpy(), want, rtol=1.6e-2, atol=1e-2)
    torch.manual_seed(1)
    other = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3)).bfloat16()
    other.load_state_dict(torch.load(saved(cr, ours.state_dict())))
    assert_same(other.state_dict(), theirs.state_dict())


def test_a_whole_bfloat16_model_saved_by_torch_loads_with_weights_only_false():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()).bfloat16()
    loaded = cr.load(saved(torch, model), weights_only=False)
    assert isinstance(loaded[0], cr.nn.Linear) and loaded[0].weight.dtype is cr.bfloat16
    assert_same(loaded.state_dict(), model.state_dict())


@pytest.mark.parametrize(
    "map_location",
    [None, "cpu", cr.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage],
    ids=["none", "str", "device", "dict", "callable"],
)
@pytest.mark.parametrize("mmap", [None, True])
def test_map_location_and_mmap(tmp_path, map_location, mmap):
    path = tmp_path / "bf16.pt"
    torch.save(values(torch), path)
    assert_same(cr.load(path, map_location=map_location, mmap=mmap), values(torch))


def big_endian(buffer: io.BytesIO) -> io.BytesIO:
    """The same archive as a big-endian machine writes it: ``byteorder`` says "big" and each
    storage's elements have their bytes swapped (2-byte swaps for bfloat16 and int16)."""
    archive = zipfile.ZipFile(buffer)
    prefix = archive.namelist()[0].split("/")[0] + "/"
    out = io.BytesIO()
    writer = ArchiveWriter(out, "archive")
    writer.write("data.pkl", archive.read(prefix + "data.pkl"))
    writer.write("byteorder", b"big")
    for name in archive.namelist():
        if "/data/" in name:
            raw = np.frombuffer(archive.read(name), dtype="<u2").astype(">u2").tobytes()
            writer.write(name[len(prefix) :], raw, aligned=True)
    writer.close()
    out.seek(0)
    return out


def test_a_big_endian_file_loads_as_torch_loads_it():
    obj = {"x": values(torch)["special"], "i": torch.tensor([1, -2], dtype=torch.int16)}
    crafted = big_endian(saved(torch, obj))
    want = torch.load(io.BytesIO(crafted.getvalue()))
    assert_same(want, obj)  # torch swaps the bytes back
    assert_same(cr.load(crafted), obj)


def test_safetensors_chainrule_writes_safetensors_torch_reads(tmp_path):
    path = tmp_path / "ours.safetensors"
    ours = values(cr)
    names = ("x", "xt", "special", "scalar", "empty", "f32", "i64")
    cr.save_safetensors({k: ours[k] for k in names}, path, metadata={"format": "pt"})
    header = read_header(path)
    assert header["x"]["dtype"] == "BF16" and header["f32"]["dtype"] == "F32"
    assert header["xt"]["data_offsets"][1] - header["xt"]["data_offsets"][0] == 48
    loaded = safetensors.torch.load_file(str(path))
    theirs = values(torch)
    for k in names:
        assert loaded[k].dtype == theirs[k].dtype and loaded[k].shape == theirs[k].shape
        np.testing.assert_array_equal(bits(loaded[k]), bits(theirs[k]))


def test_safetensors_torch_writes_chainrule_reads(tmp_path):
    path = tmp_path / "theirs.safetensors"
    theirs = values(torch)
    names = ("x", "special", "scalar", "empty", "f32", "i64")
    safetensors.torch.save_file({k: theirs[k] for k in names}, str(path))
    loaded = cr.load_safetensors(path)
    assert sorted(loaded) == sorted(names)
    for k in names:
        assert str(loaded[k].dtype) == str(theirs[k].dtype)
        assert tuple(loaded[k].shape) == tuple(theirs[k].shape)
        np.testing.assert_array_equal(bits(loaded[k]), bits(theirs[k]))


def test_a_fresh_process_loads_bfloat16_safetensors(tmp_path):
    """safetensors' NumPy API knows "bfloat16" only once ml_dtypes is imported: chainrule
    imports it when a file's header names BF16, even before any bfloat16 tensor exists."""
    path = tmp_path / "w.safetensors"
    safetensors.torch.save_file({"w": torch.tensor([1.5, -2.25]).bfloat16()}, str(path))
    code = (
        "import sys\nimport chainrule as torch\n"
        "print('ml_dtypes' in sys.modules)\n"
        f"w = torch.load_safetensors({str(path)!r})['w']\n"
        "print(w.dtype, w.tolist())\n"
    )
    assert run_fresh(code) == ["False", "torch.bfloat16 [1.5, -2.25]"]


def test_without_ml_dtypes_bfloat16_files_are_a_clear_error(tmp_path):
    """With ml_dtypes missing, loading bfloat16 storages (torch.load) or BF16 tensors
    (safetensors) raises _load_bfloat16's NotImplementedInChainrule; files without bfloat16
    data load as before, a ``torch.bfloat16`` dtype object included."""
    torch.save({"w": torch.ones(2).bfloat16(), "f": torch.ones(2)}, tmp_path / "bf16.pt")
    torch.save({"f": torch.ones(2), "dtype": torch.bfloat16}, tmp_path / "f32.pt")
    safetensors.torch.save_file({"w": torch.ones(2).bfloat16()}, str(tmp_path / "bf16.st"))
    safetensors.torch.save_file({"f": torch.ones(2)}, str(tmp_path / "f32.st"))
    code = (
        "import sys\nsys.modules['ml_dtypes'] = None\n"
        "import chainrule as torch\n"
        "from chainrule._missing import NotImplementedInChainrule\n"
        f"d = {str(tmp_path)!r}\n"
        "for load in (lambda: torch.load(d + '/bf16.pt'),\n"
        "             lambda: torch.load_safetensors(d + '/bf16.st')):\n"
        "    try:\n"
        "        load()\n"
        "        print('loaded')\n"
        "    except NotImplementedInChainrule as e:\n"
        "        print(isinstance(e, NotImplementedError), e)\n"
        "print(torch.load(d + '/f32.pt'))\n"
        "print(torch.load_safetensors(d + '/f32.st'))\n"
    )
    lines = run_fresh(code)
    for line in lines[:2]:
        assert line.startswith("True torch.bfloat16 needs the optional package ml_dtypes")
    assert lines[2:] == [
        "{'f': tensor([1., 1.]), 'dtype': torch.bfloat16}",
        "{'f': tensor([1., 1.])}",
    ]


@pytest.mark.parametrize("which", ["storage", "untyped_storage"])
def test_a_storage_saved_on_its_own_is_refused_clearly(which):
    """PyTorch loads a bare bfloat16 storage (a TypedStorage or an UntypedStorage): chainrule
    has no storage objects, and says so rather than hand back its internals."""
    x = torch.tensor([1.5, -2.0]).bfloat16()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's TypedStorage deprecation warning)
        storage = getattr(x, which)()
        buffer = saved(torch, {"s": storage})
        assert torch.load(io.BytesIO(buffer.getvalue()))["s"].nbytes() == 4
    with pytest.raises(NotImplementedError, match="storage saved on its own"):
        cr.load(buffer)


def test_loaded_tensors_keep_their_storage_offsets_as_torch():
    """A tensor loaded from a file counts its storage offset from the start of the file's
    storage (its data pointer minus the storage's, in elements), as PyTorch's; it is not a
    view (``_base`` None)."""

    def layout(L):
        x = L.arange(12.0).reshape(3, 4).clone()
        d = L.load(saved(L, {"r": x[1], "c": x[:, 2], "x": x, "t": x.t()[1:]}))
        out = {}
        for k, v in sorted(d.items()):
            s = v.untyped_storage()
            out[k] = (v.storage_offset(), v.stride(), s.nbytes(), v.data_ptr() - s.data_ptr())
        return out, d["r"]._base is None

    assert layout(cr) == layout(torch)
    y = cr.arange(6.0).reshape(2, 3).clone()
    assert y[1:]._base is y and y._base is None and y[1:].storage_offset() == 3
