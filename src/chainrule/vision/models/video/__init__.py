"""``torchvision.models.video``: video classification models on clips
``(B, 3, T, H, W)``: the video ResNets (R3D, MC3, R(2+1)D), S3D, MViT (v1 and v2) and
the Video Swin Transformer (Swin3D)."""

from .mvit import *  # noqa: F403
from .resnet import *  # noqa: F403
from .s3d import *  # noqa: F403
from .swin_transformer import *  # noqa: F403
