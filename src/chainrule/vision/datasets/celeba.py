"""CelebA (Large-scale CelebFaces Attributes), read from ``root/celeba``: the aligned images
in ``img_align_celeba/`` and the space-separated attribute, identity, box, landmark and
partition lists."""

from __future__ import annotations

import csv
import os
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .utils import check_integrity, download_file_from_google_drive, extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["CelebA"]

CSV = namedtuple("CSV", ["header", "index", "data"])


class CelebA(VisionDataset):
    """CelebA ``split`` ``'train'``, ``'valid'``, ``'test'`` or ``'all'``; ``target_type`` (one or
    a list) of ``'attr'`` (40 0/1 labels), ``'identity'``, ``'bbox'`` and ``'landmarks'``, as
    int64 tensors. Images are PIL images as stored (178x218 RGB JPEGs)."""

    base_folder = "celeba"
    file_list = [
        (
            "0B7EVK8r0v71pZjFTYXZWM3FlRnM",
            "00d2c5bc6d35e252742224ab0c1e8fcb",
            "img_align_celeba.zip",
        ),
        (
            "0B7EVK8r0v71pblRyaVFSWGxPY0U",
            "75e246fa4810816ffd6ee81facbd244c",
            "list_attr_celeba.txt",
        ),
        (
            "1_ee_0u7vcNLOfNLegJRHmolfH5ICW-XS",
            "32bd1bd63d3c78cd57e08160ec5ed1e2",
            "identity_CelebA.txt",
        ),
        (
            "0B7EVK8r0v71pbThiMVRxWXZ4dU0",
            "00566efa6fedff7a56946cd1c10f1c16",
            "list_bbox_celeba.txt",
        ),
        (
            "0B7EVK8r0v71pd0FJY3Blby1HUTQ",
            "cc24ecafdb5b50baae59b03474781f8c",
            "list_landmarks_align_celeba.txt",
        ),
        (
            "0B7EVK8r0v71pY0NSMzRuSXJEVkk",
            "d32c9cbf5e040fd4025c592c306e6668",
            "list_eval_partition.txt",
        ),
    ]

    def __init__(
        self,
        root: str | Path,
        split: str = "train",
        target_type: list[str] | str = "attr",
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        import chainrule

        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = split
        self.target_type = target_type if isinstance(target_type, list) else [target_type]
        if not self.target_type and self.target_transform is not None:
            raise RuntimeError("target_transform is specified but target_type is empty")
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        split_map = {"train": 0, "valid": 1, "test": 2, "all": None}
        chosen = split_map[
            verify_str_arg(
                split.lower() if isinstance(split, str) else split,
                "split",
                ("train", "valid", "test", "all"),
            )
        ]
        splits = self._load_csv("list_eval_partition.txt")
        identity = self._load_csv("identity_CelebA.txt")
        bbox = self._load_csv("list_bbox_celeba.txt", header=1)
        landmarks = self._load_csv("list_landmarks_align_celeba.txt", header=1)
        attr = self._load_csv("list_attr_celeba.txt", header=1)
        if chosen is None:
            rows = np.arange(len(splits.index))
            self.filename = splits.index
        else:
            rows = np.nonzero(splits.data.numpy()[:, 0] == chosen)[0]
            self.filename = [splits.index[i] for i in rows]
        index = chainrule.from_numpy(rows.astype(np.int64))
        self.identity = identity.data.index_select(0, index)
        self.bbox = bbox.data.index_select(0, index)
        self.landmarks_align = landmarks.data.index_select(0, index)
        self.attr = (attr.data.index_select(0, index) + 1).div(
            2, rounding_mode="floor"
        )  # {-1, 1} -> {0, 1}
        self.attr_names = attr.header

    def _load_csv(self, filename: str, header: int | None = None) -> CSV:
        """A list file as ``CSV(header, first column, int64 tensor of the other columns)``."""
        import chainrule

        with open(os.path.join(self.root, self.base_folder, filename)) as f:
            rows = list(csv.reader(f, delimiter=" ", skipinitialspace=True))
        headers = rows[header] if header is not None else []
        rows = rows[header + 1 :] if header is not None else rows
        values = np.array([[int(v) for v in row[1:]] for row in rows], dtype=np.int64)
        if values.size == 0:
            values = values.reshape(len(rows), 0)
        return CSV(headers, [row[0] for row in rows], chainrule.from_numpy(values))

    def _check_integrity(self) -> bool:
        for _, md5, filename in self.file_list:
            if os.path.splitext(filename)[1] not in (".zip", ".7z") and not check_integrity(
                os.path.join(self.root, self.base_folder, filename), md5
            ):
                return False
        return os.path.isdir(os.path.join(self.root, self.base_folder, "img_align_celeba"))

    def download(self) -> None:
        """Fetch the files from Google Drive (needs ``gdown``) and unzip the images."""
        if self._check_integrity():
            return
        for file_id, md5, filename in self.file_list:
            download_file_from_google_drive(
                file_id, os.path.join(self.root, self.base_folder), filename, md5
            )
        extract_archive(os.path.join(self.root, self.base_folder, "img_align_celeba.zip"))

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        image = Image.open(
            os.path.join(self.root, self.base_folder, "img_align_celeba", self.filename[index])
        )
        target: Any = []
        for kind in self.target_type:
            if kind == "attr":
                target.append(self.attr[index, :])
            elif kind == "identity":
                target.append(self.identity[index, 0])
            elif kind == "bbox":
                target.append(self.bbox[index, :])
            elif kind == "landmarks":
                target.append(self.landmarks_align[index, :])
            else:
                raise ValueError(f'Target type "{kind}" is not recognized.')
        if self.transform is not None:
            image = self.transform(image)
        if target:
            target = tuple(target) if len(target) > 1 else target[0]
            if self.target_transform is not None:
                target = self.target_transform(target)
        else:
            target = None
        return image, target

    def __len__(self) -> int:
        return len(self.attr)

    def extra_repr(self) -> str:
        return f"Target type: {self.target_type}\nSplit: {self.split}"
