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

# ----- layers (nn-layers) -----
# isort: off
from .modules import Conv1d  # noqa: E402, F401
from .modules import Conv2d  # noqa: E402, F401
from .modules import Conv3d  # noqa: E402, F401
from .modules import ConvTranspose1d  # noqa: E402, F401
from .modules import ConvTranspose2d  # noqa: E402, F401
from .modules import ConvTranspose3d  # noqa: E402, F401
from .modules import LazyConv1d  # noqa: E402, F401
from .modules import LazyConv2d  # noqa: E402, F401
from .modules import LazyConv3d  # noqa: E402, F401
from .modules import LazyConvTranspose1d  # noqa: E402, F401
from .modules import LazyConvTranspose2d  # noqa: E402, F401
from .modules import LazyConvTranspose3d  # noqa: E402, F401
from .modules import AlphaDropout  # noqa: E402, F401
from .modules import Dropout  # noqa: E402, F401
from .modules import Dropout1d  # noqa: E402, F401
from .modules import Dropout2d  # noqa: E402, F401
from .modules import Dropout3d  # noqa: E402, F401
from .modules import FeatureAlphaDropout  # noqa: E402, F401
from .modules import Bilinear  # noqa: E402, F401
from .modules import LazyLinear  # noqa: E402, F401
from .modules import Linear  # noqa: E402, F401
from .modules import LayerNorm  # noqa: E402, F401
from .modules import AdaptiveAvgPool1d  # noqa: E402, F401
from .modules import AdaptiveAvgPool2d  # noqa: E402, F401
from .modules import AdaptiveAvgPool3d  # noqa: E402, F401
from .modules import AdaptiveMaxPool1d  # noqa: E402, F401
from .modules import AdaptiveMaxPool2d  # noqa: E402, F401
from .modules import AdaptiveMaxPool3d  # noqa: E402, F401
from .modules import AvgPool1d  # noqa: E402, F401
from .modules import AvgPool2d  # noqa: E402, F401
from .modules import AvgPool3d  # noqa: E402, F401
from .modules import LPPool1d  # noqa: E402, F401
from .modules import LPPool2d  # noqa: E402, F401
from .modules import LPPool3d  # noqa: E402, F401
from .modules import MaxPool1d  # noqa: E402, F401
from .modules import MaxPool2d  # noqa: E402, F401
from .modules import MaxPool3d  # noqa: E402, F401
from .modules import MaxUnpool1d  # noqa: E402, F401
from .modules import MaxUnpool2d  # noqa: E402, F401
from .modules import MaxUnpool3d  # noqa: E402, F401
from .modules import BatchNorm1d  # noqa: E402, F401
from .modules import BatchNorm2d  # noqa: E402, F401
from .modules import BatchNorm3d  # noqa: E402, F401
from .modules import LazyBatchNorm1d  # noqa: E402, F401
from .modules import LazyBatchNorm2d  # noqa: E402, F401
from .modules import LazyBatchNorm3d  # noqa: E402, F401
from .modules import InstanceNorm1d  # noqa: E402, F401
from .modules import InstanceNorm2d  # noqa: E402, F401
from .modules import InstanceNorm3d  # noqa: E402, F401
from .modules import LazyInstanceNorm1d  # noqa: E402, F401
from .modules import LazyInstanceNorm2d  # noqa: E402, F401
from .modules import LazyInstanceNorm3d  # noqa: E402, F401
from .modules import GroupNorm  # noqa: E402, F401
from .modules import LocalResponseNorm  # noqa: E402, F401
from .modules import RMSNorm  # noqa: E402, F401
from .modules import Embedding  # noqa: E402, F401
from .modules import EmbeddingBag  # noqa: E402, F401
from .modules import Upsample  # noqa: E402, F401
from .modules import UpsamplingBilinear2d  # noqa: E402, F401
from .modules import UpsamplingNearest2d  # noqa: E402, F401
from .modules import PixelShuffle  # noqa: E402, F401
from .modules import PixelUnshuffle  # noqa: E402, F401
from .modules import ChannelShuffle  # noqa: E402, F401
from .modules import Fold  # noqa: E402, F401
from .modules import Unfold  # noqa: E402, F401
from .modules import CosineSimilarity  # noqa: E402, F401
from .modules import PairwiseDistance  # noqa: E402, F401
from .modules import CircularPad1d  # noqa: E402, F401
from .modules import CircularPad2d  # noqa: E402, F401
from .modules import CircularPad3d  # noqa: E402, F401
from .modules import ConstantPad1d  # noqa: E402, F401
from .modules import ConstantPad2d  # noqa: E402, F401
from .modules import ConstantPad3d  # noqa: E402, F401
from .modules import ReflectionPad1d  # noqa: E402, F401
from .modules import ReflectionPad2d  # noqa: E402, F401
from .modules import ReflectionPad3d  # noqa: E402, F401
from .modules import ReplicationPad1d  # noqa: E402, F401
from .modules import ReplicationPad2d  # noqa: E402, F401
from .modules import ReplicationPad3d  # noqa: E402, F401
from .modules import ZeroPad1d  # noqa: E402, F401
from .modules import ZeroPad2d  # noqa: E402, F401
from .modules import ZeroPad3d  # noqa: E402, F401
# isort: on
# ----- end layers (nn-layers) -----


# ----- attention and transformers (nn-transformer) -----
# isort: off
from .modules import MultiheadAttention  # noqa: E402, F401
from .modules import Transformer  # noqa: E402, F401
from .modules import TransformerDecoder  # noqa: E402, F401
from .modules import TransformerDecoderLayer  # noqa: E402, F401
from .modules import TransformerEncoder  # noqa: E402, F401
from .modules import TransformerEncoderLayer  # noqa: E402, F401
# isort: on
# ----- end attention and transformers (nn-transformer) -----


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.nn", name)
