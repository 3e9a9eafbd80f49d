"""The augmentation cases of kornia_cases.py: kornia.augmentation replayed with the
oracle's parameters (``forward(..., params=...)``), their inverses and gradients,
same_on_batch and fixed settings, AugmentationSequential, ImageSequential,
VideoSequential and the 3D augmentations."""

from __future__ import annotations

import kornia.augmentation as K
import torch
from kornia_harness import F64, aug_params, case, grads_of, img, put, shared

# ---------------------------------------------------------------- augmentation


@case
def augmentation_replay() -> None:
    x = img((2, 3, 10, 12), 120)
    augs = {
        "affine": K.RandomAffine(30.0, (0.1, 0.2), (0.8, 1.2), 10.0, p=1.0),
        "perspective": K.RandomPerspective(0.4, p=1.0),
        "rotation": K.RandomRotation(45.0, p=1.0),
        "hflip": K.RandomHorizontalFlip(p=0.5),
        "vflip": K.RandomVerticalFlip(p=1.0),
        "crop": K.RandomCrop((6, 8), p=1.0),
        "resized_crop": K.RandomResizedCrop((8, 8), p=1.0),
        "center_crop": K.CenterCrop((6, 6)),
        "jitter": K.ColorJitter(0.2, 0.3, 0.4, 0.1, p=1.0),
        "jiggle": K.ColorJiggle(0.2, 0.3, 0.4, 0.1, p=1.0),
        "gray": K.RandomGrayscale(p=1.0),
        "gauss_blur": K.RandomGaussianBlur((3, 3), (0.5, 1.5), p=1.0),
        "brightness": K.RandomBrightness((0.8, 1.2), p=1.0),
        "contrast": K.RandomContrast((0.8, 1.2), p=1.0),
        "gamma": K.RandomGamma((0.5, 1.5), p=1.0),
        "hue": K.RandomHue((-0.2, 0.2), p=1.0),
        "saturation": K.RandomSaturation((0.5, 1.5), p=1.0),
        "solarize": K.RandomSolarize(0.1, 0.1, p=1.0),
        "posterize": K.RandomPosterize(3, p=1.0),
        "sharpness": K.RandomSharpness(0.5, p=1.0),
        "equalize": K.RandomEqualize(p=1.0),
        "invert": K.RandomInvert(p=1.0),
        "erasing": K.RandomErasing(p=1.0),
        "elastic": K.RandomElasticTransform(p=1.0),
        "motion_blur": K.RandomMotionBlur(3, 35.0, 0.5, p=1.0),
        "thin_plate": K.RandomThinPlateSpline(p=1.0),
        "shear": K.RandomShear(10.0, p=1.0),
        "translate": K.RandomTranslate(0.2, 0.2, p=1.0),
        "normalize": K.Normalize(torch.tensor([0.5, 0.4, 0.3]), torch.tensor([0.2, 0.2, 0.3])),
        "resize": K.Resize((7, 9)),
        "pad": K.PadTo((12, 14)),
    }
    for name, aug in augs.items():
        params = aug_params("aug." + name, aug, x)
        out = aug(x, params=params)
        put(name + ".out", out)
        if hasattr(aug, "transform_matrix") and aug.transform_matrix is not None:
            put(name + ".matrix", aug.transform_matrix)
        if name in (
            "affine",
            "perspective",
            "rotation",
            "hflip",
            "crop",
            "resized_crop",
            "shear",
            "translate",
        ):
            put(name + ".inverse", aug.inverse(out, params=params))


@case
def augmentation_grads() -> None:
    x = img((2, 3, 10, 12), 121, F64)
    for name, aug in {
        "affine": K.RandomAffine(30.0, (0.1, 0.2), (0.8, 1.2), 10.0, p=1.0),
        "perspective": K.RandomPerspective(0.4, p=1.0),
        "jitter": K.ColorJitter(0.2, 0.3, 0.4, 0.1, p=1.0),
        "resized_crop": K.RandomResizedCrop((8, 8), p=1.0),
    }.items():
        params = aug_params("aug_grad." + name, aug, x.float())
        grads_of(name, lambda t, a=aug, p=params: a(t, params=p), x)


@case
def augmentation_same_on_batch() -> None:
    # on each side: same_on_batch gives one draw for the batch
    x = img((3, 3, 10, 12), 122)
    x = x[:1].expand(3, -1, -1, -1).contiguous()
    aug = K.RandomAffine(30.0, p=1.0, same_on_batch=True)
    out = aug(x)
    put("affine_same", (out - out[:1]).abs().max() == 0)
    put("affine_replay", (aug(x, params=aug._params) - out).abs().max() < 1e-6)
    jit = K.ColorJitter(0.3, 0.3, 0.3, 0.1, p=1.0, same_on_batch=True)
    out = jit(x)
    put("jitter_same", (out - out[:1]).abs().max() == 0)
    # deterministic settings: p=1 with fixed ranges
    put("fixed_affine", K.RandomAffine((20.0, 20.0), None, (1.1, 1.1), p=1.0)(x))
    put("fixed_rotation", K.RandomRotation((15.0, 15.0), p=1.0)(x))
    put("p0_identity", K.RandomAffine(30.0, p=0.0)(x))
    put("hflip_p1", K.RandomHorizontalFlip(p=1.0)(x))


@case
def augmentation_sequential() -> None:
    x = img((2, 3, 10, 12), 123)
    mask = (img((2, 1, 10, 12), 124) > 0.5).float()
    boxes = torch.tensor([[[1.0, 1.0, 6.0, 5.0]], [[2.0, 3.0, 9.0, 8.0]]])
    kps = torch.tensor([[[2.0, 3.0], [7.0, 4.0]], [[5.0, 5.0], [1.0, 8.0]]])

    def make() -> K.AugmentationSequential:
        return K.AugmentationSequential(
            K.RandomAffine(25.0, (0.1, 0.1), (0.9, 1.1), p=1.0),
            K.ColorJitter(0.2, 0.2, 0.2, 0.05, p=1.0),
            K.RandomHorizontalFlip(p=1.0),
            data_keys=["input", "mask", "bbox_xyxy", "keypoints"],
        )

    seq = make()

    def draw() -> list:
        seq(x, mask, boxes, kps)
        return [
            (
                p.name,
                {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in p.data.items()},
            )
            for p in seq._params
        ]

    saved = shared("seq_params", draw)
    from kornia.augmentation.container.params import ParamItem

    params = [ParamItem(n, d) for n, d in saved]
    out = seq(x, mask, boxes, kps, params=params)
    for i, o in enumerate(out):
        put(f"seq.{i}", o)
    inv = seq.inverse(*out, params=params)
    for i, o in enumerate(inv):
        put(f"seq.inverse.{i}", o)


# ---------------------------------------------------------------- more augmentation


@case
def augmentation_more() -> None:
    x = img((2, 3, 12, 12), 190)
    augs = {
        "plasma_shadow": K.RandomPlasmaShadow(p=1.0),
        "planckian": K.RandomPlanckianJitter(p=1.0),
        "noise": K.RandomGaussianNoise(0.0, 0.1, p=1.0),
        "salt_pepper": K.RandomSaltAndPepperNoise(p=1.0),
        "channel_shuffle": K.RandomChannelShuffle(p=1.0),
        "box_blur": K.RandomBoxBlur((3, 3), p=1.0),
        "median_blur": K.RandomMedianBlur((3, 3), p=1.0),
        "clahe": K.RandomClahe(p=1.0),
        "fisheye": K.RandomFisheye(
            torch.tensor([-0.1, 0.1]), torch.tensor([-0.1, 0.1]), torch.tensor([0.8, 1.2]), p=1.0
        ),
        "auto_contrast": K.RandomAutoContrast(p=1.0),
        "linear_illum": K.RandomLinearIllumination(p=1.0),
        "gauss_illum": K.RandomGaussianIllumination(p=1.0),
        "rgb_shift": K.RandomRGBShift(p=1.0),
        "channel_dropout": K.RandomChannelDropout(p=1.0),
        "rain": K.RandomRain(p=1.0, drop_height=(1, 2), drop_width=(1, 2)),
        "snow": K.RandomSnow(p=1.0),
        "jpeg": K.RandomJPEG(p=1.0),
        "longest_max": K.LongestMaxSize(9),
        "smallest_max": K.SmallestMaxSize(9),
        "pad_to": K.PadTo((14, 15), pad_mode="reflect"),
        "denormalize": K.Denormalize(torch.tensor([0.5, 0.4, 0.3]), torch.tensor([0.2, 0.2, 0.3])),
    }
    for name, aug in augs.items():
        params = aug_params("aug2." + name, aug, x)
        put(name + ".out", aug(x, params=params))
    mix = K.RandomMixUpV2(p=1.0)
    labels = torch.tensor([0, 1])
    mix(x, labels)
    p = shared("aug2.mixup", lambda: {k: v.clone() for k, v in mix._params.items()})
    out, lab = mix(x, labels, params=p)
    put("mixup.out", out)
    put("mixup.labels", lab)
    cut = K.RandomCutMixV2(p=1.0)
    cut(x, labels)
    p = shared("aug2.cutmix", lambda: {k: v.clone() for k, v in cut._params.items()})
    out, lab = cut(x, labels, params=p)
    put("cutmix.out", out)
    put("cutmix.labels", lab)


@case
def augmentation_3d_and_containers() -> None:
    v = img((2, 1, 4, 8, 8), 200)
    augs3d = {
        "affine3d": K.RandomAffine3D((15.0, 15.0, 15.0), p=1.0),
        "hflip3d": K.RandomHorizontalFlip3D(p=1.0),
        "depth_flip3d": K.RandomDepthicalFlip3D(p=1.0),
        "rotation3d": K.RandomRotation3D((10.0, 20.0, 30.0), p=1.0),
        "crop3d": K.RandomCrop3D((3, 6, 6), p=1.0),
        "center_crop3d": K.CenterCrop3D((2, 4, 4)),
        "perspective3d": K.RandomPerspective3D(0.3, p=1.0),
        "equalize3d": K.RandomEqualize3D(p=1.0),
    }
    for name, aug in augs3d.items():
        params = aug_params("aug3d." + name, aug, v)
        put(name + ".out", aug(v, params=params))
    x = img((2, 3, 10, 12), 201)
    seq = K.ImageSequential(
        K.RandomAffine(20.0, p=1.0),
        K.RandomBrightness((0.9, 1.1), p=1.0),
        K.RandomVerticalFlip(p=1.0),
    )

    def draw() -> list:
        seq(x)
        return [
            (
                p.name,
                {k: t.clone() if isinstance(t, torch.Tensor) else t for k, t in p.data.items()},
            )
            for p in seq._params
        ]

    from kornia.augmentation.container.params import ParamItem

    saved = shared("imageseq", draw)
    put("image_sequential", seq(x, params=[ParamItem(n, d) for n, d in saved]))
    video = img((1, 3, 3, 10, 12), 202)
    vs = K.VideoSequential(
        K.RandomAffine(20.0, p=1.0),
        K.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0),
        data_format="BCTHW",
        same_on_frame=True,
    )

    def draw_v() -> list:
        vs(video)
        return [
            (
                p.name,
                {k: t.clone() if isinstance(t, torch.Tensor) else t for k, t in p.data.items()},
            )
            for p in vs._params
        ]

    saved = shared("videoseq", draw_v)
    put("video_sequential", vs(video, params=[ParamItem(n, d) for n, d in saved]))
