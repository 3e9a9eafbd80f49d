"""MNIST and its relatives (Fashion-MNIST, KMNIST, EMNIST, QMNIST), read from the IDX
files (``*-idx3-ubyte`` images, ``*-idx1-ubyte`` labels) under ``root/<ClassName>/raw``."""

from __future__ import annotations

import os
import shutil
import string
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.error import URLError

import numpy as np

from ..._tensor import Tensor
from .utils import check_integrity, download_and_extract_archive, extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = [
    "EMNIST",
    "KMNIST",
    "MNIST",
    "QMNIST",
    "FashionMNIST",
    "read_image_file",
    "read_label_file",
    "read_sn3_pascalvincent_tensor",
]

# IDX type code -> element type (stored big-endian)
SN3_PASCALVINCENT_TYPEMAP = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}


def _tensor(array: np.ndarray) -> Tensor:
    import chainrule

    return chainrule.from_numpy(np.ascontiguousarray(array))


def _read_idx(path: str | Path) -> np.ndarray:
    """An IDX file as an array: a 4-byte magic ``0 0 type ndim``, ``ndim`` big-endian
    uint32 sizes, then the elements big-endian (a trailing excess is ignored)."""
    with open(path, "rb") as f:
        data = f.read()
    code, ndim = data[2], data[3]
    assert 1 <= ndim <= 3
    assert code in SN3_PASCALVINCENT_TYPEMAP
    shape = tuple(int.from_bytes(data[4 * (i + 1) : 4 * (i + 2)], "big") for i in range(ndim))
    dtype = np.dtype(SN3_PASCALVINCENT_TYPEMAP[code])
    flat = np.frombuffer(data, dtype=dtype, offset=4 * (ndim + 1))
    return flat.astype(dtype.newbyteorder("="))[: int(np.prod(shape))].reshape(shape)


def read_sn3_pascalvincent_tensor(path: str, strict: bool = True) -> Tensor:
    """An IDX ("SN3 Pascal Vincent") file as a tensor of its element type and shape."""
    return _tensor(_read_idx(path))


def read_label_file(path: str) -> Tensor:
    """An IDX file of uint8 labels as an int64 tensor of shape ``(N,)``."""
    x = _read_idx(path)
    if x.dtype != np.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {_tensor(x).dtype}")
    if x.ndim != 1:
        raise ValueError(f"x should have 1 dimension instead of {x.ndim}")
    return _tensor(x.astype(np.int64))


def read_image_file(path: str) -> Tensor:
    """An IDX file of uint8 images as a uint8 tensor of shape ``(N, H, W)``."""
    x = _read_idx(path)
    if x.dtype != np.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {_tensor(x).dtype}")
    if x.ndim != 3:
        raise ValueError(f"x should have 3 dimension instead of {x.ndim}")
    return _tensor(x)


def _gray_image(array: np.ndarray) -> Any:
    from PIL import Image

    return Image.fromarray(np.ascontiguousarray(array, dtype=np.uint8))


class MNIST(VisionDataset):
    """The MNIST handwritten digits: ``data`` a uint8 tensor ``(N, 28, 28)``, ``targets`` an
    int64 tensor; items are ``(PIL image in mode 'L', int label)``."""

    mirrors = [
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "http://yann.lecun.com/exdb/mnist/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]

    # the old attribute names, kept with a warning
    @property
    def train_labels(self) -> Tensor:
        warnings.warn("train_labels has been renamed targets", stacklevel=2)
        return self.targets

    @property
    def test_labels(self) -> Tensor:
        warnings.warn("test_labels has been renamed targets", stacklevel=2)
        return self.targets

    @property
    def train_data(self) -> Tensor:
        warnings.warn("train_data has been renamed data", stacklevel=2)
        return self.data

    @property
    def test_data(self) -> Tensor:
        warnings.warn("test_data has been renamed data", stacklevel=2)
        return self.data

    def __init__(
        self,
        root: str | Path,
        train: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if self._check_legacy_exist():
            self.data, self.targets = self._load_legacy_data()
            return
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        self.data, self.targets = self._load_data()

    # the old ``processed/{training,test}.pt`` files, read when both are present
    def _check_legacy_exist(self) -> bool:
        if not os.path.exists(self.processed_folder):
            return False
        names = (self.training_file, self.test_file)
        return all(check_integrity(os.path.join(self.processed_folder, name)) for name in names)

    def _load_legacy_data(self) -> tuple[Tensor, Tensor]:
        import chainrule

        name = self.training_file if self.train else self.test_file
        return chainrule.load(os.path.join(self.processed_folder, name), weights_only=True)

    def _load_data(self) -> tuple[Tensor, Tensor]:
        prefix = "train" if self.train else "t10k"
        data = read_image_file(os.path.join(self.raw_folder, f"{prefix}-images-idx3-ubyte"))
        targets = read_label_file(os.path.join(self.raw_folder, f"{prefix}-labels-idx1-ubyte"))
        return data, targets

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img, target = _gray_image(self.data[index].numpy()), int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)

    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def processed_folder(self) -> str:
        return os.path.join(self.root, type(self).__name__, "processed")

    @property
    def class_to_idx(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.classes)}

    def _check_exists(self) -> bool:
        # the extracted files: each resource's name without its ``.gz``
        names = (os.path.splitext(os.path.basename(url))[0] for url, _ in self.resources)
        return all(check_integrity(os.path.join(self.raw_folder, name)) for name in names)

    def download(self) -> None:
        """Fetch each resource from the first mirror that serves it (MD5-checked) and
        decompress it into ``raw_folder``; nothing is fetched when the files are there."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            errors = []
            for mirror in self.mirrors:
                try:
                    download_and_extract_archive(
                        f"{mirror}{filename}",
                        download_root=self.raw_folder,
                        filename=filename,
                        md5=md5,
                    )
                except (RuntimeError, URLError) as error:
                    errors.append(error)
                    continue
                break
            else:
                message = f"Error downloading {filename}:\n"
                for mirror, error in zip(self.mirrors, errors):
                    message += f"Tried {mirror}, got:\n{error}\n"
                raise RuntimeError(message)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 28x28 grayscale images of 10 kinds of clothing, MNIST's layout."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]


class KMNIST(MNIST):
    """Kuzushiji-MNIST: 28x28 images of 10 cursive Japanese characters, MNIST's layout."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


_MERGED = set("cijklmopsuvwxyz")  # letters whose upper and lower case EMNIST merges
_ALL = set(string.digits + string.ascii_letters)


class EMNIST(MNIST):
    """EMNIST: handwritten digits and letters in six ``split``s, files
    ``emnist-<split>-<train|test>-{images-idx3,labels-idx1}-ubyte``."""

    url = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
    md5 = "58c8d27c78d21e728a6bc7b3cc06412e"
    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _merged_classes = _MERGED
    _all_classes = _ALL
    classes_split_dict = {
        "byclass": sorted(_ALL),
        "bymerge": sorted(_ALL - _MERGED),
        "balanced": sorted(_ALL - _MERGED),
        "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits),
        "mnist": list(string.digits),
    }

    def __init__(self, root: str | Path, split: str, **kwargs: Any) -> None:
        self.split = verify_str_arg(split, "split", self.splits)
        self.training_file = self._training_file(split)
        self.test_file = self._test_file(split)
        super().__init__(root, **kwargs)
        self.classes = self.classes_split_dict[self.split]

    @staticmethod
    def _training_file(split: str) -> str:
        return f"training_{split}.pt"

    @staticmethod
    def _test_file(split: str) -> str:
        return f"test_{split}.pt"

    @property
    def _file_prefix(self) -> str:
        return f"emnist-{self.split}-{'train' if self.train else 'test'}"

    @property
    def images_file(self) -> str:
        return os.path.join(self.raw_folder, f"{self._file_prefix}-images-idx3-ubyte")

    @property
    def labels_file(self) -> str:
        return os.path.join(self.raw_folder, f"{self._file_prefix}-labels-idx1-ubyte")

    def _load_data(self) -> tuple[Tensor, Tensor]:
        return read_image_file(self.images_file), read_label_file(self.labels_file)

    def _check_exists(self) -> bool:
        return check_integrity(self.images_file) and check_integrity(self.labels_file)

    def download(self) -> None:
        """Fetch ``gzip.zip``, unpack it and decompress every ``gzip/*.gz`` into ``raw_folder``."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        download_and_extract_archive(self.url, download_root=self.raw_folder, md5=self.md5)
        gzip_folder = os.path.join(self.raw_folder, "gzip")
        for name in os.listdir(gzip_folder):
            if name.endswith(".gz"):
                extract_archive(os.path.join(gzip_folder, name), self.raw_folder)
        shutil.rmtree(gzip_folder)


_QMNIST_URL = "https://raw.githubusercontent.com/facebookresearch/qmnist/master/"


class QMNIST(MNIST):
    """QMNIST: MNIST's images with extended labels (an int64 ``(N, 8)`` ``targets``). ``what``
    picks ``'train'``, ``'test'``, ``'test10k'``, ``'test50k'`` or ``'nist'``; with ``compat``
    an item's target is the class (column 0), otherwise the whole row."""

    subsets = {
        "train": "train",
        "test": "test",
        "test10k": "test",
        "test50k": "test",
        "nist": "nist",
    }
    resources: dict[str, list[tuple[str, str]]] = {  # type: ignore[assignment]
        "train": [
            (_QMNIST_URL + "qmnist-train-images-idx3-ubyte.gz", "ed72d4157d28c017586c42bc6afe6370"),
            (_QMNIST_URL + "qmnist-train-labels-idx2-int.gz", "0058f8dd561b90ffdd0f734c6a30e5e4"),
        ],
        "test": [
            (_QMNIST_URL + "qmnist-test-images-idx3-ubyte.gz", "1394631089c404de565df7b7aeaf9412"),
            (_QMNIST_URL + "qmnist-test-labels-idx2-int.gz", "5b5b05890a5e13444e108efe57b788aa"),
        ],
        "nist": [
            (_QMNIST_URL + "xnist-images-idx3-ubyte.xz", "7f124b3b8ab81486c9d8c2749c17f834"),
            (_QMNIST_URL + "xnist-labels-idx2-int.xz", "5ed0e788978e45d4a8bd4b7caec3d79d"),
        ],
    }
    classes = MNIST.classes

    def __init__(
        self,
        root: str | Path,
        what: str | None = None,
        compat: bool = True,
        train: bool = True,
        **kwargs: Any,
    ) -> None:
        if what is None:
            what = "train" if train else "test"
        self.what = verify_str_arg(what, "what", tuple(self.subsets.keys()))
        self.compat = compat
        self.data_file = what + ".pt"
        self.training_file = self.data_file
        self.test_file = self.data_file
        super().__init__(root, train, **kwargs)

    def _resource_file(self, which: int) -> str:
        url, _ = self.resources[self.subsets[self.what]][which]
        return os.path.join(self.raw_folder, os.path.splitext(os.path.basename(url))[0])

    @property
    def images_file(self) -> str:
        return self._resource_file(0)

    @property
    def labels_file(self) -> str:
        return self._resource_file(1)

    def _check_exists(self) -> bool:
        return check_integrity(self.images_file) and check_integrity(self.labels_file)

    def _load_data(self) -> tuple[Tensor, Tensor]:
        data = _read_idx(self.images_file)
        if data.dtype != np.uint8:
            raise TypeError(f"data should be of dtype torch.uint8 instead of {_tensor(data).dtype}")
        if data.ndim != 3:
            raise ValueError("data should have 3 dimensions instead of {data.ndimension()}")
        targets = _read_idx(self.labels_file).astype(np.int64)
        if targets.ndim != 2:
            raise ValueError(f"targets should have 2 dimensions instead of {targets.ndim}")
        if self.what == "test10k":
            data, targets = data[:10000], targets[:10000]
        elif self.what == "test50k":
            data, targets = data[10000:], targets[10000:]
        return _tensor(data), _tensor(targets)

    def download(self) -> None:
        """Fetch and decompress only the two files of the chosen ``what``."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for url, md5 in self.resources[self.subsets[self.what]]:
            download_and_extract_archive(url, self.raw_folder, md5=md5)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img, target = _gray_image(self.data[index].numpy()), self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.compat:
            target = int(target[0])
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def extra_repr(self) -> str:
        return f"Split: {self.what}"
