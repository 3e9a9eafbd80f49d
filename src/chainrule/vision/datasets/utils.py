"""Helpers the datasets share: downloading with ``urllib`` (and an MD5 check), extracting
archives and compressed files, checking files on disk and validating string arguments."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import pathlib
import re
import tarfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from typing import Any, TypeVar
from urllib.parse import urlparse

__all__ = [
    "calculate_md5",
    "check_integrity",
    "check_md5",
    "download_and_extract_archive",
    "download_file_from_google_drive",
    "download_url",
    "extract_archive",
    "iterable_to_str",
    "list_dir",
    "list_files",
    "verify_str_arg",
]

USER_AGENT = "pytorch/vision"

PathLike = str | pathlib.Path


def _urlretrieve(url: str, filename: PathLike, chunk_size: int = 1024 * 32) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request) as response, open(filename, "wb") as out:
        for chunk in iter(lambda: response.read(chunk_size), b""):
            out.write(chunk)


def calculate_md5(fpath: PathLike, chunk_size: int = 1024 * 1024) -> str:
    """The hex MD5 digest of the file's bytes (a checksum, not for security)."""
    digest = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_md5(fpath: PathLike, md5: str, **kwargs: Any) -> bool:
    """Whether the file's MD5 digest is ``md5``."""
    return calculate_md5(fpath, **kwargs) == md5


def check_integrity(fpath: PathLike, md5: str | None = None) -> bool:
    """Whether ``fpath`` is a file and, when ``md5`` is given, has that digest."""
    if not os.path.isfile(fpath):
        return False
    return md5 is None or check_md5(fpath, md5)


def _get_redirect_url(url: str, max_hops: int = 3) -> str:
    start = url
    headers = {"Method": "HEAD", "User-Agent": USER_AGENT}
    for _ in range(max_hops + 1):
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
            if response.url is None or response.url == url:
                return url
            url = response.url
    raise RecursionError(
        f"Request to {start} exceeded {max_hops} redirects. The last redirect points to {url}."
    )


def _get_google_drive_file_id(url: str) -> str | None:
    parts = urlparse(url)
    if re.match(r"(drive|docs)[.]google[.]com", parts.netloc) is None:
        return None
    match = re.match(r"/file/d/(?P<id>[^/]*)", parts.path)
    return None if match is None else match.group("id")


def download_url(
    url: str,
    root: PathLike,
    filename: PathLike | None = None,
    md5: str | None = None,
    max_redirect_hops: int = 3,
) -> None:
    """Download ``url`` to ``root/filename`` (the URL's basename by default), unless a file
    with the right MD5 is already there; raise ``RuntimeError`` if the result fails the check."""
    root = os.path.expanduser(root)
    fpath = os.fspath(os.path.join(root, filename or os.path.basename(url)))
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    url = _get_redirect_url(url, max_hops=max_redirect_hops)
    file_id = _get_google_drive_file_id(url)
    if file_id is not None:
        return download_file_from_google_drive(file_id, root, filename, md5)
    try:
        _urlretrieve(url, fpath)
    except (urllib.error.URLError, OSError):
        if not url.startswith("https"):
            raise
        _urlretrieve("http" + url[len("https") :], fpath)
    if not check_integrity(fpath, md5):
        raise RuntimeError("File not found or corrupted.")


def download_file_from_google_drive(
    file_id: str, root: PathLike, filename: PathLike | None = None, md5: str | None = None
) -> None:
    """Download a Google Drive file by its id (through ``gdown``, as torchvision does)."""
    try:
        import gdown
    except ModuleNotFoundError:
        raise RuntimeError(
            "To download files from GDrive, 'gdown' is required. You can install it with 'pip install gdown'."
        ) from None
    root = os.path.expanduser(root)
    fpath = os.fspath(os.path.join(root, filename or file_id))
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    gdown.download(id=file_id, output=fpath, quiet=False, user_agent=USER_AGENT)
    if not check_integrity(fpath, md5):
        raise RuntimeError("File not found or corrupted.")


def list_dir(root: PathLike, prefix: bool = False) -> list[str]:
    """The directories directly inside ``root`` (full paths when ``prefix``)."""
    root = os.path.expanduser(root)
    names = [p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p))]
    return [os.path.join(root, d) for d in names] if prefix else names


def list_files(root: PathLike, suffix: str, prefix: bool = False) -> list[str]:
    """The files directly inside ``root`` whose names end with ``suffix``."""
    root = os.path.expanduser(root)
    names = [
        p for p in os.listdir(root) if os.path.isfile(os.path.join(root, p)) and p.endswith(suffix)
    ]
    return [os.path.join(root, d) for d in names] if prefix else names


def _extract_tar(from_path: PathLike, to_path: PathLike, compression: str | None) -> None:
    with tarfile.open(from_path, f"r:{compression[1:]}" if compression else "r") as tar:
        # 'data' refuses absolute paths, links out of the tree and device files
        tar.extractall(to_path, filter="data")


_ZIP_COMPRESSION = {".bz2": zipfile.ZIP_BZIP2, ".xz": zipfile.ZIP_LZMA}


def _extract_zip(from_path: PathLike, to_path: PathLike, compression: str | None) -> None:
    mode = _ZIP_COMPRESSION[compression] if compression else zipfile.ZIP_STORED
    with zipfile.ZipFile(from_path, "r", compression=mode) as archive:
        archive.extractall(to_path)


_ARCHIVE_EXTRACTORS: dict[str, Callable[[PathLike, PathLike, str | None], None]] = {
    ".tar": _extract_tar,
    ".zip": _extract_zip,
}
_COMPRESSED_FILE_OPENERS: dict[str, Callable[..., Any]] = {
    ".bz2": bz2.open,
    ".gz": gzip.open,
    ".xz": lzma.open,
}
_FILE_TYPE_ALIASES: dict[str, tuple[str | None, str | None]] = {
    ".tbz": (".tar", ".bz2"),
    ".tbz2": (".tar", ".bz2"),
    ".tgz": (".tar", ".gz"),
}


def _detect_file_type(file: PathLike) -> tuple[str, str | None, str | None]:
    """``(suffix, archive type, compression)`` read from the file name's suffixes."""
    suffixes = pathlib.Path(file).suffixes
    if not suffixes:
        raise RuntimeError(
            f"File '{file}' has no suffixes that could be used to detect the archive type and compression."
        )
    suffix = suffixes[-1]
    if suffix in _FILE_TYPE_ALIASES:
        return (suffix, *_FILE_TYPE_ALIASES[suffix])
    if suffix in _ARCHIVE_EXTRACTORS:
        return suffix, suffix, None
    if suffix in _COMPRESSED_FILE_OPENERS:
        if len(suffixes) > 1 and suffixes[-2] in _ARCHIVE_EXTRACTORS:
            return suffixes[-2] + suffix, suffixes[-2], suffix
        return suffix, None, suffix
    known = sorted(
        set(_FILE_TYPE_ALIASES) | set(_ARCHIVE_EXTRACTORS) | set(_COMPRESSED_FILE_OPENERS)
    )
    raise RuntimeError(
        f"Unknown compression or archive type: '{suffix}'.\nKnown suffixes are: '{known}'."
    )


def _decompress(
    from_path: PathLike, to_path: PathLike | None = None, remove_finished: bool = False
) -> pathlib.Path:
    suffix, archive_type, compression = _detect_file_type(from_path)
    if not compression:
        raise RuntimeError(f"Couldn't detect a compression from suffix {suffix}.")
    if to_path is None:
        to_path = pathlib.Path(os.fspath(from_path).replace(suffix, archive_type or ""))
    with _COMPRESSED_FILE_OPENERS[compression](from_path, "rb") as src, open(to_path, "wb") as dst:
        dst.write(src.read())
    if remove_finished:
        os.remove(from_path)
    return pathlib.Path(to_path)


def extract_archive(
    from_path: PathLike, to_path: PathLike | None = None, remove_finished: bool = False
) -> PathLike:
    """Extract a ``.tar``/``.zip`` archive (optionally ``.gz``/``.bz2``/``.xz`` compressed) into
    ``to_path`` (the archive's directory by default), or decompress a single compressed
    file there; return the directory (or the decompressed file)."""
    if to_path is None:
        to_path = os.path.dirname(from_path)
    suffix, archive_type, compression = _detect_file_type(from_path)
    if archive_type is None:
        target = os.path.join(to_path, os.path.basename(from_path).replace(suffix, ""))
        result = _decompress(from_path, target, remove_finished=remove_finished)
    else:
        _ARCHIVE_EXTRACTORS[archive_type](from_path, to_path, compression)
        if remove_finished:
            os.remove(from_path)
        result = pathlib.Path(to_path)
    return os.fspath(result) if isinstance(from_path, str) else result


def download_and_extract_archive(
    url: str,
    download_root: PathLike,
    extract_root: PathLike | None = None,
    filename: PathLike | None = None,
    md5: str | None = None,
    remove_finished: bool = False,
) -> None:
    """:func:`download_url` into ``download_root``, then :func:`extract_archive` into
    ``extract_root`` (``download_root`` by default)."""
    download_root = os.path.expanduser(download_root)
    extract_root = download_root if extract_root is None else extract_root
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    extract_archive(os.path.join(download_root, filename), extract_root, remove_finished)


def iterable_to_str(iterable: Iterable) -> str:
    """``'a', 'b', 'c'``: the items quoted and joined."""
    return ", ".join(f"'{item}'" for item in iterable)


T = TypeVar("T", str, bytes)


def verify_str_arg(
    value: T,
    arg: str | None = None,
    valid_values: Iterable[T] | None = None,
    custom_msg: str | None = None,
) -> T:
    """Return ``value`` if it is a string among ``valid_values`` (any string when ``None``);
    raise ``ValueError`` otherwise."""
    if not isinstance(value, str):
        where = "" if arg is None else f" for argument {arg}"
        raise ValueError(f"Expected type str{where}, but got type {type(value)}.")
    if valid_values is None or value in valid_values:
        return value
    if custom_msg is not None:
        raise ValueError(custom_msg)
    raise ValueError(
        f"Unknown value '{value}' for argument {arg}. Valid values are {{{iterable_to_str(valid_values)}}}."
    )
