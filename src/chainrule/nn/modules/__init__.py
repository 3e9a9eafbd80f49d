"""``chainrule.nn.modules``: ``Module``, the containers and the layers, one file per family
as in PyTorch (``module.py``, ``container.py``, ``linear.py``, ``conv.py``, ...).

Each family file names its public classes once, in its ``__all__``; this package gathers
them (a new family adds its file to both lists below), and ``chainrule.nn`` re-exports
them, as ``torch.nn`` does."""

from __future__ import annotations

from . import (
    activation,
    activation_attention,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    deprecated_container,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    linear_cross_entropy,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from .activation import *  # noqa: F403
from .activation_attention import *  # noqa: F403
from .adaptive import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .channelshuffle import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .deprecated_container import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .lazy import LazyModuleMixin  # noqa: F401 (torch.nn.modules has it, not in __all__)
from .linear import *  # noqa: F403
from .linear import NonDynamicallyQuantizableLinear  # noqa: F401 (as in torch.nn.modules)
from .linear_cross_entropy import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import Module
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403

_FAMILIES = (
    activation,
    activation_attention,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    deprecated_container,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    linear_cross_entropy,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
__all__ = ["Module", *(name for family in _FAMILIES for name in family.__all__)]


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.nn.modules", name)
