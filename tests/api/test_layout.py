"""The layering of the source: the core knows no op family, and has no import circle.

The core is the tensor type, its dtypes and array backend, and the autograd machinery
(recording, graph, engine, grad modes, views and in-place writes, forward mode, custom
Functions). Ops depend on the core, never the reverse: these tests read the import
statements of the core's modules (at module level and inside functions) with ``ast``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import chainrule

SRC = Path(chainrule.__file__).parent

CORE = (
    "chainrule._backend",
    "chainrule._dtypes",
    "chainrule._promotion",
    "chainrule._modes",
    "chainrule._tensor",
    "chainrule._printing",
    "chainrule.utils.hooks",
    "chainrule.autograd.registry",
    "chainrule.autograd.views",
    "chainrule.autograd.forward_ad",
    "chainrule.autograd.grad_mode",
    "chainrule.autograd.anomaly_mode",
    "chainrule.autograd.graph",
    "chainrule.autograd.recording",
    "chainrule.autograd.entries",
    "chainrule.autograd.inplace",
    "chainrule.autograd.engine",
    "chainrule.autograd.function",
)

# what the core may never import: the op families and everything built on them
OUTSIDE_CORE = ("chainrule.ops", "chainrule.api", "chainrule.nn", "chainrule.linalg",
                "chainrule.special", "chainrule.func", "chainrule.explain", "chainrule._creation")  # fmt: skip


def _path(module: str) -> Path:
    rel = Path(*module.split(".")[1:])
    package = SRC / rel / "__init__.py"
    return package if package.exists() else SRC / rel.with_suffix(".py")


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (SRC / rel / "__init__.py").exists() or (SRC / rel.with_suffix(".py")).exists()


def imports_of(module: str) -> set[str]:
    """The chainrule modules that ``module``'s import statements name, anywhere in it."""
    path = _path(module)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("chainrule")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("chainrule"):
                continue
            for alias in node.names:  # `from . import grad_mode` names a module
                sub = f"{target}.{alias.name}"
                found.add(sub if _is_module(sub) else target)
    return found


def test_core_modules_import_no_op_family():
    offending = {
        module: sorted(i for i in imports_of(module) if i.startswith(OUTSIDE_CORE))
        for module in CORE
    }
    assert {m: i for m, i in offending.items() if i} == {}


def test_no_import_circle_in_the_core():
    graph = {m: sorted(i for i in imports_of(m) if i in CORE and i != m) for m in CORE}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in CORE:
        stack = [(start, iter(graph[start]))]
        state[start] = state.get(start) or 1
        if state[start] == 2:
            continue
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                path = [n for n, _ in stack] + [child]
                raise AssertionError("import circle: " + " -> ".join(path[path.index(child) :]))
            elif state.get(child) is None:
                state[child] = 1
                stack.append((child, iter(graph[child])))


def test_the_core_list_names_real_modules():
    for module in CORE:
        assert _path(module).exists(), module
