"""``chainrule.nn``: ``Module`` and its containers and layers, ``Parameter``, ``init``,
``utils`` and ``functional``, as ``torch.nn`` has them.

The layers live in ``nn/modules/``, one file per family (as in PyTorch), each naming its
classes in its ``__all__``; ``nn.modules`` gathers them and this package re-exports them.
``nn.functional``'s names come from the name table (``api/table.py``).
"""

from __future__ import annotations

from . import attention, functional, init, parallel, utils  # noqa: F401
from .modules import *  # noqa: F403 (every layer: nn.modules.__all__)
from .parallel import DataParallel  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.nn", name)
