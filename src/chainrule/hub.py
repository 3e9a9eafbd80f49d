"""``torch.hub``: entrypoints from a directory's ``hubconf.py`` (``source='local'``) or a
GitHub repository's (``source='github'``: its archive cached under :func:`get_dir`, as
``owner_repo_ref``), and checkpoints from a URL, cached under ``get_dir()/checkpoints``.

``load``, ``list`` and ``help`` run the ``hubconf.py`` of the directory or repository, as
PyTorch does: that is the user's own choice of code to run. A cached repository is used
without the network (``force_reload=False``); else the download's error (``URLError``,
``HTTPError``) is raised. ``load_state_dict_from_url`` reads files with chainrule's
:func:`chainrule.load` (which runs no code from the file, even with ``weights_only=False``);
``download_url_to_file`` takes any URL ``urllib`` opens, ``file://`` included.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import IO, Any
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
# a checkpoint named ``name-<sha256 prefix>.ext`` (check_hash=True)
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

# owners whose repositories are trusted without asking (trust_repo="check")
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")

_hub_dir: str | None = None  # set by set_dir


class _Faketqdm:
    """The progress shown when ``tqdm`` is not installed: the percentage done (or the
    bytes read, when the size is unknown) on one line of stderr."""

    def __init__(
        self, total: int | None = None, disable: bool = False, unit: str | None = None, **_: Any
    ) -> None:
        self.total, self.disable, self.n = total, disable, 0

    def update(self, n: int) -> None:
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def close(self) -> None:
        self.disable = True

    def __enter__(self) -> _Faketqdm:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.disable:
            sys.stderr.write("\n")
        self.close()


try:
    from tqdm import tqdm
except ImportError:  # (tqdm is optional)
    tqdm = _Faketqdm  # type: ignore[assignment,misc]


# --- the cache directory ---


def get_dir() -> str:
    """The hub's cache directory: the one :func:`set_dir` gave, else ``$TORCH_HOME/hub``,
    ``TORCH_HOME`` defaulting to ``$XDG_CACHE_HOME/torch`` (``~/.cache/torch``)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_torch_home(), "hub")


def _torch_home() -> str:
    """``$TORCH_HOME``, else ``$XDG_CACHE_HOME/torch``, with ``~`` expanded."""
    cache = os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR)
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(cache, "torch")))


def set_dir(d: str | os.PathLike) -> None:
    """Make ``d`` (``~`` expanded) the hub's cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# --- hubconf.py ---


@contextlib.contextmanager
def _on_sys_path(path: str) -> Iterator[None]:
    """``path`` first on ``sys.path`` for the block (hubconf.py imports its neighbours)."""
    sys.path.insert(0, path)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(path)


def _import_hubconf(hubconf_dir: str) -> ModuleType:
    """A fresh run of ``hubconf_dir/hubconf.py`` as a module named ``hubconf.py`` (not put
    in ``sys.modules``: each call runs the file again)."""
    path = os.path.join(hubconf_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_dependencies(hubconf: ModuleType) -> None:
    """PyTorch's error naming the packages of ``dependencies`` that cannot be found."""
    dependencies = getattr(hubconf, VAR_DEPENDENCY, None)
    if dependencies is None:
        return
    missing = [name for name in dependencies if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _entrypoint(hubconf: ModuleType, model: Any) -> Callable:
    """The callable named ``model`` in ``hubconf``, once its dependencies are there."""
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(hubconf)
    entry = getattr(hubconf, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry


def _load_local(hubconf_dir: str, model: str, *args: Any, **kwargs: Any) -> Any:
    """What entrypoint ``model`` of ``hubconf_dir/hubconf.py`` returns for the arguments."""
    with _on_sys_path(hubconf_dir):
        entry = _entrypoint(_import_hubconf(hubconf_dir), model)
        return entry(*args, **kwargs)


# --- GitHub repositories ---


def _parse_repo_info(github: str) -> tuple[str, str, str]:
    """(owner, name, ref) of ``owner/name[:ref]``; the default ref is ``main`` where GitHub
    has it (else ``master``), or offline the one already cached."""
    if ":" in github:
        repo_info, ref = github.split(":")
    else:
        repo_info, ref = github, None
    owner, name = repo_info.split("/")
    return owner, name, ref if ref is not None else _default_ref(owner, name)


def _default_ref(owner: str, name: str) -> str:
    """``main`` if GitHub shows that branch, ``master`` if it answers 404; offline, the
    first of them cached in :func:`get_dir`."""
    try:
        with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
            return "main"
    except HTTPError as e:
        if e.code == 404:
            return "master"
        raise
    except URLError as e:
        for ref in ("main", "master"):
            if os.path.exists(os.path.join(get_dir(), f"{owner}_{name}_{ref}")):
                return ref
        raise RuntimeError(
            "It looks like there is no internet connection and the repo could not be found "
            f"in the cache ({get_dir()})"
        ) from e


def _check_repo_is_trusted(
    owner: str, name: str, owner_name_branch: str, trust_repo: bool | str | None
) -> None:
    """Ask before running a repository's code unless it is trusted: listed in
    ``get_dir()/trusted_list``, already downloaded, or from a trusted owner; with
    ``trust_repo=False`` always ask. A repository trusted now is added to the list."""
    trusted_list = os.path.join(get_dir(), "trusted_list")
    Path(trusted_list).touch()
    with open(trusted_list) as f:
        listed = {line.strip() for line in f}
    owner_name = f"{owner}_{name}"
    is_trusted = (
        owner_name in listed
        or os.path.isdir(os.path.join(get_dir(), owner_name_branch))
        or owner in _TRUSTED_REPO_OWNERS
    )
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        _ask_trust(owner_name, is_trusted)
    if not is_trusted:
        with open(trusted_list, "a") as f:
            f.write(owner_name + "\n")


def _ask_trust(owner_name: str, is_trusted: bool) -> None:
    """PyTorch's prompt: yes goes on, no (the default) raises."""
    response = input(
        f"The repository {owner_name} does not belong to the list of trusted repositories and "
        "as such cannot be downloaded. Do you trust this repository and wish to add it to the "
        "trusted list of repositories (y/N)?"
    ).lower()
    if response in ("y", "yes"):
        if is_trusted:
            print("The repository is already trusted.")
    elif response in ("n", "no", ""):
        raise Exception("Untrusted repository.")
    else:
        raise ValueError(f"Unrecognized response {response}.")


def _read_json(url: str, headers: dict[str, str]) -> Any:
    """The JSON at ``url``; a request with a token that fails is tried once without it."""
    try:
        with urlopen(Request(url, headers=headers)) as response:
            return json.loads(response.read().decode("utf-8"))
    except HTTPError:
        if "Authorization" not in headers:
            raise
        headers = {k: v for k, v in headers.items() if k != "Authorization"}
        with urlopen(Request(url, headers=headers)) as response:
            return json.loads(response.read().decode("utf-8"))


def _validate_not_a_forked_repo(owner: str, name: str, ref: str) -> None:
    """Check with GitHub's API that ``ref`` is a branch or tag of the repository, or the
    start of one's commit hash (a commit of a fork would be fetched through the repo)."""
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    for kind in ("branches", "tags"):
        page = 1
        while items := _read_json(
            f"https://api.github.com/repos/{owner}/{name}/{kind}?per_page=100&page={page}",
            headers,
        ):
            if any(i["name"] == ref or i["commit"]["sha"].startswith(ref) for i in items):
                return
            page += 1
    raise ValueError(
        f"Cannot find {ref} in https://github.com/{owner}/{name}. If it's a commit from a "
        "forked repo, please call hub.load() with forked repo directly."
    )


def _remove_if_exists(path: str) -> None:
    """Delete the file or directory tree at ``path``, if there is one."""
    if os.path.isfile(path) or os.path.islink(path):
        os.remove(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)


def _safe_extract_zip(archive: zipfile.ZipFile, extract_to: str) -> None:
    """Extract the archive's entries in order, refusing one that would land outside
    ``extract_to``."""
    root = os.path.realpath(extract_to)
    for entry in archive.infolist():
        target = os.path.realpath(os.path.join(extract_to, entry.filename))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"Archive entry contains directory traversal: {entry.filename}")
        archive.extract(entry, extract_to)


def _normalized(ref: str) -> str:
    """``ref`` as part of a file name: path separators become underscores."""
    return re.sub(r"[/\\]", "_", ref)


def _download_repo(owner: str, name: str, ref: str, repo_dir: str) -> None:
    """Fetch the repository's archive at ``ref`` and unpack it as ``repo_dir``."""
    hub_dir = get_dir()
    cached_file = os.path.join(hub_dir, f"{_normalized(ref)}.zip")
    _remove_if_exists(cached_file)
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
    try:
        download_url_to_file(url, cached_file, progress=False)
    except HTTPError as e:
        if e.code != 300:
            raise
        warnings.warn(
            f"The ref {ref} is ambiguous. Perhaps it is both a tag and a branch in the repo? "
            "Torchhub will now assume that it's a branch. You can disambiguate tags and "
            "branches by explicitly passing refs/heads/branch_name or refs/tags/tag_name as "
            "the ref. That might require using skip_validation=True.",
            stacklevel=2,
        )
        url = f"https://github.com/{owner}/{name}/zipball/refs/heads/{ref}"
        download_url_to_file(url, cached_file, progress=False)
    with zipfile.ZipFile(cached_file) as archive:
        extracted = os.path.join(hub_dir, archive.infolist()[0].filename)
        _remove_if_exists(extracted)
        _safe_extract_zip(archive, hub_dir)
    _remove_if_exists(cached_file)
    _remove_if_exists(repo_dir)
    shutil.move(extracted, repo_dir)


def _get_cache_or_reload(
    github: str,
    force_reload: bool,
    trust_repo: bool | str | None,
    verbose: bool = True,
    skip_validation: bool = False,
) -> str:
    """The directory of repository ``github`` in :func:`get_dir`, downloaded unless it is
    there already (or ``force_reload``)."""
    os.makedirs(get_dir(), exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    owner_name_branch = f"{owner}_{name}_{_normalized(ref)}"
    repo_dir = os.path.join(get_dir(), owner_name_branch)
    _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _validate_not_a_forked_repo(owner, name, ref)
    _download_repo(owner, name, ref, repo_dir)
    return repo_dir


# --- the public entry points ---


def list(
    github: str,
    force_reload: bool = False,
    skip_validation: bool = False,
    trust_repo: bool | str | None = "check",
    verbose: bool = True,
) -> builtins.list[str]:
    """The names of the public callables in the ``hubconf.py`` of GitHub repository
    ``owner/name[:ref]`` (sorted)."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, verbose, skip_validation)
    with _on_sys_path(repo_dir):
        hubconf = _import_hubconf(repo_dir)
    return [f for f in dir(hubconf) if callable(getattr(hubconf, f)) and not f.startswith("_")]


def help(
    github: str,
    model: str,
    force_reload: bool = False,
    skip_validation: bool = False,
    trust_repo: bool | str | None = "check",
) -> str | None:
    """The docstring of entrypoint ``model`` of GitHub repository ``owner/name[:ref]``."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, True, skip_validation)
    with _on_sys_path(repo_dir):
        entry = _entrypoint(_import_hubconf(repo_dir), model)
    return entry.__doc__


def load(
    repo_or_dir: str,
    model: str,
    *args: Any,
    source: str = "github",
    trust_repo: bool | str | None = "check",
    force_reload: bool = False,
    verbose: bool = True,
    skip_validation: bool = False,
    **kwargs: Any,
) -> Any:
    """What entrypoint ``model`` of a GitHub repository (``owner/name[:ref]``) or of a
    local directory's ``hubconf.py`` returns for ``*args`` and ``**kwargs``."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(
            repo_or_dir, force_reload, trust_repo, verbose, skip_validation
        )
    return _load_local(repo_or_dir, model, *args, **kwargs)


# --- downloads ---


def _open_partial(dst: str) -> IO[bytes]:
    """A new file ``dst.<random>.partial`` beside ``dst``, for the download in progress."""
    for _ in range(100):
        try:
            return open(f"{dst}.{uuid.uuid4().hex}.partial", "xb")
        except FileExistsError:
            continue
    raise FileExistsError("No usable temporary file name found")


def _content_length(response: Any) -> int | None:
    """The size the response announces, if it does."""
    length = response.info().get_all("Content-Length")
    return int(length[0]) if length else None


def download_url_to_file(
    url: str, dst: str, hash_prefix: str | None = None, progress: bool = True
) -> None:
    """Copy what ``url`` holds to the file ``dst``, written whole or not at all; with
    ``hash_prefix``, its SHA-256 (hex) must start with it."""
    dst = os.path.expanduser(dst)
    partial = _open_partial(dst)
    sha256 = hashlib.sha256() if hash_prefix is not None else None
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as response:
            total = _content_length(response)
            bar = tqdm(
                total=total, disable=not progress, unit="B", unit_scale=True, unit_divisor=1024
            )
            with bar:
                while chunk := response.read(READ_DATA_CHUNK):
                    partial.write(chunk)
                    if sha256 is not None:
                        sha256.update(chunk)
                    bar.update(len(chunk))
        partial.close()
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(partial.name, dst)
    finally:
        partial.close()
        if os.path.exists(partial.name):
            os.remove(partial.name)


def _is_legacy_zip_format(filename: str) -> bool:
    """A zip of one file (how checkpoints were shipped before PyTorch 1.6), not a
    ``torch.save`` archive."""
    if not zipfile.is_zipfile(filename):
        return False
    with zipfile.ZipFile(filename) as archive:
        entries = archive.infolist()
    return len(entries) == 1 and not entries[0].is_dir()


def _legacy_zip_load(
    filename: str, model_dir: str, map_location: Any, weights_only: bool
) -> dict[str, Any]:
    """Unpack the one file of a legacy zip into ``model_dir`` and load it."""
    warnings.warn(
        "Falling back to the old format < 1.6. This support will be deprecated in favor of "
        "default zipfile format introduced in 1.6. Please redo torch.save() to save it in the "
        "new zipfile format.",
        FutureWarning,
        stacklevel=2,
    )
    with zipfile.ZipFile(filename) as archive:
        (entry,) = archive.infolist()
        _safe_extract_zip(archive, model_dir)
    return _load(os.path.join(model_dir, entry.filename), map_location, weights_only)


def _load(path: str, map_location: Any, weights_only: bool) -> Any:
    """``torch.load`` of the file at ``path``."""
    from .serialization import load

    return load(path, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location: Any = None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> dict[str, Any]:
    """The object saved at ``url``, loaded from ``model_dir`` (``get_dir()/checkpoints``)
    where it was downloaded before, else downloaded there first; ``check_hash`` checks
    the SHA-256 prefix that the file's name holds (``name-<prefix>.ext``)."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn(
            "TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2
        )
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        found = HASH_REGEX.search(filename) if check_hash else None
        hash_prefix = found.group(1) if found else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return _load(cached_file, map_location, weights_only)
