"""``torchvision.models.detection``: Faster R-CNN, Mask R-CNN, Keypoint R-CNN, RetinaNet,
FCOS, SSD and SSDlite on chainrule, with torchvision's builders, weights enums and module
trees."""

from .faster_rcnn import *  # noqa: F403
from .faster_rcnn import __all__ as _faster_rcnn_all
from .fcos import *  # noqa: F403
from .fcos import __all__ as _fcos_all
from .keypoint_rcnn import *  # noqa: F403
from .keypoint_rcnn import __all__ as _keypoint_rcnn_all
from .mask_rcnn import *  # noqa: F403
from .mask_rcnn import __all__ as _mask_rcnn_all
from .retinanet import *  # noqa: F403
from .retinanet import __all__ as _retinanet_all
from .ssd import *  # noqa: F403
from .ssd import __all__ as _ssd_all
from .ssdlite import *  # noqa: F403
from .ssdlite import __all__ as _ssdlite_all

__all__ = [
    *_faster_rcnn_all,
    *_mask_rcnn_all,
    *_retinanet_all,
    *_fcos_all,
    *_keypoint_rcnn_all,
    *_ssd_all,
    *_ssdlite_all,
]
