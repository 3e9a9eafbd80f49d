"""``torchaudio.utils.download``: torchaudio's sample assets (tutorial audio, ...) fetched
from ``download.pytorch.org/torchaudio/<key>`` into the hub cache, checked by SHA-256."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from chainrule import hub

__all__ = ["_download_asset"]

_LG = logging.getLogger(__name__)
_BASE_URL = "https://download.pytorch.org/torchaudio"


def _get_local_path(key: str) -> Path:
    """``<hub dir>/torchaudio/<key>``, its parent directories created."""
    path = Path(hub.get_dir()) / "torchaudio" / Path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _get_hash(path: str | os.PathLike, chunk_size: int = 1028) -> str:
    """The hex SHA-256 digest of the file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download_asset(
    key: str,
    hash: str = "",
    path: str | os.PathLike = "",
    *,
    progress: bool = True,
) -> str:
    """The local path of the asset ``key``: downloaded unless a file is already there, then
    (when ``hash`` is given) its SHA-256 checked, a mismatch raising ``ValueError``."""
    path = Path(path) if path else _get_local_path(key)
    if path.exists():
        _LG.info("The local file (%s) exists. Skipping the download.", path)
    else:
        _LG.info("Downloading %s to %s", key, path)
        hub.download_url_to_file(f"{_BASE_URL}/{key}", str(path), progress=progress)
    if hash:
        digest = _get_hash(path)
        if digest != hash:
            raise ValueError(
                f"The hash value of the downloaded file ({path}), '{digest}' does not match "
                f"the provided hash value, '{hash}'."
            )
    return str(path)
