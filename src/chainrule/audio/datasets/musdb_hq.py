"""*MUSDB18-HQ*: 150 songs as uncompressed 44.1 kHz stems,
``musdb18hq/{train,test}/<artist - title>/{bass,drums,other,vocals,mixture}.wav``."""

from __future__ import annotations

import os
from pathlib import Path

import chainrule
from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_zip

__all__ = ["MUSDB_HQ"]

_URL = "https://zenodo.org/record/3338373/files/musdb18hq.zip"
_CHECKSUM = "baac80d0483c61d74b2e5f3be75fa557eec52898339e6aa45c1fa48833c5d21d"
_EXT = ".wav"
_SAMPLE_RATE = 44100
_VALIDATION_SET = [
    "Actions - One Minute Smile",
    "Clara Berry And Wooldog - Waltz For My Victims",
    "Johnny Lokke - Promises & Lies",
    "Patrick Talbot - A Reason To Leave",
    "Triviul - Angelsaint",
    "Alexander Ross - Goodbye Bolero",
    "Fergessen - Nos Palpitants",
    "Leaf - Summerghost",
    "Skelpolu - Human Mistakes",
    "Young Griffo - Pennies",
    "ANiMAL - Rockshow",
    "James May - On The Line",
    "Meaxic - Take A Step",
    "Traffic Experiment - Sirens",
]


class MUSDB_HQ(Dataset):
    """*MUSDB18-HQ*: items ``(waveforms, sample_rate, num_frames, track_name)``,
    ``waveforms`` the chosen ``sources`` stacked ``[source, channel, time]``. ``split``
    (``"train"``/``"validation"``) divides the training songs by the standard validation
    list."""

    def __init__(
        self,
        root: str | Path,
        subset: str,
        sources: list[str] | None = None,
        split: str | None = None,
        download: bool = False,
    ) -> None:
        self.sources = ["bass", "drums", "other", "vocals"] if not sources else sources
        self.split = split
        basename = os.path.basename(_URL)
        archive = os.path.join(root, basename)
        basename = basename.rsplit(".", 2)[0]
        if subset not in ["test", "train"]:
            raise ValueError("`subset` must be one of ['test', 'train']")
        if self.split is not None and self.split not in ["train", "validation"]:
            raise ValueError("`split` must be one of ['train', 'validation']")
        base_path = os.path.join(root, basename)
        self._path = os.path.join(base_path, subset)
        if not os.path.isdir(self._path):
            if not os.path.isfile(archive):
                if not download:
                    raise RuntimeError("Dataset not found. Please use `download=True` to download")
                download_url_to_file(_URL, archive, hash_prefix=_CHECKSUM)
            os.makedirs(base_path, exist_ok=True)
            _extract_zip(archive, base_path)
        self.names = self._collect_songs()

    def _get_track(self, name: str, source: str) -> Path:
        return Path(self._path) / name / f"{source}{_EXT}"

    def _load_sample(self, n: int) -> tuple[Tensor, int, int, str]:
        name = self.names[n]
        wavs = []
        num_frames = None
        for source in self.sources:
            wav, sr = _io.load(str(self._get_track(name, source)))
            if sr != _SAMPLE_RATE:
                raise ValueError(f"expected sample rate {_SAMPLE_RATE}, but got {sr}")
            if num_frames is None:
                num_frames = wav.shape[-1]
            elif wav.shape[-1] != num_frames:
                raise ValueError("num_frames do not match across sources")
            wavs.append(wav)
        return chainrule.stack(wavs), _SAMPLE_RATE, num_frames, name

    def _collect_songs(self) -> list[str]:
        """The song folders (leaf directories, hidden ones skipped), sorted."""
        if self.split == "validation":
            return _VALIDATION_SET
        path = Path(self._path)
        names = []
        for root, folders, _ in os.walk(path, followlinks=True):
            root = Path(root)
            if root.name.startswith(".") or folders or root == path:
                continue
            name = str(root.relative_to(path))
            if self.split and name in _VALIDATION_SET:
                continue
            names.append(name)
        return sorted(names)

    def __getitem__(self, n: int) -> tuple[Tensor, int, int, str]:
        """``(waveforms, sample_rate, num_frames, track_name)``."""
        return self._load_sample(n)

    def __len__(self) -> int:
        return len(self.names)
