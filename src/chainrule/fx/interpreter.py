"""``torch.fx.interpreter``: Interpreter, which runs a GraphModule Node by Node, and
Transformer, which runs it on Proxies to make a new GraphModule.

Each Node is run by the method named after its op (``placeholder``, ``get_attr``,
``call_function``, ``call_method``, ``call_module``, ``output``), called with the Node's
target and its arguments' values: a subclass overrides one to change how those Nodes run
(or, in a Transformer, what they become).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from ..nn import Module
from ._symbolic_trace import Tracer
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, Node, Target, map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]

_TLPARSE = (
    "Use tlparse to see full graph. "
    "(https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)"
)


class Interpreter:
    """Runs ``module``'s Graph (or ``graph``) one Node at a time."""

    def __init__(
        self, module: Module, garbage_collect_values: bool = True, graph: Graph | None = None
    ) -> None:
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        if garbage_collect_values:
            seen: set[Node] = set()
            for node in reversed(self.graph.nodes):
                for n in node.all_input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(
        self,
        *args: Any,
        initial_env: dict[Node, Any] | None = None,
        enable_io_processing: bool = True,
    ) -> Any:
        """The module's result on ``args`` (``initial_env``: values of Nodes given)."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter: Iterator[Any] = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    _add_context(e, node)
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list[Any]) -> Any:
        """``run`` on the values of ``args_list``, which is emptied."""
        args_iter = iter(args_list)
        env = {n: next(args_iter) for n in self.graph.nodes if n.op == "placeholder"}
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n: Node) -> Any:
        """The value of Node ``n``: its op's method on its target and argument values."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ----- one method per op -------------------------------------------------------------

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The next input (all the rest for ``*args``; the default when none is left)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            ) from si

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The module's attribute at dotted path ``target``."""
        return self.fetch_attr(target)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """``target(*args, **kwargs)``."""
        return target(*args, **kwargs)

    def call_method(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """``args[0].target(*args[1:], **kwargs)``."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The submodule ``target`` called on the arguments."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The program's result."""
        return args[0]

    # ----- helpers ----------------------------------------------------------------------

    def fetch_attr(self, target: str) -> Any:
        """The attribute of the module at dotted path ``target``."""
        atoms = target.split(".")
        attr_itr: Any = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[: i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        """``n``'s arguments with each Node replaced by its value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args: Argument, n: Node) -> Argument:
        """``args`` with each Node replaced by its value."""

        def load_arg(n_arg: Node) -> Any:
            if n_arg not in self.env:
                raise RuntimeError(
                    f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to "
                    "diagnose such issues"
                )
            return self.env[n_arg]

        return map_arg(args, load_arg)


def _add_context(e: Exception, node: Node) -> None:
    """PyTorch's note on an error raised while running a Node."""
    msg = f"While executing {node.format_node()}"
    msg = f"{e.args[0]}\n\n{msg}" if e.args else msg
    msg += f"\nOriginal traceback:\n{node.meta.get('stack_trace')}\n{_TLPARSE}"
    e.args = (msg, *e.args[1:])


class _TransformerTracer(Tracer):
    def __init__(self, graph: Graph, root: Module) -> None:
        super().__init__()
        self.graph = graph
        self.root = root
        self.submodule_paths = {mod: name for name, mod in root.named_modules()}

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        return True


class Transformer(Interpreter):
    """Runs a GraphModule on Proxies, so that ``transform()`` gives a new GraphModule;
    override a method to change what its Nodes become."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph, module)

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        """An input of the new Graph."""
        default = args[0] if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        """A ``get_attr`` of the new Graph."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """A ``call_module`` of the new Graph."""
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """A ``call_function`` of the new Graph."""
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        """The new GraphModule."""
        from .. import overrides

        overrides._class_defined(Proxy)
        result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(
                map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a)
            )
        return GraphModule(self.module, self.new_graph)
