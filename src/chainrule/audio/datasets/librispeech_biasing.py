"""*LibriSpeech* with contextual biasing: each item also lists the words of its transcript
that are in a given biasing list ``blist``."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.utils.data import Dataset

from .librispeech import (
    _DATA_SUBSETS,
    FOLDER_IN_ARCHIVE,
    SAMPLE_RATE,
    URL,
    _download_librispeech,
    _find_transcript,
)
from .utils import _load_waveform

__all__ = ["LibriSpeechBiasing"]


def _get_librispeech_metadata(
    fileid: str, root: str, folder: str, ext_audio: str, ext_txt: str, blist: list[str]
) -> tuple[str, int, str, int, int, int, list[str]]:
    """LibriSpeech's metadata plus the transcript's words found in ``blist``, in order, once."""
    speaker_id, chapter_id, utterance_id = fileid.split("-")
    fileid_audio = f"{speaker_id}-{chapter_id}-{utterance_id}"
    filepath = os.path.join(folder, speaker_id, chapter_id, f"{fileid_audio}{ext_audio}")
    file_text = os.path.join(
        root, folder, speaker_id, chapter_id, f"{speaker_id}-{chapter_id}{ext_txt}"
    )
    transcript = _find_transcript(file_text, fileid_audio)
    biasing_words = blist or []
    uttblist: list[str] = []
    for word in transcript.split():
        if word in biasing_words and word not in uttblist:
            uttblist.append(word)
    return (
        filepath,
        SAMPLE_RATE,
        transcript,
        int(speaker_id),
        int(chapter_id),
        int(utterance_id),
        uttblist,
    )


class LibriSpeechBiasing(Dataset):
    """LibriSpeech with biasing: items ``(waveform, sample_rate, transcript, speaker_id,
    chapter_id, utterance_id, biasing_words)``."""

    _ext_txt = ".trans.txt"
    _ext_audio = ".flac"

    def __init__(
        self,
        root: str | Path,
        url: str = URL,
        folder_in_archive: str = FOLDER_IN_ARCHIVE,
        download: bool = False,
        blist: list[str] | None = None,
    ) -> None:
        self._url = url
        if url not in _DATA_SUBSETS:
            raise ValueError(f"Invalid url '{url}' given; please provide one of {_DATA_SUBSETS}.")
        root = os.fspath(root)
        self._archive = os.path.join(root, folder_in_archive)
        self._path = os.path.join(root, folder_in_archive, url)
        if not os.path.isdir(self._path):
            if not download:
                raise RuntimeError(
                    f"Dataset not found at {self._path}. Please set `download=True` to download the dataset."
                )
            _download_librispeech(root, url)
        self._walker = sorted(p.stem for p in Path(self._path).glob("*/*/*" + self._ext_audio))
        self.blist = blist

    def get_metadata(self, n: int) -> tuple[str, int, str, int, int, int, list[str]]:
        """The n-th item with the audio's path in place of the waveform."""
        return _get_librispeech_metadata(
            self._walker[n], self._archive, self._url, self._ext_audio, self._ext_txt, self.blist
        )

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, int, int, int, list[str]]:
        """``(waveform, sample_rate, transcript, speaker, chapter, utterance, biasing words)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._archive, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self._walker)
