"""The pytree specs of a saved program (``in_spec``/``out_spec``, PyTorch's JSON
treespec format): flattening call arguments to the graph's inputs and rebuilding the
outputs' structure."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TreeSpec:
    """A node of a pytree: its container type (None: a leaf), context and children."""

    type: str | None
    context: Any = None
    children: list[TreeSpec] = field(default_factory=list)

    @property
    def num_leaves(self) -> int:
        """How many leaves the tree holds."""
        return 1 if self.type is None else sum(c.num_leaves for c in self.children)

    def __str__(self) -> str:
        if self.type is None:
            return "*"
        short = self.type.rpartition(".")[2]
        inner = ", ".join(str(c) for c in self.children)
        return f"TreeSpec({short}, {self.context}, [{inner}])"


def parse(text: str) -> TreeSpec:
    """The TreeSpec of PyTorch's serialized ``[protocol, {...}]`` text."""
    _, body = json.loads(text)
    return _node(body)


def _node(d: dict) -> TreeSpec:
    context = d.get("context")
    if isinstance(context, str):
        context = json.loads(context)
    return TreeSpec(d.get("type"), context, [_node(c) for c in d.get("children_spec", [])])


def flatten(value: Any, spec: TreeSpec) -> list[Any]:
    """The leaves of ``value`` in ``spec``'s order (dicts by the spec's keys)."""
    if spec.type is None:
        return [value]
    registered = _registered(spec.type)
    if registered is not None and type(value) is registered.type:
        items = registered.flatten_fn(value)[0]
    elif spec.type == "builtins.dict" or spec.type.endswith("OrderedDict"):
        items = [value[k] for k in spec.context]
    elif isinstance(value, dict):
        items = list(value.values())
    else:
        items = list(value)
    if len(items) != len(spec.children):
        raise ValueError(
            f"Trying to flatten user inputs with exported input tree spec: \n{spec}\n"
            f"but actually got inputs with tree spec of a different length: {len(items)} "
            f"children, {len(spec.children)} expected."
        )
    leaves: list[Any] = []
    for item, child in zip(items, spec.children):
        leaves += flatten(item, child)
    return leaves


def _registered(name: str) -> Any:
    """The node definition of the pytree node type registered as ``name`` (not a builtin
    container), or None."""
    from ..utils import _pytree

    cls = _pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE.get(name)
    if cls is None or cls in _pytree.BUILTIN_TYPES or name == _pytree.NO_SERIALIZED_TYPE_NAME_FOUND:
        return None
    return _pytree.SUPPORTED_NODES.get(cls)


def unflatten(leaves: list[Any], spec: TreeSpec) -> Any:
    """``leaves`` put back into the structure of ``spec``."""
    it = iter(leaves)
    return _build(it, spec)


def _build(it: Any, spec: TreeSpec) -> Any:
    if spec.type is None:
        return next(it)
    children = [_build(it, c) for c in spec.children]
    registered = _registered(spec.type)
    if registered is not None:  # (a registered pytree node type: a model's output class)
        return registered.unflatten_fn(children, spec.context)
    if spec.type == "builtins.dict":
        return dict(zip(spec.context, children))
    if spec.type.endswith("OrderedDict"):
        from collections import OrderedDict

        return OrderedDict(zip(spec.context, children))
    if spec.type == "builtins.list":
        return children
    return tuple(children)
