"""The steps of PyTorch's nn tutorials that need no download (``examples/tutorials/``,
written for ``import torch``) run unchanged under ``chainrule run``, and print what the
same script prints with PyTorch: the same model trees, shapes, dtypes, node names and
text, with every floating-point number masked (the random weights differ: chainrule's
random stream is its own), so the comparison is of everything but the values."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((ROOT / "examples" / "tutorials").glob("*.py"))

FLOAT = re.compile(r"(?<![\w.])-?(?:(?:\d+\.\d*|\.\d+|\d+)e[+-]?\d+|\d+\.\d*|\.\d+)")

# Known differences, each a gap named in the notes: the text torch prints, and chainrule's.
KNOWN: dict = {}
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def normalized(text: str) -> str:
    """The output with floats as ``F``, addresses as ``0x``, and whitespace collapsed
    (tensors wrap at widths that depend on their values)."""
    text = ADDRESS.sub("0x", text)
    text = FLOAT.sub("F", text)
    return re.sub(r"([\[(]) ", r"\1", " ".join(text.split()))


WARNING = re.compile(r"^\w*Warning: .*$", re.MULTILINE)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -W default *args``: the tutorials are PyTorch's, warnings and all (one warns
    of a 2-D input to dropout2d), so a strict ``PYTHONWARNINGS=error`` of the test run is
    not passed on; the warnings each library prints are compared instead."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run(
        [sys.executable, "-W", "default", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def test_masking_keeps_shapes_and_names():
    assert normalized("tensor([[ 0.1, -2.5e-03]], grad_fn=<AddBackward0>)") == (
        "tensor([[F, F]], grad_fn=<AddBackward0>)"
    )
    assert normalized("torch.Size([1, 10]) <X object at 0x7f12>") == (
        "torch.Size([1, 10]) <X object at 0x>"
    )
    assert normalized("stack.0.bias 1e-05 -3. x^2") == "stack.0.bias F F x^2"


# PyPI's torchvision is built against PyTorch's CUDA build: with the CPU build here its
# compiled kernels do not load and registering their fake kernels fails on import (see
# tests/vision/conftest.py); the registrations are skipped, the rest of it is the oracle.
WITH_TORCHVISION = (
    "import runpy, sys, torch.library as library\n"
    "register_fake = library.register_fake\n"
    "library.register_fake = lambda *args, **kwargs: (lambda fn: fn)\n"
    "import torchvision\n"
    "library.register_fake = register_fake\n"
    "sys.argv = [sys.argv[1]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


# PyPI's torchaudio, like torchvision, is built against PyTorch's CUDA build: its compiled
# library does not load with the CPU build; it is imported as if the library were absent
# (tests/audio/conftest.py), the rest of it is the oracle.
WITH_TORCHAUDIO = (
    "import pathlib, runpy, sys\n"
    "glob = pathlib.Path.glob\n"
    "pathlib.Path.glob = lambda self, pattern, *args, **kwargs: (\n"
    "    iter(()) if 'torchaudio' in str(self) and str(self).endswith('lib')\n"
    "    else glob(self, pattern, *args, **kwargs))\n"
    "import torchaudio\n"
    "pathlib.Path.glob = glob\n"
    "sys.argv = [sys.argv[1]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs_unchanged_and_prints_what_torch_prints(script: Path):
    if "torchvision" in script.read_text():
        theirs = run("-c", WITH_TORCHVISION, str(script))
    elif "torchaudio" in script.read_text():
        theirs = run("-c", WITH_TORCHAUDIO, str(script))
    else:
        theirs = run(str(script))
    assert theirs.returncode == 0, theirs.stderr
    ours = run("-m", "chainrule", "run", str(script))
    assert ours.returncode == 0, ours.stderr
    expected = theirs.stdout
    for torch_text, chainrule_text in KNOWN.get(script.stem, []):
        expected = expected.replace(torch_text, chainrule_text)
    assert normalized(ours.stdout) == normalized(expected)
    assert WARNING.findall(ours.stderr) == WARNING.findall(theirs.stderr)
