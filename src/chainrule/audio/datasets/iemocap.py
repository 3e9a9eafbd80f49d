"""*IEMOCAP*: five sessions of dyadic acted dialogue,
``IEMOCAP/Session<k>/sentences/wav/<dialog>/<utt>.wav``, emotion labels in
``dialog/EmoEvaluation/*.txt``; only neu, hap, ang, sad, exc and fru are kept."""

from __future__ import annotations

import os
import re
from pathlib import Path

from chainrule import Tensor
from chainrule.utils.data import Dataset

from .utils import _load_waveform

__all__ = ["IEMOCAP"]

_SAMPLE_RATE = 16000
_LABELS = ["neu", "hap", "ang", "sad", "exc", "fru"]


def _get_wavs_paths(data_dir: Path) -> list[str]:
    """The session's wav files, as paths starting at ``Session<k>``, sorted."""
    wav_paths = sorted(str(p) for p in (data_dir / "sentences" / "wav").glob("*/*.wav"))
    return [path[path.find("Session") :] for path in wav_paths]


class IEMOCAP(Dataset):
    """*IEMOCAP*: items ``(waveform, sample_rate, file_name, label, speaker)``;
    ``utterance_type`` is ``"scripted"``, ``"improvised"`` or ``None`` (both)."""

    def __init__(
        self,
        root: str | Path,
        sessions: tuple[str, ...] = (1, 2, 3, 4, 5),
        utterance_type: str | None = None,
    ) -> None:
        self._path = Path(root) / "IEMOCAP"
        if not os.path.isdir(self._path):
            raise RuntimeError("Dataset not found.")
        if utterance_type not in ["scripted", "improvised", None]:
            raise ValueError("utterance_type must be one of ['scripted', 'improvised', or None]")
        query = {"scripted": "*script*.txt", "improvised": "*impro*.txt"}.get(
            utterance_type, "*.txt"
        )
        all_data = []
        self.data = []
        self.mapping = {}
        for session in sessions:
            session_dir = self._path / f"Session{session}"
            wav_paths = _get_wavs_paths(session_dir)
            all_data += [Path(p).stem for p in wav_paths]
            for label_path in (session_dir / "dialog" / "EmoEvaluation").glob(query):
                with open(label_path) as f:
                    for line in f:
                        if not line.startswith("["):
                            continue
                        fields = re.split("[\t\n]", line)
                        wav_stem, label = fields[1], fields[2]
                        if wav_stem in all_data and label in _LABELS:
                            self.mapping[wav_stem] = {"label": label}
            for wav_path in wav_paths:
                wav_stem = Path(wav_path).stem
                if wav_stem in self.mapping:
                    self.data.append(wav_stem)
                    self.mapping[wav_stem]["path"] = wav_path

    def get_metadata(self, n: int) -> tuple[str, int, str, str, str]:
        """``(path relative to IEMOCAP/, sample_rate, file_name, label, speaker)``."""
        wav_stem = self.data[n]
        entry = self.mapping[wav_stem]
        return entry["path"], _SAMPLE_RATE, wav_stem, entry["label"], wav_stem.split("_")[0]

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, str, str]:
        """``(waveform, sample_rate, file_name, label, speaker)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._path, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self.data)
