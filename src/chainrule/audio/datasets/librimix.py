"""*LibriMix*: mixtures of LibriSpeech utterances for source separation, generated locally,
``Libri<N>Mix/wav{8k,16k}/{min,max}/<subset>/{mix_clean,mix_single,mix_both,s1..sN}/``."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.utils.data import Dataset

from .utils import _load_waveform

__all__ = ["LibriMix"]

_TASKS_TO_MIXTURE = {
    "sep_clean": "mix_clean",
    "enh_single": "mix_single",
    "enh_both": "mix_both",
    "sep_noisy": "mix_both",
}


class LibriMix(Dataset):
    """*LibriMix*: items ``(sample_rate, mixture, [source_1, ..., source_N])``; for
    ``task="enh_both"`` the one source is the clean mixture."""

    def __init__(
        self,
        root: str | Path,
        subset: str = "train-360",
        num_speakers: int = 2,
        sample_rate: int = 8000,
        task: str = "sep_clean",
        mode: str = "min",
    ) -> None:
        self.root = Path(root) / f"Libri{num_speakers}Mix"
        if not os.path.exists(self.root):
            raise RuntimeError(
                f"The path {self.root} doesn't exist. "
                "Please check the ``root`` path and ``num_speakers`` or download the dataset manually."
            )
        if mode not in ["max", "min"]:
            raise ValueError(f'Expect ``mode`` to be one in ["min", "max"]. Found {mode}.')
        if sample_rate not in (8000, 16000):
            raise ValueError(f"Unsupported sample rate. Found {sample_rate}.")
        mix_dir = self.root / f"wav{sample_rate // 1000}k" / mode / subset
        self.sample_rate = sample_rate
        self.task = task
        self.mix_dir = mix_dir / _TASKS_TO_MIXTURE[task]
        if task == "enh_both":
            self.src_dirs = [mix_dir / "mix_clean"]
        else:
            self.src_dirs = [mix_dir / f"s{i + 1}" for i in range(num_speakers)]
        self.files = sorted(p.name for p in self.mix_dir.glob("*.wav"))

    def _load_sample(self, key: int) -> tuple[int, Tensor, list[Tensor]]:
        sample_rate, mixed_path, source_paths = self.get_metadata(key)
        mixed = _load_waveform(self.root, mixed_path, sample_rate)
        sources = []
        for i, path in enumerate(source_paths):
            source = _load_waveform(self.root, path, sample_rate)
            if mixed.shape != source.shape:
                raise ValueError(
                    f"Different waveform shapes. mixed: {mixed.shape}, src[{i}]: {source.shape}"
                )
            sources.append(source)
        return self.sample_rate, mixed, sources

    def get_metadata(self, key: int) -> tuple[int, str, list[str]]:
        """``(sample_rate, mixture path, source paths)``, paths relative to ``Libri<N>Mix``."""
        filename = self.files[key]
        mixed_path = os.path.relpath(self.mix_dir / filename, self.root)
        return (
            self.sample_rate,
            mixed_path,
            [os.path.relpath(d / filename, self.root) for d in self.src_dirs],
        )

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, key: int) -> tuple[int, Tensor, list[Tensor]]:
        """``(sample_rate, mixture, sources)``."""
        return self._load_sample(key)
