"""torch.hub and torch.utils.model_zoo against PyTorch, offline: a local hubconf.py, a GitHub
repository already in the cache (or served from memory as its zip archive), checkpoints
from the cache and from ``file://`` URLs, the hash check, and the errors of an offline
download. Each library gets its own hub directory under tmp_path; the network is a fake
``urlopen`` put into both ``hub`` modules (they call it by that name), which serves pages
from memory and records each request; nothing reaches beyond this machine."""

from __future__ import annotations

import builtins
import email.message
import hashlib
import io
import os
import re
import socket
import sys
import urllib.response
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.error import HTTPError, URLError

import numpy as np
import pytest
import torch
import torch.hub
import torch.utils.model_zoo

import chainrule as cr
from chainrule import _import_hook
from chainrule import hub as cr_hub
from chainrule.utils import model_zoo as cr_model_zoo

HUBS = {"torch": torch.hub, "chainrule": cr_hub}

HUBCONF = '''"""Two entrypoints, for the tests."""

dependencies = ["json", "numpy"]

from helper import WIDTH


def pair(a, b=2):
    """The triple (a, b, WIDTH)."""
    return (a, b, WIDTH)


def linear(in_features, out_features=2):
    """nn.Linear without bias, its weights 0, 1, 2, ...

    Args:
        in_features: the input's size
    """
    import torch

    m = torch.nn.Linear(in_features, out_features, bias=False)
    with torch.no_grad():
        m.weight.copy_(torch.arange(m.weight.numel(), dtype=torch.float32).view(m.weight.shape))
    return m


def undocumented():
    return 0


def _hidden():
    return 1


NOT_CALLABLE = 3
'''


def write_repo(path: Path, hubconf: str = HUBCONF) -> Path:
    """A directory holding ``hubconf.py`` and the ``helper.py`` it imports."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "hubconf.py").write_text(hubconf)
    (path / "helper.py").write_text("WIDTH = 7\n")
    return path


@pytest.fixture(autouse=True)
def fresh_imports(monkeypatch: pytest.MonkeyPatch):
    """No bytecode written beside a hubconf (the two hub dirs stay alike), and its
    ``helper`` module imported anew by each library."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    sys.modules.pop("helper", None)
    yield
    sys.modules.pop("helper", None)


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Each library's hub directory (given by ``set_dir``, put back after the test)."""
    dirs = {}
    for name, hub in HUBS.items():
        monkeypatch.setattr(hub, "_hub_dir", None)
        dirs[name] = tmp_path / name / "hub"
        hub.set_dir(str(dirs[name]))
    return dirs


class Web:
    """``urlopen`` for both libraries: the bytes (or the exception) ``pages`` holds for a
    URL, else the URLError of a machine without network; each request recorded as (url,
    headers)."""

    def __init__(self) -> None:
        self.pages: dict[str, bytes | Exception] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []

    def __call__(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        url = request if isinstance(request, str) else request.full_url
        headers = {} if isinstance(request, str) else dict(request.header_items())
        self.requests.append((url, headers))
        page = self.pages.get(url)
        if page is None:
            raise URLError("offline (test)")
        if isinstance(page, Exception):
            raise page
        meta = email.message.Message()
        meta["Content-Length"] = str(len(page))
        return urllib.response.addinfourl(io.BytesIO(page), meta, url, 200)


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Web:
    fake = Web()
    for hub in HUBS.values():
        monkeypatch.setattr(hub, "urlopen", fake)
    return fake


def as_lists(state: dict) -> dict:
    """A state_dict's tensors as nested lists (comparable across the libraries)."""
    return {key: value.tolist() for key, value in state.items()}


def outcome(name: str, fn: Callable[[Any], Any], capsys: pytest.CaptureFixture, homes=None):
    """(what ``fn(hub)`` returns or raises, its stdout, its stderr) for library ``name``,
    its hub directory written ``<hub>``; chainrule's call runs under the import hook, so
    that a hubconf's ``import torch`` gets chainrule."""
    capsys.readouterr()
    sys.modules.pop("helper", None)  # (each library imports the hubconf's neighbour anew)
    try:
        if name == "chainrule":
            with _import_hook.installed():
                value: Any = fn(cr_hub)
        else:
            value = fn(torch.hub)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        value = e
    out, err = capsys.readouterr()
    if homes is not None:
        out, err = (s.replace(str(homes[name]), "<hub>") for s in (out, err))
    return value, out, err


def same(fn: Callable[[Any], Any], capsys: pytest.CaptureFixture, homes=None) -> Any:
    """Run ``fn`` with both libraries: the same value (or exception type and message),
    the same printed lines; chainrule's value (an exception's message)."""
    want, want_out, want_err = outcome("torch", fn, capsys, homes)
    got, got_out, got_err = outcome("chainrule", fn, capsys, homes)
    if isinstance(want, Exception):
        assert type(got) is type(want), (got, want)
        got, want = str(got), str(want)
        if homes is not None:
            got, want = (
                got.replace(str(homes["chainrule"]), "<hub>"),
                want.replace(str(homes["torch"]), "<hub>"),
            )
    assert got == want
    assert (got_out, got_err) == (want_out, want_err)
    return got


def listing(root: Path) -> list[str]:
    """The files and folders under ``root``, relative, sorted."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# --- the cache directory ---


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"XDG_CACHE_HOME": "/x/cache"},
        {"XDG_CACHE_HOME": "/x/cache", "TORCH_HOME": "/t/home"},
        {"TORCH_HOME": "~/th"},
        {"XDG_CACHE_HOME": "~/xc"},
    ],
)
def test_get_dir_default(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TORCH_HOME", "XDG_CACHE_HOME", "TORCH_HUB"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for hub in HUBS.values():
        monkeypatch.setattr(hub, "_hub_dir", None)
    assert cr_hub.get_dir() == torch.hub.get_dir()


@pytest.mark.parametrize("d", ["~/hubs/a", Path("/somewhere/hub"), "relative/hub"])
def test_set_dir(d: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for hub in HUBS.values():
        monkeypatch.setattr(hub, "_hub_dir", None)
        hub.set_dir(d)
    assert cr_hub.get_dir() == torch.hub.get_dir()
    assert isinstance(cr_hub.get_dir(), str)


def test_torch_hub_env_is_deprecated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCH_HUB", "/old")
    messages = []
    for hub in HUBS.values():
        with pytest.warns(UserWarning) as record:
            hub.get_dir()
        messages.append([str(w.message) for w in record])
    assert (
        messages[0] == messages[1] == ["TORCH_HUB is deprecated, please use env TORCH_HOME instead"]
    )


def test_model_zoo_load_url() -> None:
    assert cr_model_zoo.load_url is cr_hub.load_state_dict_from_url
    assert torch.utils.model_zoo.load_url is torch.hub.load_state_dict_from_url


# --- source='local' ---


def test_load_local_entrypoints(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo")
    path_before = list(sys.path)
    assert same(lambda hub: hub.load(str(repo), "pair", 1, b=5, source="local"), capsys) == (
        1,
        5,
        7,
    )
    assert same(lambda hub: hub.load(str(repo), "pair", "x", source="LOCAL"), capsys) == (
        "x",
        2,
        7,
    )
    got = same(lambda hub: repr(hub.load(str(repo), "linear", 3, source="local")), capsys)
    assert got == "Linear(in_features=3, out_features=2, bias=False)"
    with _import_hook.installed():
        model = cr_hub.load(str(repo), "linear", 3, source="local")
    assert isinstance(model, cr.nn.Linear)
    np.testing.assert_array_equal(
        model.weight.detach().numpy(),
        torch.hub.load(str(repo), "linear", 3, source="local").weight.detach().numpy(),
    )
    assert sys.path == path_before  # the directory was on sys.path for the call only
    assert "hubconf.py" not in sys.modules and "hubconf" not in sys.modules


@pytest.mark.parametrize(
    "call",
    [
        lambda hub, repo: hub.load(repo, "nope", source="local"),
        lambda hub, repo: hub.load(repo, "NOT_CALLABLE", source="local"),
        lambda hub, repo: hub.load(repo, 3, source="local"),
        lambda hub, repo: hub.load(repo, "pair", 1, source="ftp"),
        lambda hub, repo: hub.load(repo + "/missing", "pair", 1, source="local"),
    ],
    ids=["no-entrypoint", "not-callable", "model-not-str", "unknown-source", "no-hubconf"],
)
def test_load_local_errors(call: Callable, tmp_path: Path, capsys) -> None:
    repo = str(write_repo(tmp_path / "repo"))
    same(lambda hub: call(hub, repo), capsys)


@pytest.mark.parametrize(
    "dependencies",
    [
        '["json", "no_such_package_a", "json.no_such_sub", "no_such_package_b"]',
        '"json"',
        '["os", "no_such_parent.sub"]',
        '["os", "numpy"]',
    ],
    ids=["list", "string", "missing-parent", "all-there"],
)
def test_dependencies(dependencies: str, tmp_path: Path, capsys) -> None:
    """Each name is looked up without importing it (a string is its letters; a dotted
    name whose parent is missing raises ModuleNotFoundError)."""
    body = f"dependencies = {dependencies}\n\ndef m():\n    return 1\n"
    repo = str(write_repo(tmp_path / "repo", body))
    same(lambda hub: hub.load(repo, "m", source="local"), capsys)


# --- source='github', from the cache ---


def cache_repo(homes: dict[str, Path], folder: str) -> None:
    """The test repository as if downloaded before, as ``folder`` in both hub dirs."""
    for home in homes.values():
        write_repo(home / folder)


def test_list_help_load_from_cache(homes, web: Web, capsys) -> None:
    cache_repo(homes, "owner_repo_main")
    assert same(lambda hub: hub.list("owner/repo"), capsys, homes) == [
        "linear",
        "pair",
        "undocumented",
    ]
    assert same(lambda hub: hub.list("owner/repo", verbose=False), capsys, homes)
    assert same(lambda hub: hub.help("owner/repo", "linear"), capsys, homes).startswith(
        "nn.Linear without bias"
    )
    assert same(lambda hub: hub.help("owner/repo", "undocumented"), capsys, homes) is None
    same(lambda hub: hub.help("owner/repo", "nope"), capsys, homes)
    assert same(lambda hub: hub.load("owner/repo", "pair", 4, b=0), capsys, homes) == (4, 0, 7)
    # offline, the default branch is the cached one: one request (which branch is the
    # default) each call, for each library
    assert {url for url, _ in web.requests} == {"https://github.com/owner/repo/tree/main/"}
    assert listing(homes["chainrule"]) == listing(homes["torch"])


def test_default_branch_offline(homes, web: Web, capsys) -> None:
    same(lambda hub: hub.list("owner/repo"), capsys, homes)  # nothing cached
    cache_repo(homes, "owner_repo_master")
    assert same(lambda hub: hub.list("owner/repo"), capsys, homes) == [
        "linear",
        "pair",
        "undocumented",
    ]


def test_default_branch_404_is_master(homes, web: Web, capsys) -> None:
    cache_repo(homes, "owner_repo_master")
    url = "https://github.com/owner/repo/tree/main/"
    web.pages[url] = HTTPError(url, 404, "Not Found", email.message.Message(), None)
    assert same(lambda hub: hub.load("owner/repo", "pair", 1), capsys, homes) == (1, 2, 7)


@pytest.mark.parametrize("github", ["ownerrepo", "a/b/c", "a/b:c:d"])
def test_bad_repo_names(github: str, homes, web: Web, capsys) -> None:
    same(lambda hub: hub.list(github), capsys, homes)


def test_ref_with_slash_names_the_folder(homes, web: Web, capsys) -> None:
    cache_repo(homes, "owner_repo_feature_x")
    assert same(lambda hub: hub.load("owner/repo:feature/x", "pair", 2), capsys, homes) == (
        2,
        2,
        7,
    )
    assert web.requests == []


# --- trust ---


def test_trust_prompt(homes, web: Web, capsys, monkeypatch) -> None:
    answers: list[str] = []
    monkeypatch.setattr(builtins, "input", lambda prompt="": print(prompt) or answers.pop(0))
    for answer in ("n", "", "maybe"):  # no, the default no, and a wrong answer
        answers[:] = [answer] * 2
        same(lambda hub: hub.list("stranger/repo:v1", skip_validation=True), capsys, homes)
    answers[:] = ["yes"] * 2  # trusted: then the download fails offline
    same(lambda hub: hub.list("stranger/repo:v1", skip_validation=True), capsys, homes)
    cache_repo(homes, "known_repo_v1")  # a downloaded repository is trusted
    same(lambda hub: hub.list("known/repo:v1", verbose=False), capsys, homes)
    answers[:] = ["y"] * 2  # trust_repo=False asks anyway
    same(lambda hub: hub.list("known/repo:v1", trust_repo=False), capsys, homes)
    trusted = [(home / "trusted_list").read_text() for home in homes.values()]
    assert trusted[0] == trusted[1] == "stranger_repo\n"


@pytest.mark.parametrize("trust_repo", [True, None])
def test_trusted_without_asking(trust_repo: Any, homes, web: Web, capsys) -> None:
    error = same(
        lambda hub: hub.load(
            "someone/repo:v2", "pair", trust_repo=trust_repo, skip_validation=True
        ),
        capsys,
        homes,
    )
    assert error == "<urlopen error offline (test)>"  # the archive's download
    trusted = [(home / "trusted_list").read_text() for home in homes.values()]
    assert trusted[0] == trusted[1] == "someone_repo\n"
    assert [url for url, _ in web.requests] == ["https://github.com/someone/repo/zipball/v2"] * 2


def test_trusted_owners(homes, web: Web, capsys, monkeypatch) -> None:
    """PyTorch's own organisations are trusted without asking, and not written down."""
    monkeypatch.setattr(builtins, "input", lambda prompt="": pytest.fail("asked"))
    for owner in ("pytorch", "facebookresearch"):
        github = f"{owner}/some_repo:v1"
        error = same(lambda hub, g=github: hub.list(g, skip_validation=True), capsys, homes)
        assert error == "<urlopen error offline (test)>"
    for home in homes.values():
        assert (home / "trusted_list").read_text() == ""


# --- source='github', downloading ---


def archive(top: str) -> bytes:
    """The repository as GitHub's zipball: one top folder, its entry first."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(f"{top}/", "")
        z.writestr(f"{top}/hubconf.py", HUBCONF)
        z.writestr(f"{top}/helper.py", "WIDTH = 7\n")
    return buffer.getvalue()


def branches(*names: str) -> bytes:
    return (
        str([{"name": n, "commit": {"sha": f"{n}0123"}} for n in names]).replace("'", '"').encode()
    )


API = "https://api.github.com/repos/own/rp/"


def test_download_validated_repo(homes, web: Web, capsys, monkeypatch) -> None:
    web.pages[API + "branches?per_page=100&page=1"] = branches("main", "dev")
    web.pages[API + "branches?per_page=100&page=2"] = branches()
    web.pages[API + "tags?per_page=100&page=1"] = branches("v1.0")
    web.pages[API + "tags?per_page=100&page=2"] = branches()
    web.pages["https://github.com/own/rp/zipball/v1.0"] = archive("own-rp-abc123")
    got = same(lambda hub: hub.list("own/rp:v1.0", trust_repo=True), capsys, homes)
    assert got == ["linear", "pair", "undocumented"]
    assert listing(homes["chainrule"]) == listing(homes["torch"])
    assert "own_rp_v1.0/hubconf.py" in listing(homes["chainrule"])
    # a commit: the start of a branch's hash; the token goes with the API's requests
    monkeypatch.setenv("GITHUB_TOKEN", "secret")
    web.pages["https://github.com/own/rp/zipball/dev01"] = archive("own-rp-def456")
    web.requests.clear()
    same(lambda hub: hub.load("own/rp:dev01", "pair", 1, trust_repo=True), capsys, homes)
    half = len(web.requests) // 2
    assert web.requests[:half] == web.requests[half:]
    assert web.requests[0][1]["Authorization"] == "token secret"
    # a ref of neither: PyTorch's error, after every page
    same(lambda hub: hub.load("own/rp:nosuch", "pair", trust_repo=True), capsys, homes)
    # offline, a repository in the cache is not fetched again ...
    same(lambda hub: hub.load("own/rp:v1.0", "pair", 1), capsys, homes)
    # ... unless force_reload says so
    web.pages.clear()
    same(lambda hub: hub.load("own/rp:v1.0", "pair", 1, force_reload=True), capsys, homes)


def test_archive_escaping_the_hub_dir(homes, web: Web, capsys) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("top/", "")
        z.writestr("top/../../evil.py", "x = 1\n")
    web.pages["https://github.com/own/rp/zipball/bad"] = buffer.getvalue()
    same(lambda hub: hub.list("own/rp:bad", trust_repo=True, skip_validation=True), capsys, homes)
    for home in homes.values():
        assert not (home.parent / "evil.py").exists()


# --- checkpoints ---


def state_dict(lib) -> dict:
    return {"weight": lib.arange(6.0).reshape(2, 3), "bias": lib.tensor([0.5, -1.0])}


def assert_state_dicts(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for key in want:
        np.testing.assert_array_equal(got[key].numpy(), want[key].numpy())


SAVERS = {"torch": torch.save, "chainrule": cr.save}


@pytest.mark.parametrize("saver", SAVERS)
def test_load_from_cached_checkpoint(saver: str, homes, web: Web, capsys) -> None:
    lib = torch if saver == "torch" else cr
    for home in homes.values():
        (home / "checkpoints").mkdir(parents=True)
        SAVERS[saver](state_dict(lib), str(home / "checkpoints" / "net.pth"))
    url = "https://weights.example/models/net.pth?download=1"
    got = same(lambda hub: as_lists(hub.load_state_dict_from_url(url)), capsys, homes)
    assert web.requests == []
    assert got == as_lists(state_dict(torch))
    assert_state_dicts(cr_hub.load_state_dict_from_url(url), state_dict(cr))


@pytest.mark.parametrize("saver", SAVERS)
def test_download_checkpoint_with_hash(saver: str, tmp_path: Path, homes, capsys) -> None:
    lib = torch if saver == "torch" else cr
    source = tmp_path / "net.pth"
    SAVERS[saver](state_dict(lib), str(source))
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    named = source.rename(tmp_path / f"net-{digest[:10]}.pth")
    url = named.as_uri()
    loaded = same(
        lambda hub: as_lists(hub.load_state_dict_from_url(url, check_hash=True, progress=False)),
        capsys,
        homes,
    )
    assert loaded == as_lists(state_dict(torch))
    for home in homes.values():
        assert (home / "checkpoints" / named.name).read_bytes() == named.read_bytes()
    # model_dir and file_name
    got = same(
        lambda hub: as_lists(
            hub.load_state_dict_from_url(
                url, model_dir=hub.get_dir() + "/models", file_name="x.pt", progress=False
            )
        ),
        capsys,
        homes,
    )
    assert got == loaded
    assert listing(homes["chainrule"]) == listing(homes["torch"])


def test_hash_mismatch(tmp_path: Path, homes, capsys) -> None:
    source = tmp_path / "net-deadbeef.pth"
    torch.save(state_dict(torch), str(source))
    url = source.as_uri()
    load = lambda hub, **kw: as_lists(hub.load_state_dict_from_url(url, progress=False, **kw))
    message = same(lambda hub: load(hub, check_hash=True), capsys, homes)
    assert message.startswith('invalid hash value (expected "deadbeef", got "')
    assert listing(homes["chainrule"]) == listing(homes["torch"]) == ["checkpoints"]
    # the hash is read from file_name when there is one; none found: nothing checked
    same(lambda hub: load(hub, check_hash=True, file_name="net-00ff.pth"), capsys, homes)
    same(lambda hub: load(hub, check_hash=True, file_name="nohash.pth"), capsys, homes)
    same(lambda hub: load(hub, check_hash=False), capsys, homes)


def test_legacy_zip_checkpoint(tmp_path: Path, homes, capsys) -> None:
    inner = tmp_path / "inner.pth"
    torch.save(state_dict(torch), str(inner))
    with zipfile.ZipFile(tmp_path / "old.zip", "w") as z:
        z.write(inner, "inner.pth")
    url = (tmp_path / "old.zip").as_uri()
    messages = []
    for hub in HUBS.values():
        with pytest.warns(FutureWarning) as record:
            loaded = hub.load_state_dict_from_url(url, progress=False)
        assert_state_dicts(loaded, state_dict(torch))
        messages.append([str(w.message) for w in record])
    assert messages[0] == messages[1] and messages[0][0].startswith("Falling back to the old")
    assert listing(homes["chainrule"]) == listing(homes["torch"])


def test_whole_model_checkpoint(tmp_path: Path, homes, capsys) -> None:
    """weights_only=False (the default here) loads a saved nn.Module: chainrule rebuilds
    its own nn.Linear without running code from the file."""
    torch.manual_seed(0)
    source = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 3), str(source))
    url = source.as_uri()
    got = same(lambda hub: repr(hub.load_state_dict_from_url(url, progress=False)), capsys, homes)
    assert got == "Linear(in_features=2, out_features=3, bias=True)"
    assert isinstance(cr_hub.load_state_dict_from_url(url), cr.nn.Linear)
    for hub in HUBS.values():
        with pytest.raises(Exception, match="^Weights only load failed") as e:
            hub.load_state_dict_from_url(url, weights_only=True)
        assert type(e.value).__name__ == "UnpicklingError"


def test_model_zoo_deprecated_env(tmp_path: Path, homes, monkeypatch) -> None:
    monkeypatch.setenv("TORCH_MODEL_ZOO", "/old")
    source = tmp_path / "net.pth"
    torch.save(state_dict(torch), str(source))
    messages = []
    for hub in HUBS.values():
        with pytest.warns(UserWarning) as record:
            hub.load_state_dict_from_url(source.as_uri(), progress=False)
        messages.append([str(w.message) for w in record])
    assert (
        messages[0]
        == messages[1]
        == ["TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead"]
    )


# --- download_url_to_file ---


def test_download_url_to_file(tmp_path: Path, capsys) -> None:
    source = tmp_path / "data.bin"
    source.write_bytes(bytes(range(256)) * 40)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    for name, hub in HUBS.items():
        dst = tmp_path / name / "copy.bin"
        dst.parent.mkdir()
        hub.download_url_to_file(source.as_uri(), str(dst), hash_prefix=digest[:8], progress=False)
        assert dst.read_bytes() == source.read_bytes()
        assert os.listdir(dst.parent) == ["copy.bin"]
    bad_hash = lambda hub: hub.download_url_to_file(
        source.as_uri(), str(tmp_path / "x"), "0b", False
    )
    same(bad_hash, capsys)
    missing = (tmp_path / "missing.bin").as_uri()
    same(lambda hub: hub.download_url_to_file(missing, str(tmp_path / "y"), progress=False), capsys)
    assert sorted(os.listdir(tmp_path)) == ["chainrule", "data.bin", "torch"]


def test_progress_bar(tmp_path: Path, capsys) -> None:
    source = tmp_path / "data.bin"
    source.write_bytes(b"\x01" * 3000)
    bars = []
    for name, hub in HUBS.items():
        capsys.readouterr()
        hub.download_url_to_file(source.as_uri(), str(tmp_path / name))
        bars.append(re.sub(r"\[[^\]]*\]", "[time]", capsys.readouterr().err))
    assert bars[0] == bars[1]
    assert "2.93k/2.93k [time]" in bars[1]


def test_offline_download_fails_as_torch(tmp_path: Path, capsys) -> None:
    """A real connection to a closed port of this machine: refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/net.pth"
    error = same(
        lambda hub: hub.download_url_to_file(url, str(tmp_path / "n"), progress=False), capsys
    )
    assert "Connection refused" in error
    assert os.listdir(tmp_path) == []
