"""``torchvision.models.segmentation``: semantic segmentation models (FCN, DeepLabV3,
LR-ASPP) whose output is a dict of per-pixel class scores at the input's size."""

from .deeplabv3 import *  # noqa: F403
from .fcn import *  # noqa: F403
from .lraspp import *  # noqa: F403
