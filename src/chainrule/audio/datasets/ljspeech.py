"""*LJSpeech-1.1*: 13,100 clips of one reader, ``LJSpeech-1.1/wavs/<id>.wav``, listed in
``LJSpeech-1.1/metadata.csv`` as ``id|transcript|normalized transcript``."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_tar

__all__ = ["LJSPEECH"]

_RELEASE_CONFIGS = {
    "release1": {
        "folder_in_archive": "wavs",
        "url": "https://data.keithito.com/data/speech/LJSpeech-1.1.tar.bz2",
        "checksum": "be1a30453f28eb8dd26af4101ae40cbf2c50413b1bb21936cbcdc6fae3de8aa5",
    }
}


class LJSPEECH(Dataset):
    """*LJSpeech-1.1*: items ``(waveform, sample_rate, transcript, normalized_transcript)``."""

    def __init__(
        self,
        root: str | Path,
        url: str = _RELEASE_CONFIGS["release1"]["url"],
        folder_in_archive: str = _RELEASE_CONFIGS["release1"]["folder_in_archive"],
        download: bool = False,
    ) -> None:
        root = Path(root)
        archive = root / os.path.basename(url)
        basename = Path(os.path.basename(url).split(".tar.bz2")[0])
        self._path = root / basename / folder_in_archive
        self._metadata_path = root / basename / "metadata.csv"
        if download:
            if not os.path.isdir(self._path):
                if not os.path.isfile(archive):
                    checksum = _RELEASE_CONFIGS["release1"]["checksum"]
                    download_url_to_file(url, str(archive), hash_prefix=checksum)
                _extract_tar(str(archive))
        elif not os.path.exists(self._path):
            raise RuntimeError(
                f"The path {self._path} doesn't exist. "
                "Please check the ``root`` path or set `download=True` to download it"
            )
        with open(self._metadata_path, newline="") as f:
            self._flist = list(csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE))

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, str]:
        """``(waveform, sample_rate, transcript, normalized_transcript)``."""
        fileid, transcript, normalized_transcript = self._flist[n]
        waveform, sample_rate = _io.load(self._path / (fileid + ".wav"))
        return waveform, sample_rate, transcript, normalized_transcript

    def __len__(self) -> int:
        return len(self._flist)
