"""``torch.fx.passes.infra``: the pass interface (``pass_base``) and its manager
(``pass_manager``)."""

from __future__ import annotations

from . import pass_base, pass_manager

__all__ = ["pass_base", "pass_manager"]
