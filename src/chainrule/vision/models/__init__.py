"""``torchvision.models``: the image classification models, each built by a function
(``resnet18(weights=None, progress=True, **kwargs)``) that can load torchvision's
pretrained weights, the registry (``get_model``, ``list_models``, ...), and the
``detection``, ``segmentation``, ``video`` and ``optical_flow`` packages.
``quantization`` is not implemented."""

from . import detection as detection  # (the packages: their builders join the registry)
from . import optical_flow as optical_flow
from . import segmentation as segmentation
from . import video as video
from ._api import Weights as Weights
from ._api import WeightsEnum as WeightsEnum
from ._api import get_model as get_model
from ._api import get_model_builder as get_model_builder
from ._api import get_model_weights as get_model_weights
from ._api import get_weight as get_weight
from ._api import list_models as list_models
from .alexnet import *  # noqa: F403
from .convnext import *  # noqa: F403
from .densenet import *  # noqa: F403
from .efficientnet import *  # noqa: F403
from .googlenet import *  # noqa: F403
from .inception import *  # noqa: F403
from .maxvit import *  # noqa: F403
from .mnasnet import *  # noqa: F403
from .mobilenetv2 import *  # noqa: F403
from .mobilenetv3 import *  # noqa: F403
from .regnet import *  # noqa: F403
from .resnet import *  # noqa: F403
from .shufflenetv2 import *  # noqa: F403
from .squeezenet import *  # noqa: F403
from .swin_transformer import *  # noqa: F403
from .vgg import *  # noqa: F403
from .vision_transformer import *  # noqa: F403
