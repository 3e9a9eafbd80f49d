"""``torchvision.tv_tensors``: tensor types that tell v2 transforms what they hold."""

from ._bounding_boxes import BoundingBoxes, BoundingBoxFormat, is_rotated_bounding_format
from ._image import Image, Mask, Video
from ._keypoints import KeyPoints
from ._tv_tensor import TVTensor, set_return_type, wrap

__all__ = [
    "BoundingBoxFormat",
    "BoundingBoxes",
    "Image",
    "KeyPoints",
    "Mask",
    "TVTensor",
    "Video",
    "is_rotated_bounding_format",
    "set_return_type",
    "wrap",
]
