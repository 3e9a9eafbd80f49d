"""Datasets read from a directory tree with one folder per class: ``DatasetFolder`` (any
files and loader) and ``ImageFolder`` (image files opened with Pillow as RGB)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .vision import VisionDataset

__all__ = [
    "IMG_EXTENSIONS",
    "DatasetFolder",
    "ImageFolder",
    "default_loader",
    "find_classes",
    "has_file_allowed_extension",
    "is_image_file",
    "make_dataset",
    "pil_loader",
]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions: str | tuple[str, ...]) -> bool:
    """Whether ``filename`` ends (case-insensitively) with one of ``extensions``."""
    return filename.lower().endswith(
        extensions if isinstance(extensions, str) else tuple(extensions)
    )


def is_image_file(filename: str) -> bool:
    """Whether ``filename`` has one of :data:`IMG_EXTENSIONS`."""
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory: str | Path) -> tuple[list[str], dict[str, int]]:
    """The sorted names of the subdirectories of ``directory`` and their indices."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(
    directory: str | Path,
    class_to_idx: dict[str, int] | None = None,
    extensions: str | tuple[str, ...] | None = None,
    is_valid_file: Callable[[str], bool] | None = None,
    allow_empty: bool = False,
) -> list[tuple[str, int]]:
    """``(path, class index)`` for every accepted file under each class folder, classes in
    sorted order and files in sorted walk order. A file is accepted by ``extensions`` or by
    ``is_valid_file`` (exactly one of them must be given)."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError(
            "Both extensions and is_valid_file cannot be None or not None at the same time"
        )
    if extensions is not None:

        def is_valid_file(path: str) -> bool:
            return has_file_allowed_extension(path, extensions)

    instances = []
    found = set()
    for name in sorted(class_to_idx):
        target_dir = os.path.join(directory, name)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_to_idx[name]))
                    found.add(name)
    empty = set(class_to_idx) - found
    if empty and not allow_empty:
        message = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            listed = extensions if isinstance(extensions, str) else ", ".join(extensions)
            message += f"Supported extensions are: {listed}"
        raise FileNotFoundError(message)
    return instances


class DatasetFolder(VisionDataset):
    """Samples ``root/<class>/**/<file>`` read by ``loader``; ``classes`` are the sorted
    folder names, ``samples`` the ``(path, class index)`` pairs and ``targets`` the indices."""

    def __init__(
        self,
        root: str | Path,
        loader: Callable[[str], Any],
        extensions: tuple[str, ...] | None = None,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        is_valid_file: Callable[[str], bool] | None = None,
        allow_empty: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(
            self.root,
            class_to_idx=class_to_idx,
            extensions=extensions,
            is_valid_file=is_valid_file,
            allow_empty=allow_empty,
        )
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [target for _, target in samples]

    @staticmethod
    def make_dataset(
        directory: str | Path,
        class_to_idx: dict[str, int],
        extensions: tuple[str, ...] | None = None,
        is_valid_file: Callable[[str], bool] | None = None,
        allow_empty: bool = False,
    ) -> list[tuple[str, int]]:
        """The samples of ``directory`` (see :func:`make_dataset`); override to read elsewhere."""
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty)

    def find_classes(self, directory: str | Path) -> tuple[list[str], dict[str, int]]:
        """The class folders of ``directory`` (see :func:`find_classes`); override to choose others."""
        return find_classes(directory)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def __len__(self) -> int:
        return len(self.samples)


def pil_loader(path: str | Path) -> Any:
    """The image file at ``path`` as a PIL image in RGB."""
    from PIL import Image

    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def accimage_loader(path: str | Path) -> Any:
    """The image through ``accimage`` when it is installed, else :func:`pil_loader`."""
    try:
        import accimage
    except ImportError:
        return pil_loader(path)
    try:
        return accimage.Image(path)
    except OSError:
        return pil_loader(path)


def default_loader(path: str | Path) -> Any:
    """Load an image with the backend :func:`torchvision.get_image_backend` names."""
    from .. import get_image_backend

    return accimage_loader(path) if get_image_backend() == "accimage" else pil_loader(path)


class ImageFolder(DatasetFolder):
    """A :class:`DatasetFolder` of image files (:data:`IMG_EXTENSIONS`, or ``is_valid_file``)
    loaded by ``loader`` (Pillow, RGB); ``imgs`` is ``samples``."""

    def __init__(
        self,
        root: str | Path,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        loader: Callable[[str], Any] = default_loader,
        is_valid_file: Callable[[str], bool] | None = None,
        allow_empty: bool = False,
    ) -> None:
        super().__init__(
            root,
            loader,
            IMG_EXTENSIONS if is_valid_file is None else None,
            transform=transform,
            target_transform=target_transform,
            is_valid_file=is_valid_file,
            allow_empty=allow_empty,
        )
        self.imgs = self.samples
