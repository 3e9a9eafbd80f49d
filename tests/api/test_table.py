"""The name table (api/table.py) is the one source of the public names.

Every namespace holds exactly what the table builds (nothing defined elsewhere and then
overwritten), every op is defined once, in one family module, and under one name, and
no source module grows past the size a reader can hold.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
from pathlib import Path

import pytest

import chainrule
from chainrule import api
from chainrule.api import table
from chainrule.autograd.recording import Op
from chainrule.autograd.registry import REGISTRY
from chainrule.autograd.sequence_op import SequenceOp

MODULES = {
    "torch": chainrule,
    "linalg": chainrule.linalg,
    "special": chainrule.special,
    "functional": chainrule.nn.functional,
}


@pytest.fixture(scope="module")
def built():
    return api.build()


@pytest.mark.parametrize("space", sorted(MODULES))
def test_each_namespace_holds_what_the_table_builds(built, space):
    module = MODULES[space]
    for name, value in built[space].items():
        assert name in vars(module), f"{space}.{name} is in the table but not in the namespace"
        got = vars(module)[name]
        # built twice, so the generated functions differ: compare what they wrap
        assert type(got) is type(value), f"{space}.{name}"
        assert getattr(got, "__name__", None) == getattr(value, "__name__", None), name


def test_the_tensor_class_holds_what_the_table_builds(built):
    for name, value in built["Tensor"].items():
        got = vars(chainrule.Tensor).get(name)
        assert got is not None, f"Tensor.{name} is in the table but not on Tensor"
        assert type(got) is type(value), name


def test_no_public_name_is_defined_twice_in_the_table():
    seen: dict[tuple[str, str], str] = {}
    for row in table.TORCH:
        name, _, where, *aliases = row
        flags = where.split()
        for n in (name, *(aliases[0].split() if aliases else ())):
            keys = []
            if "f" in flags:
                keys.append(("torch", n))
            if "m" in flags:
                keys.append(("Tensor", n))
            if "m_" in flags:
                keys.append(("Tensor", n + "_"))
            if "f_" in flags:
                keys.append(("torch", n + "_"))
            for key in keys:
                assert key not in seen, f"{key} set by rows {seen[key]!r} and {name!r}"
                seen[key] = name
    for space, rows in (
        ("Tensor", [r[:1] for r in table.TENSOR + table.OPERATORS]),
        ("linalg", table.LINALG),
        ("special", table.SPECIAL),
        ("functional", table.FUNCTIONAL),
    ):
        for row in rows:
            key = (space, row[0])
            assert key not in seen, f"{key} set twice"
            seen[key] = row[0]


def test_a_name_defined_outside_the_table_is_refused(monkeypatch):
    """install() raises rather than overwrite a public name that a module defines itself."""
    monkeypatch.setattr(
        api,
        "build",
        lambda: {
            "torch": {"exp": None},
            "Tensor": {},
            "linalg": {},
            "special": {},
            "functional": {},
        },  # fmt: skip
    )
    with pytest.raises(RuntimeError, match="defined outside the name table"):
        api.install()


def test_the_builder_refuses_a_name_set_twice(monkeypatch):
    monkeypatch.setattr(table, "TENSOR", [*table.TENSOR, ("backward", None)])
    with pytest.raises(RuntimeError, match="sets Tensor.backward twice"):
        api.build()


def test_every_op_is_defined_once_in_one_family_module():
    ops = [o for o in gc.get_objects() if isinstance(o, (Op, SequenceOp))]
    assert len(ops) == len(REGISTRY), "an op name is registered twice"
    assert set(map(id, ops)) == set(map(id, REGISTRY.values()))
    families = [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(chainrule.ops.__path__, "chainrule.ops.")
    ] + [importlib.import_module("chainrule.autograd.inplace")]  # CopySlices: autograd's own
    homes: dict[int, list[str]] = {id(op): [] for op in ops}
    for module in families:
        for value in vars(module).values():
            # an op is bound by name, or kept in a module-level table of ops
            for v in value.values() if isinstance(value, dict) else (value,):
                if id(v) in homes:
                    homes[id(v)].append(module.__name__)
    for op in ops:
        assert len(homes[id(op)]) == 1, f"op {op.name} is bound in {homes[id(op)]}"


def test_no_source_module_is_longer_than_1200_lines():
    root = Path(chainrule.__file__).parent
    long = {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 1200
    }
    assert long == {}
