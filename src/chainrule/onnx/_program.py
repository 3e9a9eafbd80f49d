"""``torch.onnx.ONNXProgram``: an exported model (its ``ModelProto``), saved to a file or run
by ONNX Runtime."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_TWO_GB = 2**31


def _to_numpy(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


class ONNXProgram:
    """An ONNX model exported from a chainrule model: ``model_proto``, ``save(path)``, and
    calling it runs the model in ONNX Runtime on chainrule tensors."""

    def __init__(self, model: Any, exported_program: Any = None) -> None:
        self._model = model
        self.exported_program = exported_program
        self._inference_session: Any = None

    def __repr__(self) -> str:
        import onnx

        return f"ONNXProgram(\n    model=\n{onnx.printer.to_text(self._model)}\n)"

    @property
    def model(self) -> Any:
        """The ONNX model (an ``onnx.ModelProto``; PyTorch's is an ``onnx_ir.Model``)."""
        return self._model

    @property
    def model_proto(self) -> Any:
        """The ONNX model as an ``onnx.ModelProto``."""
        return self._model

    def optimize(self) -> None:
        """Optimize the model in place: the exported graph is written without redundant nodes
        already, so nothing is done."""

    def _proto_for(self, include_initializers: bool, keep_initializers_as_inputs: bool) -> Any:
        from onnx import helper

        proto = copy.deepcopy(self._model)
        graph = proto.graph
        listed = {i.name for i in graph.input}
        if keep_initializers_as_inputs or not include_initializers:
            for init in graph.initializer:
                if init.name not in listed:
                    graph.input.append(
                        helper.make_tensor_value_info(init.name, init.data_type, list(init.dims))
                    )
        if not include_initializers:
            del graph.initializer[:]
        return proto

    def save(
        self,
        destination: str | os.PathLike,
        *,
        include_initializers: bool = True,
        keep_initializers_as_inputs: bool = False,
        external_data: bool | None = None,
    ) -> None:
        """Write the model to ``destination``; with ``external_data`` (by default: when the
        model is over 2 GB) its weights go to ``<destination>.data`` beside it."""
        import onnx

        proto = self._proto_for(include_initializers, keep_initializers_as_inputs)
        if hasattr(destination, "write"):  # a file object: one stream, no external data
            destination.write(proto.SerializeToString())
            return
        if external_data is None:
            external_data = proto.ByteSize() > _TWO_GB
        destination = os.fspath(destination)
        if external_data:
            location = os.path.basename(destination) + ".data"
            data_path = os.path.join(os.path.dirname(destination), location)
            if os.path.exists(data_path):
                os.remove(data_path)
            onnx.save_model(
                proto,
                destination,
                save_as_external_data=True,
                all_tensors_to_one_file=True,
                location=location,
                size_threshold=0,
            )
        else:
            onnx.save_model(proto, destination)

    def initialize_inference_session(self, initializer: Callable | None = None) -> None:
        """Start the ONNX Runtime session ``__call__`` runs (``initializer(model_bytes)``
        makes it; by default a CPU ``InferenceSession``)."""
        if initializer is None:
            import onnxruntime

            def initializer(model: bytes) -> Any:
                return onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])

        self._inference_session = initializer(self._model.SerializeToString())

    def release(self) -> None:
        """Drop the ONNX Runtime session."""
        self._inference_session = None

    def _feeds(self, session: Any, args: tuple, kwargs: dict) -> dict[str, np.ndarray]:
        from ._trace import tensors_in

        values = tensors_in((args, kwargs or {}))
        names = [i.name for i in session.get_inputs()]
        return {n: _to_numpy(v) for n, v in zip(names, values)}

    def __call__(self, *args: Any, **kwargs: Any) -> Sequence[Any]:
        """Run the model in ONNX Runtime on the tensors of ``args``/``kwargs`` (in the order
        of the graph's inputs); its outputs as chainrule tensors."""
        import chainrule

        if self._inference_session is None:
            self.initialize_inference_session()
        session = self._inference_session
        outputs = session.run(None, self._feeds(session, args, kwargs))
        return [chainrule.from_numpy(np.asarray(o)) for o in outputs]

    def compute_values(
        self, value_names: Sequence[str], args: tuple = (), kwargs: dict | None = None
    ) -> Sequence[Any]:
        """The values named ``value_names`` (outputs or intermediate values) for these
        inputs."""
        import onnxruntime

        import chainrule
        from onnx import helper

        proto = copy.deepcopy(self._model)
        listed = {o.name for o in proto.graph.output}
        for name in value_names:
            if name not in listed:
                proto.graph.output.append(helper.make_empty_tensor_value_info(name))
        session = onnxruntime.InferenceSession(
            proto.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        outputs = session.run(list(value_names), self._feeds(session, args, kwargs or {}))
        return [chainrule.from_numpy(np.asarray(o)) for o in outputs]

    def apply_weights(self, state_dict: dict[str, Any]) -> None:
        """Replace the initializers named in ``state_dict`` by its tensors."""
        from onnx import numpy_helper

        for init in self._model.graph.initializer:
            if init.name in state_dict:
                init.CopyFrom(numpy_helper.from_array(_to_numpy(state_dict[init.name]), init.name))
        self.release()
