"""The steps of PyTorch's nn tutorials that need no download (``examples/tutorials/``,
written for ``import torch``) run unchanged under ``chainrule run``, and print what the
same script prints with PyTorch: the same model trees, shapes, dtypes, node names and
text, with every floating-point number masked, so the comparison is of everything but the
values (the random draws are PyTorch's, but a training run's numbers drift apart in their
last digits as float32 sums round differently)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tutorial_runner import Server, environment

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


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory):
    """Fork servers of PyTorch and of chainrule (tests/tutorial_runner.py): each tutorial
    runs in a fresh child of a process that imported its library once."""
    env, scratch = environment(), tmp_path_factory.mktemp("tutorial_output")
    both = (Server("torch", ROOT, env, scratch), Server("chainrule", ROOT, env, scratch))
    yield both
    for server in both:
        server.close()


def test_masking_keeps_shapes_and_names():
    assert normalized("tensor([[ 0.1, -2.5e-03]], grad_fn=<AddBackward0>)") == (
        "tensor([[F, F]], grad_fn=<AddBackward0>)"
    )
    assert normalized("torch.Size([1, 10]) <X object at 0x7f12>") == (
        "torch.Size([1, 10]) <X object at 0x>"
    )
    assert normalized("stack.0.bias 1e-05 -3. x^2") == "stack.0.bias F F x^2"


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs_unchanged_and_prints_what_torch_prints(script: Path, servers):
    torch_server, chainrule_server = servers
    theirs = torch_server.run(script)
    assert theirs.returncode == 0, theirs.stderr
    ours = chainrule_server.run(script)
    assert ours.returncode == 0, ours.stderr
    expected = theirs.stdout
    for torch_text, chainrule_text in KNOWN.get(script.stem, []):
        expected = expected.replace(torch_text, chainrule_text)
    assert normalized(ours.stdout) == normalized(expected)
    assert WARNING.findall(ours.stderr) == WARNING.findall(theirs.stderr)
