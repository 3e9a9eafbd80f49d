"""The ONNX graph being written while a model runs: its values, nodes and initializers.

Every tensor the traced model makes from its inputs or parameters is a *value* of the graph,
named once (``relu``, ``relu_1``, ...); a tensor the graph has not seen (one made by a factory,
or held by the model outside its state_dict) enters as a ``Constant`` node of what it holds
at that moment. Parameters and buffers enter as initializers named by their state_dict names,
the first time an op reads them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import onnx
from onnx import helper, numpy_helper

from .._tensor import Tensor
from ..overrides import DisableTorchFunction

INT64_MAX = np.iinfo(np.int64).max


def array_of(t: Tensor) -> np.ndarray:
    """The tensor's values as a NumPy array (detached, on the CPU; not recorded)."""
    with DisableTorchFunction():
        return np.asarray(t.detach().cpu().numpy())


def onnx_type(dtype: np.dtype) -> int:
    """The ONNX element type of a NumPy dtype."""
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class Graph:
    """Nodes, initializers and inputs of one ONNX graph, with the name of each traced tensor."""

    def __init__(self, opset: int) -> None:
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: dict[str, np.ndarray] = {}
        self.inputs: list[str] = []
        self.meta: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}  # name -> (dtype, shape)
        self.params: dict[int, tuple[str, Tensor]] = {}  # id -> (state_dict name, tensor)
        self._values: dict[int, str] = {}  # id(tensor) -> value name
        self._keep: list[Any] = []  # what the ids refer to, alive until the export ends
        self._counts: dict[str, int] = {}
        self._used: set[str] = set()
        # ids of the tensors that existed before the trace, and of those calls returned since:
        # a tensor in neither was computed by code the trace did not see
        self.preexisting: set[int] = set()
        self.seen: set[int] = set()
        self.current = ""  # the op being translated (for the errors)
        self.dynamic = False  # sizes read from values are symbolic (_symint)

    # ----- names ---------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        """A value name not used yet: ``base``, else ``base_1``, ``base_2``, ..."""
        n = self._counts.get(base, 0)
        while True:
            name = base if n == 0 else f"{base}_{n}"
            n += 1
            if name not in self._used:
                self._counts[base] = n
                self._used.add(name)
                return name

    def see(self, tensors: list[Tensor]) -> None:
        """Note tensors a call returned outside the graph (constants of the trace)."""
        for t in tensors:
            self.seen.add(id(t))
            self._keep.append(t)

    def known(self, t: Tensor) -> bool:
        """Whether ``t`` is a value, a constant from before the trace, or one a call made."""
        key = id(t)
        return (
            key in self._values or key in self.params or key in self.preexisting or key in self.seen
        )

    def tracked(self, t: Any) -> bool:
        """Whether ``t`` is a value of the graph (an input, a parameter, or made from them)."""
        return isinstance(t, Tensor) and (id(t) in self._values or id(t) in self.params)

    def bind(self, t: Tensor, name: str) -> None:
        """Name ``t`` as the value ``name`` (a later write to ``t`` in place rebinds it)."""
        self._values[id(t)] = name
        self._keep.append(t)
        a = array_of(t)
        self.meta[name] = (a.dtype, a.shape)

    def add_input(self, t: Tensor, name: str) -> None:
        self._used.add(name)
        self.inputs.append(name)
        self.bind(t, name)

    # ----- values --------------------------------------------------------------------------

    def value(self, x: Any) -> str:
        """The name of the tensor ``x`` in the graph (an initializer or a constant the first
        time a parameter or an untraced tensor is read)."""
        key = id(x)
        name = self._values.get(key)
        if name is not None:
            return name
        if key in self.params:
            pname, t = self.params[key]
            a = array_of(t)
            self.initializers[pname] = a
            self._used.add(pname)
            self.meta[pname] = (a.dtype, a.shape)
            self._values[key] = pname
            self._keep.append(t)
            return pname
        if isinstance(x, Tensor):
            if key not in self.preexisting and key not in self.seen:
                from .errors import OnnxExporterError

                what = "an output" if self.current == "output" else f"an input of '{self.current}'"
                raise OnnxExporterError(
                    f"{what} was computed during the export by a call "
                    "the trace does not see (a function captured before the export began, "
                    "or a module computed below chainrule's public functions, like LSTM): "
                    "the exported model would hold its value as a constant"
                )
            name = self.const(array_of(x))
            self._values[key] = name
            self._keep.append(x)
            return name
        raise TypeError(f"expected a tensor, got {type(x).__name__}")

    def dtype(self, name: str) -> np.dtype:
        return self.meta[name][0]

    def shape(self, name: str) -> tuple[int, ...]:
        return self.meta[name][1]

    def const(self, a: Any, dtype: Any = None) -> str:
        """A ``Constant`` node holding ``a``."""
        arr = np.asarray(a, dtype=dtype)
        name = self.fresh("val")
        tensor = numpy_helper.from_array(arr, name)
        self.nodes.append(
            helper.make_node("Constant", [], [name], name=f"node_Constant_{name}", value=tensor)
        )
        self.meta[name] = (arr.dtype, arr.shape)
        return name

    def ints(self, values: Any) -> str:
        """A constant 1-D int64 tensor (shapes, axes, starts, ...)."""
        return self.const(np.asarray(list(values), dtype=np.int64).reshape(-1))

    def as_type(self, x: Any, dtype: Any) -> str:
        """``x`` (a traced tensor, an untraced tensor or a Python number) as a value of
        ``dtype``: numbers and constants converted here, traced values by a ``Cast``."""
        dtype = np.dtype(dtype)
        if isinstance(x, Tensor):
            if not self.tracked(x):
                return self.const(array_of(x).astype(dtype))
            name = self.value(x)
        elif isinstance(x, str):
            name = x
        else:
            return self.const(np.asarray(x, dtype=dtype))
        if self.dtype(name) == dtype:
            return name
        return self.op("Cast", name, to=onnx_type(dtype), dtype=dtype)

    # ----- nodes ---------------------------------------------------------------------------

    def node(
        self,
        op_type: str,
        inputs: list[str],
        n_out: int = 1,
        hint: str | None = None,
        dtype: Any = None,
        shape: Any = None,
        **attrs: Any,
    ) -> list[str]:
        """Append an ``op_type`` node; its output names (``dtype``/``shape``: what is known
        of the first output, for the ops that follow)."""
        base = hint or op_type.lower()
        outs = [self.fresh(base) for _ in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(
            helper.make_node(op_type, list(inputs), outs, name=f"node_{outs[0]}", **attrs)
        )
        if dtype is None and inputs and inputs[0] in self.meta:
            dtype = self.dtype(inputs[0])
        if dtype is not None:
            self.meta[outs[0]] = (np.dtype(dtype), tuple(shape) if shape is not None else ())
        return outs

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        """Append a node with one output; its name."""
        return self.node(op_type, list(inputs), **attrs)[0]
