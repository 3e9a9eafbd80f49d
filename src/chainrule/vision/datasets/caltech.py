"""Caltech 101 and Caltech 256, read from ``root/caltech101/101_ObjectCategories`` (and
``Annotations``) and ``root/caltech256/256_ObjectCategories``; images numbered per class."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .utils import download_and_extract_archive, extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["Caltech101", "Caltech256"]

# annotation folders named differently from their image folders
_ANNOTATION_NAMES = {
    "Faces": "Faces_2",
    "Faces_easy": "Faces_3",
    "Motorbikes": "Motorbikes_16",
    "airplanes": "Airplanes_Side_2",
}


class Caltech101(VisionDataset):
    """Caltech 101 (without ``BACKGROUND_Google``): ``target_type`` ``'category'`` (index) and/or
    ``'annotation'`` (the object contour from the ``.mat`` file); images as stored (PIL)."""

    def __init__(
        self,
        root: str | Path,
        target_type: list[str] | str = "category",
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(
            os.path.join(root, "caltech101"), transform=transform, target_transform=target_transform
        )
        os.makedirs(self.root, exist_ok=True)
        if isinstance(target_type, str):
            target_type = [target_type]
        self.target_type = [
            verify_str_arg(t, "target_type", ("category", "annotation")) for t in target_type
        ]
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        self.categories = sorted(os.listdir(os.path.join(self.root, "101_ObjectCategories")))
        self.categories.remove("BACKGROUND_Google")
        self.annotation_categories = [_ANNOTATION_NAMES.get(c, c) for c in self.categories]
        self.index: list[int] = []
        self.y: list[int] = []
        for i, c in enumerate(self.categories):
            n = len(os.listdir(os.path.join(self.root, "101_ObjectCategories", c)))
            self.index.extend(range(1, n + 1))
            self.y.extend(n * [i])

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        label, number = self.y[index], self.index[index]
        img = Image.open(
            os.path.join(
                self.root, "101_ObjectCategories", self.categories[label], f"image_{number:04d}.jpg"
            )
        )
        target: Any = []
        for kind in self.target_type:
            if kind == "category":
                target.append(label)
            else:
                import scipy.io

                annotation = scipy.io.loadmat(
                    os.path.join(
                        self.root,
                        "Annotations",
                        self.annotation_categories[label],
                        f"annotation_{number:04d}.mat",
                    )
                )
                target.append(annotation["obj_contour"])
        target = tuple(target) if len(target) > 1 else target[0]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def _check_integrity(self) -> bool:
        return os.path.exists(os.path.join(self.root, "101_ObjectCategories"))

    def __len__(self) -> int:
        return len(self.index)

    def download(self) -> None:
        """Fetch the zip, unpack its ``.tar.gz`` files into ``root`` and remove the rest."""
        if self._check_integrity():
            return
        download_and_extract_archive(
            "https://data.caltech.edu/records/mzrjq-6wc02/files/caltech-101.zip",
            download_root=self.root,
            filename="caltech-101.zip",
            md5="3138e1922a9193bfa496528edbbc45d0",
        )
        unpacked = os.path.join(self.root, "caltech-101")
        for name in os.listdir(unpacked):
            if name.endswith(".gz"):
                extract_archive(os.path.join(unpacked, name), self.root)
        shutil.rmtree(unpacked)
        os.remove(os.path.join(self.root, "caltech-101.zip"))

    def extra_repr(self) -> str:
        return f"Target type: {self.target_type}"


class Caltech256(VisionDataset):
    """Caltech 256: items ``(PIL image as stored, class index)``, files ``NNN_MMMM.jpg``."""

    def __init__(
        self,
        root: str,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(
            os.path.join(root, "caltech256"), transform=transform, target_transform=target_transform
        )
        os.makedirs(self.root, exist_ok=True)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        self.categories = sorted(os.listdir(os.path.join(self.root, "256_ObjectCategories")))
        self.index: list[int] = []
        self.y: list[int] = []
        for i, c in enumerate(self.categories):
            files = os.listdir(os.path.join(self.root, "256_ObjectCategories", c))
            n = len([f for f in files if f.endswith(".jpg")])
            self.index.extend(range(1, n + 1))
            self.y.extend(n * [i])

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        label = self.y[index]
        img = Image.open(
            os.path.join(
                self.root,
                "256_ObjectCategories",
                self.categories[label],
                f"{label + 1:03d}_{self.index[index]:04d}.jpg",
            )
        )
        target = label
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def _check_integrity(self) -> bool:
        return os.path.exists(os.path.join(self.root, "256_ObjectCategories"))

    def __len__(self) -> int:
        return len(self.index)

    def download(self) -> None:
        """Fetch and unpack the ``.tar`` (MD5-checked) into ``root``."""
        if self._check_integrity():
            return
        download_and_extract_archive(
            "https://data.caltech.edu/records/nyy15-4j048/files/256_ObjectCategories.tar",
            self.root,
            filename="256_ObjectCategories.tar",
            md5="67b4f42ca05d46448c6bb8ecd2220f6d",
        )
