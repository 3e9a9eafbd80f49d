"""``chainrule.nn.functional``: activations, normalizations, convolutions, pooling,
padding and resampling with PyTorch's signatures.

Its names are filled in from the name table (``api/table.py``, ``FUNCTIONAL``): the ops
live in ``ops/activations.py``, ``ops/normalizations.py``, ``ops/convolution.py``,
``ops/pooling.py``, ``ops/padding.py`` and ``ops/resampling.py``, and the signatures that
need code (``inplace=``, ``dim=None``, kernel sizes, padding modes, ...) in
``api/parsers/``.
"""

from __future__ import annotations


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.nn.functional", name)
