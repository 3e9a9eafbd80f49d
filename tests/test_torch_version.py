"""``torch.__version__`` is a TorchVersion that compares as PyTorch's does, and under the
import hook the installed-package metadata of ``torch`` is chainrule's."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
import torch.torch_version as theirs

import chainrule
from chainrule.torch_version import TorchVersion

VERSIONS = [
    "1.0.dev1",
    "1.0a1",
    "1.0b2",
    "1.0rc1",
    "1.0",
    "1.0.0",
    "1.0.post1",
    "1.0+cpu",
    "1.0+2",
    "1.0+a.1",
    "1.0.1",
    "2.8",
    "2.13",
    "2.13.0",
    "2.13.0+cpu",
    "2.13.0+chainrule.0.1.0",
    "not a version",
]
OPS = ["__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"]


@pytest.mark.parametrize("op", OPS)
def test_comparisons_match_pytorch(op: str) -> None:
    for a, b in itertools.product(VERSIONS, VERSIONS):
        ours = getattr(TorchVersion(a), op)(b)
        expected = getattr(theirs.TorchVersion(a), op)(b)
        assert ours == expected, (a, op, b)


def test_tuples_and_errors_match_pytorch() -> None:
    v = TorchVersion("2.13.0+cpu")
    assert v >= (2, 13) and v < (2, 13, 1) and v > (2, 8) and not v == (2, 12)
    with pytest.raises(TypeError, match="not supported between instances of 'TorchVersion'"):
        _ = v < 3
    assert isinstance(v, str) and v.split(".")[1] == "13"


def test_chainrule_version_names_the_pytorch_api_it_follows() -> None:
    assert isinstance(chainrule.__version__, TorchVersion)
    assert chainrule.__version__ == f"2.13.0+chainrule.{chainrule._RELEASE}"
    assert chainrule.__version__ >= "2.8" and chainrule.__version__ >= (2, 13)
    assert chainrule.version.__version__ is chainrule.__version__


def test_package_version_is_chainrules_release() -> None:
    import importlib.metadata

    assert importlib.metadata.version("chainrule") == chainrule._RELEASE


def test_hook_gives_torch_metadata_as_chainrules(tmp_path: Path) -> None:
    script = tmp_path / "meta.py"
    script.write_text(
        "import importlib.metadata as m, importlib.util\n"
        "print(m.version('torch'), m.version('torchvision'), m.version('TorchAudio'))\n"
        "print(m.metadata('torch')['Name'], importlib.util.find_spec('torch') is not None)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "chainrule", "run", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    import chainrule.audio
    import chainrule.vision

    versions, rest = proc.stdout.splitlines()
    assert versions.split() == [
        chainrule.__version__,
        chainrule.vision.__version__,
        chainrule.audio.__version__,
    ]
    assert rest == "torch True"
