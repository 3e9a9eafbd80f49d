"""``torch.fx``: symbolic tracing of modules into Graphs, Graph surgery, and code made
from Graphs (PyTorch 2.13's core FX).

``symbolic_trace(module)`` runs ``forward`` on :class:`Proxy` objects and records each
operation as a :class:`Node` of a :class:`Graph`: chainrule's ``torch.*`` and
``torch.nn.functional.*`` functions as ``call_function`` (``Proxy.__torch_function__``,
through ``chainrule.overrides``), Python operators as ``operator.add`` and the like, method
calls and attribute reads as ``call_method``/``getattr``, chainrule's nn modules (leaves,
Sequential aside) as ``call_module`` and parameters as ``get_attr``. The
:class:`GraphModule` made from the Graph has PyTorch's ``code`` text, compiled as its
``forward``; :class:`Interpreter` runs a Graph Node by Node and :class:`Transformer` makes
a new Graph from one.

``replace_pattern`` (``subgraph_rewriter``) rewrites every match of a pattern function's
graph; ``passes.shape_prop.ShapeProp`` records each Node's tensor metadata;
``passes.split_module.split_module`` splits a GraphModule into one submodule per partition
(PyTorch's code for the outer module and each ``submod_<i>``; ``split_module_simple``
for partitions given in data-flow order), and
``passes.split_utils.split_by_tags`` by the ``tag`` of each Node; ``passes.pass_manager`` and
``passes.infra`` (``PassBase``, ``PassResult``, ``PassManager``) run passes.
``experimental.optimization`` has ``fuse`` (eval-mode batch norms folded into the
convolution or linear layer before them), ``remove_dropout`` and ``extract_subgraph``;
``experimental.const_fold.split_const_subgraphs`` computes the attribute-only parts of a
graph once, as parameters.

Importing ``chainrule.fx`` costs nothing: defining ``Proxy`` leaves chainrule's
``__torch_function__`` dispatch off, and the first trace (or ``Proxy``, or
``Transformer.transform``) turns it on; from then on plain-tensor calls pay one check of
their argument types, as after defining any Tensor-like class.

Differences from PyTorch:

- the generated code runs in a namespace where ``torch`` is chainrule (with
  ``torch._assert`` added when chainrule has none, and ``torch._C._nn.gelu`` and the like
  read from ``nn.functional``); GraphModules cannot be pickled, and ``code`` is not written
  to a linecache file;
- nodes carry no stack traces (as PyTorch's ``symbolic_trace`` without
  ``record_stack_traces``): ``print_readable`` says "No stacktrace found", and it adds no
  tensor-metadata annotations after ShapeProp; ``nn_module_stack`` names chainrule's
  module classes;
- ``concrete_args`` specializes a value per argument (not a pytree of them, and not
  tensors); ``PH`` keeps an argument a placeholder;
- the ``nn.functional`` calls recorded with every keyword default filled in are those
  PyTorch writes in Python (relu, dropout, softmax, max_pool2d, ...), with chainrule's
  signatures (``l1_loss`` also records ``weight``); ``logsigmoid`` nodes are named
  ``logsigmoid``, not ``log_sigmoid``;
- a factory given a traced size (``torch.zeros(x.size(0), 3)``) is recorded, where
  PyTorch's raises TypeError;
- ``replace_pattern`` matches single-output patterns, compares ``call_module`` nodes by
  target, and has no ``ignore_literals``/``match_filters`` (``replace_pattern_with_filters``);
- ``Graph.print_tabular`` needs the ``tabulate`` package, as PyTorch's (without it, the same
  message, then ModuleNotFoundError);
- ``split_module`` has no autocast/``set_grad_enabled`` regions and no symbolic sizes
  (chainrule's traces record neither); ``const_fold`` has no ``sympy`` fill values;
- of ``torch.fx.experimental``, only ``optimization`` (without the MKLDNN passes:
  ``optimize_for_inference``, ``modules_to_mkldnn``), ``const_fold``, ``proxy_tensor``'s
  mode query and ``symbolic_shapes``' data-dependence error; no ``graph_drawer``,
  ``splitter_base``, ``CodeGen`` subclasses, ``on_generate_code``,
  ``Tracer.keys``-based ``**`` unpacking into a dict, or the ``param_shapes_constant``
  option (accepted, ignored).
"""

from __future__ import annotations

from . import graph, graph_module, interpreter, node, passes, proxy, subgraph_rewriter
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = [
    "symbolic_trace",
    "Tracer",
    "wrap",
    "Graph",
    "GraphModule",
    "Interpreter",
    "Transformer",
    "Node",
    "Proxy",
    "replace_pattern",
    "has_side_effect",
    "map_arg",
]

_ = (PH, graph, graph_module, interpreter, node, passes, proxy, subgraph_rewriter)
