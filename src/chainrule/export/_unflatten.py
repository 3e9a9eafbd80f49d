"""``torch.export.unflatten``: an exported program's flat graph cut back into the module
hierarchy it was traced from.

Each node of an export carries the stack of module calls it was made in
(``nn_module_stack``). Walking the nodes in order, a node whose stack goes deeper than
the current module starts the call of a submodule: it gets its own graph (an
``InterpreterModule``) and a ``call_module`` node in its parent's graph. Values a
submodule reads from outside become its placeholders (and the call's arguments), values
read after it returns become its outputs. Parameters and buffers then move from
placeholders into the submodule that owns them, read by ``get_attr`` under their
original names (``self.weight`` in ``fc``). A submodule called again gets another module
(``fc@1``), folded back into the first when both calls' graphs are the same.
"""

from __future__ import annotations

import copy
import operator
from typing import Any

from ..fx import Graph, Node
from ..fx.graph_module import _addindent
from ..nn import Module, Parameter
from . import _treespec
from ._module import ExportGraphModule, StatefulGraphModule
from ._module_stack import parse
from ._reader import ATEN
from .graph_signature import InputKind, OutputKind

# (path, type, call index) of each module call on a node's stack, the root first
_Stack = list[tuple[str, Any, int]]


class _Submodule(Module):
    """A module of the unflattened hierarchy: its graph, run as generated code."""

    _ty: str | None = None

    def type_name(self) -> str | None:
        """The qualified class name of the module it stands for."""
        return self._ty

    def finalize(self) -> None:
        """Make ``graph_module`` (the graph's code, run with this module as ``self``)."""
        gm = ExportGraphModule(self, self.graph)
        self.graph.owning_module = self
        self.__dict__["graph_module"] = gm
        self.__dict__["arg_names"] = [n.target for n in self.graph.nodes if n.op == "placeholder"]

    def _run(self, *args: Any) -> Any:
        return type(self.__dict__["graph_module"]).forward(self, *args)

    def print_readable(self, print_output: bool = True, **_: Any) -> str:
        """The module as a class with its ``forward`` (printed unless ``print_output``)."""
        code = self.graph.python_code(root_module="self", verbose=True).src
        text = f"class {type(self).__name__}(torch.nn.Module):\n{_addindent(code.strip(), 4)}\n"
        if print_output:
            print(text)
        return text


class InterpreterModule(_Submodule):
    """One submodule call's graph: takes the values it reads, returns those read after."""

    def __init__(self, graph: Graph, ty: str | None = None) -> None:
        super().__init__()
        self.__dict__["graph"] = graph
        self.__dict__["graph_module"] = None
        self._ty = ty
        graph.owning_module = self

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if self.__dict__["graph_module"] is None:
            raise RuntimeError("This InterpreterModule has no code yet: call finalize() first.")
        if kwargs:
            names = self.arg_names[len(args) :]
            args = (*args, *(kwargs[n] for n in names if n in kwargs))
        return self._run(*args)


class UnflattenedModule(_Submodule):
    """An exported program as a module tree like the original: called as its forward."""

    def __init__(self, ep: Any) -> None:
        super().__init__()
        if not ep.module_call_graph or ep.module_call_graph[0].fqn != "":
            raise RuntimeError(
                "unflatten needs the program's module_call_graph, the root call first; "
                "export the module again to record it."
            )
        flat = copy.deepcopy(ep.graph)
        _inplace_mutations(flat, ep.graph_signature)
        self.__dict__["graph"] = Graph()
        self.graph.owning_module = self
        self.__dict__["graph_signature"] = ep.graph_signature
        self.__dict__["module_call_graph"] = ep.module_call_graph
        self.__dict__["range_constraints"] = ep.range_constraints
        self._ty = _root_type(flat)
        calls = _outline(flat, self)
        _copy_graph_attrs(ep.graph_module, calls, self)
        _assign_state(self, ep)
        _sink_state(self, _inputs_to_state(ep), [])
        _deduplicate(calls)
        _reorder(self, [e.fqn for e in ep.module_call_graph])
        for m in self.modules():
            if isinstance(m, _Submodule) and len(m.graph.nodes):
                m.finalize()
        root = ep.module_call_graph[0].signature or {}
        self.__dict__["_in_spec"] = root.get("in_spec")
        self.__dict__["_out_spec"] = root.get("out_spec")
        self.__dict__["_arg_names"] = list(root.get("forward_arg_names") or [])

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        flat = StatefulGraphModule._flat_inputs(self, args, kwargs)  # type: ignore[arg-type]
        outputs = self._run(*flat)
        if self._out_spec is None:
            return outputs
        return _treespec.unflatten(list(outputs), self._out_spec)


def unflatten(module: Any, flat_args_adapter: Any = None) -> UnflattenedModule:
    """The module hierarchy of an exported program, each submodule with its own graph,
    parameters and buffers (copies of the program's) under their original names."""
    if flat_args_adapter is not None:
        raise NotImplementedError(
            "unflatten's flat_args_adapter is not supported yet: call the module with "
            "arguments of the structure it was exported with."
        )
    return UnflattenedModule(module)


# ----- buffer and input mutations as copy_ nodes -------------------------------------------


def _inplace_mutations(graph: Graph, signature: Any) -> None:
    """A mutated buffer or input (an extra output of the functional graph) written back
    by ``copy_`` where its new value is made, so the owning submodule writes it."""
    output = next(n for n in graph.nodes if n.op == "output")
    values = list(output.args[0])
    placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
    arg_of = {s.target: s.arg.name for s in signature.input_specs if s.target is not None}
    kept = []
    for spec, value in zip(signature.output_specs, values):
        if spec.kind == OutputKind.BUFFER_MUTATION:
            dest = placeholders[arg_of[spec.target]]
        elif spec.kind == OutputKind.USER_INPUT_MUTATION:
            dest = placeholders[spec.target]
        else:
            kept.append(value)
            continue
        with graph.inserting_after(value):
            write = graph.call_function(ATEN.overload("aten.copy_.default"), (dest, value))
        write.meta.update(value.meta)
        for user in list(value.users):
            if user is not write and user is not output:
                user.replace_input_with(value, write)
    output.args = (tuple(kept),)


# ----- outlining the submodule calls --------------------------------------------------------


def _stack_of(node: Node) -> _Stack:
    if not node.meta.get("nn_module_stack"):
        raise RuntimeError(
            f"Unable to find nn_module_stack for node {node.name}: unflatten needs the "
            "module call each node was made in (export the module again to record it)."
        )
    stack = []
    for key, path, ty in parse(node.meta["nn_module_stack"]):
        n = int(key.rsplit("@", 1)[1]) if "@" in key else 0
        stack.append((path, ty if path else None, n))
    return stack


def _root_type(graph: Graph) -> str | None:
    for node in graph.nodes:
        for _, path, ty in parse(node.meta.get("nn_module_stack")):
            if not path:
                return ty
    return None


def _call_name(fqn: str, n: int) -> str:
    return f"{fqn}@{n}" if n else fqn


def _accessor(parent_fqn: str, child: str) -> str:
    """The child's path inside its parent (``net.2`` in ``net`` -> ``2``)."""
    if not parent_fqn:
        return child
    if not child.startswith(parent_fqn + "."):
        raise RuntimeError(
            f"Child module '{child}' is not a descendant of parent module '{parent_fqn}': "
            "unflatten needs a submodule called from its parent's forward."
        )
    return child[len(parent_fqn) + 1 :]


def _add_submodule(parent: Module, accessor: str, module: Module) -> None:
    *path, field = accessor.split(".")
    for item in path:
        sub = parent._modules.get(item)
        if sub is None:
            sub = InterpreterModule(Graph())
            parent.add_module(item, sub)
        parent = sub
    parent.add_module(field, module)


class _Call:
    """A submodule call: where it sits and the module its graph went into."""

    def __init__(self, fqn: str, parent: _Frame, node: Node, module: Module) -> None:
        self.fqn = fqn
        self.parent = parent
        self.node = node
        self.module = module


class _Frame:
    """The graph being filled for one module call."""

    def __init__(
        self,
        nodes: list[Node],
        seen: set[str],
        calls: dict[str, list[_Call]],
        stack: _Stack,
        parent: _Frame | None = None,
        module: Module | None = None,
    ) -> None:
        self.nodes, self.seen, self.calls, self.stack, self.parent = (
            nodes,
            seen,
            calls,
            stack,
            parent,
        )
        self.fqn, ty, n = stack[-1]
        self.module = module if module is not None else InterpreterModule(Graph(), ty)
        self.graph: Graph = self.module.graph
        self.node_map: dict[Node, Node] = {}
        self.inputs: dict[Node, Node] = {}
        self.call: Node | None = None
        if parent is not None:
            accessor = _accessor(parent.fqn, _call_name(self.fqn, n))
            _add_submodule(parent.module, accessor, self.module)
            self.call = parent.graph.call_module(accessor)
            earlier = calls.setdefault(self.fqn, [])
            if earlier:  # (the calls of one module share its children)
                self.module._modules = earlier[0].module._modules
            earlier.append(_Call(self.fqn, parent, self.call, self.module))

    def remap(self, x: Node) -> Node:
        """``x`` of the flat graph as a value of this graph (a new input if made outside)."""
        if x in self.node_map:
            return self.node_map[x]
        if x not in self.inputs:
            assert self.parent is not None and self.call is not None
            with self.graph.inserting_before(None):
                self.inputs[x] = self.graph.placeholder(x.name)
            self.inputs[x].meta = copy.copy(x.meta)
            self.call.args = (self.parent.remap(x), *self.call.args)
        return self.inputs[x]

    def copy(self, node: Node) -> None:
        self.node_map[node] = self.graph.node_copy(node, self.remap)
        self.seen.add(node.name)

    def run(self, i: int) -> int:
        """Copy nodes from ``i`` on until this call ends; the index where it ended."""
        depth = len(self.stack)
        while i < len(self.nodes):
            node = self.nodes[i]
            if node.op == "output":
                if self.parent is not None:
                    self.finish()
                return i
            stack = _stack_of(node)
            if stack[:depth] != self.stack:
                self.finish()
                return i
            if len(stack) > depth:
                frame = _Frame(self.nodes, self.seen, self.calls, stack[: depth + 1], self)
                i = frame.run(i)
                continue
            if node.op == "get_attr":
                self.module.__dict__.setdefault("_graph_attrs", set()).add(node.target)
            self.copy(node)
            i += 1
        return i

    def finish(self) -> None:
        """This call's outputs: the values it made that a later node reads."""
        assert self.parent is not None and self.call is not None
        made = [n for n in self.node_map if any(u.name not in self.seen for u in n.users)]
        outputs = [self.node_map[n] for n in made]
        self.graph.output(outputs[0] if len(outputs) == 1 else outputs)
        if len(made) == 1:
            self.parent.node_map[made[0]] = self.call
            return
        for i, n in enumerate(made):
            item = self.parent.graph.call_function(operator.getitem, (self.call, i))
            item.meta = copy.copy(n.meta)
            self.parent.node_map[n] = item


def _outline(flat: Graph, root: UnflattenedModule) -> dict[str, list[_Call]]:
    nodes = list(flat.nodes)
    calls: dict[str, list[_Call]] = {}
    frame = _Frame(nodes, set(), calls, [("", None, 0)], module=root)
    i = 0
    while nodes[i].op == "placeholder":
        frame.copy(nodes[i])
        i += 1
    i = frame.run(i)
    frame.copy(nodes[i])
    return calls


def _copy_graph_attrs(gm: Module, calls: dict[str, list[_Call]], root: Module) -> None:
    """The subgraphs of control-flow nodes (``true_graph_0``) onto the module reading them."""
    for m in [root, *(c.module for group in calls.values() for c in group)]:
        for name in m.__dict__.pop("_graph_attrs", ()):
            setattr(m, name, getattr(gm, name))


# ----- parameters, buffers and constants ----------------------------------------------------


def _owner(root: Module, target: str) -> tuple[Module, str]:
    *path, field = target.split(".")
    for item in path:
        sub = root._modules.get(item)
        if sub is None:
            sub = Module()
            root.add_module(item, sub)
        root = sub
    return root, field


def _submodule(root: Module, target: str) -> Module:
    for item in target.split("."):
        root = root._modules[item]
    return root


def _assign_state(root: Module, ep: Any) -> None:
    """Copies of the program's state under their original names (one copy per tensor
    shared by several names)."""
    copies: dict[int, Any] = {}
    sig = ep.graph_signature
    non_persistent = {s.target for s in sig.input_specs if s.persistent is False}
    for s in sig.input_specs:
        if s.kind not in (InputKind.PARAMETER, InputKind.BUFFER):
            continue
        value = ep.state_dict.get(s.target, ep.constants.get(s.target))
        owner, field = _owner(root, s.target)
        if s.kind == InputKind.PARAMETER:
            new = copies.setdefault(
                id(value), Parameter(value.detach().clone(), requires_grad=value.requires_grad)
            )
            owner.register_parameter(field, new)
        else:
            new = copies.setdefault(id(value), value.detach().clone())
            owner.register_buffer(field, new, persistent=s.target not in non_persistent)
    for name, value in ep.state_dict.items():  # (unused or aliased state)
        owner, field = _owner(root, name)
        if field in owner._parameters or field in owner._buffers:
            continue
        if isinstance(value, Parameter):
            owner.register_parameter(field, copies.get(id(value), value))
        else:
            owner.register_buffer(field, copies.get(id(value), value))
    for name, value in ep.constants.items():
        owner, field = _owner(root, name)
        if field in owner._buffers:
            continue
        new = copies.setdefault(id(value), value.detach().clone())
        object.__setattr__(owner, field, new)


def _inputs_to_state(ep: Any) -> dict[str, list[str]]:
    """Placeholder name -> the state names it may stand for (several when aliased)."""
    by_id: dict[int, list[tuple[str, str]]] = {}
    for s in ep.graph_signature.input_specs:
        if s.kind == InputKind.USER_INPUT or s.target is None:
            continue
        value = ep.state_dict.get(s.target, ep.constants.get(s.target))
        by_id.setdefault(id(value), []).append((s.arg.name, s.target))
    for name, value in ep.state_dict.items():
        entries = by_id.get(id(value))
        if entries and all(t != name for _, t in entries):
            entries.append((entries[0][0], name))
    result: dict[str, list[str]] = {}
    for entries in by_id.values():
        for placeholder, _ in entries:
            result[placeholder] = [t for _, t in entries]
    return result


def _sink_state(
    module: Module, to_state: dict[str, list[str]], scope: list[str], done: dict | None = None
) -> set[str]:
    """Turn the state placeholders of each graph into ``get_attr`` reads of the module's
    own attributes; the names of the placeholders removed."""
    done = {} if done is None else done
    if id(module) in done:  # (a module reached again through a repeated call)
        return done[id(module)]
    for name, sub in module._modules.items():
        _sink_state(sub, to_state, [*scope, name], done)
    graph = module.__dict__.get("graph")
    if not isinstance(graph, Graph) or not len(graph.nodes):
        done[id(module)] = set()
        return set()
    for node in graph.nodes:
        if node.op == "call_module":
            gone = done.get(id(_submodule(module, node.target)), set())
            node.args = tuple(a for a in node.args if not (isinstance(a, Node) and a.name in gone))
    here = [s.split("@")[0] for s in scope]
    sink: dict[Node, list[str]] = {}
    for node in [n for n in graph.nodes if n.op == "placeholder"]:
        for target in to_state.get(node.name, []):
            path = target.split(".")
            if path[: len(here)] == here:
                sink[node] = path[len(here) :]
                break
    kept = [n for n in graph.nodes if n.op == "placeholder" and n not in sink]
    for node, path in sink.items():
        if node.users:
            anchor = graph.inserting_after(kept[-1]) if kept else graph.inserting_before(None)
            with anchor:
                attr = graph.get_attr(".".join(path))
            attr.meta = copy.copy(node.meta)
            node.replace_all_uses_with(attr)
        graph.erase_node(node)
    done[id(module)] = {n.name for n in sink}
    return done[id(module)]


# ----- repeated calls and order -------------------------------------------------------------


def _dump(graph: Graph) -> list[str]:
    index: dict[Node, int] = {}
    lines = []
    for i, node in enumerate(graph.nodes):

        def arg(a: Any) -> str:
            return f"%{index[a]}" if isinstance(a, Node) else str(a)

        args = [arg(a) for a in node.args] + [f"{k}={arg(v)}" for k, v in node.kwargs.items()]
        target = node.target if node.op in ("call_function", "get_attr") else ""
        lines.append(f"{node.op}[{target}]({', '.join(args)})")
        index[node] = i
    return lines


def _deduplicate(calls: dict[str, list[_Call]]) -> None:
    """A repeated call whose graph is the same as an earlier call's runs that module."""
    for group in calls.values():
        for i, call in enumerate(group):
            for first in group[:i]:
                if first.module is not call.module and _dump(first.module.graph) == _dump(
                    call.module.graph
                ):
                    parent = call.parent.module
                    *path, field = call.node.target.split(".")
                    for item in path:
                        parent = parent._modules[item]
                    del parent._modules[field]
                    call.node.target = first.node.target
                    call.module = first.module
                    break


def _reorder(root: Module, order: list[str]) -> None:
    """Submodules in the order of the program's module calls (never-called ones as empty
    Modules), as PyTorch lists them."""
    rank = {fqn: i for i, fqn in enumerate(order)}
    for fqn in order[1:]:
        owner, field = _owner(root, fqn)
        if field not in owner._modules:
            owner.add_module(field, Module())

    def visit(module: Module, prefix: str) -> None:
        children = list(module._modules.items())
        for name, child in children:
            visit(child, f"{prefix}{name.split('@')[0]}.")
        children.sort(
            key=lambda c: rank.get(prefix + c[0], rank.get(prefix + c[0].split("@")[0], len(rank)))
        )
        module._modules.clear()
        module._modules.update(children)

    visit(root, "")
