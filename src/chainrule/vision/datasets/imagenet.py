"""ImageNet 2012 (ILSVRC2012) classification, an :class:`ImageFolder` over ``root/train`` or
``root/val``. The archives are not downloadable (they must be placed in ``root``); on first
use the devkit is parsed into ``meta.bin`` and the split's archive unpacked into class folders."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .folder import ImageFolder
from .utils import check_integrity, extract_archive, verify_str_arg

__all__ = ["ImageNet"]

ARCHIVE_META = {
    "train": ("ILSVRC2012_img_train.tar", "1d675b47d978889d74fa0da5fadfb00e"),
    "val": ("ILSVRC2012_img_val.tar", "29b22e2961454d5413ddabcf34fc5622"),
    "devkit": ("ILSVRC2012_devkit_t12.tar.gz", "fa75699e90414af021442c21a62c3abf"),
}

META_FILE = "meta.bin"


class ImageNet(ImageFolder):
    """ImageNet ``split`` ``'train'`` or ``'val'``: ``wnids`` are the folder names (WordNet
    ids), ``classes`` each one's tuple of names, and ``class_to_idx`` maps every name to its
    index; other keyword arguments go to :class:`ImageFolder`."""

    def __init__(self, root: str | Path, split: str = "train", **kwargs: Any) -> None:
        root = self.root = os.path.expanduser(root)
        self.split = verify_str_arg(split, "split", ("train", "val"))
        self.parse_archives()
        wnid_to_classes = load_meta_file(self.root)[0]
        super().__init__(self.split_folder, **kwargs)
        self.root = root
        self.wnids = self.classes
        self.wnid_to_idx = self.class_to_idx
        self.classes = [wnid_to_classes[wnid] for wnid in self.wnids]
        self.class_to_idx = {name: idx for idx, names in enumerate(self.classes) for name in names}

    def parse_archives(self) -> None:
        """Make ``meta.bin`` from the devkit and the split folder from its archive when missing."""
        if not check_integrity(os.path.join(self.root, META_FILE)):
            parse_devkit_archive(self.root)
        if not os.path.isdir(self.split_folder):
            if self.split == "train":
                parse_train_archive(self.root)
            else:
                parse_val_archive(self.root)

    @property
    def split_folder(self) -> str:
        return os.path.join(self.root, self.split)

    def extra_repr(self) -> str:
        return f"Split: {self.split}"


def load_meta_file(root: str | Path, file: str | None = None) -> tuple[dict[str, str], list[str]]:
    """``(wnid -> class names, the validation images' wnids)`` from ``meta.bin`` (read with
    ``weights_only=True``: plain data only)."""
    import chainrule

    path = os.path.join(root, file or META_FILE)
    if not check_integrity(path):
        raise RuntimeError(
            f"The meta file {path} is not present in the root directory or is corrupted. "
            "This file is automatically created by the ImageNet dataset."
        )
    return chainrule.load(path, weights_only=True)


def _verify_archive(root: str | Path, file: str, md5: str) -> None:
    if not check_integrity(os.path.join(root, file), md5):
        raise RuntimeError(
            f"The archive {file} is not present in the root directory or is corrupted. "
            f"You need to download it externally and place it in {root}."
        )


def parse_devkit_archive(root: str | Path, file: str | None = None) -> None:
    """Read the devkit's ``meta.mat`` (the 1,000 leaf synsets) and validation ground truth,
    and save ``(wnid_to_classes, val_wnids)`` to ``root/meta.bin``."""
    import scipy.io as sio

    import chainrule

    name, md5 = ARCHIVE_META["devkit"]
    file = file or name
    _verify_archive(root, file, md5)
    tmp_dir = tempfile.mkdtemp()
    try:
        extract_archive(os.path.join(root, file), tmp_dir)
        devkit = os.path.join(tmp_dir, "ILSVRC2012_devkit_t12")
        synsets = sio.loadmat(os.path.join(devkit, "data", "meta.mat"), squeeze_me=True)["synsets"]
        # fields: ILSVRC2012_ID, WNID, words, gloss, num_children, ...; leaves are the classes
        leaves = [entry for entry in synsets if entry[4] == 0]
        idx_to_wnid = {entry[0]: entry[1] for entry in leaves}
        wnid_to_classes = {entry[1]: tuple(entry[2].split(", ")) for entry in leaves}
        with open(os.path.join(devkit, "data", "ILSVRC2012_validation_ground_truth.txt")) as f:
            val_wnids = [idx_to_wnid[int(line)] for line in f.readlines()]
        chainrule.save((wnid_to_classes, val_wnids), os.path.join(root, META_FILE))
    finally:
        shutil.rmtree(tmp_dir)


def parse_train_archive(root: str | Path, file: str | None = None, folder: str = "train") -> None:
    """Unpack the training archive into ``root/folder``, then each class's inner ``.tar``."""
    name, md5 = ARCHIVE_META["train"]
    file = file or name
    _verify_archive(root, file, md5)
    train_root = os.path.join(root, folder)
    extract_archive(os.path.join(root, file), train_root)
    for archive in [os.path.join(train_root, a) for a in os.listdir(train_root)]:
        extract_archive(archive, os.path.splitext(archive)[0], remove_finished=True)


def parse_val_archive(
    root: str | Path, file: str | None = None, wnids: list[str] | None = None, folder: str = "val"
) -> None:
    """Unpack the validation archive into ``root/folder`` and move each image (in sorted
    order) into the folder of its ground-truth wnid."""
    name, md5 = ARCHIVE_META["val"]
    file = file or name
    if wnids is None:
        wnids = load_meta_file(root)[1]
    _verify_archive(root, file, md5)
    val_root = os.path.join(root, folder)
    extract_archive(os.path.join(root, file), val_root)
    images = sorted(os.path.join(val_root, image) for image in os.listdir(val_root))
    for wnid in set(wnids):
        os.mkdir(os.path.join(val_root, wnid))
    for wnid, image in zip(wnids, images):
        shutil.move(image, os.path.join(val_root, wnid, os.path.basename(image)))
