"""``torch._C``'s names that Python code written for PyTorch reaches for: the switches of
``__torch_function__`` (chainrule.overrides) and ``_AutoDispatchBelowAutograd`` (which
custom-op autograd kernels wrap their call of the op in: chainrule.library calls the
kernel below autograd already, so it does nothing). chainrule has no C extension; nothing
else of PyTorch's ``torch._C`` exists."""

from __future__ import annotations

from .overrides import (  # noqa: F401 - torch._C's names for them
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)


class _AutoDispatchBelowAutograd:
    """A context manager that does nothing here (see the module's docstring)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
