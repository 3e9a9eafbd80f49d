"""chainrule.vision.utils against the real torchvision.utils on the same inputs."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch
from PIL import Image

import chainrule
from chainrule.vision import utils

RNG = np.random.default_rng(1)


def _both(array: np.ndarray):
    return chainrule.from_numpy(array.copy()), torch.from_numpy(array.copy())


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((5, 3, 4, 6), {}),
        ((5, 3, 4, 6), {"nrow": 2, "padding": 1, "pad_value": 0.5}),
        ((3, 1, 4, 4), {"normalize": True}),
        ((4, 3, 5, 5), {"normalize": True, "scale_each": True}),
        ((4, 3, 5, 5), {"normalize": True, "value_range": (-0.5, 0.5)}),
        ((1, 4, 4), {}),
        ((4, 4), {}),
        ((1, 3, 4, 4), {"padding": 0}),
    ],
)
def test_make_grid_matches(tv, shape, kwargs):
    ours, theirs = _both(RNG.standard_normal(shape).astype(np.float32))
    a, b = utils.make_grid(ours, **kwargs), tv.utils.make_grid(theirs, **kwargs)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_make_grid_list_gradient_and_errors(tv):
    arrays = [RNG.random((3, 4, 4)).astype(np.float32) for _ in range(3)]
    a = utils.make_grid([chainrule.from_numpy(x) for x in arrays], nrow=2)
    b = tv.utils.make_grid([torch.from_numpy(x) for x in arrays], nrow=2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    # torchvision's make_grid runs under no_grad: the grid is a constant
    x = chainrule.from_numpy(arrays[0][None].repeat(3, 0)).requires_grad_()
    xt = torch.from_numpy(arrays[0][None].repeat(3, 0)).requires_grad_()
    assert utils.make_grid(x).requires_grad is tv.utils.make_grid(xt).requires_grad is False
    for bad in ([np.zeros(3)], np.zeros(3)):
        with pytest.raises(TypeError) as mine:
            utils.make_grid(bad)
        with pytest.raises(TypeError) as real:
            tv.utils.make_grid(bad)
        assert str(mine.value) == str(real.value)


@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (1, 5, 6)])
def test_save_image_png_equal(tv, tmp_path, shape):
    ours, theirs = _both(RNG.random(shape).astype(np.float32) * 1.2 - 0.1)
    utils.save_image(ours, tmp_path / "a.png", nrow=3)
    tv.utils.save_image(theirs, tmp_path / "b.png", nrow=3)
    np.testing.assert_array_equal(
        np.asarray(Image.open(tmp_path / "a.png")), np.asarray(Image.open(tmp_path / "b.png"))
    )
    buffer = io.BytesIO()
    utils.save_image(ours, buffer, format="png", nrow=3)
    np.testing.assert_array_equal(
        np.asarray(Image.open(buffer)), np.asarray(Image.open(tmp_path / "b.png"))
    )


def _image(dtype, channels=3, h=20, w=24):
    pixels = RNG.integers(0, 256, (channels, h, w), dtype=np.uint8)
    if dtype == "float":
        pixels = pixels.astype(np.float32) / 255
    return _both(pixels)


@pytest.mark.parametrize(
    "dtype, channels, kwargs",
    [
        ("uint8", 3, {}),
        ("uint8", 3, {"labels": ["a", "bc"], "colors": ["red", (0, 255, 0)], "width": 2}),
        ("uint8", 3, {"fill": True, "colors": "blue"}),
        ("uint8", 1, {"labels": ["x", "y"], "fill_labels": True}),
        ("float", 3, {"labels": ["p", "q"], "label_colors": "white"}),
    ],
)
def test_draw_bounding_boxes_matches(tv, dtype, channels, kwargs):
    ours, theirs = _image(dtype, channels)
    boxes = np.array([[1, 2, 10, 12], [5.5, 4, 20, 18]], dtype=np.float32)
    a = utils.draw_bounding_boxes(ours, chainrule.from_numpy(boxes), **kwargs)
    b = tv.utils.draw_bounding_boxes(theirs, torch.from_numpy(boxes), **kwargs)
    assert a.dtype == ours.dtype
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_draw_bounding_boxes_rotated_and_errors(tv):
    ours, theirs = _image("uint8")
    quads = np.array([[2, 2, 15, 4, 13, 15, 1, 12]], dtype=np.float32)
    a = utils.draw_bounding_boxes(ours, chainrule.from_numpy(quads), fill=True)
    b = tv.utils.draw_bounding_boxes(theirs, torch.from_numpy(quads), fill=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    bad = np.array([[10, 2, 1, 12]], dtype=np.float32)
    with pytest.raises(ValueError) as mine:
        utils.draw_bounding_boxes(ours, chainrule.from_numpy(bad))
    with pytest.raises(ValueError) as real:
        tv.utils.draw_bounding_boxes(theirs, torch.from_numpy(bad))
    assert str(mine.value) == str(real.value)
    with pytest.raises(ValueError) as mine:
        utils.draw_bounding_boxes(ours, chainrule.from_numpy(quads[:, :4] * 0), labels=["a", "b"])
    with pytest.raises(ValueError) as real:
        tv.utils.draw_bounding_boxes(theirs, torch.from_numpy(quads[:, :4] * 0), labels=["a", "b"])
    assert str(mine.value) == str(real.value)


@pytest.mark.parametrize("dtype", ["uint8", "float"])
def test_draw_segmentation_masks_matches(tv, dtype):
    ours, theirs = _image(dtype)
    masks = RNG.random((3, 20, 24)) > 0.6
    for colors in (None, ["red", "green", (10, 20, 30)]):
        a = utils.draw_segmentation_masks(
            ours, chainrule.from_numpy(masks), alpha=0.4, colors=colors
        )
        b = tv.utils.draw_segmentation_masks(
            theirs, torch.from_numpy(masks), alpha=0.4, colors=colors
        )
        assert a.dtype == ours.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    a = utils.draw_segmentation_masks(ours, chainrule.from_numpy(masks[0]))
    b = tv.utils.draw_segmentation_masks(theirs, torch.from_numpy(masks[0]))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError) as mine:
        utils.draw_segmentation_masks(ours, chainrule.from_numpy(masks.astype(np.uint8)))
    with pytest.raises(ValueError) as real:
        tv.utils.draw_segmentation_masks(theirs, torch.from_numpy(masks.astype(np.uint8)))
    assert str(mine.value) == str(real.value)


@pytest.mark.parametrize("dtype", ["uint8", "float"])
def test_draw_keypoints_matches(tv, dtype):
    ours, theirs = _image(dtype)
    points = np.array([[[3, 4], [10, 12], [20, 5]], [[15, 15], [2, 18], [8, 8]]], dtype=np.float32)
    visible = np.array([[True, True, False], [True, True, True]])
    kwargs = {"connectivity": [(0, 1), (1, 2)], "colors": "yellow", "radius": 1, "width": 2}
    a = utils.draw_keypoints(
        ours, chainrule.from_numpy(points), visibility=chainrule.from_numpy(visible), **kwargs
    )
    b = tv.utils.draw_keypoints(
        theirs, torch.from_numpy(points), visibility=torch.from_numpy(visible), **kwargs
    )
    assert a.dtype == ours.dtype
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("shape", [(2, 9, 11), (2, 2, 5, 7)])
def test_flow_to_image_matches(tv, shape):
    ours, theirs = _both(RNG.standard_normal(shape).astype(np.float32) * 3)
    a, b = utils.flow_to_image(ours), tv.utils.flow_to_image(theirs)
    assert a.dtype == chainrule.uint8 and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError) as mine:
        utils.flow_to_image(ours.double())
    with pytest.raises(ValueError) as real:
        tv.utils.flow_to_image(theirs.double())
    assert str(mine.value) == str(real.value)
