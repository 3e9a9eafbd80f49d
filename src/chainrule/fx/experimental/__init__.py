"""``chainrule.fx.experimental`` (PyTorch's ``torch.fx.experimental``): ``optimization``
(``fuse``: batch norms folded into convolutions and linear layers for inference),
``const_fold`` (``split_const_subgraphs``), ``proxy_tensor``'s mode query and
``symbolic_shapes``' data-dependence error. chainrule's fx traces symbolically
(``symbolic_trace``) and has no ``make_fx`` proxy-tensor tracing. As in PyTorch,
``optimization`` and ``const_fold`` are imported by name."""

from __future__ import annotations

from . import proxy_tensor, symbolic_shapes  # noqa: F401
