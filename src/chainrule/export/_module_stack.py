"""Which module call made each node of a trace: PyTorch's ``nn_module_stack`` metadata,
the path from the root module to the submodule whose forward was running.

The stack is kept in the form a ``.pt2`` file holds it (``key,path,type`` entries joined
by ``;``, the key ``L__self__<path>`` with ``@n`` for a module's n-th repeated call), so
that a saved program carries it to PyTorch, and ``unflatten`` reads both this form and
PyTorch's dict.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..fx import Graph
from ..nn import Module

_ROOT_KEY = "L__self__"
# chainrule modules whose PyTorch home is another file of torch.nn.modules
_TORCH_HOMES = {"activation_attention": "activation"}


def type_name(module: Module) -> str:
    """The qualified class name PyTorch records (``torch.nn.modules.linear.Linear``)."""
    cls = type(module)
    home = cls.__module__
    if home.startswith("chainrule."):
        *package, leaf = home.split(".")
        home = ".".join(["torch", *package[1:], _TORCH_HOMES.get(leaf, leaf)])
    return f"{home}.{cls.__qualname__}"


def parse(stack: Any) -> list[tuple[str, str, str]]:
    """``(key, path, type)`` per module of the stack, the root first, from either form."""
    if isinstance(stack, dict):
        return [(k, path, ty) for k, (path, ty) in stack.items()]
    entries = []
    for item in str(stack).split(";") if stack else []:
        key, path, ty = item.split(",", 2)
        entries.append((key, path, ty))
    return entries


@contextlib.contextmanager
def module_stacks(root: Module, graph: Graph) -> Iterator[None]:
    """While the forward of ``root`` runs, mark each node made in ``graph`` with the
    stack of module calls it was made in."""
    stack = [f"{_ROOT_KEY},,{type_name(root)}"]
    calls: dict[str, int] = {}
    paths = {id(m): name for name, m in root.named_modules() if name}

    def stamp() -> None:
        text = ";".join(stack)
        for node in graph.nodes:
            if node.op not in ("placeholder", "output") and "nn_module_stack" not in node.meta:
                node.meta["nn_module_stack"] = text

    def enter(module: Module, args: Any) -> None:
        stamp()
        path = paths[id(module)]
        n = calls.get(path, 0)
        calls[path] = n + 1
        key = f"{_ROOT_KEY}{path}" + (f"@{n}" if n else "")
        stack.append(f"{key},{path},{type_name(module)}")

    def leave(module: Module, args: Any, output: Any) -> None:
        stamp()
        stack.pop()

    handles = []
    for name, m in root.named_modules():
        if name:
            handles.append(m.register_forward_pre_hook(enter))
            handles.append(m.register_forward_hook(leave))
    stamp()  # (nodes made before the forward: sizes of the inputs)
    try:
        yield
        stamp()
    finally:
        for h in handles:
            h.remove()
