"""``torch.export.ExportedProgram``: a graph of ATen overloads with its signature, its
state (parameters, buffers, constants), example inputs and range constraints."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..fx import Graph
from . import _module, _printing, _treespec
from .graph_signature import ExportGraphSignature, InputKind

_CALL_ERROR = (
    "Unable to call ExportedProgram directly. You should use `exported_program.module()` instead."
)


class _Symbol(str):
    """A symbolic size's name, printed bare as PyTorch prints a sympy symbol."""

    def __repr__(self) -> str:
        return str(self)


class ValueRanges:
    """The range ``[lower, upper]`` a symbolic size may take (``int_oo``: unbounded)."""

    def __init__(self, lower: Any, upper: Any) -> None:
        self.lower = lower
        self.upper = upper

    def __repr__(self) -> str:
        return f"VR[{self.lower}, {self.upper}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ValueRanges) and (self.lower, self.upper) == (
            other.lower,
            other.upper,
        )


class ModuleCallEntry:
    """One module call the program kept a record of: its qualified name and signature."""

    def __init__(self, fqn: str, signature: Any) -> None:
        self.fqn = fqn
        self.signature = signature

    def __repr__(self) -> str:
        return f"ModuleCallEntry(fqn='{self.fqn}', signature={self.signature})"


class ExportedProgram:
    """A program as ``torch.export`` makes it: ``graph_module`` takes the state as its
    first inputs; ``module()`` is the runnable module holding that state."""

    def __init__(
        self,
        graph: Graph,
        graph_signature: ExportGraphSignature,
        state_dict: dict[str, Any],
        range_constraints: dict[str, Any] | None = None,
        module_call_graph: list[ModuleCallEntry] | None = None,
        example_inputs: Any = None,
        constants: dict[str, Any] | None = None,
        verifiers: list[str] | None = None,
    ) -> None:
        self._graph_module = _module.graph_module(graph)
        self._graph_signature = graph_signature
        self._state_dict = state_dict
        self._range_constraints = range_constraints or {}
        self._module_call_graph = module_call_graph or []
        self._example_inputs = example_inputs
        self._constants = constants or {}
        self._verifiers = verifiers or []
        self.validate()  # (as PyTorch's constructor: a broken program is refused at once)

    @property
    def graph_module(self) -> Any:
        """The GraphModule of the graph, state as inputs."""
        return self._graph_module

    @property
    def graph(self) -> Graph:
        """The graph of ATen overload calls."""
        return self._graph_module.graph

    @property
    def graph_signature(self) -> ExportGraphSignature:
        """What each input and output of the graph is."""
        return self._graph_signature

    @property
    def state_dict(self) -> dict[str, Any]:
        """The parameters and persistent buffers by qualified name."""
        return self._state_dict

    @property
    def constants(self) -> dict[str, Any]:
        """The tensor constants and non-persistent buffers by qualified name."""
        return self._constants

    @property
    def range_constraints(self) -> dict[str, Any]:
        """Symbolic size -> the range of values it may take."""
        return self._range_constraints

    @property
    def module_call_graph(self) -> list[ModuleCallEntry]:
        """The module calls recorded at export, the root's signature first."""
        return self._module_call_graph

    @property
    def example_inputs(self) -> Any:
        """``(args, kwargs)`` the program was exported with."""
        return self._example_inputs

    @property
    def verifiers(self) -> list[str]:
        """The dialects the program was checked against (``TRAINING``, ...)."""
        return self._verifiers

    @property
    def dialect(self) -> str:
        """The dialect of the graph's operators."""
        return self._verifiers[0] if self._verifiers else "TRAINING"

    @property
    def call_spec(self) -> Any:
        """The input and output pytree specs of the root call."""
        from types import SimpleNamespace

        in_spec, out_spec = self._specs()
        return SimpleNamespace(in_spec=in_spec, out_spec=out_spec)

    def _specs(self) -> tuple[Any, Any]:
        root = self._module_call_graph[0].signature if self._module_call_graph else None
        if root is None:
            return None, None
        return root.get("in_spec"), root.get("out_spec")

    def _state(self, kind: InputKind) -> Iterator[tuple[str, Any]]:
        for spec in self._graph_signature.input_specs:
            if spec.kind != kind:
                continue
            if spec.target in self._state_dict:
                yield spec.target, self._state_dict[spec.target]
            elif spec.target in self._constants:
                yield spec.target, self._constants[spec.target]

    def named_parameters(self) -> Iterator[tuple[str, Any]]:
        """(name, parameter) pairs, in graph order."""
        yield from self._state(InputKind.PARAMETER)

    def parameters(self) -> Iterator[Any]:
        """The parameters, in graph order."""
        for _, p in self.named_parameters():
            yield p

    def named_buffers(self) -> Iterator[tuple[str, Any]]:
        """(name, buffer) pairs, non-persistent buffers included, in graph order."""
        yield from self._state(InputKind.BUFFER)

    def buffers(self) -> Iterator[Any]:
        """The buffers, in graph order."""
        for _, b in self.named_buffers():
            yield b

    def run_decompositions(self, decomp_table: dict | None = None) -> ExportedProgram:
        """The program with its calls written as core ATen (``linear`` -> ``permute`` +
        ``addmm``, ...), as PyTorch's ``run_decompositions`` writes them."""
        from ._decompose import run_decompositions

        return run_decompositions(self, decomp_table)

    def module(self, check_guards: bool = True) -> Any:
        """A runnable module with the program's parameters and buffers as attributes:
        called as the exported module's forward, it returns outputs of the same form."""
        in_spec, out_spec = self._specs()
        root = self._module_call_graph[0].signature if self._module_call_graph else None
        names = (root or {}).get("forward_arg_names") or []
        return _module.unlift(
            self.graph,
            self._graph_signature,
            self._state_dict,
            self._constants,
            in_spec,
            out_spec,
            names,
        )

    def validate(self) -> None:
        """Checks the graphs and the signature against each other as PyTorch's verifier
        does (``_verifier``), raising ``SpecViolationError`` where they disagree."""
        from ._verifier import validate

        validate(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(_CALL_ERROR)

    def __str__(self) -> str:
        return _printing.program_text(
            self._graph_module, self._graph_signature, self._range_constraints
        )

    def __repr__(self) -> str:
        return self.__str__()


def root_signature(record: dict | None) -> dict | None:
    """A serialized ``ModuleCallSignature`` with its specs parsed."""
    if record is None:
        return None
    return {
        "inputs": record.get("inputs", []),
        "outputs": record.get("outputs", []),
        "in_spec": _treespec.parse(record["in_spec"]),
        "out_spec": _treespec.parse(record["out_spec"]),
        "forward_arg_names": record.get("forward_arg_names"),
    }
