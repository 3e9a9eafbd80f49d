"""docs/ops.md is generated from the op definitions and must be current."""

from __future__ import annotations

from pathlib import Path

from chainrule._opdocs import render
from chainrule.autograd.registry import REGISTRY

DOC = Path(__file__).resolve().parent.parent / "docs" / "ops.md"


def test_ops_md_is_current():
    assert DOC.read_text() == render(), "docs/ops.md is stale: run `make docs`"


def test_every_op_is_listed_with_its_rules():
    text = render()
    for name, op in REGISTRY.items():
        assert f"### `{name}`" in text
        for arg in op.args:
            assert f"VJP for `{arg}`" in text
