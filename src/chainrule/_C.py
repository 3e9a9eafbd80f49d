"""``torch._C``'s names that Python code written for PyTorch reaches for: the switches of
``__torch_function__`` (chainrule.overrides). chainrule has no C extension; nothing else
of PyTorch's ``torch._C`` exists."""

from __future__ import annotations

from .overrides import (  # noqa: F401 - torch._C's names for them
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)
