"""``torch.fx.graph_module``: GraphModule, a Module whose ``forward`` is the code of a Graph.

It holds the submodules, parameters and buffers its Graph names (copied by reference from
the root module, at the same dotted paths) and ``forward`` compiled from
``graph.python_code('self')``; ``recompile()`` makes it again after the Graph changed.
"""

from __future__ import annotations

import copy
from typing import Any

from .._tensor import Tensor
from ..nn import Module, Parameter
from .graph import Graph, PythonCode

__all__ = ["GraphModule"]

_DEBUG_HINT = "# To see more debug info, please use `graph_module.print_readable()`"


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Put ``from_module``'s attribute at dotted path ``target`` in ``to_module`` at the same
    path (empty Modules in between where ``to_module`` has none)."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    _assign_attr(getattr(from_module, field), to_module, field)


def _assign_attr(value: Any, to_module: Module, field: str) -> None:
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


def _assign_path(value: Any, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    _assign_attr(value, to_module, field)


def _addindent(s: str, n: int) -> str:
    return "\n".join((" " * n + line) if line else line for line in s.split("\n"))


class GraphModule(Module):
    """A Module made from a Graph: its submodules and attributes come from ``root`` (a
    Module, or a dict of name -> value), its ``forward`` is the Graph's code."""

    def __new__(cls, *args: Any, **kwargs: Any) -> GraphModule:
        # each instance has its own class, so that setting ``forward`` (recompile) and the
        # class name touch that instance only
        if cls.__name__ != "GraphModuleImpl":

            class GraphModuleImpl(cls):  # type: ignore[valid-type, misc]
                pass

            return super().__new__(GraphModuleImpl)
        return super().__new__(cls)

    def __init__(
        self, root: Module | dict[str, Any], graph: Graph, class_name: str = "GraphModule"
    ) -> None:
        super().__init__()
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            f"Node {node} referenced target {node.target} but that target was "
                            "not provided in ``root``!"
                        )
                    _assign_path(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph

    @property
    def graph(self) -> Graph:
        """The Graph (setting it recompiles ``forward``)."""
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        object.__setattr__(self, "_graph", g)
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of ``forward``, as PyTorch writes it."""
        return self._code

    def recompile(self) -> PythonCode:
        """Make ``forward`` again from the Graph's code (after the Graph changed)."""
        python_code = self._graph.python_code(root_module="self")
        object.__setattr__(self, "_code", python_code.src)
        namespace = dict(python_code.globals)
        exec(compile(python_code.src, f"<eval_with_key>.{id(self)}", "exec"), namespace)
        type(self).forward = namespace["forward"]
        return python_code

    def print_readable(
        self,
        print_output: bool = True,
        include_stride: bool = False,
        include_device: bool = False,
        colored: bool = False,
        **_: Any,
    ) -> str:
        """The module as a class with its ``forward`` (printed unless ``print_output`` is
        False)."""
        code = self._graph.python_code(root_module="self", verbose=True).src
        text = f"class {self._get_name()}(torch.nn.Module):\n{_addindent(code.strip(), 4)}\n"
        if print_output:
            print(text)
        return text

    def __str__(self) -> str:
        return f"{super().__str__()}\n{self._code}\n{_DEBUG_HINT}"

    def __copy__(self) -> GraphModule:
        res = GraphModule(self, self._graph)
        res.__dict__ = self.__dict__.copy()
        return res

    def __deepcopy__(self, memo: dict) -> GraphModule:
        res = GraphModule.__new__(GraphModule)
        memo[id(self)] = res
        state = copy.deepcopy(self.__dict__, memo)
        Module.__init__(res)
        res.__dict__.update(state)
        type(res).__name__ = type(res).__qualname__ = "GraphModule"
        res.graph = state["_graph"]
        return res

    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at dotted path ``target`` (empty Modules in between)."""
        *prefix, field = target.split(".")
        mod: Module = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                setattr(mod, item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        setattr(mod, field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Remove the submodule at dotted path ``target``; whether there was one."""
        *prefix, field = target.split(".")
        mod: Module = self
        for item in prefix:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
        if field not in mod._modules:
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self) -> None:
        """Remove the submodules no Node uses."""
        used: set[str] = set()
        for node in self._graph.nodes:
            if node.op in ("call_module", "get_attr"):
                parts = node.target.split(".")
                used.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)
