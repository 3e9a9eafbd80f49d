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
from .dropout import AlphaDropout  # noqa: E402
from .dropout import Dropout  # noqa: E402
from .dropout import Dropout1d  # noqa: E402
from .dropout import Dropout2d  # noqa: E402
from .dropout import Dropout3d  # noqa: E402
from .dropout import FeatureAlphaDropout  # noqa: E402
from .linear import Bilinear  # noqa: E402
from .linear import Linear  # noqa: E402
from .linear import NonDynamicallyQuantizableLinear  # noqa: E402
from .normalization import LayerNorm  # noqa: E402
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
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
    "Bilinear",
    "Linear",
    "NonDynamicallyQuantizableLinear",
    "LayerNorm",
    # ----- end layers (nn-layers) -----
    # ----- attention and transformers (nn-transformer) -----
    "MultiheadAttention",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    # ----- end attention and transformers (nn-transformer) -----
]


def __getattr__(name: str):
    from ..._missing import missing

    raise missing("torch.nn.modules", name)
