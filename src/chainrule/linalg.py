"""``chainrule.linalg``: PyTorch's ``torch.linalg``.

Its names are filled in from the name table (``api/table.py``, ``LINALG``); the ops and
their derivatives live in ``ops/linalg/``.
"""

from __future__ import annotations


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.linalg", name)
