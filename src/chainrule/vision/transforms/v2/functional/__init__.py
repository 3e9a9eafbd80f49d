"""``torchvision.transforms.v2.functional``: functionals that dispatch on the input's type
(plain tensor, PIL image, ``tv_tensors.Image``/``Video``/``Mask``/``BoundingBoxes``) to
kernels named ``<op>_image``, ``<op>_mask``, ... (see :func:`register_kernel`)."""

from ...functional import InterpolationMode
from . import _augment, _boxes, _color, _geometry, _keypoints, _meta, _misc
from ._augment import *  # noqa: F403
from ._boxes import *  # noqa: F403
from ._color import *  # noqa: F403
from ._geometry import *  # noqa: F403
from ._keypoints import *  # noqa: F403
from ._meta import *  # noqa: F403
from ._misc import *  # noqa: F403
from ._type_conversion import pil_to_tensor, to_image, to_pil_image, to_tensor
from ._utils import is_pure_tensor, register_kernel

__all__ = [
    "InterpolationMode",
    "is_pure_tensor",
    "pil_to_tensor",
    "register_kernel",
    "to_image",
    "to_pil_image",
    "to_tensor",
    *_augment.__all__,
    *_boxes.__all__,
    *_color.__all__,
    *_geometry.__all__,
    *_keypoints.__all__,
    *_meta.__all__,
    *_misc.__all__,
]
