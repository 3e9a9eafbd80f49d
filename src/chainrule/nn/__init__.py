"""``chainrule.nn``: for now only ``functional``; modules and optimizers come later."""

from __future__ import annotations

from . import functional  # noqa: F401


def __getattr__(name: str):
    from .._missing import missing

    raise missing("torch.nn", name)
