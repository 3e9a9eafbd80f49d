"""``chainrule.nn``: ``Module`` and its containers and layers, ``Parameter``, ``init``,
``utils`` and ``functional``, as ``torch.nn`` has them.

The layers live in ``nn/modules/``, one file per family (as in PyTorch); a new family
adds its names to the import from ``.modules`` below. ``nn.functional``'s names come
from the name table (``api/table.py``).
"""

from __future__ import annotations

from . import functional, init, utils  # noqa: F401
from .modules import (  # noqa: F401
    Flatten,
    Identity,
    Module,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
    Unflatten,
)

# ----- nn-rnn: recurrent layers -----
from .modules.rnn import (  # noqa: F401
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    RNNBase,
    RNNCell,
    RNNCellBase,
)
from .parameter import Buffer, Parameter  # noqa: F401


def __getattr__(name: str):
    from .._missing import missing

    raise missing("torch.nn", name)
