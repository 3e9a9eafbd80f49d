"""``torch.onnx.export``: trace the model (``_trace``), then assemble the ONNX model: its
inputs (named, with their dynamic axes), outputs, initializers and opset."""

from __future__ import annotations

import contextlib
import enum
import os
import warnings
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .._tensor import Tensor
from .errors import OnnxExporterError

_exporting = [False]  # True while a model's forward is traced


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running (True inside the traced forward)."""
    return _exporting[0]


DEFAULT_OPSET = 20  # PyTorch 2.13's
_MIN_OPSET = 18  # the translations write ReduceMean/Split/Resize as opset 18 has them


class OperatorExportTypes(enum.IntEnum):
    """``torch.onnx.OperatorExportTypes`` (deprecated in PyTorch: only ONNX is exported)."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class TrainingMode(enum.IntEnum):
    """``torch.onnx.TrainingMode``: the mode the model is exported in."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


@contextlib.contextmanager
def select_model_mode_for_export(model: Any, mode: TrainingMode) -> Iterator[None]:
    """Put ``model`` in the ``mode`` for the export (PRESERVE: as it is), and back after."""
    if not isinstance(mode, TrainingMode):
        raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got '{type(mode)}'.")
    was_training = getattr(model, "training", False)
    if mode != TrainingMode.PRESERVE and hasattr(model, "train"):
        model.train(mode == TrainingMode.TRAINING)
    try:
        yield
    finally:
        if mode != TrainingMode.PRESERVE and hasattr(model, "train"):
            model.train(was_training)


def _dim_names(
    names: list[str],
    dynamic_axes: Mapping[str, Any] | None,
    dynamic_shapes: Any,
    input_params: list[str],
) -> dict[str, dict[int, str]]:
    """value name -> {axis: symbolic name}, from ``dynamic_axes`` and ``dynamic_shapes``."""
    dims: dict[str, dict[int, str]] = {}
    for name, axes in (dynamic_axes or {}).items():
        if isinstance(axes, Mapping):
            dims[name] = {int(a): str(n) for a, n in axes.items()}
        else:
            dims[name] = {int(a): f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
    if dynamic_shapes is not None:
        if isinstance(dynamic_shapes, Mapping):
            items = list(dynamic_shapes.items())
        else:
            items = list(zip(input_params, dynamic_shapes))
        counter = 0
        for key, spec in items:
            target = key if key in names else None
            if target is None and key in input_params:
                target = names[input_params.index(key)]
            if target is None or spec is None:
                continue
            entries = spec.items() if isinstance(spec, Mapping) else enumerate(spec)
            for axis, dim in entries:
                if dim is None:
                    continue
                label = getattr(dim, "__name__", None) or (dim if isinstance(dim, str) else None)
                if label is None or label in ("AUTO", "DYNAMIC", "STATIC"):
                    if label == "STATIC":
                        continue
                    label = f"s{counter}"
                    counter += 1
                dims.setdefault(target, {})[int(axis)] = str(label)
    return dims


def _value_info(name: str, dtype: np.dtype, shape: tuple, dims: dict[int, str]) -> Any:
    from onnx import helper

    from ._graph import onnx_type

    shape_spec = [dims.get(i, s) for i, s in enumerate(shape)]
    return helper.make_tensor_value_info(name, onnx_type(dtype), shape_spec)


def _build_model(
    model: Any,
    args: tuple,
    kwargs: dict,
    opset: int,
    input_names: Sequence[str] | None,
    output_names: Sequence[str] | None,
    dynamic_axes: Mapping[str, Any] | None,
    dynamic_shapes: Any,
    export_params: bool,
    keep_initializers_as_inputs: bool,
) -> tuple[Any, Any]:
    """The ``ModelProto`` of ``model`` traced on the example inputs, and the model's result."""
    import onnx
    from onnx import helper, numpy_helper

    from ..version import __version__
    from ._trace import trace

    dynamic = bool(dynamic_axes) or dynamic_shapes is not None
    g, outputs, result = trace(model, args, kwargs, max(opset, _MIN_OPSET), dynamic)
    params = list(g.inputs)
    # input names: the forward's parameter names, or the given ones
    rename: dict[str, str] = {}
    for old, new in zip(list(g.inputs), input_names or ()):
        rename[old] = new
    # output names: the producing op's value, or the given ones
    produced = {o for node in g.nodes for o in node.output}
    final: list[str] = []
    extra_nodes = []
    for i, name in enumerate(outputs):
        wanted = output_names[i] if output_names and i < len(output_names) else None
        if wanted is None and name in produced and name not in final:
            final.append(name)
            continue
        if wanted is None:
            wanted = g.fresh(f"{name}_output")
        if name in produced and name not in final and name not in rename:
            rename[name] = wanted
        else:
            extra_nodes.append(
                helper.make_node("Identity", [name], [wanted], name=f"node_{wanted}")
            )
        final.append(wanted)
    nodes = list(g.nodes) + extra_nodes
    for node in nodes:
        for i, n in enumerate(node.input):
            if n in rename:
                node.input[i] = rename[n]
        for i, n in enumerate(node.output):
            if n in rename:
                node.output[i] = rename[n]
    input_final = [rename.get(n, n) for n in g.inputs]
    dims = _dim_names(input_final, dynamic_axes, dynamic_shapes, params)
    dynamic_sizes = {
        g.shape(n)[axis]: label
        for n, final_name in zip(g.inputs, input_final)
        for axis, label in dims.get(final_name, {}).items()
    }
    inputs = [
        _value_info(new, g.dtype(old), g.shape(old), dims.get(new, {}))
        for old, new in zip(g.inputs, input_final)
    ]
    outs = []
    for name, out_name in zip(outputs, final):
        shape = g.shape(name)
        out_dims = {i: dynamic_sizes[s] for i, s in enumerate(shape) if s in dynamic_sizes}
        out_dims.update(dims.get(out_name, {}))
        outs.append(_value_info(out_name, g.dtype(name), shape, out_dims))
    initializers = [numpy_helper.from_array(a, n) for n, a in g.initializers.items()]
    if not export_params or keep_initializers_as_inputs:
        inputs += [_value_info(n, a.dtype, a.shape, {}) for n, a in g.initializers.items()]
    if not export_params:
        initializers = []
    graph = helper.make_graph(nodes, "main_graph", inputs, outs, initializer=initializers)
    proto = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", max(opset, _MIN_OPSET))],
        producer_name="chainrule",
        producer_version=__version__,
        ir_version=10,
    )
    if opset < _MIN_OPSET:
        from onnx import version_converter

        proto = version_converter.convert_version(proto, opset)
    onnx.checker.check_model(proto)
    _warn_if_constant(proto, set(input_final))
    return proto, result


def _warn_if_constant(proto: Any, inputs: set[str]) -> None:
    """Warn when an output does not depend on any input: some op of the model computed it
    outside the functions the trace sees (its value is then baked in)."""
    if not inputs:
        return
    producer = {o: n for n in proto.graph.node for o in n.output}
    for out in proto.graph.output:
        stack, seen, reached = [out.name], set(), False
        while stack and not reached:
            name = stack.pop()
            if name in inputs:
                reached = True
            elif name in producer and name not in seen:
                seen.add(name)
                stack += list(producer[name].input)
        if not reached:
            warnings.warn(
                f"the exported output '{out.name}' does not depend on the model's inputs: "
                "it is a constant of this trace",
                stacklevel=4,
            )


def _verify(program: Any, args: tuple, kwargs: dict, result: Any) -> None:
    from ._trace import tensors_in

    expected = tensors_in(result)
    got = program(*args, **kwargs)
    for e, o in zip(expected, got):
        a, b = np.asarray(e.detach().numpy()), np.asarray(o.numpy())
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True):
            raise OnnxExporterError(
                "the exported model's outputs differ from the model's outputs (verify=True)"
            )


def export(
    model: Any,
    args: tuple[Any, ...] = (),
    f: str | os.PathLike | None = None,
    *,
    kwargs: dict[str, Any] | None = None,
    verbose: bool | None = None,
    input_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    opset_version: int | None = None,
    dynamo: bool = True,
    external_data: bool = True,
    dynamic_shapes: dict[str, Any] | tuple[Any, ...] | list[Any] | None = None,
    custom_translation_table: dict | None = None,
    report: bool = False,
    optimize: bool = True,
    verify: bool = False,
    profile: bool = False,
    dump_exported_program: bool = False,
    artifacts_dir: str | os.PathLike = ".",
    export_params: bool = True,
    keep_initializers_as_inputs: bool = False,
    dynamic_axes: Mapping[str, Mapping[int, str]] | Mapping[str, Sequence[int]] | None = None,
    training: TrainingMode = TrainingMode.EVAL,
    operator_export_type: OperatorExportTypes = OperatorExportTypes.ONNX,
    do_constant_folding: bool = True,
    custom_opsets: Mapping[str, int] | None = None,
    export_modules_as_functions: bool | Collection[type] = False,
    autograd_inlining: bool = True,
) -> Any:
    """Export ``model`` run on ``args``/``kwargs`` as an ONNX model: an ``ONNXProgram``
    (``dynamo=True``), also written to ``f`` when given; with ``dynamo=False`` the file is
    written and None returned."""
    try:
        import onnx  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "torch.onnx.export needs the 'onnx' package: pip install onnx (or chainrule[onnx])"
        ) from e
    from ._program import ONNXProgram

    if isinstance(args, Tensor):
        args = (args,)
    elif not isinstance(args, tuple):
        args = tuple(args) if isinstance(args, list) else (args,)
    kwargs = dict(kwargs or {})
    if not dynamo and args and isinstance(args[-1], dict):
        kwargs.update(args[-1])
        args = args[:-1]
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not dynamo and f is None:
        raise ValueError("f must be given (a file path) when dynamo=False")
    mode = select_model_mode_for_export(model, training) if not dynamo else contextlib.nullcontext()
    with mode:
        proto, result = _build_model(
            model,
            args,
            kwargs,
            opset,
            input_names,
            output_names,
            dynamic_axes,
            dynamic_shapes,
            export_params,
            keep_initializers_as_inputs,
        )
    program = ONNXProgram(proto, None)
    if verify:
        _verify(program, args, kwargs, result)
    if f is not None:
        program.save(
            f,
            keep_initializers_as_inputs=keep_initializers_as_inputs,
            external_data=external_data if dynamo else False,
        )
    return program if dynamo else None
