"""``torchvision.transforms.v2``: transforms that take any nesting of inputs (an image,
``(image, target)``, dicts) and transform images, videos, masks and boxes together with
one draw of random parameters. They accept chainrule tensors, PIL images and
:mod:`chainrule.vision.tv_tensors`; the kernels are v1's (see :mod:`.functional`)."""

from ..autoaugment import AutoAugmentPolicy
from ..functional import InterpolationMode
from . import functional
from ._augment import CutMix, MixUp, RandomErasing
from ._auto_augment import AugMix, AutoAugment, RandAugment, TrivialAugmentWide
from ._color import (
    RGB,
    ColorJitter,
    Grayscale,
    RandomAdjustSharpness,
    RandomAutocontrast,
    RandomChannelPermutation,
    RandomEqualize,
    RandomGrayscale,
    RandomInvert,
    RandomPhotometricDistort,
    RandomPosterize,
    RandomSolarize,
)
from ._container import Compose, RandomApply, RandomChoice, RandomOrder
from ._deprecated import ToTensor
from ._geometry import (
    CenterCrop,
    ElasticTransform,
    FiveCrop,
    Pad,
    RandomAffine,
    RandomCrop,
    RandomHorizontalFlip,
    RandomPerspective,
    RandomResize,
    RandomResizedCrop,
    RandomRotation,
    RandomShortestSize,
    RandomVerticalFlip,
    RandomZoomOut,
    Resize,
    ScaleJitter,
    TenCrop,
)
from ._meta import ClampBoundingBoxes, ConvertBoundingBoxFormat
from ._misc import (
    ConvertImageDtype,
    GaussianBlur,
    GaussianNoise,
    Identity,
    Lambda,
    LinearTransformation,
    Normalize,
    ToDtype,
)
from ._sanitize import SanitizeBoundingBoxes
from ._temporal import UniformTemporalSubsample
from ._transform import Transform
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor
from ._utils import check_type, get_bounding_boxes, has_all, has_any, query_chw, query_size

__all__ = [
    "RGB",
    "AugMix",
    "AutoAugment",
    "AutoAugmentPolicy",
    "CenterCrop",
    "ClampBoundingBoxes",
    "ConvertBoundingBoxFormat",
    "CutMix",
    "MixUp",
    "SanitizeBoundingBoxes",
    "UniformTemporalSubsample",
    "ColorJitter",
    "Compose",
    "ConvertImageDtype",
    "ElasticTransform",
    "FiveCrop",
    "GaussianBlur",
    "GaussianNoise",
    "Grayscale",
    "Identity",
    "InterpolationMode",
    "Lambda",
    "LinearTransformation",
    "Normalize",
    "PILToTensor",
    "Pad",
    "RandAugment",
    "RandomAdjustSharpness",
    "RandomAffine",
    "RandomApply",
    "RandomAutocontrast",
    "RandomChannelPermutation",
    "RandomChoice",
    "RandomCrop",
    "RandomEqualize",
    "RandomErasing",
    "RandomGrayscale",
    "RandomHorizontalFlip",
    "RandomInvert",
    "RandomOrder",
    "RandomPerspective",
    "RandomPhotometricDistort",
    "RandomPosterize",
    "RandomResize",
    "RandomResizedCrop",
    "RandomRotation",
    "RandomShortestSize",
    "RandomSolarize",
    "RandomVerticalFlip",
    "RandomZoomOut",
    "Resize",
    "ScaleJitter",
    "TenCrop",
    "ToDtype",
    "ToImage",
    "ToPILImage",
    "ToPureTensor",
    "ToTensor",
    "Transform",
    "TrivialAugmentWide",
    "check_type",
    "functional",
    "get_bounding_boxes",
    "has_all",
    "has_any",
    "query_chw",
    "query_size",
]
