"""docs/ops.md is generated from the op definitions and must be current; every VJP and JVP
states its formula where the generator picks it up (the convention: chainrule._opdocs)."""

from __future__ import annotations

from pathlib import Path

from chainrule import _opdocs
from chainrule._opdocs import (
    FAMILIES,
    HELPERS,
    SAME_AS_VJP,
    description,
    family,
    formula,
    is_ours,
    missing_formulas,
    render,
    same_rule,
    shared_lines,
)
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


def test_every_rule_states_its_formula():
    """Each VJP and JVP of an input that has a gradient states its formula: a lambda in the
    trailing comment on its line, a def in the first line of its docstring."""
    missing = missing_formulas()
    assert not missing, f"{len(missing)} rules state no formula:\n" + "\n".join(missing)


def test_formula_is_read_by_the_convention():
    rule = lambda g, x: g * x  # d/dx x²/2 = x
    pair = (lambda g: g, lambda g: -g)  # one comment for two rules on a line

    def documented(g, x):
        """d/dx x²/2 = x

        (The rest of the docstring is not the formula.)"""
        return g * x

    def commented(g, x):
        # d/dx x²/2 = x: a comment in a def is not where the convention looks
        return g * x

    assert formula(rule) == formula(documented) == "d/dx x²/2 = x"
    assert formula(pair[0]) == formula(pair[1]) == "one comment for two rules on a line"
    # a lambda the formatter spread over lines: its comment is after the closing bracket
    spread = REGISTRY["nan_to_num"].raw_vjps[0]
    assert formula(spread) == "d/dx = 1 where x is finite, else 0"
    assert formula(commented) == ""
    assert formula(lambda g: g) == ""
    assert formula(None) == ""


def test_same_as_vjp_claims_hold():
    """A JVP that says "as the VJP" is its VJP's rule with t for g, as written."""
    wrong = []
    for name, op in REGISTRY.items():
        for arg, vjp, jvp in zip(op.args, op.raw_vjps, op.raw_jvps):
            if jvp is not None and formula(jvp).startswith(SAME_AS_VJP):
                if not same_rule(vjp, jvp):
                    wrong.append(f"{name}: JVP for {arg}")
    assert not wrong, "JVPs that are not their VJP's rule:\n" + "\n".join(wrong)


def test_same_rule_tells_rules_apart():
    assert same_rule(lambda g, x: g * x, lambda t, x: t * x)
    assert not same_rule(lambda g, x: g * x, lambda t, x: x * t)
    assert not same_rule(lambda g, x: g * x, lambda t, y: t * y)


def test_no_two_inputs_share_a_formula_line():
    shared = shared_lines()
    assert not shared, "rules of two inputs on one line:\n" + "\n".join(shared)


def test_every_op_has_a_description_of_its_own():
    """A NumPy forward (a ufunc) comes with doc=; NumPy's docstrings are never shown."""
    bare = [
        name
        for name, op in REGISTRY.items()
        if not description(op) or (not is_ours(op.forward) and op.doc == op.forward.__doc__)
    ]
    assert not bare, "ops with no description of their own: " + ", ".join(bare)
    text = render()
    assert "out=None, *, where=True" not in text  # a ufunc's signature line


def test_every_op_is_in_a_family_section():
    modules = {m for m, _ in FAMILIES}
    stray = [name for name, op in REGISTRY.items() if family(op) not in modules]
    assert not stray, "ops outside the families: " + ", ".join(stray)
    assert HELPERS <= set(REGISTRY), "HELPERS names ops that do not exist"


def test_sections_follow_the_reading_order():
    text = render()
    places = [text.index(f"\n## {title}\n") for _, title in FAMILIES]
    assert places == sorted(places)
    for module, _ in FAMILIES:  # each section opens with its module's docstring
        first = _opdocs._module_summary(module)
        assert _opdocs._markdown(first) in text
