"""The Oxford-IIIT Pet dataset (37 cat and dog breeds), read from ``root/oxford-iiit-pet``
(``images/*.jpg``, ``annotations/{trainval,test}.txt`` and ``annotations/trimaps/*.png``)."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["OxfordIIITPet"]


class OxfordIIITPet(VisionDataset):
    """Oxford-IIIT Pet ``split`` ``'trainval'`` or ``'test'``. ``target_types`` (one or a list)
    picks ``'category'`` (0..36), ``'binary-category'`` (0 cat, 1 dog) and ``'segmentation'``
    (the trimap as a PIL image); several give a tuple, none gives ``None``."""

    _RESOURCES = (
        (
            "https://www.robots.ox.ac.uk/~vgg/data/pets/data/images.tar.gz",
            "5c4f3ee8e5d25df40f4fd59a7f44e54c",
        ),
        (
            "https://www.robots.ox.ac.uk/~vgg/data/pets/data/annotations.tar.gz",
            "95a8c909bbe2e81eed6a22bccdf3f68f",
        ),
    )
    _VALID_TARGET_TYPES = ("category", "binary-category", "segmentation")

    def __init__(
        self,
        root: str | pathlib.Path,
        split: str = "trainval",
        target_types: Sequence[str] | str = "category",
        transforms: Callable | None = None,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        self._split = verify_str_arg(split, "split", ("trainval", "test"))
        if isinstance(target_types, str):
            target_types = [target_types]
        self._target_types = [
            verify_str_arg(t, "target_types", self._VALID_TARGET_TYPES) for t in target_types
        ]
        super().__init__(
            root, transforms=transforms, transform=transform, target_transform=target_transform
        )
        self._base_folder = pathlib.Path(self.root) / "oxford-iiit-pet"
        self._images_folder = self._base_folder / "images"
        self._anns_folder = self._base_folder / "annotations"
        self._segs_folder = self._anns_folder / "trimaps"
        if download:
            self._download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        image_ids: list[str] = []
        self._labels: list[int] = []
        self._bin_labels: list[int] = []
        with open(self._anns_folder / f"{self._split}.txt") as file:
            for line in file:
                image_id, label, bin_label, _ = line.strip().split()
                image_ids.append(image_id)
                self._labels.append(int(label) - 1)
                self._bin_labels.append(int(bin_label) - 1)
        self.bin_classes = ["Cat", "Dog"]
        # a breed's name is its image ids' prefix, title-cased: "great_pyrenees" -> "Great Pyrenees"
        breeds = sorted(
            {(i.rsplit("_", 1)[0], label) for i, label in zip(image_ids, self._labels)},
            key=lambda p: p[1],
        )
        self.classes = [" ".join(part.title() for part in raw.split("_")) for raw, _ in breeds]
        self.bin_class_to_idx = dict(zip(self.bin_classes, range(len(self.bin_classes))))
        self.class_to_idx = dict(zip(self.classes, range(len(self.classes))))
        self._images = [self._images_folder / f"{i}.jpg" for i in image_ids]
        self._segs = [self._segs_folder / f"{i}.png" for i in image_ids]

    def __len__(self) -> int:
        return len(self._images)

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        from PIL import Image

        image = Image.open(self._images[idx]).convert("RGB")
        target: Any = []
        for kind in self._target_types:
            if kind == "category":
                target.append(self._labels[idx])
            elif kind == "binary-category":
                target.append(self._bin_labels[idx])
            else:
                target.append(Image.open(self._segs[idx]))
        target = None if not target else target[0] if len(target) == 1 else tuple(target)
        if self.transforms:
            image, target = self.transforms(image, target)
        return image, target

    def _check_exists(self) -> bool:
        return all(os.path.isdir(folder) for folder in (self._images_folder, self._anns_folder))

    def _download(self) -> None:
        if self._check_exists():
            return
        for url, md5 in self._RESOURCES:
            download_and_extract_archive(url, download_root=str(self._base_folder), md5=md5)
