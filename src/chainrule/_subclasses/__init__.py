"""``chainrule._subclasses`` (PyTorch's ``torch._subclasses``): the tensor subclasses
PyTorch's tracing uses. chainrule traces with real tensors, so it has no fake tensors;
``fake_tensor.is_fake`` answers for libraries that check."""

from __future__ import annotations

from . import fake_tensor  # noqa: F401
