"""*TED-LIUM* releases 1-3: TED talks (NIST SPHERE ``.sph``) with ``stm`` transcripts, one
segment per line: ``talk_id channel speaker_id start end identifier transcript``."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_tar

__all__ = ["TEDLIUM"]

_RELEASE_CONFIGS = {
    "release1": {
        "folder_in_archive": "TEDLIUM_release1",
        "url": "http://www.openslr.org/resources/7/TEDLIUM_release1.tar.gz",
        "checksum": "30301975fd8c5cac4040c261c0852f57cfa8adbbad2ce78e77e4986957445f27",
        "data_path": "",
        "subset": "train",
        "supported_subsets": ["train", "test", "dev"],
        "dict": "TEDLIUM.150K.dic",
    },
    "release2": {
        "folder_in_archive": "TEDLIUM_release2",
        "url": "http://www.openslr.org/resources/19/TEDLIUM_release2.tar.gz",
        "checksum": "93281b5fcaaae5c88671c9d000b443cb3c7ea3499ad12010b3934ca41a7b9c58",
        "data_path": "",
        "subset": "train",
        "supported_subsets": ["train", "test", "dev"],
        "dict": "TEDLIUM.152k.dic",
    },
    "release3": {
        "folder_in_archive": "TEDLIUM_release-3",
        "url": "http://www.openslr.org/resources/51/TEDLIUM_release-3.tgz",
        "checksum": "ad1e454d14d1ad550bc2564c462d87c7a7ec83d4dc2b9210f22ab4973b9eccdb",
        "data_path": "data/",
        "subset": "train",
        "supported_subsets": ["train", "test", "dev"],
        "dict": "TEDLIUM.152k.dic",
    },
}


class TEDLIUM(Dataset):
    """*TED-LIUM*: items ``(waveform, sample_rate, transcript, talk_id, speaker_id,
    identifier)``, one per ``stm`` line, the waveform cut from the talk by the line's start
    and end times (16 kHz)."""

    def __init__(
        self,
        root: str | Path,
        release: str = "release1",
        subset: str = "train",
        download: bool = False,
        audio_ext: str = ".sph",
    ) -> None:
        self._ext_audio = audio_ext
        if release not in _RELEASE_CONFIGS:
            raise RuntimeError(
                f"The release {release} does not match any of the supported tedlium releases"
                f"{_RELEASE_CONFIGS.keys()} "
            )
        config = _RELEASE_CONFIGS[release]
        folder_in_archive, url = config["folder_in_archive"], config["url"]
        subset = subset if subset else config["subset"]
        if subset not in config["supported_subsets"]:
            raise RuntimeError(
                f"The subset {subset} does not match any of the supported tedlium subsets"
                f"{config['supported_subsets']} "
            )
        root = os.fspath(root)
        archive = os.path.join(root, os.path.basename(url))
        if release == "release3":
            if subset == "train":
                self._path = os.path.join(root, folder_in_archive, config["data_path"])
            else:
                self._path = os.path.join(root, folder_in_archive, "legacy", subset)
        else:
            self._path = os.path.join(root, folder_in_archive, config["data_path"], subset)
        if download:
            if not os.path.isdir(self._path):
                if not os.path.isfile(archive):
                    download_url_to_file(url, archive, hash_prefix=config["checksum"])
                _extract_tar(archive)
        elif not os.path.exists(self._path):
            raise RuntimeError(
                f"The path {self._path} doesn't exist. "
                "Please check the ``root`` path or set `download=True` to download it"
            )
        self._filelist = []
        stm_dir = os.path.join(self._path, "stm")
        for file in sorted(os.listdir(stm_dir)):
            if file.endswith(".stm"):
                with open(os.path.join(stm_dir, file)) as f:
                    count = len(f.readlines())
                fileid = file.replace(".stm", "")
                self._filelist.extend((fileid, line) for line in range(count))
        self._dict_path = os.path.join(root, folder_in_archive, config["dict"])
        self._phoneme_dict = None

    def _load_tedlium_item(
        self, fileid: str, line: int, path: str
    ) -> tuple[Tensor, int, str, int, int, int]:
        """The segment on line ``line`` of ``stm/<fileid>.stm``, cut from ``sph/<fileid>``."""
        with open(os.path.join(path, "stm", fileid) + ".stm") as f:
            fields = f.readlines()[line].split(" ", 6)
        talk_id, _, speaker_id, start_time, end_time, identifier, transcript = fields
        wave_path = os.path.join(path, "sph", fileid) + self._ext_audio
        waveform, sample_rate = self._load_audio(
            wave_path, start_time=start_time, end_time=end_time
        )
        return waveform, sample_rate, transcript, talk_id, speaker_id, identifier

    def _load_audio(
        self, path: str, start_time: float, end_time: float, sample_rate: int = 16000
    ) -> tuple[Tensor, int]:
        """Frames ``int(start * rate)`` to ``int(end * rate)`` of the file at ``path``."""
        start = int(float(start_time) * sample_rate)
        end = int(float(end_time) * sample_rate)
        return _io.load(path, frame_offset=start, num_frames=end - start)

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, int, int, int]:
        """``(waveform, sample_rate, transcript, talk_id, speaker_id, identifier)``."""
        fileid, line = self._filelist[n]
        return self._load_tedlium_item(fileid, line, self._path)

    def __len__(self) -> int:
        return len(self._filelist)

    @property
    def phoneme_dict(self) -> dict[str, tuple[str, ...]]:
        """Word -> its phonemes (some words have none), read from the release's dictionary."""
        if not self._phoneme_dict:
            self._phoneme_dict = {}
            with open(self._dict_path, encoding="utf-8") as f:
                for line in f.readlines():
                    content = line.strip().split()
                    self._phoneme_dict[content[0]] = tuple(content[1:])
        return self._phoneme_dict.copy()
