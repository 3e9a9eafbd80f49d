"""``chainrule.fx.experimental`` (PyTorch's ``torch.fx.experimental``): ``proxy_tensor``'s
mode query and ``symbolic_shapes``' data-dependence error. chainrule's fx traces symbolically (``symbolic_trace``) and has no
``make_fx`` proxy-tensor tracing."""

from __future__ import annotations

from . import proxy_tensor, symbolic_shapes  # noqa: F401
