"""``torch.SymInt``, ``torch.SymFloat``, ``torch.SymBool``: PyTorch's symbolic sizes and
scalars, which its tracers (dynamo, ``torch.export`` with dynamic shapes) put where a
Python number would be. chainrule's tracers record with real sizes, so no value is ever
symbolic: the classes exist for ``isinstance`` checks and annotations, and cannot be made.
"""

from __future__ import annotations

__all__ = ["SymBool", "SymFloat", "SymInt"]


def _refuse(self: object, node: object) -> None:
    from ._missing import NotImplementedInChainrule

    raise NotImplementedInChainrule(
        f"chainrule has no symbolic shapes: torch.{type(self).__name__} values cannot be made"
    )


class SymInt:
    """``torch.SymInt``: a symbolic integer (see the module's docstring)."""

    __init__ = _refuse


class SymFloat:
    """``torch.SymFloat``: a symbolic float (see the module's docstring)."""

    __init__ = _refuse


class SymBool:
    """``torch.SymBool``: a symbolic bool (see the module's docstring)."""

    __init__ = _refuse
