"""*GTZAN*: 1,000 30-second music clips, 100 per genre, ``genres/<genre>/<genre>.000NN.wav``.
The ``subset`` split is the filtered one of Kereliuk et al. (jordipons'
sklearn-audio-transfer-learning), free of GTZAN's duplicates: below, per genre, the
half-open ranges of clip numbers in each subset."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_tar

__all__ = ["GTZAN"]

gtzan_genres = [
    "blues",
    "classical",
    "country",
    "disco",
    "hiphop",
    "jazz",
    "metal",
    "pop",
    "reggae",
    "rock",
]

Ranges = dict[str, list[tuple[int, int]]]

_TRAIN: Ranges = {
    "blues": [(29, 50), (73, 98)],
    "classical": [(30, 34), (43, 49), (50, 68), (80, 100)],
    "country": [(19, 27), (28, 30), (65, 100)],
    "disco": [(5, 6), (15, 21), (22, 38), (39, 46), (47, 48), (49, 50), (53, 55), (56, 58)]
    + [(59, 60), (61, 62), (70, 71), (73, 75), (89, 90)],
    "hiphop": [(2, 26), (28, 30), (31, 39), (41, 43), (55, 62), (77, 81)],
    "jazz": [(0, 2), (11, 25), (41, 42), (47, 73)],
    "metal": [(2, 4), (5, 6), (21, 22), (24, 25), (35, 36), (46, 58), (59, 67), (69, 70)]
    + [(71, 73), (79, 81), (84, 85), (86, 87), (89, 100)],
    "pop": [(2, 10), (11, 13), (16, 21), (23, 30), (31, 37), (38, 43), (44, 45), (46, 47)]
    + [(49, 51), (80, 81), (97, 100)],
    "reggae": [(0, 3), (4, 5), (6, 7), (9, 10), (11, 13), (14, 33), (42, 46), (49, 52)]
    + [(54, 61), (63, 64), (69, 70)],
    "rock": [(0, 10), (16, 27), (57, 71), (91, 100)],
}
_VALID: Ranges = {
    "blues": [(0, 12), (50, 61)],
    "classical": [(0, 11), (68, 77)],
    "country": [(0, 8), (9, 19), (27, 28), (41, 43), (45, 46), (49, 50)],
    "disco": [(0, 1), (2, 5), (6, 15), (46, 47), (48, 49), (52, 53), (67, 69), (72, 73)]
    + [(75, 76), (90, 91), (95, 96)],
    "hiphop": [(81, 99)],
    "jazz": [(2, 11), (25, 33)],
    "metal": [(0, 2), (6, 12), (16, 21), (36, 38), (68, 69), (76, 78), (81, 83)],
    "pop": [(10, 11), (53, 54), (55, 56), (58, 63), (81, 82), (83, 87)],
    "reggae": [(61, 63), (70, 71), (72, 73), (74, 75), (76, 79), (85, 86), (92, 100)],
    "rock": [(38, 39), (49, 57), (71, 86)],
}
_TEST: Ranges = {
    "blues": [(12, 29), (61, 73), (98, 100)],
    "classical": [(11, 30), (34, 42), (49, 50), (77, 80)],
    "country": [(30, 41), (43, 45), (46, 49), (50, 52), (53, 65)],
    "disco": [(1, 2), (21, 22), (58, 59), (62, 67), (69, 70), (76, 89), (91, 95), (96, 98)]
    + [(99, 100)],
    "hiphop": [(0, 1), (26, 28), (30, 31), (40, 41), (43, 46), (51, 55), (62, 76), (99, 100)],
    "jazz": [(73, 100)],
    "metal": [(12, 16), (22, 24), (25, 34), (38, 40), (67, 68), (70, 71), (73, 76), (78, 79)]
    + [(83, 84), (85, 86), (87, 89)],
    "pop": [(0, 2), (13, 15), (43, 44), (63, 67), (69, 80), (82, 83), (88, 97)],
    "reggae": [(34, 41), (46, 49), (52, 54), (64, 69), (71, 72), (79, 80), (82, 85), (87, 91)],
    "rock": [(10, 16), (27, 38), (39, 49), (86, 91)],
}


def _file_ids(ranges: Ranges) -> list[str]:
    return [
        f"{genre}.{number:05d}"
        for genre, spans in ranges.items()
        for start, stop in spans
        for number in range(start, stop)
    ]


filtered_train = _file_ids(_TRAIN)
filtered_valid = _file_ids(_VALID)
filtered_test = _file_ids(_TEST)

URL = "http://opihi.cs.uvic.ca/sound/genres.tar.gz"
FOLDER_IN_ARCHIVE = "genres"
_CHECKSUMS = {
    "http://opihi.cs.uvic.ca/sound/genres.tar.gz": (
        "24347e0223d2ba798e0a558c4c172d9d4a19c00bb7963fe055d183dadb4ef2c6"
    )
}


def load_gtzan_item(fileid: str, path: str, ext_audio: str) -> tuple[Tensor, int, str]:
    """``(waveform, sample_rate, genre)`` of the clip ``<genre>.<number>``."""
    label = fileid.split(".")[0]
    waveform, sample_rate = _io.load(os.path.join(path, label, fileid + ext_audio))
    return waveform, sample_rate, label


def _is_clip_name(name: str) -> bool:
    """``<genre>.<five digits>``."""
    parts = name.split(".")
    return (
        len(parts) == 2 and parts[0] in gtzan_genres and len(parts[1]) == 5 and parts[1].isdigit()
    )


class GTZAN(Dataset):
    """*GTZAN*: items ``(waveform, sample_rate, label)``. With ``subset=None`` every
    ``<genre>/<genre>.NNNNN.wav`` found is used; ``"training"``, ``"validation"`` and
    ``"testing"`` are the filtered split."""

    _ext_audio = ".wav"

    def __init__(
        self,
        root: str | Path,
        url: str = URL,
        folder_in_archive: str = FOLDER_IN_ARCHIVE,
        download: bool = False,
        subset: str | None = None,
    ) -> None:
        root = os.fspath(root)
        self.root = root
        self.url = url
        self.folder_in_archive = folder_in_archive
        self.download = download
        self.subset = subset
        if subset is not None and subset not in ["training", "validation", "testing"]:
            raise ValueError(
                "When `subset` is not None, it must be one of ['training', 'validation', 'testing']."
            )
        archive = os.path.join(root, os.path.basename(url))
        self._path = os.path.join(root, folder_in_archive)
        if download and not os.path.isdir(self._path):
            if not os.path.isfile(archive):
                download_url_to_file(url, archive, hash_prefix=_CHECKSUMS.get(url, None))
            _extract_tar(archive)
        if not os.path.isdir(self._path):
            raise RuntimeError("Dataset not found. Please use `download=True` to download it.")
        if subset == "training":
            self._walker = filtered_train
        elif subset == "validation":
            self._walker = filtered_valid
        elif subset == "testing":
            self._walker = filtered_test
        else:
            self._walker = self._scan(os.path.expanduser(self._path))

    @staticmethod
    def _scan(path: str) -> list[str]:
        """The clips in each genre's folder, genre by genre, names sorted."""
        walker = []
        for genre in gtzan_genres:
            folder = os.path.join(path, genre)
            if not os.path.exists(folder):
                continue
            for fname in sorted(os.listdir(folder)):
                name, ext = os.path.splitext(fname)
                if ext.lower() == ".wav" and _is_clip_name(name):
                    walker.append(name)
        return walker

    def __getitem__(self, n: int) -> tuple[Tensor, int, str]:
        """``(waveform, sample_rate, label)``."""
        return load_gtzan_item(self._walker[n], self._path, self._ext_audio)

    def __len__(self) -> int:
        return len(self._walker)
