"""Modules in an explanation: which module call made each node, and parameters' names.

Nodes made while recording (``explain.record()``) inside a module's forward keep the
module call (``nn.modules._scope.ModuleCall``: the module, the call it was made from).
Here those calls get their qualified names from the module tree: a call's name is its
parent call's name and the path from the parent module down to it (``encoder.layers.0.fc1``,
through an uncalled ``ModuleList``); the outermost call is named from the largest module
tree the user's code holds, or is the root. A label is the name and the class
(``fc1 (Linear)``); a root is labelled by the user's variable (``model (Net)``) or its class.
A module called more than once gets the call's rank among them (``fc (Linear), call 2``).
Parameters are named by their qualified name (``fc1.weight``), whether or not anything
was recorded, from every module tree the user's code holds or the graph's calls reach.
"""

from __future__ import annotations

from typing import Any

from ..autograd.graph import Node
from ..nn.modules._scope import ModuleCall
from ..nn.modules.module import Module


def scope_of(node: Node) -> ModuleCall | None:
    """The innermost module call whose forward made ``node``, if it was recorded."""
    extra = node._extra
    scope = extra.scope if extra is not None else None
    return scope if isinstance(scope, ModuleCall) else None


class ModuleNames:
    """Labels for the module calls of a graph, and qualified names for parameters."""

    def __init__(self, calls: set[ModuleCall], held: dict[int, tuple[str, Module]]) -> None:
        # held: id(module) -> (the user's variable name, module), from the calling frames
        self._var = {k: name for k, (name, _) in held.items()}
        chains = [c.chain() for c in calls]
        outer = {id(ch[0].module): ch[0].module for ch in chains}
        trees = [m for _, m in held.values()] + list(outer.values())
        trees.sort(key=lambda m: -sum(1 for _ in m.modules()))  # the largest tree first
        self._trees = trees
        self._qualified: dict[int, str] = {}
        for tree in trees:
            for name, m in tree.named_modules(remove_duplicate=False):
                self._qualified.setdefault(id(m), name)
        self._below: dict[int, dict[int, str]] = {}  # id(module) -> id(submodule) -> path
        self._names: dict[int, str] = {}  # id(call) -> qualified name
        # how many distinct calls share a label: those are numbered in forward order
        every = {c for ch in chains for c in ch}
        by_label: dict[str, list[ModuleCall]] = {}
        for c in every:
            by_label.setdefault(self.base_label(c), []).append(c)
        self._rank: dict[int, int] = {}
        for same in by_label.values():
            if len(same) > 1:
                for k, c in enumerate(sorted(same, key=lambda c: c.number)):
                    self._rank[id(c)] = k + 1

    def name(self, call: ModuleCall) -> str:
        """The call's module's qualified name ("" for a root)."""
        key = id(call)
        if key not in self._names:
            m = call.module
            if call.parent is None:
                name = self._qualified.get(id(m), "")
            else:
                path = self._path(call.parent.module, m)
                parent = self.name(call.parent)
                if path is None:
                    name = self._qualified.get(id(m), "")
                else:
                    name = f"{parent}.{path}" if parent else path
            self._names[key] = name
        return self._names[key]

    def _path(self, parent: Module, m: Module) -> str | None:
        below = self._below.get(id(parent))
        if below is None:
            below = {}
            for path, sub in parent.named_modules(remove_duplicate=False):
                if path:
                    below.setdefault(id(sub), path)
            self._below[id(parent)] = below
        return below.get(id(m))

    def base_label(self, call: ModuleCall) -> str:
        """``fc1 (Linear)``; a root: ``model (Net)`` by the user's variable, or ``Net``."""
        cls = type(call.module).__name__
        name = self.name(call) or self._var.get(id(call.module), "")
        return f"{name} ({cls})" if name else cls

    def rank(self, call: ModuleCall) -> int | None:
        """Which call of its module this is (1, 2, ...), when there were several."""
        return self._rank.get(id(call))

    def label(self, call: ModuleCall) -> str:
        """The base label, with the call's rank when the module was called more than once."""
        rank = self._rank.get(id(call))
        return self.base_label(call) + (f", call {rank}" if rank else "")

    def chain(self, call: ModuleCall | None) -> tuple[tuple[int, str], ...]:
        """(call number, label) from the outermost call to ``call``."""
        if call is None:
            return ()
        return tuple((c.number, self.label(c)) for c in call.chain())

    def parameters(self) -> dict[int, str]:
        """id(parameter) -> its qualified name, over every module tree known; a root's own
        parameters are prefixed by the root's variable (``cell.weight``), if it has one."""
        names: dict[int, str] = {}
        for tree in self._trees:
            root = self._var.get(id(tree))
            for name, p in tree.named_parameters(remove_duplicate=False):
                own = root and "." not in name
                names.setdefault(id(p), f"{root}.{name}" if own else name)
        return names


def graph_calls(roots: list) -> set[ModuleCall]:
    """Every module call recorded on a node of the graph behind ``roots``."""
    found: set[ModuleCall] = set()
    seen: set[Node] = set()
    stack = [n for n, _ in roots]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        call = scope_of(node)
        if call is not None:
            found.add(call)
        stack.extend(n for n, _ in node._next)
    return found


def held_modules(frame_locals: list[dict[str, Any]]) -> dict[int, tuple[str, Module]]:
    """The modules the user's frames hold in variables (innermost frame first)."""
    held: dict[int, tuple[str, Module]] = {}
    for f_locals in frame_locals:
        for name, value in f_locals.items():
            if isinstance(value, Module) and (not name.startswith("_") or name == "self"):
                held.setdefault(id(value), ("" if name == "self" else name, value))
    return held
