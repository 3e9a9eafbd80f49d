"""*LibriSpeech*: read English audiobooks at 16 kHz, FLAC files in
``LibriSpeech/<subset>/<speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac`` with one
``<speaker>-<chapter>.trans.txt`` per chapter (``<utterance id> <TRANSCRIPT>`` lines)."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .utils import _extract_tar, _load_waveform

__all__ = ["LIBRISPEECH"]

URL = "train-clean-100"
FOLDER_IN_ARCHIVE = "LibriSpeech"
SAMPLE_RATE = 16000
_DATA_SUBSETS = [
    "dev-clean",
    "dev-other",
    "test-clean",
    "test-other",
    "train-clean-100",
    "train-clean-360",
    "train-other-500",
]
_BASE_URL = "http://www.openslr.org/resources/12/"
_SHA256 = {
    "dev-clean": "76f87d090650617fca0cac8f88b9416e0ebf80350acb97b343a85fa903728ab3",
    "dev-other": "12661c48e8c3fe1de2c1caa4c3e135193bfb1811584f11f569dd12645aa84365",
    "test-clean": "39fde525e59672dc6d1551919b1478f724438a95aa55f874b576be21967e6c23",
    "test-other": "d09c181bba5cf717b3dee7d4d592af11a3ee3a09e08ae025c5506f6ebe961c29",
    "train-clean-100": "d4ddd1d5a6ab303066f14971d768ee43278a5f2a0aa43dc716b0e64ecbbbf6e2",
    "train-clean-360": "146a56496217e96c14334a160df97fffedd6e0a04e66b9c5af0d40be3c792ecf",
    "train-other-500": "ddb22f27f96ec163645d53215559df6aa36515f26e01dd70798188350adcb6d2",
}
_CHECKSUMS = {f"{_BASE_URL}{name}.tar.gz": digest for name, digest in _SHA256.items()}


def _download_librispeech(root: str, url: str) -> None:
    """Fetch ``<url>.tar.gz`` from OpenSLR into ``root`` (unless there) and extract it."""
    filename = url + ".tar.gz"
    archive = os.path.join(root, filename)
    download_url = os.path.join(_BASE_URL, filename)
    if not os.path.isfile(archive):
        download_url_to_file(download_url, archive, hash_prefix=_CHECKSUMS.get(download_url, None))
    _extract_tar(archive)


def _find_transcript(file_text: str, fileid_audio: str) -> str:
    with open(file_text) as f:
        for line in f:
            fileid_text, transcript = line.strip().split(" ", 1)
            if fileid_text == fileid_audio:
                return transcript
    raise FileNotFoundError(f"Translation not found for {fileid_audio}")


def _get_librispeech_metadata(
    fileid: str, root: str, folder: str, ext_audio: str, ext_txt: str
) -> tuple[str, int, str, int, int, int]:
    """``(audio path relative to root, rate, transcript, speaker, chapter, utterance)``."""
    speaker_id, chapter_id, utterance_id = fileid.split("-")
    fileid_audio = f"{speaker_id}-{chapter_id}-{utterance_id}"
    filepath = os.path.join(folder, speaker_id, chapter_id, f"{fileid_audio}{ext_audio}")
    file_text = os.path.join(
        root, folder, speaker_id, chapter_id, f"{speaker_id}-{chapter_id}{ext_txt}"
    )
    transcript = _find_transcript(file_text, fileid_audio)
    return filepath, SAMPLE_RATE, transcript, int(speaker_id), int(chapter_id), int(utterance_id)


class LIBRISPEECH(Dataset):
    """*LibriSpeech*: items ``(waveform, sample_rate, transcript, speaker_id, chapter_id,
    utterance_id)``; ``url`` names the subset (``"train-clean-100"``, ``"dev-clean"``, ...).
    Decoding FLAC needs ``soundfile``; :meth:`get_metadata` decodes nothing."""

    _ext_txt = ".trans.txt"
    _ext_audio = ".flac"

    def __init__(
        self,
        root: str | Path,
        url: str = URL,
        folder_in_archive: str = FOLDER_IN_ARCHIVE,
        download: bool = False,
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

    def get_metadata(self, n: int) -> tuple[str, int, str, int, int, int]:
        """The n-th item with the audio's path (relative to ``root/folder_in_archive``) in
        place of the waveform."""
        return _get_librispeech_metadata(
            self._walker[n], self._archive, self._url, self._ext_audio, self._ext_txt
        )

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, int, int, int]:
        """``(waveform, sample_rate, transcript, speaker_id, chapter_id, utterance_id)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._archive, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self._walker)
