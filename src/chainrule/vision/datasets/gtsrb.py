"""GTSRB (German Traffic Sign Recognition Benchmark), read from ``root/gtsrb/GTSRB``:
training images as class folders of ``.ppm`` files, test images listed with their classes
in ``GT-final_test.csv``."""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Callable
from typing import Any

from .folder import make_dataset
from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = ["GTSRB"]


class GTSRB(VisionDataset):
    """GTSRB ``split`` ``'train'`` or ``'test'``: items ``(PIL RGB image, class id)``."""

    def __init__(
        self,
        root: str | pathlib.Path,
        split: str = "train",
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = verify_str_arg(split, "split", ("train", "test"))
        self._base_folder = pathlib.Path(root) / "gtsrb"
        self._target_folder = (
            self._base_folder
            / "GTSRB"
            / ("Training" if self._split == "train" else "Final_Test/Images")
        )
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        if self._split == "train":
            samples = make_dataset(str(self._target_folder), extensions=(".ppm",))
        else:
            with open(self._base_folder / "GT-final_test.csv") as f:
                rows = csv.DictReader(f, delimiter=";", skipinitialspace=True)
                samples = [
                    (str(self._target_folder / row["Filename"]), int(row["ClassId"]))
                    for row in rows
                ]
        self._samples = samples

    def __len__(self) -> int:
        return len(self._samples)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from PIL import Image

        path, target = self._samples[index]
        sample = Image.open(path).convert("RGB")
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def _check_exists(self) -> bool:
        return self._target_folder.is_dir()

    def download(self) -> None:
        """Fetch and unzip this split's archives (MD5-checked) into ``root/gtsrb``."""
        if self._check_exists():
            return
        base_url = "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
        archives = (
            [("GTSRB-Training_fixed.zip", "513f3c79a4c5141765e10e952eaa2478")]
            if self._split == "train"
            else [
                ("GTSRB_Final_Test_Images.zip", "c7e4e6327067d32654124b0fe9e82185"),
                ("GTSRB_Final_Test_GT.zip", "fe31e9c9270bbcd7b84b7f21a9d9d9e5"),
            ]
        )
        for name, md5 in archives:
            download_and_extract_archive(
                f"{base_url}{name}", download_root=str(self._base_folder), md5=md5
            )
