"""``chainrule._subclasses.fake_tensor`` (PyTorch's ``torch._subclasses.fake_tensor``).

chainrule has no fake tensors (``torch.fx``, ``torch.export`` and ``torch.compile`` run on
real tensors here), so ``is_fake`` is ``False`` for every value; ``FakeTensor`` and
``FakeTensorMode`` raise a clear error.
"""

from __future__ import annotations

from typing import Any

from .._missing import missing

__all__ = ["is_fake"]


def is_fake(x: Any) -> bool:
    """Whether ``x`` is a fake tensor (or a wrapper of one): never, in chainrule."""
    return False


def __getattr__(name: str) -> Any:
    raise missing("torch._subclasses.fake_tensor", name)
