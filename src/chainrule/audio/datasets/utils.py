"""Helpers the audio datasets share: extracting tar and zip archives (files already there
are kept unless ``overwrite``) and loading a waveform whose sample rate is known."""

from __future__ import annotations

import logging
import os
import tarfile
import zipfile

from chainrule import Tensor

__all__: list[str] = []

_LG = logging.getLogger(__name__)


def _extract_tar(from_path: str, to_path: str | None = None, overwrite: bool = False) -> list[str]:
    """Extract ``from_path`` (any tar compression) into ``to_path`` (the archive's folder by
    default); the paths of the regular files it holds."""
    to_path = os.path.dirname(from_path) if to_path is None else to_path
    files = []
    with tarfile.open(from_path, "r") as tar:
        for member in tar:
            path = os.path.join(to_path, member.name)
            if member.isfile():
                files.append(path)
                if os.path.exists(path) and not overwrite:
                    _LG.info("%s already extracted.", path)
                    continue
            tar.extract(member, to_path, filter="data")
    return files


def _extract_zip(from_path: str, to_path: str | None = None, overwrite: bool = False) -> list[str]:
    """Extract the zip ``from_path`` into ``to_path``; the names it holds."""
    to_path = os.path.dirname(from_path) if to_path is None else to_path
    with zipfile.ZipFile(from_path, "r") as archive:
        names = archive.namelist()
        for name in names:
            if os.path.exists(os.path.join(to_path, name)) and not overwrite:
                _LG.info("%s already extracted.", os.path.join(to_path, name))
                continue
            archive.extract(name, to_path)
    return names


def _load_waveform(root: str, filename: str, exp_sample_rate: int) -> Tensor:
    """The waveform of ``root/filename``; ``ValueError`` unless its rate is the expected one."""
    from .. import _io

    waveform, sample_rate = _io.load(os.path.join(root, filename))
    if exp_sample_rate != sample_rate:
        raise ValueError(f"sample rate should be {exp_sample_rate}, but got {sample_rate}")
    return waveform
