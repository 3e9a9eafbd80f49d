"""``torch._higher_order_ops``: the control-flow operators, ``cond``, ``while_loop``,
``scan``, ``map`` and ``associative_scan`` (``torch.cond`` and ``torch.while_loop`` are the
same functions).

PyTorch captures their functions with ``torch.compile``, even in eager mode; chainrule
compiles nothing, so they run as Python (a branch, a loop), recording as any code does,
with the checks PyTorch's capture makes (see each module) and the gradients of the code
they ran; their outputs hang from one node named as PyTorch's (``CondAutogradOpBackward``
...). Unlike PyTorch's, these gradients can be differentiated again (``create_graph``).
"""

from __future__ import annotations

from .associative_scan import associative_scan
from .cond import cond
from .map import map  # noqa: A004 - PyTorch's name
from .scan import scan
from .while_loop import while_loop

__all__ = ["associative_scan", "cond", "map", "scan", "while_loop"]
