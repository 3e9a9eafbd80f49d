"""``torch.export.graph_signature``: what each input and output of an exported graph is
(a user input, a parameter, a buffer, a buffer's new value, ...)."""

from __future__ import annotations

import dataclasses
from enum import Enum, auto
from typing import Any


@dataclasses.dataclass
class TensorArgument:
    """A tensor value of the graph, by its node's name."""

    name: str


@dataclasses.dataclass
class SymIntArgument:
    """A symbolic integer of the graph, by its node's name."""

    name: str


@dataclasses.dataclass
class TokenArgument:
    """An effect token of the graph, by its node's name."""

    name: str


@dataclasses.dataclass
class CustomObjArgument:
    """A script object of the graph, by its node's name and class."""

    name: str
    class_fqn: str


@dataclasses.dataclass
class ConstantArgument:
    """A non-tensor input or output baked into the graph (a number, a string, None)."""

    name: str
    value: int | float | bool | str | None


ArgumentSpec = (
    TensorArgument | SymIntArgument | ConstantArgument | CustomObjArgument | TokenArgument
)


class InputKind(Enum):
    """What a graph input is."""

    USER_INPUT = auto()
    PARAMETER = auto()
    BUFFER = auto()
    CONSTANT_TENSOR = auto()
    CUSTOM_OBJ = auto()
    TOKEN = auto()


class OutputKind(Enum):
    """What a graph output is."""

    USER_OUTPUT = auto()
    LOSS_OUTPUT = auto()
    BUFFER_MUTATION = auto()
    PARAMETER_MUTATION = auto()
    GRADIENT_TO_PARAMETER = auto()
    GRADIENT_TO_USER_INPUT = auto()
    USER_INPUT_MUTATION = auto()
    TOKEN = auto()


@dataclasses.dataclass
class InputSpec:
    """One graph input: its kind, its placeholder, the state it stands for (``target``)
    and, for a buffer, whether it is in the state dict."""

    kind: InputKind
    arg: Any
    target: str | None
    persistent: bool | None = None

    def __str__(self) -> str:
        target = "" if self.target is None else f" target='{self.target}'"
        persistent = "" if self.persistent is None else f" persistent={self.persistent}"
        return f"{self.arg.name}: {self.kind.name}{target}{persistent}"


@dataclasses.dataclass
class OutputSpec:
    """One graph output: its kind, its value and the state it updates (``target``)."""

    kind: OutputKind
    arg: Any
    target: str | None

    def __str__(self) -> str:
        target = "" if self.target is None else f" target='{self.target}'"
        return f"{self.arg.name}: {self.kind.name}{target}"


@dataclasses.dataclass
class ExportGraphSignature:
    """The specs of every input and output of an exported graph, in graph order."""

    input_specs: list[InputSpec]
    output_specs: list[OutputSpec]

    def _inputs(self, kind: InputKind) -> list[InputSpec]:
        return [s for s in self.input_specs if s.kind == kind]

    @property
    def parameters(self) -> list[str]:
        """The parameters' names, in graph order."""
        return [s.target for s in self._inputs(InputKind.PARAMETER)]

    @property
    def buffers(self) -> list[str]:
        """The buffers' names, in graph order."""
        return [s.target for s in self._inputs(InputKind.BUFFER)]

    @property
    def non_persistent_buffers(self) -> list[str]:
        """The buffers left out of the state dict."""
        return [s.target for s in self._inputs(InputKind.BUFFER) if s.persistent is False]

    @property
    def lifted_tensor_constants(self) -> list[str]:
        """The tensor constants' names."""
        return [s.target for s in self._inputs(InputKind.CONSTANT_TENSOR)]

    @property
    def user_inputs(self) -> list[Any]:
        """The user inputs' placeholder names (constants: their values)."""
        return [
            s.arg.value if isinstance(s.arg, ConstantArgument) else s.arg.name
            for s in self._inputs(InputKind.USER_INPUT)
        ]

    @property
    def user_outputs(self) -> list[Any]:
        """The user outputs' node names (constants: their values)."""
        return [
            s.arg.value if isinstance(s.arg, ConstantArgument) else s.arg.name
            for s in self.output_specs
            if s.kind == OutputKind.USER_OUTPUT
        ]

    @property
    def inputs_to_parameters(self) -> dict[str, str]:
        """Placeholder name -> parameter name."""
        return {s.arg.name: s.target for s in self._inputs(InputKind.PARAMETER)}

    @property
    def inputs_to_buffers(self) -> dict[str, str]:
        """Placeholder name -> buffer name."""
        return {s.arg.name: s.target for s in self._inputs(InputKind.BUFFER)}

    @property
    def inputs_to_lifted_tensor_constants(self) -> dict[str, str]:
        """Placeholder name -> tensor constant name."""
        return {s.arg.name: s.target for s in self._inputs(InputKind.CONSTANT_TENSOR)}

    @property
    def buffers_to_mutate(self) -> dict[str, str]:
        """Output name -> the buffer it is the new value of."""
        return {
            s.arg.name: s.target for s in self.output_specs if s.kind == OutputKind.BUFFER_MUTATION
        }

    @property
    def user_inputs_to_mutate(self) -> dict[str, str]:
        """Output name -> the user input it is the new value of."""
        return {
            s.arg.name: s.target
            for s in self.output_specs
            if s.kind == OutputKind.USER_INPUT_MUTATION
        }

    def __str__(self) -> str:
        inputs = "\n".join(str(s) for s in self.input_specs)
        outputs = "\n".join(str(s) for s in self.output_specs)
        return f"\n# inputs\n{inputs}\n\n# outputs\n{outputs}\n"
