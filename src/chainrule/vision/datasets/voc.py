"""PASCAL VOC 2007-2012 segmentation and detection, read from the ``VOCdevkit`` tree the
archives unpack to (``JPEGImages``, ``SegmentationClass`` PNGs, ``Annotations`` XML files
and the ``ImageSets`` split lists)."""

from __future__ import annotations

import collections
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

try:  # defusedxml refuses entity-expansion bombs; the standard parser is the fallback
    from defusedxml.ElementTree import parse as ET_parse
except ImportError:
    from xml.etree.ElementTree import parse as ET_parse

__all__ = ["VOCDetection", "VOCSegmentation"]

DATASET_YEAR_DICT = {
    "2012": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar",
        "filename": "VOCtrainval_11-May-2012.tar",
        "md5": "6cd6e144f989b92b3379bac3b3de84fd",
        "base_dir": os.path.join("VOCdevkit", "VOC2012"),
    },
    "2011": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2011/VOCtrainval_25-May-2011.tar",
        "filename": "VOCtrainval_25-May-2011.tar",
        "md5": "6c3384ef61512963050cb5d687e5bf1e",
        "base_dir": os.path.join("TrainVal", "VOCdevkit", "VOC2011"),
    },
    "2010": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2010/VOCtrainval_03-May-2010.tar",
        "filename": "VOCtrainval_03-May-2010.tar",
        "md5": "da459979d0c395079b5c75ee67908abb",
        "base_dir": os.path.join("VOCdevkit", "VOC2010"),
    },
    "2009": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2009/VOCtrainval_11-May-2009.tar",
        "filename": "VOCtrainval_11-May-2009.tar",
        "md5": "a3e00b113cfcfebf17e343f59da3caa1",
        "base_dir": os.path.join("VOCdevkit", "VOC2009"),
    },
    "2008": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2008/VOCtrainval_14-Jul-2008.tar",
        "filename": "VOCtrainval_11-May-2012.tar",  # (sic: torchvision's file name)
        "md5": "2629fa636546599198acfcfbfcf1904a",
        "base_dir": os.path.join("VOCdevkit", "VOC2008"),
    },
    "2007": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtrainval_06-Nov-2007.tar",
        "filename": "VOCtrainval_06-Nov-2007.tar",
        "md5": "c52e279531787c972589f7e41ab4ae64",
        "base_dir": os.path.join("VOCdevkit", "VOC2007"),
    },
    "2007-test": {
        "url": "https://thor.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtest_06-Nov-2007.tar",
        "filename": "VOCtest_06-Nov-2007.tar",
        "md5": "b6e924de25625d8de591ea690078ad9f",
        "base_dir": os.path.join("VOCdevkit", "VOC2007"),
    },
}


class _VOCBase(VisionDataset):
    """The split list ``ImageSets/<_SPLITS_DIR>/<image_set>.txt`` of ``year`` gives the
    ``images`` (``JPEGImages/<id>.jpg``) and ``targets`` (``<_TARGET_DIR>/<id><ext>``)."""

    _SPLITS_DIR: str
    _TARGET_DIR: str
    _TARGET_FILE_EXT: str

    def __init__(
        self,
        root: str | Path,
        year: str = "2012",
        image_set: str = "train",
        download: bool = False,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        transforms: Callable | None = None,
    ) -> None:
        super().__init__(root, transforms, transform, target_transform)
        self.year = verify_str_arg(year, "year", valid_values=[str(yr) for yr in range(2007, 2013)])
        valid_image_sets = ["train", "trainval", "val"] + (["test"] if year == "2007" else [])
        self.image_set = verify_str_arg(image_set, "image_set", valid_image_sets)
        entry = DATASET_YEAR_DICT["2007-test" if year == "2007" and image_set == "test" else year]
        self.url, self.filename, self.md5 = entry["url"], entry["filename"], entry["md5"]
        voc_root = os.path.join(self.root, entry["base_dir"])
        if download:
            download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.md5)
        if not os.path.isdir(voc_root):
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        split_file = os.path.join(
            voc_root, "ImageSets", self._SPLITS_DIR, image_set.rstrip("\n") + ".txt"
        )
        with open(split_file) as f:
            ids = [line.strip() for line in f.readlines()]
        self.images = [os.path.join(voc_root, "JPEGImages", i + ".jpg") for i in ids]
        self.targets = [
            os.path.join(voc_root, self._TARGET_DIR, i + self._TARGET_FILE_EXT) for i in ids
        ]

    def __len__(self) -> int:
        return len(self.images)


class VOCSegmentation(_VOCBase):
    """Items ``(RGB image, segmentation mask)``, both PIL images (the mask in palette mode)."""

    _SPLITS_DIR = "Segmentation"
    _TARGET_DIR = "SegmentationClass"
    _TARGET_FILE_EXT = ".png"

    @property
    def masks(self) -> list[str]:
        return self.targets

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        img = Image.open(self.images[index]).convert("RGB")
        target = Image.open(self.masks[index])
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


class VOCDetection(_VOCBase):
    """Items ``(RGB image, annotation)``: the annotation XML as nested dicts
    (``{'annotation': {..., 'object': [ {...}, ... ]}}``)."""

    _SPLITS_DIR = "Main"
    _TARGET_DIR = "Annotations"
    _TARGET_FILE_EXT = ".xml"

    @property
    def annotations(self) -> list[str]:
        return self.targets

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        img = Image.open(self.images[index]).convert("RGB")
        target = self.parse_voc_xml(ET_parse(self.annotations[index]).getroot())
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target

    @staticmethod
    def parse_voc_xml(node: Element) -> dict[str, Any]:
        """An XML element as ``{tag: text}`` for a leaf, else ``{tag: {child tag: value or list
        of values}}``; the ``object`` entries of an ``annotation`` are always a list."""
        children = list(node)
        if not children:
            return {node.tag: node.text.strip()} if node.text else {}
        grouped: dict[str, list[Any]] = collections.defaultdict(list)
        for child in children:
            for tag, value in VOCDetection.parse_voc_xml(child).items():
                grouped[tag].append(value)
        if node.tag == "annotation":
            grouped["object"] = [grouped["object"]]
        return {
            node.tag: {
                tag: values[0] if len(values) == 1 else values for tag, values in grouped.items()
            }
        }
