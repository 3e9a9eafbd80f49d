"""``torch.distributed.device_mesh``: the name exists; chainrule has no device meshes.

:class:`DeviceMesh` and :func:`init_device_mesh` raise ``NotImplementedError`` naming the
gap, so code that only checks ``isinstance(x, DeviceMesh)`` (never true here) runs.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DeviceMesh", "init_device_mesh"]

_MISSING = "chainrule does not implement torch.distributed.device_mesh.DeviceMesh yet"


class DeviceMesh:
    """PyTorch's n-dimensional arrangement of ranks; not implemented by chainrule."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_MISSING)


def init_device_mesh(*args: Any, **kwargs: Any) -> DeviceMesh:
    """Not implemented by chainrule: raises ``NotImplementedError``."""
    raise NotImplementedError(_MISSING)
