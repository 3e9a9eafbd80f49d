"""``torchvision.transforms``: the v1 transform classes (:mod:`.transforms`), the
automatic augmentation policies (:mod:`.autoaugment`) and the functions they call
(:mod:`.functional`), on chainrule tensors and PIL images; :mod:`.v2` adds the v2 API."""

from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide
from .transforms import *  # noqa: F403
from .transforms import __all__ as _transform_names

__all__ = [
    *_transform_names,
    "AugMix",
    "AutoAugment",
    "AutoAugmentPolicy",
    "RandAugment",
    "TrivialAugmentWide",
]
