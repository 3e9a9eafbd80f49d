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

# ----- nn-actloss: activations and losses -----
from .modules.activation import (  # noqa: F401
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .modules.loss import (  # noqa: F401
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    NLLLoss2d,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)

# ----- end nn-actloss -----
from .parameter import Buffer, Parameter  # noqa: F401


def __getattr__(name: str):
    from .._missing import missing

    raise missing("torch.nn", name)
