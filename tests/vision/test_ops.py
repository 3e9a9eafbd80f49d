"""chainrule.vision.ops against the real torchvision where its code is Python (box functions,
losses, FPN, the pure-Python RoI Align), and against direct NumPy definitions and
hand-computed cases for the compiled kernels (nms, roi_pool, ps_roi_*, deform_conv2d)."""

from __future__ import annotations

import math
import sys
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
from chainrule.autograd import gradcheck
from chainrule.vision import ops

RNG = np.random.default_rng(3)


def _c(a):
    return chainrule.from_numpy(np.array(a, copy=True))


def _t(a):
    return torch.from_numpy(np.array(a, copy=True))


def _boxes(n, dtype=np.float32, size=20.0):
    xy = RNG.random((n, 2)) * size
    wh = RNG.random((n, 2)) * size / 2 + 0.5
    return np.concatenate([xy, xy + wh], axis=1).astype(dtype)


@pytest.fixture
def tv_roi_align(tv, monkeypatch):
    """torchvision's pure-Python RoI Align (the path it takes without its compiled ops)."""
    module = sys.modules["torchvision.ops.roi_align"]
    # (the detection tests' session fixture may have unwrapped it already)
    unwrapped = getattr(module._roi_align, "__wrapped__", module._roi_align)
    monkeypatch.setattr(module, "_roi_align", unwrapped)
    return tv.ops.roi_align


# ---------------------------------------------------------------- boxes


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_box_convert_all_axis_aligned_pairs(tv, dtype):
    boxes = _boxes(6, dtype)
    for a in ("xyxy", "xywh", "cxcywh"):
        for b in ("xyxy", "xywh", "cxcywh"):
            ours, theirs = ops.box_convert(_c(boxes), a, b), tv.ops.box_convert(_t(boxes), a, b)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(ValueError) as mine:
        ops.box_convert(_c(boxes), "xyxy", "nope")
    with pytest.raises(ValueError) as real:
        tv.ops.box_convert(_t(boxes), "xyxy", "nope")
    assert str(mine.value) == str(real.value)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_box_convert_rotated(tv, dtype):
    base = np.concatenate(
        [_boxes(5, np.float64)[:, :2], RNG.random((5, 2)) * 8 + 1, RNG.random((5, 1)) * 90], 1
    )
    base = base.astype(dtype)
    for a, b in [
        ("cxcywhr", "xywhr"),
        ("xywhr", "cxcywhr"),
        ("xywhr", "xyxyxyxy"),
        ("cxcywhr", "xyxyxyxy"),
    ]:
        ours, theirs = ops.box_convert(_c(base), a, b), tv.ops.box_convert(_t(base), a, b)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-4)
        assert ours.numpy().dtype == theirs.numpy().dtype
        back_ours = ops.box_convert(ours, b, a)
        np.testing.assert_allclose(
            back_ours.numpy(), tv.ops.box_convert(theirs, b, a).numpy(), rtol=1e-5, atol=1e-3
        )


@pytest.mark.parametrize("fmt", ["xyxy", "xywh", "cxcywh"])
def test_box_area_and_iou(tv, fmt):
    b1, b2 = _boxes(5), _boxes(4)
    np.testing.assert_allclose(
        ops.box_area(_c(b1), fmt).numpy(), tv.ops.box_area(_t(b1), fmt).numpy(), rtol=1e-6
    )
    np.testing.assert_allclose(
        ops.box_iou(_c(b1), _c(b2), fmt).numpy(),
        tv.ops.box_iou(_t(b1), _t(b2), fmt).numpy(),
        rtol=1e-6,
        atol=1e-7,
    )
    # batched boxes (..., N, 4)
    stacked = np.stack([b1, b1[::-1]])
    np.testing.assert_allclose(
        ops.box_iou(_c(stacked), _c(stacked[:, :3]), fmt).numpy(),
        tv.ops.box_iou(_t(stacked), _t(stacked[:, :3]), fmt).numpy(),
        rtol=1e-6,
    )


def test_box_area_integer_boxes(tv):
    boxes = np.array([[0, 0, 3, 4], [1, 1, 2, 5]], dtype=np.int16)
    ours, theirs = ops.box_area(_c(boxes)), tv.ops.box_area(_t(boxes))
    assert ours.tolist() == theirs.tolist() and ours.numpy().dtype == theirs.numpy().dtype


@pytest.mark.parametrize("name", ["generalized_box_iou", "distance_box_iou", "complete_box_iou"])
def test_iou_variants_values_and_gradients(tv, name):
    b1, b2 = _boxes(4, np.float64), _boxes(3, np.float64)
    x1, x2 = _c(b1).requires_grad_(), _c(b2).requires_grad_()
    t1, t2 = _t(b1).requires_grad_(), _t(b2).requires_grad_()
    ours, theirs = getattr(ops, name)(x1, x2), getattr(tv.ops, name)(t1, t2)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12
    )
    weights = RNG.random(tuple(ours.shape))
    (ours * _c(weights)).sum().backward()
    (theirs * _t(weights)).sum().backward()
    np.testing.assert_allclose(x1.grad.numpy(), t1.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x2.grad.numpy(), t2.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_rotated_box_iou_hand_cases():
    # the same square, and a square against itself turned 45 degrees
    boxes = _c(np.array([[0, 0, 2, 2, 0], [0, 0, 2, 2, 45], [10, 10, 2, 2, 0]], dtype=np.float64))
    iou = ops.box_iou(boxes, boxes, fmt="cxcywhr").numpy()
    octagon = 8 * (math.sqrt(2) - 1)  # area of the overlap of the two squares
    np.testing.assert_allclose(np.diag(iou), 1.0)
    np.testing.assert_allclose(iou[0, 1], octagon / (8 - octagon))
    assert iou[0, 2] == 0.0
    # axis-aligned rotated boxes agree with the plain IoU
    a, b = _boxes(3, np.float64), _boxes(2, np.float64)
    rotated = ops.box_iou(
        ops.box_convert(_c(np.c_[a, np.zeros(3)][:, [0, 1, 2, 3, 4]]), "xyxy", "xyxy")[:, :4], _c(b)
    ).numpy()
    as_cxcywhr = lambda x: np.c_[(x[:, :2] + x[:, 2:]) / 2, x[:, 2:] - x[:, :2], np.zeros(len(x))]  # noqa: E731
    np.testing.assert_allclose(
        ops.box_iou(_c(as_cxcywhr(a)), _c(as_cxcywhr(b)), fmt="cxcywhr").numpy(), rotated
    )


def test_clip_remove_small_and_masks_to_boxes(tv):
    boxes = (_boxes(6) - 5).astype(np.float32)
    for ours_in, theirs_in in ((_c(boxes), _t(boxes)), (_c(boxes[None]), _t(boxes[None]))):
        np.testing.assert_array_equal(
            ops.clip_boxes_to_image(ours_in, (9, 12)).numpy(),
            tv.ops.clip_boxes_to_image(theirs_in, (9, 12)).numpy(),
        )
    assert (
        ops.remove_small_boxes(_c(boxes), 4.0).tolist()
        == tv.ops.remove_small_boxes(_t(boxes), 4.0).tolist()
    )
    masks = RNG.random((4, 7, 9)) > 0.8
    masks[2] = False
    ours, theirs = ops.masks_to_boxes(_c(masks)), tv.ops.masks_to_boxes(_t(masks))
    assert ours.dtype == chainrule.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert tuple(ops.masks_to_boxes(chainrule.zeros((0, 3, 3))).shape) == (0, 4)


# ---------------------------------------------------------------- nms


def _nms_by_definition(boxes, scores, threshold):
    """Visit boxes by descending score; keep one unless a kept box overlaps it by IoU > threshold."""
    keep = []
    for i in sorted(range(len(scores)), key=lambda i: -scores[i]):
        ok = True
        for j in keep:
            iw = max(0.0, min(boxes[i][2], boxes[j][2]) - max(boxes[i][0], boxes[j][0]))
            ih = max(0.0, min(boxes[i][3], boxes[j][3]) - max(boxes[i][1], boxes[j][1]))
            inter = iw * ih
            area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
            if inter / (area(boxes[i]) + area(boxes[j]) - inter) > threshold:
                ok = False
                break
        if ok:
            keep.append(i)
    return keep


def test_nms_hand_case_and_definition():
    boxes = _c(
        np.array(
            [[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 10, 10]], dtype=np.float32
        )
    )
    scores = _c(np.array([0.9, 0.8, 0.7, 0.95], dtype=np.float32))
    # box 3 is the best; box 0 (IoU 1) and box 1 (IoU 81/119 > 0.5) go; box 2 does not overlap
    keep = ops.nms(boxes, scores, 0.5)
    assert keep.dtype == chainrule.int64 and keep.tolist() == [3, 2]
    assert ops.nms(boxes, scores, 0.7).tolist() == [3, 1, 2]
    # IoU exactly at the threshold is kept (only IoU > threshold suppresses)
    assert ops.nms(boxes[:2], scores[:2], 81 / 119 + 1e-7).tolist() == [0, 1]
    for _ in range(5):
        b, s = _boxes(30), RNG.random(30).astype(np.float32)
        assert ops.nms(_c(b), _c(s), 0.3).tolist() == _nms_by_definition(
            b.tolist(), s.tolist(), 0.3
        )
    assert ops.nms(chainrule.zeros((0, 4)), chainrule.zeros(0), 0.5).tolist() == []


def test_batched_nms_per_category():
    boxes = np.array(
        [[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [50, 50, 60, 60]], dtype=np.float32
    )
    scores = np.array([0.9, 0.8, 0.7, 0.6], dtype=np.float32)
    # same boxes in different categories do not suppress each other
    assert ops.batched_nms(_c(boxes), _c(scores), _c(np.array([0, 0, 1, 1])), 0.5).tolist() == [
        0,
        2,
        3,
    ]
    assert ops.batched_nms(_c(boxes), _c(scores), _c(np.array([0, 0, 0, 0])), 0.5).tolist() == [
        0,
        3,
    ]
    b, s, idx = _boxes(40), RNG.random(40).astype(np.float32), RNG.integers(0, 3, 40)
    expected = []
    for cat in range(3):
        members = np.nonzero(idx == cat)[0]
        expected += [
            int(members[i])
            for i in _nms_by_definition(b[members].tolist(), s[members].tolist(), 0.4)
        ]
    expected.sort(key=lambda i: -s[i])
    assert ops.batched_nms(_c(b), _c(s), _c(idx), 0.4).tolist() == expected
    assert (
        ops.batched_nms(
            chainrule.zeros((0, 4)), chainrule.zeros(0), chainrule.zeros(0), 0.5
        ).tolist()
        == []
    )


# ---------------------------------------------------------------- losses


@pytest.mark.parametrize(
    "name", ["generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"]
)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_box_losses_values_and_gradients(tv, name, reduction):
    b1, b2 = _boxes(6, np.float64), _boxes(6, np.float64)
    b2[0] = b1[0] + 100  # no overlap
    x1, x2 = _c(b1).requires_grad_(), _c(b2).requires_grad_()
    t1, t2 = _t(b1).requires_grad_(), _t(b2).requires_grad_()
    ours, theirs = (
        getattr(ops, name)(x1, x2, reduction=reduction),
        getattr(tv.ops, name)(t1, t2, reduction=reduction),
    )
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x1.grad.numpy(), t1.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(x2.grad.numpy(), t2.grad.numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError) as mine:
        getattr(ops, name)(x1, x2, reduction="bad")
    with pytest.raises(ValueError) as real:
        getattr(tv.ops, name)(t1, t2, reduction="bad")
    assert str(mine.value) == str(real.value)


def test_box_loss_empty_mean(tv):
    empty = np.zeros((0, 4), np.float32)
    assert float(ops.generalized_box_iou_loss(_c(empty), _c(empty), reduction="mean")) == 0.0


@pytest.mark.parametrize(
    "alpha, gamma, reduction", [(0.25, 2, "none"), (-1, 1.5, "mean"), (0.5, 0, "sum")]
)
def test_sigmoid_focal_loss(tv, alpha, gamma, reduction):
    logits, targets = RNG.standard_normal((4, 5)), (RNG.random((4, 5)) > 0.5).astype(np.float64)
    x, t = _c(logits).requires_grad_(), _t(logits).requires_grad_()
    ours = ops.sigmoid_focal_loss(x, _c(targets), alpha, gamma, reduction)
    theirs = tv.ops.sigmoid_focal_loss(t, _t(targets), alpha, gamma, reduction)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10)
    with pytest.raises(ValueError) as mine:
        ops.sigmoid_focal_loss(x, _c(targets), alpha=2)
    with pytest.raises(ValueError) as real:
        tv.ops.sigmoid_focal_loss(t, _t(targets), alpha=2)
    assert str(mine.value) == str(real.value)


# ---------------------------------------------------------------- RoI Align / Pool


def _bilinear(image, y, x):
    """RoI Align's bilinear sample of a (H, W) map (zero outside [-1, H] x [-1, W])."""
    h, w = image.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return (
        (1 - ly) * (1 - lx) * image[y0, x0]
        + (1 - ly) * lx * image[y0, x1]
        + ly * (1 - lx) * image[y1, x0]
        + ly * lx * image[y1, x1]
    )


def _roi_align_loop(x, rois, out, scale, ratio, aligned, position_sensitive=False):
    ph_n, pw_n = out
    k_n = len(rois)
    c_out = x.shape[1] // (ph_n * pw_n) if position_sensitive else x.shape[1]
    result = np.zeros((k_n, c_out, ph_n, pw_n))
    for k, (b, x1, y1, x2, y2) in enumerate(rois):
        off = 0.5 if aligned else 0.0
        sw, sh = x1 * scale - off, y1 * scale - off
        rw, rh = x2 * scale - off - sw, y2 * scale - off - sh
        if not aligned and not position_sensitive:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else math.ceil(rh / ph_n)
        gw = ratio if ratio > 0 else math.ceil(rw / pw_n)
        for c in range(c_out):
            for ph in range(ph_n):
                for pw in range(pw_n):
                    channel = (c * ph_n + ph) * pw_n + pw if position_sensitive else c
                    total = 0.0
                    for iy in range(gh):
                        yy = sh + ph * rh / ph_n + (iy + 0.5) * rh / ph_n / gh
                        for ix in range(gw):
                            xx = sw + pw * rw / pw_n + (ix + 0.5) * rw / pw_n / gw
                            total += _bilinear(x[int(b), channel], yy, xx)
                    result[k, c, ph, pw] = total / max(gh * gw, 1)
    return result


def _rois(k, batch, size, spill=0.0):
    boxes = _boxes(k, np.float64, size)
    boxes[:, :2] -= spill
    boxes[:, 2:] += spill
    return np.c_[RNG.integers(0, batch, k), boxes]


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("ratio", [-1, 2])
def test_roi_align_matches_torchvision_python_path(tv_roi_align, aligned, ratio):
    x = RNG.standard_normal((2, 3, 12, 14))
    rois = _rois(5, 2, 9.0)
    xc, xt = _c(x).requires_grad_(), _t(x).requires_grad_()
    ours = ops.roi_align(xc, _c(rois), (3, 2), 0.9, ratio, aligned)
    theirs = tv_roi_align(xt, _t(rois), (3, 2), 0.9, ratio, aligned)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    weights = RNG.standard_normal(tuple(ours.shape))
    (ours * _c(weights)).sum().backward()
    (theirs * _t(weights)).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    # a list of per-image boxes is the same as the (K, 5) form
    per_image = [_c(rois[rois[:, 0] == i, 1:]) for i in range(2)]
    ordered = np.concatenate([rois[rois[:, 0] == i] for i in range(2)])
    np.testing.assert_allclose(
        ops.roi_align(_c(x), per_image, (3, 2), 0.9, ratio, aligned).numpy(),
        ops.roi_align(_c(x), _c(ordered), (3, 2), 0.9, ratio, aligned).numpy(),
    )


def test_roi_align_boxes_past_the_border_and_float32():
    x = RNG.standard_normal((1, 2, 6, 7))
    rois = _rois(6, 1, 6.0, spill=4.0)
    for aligned in (False, True):
        expected = _roi_align_loop(x, rois, (2, 3), 1.0, -1, aligned)
        np.testing.assert_allclose(
            ops.roi_align(_c(x), _c(rois), (2, 3), 1.0, -1, aligned).numpy(), expected, atol=1e-12
        )
    out32 = ops.roi_align(
        _c(x.astype(np.float32)), _c(rois.astype(np.float32)), (2, 3), 1.0, 2, True
    )
    assert out32.dtype == chainrule.float32
    np.testing.assert_allclose(
        out32.numpy(), _roi_align_loop(x, rois, (2, 3), 1.0, 2, True), rtol=1e-4, atol=1e-5
    )


def test_roi_align_gradcheck_and_module_repr(tv):
    x = _c(RNG.standard_normal((1, 2, 5, 5))).requires_grad_()
    rois = _c(np.array([[0, 0.3, 0.7, 3.9, 4.2], [0, 1.1, 0.2, 2.5, 2.8]]))
    assert gradcheck(lambda t: ops.roi_align(t, rois, 2, 0.8, 2, True), (x,))
    module, real = (
        ops.RoIAlign((2, 2), 0.5, 2, aligned=True),
        tv.ops.RoIAlign((2, 2), 0.5, 2, aligned=True),
    )
    assert repr(module) == repr(real)
    np.testing.assert_allclose(
        module(x, rois).detach().numpy(), ops.roi_align(x, rois, 2, 0.5, 2, True).detach().numpy()
    )


def _roi_pool_loop(x, rois, out, scale):
    ph_n, pw_n = out
    n, c, h, w = x.shape
    result = np.zeros((len(rois), c, ph_n, pw_n))
    rnd = lambda v: int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))  # noqa: E731
    for k, (b, x1, y1, x2, y2) in enumerate(rois):
        sw, sh, ew, eh = rnd(x1 * scale), rnd(y1 * scale), rnd(x2 * scale), rnd(y2 * scale)
        rw, rh = max(ew - sw + 1, 1), max(eh - sh + 1, 1)
        for ph in range(ph_n):
            for pw in range(pw_n):
                h0 = min(max(math.floor(ph * rh / ph_n) + sh, 0), h)
                h1 = min(max(math.ceil((ph + 1) * rh / ph_n) + sh, 0), h)
                w0 = min(max(math.floor(pw * rw / pw_n) + sw, 0), w)
                w1 = min(max(math.ceil((pw + 1) * rw / pw_n) + sw, 0), w)
                if h1 > h0 and w1 > w0:
                    result[k, :, ph, pw] = x[int(b), :, h0:h1, w0:w1].max(axis=(1, 2))
    return result


def test_roi_pool_hand_case_definition_and_gradient(tv):
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    # the box (0, 0)-(3, 3) covers 4x4 pixels; 2x2 bins take the max of each quarter
    assert ops.roi_pool(_c(x), _c(np.array([[0, 0, 0, 3, 3.0]])), 2).numpy().ravel().tolist() == [
        5,
        7,
        13,
        15,
    ]
    x = RNG.standard_normal((2, 3, 9, 8))
    rois = _rois(6, 2, 8.0, spill=2.0)
    ours = ops.roi_pool(_c(x), _c(rois), (3, 2), 0.7)
    np.testing.assert_array_equal(ours.numpy(), _roi_pool_loop(x, rois, (3, 2), 0.7))
    xc = _c(x).requires_grad_()
    assert gradcheck(lambda t: ops.roi_pool(t, _c(rois[:3]), 2, 0.7), (xc,))
    assert repr(ops.RoIPool((2, 2), 0.5)) == repr(tv.ops.RoIPool((2, 2), 0.5))


def test_ps_roi_align_definition_and_gradient(tv):
    x = RNG.standard_normal((2, 2 * 2 * 3, 7, 6))
    rois = _rois(4, 2, 6.0, spill=1.0)
    ours = ops.ps_roi_align(_c(x), _c(rois), (2, 3), 0.8, -1)
    assert tuple(ours.shape) == (4, 2, 2, 3)
    expected = _roi_align_loop(x, rois, (2, 3), 0.8, -1, True, position_sensitive=True)
    np.testing.assert_allclose(ours.numpy(), expected, atol=1e-12)
    xc = _c(x[:1, :4, :4, :4]).requires_grad_()
    assert gradcheck(
        lambda t: ops.ps_roi_align(t, _c(np.array([[0, 0.2, 0.4, 3.1, 2.7]])), 2, 1.0, 2), (xc,)
    )
    assert repr(ops.PSRoIAlign(2, 0.5, 2)) == repr(tv.ops.PSRoIAlign(2, 0.5, 2))
    with pytest.raises(RuntimeError, match="input channels must be a multiple of pooling height"):
        ops.ps_roi_align(_c(x[:, :5]), _c(rois), 2)


def test_ps_roi_pool_definition_and_gradient(tv):
    x = RNG.standard_normal((1, 4 * 2, 6, 6))
    # box (0, 0)-(4, 4) is 4 pixels a side: bin (i, j) of output channel c averages a 2x2 block
    out = ops.ps_roi_pool(_c(x), _c(np.array([[0, 0, 0, 4, 4.0]])), 2).numpy()
    for c in range(2):
        for i in range(2):
            for j in range(2):
                block = x[0, (c * 2 + i) * 2 + j, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2]
                np.testing.assert_allclose(out[0, c, i, j], block.mean())
    xc = _c(x).requires_grad_()
    assert gradcheck(
        lambda t: ops.ps_roi_pool(t, _c(np.array([[0, 0.6, 1.2, 5.2, 4.4]])), 2, 1.0), (xc,)
    )
    assert repr(ops.PSRoIPool(2, 0.5)) == repr(tv.ops.PSRoIPool(2, 0.5))


def test_multi_scale_roi_align_matches_torchvision(tv, tv_roi_align):
    features = OrderedDict(
        (name, RNG.standard_normal((2, 3, s, s)))
        for name, s in (("feat1", 16), ("feat2", 8), ("feat3", 4))
    )
    # boxes inside the images (torchvision's Python path does not zero samples past the border);
    # sizes spread over both levels with canonical_scale=16
    boxes = [
        np.array([[2, 3, 6, 8], [10, 4, 22, 16], [30, 30, 60, 61]], dtype=np.float64),
        np.array([[1, 1, 5.5, 4], [5, 6, 40, 30]], dtype=np.float64),
    ]
    ours = ops.MultiScaleRoIAlign(["feat1", "feat2", "feat3"], 3, 2, canonical_scale=16)
    theirs = tv.ops.MultiScaleRoIAlign(["feat1", "feat2", "feat3"], 3, 2, canonical_scale=16)
    a = ours(
        OrderedDict((k, _c(v)) for k, v in features.items()),
        [_c(b) for b in boxes],
        [(64, 64), (60, 50)],
    )
    b = theirs(
        OrderedDict((k, _t(v)) for k, v in features.items()),
        [_t(b) for b in boxes],
        [(64, 64), (60, 50)],
    )
    assert ours.scales == theirs.scales
    levels = ours.map_levels([_c(b) for b in boxes]).tolist()
    assert levels == theirs.map_levels([_t(b) for b in boxes]).tolist() and set(levels) == {0, 1, 2}
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    assert repr(ours) == repr(theirs)


# ---------------------------------------------------------------- deform conv


def test_deform_conv2d_zero_offsets_is_conv2d_and_integer_offsets_shift():
    x, w, b = (
        RNG.standard_normal((2, 4, 7, 6)),
        RNG.standard_normal((6, 2, 3, 3)),
        RNG.standard_normal(6),
    )
    zero = np.zeros((2, 2 * 9, 4, 3))
    ours = ops.deform_conv2d(_c(x), _c(zero), _c(w), _c(b), stride=2, padding=(1, 1), dilation=1)
    expected = torch.nn.functional.conv2d(_t(x), _t(w), _t(b), stride=2, padding=1, groups=2)
    np.testing.assert_allclose(ours.numpy(), expected.numpy(), atol=1e-12)
    # every tap moved by (+1 row, -1 column) = convolving the shifted image (zero-filled)
    shift = np.zeros((1, 2 * 9, 5, 4))
    shift[:, 0::2], shift[:, 1::2] = 1.0, -1.0
    wide = RNG.standard_normal((3, 4, 3, 3))
    ours = ops.deform_conv2d(_c(x[:1]), _c(shift), _c(wide))
    moved = np.zeros_like(x[:1])
    moved[:, :, :-1, 1:] = x[:1, :, 1:, :-1]
    np.testing.assert_allclose(
        ours.numpy(), torch.nn.functional.conv2d(_t(moved), _t(wide)).numpy(), atol=1e-12
    )


def _deform_loop(x, offset, w, mask):
    n, c, h, wid = x.shape
    o, _, kh, kw = w.shape
    g = offset.shape[1] // (2 * kh * kw)
    ho, wo = offset.shape[2:]
    out = np.zeros((n, o, ho, wo))

    def sample(img, y, xx):
        if y <= -1 or y >= h or xx <= -1 or xx >= wid:
            return 0.0
        y0, x0 = math.floor(y), math.floor(xx)
        total = 0.0
        for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
            for xq, wx in ((x0, 1 - (xx - x0)), (x0 + 1, xx - x0)):
                if 0 <= yy < h and 0 <= xq < wid:
                    total += wy * wx * img[yy, xq]
        return total

    for b in range(n):
        for oc in range(o):
            for i in range(ho):
                for j in range(wo):
                    total = 0.0
                    for ci in range(c):
                        grp = ci // (c // g)
                        for a in range(kh):
                            for bb in range(kw):
                                k = a * kw + bb
                                dy = offset[b, 2 * (grp * kh * kw + k), i, j]
                                dx = offset[b, 2 * (grp * kh * kw + k) + 1, i, j]
                                m = mask[b, grp * kh * kw + k, i, j] if mask is not None else 1.0
                                total += (
                                    w[oc, ci, a, bb] * m * sample(x[b, ci], i + a + dy, j + bb + dx)
                                )
                    out[b, oc, i, j] = total
    return out


def test_deform_conv2d_definition_and_gradcheck(tv):
    x = RNG.standard_normal((1, 2, 4, 5))
    w = RNG.standard_normal((2, 2, 2, 2))
    offset = RNG.uniform(-1.7, 1.7, (1, 2 * 2 * 4, 3, 4))  # two offset groups
    mask = RNG.random((1, 2 * 4, 3, 4))
    ours = ops.deform_conv2d(_c(x), _c(offset), _c(w), mask=_c(mask))
    np.testing.assert_allclose(ours.numpy(), _deform_loop(x, offset, w, mask), atol=1e-12)
    tensors = [_c(a).requires_grad_() for a in (x, offset, w, mask, RNG.standard_normal(2))]
    assert gradcheck(
        lambda i, off, ww, m, bb: ops.deform_conv2d(i, off, ww, bb, mask=m), tuple(tensors)
    )
    layer, real = (
        ops.DeformConv2d(4, 6, 3, padding=1, groups=2, bias=False),
        tv.ops.DeformConv2d(4, 6, 3, padding=1, groups=2, bias=False),
    )
    assert repr(layer) == repr(real)
    assert {k: tuple(v.shape) for k, v in layer.state_dict().items()} == {
        k: tuple(v.shape) for k, v in real.state_dict().items()
    }
    with pytest.raises(RuntimeError) as mine:
        ops.deform_conv2d(_c(x), _c(offset[:, :3]), _c(w))
    assert "the shape of the offset tensor at dimension 1 is not valid" in str(mine.value)


# ---------------------------------------------------------------- DropBlock, FPN


@pytest.mark.parametrize(
    "name, shape", [("drop_block2d", (2, 3, 9, 9)), ("drop_block3d", (1, 2, 5, 6, 6))]
)
def test_drop_block(tv, name, shape):
    fn, real = getattr(ops, name), getattr(tv.ops, name)
    x = _c(RNG.standard_normal(shape) + 5)
    assert fn(x, 0.5, 3, training=False) is x and fn(x, 0.0, 3) is x
    chainrule.manual_seed(0)
    out = fn(x, 0.3, 3).numpy()
    kept = out != 0
    # survivors are scaled by numel / kept, dropped cells come in whole blocks
    scale = kept.size / kept.sum()
    np.testing.assert_allclose(out[kept], x.numpy()[kept] * scale, rtol=1e-6)
    assert 0 < kept.mean() < 1
    for args in ((x, 1.5, 3), (x, 0.5, 2), (x[0], 0.5, 3)):
        with pytest.raises(ValueError) as mine:
            fn(*args)
        with pytest.raises(ValueError) as theirs:
            real(_t(args[0].numpy()), *args[1:])
        assert str(mine.value) == str(theirs.value)
    assert repr(ops.DropBlock2d(0.1, 5)) == repr(tv.ops.DropBlock2d(0.1, 5))


def test_feature_pyramid_network_matches_torchvision(tv):
    from chainrule.vision.ops.feature_pyramid_network import LastLevelMaxPool, LastLevelP6P7

    TvMaxPool = tv.ops.feature_pyramid_network.LastLevelMaxPool
    TvP6P7 = tv.ops.feature_pyramid_network.LastLevelP6P7

    inputs = OrderedDict(
        (f"c{i}", RNG.standard_normal((1, ch, s, s)).astype(np.float32))
        for i, (ch, s) in enumerate([(4, 16), (6, 8), (8, 5)])
    )
    for ours_extra, theirs_extra in (
        (LastLevelMaxPool(), TvMaxPool()),
        (LastLevelP6P7(8, 5), TvP6P7(8, 5)),
    ):
        ours, theirs = (
            ops.FeaturePyramidNetwork([4, 6, 8], 5, ours_extra),
            tv.ops.FeaturePyramidNetwork([4, 6, 8], 5, theirs_extra),
        )
        ours.load_state_dict({k: _c(v.numpy()) for k, v in theirs.state_dict().items()})
        a = ours(OrderedDict((k, _c(v)) for k, v in inputs.items()))
        b = theirs(OrderedDict((k, _t(v)) for k, v in inputs.items()))
        assert list(a) == list(b)
        for key in a:
            np.testing.assert_allclose(
                a[key].detach().numpy(), b[key].detach().numpy(), rtol=1e-5, atol=1e-5
            )


def test_nms_of_zero_area_boxes_keeps_them_quietly():
    # IoU of two empty boxes is 0/0: no overlap to suppress by, and no NumPy warning
    import warnings

    from chainrule.vision.ops import nms

    boxes = chainrule.tensor([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 2.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        keep = nms(boxes, chainrule.tensor([0.5, 0.9, 0.1]), 0.5)
    assert keep.tolist() == [1, 0, 2]
