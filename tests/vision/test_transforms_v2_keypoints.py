"""tv_tensors.KeyPoints and the *_keypoints kernels of chainrule.vision.transforms.v2
against the real torchvision 0.28: the kernels on plain tensors (float and int), the
functionals and transforms on KeyPoints in a sample, clamping and sanitizing."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import chainrule
import chainrule.vision.transforms.v2 as cT
import chainrule.vision.transforms.v2.functional as cF
from chainrule.vision import tv_tensors as ctv

CANVAS = (10, 20)
POINTS = np.array(
    [[1.0, 2.0], [3.5, 4.25], [-1.0, 12.0], [19.5, 9.9], [20.0, 9.0], [0.0, 0.0], [7.0, 3.0]],
    dtype=np.float32,
)
GROUPS = np.array(
    [[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [30.0, 4.0]], [[0.0, 9.5], [19.9, 0.0]]],
    dtype=np.float32,
)
rng = np.random.RandomState(0)
DISPLACEMENT = (rng.rand(1, 10, 20, 2) * 0.2 - 0.1).astype(np.float32)


@pytest.fixture(scope="module")
def tT(tv):
    return importlib.import_module("torchvision.transforms.v2")


@pytest.fixture(scope="module")
def tF(tT):
    return tT.functional


@pytest.fixture(scope="module")
def ttv(tv):
    return importlib.import_module("torchvision.tv_tensors")


def same(c, t, atol=1e-5):
    """Equal values, dtype and shape; canvas sizes and TVTensor types alike."""
    if isinstance(t, (tuple, list)):
        assert len(c) == len(t)
        for a, b in zip(c, t):
            same(a, b, atol)
        return
    if not isinstance(t, torch.Tensor):
        assert tuple(c) == tuple(t) if isinstance(t, (tuple, list)) else c == t
        return
    assert type(c).__name__ == type(t).__name__.replace("Tensor", "Tensor")
    assert str(c.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(c.shape) == tuple(t.shape)
    if hasattr(t, "canvas_size"):
        assert tuple(c.canvas_size) == tuple(t.canvas_size)
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), atol=atol)


KERNEL_CASES = [
    ("horizontal_flip_keypoints", (CANVAS,)),
    ("vertical_flip_keypoints", (CANVAS,)),
    ("crop_keypoints", (1, 2, 5, 6)),
    ("pad_keypoints", (CANVAS, [1, 2, 3, 4])),
    ("pad_keypoints", (CANVAS, [1, 2])),
    ("resize_keypoints", ([5, 7], CANVAS)),
    ("resize_keypoints", ([6], CANVAS, 11)),
    ("center_crop_keypoints", (CANVAS, [4, 6])),
    ("center_crop_keypoints", (CANVAS, [14, 25])),
    ("resized_crop_keypoints", (1, 2, 5, 6, [10, 12])),
    ("affine_keypoints", (CANVAS, 30, [1, 2], 1.2, [5, 3])),
    ("affine_keypoints", (CANVAS, -12.5, [0, 0], 0.8, [0, 0], [3.0, 4.0])),
    ("rotate_keypoints", (CANVAS, 30)),
    ("rotate_keypoints", (CANVAS, 30, True)),
    ("rotate_keypoints", (CANVAS, -75, True, [2.0, 3.0])),
    (
        "perspective_keypoints",
        (CANVAS, [[0, 0], [19, 0], [19, 9], [0, 9]], [[1, 1], [18, 0], [19, 8], [2, 9]]),
    ),
]


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize(("name", "args"), KERNEL_CASES)
def test_kernels(tF, name, args, dtype):
    points = POINTS.astype(dtype)
    for data in (points, GROUPS.astype(dtype)):
        c = getattr(cF, name)(chainrule.tensor(data), *args)
        t = getattr(tF, name)(torch.tensor(data), *args)
        same(c, t, atol=1e-4 if dtype == "float32" else 0)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_elastic_clamp_sanitize_kernels(tF, dtype):
    d_c, d_t = chainrule.tensor(DISPLACEMENT), torch.tensor(DISPLACEMENT)
    for data in (POINTS.astype(dtype), GROUPS.astype(dtype)):
        c, t = chainrule.tensor(data), torch.tensor(data)
        same(cF.elastic_keypoints(c, CANVAS, d_c), tF.elastic_keypoints(t, CANVAS, d_t), 1e-5)
        same(cF.clamp_keypoints(c, CANVAS), tF.clamp_keypoints(t, CANVAS))
        same(cF.sanitize_keypoints(c, CANVAS), tF.sanitize_keypoints(t, CANVAS))


def test_keypoints_tv_tensor(ttv):
    c = ctv.KeyPoints(POINTS, canvas_size=CANVAS)
    t = ttv.KeyPoints(torch.tensor(POINTS), canvas_size=CANVAS)
    assert repr(c) == repr(t)
    assert ctv.KeyPoints([1.0, 2.0], canvas_size=CANVAS).shape == (1, 2)
    assert ctv.KeyPoints(GROUPS, canvas_size=CANVAS).shape == (3, 2, 2)
    with pytest.raises(ValueError, match=r"Expected a tensor of shape \(\.\.\., 2\)"):
        ctv.KeyPoints(np.zeros((3, 3)), canvas_size=CANVAS)
    assert type(c + 1) is chainrule.Tensor and type(t + 1) is torch.Tensor
    assert type(c.clone()) is ctv.KeyPoints and c.clone().canvas_size == CANVAS
    w = ctv.wrap(chainrule.zeros(2, 2), like=c, canvas_size=(3, 4))
    assert type(w) is ctv.KeyPoints and w.canvas_size == (3, 4)
    with ctv.set_return_type("TVTensor"):
        assert type(c * 2) is ctv.KeyPoints
    assert "KeyPoints" in ctv.__all__


FUNCTIONAL_CASES = [
    ("horizontal_flip", ()),
    ("vertical_flip", ()),
    ("crop", (1, 2, 5, 6)),
    ("pad", ([1, 2, 3, 4],)),
    ("resize", ([5, 7],)),
    ("center_crop", ([14, 25],)),
    ("resized_crop", (1, 2, 5, 6, [10, 12])),
    ("affine", (30, [1, 2], 1.2, [5, 3])),
    ("rotate", (30, "bilinear", True)),
    ("perspective", ([[0, 0], [19, 0], [19, 9], [0, 9]], [[1, 1], [18, 0], [19, 8], [2, 9]])),
    ("clamp_keypoints", ()),
    ("get_size", ()),
]


@pytest.mark.parametrize(("name", "args"), FUNCTIONAL_CASES)
def test_functionals_dispatch(tF, ttv, name, args):
    c = getattr(cF, name)(ctv.KeyPoints(POINTS, canvas_size=CANVAS), *args)
    if name == "rotate":
        from torchvision.transforms import InterpolationMode

        args = (30, InterpolationMode.BILINEAR, True)
    t = getattr(tF, name)(ttv.KeyPoints(torch.tensor(POINTS), canvas_size=CANVAS), *args)
    same(c, t, atol=1e-4)


def test_elastic_and_sanitize_dispatch(tF, ttv):
    c = ctv.KeyPoints(POINTS, canvas_size=CANVAS)
    t = ttv.KeyPoints(torch.tensor(POINTS), canvas_size=CANVAS)
    same(
        cF.elastic(c, chainrule.tensor(DISPLACEMENT)),
        tF.elastic(t, torch.tensor(DISPLACEMENT)),
    )
    same(cF.sanitize_keypoints(c), tF.sanitize_keypoints(t))
    for fn in (cF.clamp_keypoints, cF.sanitize_keypoints):
        with pytest.raises(ValueError):
            fn(chainrule.tensor(POINTS))
        with pytest.raises(ValueError):
            fn(c, canvas_size=CANVAS)
    with pytest.raises(ValueError, match="Padding mode 'edge' is not supported with KeyPoints"):
        cF.pad_keypoints(chainrule.tensor(POINTS), CANVAS, [1], padding_mode="edge")


def test_transforms_move_keypoints_with_the_image(tT, ttv):
    """Deterministic transforms on (image, keypoints) samples; RandomHorizontalFlip(p=1)."""
    image = np.zeros((3, *CANVAS), np.uint8)
    for c_tr, t_tr in (
        (cT.RandomHorizontalFlip(p=1.0), tT.RandomHorizontalFlip(p=1.0)),
        (cT.Resize([5, 7]), tT.Resize([5, 7])),
        (cT.CenterCrop(6), tT.CenterCrop(6)),
        (cT.Pad([1, 2]), tT.Pad([1, 2])),
    ):
        c_out = c_tr(ctv.Image(image), {"kp": ctv.KeyPoints(POINTS, canvas_size=CANVAS)})
        t_out = t_tr(
            ttv.Image(torch.tensor(image)),
            {"kp": ttv.KeyPoints(torch.tensor(POINTS), canvas_size=CANVAS)},
        )
        same(c_out[1]["kp"], t_out[1]["kp"])
        assert tuple(c_out[0].shape) == tuple(t_out[0].shape)


def test_random_transforms_with_fixed_params(tT, ttv):
    """RandomAffine, RandomRotation, RandomCrop with make_params patched to one draw."""
    image = np.zeros((3, *CANVAS), np.uint8)
    cases = [
        (
            cT.RandomAffine(20),
            tT.RandomAffine(20),
            {"angle": 12.0, "translate": (1, -2), "scale": 1.1, "shear": (3.0, 0.0)},
        ),
        (cT.RandomRotation(20, expand=True), tT.RandomRotation(20, expand=True), {"angle": 17.0}),
    ]
    for c_tr, t_tr, params in cases:
        c_tr.make_params = lambda flat, p=params: dict(p)
        t_tr.make_params = lambda flat, p=params: dict(p)
        c_out = c_tr(ctv.Image(image), ctv.KeyPoints(POINTS, canvas_size=CANVAS))
        t_out = t_tr(
            ttv.Image(torch.tensor(image)), ttv.KeyPoints(torch.tensor(POINTS), canvas_size=CANVAS)
        )
        same(c_out[1], t_out[1], atol=1e-4)
    # random crops keep points and the canvas consistent with the image
    c_out = cT.RandomCrop(6)(ctv.Image(image), ctv.KeyPoints(POINTS, canvas_size=CANVAS))
    assert c_out[1].canvas_size == tuple(c_out[0].shape[-2:]) == (6, 6)


def test_sanitize_and_clamp_transforms(tT, ttv):
    data = np.array([[1.0, 2.0], [30.0, 4.0], [5.0, 5.0]], np.float32)
    labels = np.array([1, 2, 3])

    def samples():
        c = {"kp": ctv.KeyPoints(data, canvas_size=CANVAS), "labels": chainrule.tensor(labels)}
        t = {
            "kp": ttv.KeyPoints(torch.tensor(data), canvas_size=CANVAS),
            "labels": torch.tensor(labels),
        }
        return c, t

    for args in ((), ("default",)):
        c, t = samples()
        c_out, t_out = cT.SanitizeKeyPoints(*args)(c), tT.SanitizeKeyPoints(*args)(t)
        same(c_out["kp"], t_out["kp"])
        np.testing.assert_array_equal(c_out["labels"].numpy(), t_out["labels"].numpy())
    c, t = samples()
    same(cT.ClampKeyPoints()(c)["kp"], tT.ClampKeyPoints()(t)["kp"])
    assert repr(cT.SanitizeKeyPoints()) == repr(tT.SanitizeKeyPoints()) == "SanitizeKeyPoints()"
    assert repr(cT.ClampKeyPoints()) == "ClampKeyPoints()"
    c, _ = samples()
    assert cT.get_keypoints([c["labels"], c["kp"]]) is c["kp"]
    with pytest.raises(ValueError, match="No keypoints were found in the sample"):
        cT.SanitizeKeyPoints()({"labels": c["labels"]})
    with pytest.raises(ValueError, match="must match the number of labels"):
        cT.SanitizeKeyPoints("default")({"kp": c["kp"], "labels": c["labels"][:2]})
