"""``nn.utils``: gradient clipping, flattening parameters into one vector, and (``rnn``)
variable-length sequences for the recurrent layers."""

from __future__ import annotations

# ----- nn-rnn: variable-length sequences -----
from . import rnn  # noqa: F401
from .clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401


def __getattr__(name: str):
    from ..._missing import missing

    raise missing("torch.nn.utils", name)
