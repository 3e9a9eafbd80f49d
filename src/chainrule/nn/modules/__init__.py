"""``chainrule.nn.modules``: ``Module``, the containers and the layers, one file per family
as in PyTorch (``module.py``, ``container.py``, ``linear.py``, ``flatten.py``, ...).
A new family adds its file here and its names to the imports below."""

from __future__ import annotations

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Identity
from .module import Module

# ----- nn-rnn: recurrent layers -----
from .rnn import (  # noqa: E402
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    RNNBase,
    RNNCell,
    RNNCellBase,
)

__all__ = [
    "Module",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
    "Identity",
    "Flatten",
    "Unflatten",
    # ----- nn-rnn: recurrent layers -----
    "RNNBase",
    "RNN",
    "LSTM",
    "GRU",
    "RNNCellBase",
    "RNNCell",
    "LSTMCell",
    "GRUCell",
]


def __getattr__(name: str):
    from ..._missing import missing

    raise missing("torch.nn.modules", name)
