"""``torch.export``: exported programs (graphs of ATen operator overloads with their
state), read from and written to PyTorch's ``.pt2`` archives, run with chainrule's ops.

``load(f)`` reads an archive written by PyTorch's ``torch.export.save`` (never running
code from it): the program's JSON becomes a chainrule fx Graph whose nodes call
``torch.ops.aten`` overloads (``_aten_table``: each a chainrule function taking the
overload's schema arguments, so autograd runs through it), the weights become Parameters
and buffers. ``ExportedProgram.module()`` runs it with the exported forward's arguments.
``export(mod, args)`` traces a chainrule module into the same form, and ``save(ep, f)``
writes the archive PyTorch's ``torch.export.load`` reads.

Differences from PyTorch:

- a loaded program runs on the sizes it is given, with no guards checked;
- ``cond``, ``while_loop``, ``scan`` and ``map`` are kept as subgraphs, both ways
  (``_higher_order``, ``_control_flow``); other higher-order ops (``associative_scan``),
  custom objects and ATen overloads outside the table raise NotImplementedError naming
  the operator, when the file is read;
- ``export`` traces by running the forward once (buffers and inputs it writes are
  restored) and knows the calls of ``_translations*`` (layers, LSTM/GRU, self-attention,
  losses, arithmetic, reductions, views, indexing, factories, in-place ops); a call it
  does not know, or a value computed out of its sight, raises NotImplementedError;
- ``dynamic_shapes``: sizes become symbols with PyTorch's names and ranges, and a size
  the forward reads and passes on becomes PyTorch's ``sym_size``/arithmetic nodes
  (``_sym_sizes``, ``numel()`` as ``sym_numel``); of the ranges PyTorch narrows from
  guards a 1-d factory's ``s - k`` and constant indices of a dynamic dim are narrowed
  (``_dynamic``), others are not; ``x.item()`` of an integer tensor is an ``aten.item``
  node (``_unbacked``) as a scalar operand, in ``+ - *`` with ints, checked with
  ``torch._check`` and as a factory's size, a ``narrow`` length or a checked slice end,
  not yet otherwise (an unchecked slice, arithmetic as a size, with ``dynamic_shapes``),
  its ``u<k>`` numbered with those of while loops reading parameters, as PyTorch's;
- ``run_decompositions`` writes the calls of its rules as core ATen (``_decompose*``:
  layers in eval and training mode, products, attention, casts, common losses); other
  calls are kept, forms outside a rule refused; no symbolic programs;
- ``unflatten(ep)`` cuts the program back into the original module tree (``_unflatten``,
  from the nodes' ``nn_module_stack``, which ``export`` records: ``_module_stack``);
  it has no ``flat_args_adapter``;
- ``validate()`` runs PyTorch's verifier checks (``_verifier``: signature against graph
  and state, allowed call targets) but not those of each node's ``val`` meta;
  ``strict``/``preserve_module_call_signature`` are ignored;
  ``str(ep)`` leaves out the source-location comments.
"""

from __future__ import annotations

from . import graph_signature
from ._decompose import default_decompositions
from ._dynamic import Dim, dims
from ._load import load
from ._tracer import export
from ._unflatten import InterpreterModule, UnflattenedModule, unflatten
from ._writer import save
from .exported_program import ExportedProgram, ModuleCallEntry, ValueRanges
from .graph_signature import (
    ConstantArgument,
    CustomObjArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    SymIntArgument,
    TensorArgument,
    TokenArgument,
)

__all__ = [
    "export",
    "default_decompositions",
    "unflatten",
    "UnflattenedModule",
    "InterpreterModule",
    "Dim",
    "dims",
    "load",
    "save",
    "ExportedProgram",
    "ExportGraphSignature",
    "InputKind",
    "InputSpec",
    "OutputKind",
    "OutputSpec",
    "ModuleCallEntry",
    "ValueRanges",
    "TensorArgument",
    "ConstantArgument",
    "SymIntArgument",
    "CustomObjArgument",
    "TokenArgument",
    "graph_signature",
]
