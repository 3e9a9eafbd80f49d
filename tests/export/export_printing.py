"""What the export tests compare of a printed program: ``str(ep)`` without PyTorch's
source-location comments, which chainrule does not write."""

from __future__ import annotations

from typing import Any

_COMMENTS = ("# File", "# No stacktrace")


def printed(ep: Any) -> list[str]:
    """The non-blank lines of ``str(ep)`` but PyTorch's source-location comments."""
    return [
        line
        for line in str(ep).split("\n")
        if line.strip() and not line.strip().startswith(_COMMENTS)
    ]
