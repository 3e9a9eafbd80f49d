"""SEMEION handwritten digits (16x16 binary images), read from ``root/semeion.data``: each
line holds 256 pixel values then a one-hot label of 10."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .utils import check_integrity, download_url
from .vision import VisionDataset

__all__ = ["SEMEION"]


class SEMEION(VisionDataset):
    """SEMEION: ``data`` uint8 ``(N, 16, 16)`` (0 or 255), ``labels`` the one-hot positions.
    (``download`` is ``True`` by default, as in torchvision.)"""

    url = "http://archive.ics.uci.edu/ml/machine-learning-databases/semeion/semeion.data"
    filename = "semeion.data"
    md5_checksum = "cb545d371d2ce14ec121470795a77432"

    def __init__(
        self,
        root: str | Path,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = True,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        table = np.loadtxt(os.path.join(self.root, self.filename))
        self.data = (table[:, :256] * 255).astype("uint8").reshape(-1, 16, 16)
        self.labels = np.nonzero(table[:, 256:])[1]

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        img, target = Image.fromarray(self.data[index]), int(self.labels[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)

    def _check_integrity(self) -> bool:
        return check_integrity(os.path.join(self.root, self.filename), self.md5_checksum)

    def download(self) -> None:
        """Fetch ``semeion.data`` (MD5-checked) into ``root`` unless it is there."""
        if self._check_integrity():
            return
        download_url(self.url, self.root, self.filename, self.md5_checksum)
