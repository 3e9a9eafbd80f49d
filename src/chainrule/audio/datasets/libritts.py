"""*LibriTTS*: LibriSpeech re-cut for speech synthesis at 24 kHz,
``LibriTTS/<subset>/<speaker>/<chapter>/<speaker>_<chapter>_<segment>_<utt>.wav`` with
``.original.txt`` and ``.normalized.txt`` beside each clip."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_tar

__all__ = ["LIBRITTS"]

URL = "train-clean-100"
FOLDER_IN_ARCHIVE = "LibriTTS"
_SUBSETS = [
    "dev-clean",
    "dev-other",
    "test-clean",
    "test-other",
    "train-clean-100",
    "train-clean-360",
    "train-other-500",
]
_BASE_URL = "http://www.openslr.org/resources/60/"
_SHA256 = {
    "dev-clean": "da0864e1bd26debed35da8a869dd5c04dfc27682921936de7cff9c8a254dbe1a",
    "dev-other": "d413eda26f3a152ac7c9cf3658ef85504dfb1b625296e5fa83727f5186cca79c",
    "test-clean": "234ea5b25859102a87024a4b9b86641f5b5aaaf1197335c95090cde04fe9a4f5",
    "test-other": "33a5342094f3bba7ccc2e0500b9e72d558f72eb99328ac8debe1d9080402f10d",
    "train-clean-100": "c5608bf1ef74bb621935382b8399c5cdd51cd3ee47cec51f00f885a64c6c7f6b",
    "train-clean-360": "ce7cff44dcac46009d18379f37ef36551123a1dc4e5c8e4eb73ae57260de4886",
    "train-other-500": "e35f7e34deeb2e2bdfe4403d88c8fdd5fbf64865cae41f027a185a6965f0a5df",
}
_CHECKSUMS = {f"{_BASE_URL}{name}.tar.gz": digest for name, digest in _SHA256.items()}


def _first_line(path: str) -> str:
    with open(path) as f:
        return f.readline()


def load_libritts_item(
    fileid: str,
    path: str,
    ext_audio: str,
    ext_original_txt: str,
    ext_normalized_txt: str,
) -> tuple[Tensor, int, str, str, int, int, str]:
    """``(waveform, rate, original text, normalized text, speaker, chapter, utterance id)``."""
    speaker_id, chapter_id, _, _ = fileid.split("_")
    base = os.path.join(path, speaker_id, chapter_id, fileid)
    waveform, sample_rate = _io.load(base + ext_audio)
    original_text = _first_line(base + ext_original_txt)
    normalized_text = _first_line(base + ext_normalized_txt)
    return (
        waveform,
        sample_rate,
        original_text,
        normalized_text,
        int(speaker_id),
        int(chapter_id),
        fileid,
    )


class LIBRITTS(Dataset):
    """*LibriTTS*: items ``(waveform, sample_rate, original_text, normalized_text,
    speaker_id, chapter_id, utterance_id)``; ``url`` names the subset or is an archive URL."""

    _ext_original_txt = ".original.txt"
    _ext_normalized_txt = ".normalized.txt"
    _ext_audio = ".wav"

    def __init__(
        self,
        root: str | Path,
        url: str = URL,
        folder_in_archive: str = FOLDER_IN_ARCHIVE,
        download: bool = False,
    ) -> None:
        if url in _SUBSETS:
            url = os.path.join(_BASE_URL, url + ".tar.gz")
        root = os.fspath(root)
        basename = os.path.basename(url)
        archive = os.path.join(root, basename)
        self._path = os.path.join(root, folder_in_archive, basename.split(".")[0])
        if download:
            if not os.path.isdir(self._path):
                if not os.path.isfile(archive):
                    download_url_to_file(url, archive, hash_prefix=_CHECKSUMS.get(url, None))
                _extract_tar(archive)
        elif not os.path.exists(self._path):
            raise RuntimeError(
                f"The path {self._path} doesn't exist. "
                "Please check the ``root`` path or set `download=True` to download it"
            )
        self._walker = sorted(p.stem for p in Path(self._path).glob("*/*/*" + self._ext_audio))

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, str, int, int, str]:
        """``(waveform, sample_rate, original_text, normalized_text, speaker_id,
        chapter_id, utterance_id)``."""
        return load_libritts_item(
            self._walker[n],
            self._path,
            self._ext_audio,
            self._ext_original_txt,
            self._ext_normalized_txt,
        )

    def __len__(self) -> int:
        return len(self._walker)
