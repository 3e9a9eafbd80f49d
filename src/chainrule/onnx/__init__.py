"""``torch.onnx``: export a model to an ONNX file that ONNX Runtime (or any ONNX backend)
runs.

``export`` runs the model once on the example inputs and records every public function,
Tensor method and operator it calls on its inputs and parameters (``_trace``), translating
each to ONNX nodes (``_ops.TABLE``); parameters and buffers become initializers named by
their state_dict names. The ``onnx`` package is needed to export (``pip install onnx``), and
``onnxruntime`` to run an ``ONNXProgram``; neither is imported until used.

Differences from PyTorch:

- the graph is a concrete trace (as ``dynamo=False``'s TorchScript tracing): Python control
  flow is fixed by the example inputs. With ``dynamic_axes``/``dynamic_shapes`` the sizes the
  model reads (``x.size(0)``, ``n, c = x.shape``) are symbolic ints that the graph computes
  (``Shape``), through ``+ - * //``, into ``view``/``reshape``/``expand``/``repeat``, slices,
  ``zeros``/``ones``/``full`` and ``arange``; a size turned into a float or a tensor, or used in
  any other op, is the traced one;
- ``dynamo=True`` and ``dynamo=False`` give the same graph (named as ``dynamo=True`` names it:
  inputs by the forward's parameter names, values by the op that makes them), written at
  opset 20 by default (18 and later directly, earlier ones through ONNX's version converter);
  ``ONNXProgram.model`` is the ``ModelProto`` (PyTorch's is an ``onnx_ir.Model``),
  ``exported_program`` is None, ``optimize()`` does nothing, and the graph is not constant
  folded (BatchNorm stays a ``BatchNormalization`` node after a ``Conv``);
- ``RNN``/``LSTM``/``GRU`` are written as ONNX's recurrent ops (no ``proj_size``, no
  ``PackedSequence``); a write into a tensor the graph has read (``x[i] = v``, ``copy_``,
  ``fill_``) raises, and a write through a view of a traced tensor is not seen;
- a tensor computed during the export by code the trace does not see (a public function
  captured in a closure before the export began) raises ``OnnxExporterError`` instead of
  being exported as a constant; model code that captured one as a module attribute or a
  global (``from torch import flatten``) is handed the recording one while it runs;
- ``custom_translation_table``, ``report``, ``profile``, ``dump_exported_program`` and the
  deprecated TorchScript options are accepted and ignored.
"""

from __future__ import annotations

from ..version import __version__
from . import errors
from ._export import (
    OperatorExportTypes,
    TrainingMode,
    export,
    is_in_onnx_export,
    select_model_mode_for_export,
)
from ._program import ONNXProgram
from .errors import OnnxExporterError

__all__ = [
    "errors",
    "export",
    "is_in_onnx_export",
    "OnnxExporterError",
    "ONNXProgram",
    "OperatorExportTypes",
    "TrainingMode",
    "select_model_mode_for_export",
]

producer_name = "chainrule"  # what the files say made them
producer_version = __version__
