"""*Snips* (spoken SLU): synthesized utterances by 16 voices, ``SNIPS/<subset>/<speaker>-*``
(MP3 or WAV), with transcript, IOB slots and intent in ``SNIPS/all.iob.snips.txt``."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.utils.data import Dataset

from .utils import _load_waveform

__all__ = ["Snips"]

_SAMPLE_RATE = 16000
_SPEAKERS = [
    "Aditi",
    "Amy",
    "Brian",
    "Emma",
    "Geraint",
    "Ivy",
    "Joanna",
    "Joey",
    "Justin",
    "Kendra",
    "Kimberly",
    "Matthew",
    "Nicole",
    "Raveena",
    "Russell",
    "Salli",
]


def _load_labels(file: Path, subset: str) -> dict[str, tuple[str, str, str]]:
    """Utterance name -> (transcript, IOB labels, intent), for the names containing ``subset``.

    A line is ``<name> BOS w1 .. wn EOS\\tO l1 .. ln <intent>``."""
    labels = {}
    with open(file) as f:
        for line in f:
            fields = line.strip().split(" ")
            index = fields[0]
            words, iob_intent = " ".join(fields[1:]).split("\t")
            transcript = " ".join(words.split(" ")[1:-1])
            iob = " ".join(iob_intent.split(" ")[1:-1])
            intent = iob_intent.split(" ")[-1]
            if subset in index:
                labels[index] = (transcript, iob, intent)
    return labels


class Snips(Dataset):
    """*Snips*: items ``(waveform, sample_rate, file_name, transcript, iob, intent)``."""

    _trans_file = "all.iob.snips.txt"

    def __init__(
        self,
        root: str | Path,
        subset: str,
        speakers: list[str] | None = None,
        audio_format: str = "mp3",
    ) -> None:
        if subset not in ["train", "valid", "test"]:
            raise ValueError('`subset` must be one of ["train", "valid", "test"].')
        if audio_format not in ["mp3", "wav"]:
            raise ValueError('`audio_format` must be one of ["mp3", "wav].')
        self._path = Path(root) / "SNIPS"
        self.audio_path = self._path / subset
        speakers = _SPEAKERS if speakers is None else speakers
        if not os.path.isdir(self._path):
            raise RuntimeError("Dataset not found.")
        self.audio_paths = self.audio_path.glob(f"*.{audio_format}")
        self.data = [p for p in sorted(self.audio_paths) if p.name.split("-")[0] in speakers]
        self.labels = _load_labels(self._path / self._trans_file, subset)

    def get_metadata(self, n: int) -> tuple[str, int, str, str, str, str]:
        """``(path relative to SNIPS/, sample_rate, file_name, transcript, iob, intent)``."""
        audio_path = self.data[n]
        file_name = audio_path.with_suffix("").name
        transcript, iob, intent = self.labels[file_name]
        return (
            os.path.relpath(audio_path, self._path),
            _SAMPLE_RATE,
            file_name,
            transcript,
            iob,
            intent,
        )

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, str, str, str]:
        """``(waveform, sample_rate, file_name, transcript, iob, intent)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._path, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self.data)
