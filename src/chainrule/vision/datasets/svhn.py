"""SVHN (Street View House Numbers), read from the MATLAB files ``<split>_32x32.mat`` in ``root``
(through ``scipy.io.loadmat``, which only parses data)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .utils import check_integrity, download_url, verify_str_arg
from .vision import VisionDataset

__all__ = ["SVHN"]


class SVHN(VisionDataset):
    """SVHN digits: ``data`` a uint8 array ``(N, 3, 32, 32)``, ``labels`` int64 with the digit
    0 stored as class 0 (the files say 10); items are ``(PIL RGB image, int)``."""

    split_list = {
        "train": [
            "http://ufldl.stanford.edu/housenumbers/train_32x32.mat",
            "train_32x32.mat",
            "e26dedcc434d2e4c54c9b2d4a06d8373",
        ],
        "test": [
            "http://ufldl.stanford.edu/housenumbers/test_32x32.mat",
            "test_32x32.mat",
            "eb5a983be6a315427106f1b164d9cef3",
        ],
        "extra": [
            "http://ufldl.stanford.edu/housenumbers/extra_32x32.mat",
            "extra_32x32.mat",
            "a93ce644f1a588dc4d68dda5feec44a7",
        ],
    }

    def __init__(
        self,
        root: str | Path,
        split: str = "train",
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", tuple(self.split_list.keys()))
        self.url, self.filename, self.file_md5 = self.split_list[split]
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        import scipy.io as sio

        loaded = sio.loadmat(os.path.join(self.root, self.filename))
        # X is (32, 32, 3, N) in MATLAB's layout; keep (N, 3, 32, 32)
        self.data = np.transpose(loaded["X"], (3, 2, 0, 1))
        labels = loaded["y"].astype(np.int64).squeeze()
        labels[labels == 10] = 0
        self.labels = labels

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        img, target = (
            Image.fromarray(np.transpose(self.data[index], (1, 2, 0))),
            int(self.labels[index]),
        )
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)

    def _check_integrity(self) -> bool:
        return check_integrity(
            os.path.join(self.root, self.filename), self.split_list[self.split][2]
        )

    def download(self) -> None:
        """Fetch this split's ``.mat`` file (MD5-checked) into ``root``."""
        download_url(self.url, self.root, self.filename, self.split_list[self.split][2])

    def extra_repr(self) -> str:
        return f"Split: {self.split}"
