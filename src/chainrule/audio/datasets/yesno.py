"""*YesNo*: 60 recordings of a man saying eight words, each yes or no, in Hebrew; the
labels (1 = yes) are the file name, ``0_1_0_0_1_0_1_1.wav``."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_tar

__all__ = ["YESNO"]

_RELEASE_CONFIGS = {
    "release1": {
        "folder_in_archive": "waves_yesno",
        "url": "http://www.openslr.org/resources/1/waves_yesno.tar.gz",
        "checksum": "c3f49e0cca421f96b75b41640749167b52118f232498667ca7a5f9416aef8e73",
    }
}


class YESNO(Dataset):
    """*YesNo* dataset: items ``(waveform, sample_rate, labels)``, files in
    ``root/folder_in_archive/*.wav``, sorted by name."""

    def __init__(
        self,
        root: str | Path,
        url: str = _RELEASE_CONFIGS["release1"]["url"],
        folder_in_archive: str = _RELEASE_CONFIGS["release1"]["folder_in_archive"],
        download: bool = False,
    ) -> None:
        root = Path(root)
        archive = root / os.path.basename(url)
        self._path = root / folder_in_archive
        if download and not os.path.isdir(self._path):
            if not os.path.isfile(archive):
                checksum = _RELEASE_CONFIGS["release1"]["checksum"]
                download_url_to_file(url, str(archive), hash_prefix=checksum)
            _extract_tar(str(archive))
        if not os.path.isdir(self._path):
            raise RuntimeError("Dataset not found. Please use `download=True` to download it.")
        self._walker = sorted(p.stem for p in self._path.glob("*.wav"))

    def __getitem__(self, n: int) -> tuple[Tensor, int, list[int]]:
        """The n-th recording, its sample rate and its eight labels."""
        fileid = self._walker[n]
        waveform, sample_rate = _io.load(os.path.join(self._path, fileid + ".wav"))
        return waveform, sample_rate, [int(c) for c in fileid.split("_")]

    def __len__(self) -> int:
        return len(self._walker)
