"""``torch.backends.openmp``: chainrule's own code runs no OpenMP regions."""

from __future__ import annotations


def is_available() -> bool:
    return False
