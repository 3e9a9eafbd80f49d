"""chainrule.vision.transforms.v2's later additions against the real torchvision 0.28:
the public ``*_bounding_boxes`` kernels, boxes through ``elastic`` and through rotations
that expand the canvas, ``RandomIoUCrop`` and ``JPEG``."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import chainrule
import chainrule.vision.transforms.v2 as cT
import chainrule.vision.transforms.v2.functional as cF
from chainrule.vision import tv_tensors as ctv

CANVAS = (12, 15)
BOXES = np.array(
    [[1.0, 2.0, 9.0, 7.0], [0.0, 0.0, 15.0, 12.0], [4.5, 3.0, 6.0, 11.5], [-3.0, 5.0, 20.0, 8.0]],
    dtype=np.float32,
)
rng = np.random.RandomState(0)
DISPLACEMENT = (rng.rand(1, *CANVAS, 2) * 0.4 - 0.2).astype(np.float32)
IMAGE = rng.randint(0, 256, size=(3, *CANVAS)).astype(np.uint8)


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
    """Equal values, dtype, shape and box metadata; tuples item by item."""
    if isinstance(t, (tuple, list)):
        assert len(c) == len(t)
        for a, b in zip(c, t):
            same(a, b, atol)
        return
    if not isinstance(t, torch.Tensor):
        assert c == t
        return
    assert type(c).__name__ == type(t).__name__
    assert str(c.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(c.shape) == tuple(t.shape)
    for key in ("canvas_size", "clamping_mode"):
        if hasattr(t, key):
            assert tuple(np.atleast_1d(getattr(c, key))) == tuple(np.atleast_1d(getattr(t, key)))
    if hasattr(t, "format"):
        assert c.format.name == t.format.name
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), atol=atol)


def test_public_box_kernels_are_torchvisions(tF):
    names = {n for n in dir(tF) if n.endswith("_bounding_boxes") or "bounding_box" in n}
    assert names <= set(cF.__all__)
    for name in names:
        assert callable(getattr(cF, name))


BOX_KERNEL_CASES = [
    ("horizontal_flip_bounding_boxes", ("F", CANVAS), {}),
    ("vertical_flip_bounding_boxes", ("F", CANVAS), {}),
    ("crop_bounding_boxes", ("F", 2, 3, 8, 9), {}),
    ("crop_bounding_boxes", ("F", 2, 3, 8, 9), {"clamping_mode": None}),
    ("pad_bounding_boxes", ("F", CANVAS, [1, 2, 3, 4]), {}),
    ("resize_bounding_boxes", (CANVAS, [24, 10]), {"format": "F"}),
    ("resize_bounding_boxes", (CANVAS, [6], 9), {"format": "F"}),
    ("center_crop_bounding_boxes", ("F", CANVAS, [8, 20]), {}),
    ("resized_crop_bounding_boxes", ("F", 1, 2, 6, 7, [9, 9]), {}),
    ("affine_bounding_boxes", ("F", CANVAS, 15.0, [2, -1], 1.2, [10.0, 5.0]), {}),
    ("affine_bounding_boxes", ("F", CANVAS, -5.0, [0, 3], 0.8, [4.0, 0.0], [2, 2]), {}),
    (
        "affine_bounding_boxes",
        ("F", CANVAS, 15.0, [2, -1], 1.2, [0.0, 0.0]),
        {"clamping_mode": None},
    ),
    ("rotate_bounding_boxes", ("F", CANVAS, 30.0), {}),
    ("rotate_bounding_boxes", ("F", CANVAS, -70.0, True), {}),
    ("rotate_bounding_boxes", ("F", CANVAS, 33.0, True, [3.0, 4.0]), {}),
    ("rotate_bounding_boxes", ("F", CANVAS, 100.0, True), {}),
    (
        "perspective_bounding_boxes",
        ("F", CANVAS, [[0, 0], [14, 0], [14, 11], [0, 11]], [[1, 2], [13, 0], [12, 10], [2, 11]]),
        {},
    ),
]


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("fmt", ["XYXY", "XYWH", "CXCYWH"])
@pytest.mark.parametrize(("name", "args", "kwargs"), BOX_KERNEL_CASES)
def test_box_kernels(tF, ttv, name, args, kwargs, fmt, dtype):
    data = (
        tF.convert_bounding_box_format(torch.tensor(BOXES), old_format="XYXY", new_format=fmt)
        .numpy()
        .astype(dtype)
    )

    def fill(values, mod):
        sub = mod.BoundingBoxFormat[fmt]
        if isinstance(values, dict):
            return {k: sub if v == "F" else v for k, v in values.items()}
        return tuple(sub if v == "F" else v for v in values)

    c = getattr(cF, name)(chainrule.tensor(data), *fill(args, ctv), **fill(kwargs, ctv))
    t = getattr(tF, name)(torch.tensor(data), *fill(args, ttv), **fill(kwargs, ttv))
    same(c, t, atol=1e-4)


@pytest.mark.parametrize("fmt", ["XYXY", "XYWH", "CXCYWH"])
def test_elastic_boxes(tF, ttv, fmt):
    data = tF.convert_bounding_box_format(
        torch.tensor(BOXES), old_format="XYXY", new_format=fmt
    ).numpy()
    d_c, d_t = chainrule.tensor(DISPLACEMENT), torch.tensor(DISPLACEMENT)
    for clamping_mode in ("soft", None):
        same(
            cF.elastic_bounding_boxes(
                chainrule.tensor(data), ctv.BoundingBoxFormat[fmt], CANVAS, d_c, clamping_mode
            ),
            tF.elastic_bounding_boxes(
                torch.tensor(data), ttv.BoundingBoxFormat[fmt], CANVAS, d_t, clamping_mode
            ),
        )
    for dtype in ("float32", "int64"):
        c = ctv.BoundingBoxes(data.astype(dtype), format=fmt, canvas_size=CANVAS)
        t = ttv.BoundingBoxes(torch.tensor(data.astype(dtype)), format=fmt, canvas_size=CANVAS)
        same(cF.elastic(c, d_c), tF.elastic(t, d_t))


def test_elastic_transform_moves_boxes(tT, ttv):
    """ElasticTransform on (image, boxes) with make_params patched to one displacement."""
    params = {"displacement": DISPLACEMENT}
    c_tr, t_tr = cT.ElasticTransform(), tT.ElasticTransform()
    c_tr.make_params = lambda flat: {"displacement": chainrule.tensor(params["displacement"])}
    t_tr.make_params = lambda flat: {"displacement": torch.tensor(params["displacement"])}
    c_out = c_tr(
        ctv.Image(IMAGE.astype(np.float32)),
        ctv.BoundingBoxes(BOXES, format="XYXY", canvas_size=CANVAS),
    )
    t_out = t_tr(
        ttv.Image(torch.tensor(IMAGE.astype(np.float32))),
        ttv.BoundingBoxes(torch.tensor(BOXES), format="XYXY", canvas_size=CANVAS),
    )
    same(c_out, t_out, atol=1e-3)
    # with chainrule's own draw: the boxes come out, on the same canvas
    out = cT.ElasticTransform(sigma=1.0)(
        ctv.Image(IMAGE), ctv.BoundingBoxes(BOXES, format="XYXY", canvas_size=CANVAS)
    )
    assert type(out[1]) is ctv.BoundingBoxes and out[1].canvas_size == CANVAS


def test_rotate_expand_canvas(tF, ttv):
    """The boxes' canvas after an expanding rotation is torchvision's (not the image's)."""
    for angle, center in ((30.0, None), (-75.0, [2.0, 3.0]), (45.0, [3.0, 4.0]), (12.5, None)):
        c = cF.rotate(
            ctv.BoundingBoxes(BOXES, format="XYXY", canvas_size=CANVAS),
            angle,
            expand=True,
            center=center,
        )
        t = tF.rotate(
            ttv.BoundingBoxes(torch.tensor(BOXES), format="XYXY", canvas_size=CANVAS),
            angle,
            expand=True,
            center=center,
        )
        same(c, t, atol=1e-4)


# ------------------------------------------------------------------ RandomIoUCrop


def _iou_sample(mod, lib):
    return (
        mod.Image(lib.tensor(IMAGE)),
        {
            "boxes": mod.BoundingBoxes(lib.tensor(BOXES[:3]), format="XYXY", canvas_size=CANVAS),
            "masks": mod.Mask(lib.tensor((IMAGE[:1] > 128).astype(np.uint8))),
            "labels": lib.tensor([1, 2, 3]),
        },
    )


def test_random_iou_crop_repr_and_checks(tT, ttv):
    for kwargs in ({}, {"sampler_options": [0.5, 2.0], "trials": 3, "min_scale": 0.5}):
        assert repr(cT.RandomIoUCrop(**kwargs)) == repr(tT.RandomIoUCrop(**kwargs))
    boxes = ctv.BoundingBoxes(BOXES, format="XYXY", canvas_size=CANVAS)
    message = "RandomIoUCrop\\(\\) requires input sample to contain tensor or PIL images and bounding boxes"
    for bad in ((boxes,), (chainrule.tensor(IMAGE),), (ctv.Mask(chainrule.zeros(*CANVAS)), boxes)):
        with pytest.raises(TypeError, match=message):
            cT.RandomIoUCrop()(*bad)
        with pytest.raises(TypeError, match=message):
            tT.RandomIoUCrop()(
                *[
                    ttv.wrap(torch.tensor(b.numpy()), like=b) if False else _to_torch(b, ttv)
                    for b in bad
                ]
            )


def _to_torch(x, ttv):
    if isinstance(x, ctv.BoundingBoxes):
        return ttv.BoundingBoxes(torch.tensor(x.numpy()), format="XYXY", canvas_size=x.canvas_size)
    if isinstance(x, ctv.Mask):
        return ttv.Mask(torch.tensor(x.numpy()))
    return torch.tensor(x.numpy())


def test_random_iou_crop_with_fixed_params(tT, ttv):
    """Same crop in both libraries: image, mask and boxes (those outside zeroed)."""
    inside = [True, False, True]
    c_tr, t_tr = cT.RandomIoUCrop(), tT.RandomIoUCrop()
    fixed = {"top": 1, "left": 4, "height": 9, "width": 10}
    c_tr.make_params = lambda flat: {**fixed, "is_within_crop_area": chainrule.tensor(inside)}
    t_tr.make_params = lambda flat: {**fixed, "is_within_crop_area": torch.tensor(inside)}
    c_out, t_out = c_tr(_iou_sample(ctv, chainrule)), t_tr(_iou_sample(ttv, torch))
    same(c_out[0], t_out[0])
    for key in ("boxes", "masks", "labels"):
        same(c_out[1][key], t_out[1][key])
    # the leave-as-is option (an IoU of 1 or more)
    sample = _iou_sample(ctv, chainrule)
    out = cT.RandomIoUCrop(sampler_options=[1.0])(sample)
    assert out[0] is sample[0] and out[1]["boxes"] is sample[1]["boxes"]


@pytest.mark.parametrize("min_iou", [0.0, 0.5, 0.7])
def test_random_iou_crop_sampling(min_iou):
    """With chainrule's stream: the crop's size and aspect ratio are in range, a kept box's
    center lies inside, one of them overlaps the crop by at least the IoU asked for."""
    chainrule.manual_seed(3)
    t = cT.RandomIoUCrop(sampler_options=[min_iou], trials=40)
    boxes = ctv.BoundingBoxes(BOXES[:3], format="XYXY", canvas_size=CANVAS)
    flat = [ctv.Image(IMAGE), boxes]
    for _ in range(10):
        p = t.make_params(flat)
        h, w = p["height"], p["width"]
        assert 0.3 * 12 - 1 <= h <= 12 and 0.3 * 15 - 1 <= w <= 15
        assert 0.5 <= w / h <= 2.0
        assert 0 <= p["top"] <= 12 - h and 0 <= p["left"] <= 15 - w
        cx = (BOXES[:3, 0] + BOXES[:3, 2]) / 2
        cy = (BOXES[:3, 1] + BOXES[:3, 3]) / 2
        inside = (p["left"] < cx) & (cx < p["left"] + w) & (p["top"] < cy) & (cy < p["top"] + h)
        np.testing.assert_array_equal(p["is_within_crop_area"].numpy(), inside)
        crop = np.array([p["left"], p["top"], p["left"] + w, p["top"] + h], np.float64)
        kept = BOXES[:3][inside].astype(np.float64)
        iw = np.clip(np.minimum(kept[:, 2], crop[2]) - np.maximum(kept[:, 0], crop[0]), 0, None)
        ih = np.clip(np.minimum(kept[:, 3], crop[3]) - np.maximum(kept[:, 1], crop[1]), 0, None)
        area = (kept[:, 2] - kept[:, 0]) * (kept[:, 3] - kept[:, 1])
        iou = iw * ih / (area + w * h - iw * ih)
        assert iou.max() >= min_iou - 1e-6
    out = t(ctv.Image(IMAGE), boxes)
    assert out[1].canvas_size == tuple(out[0].shape[-2:])


# ------------------------------------------------------------------ JPEG


def _smooth_image(shape=(3, 24, 32)):
    yy, xx = np.mgrid[0 : shape[-2], 0 : shape[-1]]
    channels = [xx * 4 + yy * 3 + 20 * c for c in range(shape[0])]
    return np.stack(channels).astype(np.uint8)


def test_jpeg_transform_repr_and_errors(tT):
    for quality in (50, (5, 50), [1, 100]):
        assert repr(cT.JPEG(quality)) == repr(tT.JPEG(quality))
    for bad in (0, 101, (5,), (50, 10), (0, 50), "a", 5.0, (1.5, 20)):
        with pytest.raises(Exception) as theirs:
            tT.JPEG(bad)
        with pytest.raises(
            type(theirs.value),
            match=str(theirs.value)
            .replace("(", r"\(")
            .replace(")", r"\)")
            .replace("[", r"\[")
            .replace("]", r"\]"),
        ):
            cT.JPEG(bad)


def test_jpeg_kernels():
    """Pillow's JPEG round trip (torchvision's libjpeg differs by a few levels): shapes and
    dtype kept, close to the input, closer at higher quality; PIL images through PIL."""
    from PIL import Image as PILImage

    image = _smooth_image()
    errors = []
    for quality in (10, 50, 95):
        out = cF.jpeg(chainrule.tensor(image), quality)
        assert out.dtype == chainrule.uint8 and tuple(out.shape) == image.shape
        errors.append(np.abs(out.numpy().astype(np.int64) - image).mean())
    assert errors[0] > errors[1] > errors[2] and errors[2] < 3.0
    # batched and video inputs: each image on its own, leading dims kept
    batch = np.stack([image, image[::-1].copy()])
    out = cF.jpeg(ctv.Video(batch[None]), 75)
    assert type(out) is ctv.Video and tuple(out.shape) == (1, *batch.shape)
    np.testing.assert_array_equal(
        out.numpy()[0, 1], cF.jpeg_image(chainrule.tensor(batch[1]), 75).numpy()
    )
    assert type(cF.jpeg(ctv.Image(image), 75)) is ctv.Image
    gray = cF.jpeg(chainrule.tensor(image[:1]), 75)
    assert tuple(gray.shape) == (1, 24, 32)
    assert tuple(cF.jpeg(chainrule.zeros(0, 3, 8, 8, dtype=chainrule.uint8), 75).shape) == (
        0,
        3,
        8,
        8,
    )
    pil = PILImage.fromarray(image.transpose(1, 2, 0))
    out = cF.jpeg(pil, 60)
    assert isinstance(out, PILImage.Image) and out.size == pil.size and out.mode == "RGB"
    from chainrule.vision.io import decode_jpeg, encode_jpeg

    np.testing.assert_array_equal(
        cF.jpeg(chainrule.tensor(image), 60).numpy(),
        decode_jpeg(encode_jpeg(chainrule.tensor(image), quality=60)).numpy(),
    )


def test_jpeg_transform_draws_quality_in_range():
    chainrule.manual_seed(0)
    t = cT.JPEG((20, 30))
    drawn = {t.make_params([])["quality"] for _ in range(60)}
    assert drawn <= set(range(20, 31)) and len(drawn) > 5
    sample = {
        "image": ctv.Image(_smooth_image()),
        "boxes": ctv.BoundingBoxes(BOXES, format="XYXY", canvas_size=(24, 32)),
        "mask": ctv.Mask(chainrule.zeros(24, 32)),
    }
    out = cT.JPEG(90)(sample)
    assert out["boxes"] is sample["boxes"] and out["mask"] is sample["mask"]
    np.testing.assert_array_equal(out["image"].numpy(), cF.jpeg(sample["image"], 90).numpy())


def test_public_names_and_set_clamping_mode(tT, tF, ttv):
    def public(module):
        return {n for n in dir(module) if not n.startswith("_")}

    assert public(tF) <= public(cF)
    assert public(tT) <= public(cT)
    assert public(ttv) - {"torch"} <= public(ctv)
    c = ctv.BoundingBoxes(BOXES * 2, format="XYXY", canvas_size=CANVAS)
    t = ttv.BoundingBoxes(torch.tensor(BOXES * 2), format="XYXY", canvas_size=CANVAS)
    for mode in (None, "hard"):
        assert repr(cT.SetClampingMode(mode)) == repr(tT.SetClampingMode(mode))
        pipeline_c = cT.Compose([cT.SetClampingMode(mode), cT.RandomCrop(8)])
        pipeline_t = tT.Compose([tT.SetClampingMode(mode), tT.RandomCrop(8)])
        for p in (pipeline_c.transforms[1], pipeline_t.transforms[1]):
            p.make_params = lambda flat: {
                "needs_crop": True,
                "top": 2,
                "left": 3,
                "height": 8,
                "width": 8,
                "needs_pad": False,
                "padding": [0, 0, 0, 0],
            }
        same(pipeline_c(c), pipeline_t(t))
    assert c.clamping_mode == "soft"
    with pytest.raises(ValueError, match="clamping_mode must be soft, hard or None, got x"):
        cT.SetClampingMode("x")


# ------------------------------------------------------------------ uint8 resize


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
def test_uint8_resize_is_torchvisions_to_the_level(tF, mode, antialias):
    """PyTorch's fixed-point uint8 resize, ties included: every pixel equal."""
    r = np.random.RandomState(5)
    for shape, sizes in (
        ((3, 32, 20), ([7, 9], [40, 33], [13, 17], [32, 5], [6, 20], [3, 3])),
        ((2, 1, 12, 15), ([24, 10], [12, 30], [5, 50])),
        ((1, 2, 4, 50, 41), ([16, 12],)),
    ):
        image = r.randint(0, 256, size=shape).astype(np.uint8)
        for size in sizes:
            c = cF.resize_image(chainrule.tensor(image), size, mode, antialias=antialias)
            t = tF.resize_image(torch.tensor(image), size, mode, antialias=antialias)
            np.testing.assert_array_equal(c.numpy(), t.numpy(), err_msg=f"{shape} {size}")


def test_uint8_resize_in_transforms(tT, ttv):
    image = np.random.RandomState(6).randint(0, 256, size=(3, 30, 44)).astype(np.uint8)
    for c_tr, t_tr in (
        (cT.Resize(17), tT.Resize(17)),
        (cT.Resize([50, 21], antialias=False), tT.Resize([50, 21], antialias=False)),
        (
            cT.Resize(12, interpolation=cT.InterpolationMode.BICUBIC),
            tT.Resize(12, interpolation=tT.InterpolationMode.BICUBIC),
        ),
    ):
        c = c_tr(ctv.Image(image))
        t = t_tr(ttv.Image(torch.tensor(image)))
        assert type(c) is ctv.Image
        np.testing.assert_array_equal(c.numpy(), t.numpy())
    np.testing.assert_array_equal(
        cF.resized_crop(chainrule.tensor(image), 2, 3, 20, 25, [9, 11]).numpy(),
        tF_resized_crop(tT, image),
    )


def tF_resized_crop(tT, image):
    return tT.functional.resized_crop(torch.tensor(image), 2, 3, 20, 25, [9, 11]).numpy()
