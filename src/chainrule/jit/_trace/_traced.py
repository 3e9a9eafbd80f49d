"""What ``torch.jit.trace`` gives: a ``TracedModule`` (``TopLevelTracedModule`` at the
root) that keeps the traced module's hierarchy, sharing its parameters and buffers, and a
``ScriptFunction`` for a traced function. Calling either replays the recorded ATen graph on
the new inputs (``chainrule.export``'s overloads, so autograd runs through them)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ... import nn
from ..._missing import NotImplementedInChainrule
from ...fx import Node
from .. import ScriptFunction, ScriptModule
from ._code import ForwardSource, graph_text
from ._record import flat_tensors
from ._sizes import SizeExpr


def _resolve(owner: nn.Module | None, path: str) -> Any:
    value: Any = owner
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _rebuild(spec: Any, leaves: list[Any]) -> Any:
    if spec.type is None:
        return leaves.pop(0)
    items = [_rebuild(c, leaves) for c in spec.children]
    if spec.type == "builtins.tuple":
        return tuple(items)
    if spec.type == "builtins.list":
        return items
    return dict(zip(spec.context, items))


def replay(program: Any, owner: nn.Module | None, inputs: tuple, kwargs: dict, where: str) -> Any:
    """The recorded graph run on ``inputs`` (and ``kwargs``, by the traced arguments'
    names): parameters and buffers read from ``owner`` (its current ones), lifted tensors
    from the program, each call its ATen overload."""
    from ...export.graph_signature import InputKind

    specs = {s.arg.name: s for s in program.graph_signature.input_specs}
    users = [s for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    if kwargs:
        names = [s.arg.name for s in users]
        unknown = [k for k in kwargs if k not in names[len(inputs) :]]
        if unknown:
            raise RuntimeError(f"{where}() got an unexpected keyword argument '{unknown[0]}'")
        rest = [kwargs[n] for n in names[len(inputs) :] if n in kwargs]
        if len(rest) != len(kwargs) or len(inputs) + len(rest) != len(names):
            raise RuntimeError(f"{where}() is missing value for an argument")
        inputs = (*inputs, *rest)
    inputs = tuple(flat_tensors(inputs, "input"))
    if len(inputs) != len(users):
        raise RuntimeError(
            f"{where}() expected at most {len(users)} argument(s) but received "
            f"{len(inputs)} argument(s)"
        )
    env: dict[Node, Any] = {}
    fed = iter(inputs)
    shape = tuple(inputs[0].shape) if inputs else ()

    def arg(v: Any) -> Any:
        if isinstance(v, Node):
            return env[v]
        if isinstance(v, SizeExpr):
            return v.value(shape)
        if isinstance(v, (list, tuple)):
            return type(v)(arg(x) for x in v)
        return v

    for node in program.graph.nodes:
        if node.op == "placeholder":
            spec = specs[node.target]
            if spec.kind == InputKind.USER_INPUT:
                env[node] = next(fed)
            elif spec.kind == InputKind.CONSTANT_TENSOR:
                env[node] = program.constants[spec.target]
            else:
                env[node] = _resolve(owner, spec.target)
        elif node.op == "call_function":
            target = node.target
            if target is operator.getitem:
                env[node] = env[node.args[0]][node.args[1]]
            else:
                env[node] = target(*arg(node.args), **{k: arg(v) for k, v in node.kwargs.items()})
        elif node.op == "output":
            leaves = [env[n] for n in node.args[0]]
    return _rebuild(program.call_spec.out_spec, leaves)


class TracedModule(ScriptModule):
    """A module recorded by ``torch.jit.trace``: the traced module's parameters and
    buffers (the same tensors), its submodules as TracedModules, and a ``forward`` that
    replays the recorded graph. A submodule the trace never called has no forward."""

    def __init__(
        self,
        original: nn.Module,
        programs: dict[int, Any],
        path: str = "",
        pending: dict[int, Callable[[], Any]] | None = None,
    ) -> None:
        nn.Module.__init__(self)  # (ScriptModule's own __init__ refuses to compile)
        for name, p in original._parameters.items():
            self.register_parameter(name, p)
        for name, b in original._buffers.items():  # (TorchScript keeps every buffer)
            self.register_buffer(name, b)
        for name, child in original._modules.items():
            if child is not None:
                sub = f"{path}.{name}" if path else name
                self.add_module(name, TracedModule(child, programs, sub, pending))
        self.training = original.training
        object.__setattr__(self, "_original_class", type(original))
        object.__setattr__(self, "_program", programs.get(id(original)))
        object.__setattr__(self, "_pending", (pending or {}).get(id(original)))
        object.__setattr__(self, "_failure", "")
        object.__setattr__(self, "_path", path)

    @property
    def original_name(self) -> str:
        """The name of the traced module's class."""
        return self._original_class.__name__

    def traced_program(self) -> Any:
        """The recorded program of ``forward`` (None if there is none). A submodule's is
        recorded when first needed, from the inputs it was called with while tracing."""
        if self._program is None and self._pending is not None:
            pending = self._pending
            object.__setattr__(self, "_pending", None)
            try:
                object.__setattr__(self, "_program", pending())
            except (NotImplementedError, RuntimeError) as exc:
                object.__setattr__(self, "_failure", f": {exc}")
        return self._program

    def _source(self) -> ForwardSource:
        program = self.traced_program()
        if program is None:
            why = self._failure or " (it was not called with tensor inputs while tracing)"
            raise NotImplementedInChainrule(
                f"torch.jit: the submodule {self._path or '<root>'} ({self.original_name}) "
                f"has no traced forward{why}"
            )
        return ForwardSource(program, constant_indices(program))

    @property
    def code(self) -> str:
        """The TorchScript source of the traced ``forward``."""
        return self._source().method(None)

    @property
    def graph(self) -> str:
        """The recorded graph, in the form of TorchScript's IR."""
        from ._save import qualified_name

        self._source()
        return graph_text(self.traced_program(), qualified_name(self._original_class))

    @property
    def inlined_graph(self) -> str:
        """The graph with every call inlined (the recorded graph already is)."""
        return self.graph

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The recorded graph run on the inputs."""
        self._source()
        return replay(self.traced_program(), self, args, kwargs, "forward")

    def save(self, f: Any, _extra_files: Any = None) -> None:
        """Write the module as a TorchScript archive that PyTorch's ``torch.jit.load``
        reads (``torch.jit.save(self, f)``)."""
        from ._save import save_module

        save_module(self, f, _extra_files)

    def _get_name(self) -> str:
        return self.original_name

    def extra_repr(self) -> str:
        return f"original_name={self.original_name}"


class TopLevelTracedModule(TracedModule):
    """The root of a traced module tree (what ``torch.jit.trace(module, ...)`` returns)."""


def constant_indices(program: Any) -> dict[str, int]:
    """Each lifted tensor's place in the archive's CONSTANTS."""
    from ...export.graph_signature import InputKind

    specs = program.graph_signature.input_specs
    lifted = [s.target for s in specs if s.kind == InputKind.CONSTANT_TENSOR]
    return {name: i for i, name in enumerate(lifted)}


class TracedFunction(ScriptFunction):
    """A function recorded by ``torch.jit.trace`` (PyTorch's ``ScriptFunction``): calling
    it replays the recorded graph."""

    def __init__(self, fn: Any, program: Any) -> None:  # (no call to the refusing base)
        name = getattr(fn, "__name__", "fn").replace("<lambda>", "_lambda")
        self.name = name if name.isidentifier() else "fn"
        self.qualified_name = f"__torch__.{self.name}"
        self._program = program

    @property
    def code(self) -> str:
        """The TorchScript source of the traced function."""
        return ForwardSource(self._program, constant_indices(self._program)).function(self.name)

    @property
    def graph(self) -> str:
        """The recorded graph, in the form of TorchScript's IR."""
        return graph_text(self._program, None)

    @property
    def inlined_graph(self) -> str:
        """The graph with every call inlined (the recorded graph already is)."""
        return self.graph

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return replay(self._program, None, args, kwargs, self.name)

    def save(self, f: Any, _extra_files: Any = None) -> None:
        """Write the function as a TorchScript archive: a module whose forward is the
        function (as PyTorch saves one)."""
        from ._save import save_function

        save_function(self, f, _extra_files)

    def __repr__(self) -> str:
        return f"<torch.jit.ScriptFunction object {self.name}>"
