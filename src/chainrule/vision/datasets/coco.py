"""MS COCO detection and captions: images under ``root`` and a COCO-format annotation file.
The index is pycocotools' ``COCO`` when it is installed (as in torchvision); otherwise a
small built-in index with the same lookups (``getAnnIds``, ``loadAnns``, ``loadImgs``, ...)."""

from __future__ import annotations

import json
import os.path
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .vision import VisionDataset

__all__ = ["CocoCaptions", "CocoDetection"]


def _as_list(ids: Any) -> list:
    return list(ids) if isinstance(ids, Iterable) and not isinstance(ids, (str, bytes)) else [ids]


class _COCOIndex:
    """The parts of pycocotools' ``COCO`` the datasets and torchvision's references use:
    ``dataset``, ``anns``, ``imgs``, ``cats``, ``imgToAnns``, ``catToImgs`` and the
    ``get*Ids`` / ``load*`` lookups (annotations of an image in file order)."""

    def __init__(self, annotation_file: str | None = None) -> None:
        self.dataset: dict[str, Any] = {}
        self.anns: dict[int, dict] = {}
        self.imgs: dict[int, dict] = {}
        self.cats: dict[int, dict] = {}
        self.imgToAnns: dict[int, list[dict]] = defaultdict(list)
        self.catToImgs: dict[int, list[int]] = defaultdict(list)
        if annotation_file is not None:
            with open(annotation_file) as f:
                self.dataset = json.load(f)
            self.createIndex()

    def createIndex(self) -> None:
        for ann in self.dataset.get("annotations", []):
            self.imgToAnns[ann["image_id"]].append(ann)
            self.anns[ann["id"]] = ann
        for img in self.dataset.get("images", []):
            self.imgs[img["id"]] = img
        for cat in self.dataset.get("categories", []):
            self.cats[cat["id"]] = cat
        if "annotations" in self.dataset and "categories" in self.dataset:
            for ann in self.dataset["annotations"]:
                self.catToImgs[ann["category_id"]].append(ann["image_id"])

    def getAnnIds(
        self, imgIds: Any = (), catIds: Any = (), areaRng: Any = (), iscrowd: bool | None = None
    ) -> list[int]:
        img_ids, cat_ids = _as_list(imgIds), _as_list(catIds)
        if img_ids:
            anns = [ann for i in img_ids if i in self.imgToAnns for ann in self.imgToAnns[i]]
        else:
            anns = list(self.dataset.get("annotations", []))
        if cat_ids:
            anns = [ann for ann in anns if ann["category_id"] in cat_ids]
        if len(areaRng) == 2:
            anns = [ann for ann in anns if areaRng[0] < ann["area"] < areaRng[1]]
        if iscrowd is not None:
            anns = [ann for ann in anns if ann["iscrowd"] == iscrowd]
        return [ann["id"] for ann in anns]

    def getCatIds(self, catNms: Any = (), supNms: Any = (), catIds: Any = ()) -> list[int]:
        names, supers, ids = _as_list(catNms), _as_list(supNms), _as_list(catIds)
        cats = list(self.dataset.get("categories", []))
        if names:
            cats = [c for c in cats if c["name"] in names]
        if supers:
            cats = [c for c in cats if c["supercategory"] in supers]
        if ids:
            cats = [c for c in cats if c["id"] in ids]
        return [c["id"] for c in cats]

    def getImgIds(self, imgIds: Any = (), catIds: Any = ()) -> list[int]:
        img_ids, cat_ids = _as_list(imgIds), _as_list(catIds)
        chosen = set(img_ids) if img_ids else set(self.imgs.keys())
        for i, cat in enumerate(cat_ids):
            with_cat = set(self.catToImgs[cat])
            chosen = with_cat if i == 0 and not img_ids else chosen & with_cat
        return list(chosen)

    def loadAnns(self, ids: Any = ()) -> list[dict]:
        return [self.anns[i] for i in _as_list(ids)]

    def loadCats(self, ids: Any = ()) -> list[dict]:
        return [self.cats[i] for i in _as_list(ids)]

    def loadImgs(self, ids: Any = ()) -> list[dict]:
        return [self.imgs[i] for i in _as_list(ids)]


def _coco(annotation_file: str) -> Any:
    try:
        from pycocotools.coco import COCO
    except ImportError:
        return _COCOIndex(annotation_file)
    return COCO(annotation_file)


class CocoDetection(VisionDataset):
    """COCO detection: items ``(PIL RGB image, list of its annotation dicts)``, images in
    ascending id order; ``transforms`` (image, target) or the separate transforms apply."""

    def __init__(
        self,
        root: str | Path,
        annFile: str,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        transforms: Callable | None = None,
    ) -> None:
        super().__init__(root, transforms, transform, target_transform)
        self.coco = _coco(annFile)
        self.ids = sorted(self.coco.imgs.keys())

    def _load_image(self, id: int) -> Any:
        from PIL import Image

        path = self.coco.loadImgs(id)[0]["file_name"]
        return Image.open(os.path.join(self.root, path)).convert("RGB")

    def _load_target(self, id: int) -> list[Any]:
        return self.coco.loadAnns(self.coco.getAnnIds(id))

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if not isinstance(index, int):
            raise ValueError(f"Index must be of type integer, got {type(index)} instead.")
        id = self.ids[index]
        image, target = self._load_image(id), self._load_target(id)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self) -> int:
        return len(self.ids)


class CocoCaptions(CocoDetection):
    """COCO captions: items ``(PIL RGB image, list of its caption strings)``."""

    def _load_target(self, id: int) -> list[str]:
        return [ann["caption"] for ann in super()._load_target(id)]
