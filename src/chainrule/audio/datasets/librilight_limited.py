"""*Libri-light limited* (the 10 min / 1 h / 10 h fine-tuning subsets used by HuBERT),
``librispeech_finetuning/{1h/<0-5>,9h}/{clean,other}/<speaker>/<chapter>/*.flac``, in
LibriSpeech's layout."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .librispeech import _get_librispeech_metadata
from .utils import _extract_tar

__all__ = ["LibriLightLimited"]

_ARCHIVE_NAME = "librispeech_finetuning"
_URL = "https://dl.fbaipublicfiles.com/librilight/data/librispeech_finetuning.tgz"
_CHECKSUM = "5d1efdc777b548194d7e09ba89126e2188026df9fd57aa57eb14408d2b2342af"
_SUBSET_MAP = {"10min": ["1h/0"], "1h": ["1h/*"], "10h": ["1h/*", "9h"]}


def _get_fileids_paths(
    path: str | Path, folders: list[str], _ext_audio: str
) -> list[tuple[str, str]]:
    """``(subset folder such as 1h/0/clean, file stem)`` of each audio file, sorted."""
    path = Path(path)
    files = []
    for folder in folders:
        for p in path.glob(f"{folder}/*/*/*/*{_ext_audio}"):
            relative = p.relative_to(path)
            files.append((str(relative.parent.parent.parent), relative.stem))
    files.sort(key=lambda x: x[0] + x[1])
    return files


class LibriLightLimited(Dataset):
    """*Libri-light limited*: items ``(waveform, sample_rate, transcript, speaker_id,
    chapter_id, utterance_id)``; ``subset`` is ``"10min"``, ``"1h"`` or ``"10h"``."""

    _ext_txt = ".trans.txt"
    _ext_audio = ".flac"

    def __init__(self, root: str | Path, subset: str = "10min", download: bool = False) -> None:
        if subset not in _SUBSET_MAP:
            raise ValueError(f"`subset` must be one of {_SUBSET_MAP.keys()}. Found: {subset}")
        root = os.fspath(root)
        self._path = os.path.join(root, _ARCHIVE_NAME)
        archive = os.path.join(root, f"{_ARCHIVE_NAME}.tgz")
        if not os.path.isdir(self._path):
            if not download:
                raise RuntimeError("Dataset not found. Please use `download=True` to download")
            if not os.path.isfile(archive):
                download_url_to_file(_URL, archive, hash_prefix=_CHECKSUM)
            _extract_tar(archive)
        self._fileids_paths = _get_fileids_paths(self._path, _SUBSET_MAP[subset], self._ext_audio)

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, int, int, int]:
        """``(waveform, sample_rate, transcript, speaker_id, chapter_id, utterance_id)``."""
        file_path, fileid = self._fileids_paths[n]
        metadata = _get_librispeech_metadata(
            fileid, self._path, file_path, self._ext_audio, self._ext_txt
        )
        waveform, _ = _io.load(os.path.join(self._path, metadata[0]))
        return (waveform,) + metadata[1:]

    def __len__(self) -> int:
        return len(self._fileids_paths)
