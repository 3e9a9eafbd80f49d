"""Loading an untrusted file runs nothing from it: crafted archives (a ``__reduce__``
payload, a global that is not allowed, a truncated archive, a storage of the wrong size,
a tensor reaching outside its storage, a file that is not an archive) each raise a clear
error, and the payload's side effect never happens."""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule._tensor import _rebuild
from chainrule.serialization._archive import ArchiveWriter
from chainrule.serialization._pickler import REBUILD_TENSOR, TorchPickler
from chainrule.serialization._storages import StorageRef, StorageTable, storage_bytes


class MakesADirectory:
    """A pickle payload: unpickling it would create ``path``."""

    def __init__(self, path, via):
        self.path, self.via = path, via

    def __reduce__(self):
        if self.via == "os.mkdir":
            return (os.mkdir, (self.path,))
        return (eval, (f"__import__('os').mkdir({self.path!r})",))


class ModuleWithAPayload(cr.nn.Module):
    """A module class, as weights_only=False admits, whose pickled state holds a payload."""

    def __init__(self, path, via):
        super().__init__()
        self.payload = MakesADirectory(path, via)


@pytest.mark.parametrize("weights_only", [None, True, False])
@pytest.mark.parametrize("via", ["os.mkdir", "builtins.eval"])
def test_a_reduce_payload_is_refused_and_never_runs(tmp_path, via, weights_only):
    target = tmp_path / "pwned"
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(1), "x": MakesADirectory(str(target), via)}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as err:
        cr.load(buffer, weights_only=weights_only)
    assert "is blocked" in str(err.value) or "not an allowed global" in str(err.value)
    assert not target.exists()


@pytest.mark.parametrize("via", ["os.mkdir", "builtins.eval"])
def test_a_payload_inside_a_whole_module_is_refused_with_weights_only_false(tmp_path, via):
    target = tmp_path / "pwned"
    buffer = io.BytesIO()
    cr.save(ModuleWithAPayload(str(target), via), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as err:
        cr.load(buffer, weights_only=False)
    assert "is blocked" in str(err.value) or "not an allowed global" in str(err.value)
    assert not target.exists()


def torch_archive(**tensors) -> bytes:
    buffer = io.BytesIO()
    torch.save(tensors, buffer)
    return buffer.getvalue()


def rewritten(archive: bytes, change) -> io.BytesIO:
    """The archive with each record's bytes passed through ``change(name, data)``."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, change(info.filename, src.read(info.filename)))
    out.seek(0)
    return out


def test_a_truncated_archive_raises():
    archive = torch_archive(w=torch.arange(100.0))
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed"):
        cr.load(io.BytesIO(archive[: len(archive) // 2]))


def test_a_file_that_is_not_an_archive_raises():
    with pytest.raises(pickle.UnpicklingError):  # (PyTorch's type)
        torch.load(io.BytesIO(b"not a checkpoint at all"))
    with pytest.raises(pickle.UnpicklingError, match="neither a zip archive"):
        cr.load(io.BytesIO(b"not a checkpoint at all"))


def test_a_storage_of_the_wrong_size_raises():
    damaged = rewritten(
        torch_archive(w=torch.arange(6.0)),
        lambda name, data: data[:8] if name.endswith("data/0") else data,
    )
    with pytest.raises(RuntimeError, match="storage has wrong byte size"):
        cr.load(damaged)


class Crafted:
    """A tensor record whose size and strides the test chooses freely."""

    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False, OrderedDict())

    def __reduce__(self):
        return (REBUILD_TENSOR, self.args)


def crafted_archive(offset, size, stride, numel=4) -> io.BytesIO:
    storages = StorageTable()
    ref = StorageRef("0", cr.float32, np.arange(numel, dtype=np.float32))
    storages.refs.append(ref)
    pkl = io.BytesIO()
    TorchPickler(pkl, storages).dump({"w": Crafted(ref, offset, size, stride)})
    out = io.BytesIO()
    writer = ArchiveWriter(out, "archive")
    writer.write("data.pkl", pkl.getvalue())
    writer.write("byteorder", b"little")
    writer.write("data/0", storage_bytes(ref), aligned=True)
    writer.close()
    out.seek(0)
    return out


@pytest.mark.parametrize(
    "offset, size, stride",
    [(0, (10,), (1,)), (2, (2, 2), (2, 1)), (-1, (2,), (1,)), (0, (2,), (-1,)), (0, (-2,), (1,))],
    ids=["too long", "past the end", "negative offset", "negative stride", "negative size"],
)
def test_a_tensor_outside_its_storage_raises(offset, size, stride):
    with pytest.raises(RuntimeError, match="invalid tensor metadata"):
        cr.load(crafted_archive(offset, size, stride))


def test_a_crafted_view_inside_its_storage_loads_as_torch_loads_it():
    ours = cr.load(crafted_archive(1, (2, 2), (1, 1)))["w"]
    theirs = torch.load(crafted_archive(1, (2, 2), (1, 1)))["w"]
    assert ours.tolist() == theirs.tolist() == [[1.0, 2.0], [2.0, 3.0]]


@pytest.mark.parametrize(
    "args, phrase",
    [
        ((np.array([1, 2]), "float32", False), "expected an array of torch.float32"),
        ((np.array([1.0]), "xp", False), "unknown dtype"),
        ((np.array([1.0]), "__class__", False), "unknown dtype"),
        (([1.0], "float64", False), "expected an array"),
    ],
)
def test_unpickling_a_single_tensor_checks_its_dtype_and_data(args, phrase):
    payload = pickle.dumps(cr.ones(1))
    assert pickle.loads(payload).tolist() == [1.0]
    with pytest.raises(RuntimeError, match=phrase):
        _rebuild(*args)


def test_weights_only_false_admits_module_classes_only_from_imported_modules():
    from chainrule.serialization._unpickler import module_class

    assert module_class("torch.nn.modules.linear", "Linear") is cr.nn.Linear
    assert module_class(__name__, "ModuleWithAPayload") is ModuleWithAPayload
    assert module_class("os", "system") is None  # not a Module class
    assert module_class(__name__, "MakesADirectory") is None  # a class, not a Module
    assert module_class("a_module_never_imported", "Net") is None  # nothing is imported
