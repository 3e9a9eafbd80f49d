"""Clear errors for the parts of PyTorch that chainrule does not have yet."""

from __future__ import annotations


class NotImplementedInChainrule(AttributeError, NotImplementedError):
    """A PyTorch name chainrule lacks: both an AttributeError and a NotImplementedError."""


def missing(module: str, name: str) -> AttributeError:
    """The error for ``module.name``, a PyTorch feature chainrule does not implement."""
    if name.startswith("__") and name.endswith("__"):
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    return NotImplementedInChainrule(
        f"chainrule does not implement {module}.{name} yet. chainrule covers PyTorch's "
        "autograd core (see the status table in README.md); this PyTorch feature is missing."
    )
