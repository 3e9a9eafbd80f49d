"""float8 tensors in files, both ways with the real PyTorch: torch.save/torch.load archives
(PyTorch 2.13 names a float8 tensor ``torch._utils._rebuild_tensor_v3`` over a
``torch.storage.UntypedStorage`` of one byte an element, its dtype an argument) and
safetensors ("F8_E4M3", "F8_E5M2", "F8_E4M3FNUZ", "F8_E5M2FNUZ"). Every comparison is of
the bits (each element's bytes as uint8), exact: a file moves bits, it computes nothing.
Without ml_dtypes, a file holding float8 is refused with chainrule's
NotImplementedInChainrule."""

from __future__ import annotations

import io
import pickle
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

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
CODES = {
    "float8_e4m3fn": "F8_E4M3",
    "float8_e5m2": "F8_E5M2",
    "float8_e4m3fnuz": "F8_E4M3FNUZ",
    "float8_e5m2fnuz": "F8_E5M2FNUZ",
}


def bits(t) -> np.ndarray:
    """Each element's bytes, as uint8 (flattened first, so any dtype and a 0-d tensor fit),
    from a tensor of either library."""
    lib = torch if isinstance(t, torch.Tensor) else cr
    return t.detach().contiguous().reshape(-1).view(lib.uint8).numpy()


def every_byte(L, name: str):
    """All 256 bit patterns of a float8 format (its nans, infinities, zeros, subnormals),
    made with no conversion."""
    return L.arange(256, dtype=L.uint8).view(getattr(L, name))


def values(L, name: str) -> dict:
    """Tensors of one float8 format of every kind a checkpoint holds, made the same way in
    either library: views of one tensor (a row, a column, the transpose, a slice off its
    start), a Parameter, every bit pattern, a scalar, an empty tensor, beside bfloat16,
    float32 and int64 ones, the dtype itself and a state_dict."""
    dt = getattr(L, name)
    x = L.arange(-12.0, 12.0).reshape(4, 6).div(7).to(dt)
    return {
        "x": x,
        "row": x[1],
        "col": x[:, 2],
        "xt": x.t(),
        "tail": x.flatten()[5:],
        "p": L.nn.Parameter(L.linspace(-1, 1, 5).to(dt), requires_grad=False),
        "all": every_byte(L, name),
        "scalar": L.tensor(2.5, dtype=dt),
        "empty": L.zeros(0, 3, dtype=dt),
        "bf16": L.tensor([1.1, -2.2]).bfloat16(),
        "f32": L.tensor([1.1, 2.2]),
        "i64": L.tensor([3, -4]),
        "dtype": dt,
        "state": OrderedDict(w=L.ones(2, 2, dtype=dt), b=L.zeros(2, dtype=L.bfloat16), s=L.ones(3)),
    }


def assert_same(got, want) -> None:
    file_checks.assert_same(got, want, bits, offsets=False)


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("name", FLOAT8)
def test_torch_saves_chainrule_loads_the_same_bits(name, weights_only):
    loaded = cr.load(saved(torch, values(torch, name)), weights_only=weights_only)
    assert_same(loaded, values(torch, name))
    assert loaded["dtype"] is getattr(cr, name)
    assert loaded["x"]._data.dtype.name == name and loaded["x"]._data.itemsize == 1


@pytest.mark.parametrize("name", FLOAT8)
def test_chainrule_saves_torch_loads_the_same_bits_with_weights_only(name):
    loaded = torch.load(saved(cr, values(cr, name)), weights_only=True)
    assert_same(loaded, values(cr, name))
    assert loaded["dtype"] is getattr(torch, name)
    assert_same(loaded, values(torch, name))  # and chainrule's tensors are torch's, bit for bit


def data_pkl(buffer: io.BytesIO) -> bytes:
    archive = zipfile.ZipFile(buffer)
    (pkl,) = [n for n in archive.namelist() if n.endswith("/data.pkl")]
    return archive.read(pkl)


@pytest.mark.parametrize("name", FLOAT8)
def test_data_pkl_is_the_one_torch_writes(name):
    """The same object saved by either library: data.pkl byte for byte. Its float8 tensors
    are ``_rebuild_tensor_v3`` calls over ``torch.storage.UntypedStorage`` (named once,
    referred back to after), the others ``_rebuild_tensor_v2`` over typed storages."""
    ours = data_pkl(saved(cr, values(cr, name)))
    assert ours == data_pkl(saved(torch, values(torch, name)))
    globals_named = [arg for op, arg, _ in pickletools.genops(ours) if op.name == "GLOBAL"]
    assert globals_named.count("torch.storage UntypedStorage") == 1
    assert globals_named.count("torch._utils _rebuild_tensor_v3") == 1
    assert "torch BFloat16Storage" in globals_named and "torch FloatStorage" in globals_named
    assert not any(g.startswith("torch Float8") for g in globals_named)


def test_untyped_storages_count_bytes_as_torch_writes_them():
    """The persistent id of an untyped storage holds its size in bytes, and the record is
    one byte an element; the four formats, in one file, each have a storage of their own."""

    def obj(L):
        return {n: L.arange(5.0).to(getattr(L, n))[1:] for n in FLOAT8}

    def records(buffer):
        pids = [arg for op, arg, _ in pickletools.genops(data_pkl(buffer)) if op.name == "BININT1"]
        archive = zipfile.ZipFile(buffer)
        sizes = sorted(archive.getinfo(n).file_size for n in archive.namelist() if "/data/" in n)
        return pids, sizes

    ours, theirs = records(saved(cr, obj(cr))), records(saved(torch, obj(torch)))
    assert ours == theirs
    assert ours[1] == [5, 5, 5, 5]
    loaded = torch.load(saved(cr, obj(cr)))
    assert [loaded[n].untyped_storage().nbytes() for n in FLOAT8] == [5, 5, 5, 5]
    assert [loaded[n].storage_offset() for n in FLOAT8] == [1, 1, 1, 1]


@pytest.mark.parametrize("saver", [torch, cr])
@pytest.mark.parametrize("loader", [torch, cr])
def test_views_share_one_storage_after_loading(saver, loader):
    loaded = loader.load(saved(saver, values(saver, "float8_e4m3fn")))
    file_checks.check_views_share(loaded, loader, 96.0)  # (float8_e4m3fn holds 96 exactly)


def test_a_loaded_file_saved_again_keeps_its_views_in_one_storage():
    loaded = cr.load(saved(torch, values(torch, "float8_e5m2")))
    again = torch.load(saved(cr, loaded))
    file_checks.check_one_storage(again, 24)
    assert_same(again, values(torch, "float8_e5m2"))


def bit_views(L) -> dict:
    """A float8 tensor, its bytes as uint8 and as another float8 format (a slice): views of
    one memory that PyTorch's file holds as one storage of bytes."""
    u = L.arange(40, 48, dtype=L.uint8)
    return {"u": u, "f": u.view(L.float8_e4m3fn), "g": u[2:].view(L.float8_e5m2)}


@pytest.mark.parametrize("saver", [torch, cr])
@pytest.mark.parametrize("loader", [torch, cr])
def test_a_float8_tensor_and_its_bytes_share_one_storage(saver, loader):
    buffer = saved(saver, bit_views(saver))
    if saver is cr:  # (data.pkl as torch writes it: ByteStorage and UntypedStorage, one key)
        assert data_pkl(buffer) == data_pkl(saved(torch, bit_views(torch)))
        buffer.seek(0)
    loaded = loader.load(buffer)
    assert_same(loaded, bit_views(torch))
    with loader.no_grad():
        loaded["u"][3] = 56  # (1.0's bits in float8_e4m3fn)
    assert loaded["f"][3].item() == 1.0
    assert loaded["g"].view(loader.uint8)[1].item() == 56


def test_a_float8_model_s_state_dict_moves_both_ways():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3))
    theirs[0].to(torch.float8_e4m3fn)
    theirs[1].to(torch.bfloat16)
    ours = cr.nn.Sequential(cr.nn.Linear(4, 3), cr.nn.LayerNorm(3))
    result = ours.load_state_dict(cr.load(saved(torch, theirs.state_dict())), assign=True)
    assert not result.missing_keys and not result.unexpected_keys
    assert_same(ours.state_dict(), theirs.state_dict())
    assert ours[0].weight.dtype is cr.float8_e4m3fn and ours[1].bias.dtype is cr.bfloat16
    back = torch.load(saved(cr, ours.state_dict()), weights_only=True)
    assert_same(back, theirs.state_dict())


def test_a_whole_float8_model_saved_by_torch_loads_with_weights_only_false():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()).to(torch.float8_e5m2)
    loaded = cr.load(saved(torch, model), weights_only=False)
    assert isinstance(loaded[0], cr.nn.Linear) and loaded[0].weight.dtype is cr.float8_e5m2
    assert_same(loaded.state_dict(), model.state_dict())


def test_a_storage_saved_on_its_own_is_refused_clearly():
    """PyTorch loads a bare float8 storage (an UntypedStorage): chainrule has no storage
    objects, and says so rather than hand back its bytes."""
    storage = torch.tensor([1.5, -2.0]).to(torch.float8_e4m3fn).untyped_storage()
    buffer = saved(torch, {"s": storage})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's TypedStorage deprecation warning)
        assert torch.load(io.BytesIO(buffer.getvalue()))["s"].nbytes() == 2
    with pytest.raises(NotImplementedError, match="storage saved on its own"):
        cr.load(buffer)


def with_data_pkl(buffer: io.BytesIO, edit) -> io.BytesIO:
    """The archive with its data.pkl edited (its other records as they were)."""
    source, out = zipfile.ZipFile(buffer), io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for n in source.namelist():
            raw = source.read(n)
            archive.writestr(n, edit(raw) if n.endswith("/data.pkl") else raw)
    out.seek(0)
    return out


@pytest.mark.parametrize(
    ("edit", "error", "match"),
    [
        (  # _rebuild_tensor_v2 over an untyped storage: its bytes have no dtype
            lambda pkl: pkl.replace(b"_rebuild_tensor_v3", b"_rebuild_tensor_v2"),
            pickle.UnpicklingError,
            "untyped storage that names no dtype",
        ),
        (  # 6 bytes read as float32: no whole number of elements
            lambda pkl: pkl.replace(b"torch\nfloat8_e4m3fn\n", b"torch\nfloat32\n"),
            RuntimeError,
            "no whole number of torch.float32 elements",
        ),
        (  # a tensor's dtype that is not a dtype
            lambda pkl: pkl.replace(b"torch\nfloat8_e4m3fn\n", b"torch\nSize\n"),
            pickle.UnpicklingError,
            "expected a dtype",
        ),
    ],
    ids=["v2", "size", "dtype"],
)
def test_a_crafted_untyped_storage_is_refused(edit, error, match):
    buffer = saved(torch, {"x": torch.ones(6).to(torch.float8_e4m3fn)})
    with pytest.raises(error, match=match):
        cr.load(with_data_pkl(buffer, edit))


def safetensors_values(L) -> dict:
    """Contiguous tensors of the four formats (every bit pattern, a 2-d one, a scalar, an
    empty one) beside bfloat16 and float32 ones."""
    out = {n: every_byte(L, n) for n in FLOAT8}
    out["x8"] = L.arange(-6.0, 6.0).reshape(3, 4).div(5).to(L.float8_e4m3fn)
    out["s8"] = L.tensor(-0.75, dtype=L.float8_e5m2)
    out["e8"] = L.zeros(0, 2, dtype=L.float8_e5m2fnuz)
    out["bf16"] = L.tensor([1.1, -2.2]).bfloat16()
    out["f32"] = L.tensor([[1.1, 2.2]])
    return out


def test_safetensors_chainrule_writes_safetensors_torch_reads(tmp_path):
    path = tmp_path / "ours.safetensors"
    cr.save_safetensors(safetensors_values(cr), path, metadata={"format": "pt"})
    header = read_header(path)
    for name, code in CODES.items():
        assert header[name]["dtype"] == code
        assert header[name]["data_offsets"][1] - header[name]["data_offsets"][0] == 256
    assert header["x8"]["dtype"] == "F8_E4M3" and header["e8"]["shape"] == [0, 2]
    loaded = safetensors.torch.load_file(str(path))
    theirs = safetensors_values(torch)
    assert sorted(loaded) == sorted(theirs)
    for k, want in theirs.items():
        assert loaded[k].dtype == want.dtype and loaded[k].shape == want.shape
        np.testing.assert_array_equal(bits(loaded[k]), bits(want))


def test_safetensors_torch_writes_chainrule_reads(tmp_path):
    path = tmp_path / "theirs.safetensors"
    theirs = safetensors_values(torch)
    safetensors.torch.save_file(theirs, str(path))
    assert {read_header(path)[n]["dtype"] for n in FLOAT8} == set(CODES.values())
    loaded = cr.load_safetensors(path)
    assert sorted(loaded) == sorted(theirs)
    for k, want in theirs.items():
        assert str(loaded[k].dtype) == str(want.dtype)
        assert tuple(loaded[k].shape) == tuple(want.shape)
        np.testing.assert_array_equal(bits(loaded[k]), bits(want))
    loaded["x8"][0, 0] = 1.0  # (writable, as the other dtypes' tensors are)
    assert loaded["x8"][0, 0].item() == 1.0


def test_a_damaged_float8_safetensors_file_is_refused_by_the_package(tmp_path):
    """chainrule reads float8 bytes itself, after the safetensors package has checked the
    header: a header whose offsets do not fit the shape is the package's error."""
    path = tmp_path / "bad.safetensors"
    safetensors.torch.save_file({"w": torch.ones(4).to(torch.float8_e5m2)}, str(path))
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b'"shape":[4]', b'"shape":[5]'))
    with pytest.raises(Exception, match="(?i)invalid|mismatch|offset"):
        safetensors.torch.load_file(str(path))
    with pytest.raises(Exception, match="(?i)invalid|mismatch|offset"):
        cr.load_safetensors(path)


def test_without_ml_dtypes_float8_files_are_a_clear_error(tmp_path):
    """With ml_dtypes missing, loading float8 storages (torch.load, weights_only True and
    False) or F8 tensors (safetensors) raises _load_reduced's NotImplementedInChainrule;
    files without float8 data load as before, a ``torch.float8_e5m2`` dtype object
    included."""
    torch.save({"w": torch.ones(2).to(torch.float8_e4m3fn), "f": torch.ones(2)}, tmp_path / "f8.pt")
    torch.save({"f": torch.ones(2), "dtype": torch.float8_e5m2}, tmp_path / "f32.pt")
    safetensors.torch.save_file(
        {"w": torch.ones(2).to(torch.float8_e4m3fn)}, str(tmp_path / "f8.st")
    )
    safetensors.torch.save_file({"f": torch.ones(2)}, str(tmp_path / "f32.st"))
    code = (
        "import sys\nsys.modules['ml_dtypes'] = None\n"
        "import chainrule as torch\n"
        "from chainrule._missing import NotImplementedInChainrule\n"
        f"d = {str(tmp_path)!r}\n"
        "for load in (lambda: torch.load(d + '/f8.pt'),\n"
        "             lambda: torch.load(d + '/f8.pt', weights_only=False),\n"
        "             lambda: torch.load_safetensors(d + '/f8.st')):\n"
        "    try:\n"
        "        load()\n"
        "        print('loaded')\n"
        "    except NotImplementedInChainrule as e:\n"
        "        print(isinstance(e, NotImplementedError), e)\n"
        "print(torch.load(d + '/f32.pt'))\n"
        "print(torch.load_safetensors(d + '/f32.st'))\n"
    )
    lines = run_fresh(code)
    assert len(lines) == 5
    for line in lines[:3]:
        assert line.startswith("True torch.float8_e4m3fn needs the optional package ml_dtypes")
    assert lines[3:] == [
        "{'f': tensor([1., 1.]), 'dtype': torch.float8_e5m2}",
        "{'f': tensor([1., 1.])}",
    ]
