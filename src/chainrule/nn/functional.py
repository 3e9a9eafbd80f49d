"""``chainrule.nn.functional``: activations and normalizations with PyTorch's signatures.

Its names are filled in from the name table (``api/table.py``, ``FUNCTIONAL``): the ops
live in ``ops/activations.py`` and ``ops/normalizations.py``, and the signatures that
need code (``inplace=``, ``dim=None``) in ``api/parsers/functional.py``.
"""

from __future__ import annotations


def __getattr__(name: str):
    from .._missing import missing

    raise missing("torch.nn.functional", name)
