"""Omniglot: 1,623 handwritten characters from 50 alphabets, read from
``root/omniglot-py/images_{background,evaluation}/<alphabet>/<character>/*.png`` (the
zip beside it is what the MD5 check looks at)."""

from __future__ import annotations

from collections.abc import Callable
from os.path import join
from pathlib import Path
from typing import Any

from .utils import check_integrity, download_and_extract_archive, list_dir, list_files
from .vision import VisionDataset

__all__ = ["Omniglot"]


class Omniglot(VisionDataset):
    """Omniglot's ``background`` (training) or evaluation set: items ``(image, character
    index)``, the image grayscale (``'L'``) unless a ``loader`` is given."""

    folder = "omniglot-py"
    download_url_prefix = "https://raw.githubusercontent.com/brendenlake/omniglot/master/python"
    zips_md5 = {
        "images_background": "68d2efa1b9178cc56df9314c21c6e718",
        "images_evaluation": "6b91aef0f799c5bb55b94e3f2daec811",
    }

    def __init__(
        self,
        root: str | Path,
        background: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
        loader: Callable[[str | Path], Any] | None = None,
    ) -> None:
        super().__init__(
            join(root, self.folder), transform=transform, target_transform=target_transform
        )
        self.background = background
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        self.target_folder = join(self.root, self._get_target_folder())
        self._alphabets = list_dir(self.target_folder)
        self._characters: list[str] = [
            join(a, c) for a in self._alphabets for c in list_dir(join(self.target_folder, a))
        ]
        self._character_images = [
            [(image, idx) for image in list_files(join(self.target_folder, character), ".png")]
            for idx, character in enumerate(self._characters)
        ]
        self._flat_character_images: list[tuple[str, int]] = [
            pair for group in self._character_images for pair in group
        ]
        self.loader = loader

    def __len__(self) -> int:
        return len(self._flat_character_images)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        image_name, character_class = self._flat_character_images[index]
        path = join(self.target_folder, self._characters[character_class], image_name)
        if self.loader is None:
            from PIL import Image

            image = Image.open(path, mode="r").convert("L")
        else:
            image = self.loader(path)
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            character_class = self.target_transform(character_class)
        return image, character_class

    def _check_integrity(self) -> bool:
        name = self._get_target_folder()
        return check_integrity(join(self.root, name + ".zip"), self.zips_md5[name])

    def download(self) -> None:
        """Fetch and unzip this set's archive (MD5-checked) into ``root/omniglot-py``."""
        if self._check_integrity():
            return
        name = self._get_target_folder()
        download_and_extract_archive(
            f"{self.download_url_prefix}/{name}.zip",
            self.root,
            filename=name + ".zip",
            md5=self.zips_md5[name],
        )

    def _get_target_folder(self) -> str:
        return "images_background" if self.background else "images_evaluation"
