"""``torch.distributed.tensor``'s DTensor: the name exists; chainrule has no DTensor.

Making one (``DTensor(...)``, ``DTensor.from_local``, ``distribute_tensor``,
``distribute_module``) raises ``NotImplementedError`` naming the gap; checks such as
``isinstance(t, DTensor)`` work (and are false for every chainrule tensor).
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor

__all__ = ["DTensor", "distribute_module", "distribute_tensor"]

_MISSING = "chainrule does not implement torch.distributed.tensor.DTensor yet"


class DTensor(Tensor):
    """PyTorch's tensor distributed over a device mesh; not implemented by chainrule."""

    __slots__ = ()
    _dispatch_when_made = True  # (defining the class leaves __torch_function__ dispatch off)

    def __new__(cls, *args: Any, **kwargs: Any) -> DTensor:
        raise NotImplementedError(_MISSING)

    @staticmethod
    def from_local(*args: Any, **kwargs: Any) -> DTensor:
        """Not implemented by chainrule: raises ``NotImplementedError``."""
        raise NotImplementedError(_MISSING)


def distribute_tensor(*args: Any, **kwargs: Any) -> DTensor:
    """Not implemented by chainrule: raises ``NotImplementedError``."""
    raise NotImplementedError(_MISSING)


def distribute_module(*args: Any, **kwargs: Any) -> Any:
    """Not implemented by chainrule: raises ``NotImplementedError``."""
    raise NotImplementedError(_MISSING)
