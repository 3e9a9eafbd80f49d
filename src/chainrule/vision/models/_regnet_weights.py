"""The WeightsEnums of the RegNet builders (``models/regnet.py``): the ImageNet checkpoints'
urls, their presets and metadata, as torchvision 0.28 lists them."""

from __future__ import annotations

from functools import partial

from ._api import Weights, WeightsEnum
from ._meta import _IMAGENET_CATEGORIES
from ._utils import ImageClassification

__all__ = [
    "RegNet_Y_400MF_Weights",
    "RegNet_Y_800MF_Weights",
    "RegNet_Y_1_6GF_Weights",
    "RegNet_Y_3_2GF_Weights",
    "RegNet_Y_8GF_Weights",
    "RegNet_Y_16GF_Weights",
    "RegNet_Y_32GF_Weights",
    "RegNet_Y_128GF_Weights",
    "RegNet_X_400MF_Weights",
    "RegNet_X_800MF_Weights",
    "RegNet_X_1_6GF_Weights",
    "RegNet_X_3_2GF_Weights",
    "RegNet_X_8GF_Weights",
    "RegNet_X_16GF_Weights",
    "RegNet_X_32GF_Weights",
]


class RegNet_Y_400MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_400mf-c65dace8.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 4344144,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#small-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 74.046, "acc@5": 91.716}},
            "_ops": 0.402,
            "_file_size": 16.806,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_400mf-e6988f5f.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 4344144,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 75.804, "acc@5": 92.742}},
            "_ops": 0.402,
            "_file_size": 16.806,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_800MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_800mf-1b27b58c.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 6432512,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#small-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 76.42, "acc@5": 93.136}},
            "_ops": 0.834,
            "_file_size": 24.774,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_800mf-58fc7688.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 6432512,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 78.828, "acc@5": 94.502}},
            "_ops": 0.834,
            "_file_size": 24.774,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_1_6GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_1_6gf-b11a554e.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 11202430,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#small-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 77.95, "acc@5": 93.966}},
            "_ops": 1.612,
            "_file_size": 43.152,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_1_6gf-0d7bc02a.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 11202430,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.876, "acc@5": 95.444}},
            "_ops": 1.612,
            "_file_size": 43.152,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_3_2GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_3_2gf-b5a9779c.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 19436338,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#medium-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 78.948, "acc@5": 94.576}},
            "_ops": 3.176,
            "_file_size": 74.567,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_3_2gf-9180c971.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 19436338,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.982, "acc@5": 95.972}},
            "_ops": 3.176,
            "_file_size": 74.567,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_8GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_8gf-d0d0e4a8.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 39381472,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#medium-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.032, "acc@5": 95.048}},
            "_ops": 8.473,
            "_file_size": 150.701,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_8gf-dc2b1b54.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 39381472,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.828, "acc@5": 96.33}},
            "_ops": 8.473,
            "_file_size": 150.701,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_16GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_16gf-9e6ed7dd.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 83590140,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#large-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.424, "acc@5": 95.24}},
            "_ops": 15.912,
            "_file_size": 319.49,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_16gf-3e4a00f9.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 83590140,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.886, "acc@5": 96.328}},
            "_ops": 15.912,
            "_file_size": 319.49,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_E2E_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_16gf_swag-43afe44d.pth",
        transforms=partial(
            ImageClassification, crop_size=384, resize_size=384, interpolation="bicubic"
        ),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/facebookresearch/SWAG",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 83590140,
            "_metrics": {"ImageNet-1K": {"acc@1": 86.012, "acc@5": 98.054}},
            "_ops": 46.735,
            "_file_size": 319.49,
            "_docs": (
                "\n"
                "                These weights are learnt via transfer learning by end-to-end fine-tuning the original\n"
                "                `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_LINEAR_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_16gf_lc_swag-f3ec0043.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=224, interpolation="bicubic"
        ),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/5793",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 83590140,
            "_metrics": {"ImageNet-1K": {"acc@1": 83.976, "acc@5": 97.244}},
            "_ops": 15.912,
            "_file_size": 319.49,
            "_docs": (
                "\n"
                "                These weights are composed of the original frozen `SWAG <https://arxiv.org/abs/2201.08371>`_ trunk\n"
                "                weights and a linear classifier learnt on top of them trained on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_32GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_32gf-4dee3f7a.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 145046770,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#large-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.878, "acc@5": 95.34}},
            "_ops": 32.28,
            "_file_size": 554.076,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_y_32gf-8db6d4b5.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 145046770,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 83.368, "acc@5": 96.498}},
            "_ops": 32.28,
            "_file_size": 554.076,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_E2E_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_32gf_swag-04fdfa75.pth",
        transforms=partial(
            ImageClassification, crop_size=384, resize_size=384, interpolation="bicubic"
        ),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/facebookresearch/SWAG",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 145046770,
            "_metrics": {"ImageNet-1K": {"acc@1": 86.838, "acc@5": 98.362}},
            "_ops": 94.826,
            "_file_size": 554.076,
            "_docs": (
                "\n"
                "                These weights are learnt via transfer learning by end-to-end fine-tuning the original\n"
                "                `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_LINEAR_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_32gf_lc_swag-e1583746.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=224, interpolation="bicubic"
        ),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/5793",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 145046770,
            "_metrics": {"ImageNet-1K": {"acc@1": 84.622, "acc@5": 97.48}},
            "_ops": 32.28,
            "_file_size": 554.076,
            "_docs": (
                "\n"
                "                These weights are composed of the original frozen `SWAG <https://arxiv.org/abs/2201.08371>`_ trunk\n"
                "                weights and a linear classifier learnt on top of them trained on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_128GF_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_128gf_swag-c8ce3e52.pth",
        transforms=partial(
            ImageClassification, crop_size=384, resize_size=384, interpolation="bicubic"
        ),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/facebookresearch/SWAG",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 644812894,
            "_metrics": {"ImageNet-1K": {"acc@1": 88.228, "acc@5": 98.682}},
            "_ops": 374.57,
            "_file_size": 2461.564,
            "_docs": (
                "\n"
                "                These weights are learnt via transfer learning by end-to-end fine-tuning the original\n"
                "                `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    IMAGENET1K_SWAG_LINEAR_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_y_128gf_lc_swag-cbe8ce12.pth",
        transforms=partial(
            ImageClassification, crop_size=224, resize_size=224, interpolation="bicubic"
        ),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "recipe": "https://github.com/pytorch/vision/pull/5793",
            "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE",
            "num_params": 644812894,
            "_metrics": {"ImageNet-1K": {"acc@1": 86.068, "acc@5": 97.844}},
            "_ops": 127.518,
            "_file_size": 2461.564,
            "_docs": (
                "\n"
                "                These weights are composed of the original frozen `SWAG <https://arxiv.org/abs/2201.08371>`_ trunk\n"
                "                weights and a linear classifier learnt on top of them trained on ImageNet-1K data.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


class RegNet_X_400MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_400mf-adf1edd5.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 5495976,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#small-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 72.834, "acc@5": 90.95}},
            "_ops": 0.414,
            "_file_size": 21.258,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_400mf-62229a5f.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 5495976,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
            "_metrics": {"ImageNet-1K": {"acc@1": 74.864, "acc@5": 92.322}},
            "_ops": 0.414,
            "_file_size": 21.257,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_X_800MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_800mf-ad17e45c.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 7259656,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#small-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 75.212, "acc@5": 92.348}},
            "_ops": 0.8,
            "_file_size": 27.945,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_800mf-94a99ebd.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 7259656,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
            "_metrics": {"ImageNet-1K": {"acc@1": 77.522, "acc@5": 93.826}},
            "_ops": 0.8,
            "_file_size": 27.945,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_X_1_6GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_1_6gf-e3633e7f.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 9190136,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#small-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 77.04, "acc@5": 93.44}},
            "_ops": 1.603,
            "_file_size": 35.339,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_1_6gf-a12f2b72.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 9190136,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
            "_metrics": {"ImageNet-1K": {"acc@1": 79.668, "acc@5": 94.922}},
            "_ops": 1.603,
            "_file_size": 35.339,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_X_3_2GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_3_2gf-f342aeae.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 15296552,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#medium-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 78.364, "acc@5": 93.992}},
            "_ops": 3.177,
            "_file_size": 58.756,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_3_2gf-7071aa85.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 15296552,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.196, "acc@5": 95.43}},
            "_ops": 3.177,
            "_file_size": 58.756,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_X_8GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_8gf-03ceed89.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 39572648,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#medium-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 79.344, "acc@5": 94.686}},
            "_ops": 7.995,
            "_file_size": 151.456,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_8gf-2b70d774.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 39572648,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 81.682, "acc@5": 95.678}},
            "_ops": 7.995,
            "_file_size": 151.456,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_X_16GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_16gf-2007eb11.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 54278536,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#medium-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.058, "acc@5": 94.944}},
            "_ops": 15.941,
            "_file_size": 207.627,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_16gf-ba3796d7.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 54278536,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 82.716, "acc@5": 96.196}},
            "_ops": 15.941,
            "_file_size": 207.627,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2


class RegNet_X_32GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/regnet_x_32gf-9d47f8d0.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 107811560,
            "recipe": "https://github.com/pytorch/vision/tree/main/references/classification#large-models",
            "_metrics": {"ImageNet-1K": {"acc@1": 80.622, "acc@5": 95.248}},
            "_ops": 31.736,
            "_file_size": 412.039,
            "_docs": "These weights reproduce closely the results of the paper using a simple training recipe.",
        },
    )
    IMAGENET1K_V2 = Weights(
        url="https://download.pytorch.org/models/regnet_x_32gf-6eb8fdc6.pth",
        transforms=partial(ImageClassification, crop_size=224, resize_size=232),
        meta={
            "min_size": (1, 1),
            "categories": _IMAGENET_CATEGORIES,
            "num_params": 107811560,
            "recipe": "https://github.com/pytorch/vision/issues/3995#new-recipe",
            "_metrics": {"ImageNet-1K": {"acc@1": 83.014, "acc@5": 96.288}},
            "_ops": 31.736,
            "_file_size": 412.039,
            "_docs": (
                "\n"
                "                These weights improve upon the results of the original paper by using a modified version of TorchVision's\n"
                "                `new training recipe\n"
                "                <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/>`_.\n"
                "            "
            ),
        },
    )
    DEFAULT = IMAGENET1K_V2
