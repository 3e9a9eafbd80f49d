"""``nn.utils``: gradient clipping, flattening parameters into one vector, parametrizations
(``parametrize``, ``parametrizations``), the old weight and spectral normalization hooks,
(``rnn``) variable-length sequences for the recurrent layers, and (``prune``) pruning."""

from __future__ import annotations

# ----- nn-actloss: parametrizations, weight and spectral normalization -----
# ----- nn-rnn: variable-length sequences -----
from . import (  # noqa: F401, E402
    fusion,
    parametrizations,
    parametrize,
    prune,
    rnn,  # noqa: F401, E402
    stateless,
)
from .clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (  # noqa: F401, E402
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init  # noqa: F401, E402
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: F401, E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401, E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401, E402

# ----- end nn-actloss -----


def __getattr__(name: str):
    from chainrule._missing import (
        missing,
    )  # (absolute: under `chainrule run` these modules are also torch.*)

    raise missing("torch.nn.utils", name)
