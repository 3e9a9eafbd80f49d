"""*QUESST 2014*: query-by-example spoken term detection in six languages, 8 kHz,
``quesst14Database/{Audio,dev_queries,eval_queries}/*.wav`` listed by
``scoring/language_key_{utterances,dev,eval}.lst``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .utils import _extract_tar, _load_waveform

__all__ = ["QUESST14"]

URL = "https://speech.fit.vutbr.cz/files/quesst14Database.tgz"
SAMPLE_RATE = 8000
_CHECKSUM = "4f869e06bc066bbe9c5dde31dbd3909a0870d70291110ebbb38878dcbc2fc5e4"
_LANGUAGES = [
    "albanian",
    "basque",
    "czech",
    "nnenglish",
    "romanian",
    "slovak",
]
_LISTS = {
    "docs": "language_key_utterances.lst",
    "dev": "language_key_dev.lst",
    "eval": "language_key_eval.lst",
}


def filter_audio_paths(path: str, language: str | None, lst_name: str) -> list[Path]:
    """The audio paths of ``scoring/<lst_name>`` in ``language`` (all when ``None``), the
    listed paths' first folder replaced by ``path``."""
    audio_paths = []
    path = Path(path)
    with open(path / "scoring" / lst_name) as f:
        for line in f:
            audio_path, lang = line.strip().split()
            if language is not None and lang != language:
                continue
            audio_paths.append(path / re.sub(r"^.*?\/", "", audio_path))
    return audio_paths


class QUESST14(Dataset):
    """*QUESST14*: items ``(waveform, sample_rate, file_name)``; ``subset`` is ``"docs"``,
    ``"dev"`` or ``"eval"``."""

    def __init__(
        self,
        root: str | Path,
        subset: str,
        language: str | None = "nnenglish",
        download: bool = False,
    ) -> None:
        if subset not in ["docs", "dev", "eval"]:
            raise ValueError("`subset` must be one of ['docs', 'dev', 'eval']")
        if language is not None and language not in _LANGUAGES:
            raise ValueError(f"`language` must be None or one of {str(_LANGUAGES)}")
        root = os.fspath(root)
        basename = os.path.basename(URL)
        archive = os.path.join(root, basename)
        self._path = os.path.join(root, basename.rsplit(".", 2)[0])
        if not os.path.isdir(self._path):
            if not os.path.isfile(archive):
                if not download:
                    raise RuntimeError("Dataset not found. Please use `download=True` to download")
                download_url_to_file(URL, archive, hash_prefix=_CHECKSUM)
            _extract_tar(archive, root)
        self.data = filter_audio_paths(self._path, language, _LISTS[subset])

    def get_metadata(self, n: int) -> tuple[str, int, str]:
        """``(path relative to the dataset folder, sample_rate, file_name)``."""
        audio_path = self.data[n]
        return os.path.relpath(audio_path, self._path), SAMPLE_RATE, audio_path.with_suffix("").name

    def __getitem__(self, n: int) -> tuple[Tensor, int, str]:
        """``(waveform, sample_rate, file_name)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._path, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self.data)
