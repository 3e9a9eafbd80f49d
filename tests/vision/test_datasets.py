"""chainrule.vision.datasets against the real torchvision on the same synthetic files
(MNIST's IDX files, CIFAR's pickled batches, an image folder), downloads from ``file://``
URLs, and the refusal of a pickle that would run code."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile

import numpy as np
import pytest
from PIL import Image

import chainrule
from chainrule.utils.data import DataLoader
from chainrule.vision import datasets

RNG = np.random.default_rng(0)


def _idx_bytes(array: np.ndarray) -> bytes:
    code = {np.dtype(np.uint8): 8, np.dtype(np.int32): 12}[array.dtype]
    header = bytes([0, 0, code, array.ndim]) + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape
    )
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def _md5(path) -> str:
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def _pil_to_tensor(img):
    return chainrule.from_numpy(np.asarray(img, dtype=np.float32).copy() / 255)


@pytest.fixture
def mnist_root(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, n in (("train", 20), ("t10k", 7)):
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(
            _idx_bytes(RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8))
        )
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(
            _idx_bytes(RNG.integers(0, 10, n, dtype=np.uint8))
        )
    return tmp_path


def _assert_same_items(ours, theirs):
    assert len(ours) == len(theirs)
    for i in range(len(ours)):
        (a, ta), (b, tb) = ours[i], theirs[i]
        assert a.mode == b.mode and a.size == b.size
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert ta == tb and type(ta) is type(tb)


@pytest.mark.parametrize("train", [True, False])
def test_mnist_items_data_targets_repr(tv, mnist_root, train):
    ours, theirs = (
        datasets.MNIST(str(mnist_root), train=train),
        tv.datasets.MNIST(str(mnist_root), train=train),
    )
    _assert_same_items(ours, theirs)
    assert ours.data.dtype == chainrule.uint8 and tuple(ours.data.shape) == tuple(theirs.data.shape)
    np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
    assert ours.targets.dtype == chainrule.int64
    np.testing.assert_array_equal(ours.targets.numpy(), theirs.targets.numpy())
    assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx
    assert repr(ours) == repr(theirs)
    with pytest.warns(UserWarning, match="train_labels has been renamed targets"):
        assert ours.train_labels is ours.targets


def test_mnist_transforms_and_repr_with_transform(tv, mnist_root):
    class Twice:
        def __call__(self, x):
            return x * 2

        def __repr__(self):
            return "Twice()\nsecond line"

    ours = datasets.MNIST(mnist_root, transform=np.asarray, target_transform=Twice())
    theirs = tv.datasets.MNIST(mnist_root, transform=np.asarray, target_transform=Twice())
    img, target = ours[3]
    np.testing.assert_array_equal(img, theirs[3][0])
    assert target == theirs[3][1] == 2 * int(theirs.targets[3])
    assert repr(ours).replace("chainrule.vision", "torchvision") == repr(theirs)
    with pytest.raises(ValueError, match="Only transforms or transform/target_transform"):
        datasets.VisionDataset("x", transforms=Twice(), transform=Twice())


@pytest.mark.parametrize("name", ["FashionMNIST", "KMNIST"])
def test_mnist_variants(tv, tmp_path, mnist_root, name):
    os.rename(mnist_root / "MNIST", mnist_root / name)
    ours, theirs = getattr(datasets, name)(mnist_root), getattr(tv.datasets, name)(mnist_root)
    _assert_same_items(ours, theirs)
    assert ours.classes == theirs.classes and repr(ours) == repr(theirs)
    assert ours.resources == theirs.resources and ours.mirrors == theirs.mirrors


def test_emnist_and_qmnist(tv, tmp_path):
    raw = tmp_path / "EMNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "emnist-letters-test-images-idx3-ubyte").write_bytes(
        _idx_bytes(RNG.integers(0, 256, (5, 28, 28), np.uint8))
    )
    (raw / "emnist-letters-test-labels-idx1-ubyte").write_bytes(
        _idx_bytes(RNG.integers(1, 27, 5, np.uint8))
    )
    ours, theirs = (
        datasets.EMNIST(tmp_path, "letters", train=False),
        tv.datasets.EMNIST(tmp_path, "letters", train=False),
    )
    _assert_same_items(ours, theirs)
    assert ours.classes == theirs.classes and repr(ours) == repr(theirs)
    assert ours.classes_split_dict == theirs.classes_split_dict
    with pytest.raises(ValueError) as mine:
        datasets.EMNIST(tmp_path, "nope")
    with pytest.raises(ValueError) as real:
        tv.datasets.EMNIST(tmp_path, "nope")
    assert str(mine.value) == str(real.value)

    raw = tmp_path / "QMNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "qmnist-test-images-idx3-ubyte").write_bytes(
        _idx_bytes(RNG.integers(0, 256, (6, 28, 28), np.uint8))
    )
    (raw / "qmnist-test-labels-idx2-int").write_bytes(
        _idx_bytes(RNG.integers(0, 9, (6, 8), dtype=np.int32))
    )
    for compat in (True, False):
        ours, theirs = (
            datasets.QMNIST(tmp_path, what="test", compat=compat),
            tv.datasets.QMNIST(tmp_path, what="test", compat=compat),
        )
        assert repr(ours) == repr(theirs) and len(ours) == len(theirs) == 6
        np.testing.assert_array_equal(ours.targets.numpy(), theirs.targets.numpy())
        assert ours.targets.dtype == chainrule.int64
        a, b = ours[2], theirs[2]
        np.testing.assert_array_equal(np.asarray(a[0]), np.asarray(b[0]))
        if compat:
            assert a[1] == b[1]
        else:
            np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())


def test_mnist_missing_files_error(tv, tmp_path):
    with pytest.raises(RuntimeError) as mine:
        datasets.MNIST(tmp_path)
    with pytest.raises(RuntimeError) as real:
        tv.datasets.MNIST(tmp_path)
    assert (
        str(mine.value)
        == str(real.value)
        == "Dataset not found. You can use download=True to download it"
    )


def test_mnist_download_from_mirrors(tmp_path, monkeypatch):
    server = tmp_path / "server"
    server.mkdir()
    arrays = {
        "train-images-idx3-ubyte": RNG.integers(0, 256, (4, 28, 28), np.uint8),
        "train-labels-idx1-ubyte": RNG.integers(0, 10, 4, np.uint8),
        "t10k-images-idx3-ubyte": RNG.integers(0, 256, (3, 28, 28), np.uint8),
        "t10k-labels-idx1-ubyte": RNG.integers(0, 10, 3, np.uint8),
    }
    resources = []
    for name, array in arrays.items():
        (server / f"{name}.gz").write_bytes(gzip.compress(_idx_bytes(array)))
        resources.append((f"{name}.gz", _md5(server / f"{name}.gz")))
    # the first mirror has nothing: the download goes on to the second
    monkeypatch.setattr(
        datasets.MNIST, "mirrors", [f"file://{tmp_path}/empty/", f"file://{server}/"]
    )
    monkeypatch.setattr(datasets.MNIST, "resources", resources)
    root = tmp_path / "data"
    ds = datasets.MNIST(root, train=False, download=True)
    np.testing.assert_array_equal(ds.data.numpy(), arrays["t10k-images-idx3-ubyte"])
    np.testing.assert_array_equal(ds.targets.numpy(), arrays["t10k-labels-idx1-ubyte"])
    assert sorted(os.listdir(root / "MNIST" / "raw")) == sorted(
        list(arrays) + [f"{n}.gz" for n in arrays]
    )
    # present files are not fetched again (the mirrors now fail)
    monkeypatch.setattr(datasets.MNIST, "mirrors", [f"file://{tmp_path}/empty/"])
    assert len(datasets.MNIST(root, download=True)) == 4
    # a wrong checksum on every mirror: torchvision's message lists each mirror's error
    monkeypatch.setattr(datasets.MNIST, "resources", [("train-images-idx3-ubyte.gz", "0" * 32)])
    monkeypatch.setattr(datasets.MNIST, "mirrors", [f"file://{server}/"])
    with pytest.raises(RuntimeError) as err:
        datasets.MNIST(tmp_path / "other", download=True)
    assert str(err.value) == (
        f"Error downloading train-images-idx3-ubyte.gz:\nTried file://{server}/, got:\nFile not found or corrupted.\n"
    )


def _cifar_files(folder, n_train_per_batch=3, n_test=4, classes=("a", "b", "c")):
    folder.mkdir(parents=True)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        n = n_test if name == "test_batch" else n_train_per_batch
        entry = {
            "batch_label": name,
            "labels": [int(x) for x in RNG.integers(0, len(classes), n)],
            "data": RNG.integers(0, 256, (n, 3072), dtype=np.uint8),
            "filenames": [f"img{i}.png" for i in range(n)],
        }
        (folder / name).write_bytes(pickle.dumps(entry, protocol=2))
    (folder / "batches.meta").write_bytes(
        pickle.dumps({"label_names": list(classes), "num_vis": 3072})
    )


def _patch_cifar_md5(monkeypatch, cls, folder, names, meta_name):
    for attr, files in (("train_list", names[:-1]), ("test_list", names[-1:])):
        monkeypatch.setattr(cls, attr, [[n, _md5(folder / n)] for n in files])
    monkeypatch.setattr(cls, "meta", {**cls.meta, "md5": _md5(folder / meta_name)})


CIFAR10_NAMES = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]


@pytest.mark.parametrize("train", [True, False])
def test_cifar10_matches_torchvision(tv, tmp_path, monkeypatch, train):
    folder = tmp_path / "cifar-10-batches-py"
    _cifar_files(folder)
    for cls in (datasets.CIFAR10, tv.datasets.CIFAR10):
        _patch_cifar_md5(monkeypatch, cls, folder, CIFAR10_NAMES, "batches.meta")
    ours, theirs = (
        datasets.CIFAR10(tmp_path, train=train),
        tv.datasets.CIFAR10(tmp_path, train=train),
    )
    _assert_same_items(ours, theirs)
    assert isinstance(ours.data, np.ndarray) and ours.data.dtype == np.uint8
    np.testing.assert_array_equal(ours.data, theirs.data)
    assert ours.targets == theirs.targets and isinstance(ours.targets, list)
    assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx
    assert repr(ours) == repr(theirs)
    # a DataLoader batches the items
    ds = datasets.CIFAR10(tmp_path, train=train, transform=_pil_to_tensor)
    images, labels = next(iter(DataLoader(ds, batch_size=4, shuffle=False)))
    assert tuple(images.shape) == (4, 32, 32, 3) and labels.dtype == chainrule.int64
    np.testing.assert_allclose(images.numpy(), theirs.data[:4] / 255, rtol=1e-6)
    assert labels.tolist() == theirs.targets[:4]


def test_cifar100_matches_torchvision(tv, tmp_path, monkeypatch):
    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    for name, n in (("train", 5), ("test", 3)):
        entry = {
            "filenames": [f"f{i}" for i in range(n)],
            "fine_labels": [int(x) for x in RNG.integers(0, 4, n)],
            "coarse_labels": [int(x) for x in RNG.integers(0, 2, n)],
            "data": RNG.integers(0, 256, (n, 3072), dtype=np.uint8),
        }
        (folder / name).write_bytes(pickle.dumps(entry, protocol=2))
    (folder / "meta").write_bytes(
        pickle.dumps({"fine_label_names": ["w", "x", "y", "z"], "coarse_label_names": ["p", "q"]})
    )
    for cls in (datasets.CIFAR100, tv.datasets.CIFAR100):
        _patch_cifar_md5(monkeypatch, cls, folder, ["train", "test"], "meta")
    ours, theirs = datasets.CIFAR100(tmp_path), tv.datasets.CIFAR100(tmp_path)
    _assert_same_items(ours, theirs)
    assert (
        ours.targets == theirs.targets
        and ours.classes == theirs.classes
        and repr(ours) == repr(theirs)
    )


def test_cifar_missing_and_download(tv, tmp_path, monkeypatch):
    with pytest.raises(RuntimeError) as mine:
        datasets.CIFAR10(tmp_path / "none")
    with pytest.raises(RuntimeError) as real:
        tv.datasets.CIFAR10(tmp_path / "none")
    assert str(mine.value) == str(real.value)
    source = tmp_path / "src"
    _cifar_files(source / "cifar-10-batches-py")
    _patch_cifar_md5(
        monkeypatch, datasets.CIFAR10, source / "cifar-10-batches-py", CIFAR10_NAMES, "batches.meta"
    )
    archive = tmp_path / "server" / "cifar-10-python.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(source / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    monkeypatch.setattr(datasets.CIFAR10, "url", f"file://{archive}")
    monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", _md5(archive))
    root = tmp_path / "root"
    ds = datasets.CIFAR10(root, train=False, download=True)
    assert len(ds) == 4 and (root / "cifar-10-python.tar.gz").is_file()
    assert ds.classes == ["a", "b", "c"]
    monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", "0" * 32)  # a corrupt download is refused
    with pytest.raises(RuntimeError, match="File not found or corrupted."):
        datasets.CIFAR10(tmp_path / "root2", download=True)


class _RunsCode:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_cifar_refuses_a_pickle_that_runs_code(tmp_path, monkeypatch):
    folder = tmp_path / "cifar-10-batches-py"
    _cifar_files(folder)
    (folder / "test_batch").write_bytes(
        pickle.dumps({"data": _RunsCode(), "labels": []}, protocol=2)
    )
    _patch_cifar_md5(monkeypatch, datasets.CIFAR10, folder, CIFAR10_NAMES, "batches.meta")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match="refusing to load global"):
        datasets.CIFAR10(tmp_path, train=False)
    assert not (tmp_path / "pwned").exists()


def test_image_folder_matches_torchvision(tv, tmp_path):
    for cls, count in (("dog", 2), ("cat", 3)):
        (tmp_path / cls / "sub").mkdir(parents=True)
        for i in range(count):
            pixels = RNG.integers(0, 256, (6, 5, 3), dtype=np.uint8)
            where = tmp_path / cls / ("sub" if i == 2 else "") / f"{i}.png"
            Image.fromarray(pixels).save(where)
        (tmp_path / cls / "notes.txt").write_text("not an image")
    ours, theirs = datasets.ImageFolder(tmp_path), tv.datasets.ImageFolder(tmp_path)
    assert (
        ours.classes == theirs.classes == ["cat", "dog"]
        and ours.class_to_idx == theirs.class_to_idx
    )
    assert (
        ours.samples == theirs.samples
        and ours.imgs == theirs.imgs
        and ours.targets == theirs.targets
    )
    _assert_same_items(ours, theirs)
    assert repr(ours) == repr(theirs)
    npy = datasets.DatasetFolder(tmp_path, loader=open, extensions=(".txt",))
    assert [s for s in npy.samples] == tv.datasets.DatasetFolder(
        tmp_path, loader=open, extensions=(".txt",)
    ).samples
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError) as mine:
        datasets.ImageFolder(tmp_path)
    with pytest.raises(FileNotFoundError) as real:
        tv.datasets.ImageFolder(tmp_path)
    assert str(mine.value) == str(real.value)
    assert len(datasets.ImageFolder(tmp_path, allow_empty=True)) == 5


def test_fake_data(tv):
    ours = datasets.FakeData(size=4, image_size=(3, 6, 5), num_classes=3)
    img, label = ours[1]
    assert img.mode == "RGB" and img.size == (5, 6) and 0 <= label < 3 and isinstance(label, int)
    np.testing.assert_array_equal(np.asarray(ours[1][0]), np.asarray(img))  # seeded by the index
    assert repr(ours) == repr(tv.datasets.FakeData(size=4, image_size=(3, 6, 5), num_classes=3))
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ours[4]
    assert datasets.FakeData(size=1, image_size=(1, 4, 4))[0][0].mode == "L"


def test_utils_helpers(tv, tmp_path):
    from chainrule.vision.datasets import utils

    path = tmp_path / "f.bin"
    path.write_bytes(b"hello")
    assert utils.calculate_md5(path) == tv.datasets.utils.calculate_md5(path)
    assert utils.check_integrity(
        path, hashlib.md5(b"hello").hexdigest()
    ) and not utils.check_integrity(path, "0")
    assert not utils.check_integrity(tmp_path / "missing")
    for args in (("x", "arg", ("a", "b")), (3, "arg"), (3,), ("x", "arg", ("a",), "custom")):
        with pytest.raises(ValueError) as mine:
            utils.verify_str_arg(*args)
        with pytest.raises(ValueError) as real:
            tv.datasets.utils.verify_str_arg(*args)
        assert str(mine.value) == str(real.value)
    assert utils.verify_str_arg("a", "arg", ("a", "b")) == "a"
    # archives: .zip, .tar.xz and a single .gz file
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        info = tarfile.TarInfo("inner/x.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    (tmp_path / "a.tar.xz").write_bytes(buf.getvalue())
    out = utils.extract_archive(str(tmp_path / "a.tar.xz"), str(tmp_path / "out"))
    assert (
        out == str(tmp_path / "out")
        and (tmp_path / "out" / "inner" / "x.txt").read_bytes() == b"abc"
    )
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"xyz"))
    assert utils.extract_archive(tmp_path / "b.txt.gz") == tmp_path / "b.txt"
    assert (tmp_path / "b.txt").read_bytes() == b"xyz"
    with pytest.raises(RuntimeError) as mine:
        utils.extract_archive(tmp_path / "f.bin")
    with pytest.raises(RuntimeError) as real:
        tv.datasets.utils.extract_archive(tmp_path / "f.bin")
    assert str(mine.value) == str(real.value)


def test_svhn_matches_torchvision(tv, tmp_path, monkeypatch):
    import scipy.io

    x = RNG.integers(0, 256, (32, 32, 3, 5), dtype=np.uint8)
    y = np.array([[10], [1], [3], [10], [9]], dtype=np.uint8)
    scipy.io.savemat(tmp_path / "test_32x32.mat", {"X": x, "y": y})
    digest = _md5(tmp_path / "test_32x32.mat")
    for cls in (datasets.SVHN, tv.datasets.SVHN):
        split_list = {k: list(v) for k, v in cls.split_list.items()}
        split_list["test"][2] = digest
        monkeypatch.setattr(cls, "split_list", split_list)
    ours, theirs = datasets.SVHN(tmp_path, split="test"), tv.datasets.SVHN(tmp_path, split="test")
    _assert_same_items(ours, theirs)
    np.testing.assert_array_equal(ours.labels, theirs.labels)
    assert ours.labels.dtype == theirs.labels.dtype and ours.labels.tolist() == [0, 1, 3, 0, 9]
    assert repr(ours) == repr(theirs)


def test_stl10_matches_torchvision(tv, tmp_path, monkeypatch):
    folder = tmp_path / "stl10_binary"
    folder.mkdir()
    sizes = {"train": 4, "unlabeled": 3, "test": 2}
    for part, n in sizes.items():
        RNG.integers(0, 256, n * 3 * 96 * 96, dtype=np.uint8).tofile(folder / f"{part}_X.bin")
        if part != "unlabeled":
            RNG.integers(1, 11, n, dtype=np.uint8).tofile(folder / f"{part}_y.bin")
    (folder / "class_names.txt").write_text("\n".join(f"c{i}" for i in range(10)))
    (folder / "fold_indices.txt").write_text("0 2\n1 3\n" * 5)
    for cls in (datasets.STL10, tv.datasets.STL10):
        monkeypatch.setattr(cls, "train_list", [[n, _md5(folder / n)] for n, _ in cls.train_list])
        monkeypatch.setattr(cls, "test_list", [[n, _md5(folder / n)] for n, _ in cls.test_list])
    for kwargs in (
        {"split": "train"},
        {"split": "test"},
        {"split": "train+unlabeled"},
        {"split": "train", "folds": 1},
    ):
        ours, theirs = datasets.STL10(tmp_path, **kwargs), tv.datasets.STL10(tmp_path, **kwargs)
        _assert_same_items(ours, theirs)
        np.testing.assert_array_equal(ours.labels, theirs.labels)
        assert ours.classes == theirs.classes and repr(ours) == repr(theirs)
    for folds in (10, "1"):
        with pytest.raises(ValueError) as mine:
            datasets.STL10(tmp_path, folds=folds)
        with pytest.raises(ValueError) as real:
            tv.datasets.STL10(tmp_path, folds=folds)
        assert str(mine.value) == str(real.value)


def _voc_tree(root):
    base = root / "VOCdevkit" / "VOC2012"
    for sub in (
        "JPEGImages",
        "SegmentationClass",
        "Annotations",
        "ImageSets/Segmentation",
        "ImageSets/Main",
    ):
        (base / sub).mkdir(parents=True)
    ids = ["2007_000001", "2007_000002"]
    for i, name in enumerate(ids):
        Image.fromarray(RNG.integers(0, 256, (8, 10, 3), dtype=np.uint8)).save(
            base / "JPEGImages" / f"{name}.jpg"
        )
        mask = Image.fromarray(RNG.integers(0, 21, (8, 10), dtype=np.uint8), mode="P")
        mask.putpalette([v for c in range(256) for v in (c, 255 - c, c // 2)])
        mask.save(base / "SegmentationClass" / f"{name}.png")
        objects = "".join(
            f"<object><name>cat</name><difficult>0</difficult><bndbox><xmin>{j}</xmin><ymin>1</ymin>"
            f"<xmax>5</xmax><ymax>6</ymax></bndbox></object>"
            for j in range(i + 1)
        )
        (base / "Annotations" / f"{name}.xml").write_text(
            f"<annotation><folder>VOC2012</folder><filename>{name}.jpg</filename><size><width>10</width>"
            f"<height>8</height><depth>3</depth></size><segmented> </segmented>{objects}</annotation>"
        )
    for split in ("Segmentation", "Main"):
        (base / "ImageSets" / split / "train.txt").write_text("\n".join(ids) + "\n")


def test_voc_segmentation_and_detection_match_torchvision(tv, tmp_path):
    _voc_tree(tmp_path)
    ours, theirs = datasets.VOCSegmentation(tmp_path), tv.datasets.VOCSegmentation(tmp_path)
    assert (
        len(ours) == len(theirs) == 2
        and ours.images == theirs.images
        and ours.masks == theirs.masks
    )
    for i in range(2):
        (a, ma), (b, mb) = ours[i], theirs[i]
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert ma.mode == mb.mode == "P"
        np.testing.assert_array_equal(np.asarray(ma), np.asarray(mb))
    assert repr(ours) == repr(theirs)
    ours, theirs = datasets.VOCDetection(tmp_path), tv.datasets.VOCDetection(tmp_path)
    for i in range(2):
        assert ours[i][1] == theirs[i][1]
        np.testing.assert_array_equal(np.asarray(ours[i][0]), np.asarray(theirs[i][0]))
    for kwargs in ({"year": "2013"}, {"image_set": "test"}):
        with pytest.raises(ValueError) as mine:
            datasets.VOCDetection(tmp_path, **kwargs)
        with pytest.raises(ValueError) as real:
            tv.datasets.VOCDetection(tmp_path, **kwargs)
        assert str(mine.value) == str(real.value)
    with pytest.raises(RuntimeError) as mine:
        datasets.VOCDetection(tmp_path / "none")
    with pytest.raises(RuntimeError) as real:
        tv.datasets.VOCDetection(tmp_path / "none")
    assert str(mine.value) == str(real.value)


def test_flowers102_matches_torchvision(tv, tmp_path, monkeypatch):
    import scipy.io

    base = tmp_path / "flowers-102"
    (base / "jpg").mkdir(parents=True)
    for i in range(1, 7):
        Image.fromarray(RNG.integers(0, 256, (6, 7, 3), dtype=np.uint8)).save(
            base / "jpg" / f"image_{i:05d}.jpg"
        )
    scipy.io.savemat(base / "imagelabels.mat", {"labels": np.array([[3, 1, 102, 7, 7, 2]])})
    scipy.io.savemat(
        base / "setid.mat",
        {"trnid": np.array([[1, 4]]), "valid": np.array([[2, 6]]), "tstid": np.array([[3, 5]])},
    )
    for cls in (datasets.Flowers102, tv.datasets.Flowers102):
        files = dict(cls._file_dict)
        files["label"] = ("imagelabels.mat", _md5(base / "imagelabels.mat"))
        files["setid"] = ("setid.mat", _md5(base / "setid.mat"))
        monkeypatch.setattr(cls, "_file_dict", files)
    assert datasets.Flowers102.classes == tv.datasets.Flowers102.classes
    for split in ("train", "val", "test"):
        ours, theirs = datasets.Flowers102(tmp_path, split), tv.datasets.Flowers102(tmp_path, split)
        _assert_same_items(ours, theirs)
        assert repr(ours) == repr(theirs)


def test_oxford_iiit_pet_matches_torchvision(tv, tmp_path):
    base = tmp_path / "oxford-iiit-pet"
    (base / "images").mkdir(parents=True)
    (base / "annotations" / "trimaps").mkdir(parents=True)
    rows = [
        ("great_pyrenees_1", 2, 2),
        ("Abyssinian_3", 1, 1),
        ("great_pyrenees_7", 2, 2),
        ("yorkshire_terrier_2", 3, 2),
    ]
    for name, *_ in rows:
        Image.fromarray(RNG.integers(0, 256, (5, 6, 3), dtype=np.uint8)).save(
            base / "images" / f"{name}.jpg"
        )
        Image.fromarray(RNG.integers(1, 4, (5, 6), dtype=np.uint8)).save(
            base / "annotations" / "trimaps" / f"{name}.png"
        )
    (base / "annotations" / "trainval.txt").write_text(
        "".join(f"{n} {c} {b} 1\n" for n, c, b in rows)
    )
    for types in ("category", ["binary-category", "segmentation"], []):
        ours, theirs = (
            datasets.OxfordIIITPet(tmp_path, target_types=types),
            tv.datasets.OxfordIIITPet(tmp_path, target_types=types),
        )
        assert (
            ours.classes == theirs.classes
            and ours.class_to_idx == theirs.class_to_idx
            and len(ours) == 4
        )
        for i in range(4):
            (a, ta), (b, tb) = ours[i], theirs[i]
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            if isinstance(tb, tuple):
                assert ta[0] == tb[0]
                np.testing.assert_array_equal(np.asarray(ta[1]), np.asarray(tb[1]))
            else:
                assert ta == tb
        assert repr(ours) == repr(theirs)


def test_celeba_matches_torchvision(tv, tmp_path, monkeypatch):
    base = tmp_path / "celeba"
    (base / "img_align_celeba").mkdir(parents=True)
    names = [f"{i:06d}.jpg" for i in range(1, 6)]
    for name in names:
        Image.fromarray(RNG.integers(0, 256, (9, 8, 3), dtype=np.uint8)).save(
            base / "img_align_celeba" / name
        )
    attrs = ["Smiling", "Young", "Male"]
    (base / "list_eval_partition.txt").write_text(
        "".join(f"{n} {p}\n" for n, p in zip(names, [0, 1, 1, 2, 0]))
    )
    (base / "identity_CelebA.txt").write_text(
        "".join(f"{n} {i}\n" for n, i in zip(names, [7, 3, 7, 1, 9]))
    )
    (base / "list_bbox_celeba.txt").write_text(
        "5\nimage_id x_1 y_1 width height\n"
        + "".join(f"{n}  {i} {i + 1}  {i + 2} {i + 3}\n" for i, n in enumerate(names))
    )
    (base / "list_landmarks_align_celeba.txt").write_text(
        "5\nlefteye_x lefteye_y\n" + "".join(f"{n} {i} {2 * i}\n" for i, n in enumerate(names))
    )
    (base / "list_attr_celeba.txt").write_text(
        "5\n"
        + " ".join(attrs)
        + " \n"
        + "".join(f"{n} {' '.join(str(v) for v in RNG.choice([-1, 1], 3))}\n" for n in names)
    )
    for cls in (datasets.CelebA, tv.datasets.CelebA):
        monkeypatch.setattr(
            cls,
            "file_list",
            [(i, _md5(base / f) if f.endswith(".txt") else m, f) for i, m, f in cls.file_list],
        )
    for split, types in (
        ("train", "attr"),
        ("all", ["identity", "bbox", "landmarks"]),
        ("valid", []),
    ):
        ours = datasets.CelebA(tmp_path, split=split, target_type=types)
        theirs = tv.datasets.CelebA(tmp_path, split=split, target_type=types)
        assert len(ours) == len(theirs) and list(ours.filename) == list(theirs.filename)
        assert ours.attr_names == theirs.attr_names and repr(ours) == repr(theirs)
        np.testing.assert_array_equal(ours.attr.numpy(), theirs.attr.numpy())
        for i in range(len(ours)):
            (a, ta), (b, tb) = ours[i], theirs[i]
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            if tb is None:
                assert ta is None
            else:
                for x, y in zip(
                    ta if isinstance(ta, tuple) else (ta,), tb if isinstance(tb, tuple) else (tb,)
                ):
                    np.testing.assert_array_equal(np.asarray(x.tolist()), np.asarray(y.tolist()))


def test_eurosat_and_food101_match_torchvision(tv, tmp_path):
    for cls in ("Forest", "River"):
        (tmp_path / "eurosat" / "2750" / cls).mkdir(parents=True)
        for i in range(2):
            Image.fromarray(RNG.integers(0, 256, (4, 4, 3), dtype=np.uint8)).save(
                tmp_path / "eurosat" / "2750" / cls / f"{cls}_{i}.jpg"
            )
    ours, theirs = datasets.EuroSAT(tmp_path), tv.datasets.EuroSAT(tmp_path)
    _assert_same_items(ours, theirs)
    assert (
        ours.classes == theirs.classes and ours.root == theirs.root and repr(ours) == repr(theirs)
    )
    base = tmp_path / "food-101"
    (base / "meta").mkdir(parents=True)
    meta = {"pizza": ["pizza/1", "pizza/7"], "apple_pie": ["apple_pie/3"]}
    for name, paths in meta.items():
        (base / "images" / name).mkdir(parents=True)
        for p in paths:
            Image.fromarray(RNG.integers(0, 256, (4, 5, 3), dtype=np.uint8)).save(
                base / "images" / f"{p}.jpg"
            )
    (base / "meta" / "train.json").write_text(json.dumps(meta))
    ours, theirs = datasets.Food101(tmp_path), tv.datasets.Food101(tmp_path)
    _assert_same_items(ours, theirs)
    assert ours.classes == theirs.classes and repr(ours) == repr(theirs)


def test_usps_and_semeion_match_torchvision(tv, tmp_path, monkeypatch):
    lines = []
    for _ in range(4):
        values = RNG.uniform(-1, 1, 256)
        lines.append(
            f"{RNG.integers(1, 11)} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(values))
        )
    (tmp_path / "usps.t.bz2").write_bytes(bz2.compress(("\n".join(lines) + "\n").encode()))
    ours, theirs = datasets.USPS(tmp_path, train=False), tv.datasets.USPS(tmp_path, train=False)
    _assert_same_items(ours, theirs)
    np.testing.assert_array_equal(ours.data, theirs.data)
    assert ours.targets == theirs.targets and repr(ours) == repr(theirs)
    rows = np.concatenate([RNG.integers(0, 2, (3, 256)), np.eye(10, dtype=int)[[4, 0, 9]]], axis=1)
    np.savetxt(tmp_path / "semeion.data", rows, fmt="%d")
    for cls in (datasets.SEMEION, tv.datasets.SEMEION):
        monkeypatch.setattr(cls, "md5_checksum", _md5(tmp_path / "semeion.data"))
    ours, theirs = (
        datasets.SEMEION(tmp_path, download=False),
        tv.datasets.SEMEION(tmp_path, download=False),
    )
    _assert_same_items(ours, theirs)
    assert ours.labels.tolist() == theirs.labels.tolist() == [4, 0, 9]


def _jpeg(path, shape=(5, 6, 3)):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(RNG.integers(0, 256, shape, dtype=np.uint8)).save(path)


def test_caltech_match_torchvision(tv, tmp_path):
    import scipy.io

    base = tmp_path / "caltech101"
    for cls, n in (("BACKGROUND_Google", 1), ("Faces", 2), ("ant", 1)):
        for i in range(1, n + 1):
            _jpeg(base / "101_ObjectCategories" / cls / f"image_{i:04d}.jpg")
    for folder, i in (("Faces_2", 1), ("Faces_2", 2), ("ant", 1)):
        (base / "Annotations" / folder).mkdir(parents=True, exist_ok=True)
        scipy.io.savemat(
            base / "Annotations" / folder / f"annotation_{i:04d}.mat",
            {"obj_contour": RNG.random((2, 5))},
        )
    for types in ("category", ["category", "annotation"]):
        ours, theirs = datasets.Caltech101(tmp_path, types), tv.datasets.Caltech101(tmp_path, types)
        assert (
            ours.categories == theirs.categories
            and len(ours) == len(theirs) == 3
            and repr(ours) == repr(theirs)
        )
        for i in range(3):
            (a, ta), (b, tb) = ours[i], theirs[i]
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            if isinstance(tb, tuple):
                assert ta[0] == tb[0]
                np.testing.assert_array_equal(ta[1], tb[1])
            else:
                assert ta == tb
    for cls, label, n in (("001.ak47", 1, 2), ("002.bat", 2, 1)):
        for i in range(1, n + 1):
            _jpeg(
                tmp_path / "caltech256" / "256_ObjectCategories" / cls / f"{label:03d}_{i:04d}.jpg"
            )
    ours, theirs = datasets.Caltech256(str(tmp_path)), tv.datasets.Caltech256(str(tmp_path))
    _assert_same_items(ours, theirs)
    assert repr(ours) == repr(theirs)


def test_omniglot_and_gtsrb_match_torchvision(tv, tmp_path, monkeypatch):
    base = tmp_path / "omniglot-py"
    for alphabet, characters in (
        ("Greek", ("character01", "character02")),
        ("Latin", ("character01",)),
    ):
        for c in characters:
            for k in range(2):
                path = base / "images_background" / alphabet / c / f"{k}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                Image.fromarray(RNG.integers(0, 2, (6, 6), dtype=np.uint8) * 255).convert("1").save(
                    path
                )
    (base / "images_background.zip").write_bytes(b"zip")
    for cls in (datasets.Omniglot, tv.datasets.Omniglot):
        monkeypatch.setattr(
            cls,
            "zips_md5",
            {**cls.zips_md5, "images_background": _md5(base / "images_background.zip")},
        )
    ours, theirs = datasets.Omniglot(tmp_path), tv.datasets.Omniglot(tmp_path)
    _assert_same_items(ours, theirs)
    assert repr(ours) == repr(theirs)
    gt = tmp_path / "gtsrb" / "GTSRB"
    for cls in ("00000", "00001"):
        for k in range(2):
            _jpeg(gt / "Training" / cls / f"{k:05d}_00000.ppm")
    for k in range(3):
        _jpeg(gt / "Final_Test" / "Images" / f"{k:05d}.ppm")
    (tmp_path / "gtsrb" / "GT-final_test.csv").write_text(
        "Filename;Width;Height;Roi.X1;Roi.Y1;Roi.X2;Roi.Y2;ClassId\n"
        + "".join(f"{k:05d}.ppm;6;5;0;0;5;4;{k + 3}\n" for k in range(3))
    )
    for split in ("train", "test"):
        ours, theirs = datasets.GTSRB(tmp_path, split), tv.datasets.GTSRB(tmp_path, split)
        _assert_same_items(ours, theirs)
        assert repr(ours) == repr(theirs)


def _imagenet_archives(root):
    """A devkit (meta.mat with 3 leaf synsets and 1 inner node, the validation ground truth)
    and a validation archive of 4 images."""
    import scipy.io

    work = root / "work"
    data = work / "ILSVRC2012_devkit_t12" / "data"
    data.mkdir(parents=True)
    fields = [
        "ILSVRC2012_ID",
        "WNID",
        "words",
        "gloss",
        "num_children",
        "children",
        "wordnet_height",
        "num_train_images",
    ]
    synsets = np.zeros(4, dtype=[(f, object) for f in fields])
    rows = [
        (1, "n01", "tench, Tinca tinca", "a fish", 0),
        (2, "n02", "goldfish", "another fish", 0),
        (3, "n03", "great white shark, white shark", "a shark", 0),
        (4, "n99", "fish", "an inner node", 2),
    ]
    for i, (idx, wnid, words, gloss, children) in enumerate(rows):
        synsets[i] = (idx, wnid, words, gloss, children, np.zeros(0), 0, 0)
    scipy.io.savemat(data / "meta.mat", {"synsets": synsets.reshape(-1, 1)})
    (data / "ILSVRC2012_validation_ground_truth.txt").write_text("2\n1\n2\n3\n")
    with tarfile.open(root / "ILSVRC2012_devkit_t12.tar.gz", "w:gz") as tar:
        tar.add(work / "ILSVRC2012_devkit_t12", arcname="ILSVRC2012_devkit_t12")
    images = work / "val"
    for k in range(1, 5):
        _jpeg(images / f"ILSVRC2012_val_{k:08d}.JPEG", (6, 5, 3))
    with tarfile.open(root / "ILSVRC2012_img_val.tar", "w") as tar:
        for k in range(1, 5):
            tar.add(images / f"ILSVRC2012_val_{k:08d}.JPEG", arcname=f"ILSVRC2012_val_{k:08d}.JPEG")


def test_imagenet_matches_torchvision(tv, tmp_path, monkeypatch):
    import shutil
    import sys

    import torch

    from chainrule.vision.datasets import imagenet

    _imagenet_archives(tmp_path / "src")
    real_module = sys.modules["torchvision.datasets.imagenet"]
    roots = {}
    for which, module in (("ours", imagenet), ("theirs", real_module)):
        roots[which] = tmp_path / which
        roots[which].mkdir()
        for name in ("ILSVRC2012_devkit_t12.tar.gz", "ILSVRC2012_img_val.tar"):
            shutil.copy(tmp_path / "src" / name, roots[which] / name)
        for key, name in (
            ("devkit", "ILSVRC2012_devkit_t12.tar.gz"),
            ("val", "ILSVRC2012_img_val.tar"),
        ):
            monkeypatch.setitem(module.ARCHIVE_META, key, (name, _md5(roots[which] / name)))
    ours, theirs = (
        datasets.ImageNet(roots["ours"], split="val"),
        tv.datasets.ImageNet(roots["theirs"], split="val"),
    )
    assert ours.wnids == theirs.wnids == ["n01", "n02", "n03"]
    assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx
    assert [os.path.relpath(p, roots["ours"]) for p, _ in ours.samples] == [
        os.path.relpath(p, roots["theirs"]) for p, _ in theirs.samples
    ]
    _assert_same_items(ours, theirs)
    assert repr(ours).replace(str(roots["ours"]), "R") == repr(theirs).replace(
        str(roots["theirs"]), "R"
    )
    # each library reads the other's meta.bin
    assert imagenet.load_meta_file(roots["theirs"]) == tuple(
        torch.load(roots["ours"] / "meta.bin", weights_only=True)
    )
    with pytest.raises(
        RuntimeError, match="The archive ILSVRC2012_devkit_t12.tar.gz is not present"
    ):
        datasets.ImageNet(tmp_path / "empty")


def test_coco_detection_and_captions(tmp_path):
    # (pycocotools is not installed here, so torchvision's CocoDetection cannot run: the
    # expected items are written out from the COCO format's definition)
    for name in ("b.jpg", "a.jpg", "c.jpg"):
        _jpeg(tmp_path / "images" / name)
    annotations = {
        "images": [
            {"id": 9, "file_name": "b.jpg"},
            {"id": 2, "file_name": "a.jpg"},
            {"id": 5, "file_name": "c.jpg"},
        ],
        "annotations": [
            {
                "id": 1,
                "image_id": 9,
                "category_id": 3,
                "bbox": [1, 1, 2, 2],
                "area": 4,
                "iscrowd": 0,
                "caption": "x",
            },
            {
                "id": 7,
                "image_id": 2,
                "category_id": 1,
                "bbox": [0, 0, 3, 1],
                "area": 3,
                "iscrowd": 1,
                "caption": "y",
            },
            {
                "id": 4,
                "image_id": 9,
                "category_id": 1,
                "bbox": [2, 0, 1, 4],
                "area": 4,
                "iscrowd": 0,
                "caption": "z",
            },
        ],
        "categories": [
            {"id": 1, "name": "cat", "supercategory": "animal"},
            {"id": 3, "name": "car", "supercategory": "vehicle"},
        ],
    }
    (tmp_path / "ann.json").write_text(json.dumps(annotations))
    ds = datasets.CocoDetection(tmp_path / "images", str(tmp_path / "ann.json"))
    assert ds.ids == [2, 5, 9] and len(ds) == 3
    image, target = ds[2]  # image id 9: its annotations in file order
    np.testing.assert_array_equal(
        np.asarray(image), np.asarray(Image.open(tmp_path / "images" / "b.jpg").convert("RGB"))
    )
    assert [a["id"] for a in target] == [1, 4] and ds[1][1] == []
    assert ds.coco.getCatIds(catNms=["car"]) == [3] and sorted(ds.coco.getImgIds(catIds=[1])) == [
        2,
        9,
    ]
    assert ds.coco.getAnnIds(iscrowd=False) == [1, 4] and ds.coco.loadCats(1)[0]["name"] == "cat"
    with pytest.raises(ValueError, match="Index must be of type integer"):
        ds[np.int64(0)]
    captions = datasets.CocoCaptions(
        tmp_path / "images", str(tmp_path / "ann.json"), transforms=lambda i, t: (i.size, t)
    )
    assert captions[2] == ((6, 5), ["x", "z"]) and captions[0] == ((6, 5), ["y"])
