"""*Speech Commands* (v0.01, v0.02): one-second 16 kHz clips of 35 words, in
``<word>/<speaker>_nohash_<n>.wav``; the validation and testing subsets are listed in
``validation_list.txt`` and ``testing_list.txt``, training is the rest."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .utils import _extract_tar, _load_waveform

__all__ = ["SPEECHCOMMANDS"]

FOLDER_IN_ARCHIVE = "SpeechCommands"
URL = "speech_commands_v0.02"
HASH_DIVIDER = "_nohash_"
EXCEPT_FOLDER = "_background_noise_"
SAMPLE_RATE = 16000
_CHECKSUMS = {
    "http://download.tensorflow.org/data/speech_commands_v0.01.tar.gz": (
        "743935421bb51cccdb6bdd152e04c5c70274e935c82119ad7faeec31780d811d"
    ),
    "http://download.tensorflow.org/data/speech_commands_v0.02.tar.gz": (
        "af14739ee7dc311471de98f5f9d2c9191b18aedfe957f4a6ff791c709868ff58"
    ),
}


def _load_list(root: str, *filenames: str) -> list[str]:
    """The normalized paths listed (relative to ``root``) in the files ``filenames``."""
    paths = []
    for filename in filenames:
        with open(os.path.join(root, filename)) as f:
            paths += [os.path.normpath(os.path.join(root, line.strip())) for line in f]
    return paths


def _get_speechcommands_metadata(filepath: str, path: str) -> tuple[str, int, str, str, int]:
    """``(path relative to the archive folder, rate, label, speaker, utterance number)``."""
    relpath = os.path.relpath(filepath, path)
    reldir, filename = os.path.split(relpath)
    label = os.path.basename(reldir)
    # the test-set archives name some files "x.wav.wav": strip the extension twice
    stem = os.path.splitext(os.path.splitext(filename)[0])[0]
    speaker_id, utterance_number = stem.split(HASH_DIVIDER)
    return relpath, SAMPLE_RATE, label, speaker_id, int(utterance_number)


class SPEECHCOMMANDS(Dataset):
    """*Speech Commands*: items ``(waveform, sample_rate, label, speaker_id,
    utterance_number)``; ``subset`` is ``None`` (all), ``"training"``, ``"validation"`` or
    ``"testing"``."""

    def __init__(
        self,
        root: str | Path,
        url: str = URL,
        folder_in_archive: str = FOLDER_IN_ARCHIVE,
        download: bool = False,
        subset: str | None = None,
    ) -> None:
        if subset is not None and subset not in ["training", "validation", "testing"]:
            raise ValueError(
                "When `subset` is not None, it must be one of ['training', 'validation', 'testing']."
            )
        if url in ["speech_commands_v0.01", "speech_commands_v0.02"]:
            url = os.path.join("http://download.tensorflow.org/data/", url + ".tar.gz")
        root = os.fspath(root)
        self._archive = os.path.join(root, folder_in_archive)
        basename = os.path.basename(url)
        archive = os.path.join(root, basename)
        self._path = os.path.join(root, folder_in_archive, basename.rsplit(".", 2)[0])
        if download:
            if not os.path.isdir(self._path):
                if not os.path.isfile(archive):
                    download_url_to_file(url, archive, hash_prefix=_CHECKSUMS.get(url, None))
                _extract_tar(archive, self._path)
        elif not os.path.exists(self._path):
            raise RuntimeError(
                f"The path {self._path} doesn't exist. "
                "Please check the ``root`` path or set `download=True` to download it"
            )
        if subset == "validation":
            self._walker = _load_list(self._path, "validation_list.txt")
        elif subset == "testing":
            self._walker = _load_list(self._path, "testing_list.txt")
        else:
            excludes = set()
            if subset == "training":
                excludes = set(_load_list(self._path, "validation_list.txt", "testing_list.txt"))
            walker = sorted(str(p) for p in Path(self._path).glob("*/*.wav"))
            self._walker = [
                w
                for w in walker
                if HASH_DIVIDER in w
                and EXCEPT_FOLDER not in w
                and os.path.normpath(w) not in excludes
            ]

    def get_metadata(self, n: int) -> tuple[str, int, str, str, int]:
        """The n-th item with the audio's path (relative to ``root/folder_in_archive``) in
        place of the waveform; nothing is decoded."""
        return _get_speechcommands_metadata(self._walker[n], self._archive)

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, str, int]:
        """``(waveform, sample_rate, label, speaker_id, utterance_number)``."""
        metadata = self.get_metadata(n)
        return (_load_waveform(self._archive, metadata[0], metadata[1]),) + metadata[1:]

    def __len__(self) -> int:
        return len(self._walker)
