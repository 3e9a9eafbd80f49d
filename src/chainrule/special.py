"""``chainrule.special``: PyTorch's ``torch.special``.

Its names are filled in from the name table (``api/table.py``, ``SPECIAL``): most are
the ops of ``ops/special.py`` under PyTorch's special names (``expit`` is sigmoid,
``gammaln`` is lgamma, ``psi`` is digamma).
"""

from __future__ import annotations


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.special", name)
