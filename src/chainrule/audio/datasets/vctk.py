"""*VCTK 0.92*: 110 English speakers, ``VCTK-Corpus-0.92/txt/<speaker>/<speaker>_<utt>.txt``
and ``wav48_silence_trimmed/<speaker>/<speaker>_<utt>_<mic>.flac`` (two microphones)."""

from __future__ import annotations

import os

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_zip

__all__ = ["VCTK_092"]

URL = "https://datashare.is.ed.ac.uk/bitstream/handle/10283/3443/VCTK-Corpus-0.92.zip"
_CHECKSUMS = {URL: "f96258be9fdc2cbff6559541aae7ea4f59df3fcaf5cf963aae5ca647357e359c"}

SampleType = tuple[Tensor, int, str, str, str]


class VCTK_092(Dataset):
    """*VCTK 0.92*: items ``(waveform, sample_rate, transcript, speaker_id, utterance_id)``.

    Utterances are those with a transcript; speaker ``p315`` has none, ``p280`` has no
    ``mic2`` audio and is skipped for it, and ``p362``'s utterances without audio are
    skipped."""

    def __init__(
        self,
        root: str,
        mic_id: str = "mic2",
        download: bool = False,
        url: str = URL,
        audio_ext: str = ".flac",
    ) -> None:
        if mic_id not in ["mic1", "mic2"]:
            raise RuntimeError(f'`mic_id` has to be either "mic1" or "mic2". Found: {mic_id}')
        archive = os.path.join(root, "VCTK-Corpus-0.92.zip")
        self._path = os.path.join(root, "VCTK-Corpus-0.92")
        self._txt_dir = os.path.join(self._path, "txt")
        self._audio_dir = os.path.join(self._path, "wav48_silence_trimmed")
        self._mic_id = mic_id
        self._audio_ext = audio_ext
        if download and not os.path.isdir(self._path):
            if not os.path.isfile(archive):
                download_url_to_file(url, archive, hash_prefix=_CHECKSUMS.get(url, None))
            _extract_zip(archive, self._path)
        if not os.path.isdir(self._path):
            raise RuntimeError("Dataset not found. Please use `download=True` to download it.")
        self._speaker_ids = sorted(os.listdir(self._txt_dir))
        self._sample_ids = []
        for speaker_id in self._speaker_ids:
            if speaker_id == "p280" and mic_id == "mic2":
                continue
            utterance_dir = os.path.join(self._txt_dir, speaker_id)
            for utterance_file in sorted(
                f for f in os.listdir(utterance_dir) if f.endswith(".txt")
            ):
                utterance_id = os.path.splitext(utterance_file)[0]
                audio = os.path.join(
                    self._audio_dir, speaker_id, f"{utterance_id}_{mic_id}{self._audio_ext}"
                )
                if speaker_id == "p362" and not os.path.isfile(audio):
                    continue
                self._sample_ids.append(utterance_id.split("_"))

    def _load_text(self, file_path: str) -> str:
        with open(file_path) as f:
            return f.readlines()[0]

    def _load_audio(self, file_path: str) -> tuple[Tensor, int]:
        return _io.load(file_path)

    def _load_sample(self, speaker_id: str, utterance_id: str, mic_id: str) -> SampleType:
        stem = f"{speaker_id}_{utterance_id}"
        transcript = self._load_text(os.path.join(self._txt_dir, speaker_id, stem + ".txt"))
        audio = os.path.join(self._audio_dir, speaker_id, f"{stem}_{mic_id}{self._audio_ext}")
        waveform, sample_rate = self._load_audio(audio)
        return waveform, sample_rate, transcript, speaker_id, utterance_id

    def __getitem__(self, n: int) -> SampleType:
        """``(waveform, sample_rate, transcript, speaker_id, utterance_id)``."""
        speaker_id, utterance_id = self._sample_ids[n]
        return self._load_sample(speaker_id, utterance_id, self._mic_id)

    def __len__(self) -> int:
        return len(self._sample_ids)
