"""*Common Voice*: crowd-sourced clips (MP3) in ``clips/``, described by tab-separated
files (``train.tsv``, ``dev.tsv``, ...) whose second column is the clip's path."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from chainrule import Tensor
from chainrule.utils.data import Dataset

from .. import _io

__all__ = ["COMMONVOICE"]


def load_commonvoice_item(
    line: list[str], header: list[str], path: str, folder_audio: str, ext_audio: str
) -> tuple[Tensor, int, dict[str, str]]:
    """``(waveform, sample_rate, {column: value})`` of one TSV row."""
    if header[1] != "path":
        raise ValueError(f"expect `header[1]` to be 'path', but got {header[1]}")
    filename = os.path.join(path, folder_audio, line[1])
    if not filename.endswith(ext_audio):
        filename += ext_audio
    waveform, sample_rate = _io.load(filename)
    return waveform, sample_rate, dict(zip(header, line, strict=False))


class COMMONVOICE(Dataset):
    """*Common Voice*: items ``(waveform, sample_rate, metadata)``, ``metadata`` the TSV
    row (``client_id``, ``path``, ``sentence``, ``up_votes``, ...). Decoding MP3 needs
    ``soundfile``."""

    _ext_txt = ".txt"
    _ext_audio = ".mp3"
    _folder_audio = "clips"

    def __init__(self, root: str | Path, tsv: str = "train.tsv") -> None:
        self._path = os.fspath(root)
        self._tsv = os.path.join(self._path, tsv)
        with open(self._tsv) as f:
            rows = csv.reader(f, delimiter="\t")
            self._header = next(rows)
            self._walker = list(rows)

    def __getitem__(self, n: int) -> tuple[Tensor, int, dict[str, str]]:
        """``(waveform, sample_rate, metadata)``."""
        return load_commonvoice_item(
            self._walker[n], self._header, self._path, self._folder_audio, self._ext_audio
        )

    def __len__(self) -> int:
        return len(self._walker)
