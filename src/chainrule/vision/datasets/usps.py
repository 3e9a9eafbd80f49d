"""USPS handwritten digits (16x16 grayscale), read from LIBSVM's bz2 files ``usps.bz2`` and
``usps.t.bz2`` in ``root`` (``label index:value ...`` lines, values in [-1, 1])."""

from __future__ import annotations

import bz2
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .utils import download_url
from .vision import VisionDataset

__all__ = ["USPS"]


class USPS(VisionDataset):
    """USPS: ``data`` uint8 ``(N, 16, 16)`` (``(v + 1) / 2 * 255`` truncated), ``targets`` a list
    of 0-based ints; items ``(PIL 'L' image, int)``."""

    split_list = {
        "train": [
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.bz2",
            "usps.bz2",
            "ec16c51db3855ca6c91edd34d0e9b197",
        ],
        "test": [
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.t.bz2",
            "usps.t.bz2",
            "8ea070ee2aca1ac39742fdd1ef5ed118",
        ],
    }

    def __init__(
        self,
        root: str | Path,
        train: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        url, filename, checksum = self.split_list["train" if train else "test"]
        full_path = os.path.join(self.root, filename)
        if download and not os.path.exists(full_path):
            download_url(url, self.root, filename, md5=checksum)
        with bz2.open(full_path) as f:
            rows = [line.decode().split() for line in f.readlines()]
        values = np.asarray(
            [[item.split(":")[-1] for item in row[1:]] for row in rows], dtype=np.float32
        )
        self.data = ((values.reshape(-1, 16, 16) + 1) / 2 * 255).astype(np.uint8)
        self.targets = [int(row[0]) - 1 for row in rows]

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        img, target = Image.fromarray(self.data[index]), int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)
