"""Under one seed, torchvision's random transforms and a model's initial weights are
torchvision's: chainrule's generator and samplers are PyTorch's (tests/test_random_streams.py),
and chainrule.vision draws what torchvision draws, in its order."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import vision as cv
from chainrule.vision import tv_tensors as ctv
from chainrule.vision.transforms import v2 as cT

TRANSFORMS = {
    "RandomCrop": lambda m: m.RandomCrop(20),
    "RandomResizedCrop": lambda m: m.RandomResizedCrop(16, antialias=True),
    "RandomHorizontalFlip": lambda m: m.RandomHorizontalFlip(),
    "RandomRotation": lambda m: m.RandomRotation(30),
    "ColorJitter": lambda m: m.ColorJitter(0.4, 0.4, 0.4, 0.1),
    "RandomErasing": lambda m: m.RandomErasing(1.0),
    "RandomAffine": lambda m: m.RandomAffine(20, (0.1, 0.1)),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_random_transforms(tv, name):
    image = np.arange(3 * 32 * 32, dtype=np.float32).reshape(3, 32, 32) / 3072
    theirs, ours = TRANSFORMS[name](tv.transforms), TRANSFORMS[name](cv.transforms)
    torch.manual_seed(3)
    expected = torch.stack([theirs(torch.from_numpy(image)) for _ in range(4)]).numpy()
    cr.manual_seed(3)
    got = cr.stack([ours(cr.tensor(image)) for _ in range(4)]).numpy()
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_auto_augment(tv):
    image = (np.arange(3 * 32 * 32) % 256).astype(np.uint8).reshape(3, 32, 32)
    torch.manual_seed(5)
    expected = [tv.transforms.AutoAugment()(torch.from_numpy(image)).numpy() for _ in range(4)]
    cr.manual_seed(5)
    got = [cv.transforms.AutoAugment()(cr.tensor(image)).numpy() for _ in range(4)]
    np.testing.assert_array_equal(np.stack(got), np.stack(expected))


def test_model_initial_weights(tv):
    torch.manual_seed(0)
    theirs = tv.models.resnet18()
    cr.manual_seed(0)
    ours = cv.models.resnet18()
    for a, b in zip(theirs.state_dict().values(), ours.state_dict().values()):
        np.testing.assert_array_equal(b.numpy(), a.numpy())


@pytest.fixture(scope="module")
def tT(tv):
    """torchvision.transforms.v2 (with tv_tensors)."""
    return importlib.import_module("torchvision.transforms.v2")


V2_TRANSFORMS = {
    "RandomResizedCrop": lambda m: m.RandomResizedCrop(16, antialias=True),
    "RandomPhotometricDistort": lambda m: m.RandomPhotometricDistort(p=0.7),
    "RandomZoomOut": lambda m: m.RandomZoomOut(p=1.0),
    "RandomChoice": lambda m: m.RandomChoice([m.RandomInvert(1.0), m.RandomVerticalFlip(1.0)]),
    "TrivialAugmentWide": lambda m: m.TrivialAugmentWide(),
    "AutoAugment": lambda m: m.AutoAugment(),
}


@pytest.mark.parametrize("name", list(V2_TRANSFORMS))
def test_v2_random_transforms(tT, name):
    image = (np.arange(3 * 32 * 32) % 256).astype(np.uint8).reshape(3, 32, 32)
    theirs, ours = V2_TRANSFORMS[name](tT), V2_TRANSFORMS[name](cT)
    torch.manual_seed(1)
    expected = [theirs(torch.from_numpy(image)).numpy() for _ in range(12)]
    after_theirs = torch.rand(4).numpy()
    cr.manual_seed(1)
    got = [ours(cr.tensor(image)).numpy() for _ in range(12)]
    np.testing.assert_array_equal(cr.rand(4).numpy(), after_theirs)  # as many draws
    for a, b in zip(expected, got):  # RandomZoomOut's sizes vary
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("name", ["RandAugment", "AugMix"])
def test_v2_augment_draws(tT, name):
    """The same ops and magnitudes; v2's uint8 Sharpness and AutoContrast kernels round
    some pixels one level away from chainrule's (the v1 arithmetic)."""
    image = (np.arange(3 * 32 * 32) % 256).astype(np.uint8).reshape(3, 32, 32)
    theirs, ours = getattr(tT, name)(), getattr(cT, name)()
    torch.manual_seed(1)
    expected = np.stack([theirs(torch.from_numpy(image)).numpy() for _ in range(12)])
    after_theirs = torch.rand(4).numpy()
    cr.manual_seed(1)
    got = np.stack([ours(cr.tensor(image)).numpy() for _ in range(12)])
    np.testing.assert_array_equal(cr.rand(4).numpy(), after_theirs)
    np.testing.assert_allclose(got.astype(int), expected.astype(int), atol=1)


def _detection_sample(lib, tv_tensors):
    image = (np.arange(3 * 32 * 32) % 256).astype(np.uint8).reshape(3, 32, 32)
    boxes = np.array([[2, 3, 20, 25], [10, 8, 30, 30], [0, 0, 12, 9]], dtype=np.float32)
    return (
        tv_tensors.Image(lib.tensor(image)),
        tv_tensors.BoundingBoxes(lib.tensor(boxes), format="XYXY", canvas_size=(32, 32)),
        lib.tensor([1, 2, 3]),
    )


def test_v2_random_iou_crop(tv, tT):
    for seed in range(3):
        torch.manual_seed(seed)
        expected = tT.RandomIoUCrop()(*_detection_sample(torch, tv.tv_tensors))
        cr.manual_seed(seed)
        got = cT.RandomIoUCrop()(*_detection_sample(cr, ctv))
        for a, b in zip(expected, got):
            np.testing.assert_array_equal(b.numpy(), a.numpy())


@pytest.mark.parametrize("name", ["MixUp", "CutMix"])
def test_v2_mixup_cutmix(tT, name):
    batch = np.random.default_rng(0).random((4, 3, 8, 8)).astype(np.float32)
    labels = np.array([0, 2, 1, 3])
    for seed in range(2):
        torch.manual_seed(seed)
        expected = getattr(tT, name)(num_classes=4, alpha=0.5)(
            torch.from_numpy(batch), torch.from_numpy(labels)
        )
        cr.manual_seed(seed)
        got = getattr(cT, name)(num_classes=4, alpha=0.5)(cr.tensor(batch), cr.tensor(labels))
        for a, b in zip(expected, got):
            np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-6)


def test_balanced_positive_negative_sampler(tv):
    from chainrule.vision.models.detection._utils import BalancedPositiveNegativeSampler

    matched = np.random.default_rng(1).integers(-1, 2, (2, 300))
    utils = importlib.import_module("torchvision.models.detection._utils")
    theirs = utils.BalancedPositiveNegativeSampler(64, 0.25)
    for seed in range(2):
        torch.manual_seed(seed)
        pos_t, neg_t = theirs([torch.from_numpy(m) for m in matched])
        cr.manual_seed(seed)
        pos_c, neg_c = BalancedPositiveNegativeSampler(64, 0.25)([cr.tensor(m) for m in matched])
        for a, b in zip(pos_t + neg_t, pos_c + neg_c):
            np.testing.assert_array_equal(b.numpy(), a.numpy())
