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
from .parameter import Buffer, Parameter  # noqa: F401

# ----- layers (nn-layers) -----
# isort: off
from .modules import AlphaDropout  # noqa: E402, F401
from .modules import Dropout  # noqa: E402, F401
from .modules import Dropout1d  # noqa: E402, F401
from .modules import Dropout2d  # noqa: E402, F401
from .modules import Dropout3d  # noqa: E402, F401
from .modules import FeatureAlphaDropout  # noqa: E402, F401
from .modules import Bilinear  # noqa: E402, F401
from .modules import Linear  # noqa: E402, F401
from .modules import LayerNorm  # noqa: E402, F401
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
    from .._missing import missing

    raise missing("torch.nn", name)
