"""*Fluent Speech Commands*: spoken commands with action/object/location intents,
``fluent_speech_commands_dataset/data/<subset>_data.csv`` and ``wavs/speakers/<id>/``."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from chainrule import Tensor
from chainrule.utils.data import Dataset

from .utils import _load_waveform

__all__ = ["FluentSpeechCommands"]

SAMPLE_RATE = 16000


class FluentSpeechCommands(Dataset):
    """*Fluent Speech Commands*: items ``(waveform, sample_rate, file_name, speaker_id,
    transcription, action, object, location)``; ``subset`` is train, valid or test."""

    def __init__(self, root: str | Path, subset: str = "train") -> None:
        if subset not in ["train", "valid", "test"]:
            raise ValueError("`subset` must be one of ['train', 'valid', 'test']")
        self._path = os.path.join(os.fspath(root), "fluent_speech_commands_dataset")
        if not os.path.isdir(self._path):
            raise RuntimeError("Dataset not found.")
        with open(os.path.join(self._path, "data", f"{subset}_data.csv")) as f:
            rows = list(csv.reader(f))
        self.header = rows[0]
        self.data = rows[1:]

    def get_metadata(self, n: int) -> tuple[str, int, str, int, str, str, str, str]:
        """The n-th item with the audio's path (relative to the dataset folder) in place of
        the waveform."""
        sample = self.data[n]
        file_name = sample[self.header.index("path")].split("/")[-1].split(".")[0]
        speaker_id, transcription, action, obj, location = sample[2:]
        file_path = os.path.join("wavs", "speakers", speaker_id, f"{file_name}.wav")
        return file_path, SAMPLE_RATE, file_name, speaker_id, transcription, action, obj, location

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, int, str, str, str, str]:
        """``(waveform, sample_rate, file_name, speaker_id, transcription, action, object,
        location)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._path, metadata[0], metadata[1]),) + metadata[1:]
