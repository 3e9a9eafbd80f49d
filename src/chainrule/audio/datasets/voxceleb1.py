"""*VoxCeleb1*: celebrity speech from YouTube, ``wav/<speaker id>/<youtube id>/<n>.wav``;
``iden_split.txt`` assigns files to train (1), dev (2), test (3) for identification and
``veri_test.txt`` lists ``label path1 path2`` trials for verification."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .utils import _extract_zip, _load_waveform

__all__ = ["VoxCeleb1Identification", "VoxCeleb1Verification"]

SAMPLE_RATE = 16000
_VOX1A = "https://thor.robots.ox.ac.uk/~vgg/data/voxceleb/vox1a/"
_ARCHIVE_CONFIGS = {
    "dev": {
        "archive_name": "vox1_dev_wav.zip",
        "urls": [_VOX1A + f"vox1_dev_wav_parta{part}" for part in "abcd"],
        "checksums": [
            "21ec6ca843659ebc2fdbe04b530baa4f191ad4b0971912672d92c158f32226a0",
            "311d21e0c8cbf33573a4fce6c80e5a279d80736274b381c394319fc557159a04",
            "92b64465f2b2a3dc0e4196ae8dd6828cbe9ddd1f089419a11e4cbfe2e1750df0",
            "00e6190c770b27f27d2a3dd26ee15596b17066b715ac111906861a7d09a211a5",
        ],
    },
    "test": {
        "archive_name": "vox1_test_wav.zip",
        "url": _VOX1A + "vox1_test_wav.zip",
        "checksum": "8de57f347fe22b2c24526e9f444f689ecf5096fc2a92018cf420ff6b5b15eaea",
    },
}
_IDEN_SPLIT_URL = "https://www.robots.ox.ac.uk/~vgg/data/voxceleb/meta/iden_split.txt"
_VERI_TEST_URL = "https://www.robots.ox.ac.uk/~vgg/data/voxceleb/meta/veri_test.txt"


def _download_extract_wavs(root: str) -> None:
    """Fetch the dev archive (four parts, concatenated) and the test archive; extract both."""
    for name, config in _ARCHIVE_CONFIGS.items():
        archive_path = os.path.join(root, config["archive_name"])
        if name == "dev":
            with open(archive_path, "wb") as archive:
                for url, checksum in zip(config["urls"], config["checksums"], strict=True):
                    part = os.path.join(root, os.path.basename(url))
                    download_url_to_file(url, part, hash_prefix=checksum)
                    with open(part, "rb") as f:
                        archive.write(f.read())
        else:
            download_url_to_file(config["url"], archive_path, hash_prefix=config["checksum"])
        _extract_zip(archive_path)


def _get_flist(root: str, file_path: str, subset: str) -> list[str]:
    """The sorted paths that ``iden_split.txt`` assigns to ``subset``."""
    index = {"train": 1, "dev": 2}.get(subset, 3)
    paths = []
    with open(file_path) as f:
        for line in f:
            split_id, path = line.split()
            if int(split_id) == index:
                paths.append(path)
    return sorted(paths)


def _get_paired_flist(root: str, veri_test_path: str) -> list[tuple[str, str, str]]:
    with open(veri_test_path) as f:
        return [tuple(line.split()) for line in f]


def _get_file_id(file_path: str, _ext_audio: str) -> str:
    """``<speaker>/<youtube>/<n>.wav`` -> ``<speaker>-<youtube>-<n>``."""
    speaker_id, youtube_id, utterance_id = file_path.split("/")[-3:]
    return "-".join([speaker_id, youtube_id, utterance_id.replace(_ext_audio, "")])


class VoxCeleb1(Dataset):
    """The shared part of the two VoxCeleb1 datasets: finding (or downloading) ``root/wav``."""

    _ext_audio = ".wav"

    def __init__(self, root: str | Path, download: bool = False) -> None:
        root = os.fspath(root)
        self._path = os.path.join(root, "wav")
        if not os.path.isdir(self._path):
            if not download:
                raise RuntimeError(
                    f"Dataset not found at {self._path}. Please set `download=True` to download the dataset."
                )
            _download_extract_wavs(root)

    def get_metadata(self, n: int) -> tuple:
        raise NotImplementedError

    def __getitem__(self, n: int) -> tuple:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


class VoxCeleb1Identification(VoxCeleb1):
    """VoxCeleb1 for speaker identification: items ``(waveform, sample_rate, speaker_id,
    file_id)``; ``subset`` is train, dev or test."""

    def __init__(
        self,
        root: str | Path,
        subset: str = "train",
        meta_url: str = _IDEN_SPLIT_URL,
        download: bool = False,
    ) -> None:
        super().__init__(root, download)
        if subset not in ["train", "dev", "test"]:
            raise ValueError("`subset` must be one of ['train', 'dev', 'test']")
        meta_list_path = os.path.join(root, os.path.basename(meta_url))
        if not os.path.exists(meta_list_path):
            download_url_to_file(meta_url, meta_list_path)
        self._flist = _get_flist(self._path, meta_list_path, subset)

    def get_metadata(self, n: int) -> tuple[str, int, int, str]:
        """``(path relative to wav/, sample_rate, speaker_id, file_id)``."""
        file_path = self._flist[n]
        file_id = _get_file_id(file_path, self._ext_audio)
        speaker_id = int(file_id.split("-")[0][3:])
        return file_path, SAMPLE_RATE, speaker_id, file_id

    def __getitem__(self, n: int) -> tuple[Tensor, int, int, str]:
        """``(waveform, sample_rate, speaker_id, file_id)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._path, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self._flist)


class VoxCeleb1Verification(VoxCeleb1):
    """VoxCeleb1 for speaker verification: items ``(waveform_spk1, waveform_spk2,
    sample_rate, label, file_id_spk1, file_id_spk2)``, label 1 for the same speaker."""

    def __init__(
        self, root: str | Path, meta_url: str = _VERI_TEST_URL, download: bool = False
    ) -> None:
        super().__init__(root, download)
        meta_list_path = os.path.join(root, os.path.basename(meta_url))
        if not os.path.exists(meta_list_path):
            download_url_to_file(meta_url, meta_list_path)
        self._flist = _get_paired_flist(self._path, meta_list_path)

    def get_metadata(self, n: int) -> tuple[str, str, int, int, str, str]:
        """``(path 1, path 2, sample_rate, label, file_id 1, file_id 2)``."""
        label, path1, path2 = self._flist[n]
        file_id1 = _get_file_id(path1, self._ext_audio)
        file_id2 = _get_file_id(path2, self._ext_audio)
        return path1, path2, SAMPLE_RATE, int(label), file_id1, file_id2

    def __getitem__(self, n: int) -> tuple[Tensor, Tensor, int, int, str, str]:
        """``(waveform_spk1, waveform_spk2, sample_rate, label, file_id_spk1, file_id_spk2)``."""
        metadata = self.get_metadata(n)
        waveform1 = _load_waveform(self._path, metadata[0], metadata[2])
        waveform2 = _load_waveform(self._path, metadata[1], metadata[2])
        return (waveform1, waveform2) + metadata[2:]

    def __len__(self) -> int:
        return len(self._flist)
