"""STL-10: 96x96 colour images of 10 classes plus 100,000 unlabelled ones, read from the
binary files of ``root/stl10_binary`` (uint8 pixels stored channel by channel, column-major)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .utils import check_integrity, download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["STL10"]


class STL10(VisionDataset):
    """STL-10 ``split`` ``'train'``, ``'test'``, ``'unlabeled'`` or ``'train+unlabeled'``
    (unlabelled targets are -1); ``folds`` picks one of the 10 predefined training folds.
    ``data`` is uint8 ``(N, 3, 96, 96)``, ``labels`` 0-based."""

    base_folder = "stl10_binary"
    url = "http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz"
    filename = "stl10_binary.tar.gz"
    tgz_md5 = "91f7769df0f17e558f3565bffb0c7dfb"
    class_names_file = "class_names.txt"
    folds_list_file = "fold_indices.txt"
    train_list = [
        ["train_X.bin", "918c2871b30a85fa023e0c44e0bee87f"],
        ["train_y.bin", "5a34089d4802c674881badbb80307741"],
        ["unlabeled_X.bin", "5242ba1fed5e4be9e1e742405eb56ca4"],
    ]
    test_list = [
        ["test_X.bin", "7f263ba9f9e0b06b93213547f721ac82"],
        ["test_y.bin", "36f9794fa4beb8a2c72628de14fa638e"],
    ]
    splits = ("train", "train+unlabeled", "unlabeled", "test")

    def __init__(
        self,
        root: str | Path,
        split: str = "train",
        folds: int | None = None,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", self.splits)
        self.folds = self._verify_folds(folds)
        if download:
            self.download()
        elif not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        self.labels: np.ndarray | None
        if self.split in ("train", "train+unlabeled"):
            self.data, self.labels = self._load_file(self.train_list[0][0], self.train_list[1][0])
            self._load_folds(folds)
            if self.split == "train+unlabeled":
                unlabeled, _ = self._load_file(self.train_list[2][0])
                self.data = np.concatenate((self.data, unlabeled))
                self.labels = np.concatenate((self.labels, np.asarray([-1] * unlabeled.shape[0])))
        elif self.split == "unlabeled":
            self.data, _ = self._load_file(self.train_list[2][0])
            self.labels = np.asarray([-1] * self.data.shape[0])
        else:
            self.data, self.labels = self._load_file(self.test_list[0][0], self.test_list[1][0])
        class_file = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(class_file):
            with open(class_file) as f:
                self.classes = f.read().splitlines()

    def _verify_folds(self, folds: int | None) -> int | None:
        if folds is None:
            return folds
        if isinstance(folds, int):
            if folds in range(10):
                return folds
            raise ValueError(
                f"Value for argument folds should be in the range [0, 10), but got {folds}."
            )
        raise ValueError(
            f"Expected type None or int for argument folds, but got type {type(folds)}."
        )

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        target = int(self.labels[index]) if self.labels is not None else None
        img = Image.fromarray(np.transpose(self.data[index], (1, 2, 0)))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return self.data.shape[0]

    def _load_file(
        self, data_file: str, labels_file: str | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        labels = None
        if labels_file:
            labels = (
                np.fromfile(os.path.join(self.root, self.base_folder, labels_file), dtype=np.uint8)
                - 1
            )
        pixels = np.fromfile(os.path.join(self.root, self.base_folder, data_file), dtype=np.uint8)
        # each channel is stored column by column: swap to row-major (N, 3, H, W)
        return np.transpose(pixels.reshape(-1, 3, 96, 96), (0, 1, 3, 2)), labels

    def _check_integrity(self) -> bool:
        return all(
            check_integrity(os.path.join(self.root, self.base_folder, name), md5)
            for name, md5 in self.train_list + self.test_list
        )

    def download(self) -> None:
        """Fetch and unpack the archive into ``root``, unless the files are there."""
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def _load_folds(self, folds: int | None) -> None:
        if folds is None:
            return
        with open(os.path.join(self.root, self.base_folder, self.folds_list_file)) as f:
            line = f.read().splitlines()[folds]
        chosen = np.array(line.split(), dtype=np.int64)
        self.data = self.data[chosen]
        if self.labels is not None:
            self.labels = self.labels[chosen]

    def extra_repr(self) -> str:
        return f"Split: {self.split}"
