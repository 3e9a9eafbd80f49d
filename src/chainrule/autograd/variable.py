"""``torch.autograd.variable``: the module of the legacy ``Variable`` (a Tensor since
PyTorch 0.4). The package's own ``variable`` name is the deprecated function below, which
tells the caller to use ``tensor`` (the function hides the module, as in PyTorch)."""

from __future__ import annotations

from typing import Any

from . import Variable

__all__ = ["Variable"]


def variable(*args: Any, **kwargs: Any) -> None:
    """Always raises: ``torch.autograd.variable(...)`` was replaced by ``torch.tensor``."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
