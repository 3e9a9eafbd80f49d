"""``chainrule.nn.modules``: ``Module``, the containers and the layers, one file per family
as in PyTorch (``module.py``, ``container.py``, ``linear.py``, ``flatten.py``, ...).
A new family adds its file here and its names to the imports below."""

from __future__ import annotations

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Identity
from .module import Module

# ----- layers (nn-layers) -----
# isort: off
from .conv import Conv1d  # noqa: E402
from .conv import Conv2d  # noqa: E402
from .conv import Conv3d  # noqa: E402
from .conv import ConvTranspose1d  # noqa: E402
from .conv import ConvTranspose2d  # noqa: E402
from .conv import ConvTranspose3d  # noqa: E402
from .conv import LazyConv1d  # noqa: E402
from .conv import LazyConv2d  # noqa: E402
from .conv import LazyConv3d  # noqa: E402
from .conv import LazyConvTranspose1d  # noqa: E402
from .conv import LazyConvTranspose2d  # noqa: E402
from .conv import LazyConvTranspose3d  # noqa: E402
from .dropout import AlphaDropout  # noqa: E402
from .dropout import Dropout  # noqa: E402
from .dropout import Dropout1d  # noqa: E402
from .dropout import Dropout2d  # noqa: E402
from .dropout import Dropout3d  # noqa: E402
from .dropout import FeatureAlphaDropout  # noqa: E402
from .lazy import LazyModuleMixin  # noqa: E402
from .linear import Bilinear  # noqa: E402
from .linear import LazyLinear  # noqa: E402
from .linear import Linear  # noqa: E402
from .linear import NonDynamicallyQuantizableLinear  # noqa: E402
from .normalization import LayerNorm  # noqa: E402
from .pooling import AdaptiveAvgPool1d  # noqa: E402
from .pooling import AdaptiveAvgPool2d  # noqa: E402
from .pooling import AdaptiveAvgPool3d  # noqa: E402
from .pooling import AdaptiveMaxPool1d  # noqa: E402
from .pooling import AdaptiveMaxPool2d  # noqa: E402
from .pooling import AdaptiveMaxPool3d  # noqa: E402
from .pooling import AvgPool1d  # noqa: E402
from .pooling import AvgPool2d  # noqa: E402
from .pooling import AvgPool3d  # noqa: E402
from .pooling import LPPool1d  # noqa: E402
from .pooling import LPPool2d  # noqa: E402
from .pooling import LPPool3d  # noqa: E402
from .pooling import MaxPool1d  # noqa: E402
from .pooling import MaxPool2d  # noqa: E402
from .pooling import MaxPool3d  # noqa: E402
from .pooling import MaxUnpool1d  # noqa: E402
from .pooling import MaxUnpool2d  # noqa: E402
from .pooling import MaxUnpool3d  # noqa: E402
from .batchnorm import BatchNorm1d  # noqa: E402
from .batchnorm import BatchNorm2d  # noqa: E402
from .batchnorm import BatchNorm3d  # noqa: E402
from .batchnorm import LazyBatchNorm1d  # noqa: E402
from .batchnorm import LazyBatchNorm2d  # noqa: E402
from .batchnorm import LazyBatchNorm3d  # noqa: E402
from .instancenorm import InstanceNorm1d  # noqa: E402
from .instancenorm import InstanceNorm2d  # noqa: E402
from .instancenorm import InstanceNorm3d  # noqa: E402
from .instancenorm import LazyInstanceNorm1d  # noqa: E402
from .instancenorm import LazyInstanceNorm2d  # noqa: E402
from .instancenorm import LazyInstanceNorm3d  # noqa: E402
from .normalization import GroupNorm  # noqa: E402
from .normalization import LocalResponseNorm  # noqa: E402
from .normalization import RMSNorm  # noqa: E402
from .sparse import Embedding  # noqa: E402
from .sparse import EmbeddingBag  # noqa: E402
from .upsampling import Upsample  # noqa: E402
from .upsampling import UpsamplingBilinear2d  # noqa: E402
from .upsampling import UpsamplingNearest2d  # noqa: E402
from .pixelshuffle import PixelShuffle  # noqa: E402
from .pixelshuffle import PixelUnshuffle  # noqa: E402
from .channelshuffle import ChannelShuffle  # noqa: E402
from .fold import Fold  # noqa: E402
from .fold import Unfold  # noqa: E402
from .distance import CosineSimilarity  # noqa: E402
from .distance import PairwiseDistance  # noqa: E402
from .padding import CircularPad1d  # noqa: E402
from .padding import CircularPad2d  # noqa: E402
from .padding import CircularPad3d  # noqa: E402
from .padding import ConstantPad1d  # noqa: E402
from .padding import ConstantPad2d  # noqa: E402
from .padding import ConstantPad3d  # noqa: E402
from .padding import ReflectionPad1d  # noqa: E402
from .padding import ReflectionPad2d  # noqa: E402
from .padding import ReflectionPad3d  # noqa: E402
from .padding import ReplicationPad1d  # noqa: E402
from .padding import ReplicationPad2d  # noqa: E402
from .padding import ReplicationPad3d  # noqa: E402
from .padding import ZeroPad1d  # noqa: E402
from .padding import ZeroPad2d  # noqa: E402
from .padding import ZeroPad3d  # noqa: E402
# isort: on
# ----- end layers (nn-layers) -----

# ----- attention and transformers (nn-transformer) -----
# isort: off
from .activation_attention import MultiheadAttention  # noqa: E402
from .transformer import Transformer  # noqa: E402
from .transformer import TransformerDecoder  # noqa: E402
from .transformer import TransformerDecoderLayer  # noqa: E402
from .transformer import TransformerEncoder  # noqa: E402
from .transformer import TransformerEncoderLayer  # noqa: E402

# isort: on
# ----- end attention and transformers (nn-transformer) -----
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
    # ----- layers (nn-layers) -----
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
    "Bilinear",
    "LazyModuleMixin",
    "LazyLinear",
    "Linear",
    "NonDynamicallyQuantizableLinear",
    "LayerNorm",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "GroupNorm",
    "LocalResponseNorm",
    "RMSNorm",
    "Embedding",
    "EmbeddingBag",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "PixelShuffle",
    "PixelUnshuffle",
    "ChannelShuffle",
    "Fold",
    "Unfold",
    "CosineSimilarity",
    "PairwiseDistance",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    # ----- end layers (nn-layers) -----
    # ----- attention and transformers (nn-transformer) -----
    "MultiheadAttention",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    # ----- end attention and transformers (nn-transformer) -----
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


# ----- nn-actloss: activations and losses -----
from .activation import (  # noqa: E402
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
from .loss import (  # noqa: E402
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

__all__ += [
    "Threshold",
    "ReLU",
    "RReLU",
    "Hardtanh",
    "ReLU6",
    "Sigmoid",
    "Hardsigmoid",
    "Tanh",
    "SiLU",
    "Mish",
    "Hardswish",
    "ELU",
    "CELU",
    "SELU",
    "GLU",
    "GELU",
    "Hardshrink",
    "LeakyReLU",
    "LogSigmoid",
    "Softplus",
    "Softshrink",
    "PReLU",
    "Softsign",
    "Tanhshrink",
    "Softmin",
    "Softmax",
    "Softmax2d",
    "LogSoftmax",
    "L1Loss",
    "NLLLoss",
    "NLLLoss2d",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "KLDivLoss",
    "MSELoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "HingeEmbeddingLoss",
    "MultiLabelMarginLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "SoftMarginLoss",
    "CrossEntropyLoss",
    "MultiLabelSoftMarginLoss",
    "CosineEmbeddingLoss",
    "MarginRankingLoss",
    "MultiMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "CTCLoss",
]
# ----- end nn-actloss -----


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.nn.modules", name)
