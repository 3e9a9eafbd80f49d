"""*CMU ARCTIC*: 1,132 phonetically balanced English utterances per speaker (18 speakers),
``ARCTIC/cmu_us_<speaker>_arctic/wav/arctic_<id>.wav``, transcripts in
``etc/txt.done.data`` as ``( arctic_a0001 "Author of the danger trail." )``."""

from __future__ import annotations

import os
from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_tar

__all__ = ["CMUARCTIC"]

URL = "aew"
FOLDER_IN_ARCHIVE = "ARCTIC"
_SPEAKERS = ["aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem"]
_SPEAKERS += ["gka", "jmk", "ksp", "ljm", "lnh", "rms", "rxr", "slp", "slt"]
_SHA256 = {
    "aew": "645cb33c0f0b2ce41384fdd8d3db2c3f5fc15c1e688baeb74d2e08cab18ab406",
    "ahw": "024664adeb892809d646a3efd043625b46b5bfa3e6189b3500b2d0d59dfab06c",
    "aup": "2c55bc3050caa996758869126ad10cf42e1441212111db034b3a45189c18b6fc",
    "awb": "d74a950c9739a65f7bfc4dfa6187f2730fa03de5b8eb3f2da97a51b74df64d3c",
    "axb": "dd65c3d2907d1ee52f86e44f578319159e60f4bf722a9142be01161d84e330ff",
    "bdl": "26b91aaf48b2799b2956792b4632c2f926cd0542f402b5452d5adecb60942904",
    "clb": "3f16dc3f3b97955ea22623efb33b444341013fc660677b2e170efdcc959fa7c6",
    "eey": "8a0ee4e5acbd4b2f61a4fb947c1730ab3adcc9dc50b195981d99391d29928e8a",
    "fem": "3fcff629412b57233589cdb058f730594a62c4f3a75c20de14afe06621ef45e2",
    "gka": "dc82e7967cbd5eddbed33074b0699128dbd4482b41711916d58103707e38c67f",
    "jmk": "3a37c0e1dfc91e734fdbc88b562d9e2ebca621772402cdc693bbc9b09b211d73",
    "ksp": "8029cafce8296f9bed3022c44ef1e7953332b6bf6943c14b929f468122532717",
    "ljm": "b23993765cbf2b9e7bbc3c85b6c56eaf292ac81ee4bb887b638a24d104f921a0",
    "lnh": "4faf34d71aa7112813252fb20c5433e2fdd9a9de55a00701ffcbf05f24a5991a",
    "rms": "c6dc11235629c58441c071a7ba8a2d067903dfefbaabc4056d87da35b72ecda4",
    "rxr": "1fa4271c393e5998d200e56c102ff46fcfea169aaa2148ad9e9469616fbfdd9b",
    "slp": "54345ed55e45c23d419e9a823eef427f1cc93c83a710735ec667d068c916abf1",
    "slt": "7c173297916acf3cc7fcab2713be4c60b27312316765a90934651d367226b4ea",
}
# keyed by festvox.org's URL; the download itself goes to www.festvox.org (torchaudio's choice)
_CHECKSUMS = {
    f"http://festvox.org/cmu_arctic/packed/cmu_us_{speaker}_arctic.tar.bz2": digest
    for speaker, digest in _SHA256.items()
}


def load_cmuarctic_item(
    line: list[str], path: str, folder_audio: str, ext_audio: str
) -> tuple[Tensor, int, str, str]:
    """``(waveform, sample_rate, transcript, utterance id)`` of one ``txt.done.data`` line."""
    utterance_id, transcript = line[0].strip().split(" ", 2)[1:]
    transcript = transcript[1:-3]  # drop the quotes and the closing ' )'
    waveform, sample_rate = _io.load(os.path.join(path, folder_audio, utterance_id + ext_audio))
    return waveform, sample_rate, transcript, utterance_id.split("_")[1]


class CMUARCTIC(Dataset):
    """*CMU ARCTIC*: items ``(waveform, sample_rate, transcript, utterance_id)``; ``url`` is
    a speaker (``"aew"`` ... ``"slt"``) or an archive's URL."""

    _file_text = "txt.done.data"
    _folder_text = "etc"
    _ext_audio = ".wav"
    _folder_audio = "wav"

    def __init__(
        self,
        root: str | Path,
        url: str = URL,
        folder_in_archive: str = FOLDER_IN_ARCHIVE,
        download: bool = False,
    ) -> None:
        if url in _SPEAKERS:
            url = os.path.join(
                "http://www.festvox.org/cmu_arctic/packed/", f"cmu_us_{url}_arctic.tar.bz2"
            )
        root = os.path.join(os.fspath(root), folder_in_archive)
        if not os.path.isdir(root):
            os.mkdir(root)
        basename = os.path.basename(url)
        archive = os.path.join(root, basename)
        self._path = os.path.join(root, basename.split(".")[0])
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
        self._text = os.path.join(self._path, self._folder_text, self._file_text)
        with open(self._text, newline=None) as f:
            self._walker = [[line.rstrip("\n")] for line in f.readlines()]

    def __getitem__(self, n: int) -> tuple[Tensor, int, str, str]:
        """``(waveform, sample_rate, transcript, utterance_id)``."""
        return load_cmuarctic_item(self._walker[n], self._path, self._folder_audio, self._ext_audio)

    def __len__(self) -> int:
        return len(self._walker)
