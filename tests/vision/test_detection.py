"""chainrule.vision.models.detection (Faster R-CNN) against the real torchvision 0.28, whose
compiled ``nms``/``roi_align`` are replaced by Python kernels (``tv_detection``): the same
module trees and state dicts; with torchvision's weights loaded, the same detections
(float64), the same training losses and gradients. The proposal samplers draw at random,
so the training comparisons use batch sizes that keep every proposal (the sampled set is
then all of them, whatever the draw)."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
from chainrule.vision.models import detection as cd

RNG = np.random.default_rng(0)
IMAGES = [RNG.random((3, 96, 128)), RNG.random((3, 80, 112))]
TARGETS = [
    {"boxes": np.array([[10.0, 12, 60, 70], [50, 20, 120, 90]]), "labels": np.array([1, 3])},
    {"boxes": np.array([[5.0, 5, 40, 50]]), "labels": np.array([2])},
]
SMALL = dict(
    weights=None,
    weights_backbone=None,
    num_classes=5,
    min_size=96,
    max_size=128,
    rpn_pre_nms_top_n_test=60,
    rpn_post_nms_top_n_test=30,
    rpn_pre_nms_top_n_train=60,
    rpn_post_nms_top_n_train=30,
    # every anchor and proposal is sampled: the random draw does not matter
    rpn_batch_size_per_image=10**6,
    box_batch_size_per_image=10**6,
)


def _converted(model):
    state = model.state_dict()
    converted = OrderedDict((k, chainrule.tensor(v.numpy().copy())) for k, v in state.items())
    converted._metadata = state._metadata
    return converted


def _layout(model):
    return [(k, tuple(v.shape)) for k, v in model.state_dict().items()]


def _images(lib):
    return [lib.from_numpy(i.copy()) for i in IMAGES]


def _targets(lib):
    return [{k: lib.from_numpy(v.copy()) for k, v in t.items()} for t in TARGETS]


def _confident(model):
    """Perturbed RPN logits and a box predictor favouring class 2, for a few confident
    detections."""
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        model.rpn.head.cls_logits.weight.normal_(0, 0.05, generator=gen)
        model.roi_heads.box_predictor.cls_score.bias.copy_(torch.tensor([0.0, 4, 1, -1, 0]))
    return model


def _pair(tvd, name, **kwargs):
    torch.manual_seed(0)
    theirs = getattr(tvd.models.detection, name)(**{**SMALL, **kwargs}).double()
    ours = getattr(cd, name)(**{**SMALL, **kwargs}).double()
    assert str(ours) == str(theirs)
    assert _layout(ours) == _layout(theirs)
    _confident(theirs)
    ours.load_state_dict(_converted(theirs))
    return theirs, ours


def _assert_same_detections(theirs_out, ours_out):
    for a, b in zip(theirs_out, ours_out, strict=True):
        assert set(a) == set(b)
        assert len(a["boxes"]) > 0
        np.testing.assert_array_equal(b["labels"].numpy(), a["labels"].numpy())
        for key in a:
            np.testing.assert_allclose(b[key].numpy(), a[key].numpy(), rtol=1e-9, atol=1e-9)


@pytest.fixture(scope="module")
def resnet50_pair(tv_detection):
    return _pair(tv_detection, "fasterrcnn_resnet50_fpn")


def test_fasterrcnn_resnet50_fpn_eval_detections(resnet50_pair):
    theirs, ours = resnet50_pair
    theirs.eval(), ours.eval()
    with torch.no_grad():
        expected = theirs(_images(torch))
    with chainrule.no_grad():
        got = ours(_images(chainrule))
    _assert_same_detections(expected, got)
    assert {int(l) for l in expected[0]["labels"]} >= {2}


def test_fasterrcnn_resnet50_fpn_train_losses_and_gradients(resnet50_pair):
    theirs, ours = resnet50_pair
    theirs.train(), ours.train()
    theirs.zero_grad(), ours.zero_grad()
    expected = theirs(_images(torch), _targets(torch))
    got = ours(_images(chainrule), _targets(chainrule))
    assert list(got) == ["loss_classifier", "loss_box_reg", "loss_objectness", "loss_rpn_box_reg"]
    assert list(got) == list(expected)
    for key in expected:
        # torchvision's RPN labels are float32, so its objectness loss is float32-rounded
        tol = 1e-6 if key == "loss_objectness" else 1e-10
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=tol)
    sum(expected.values()).backward()
    sum(got.values()).backward()
    for name in [
        "roi_heads.box_predictor.cls_score.weight",
        "roi_heads.box_head.fc6.bias",
        "rpn.head.bbox_pred.weight",
        "backbone.fpn.layer_blocks.0.0.weight",
        "backbone.body.layer1.0.conv1.weight",
    ]:
        g_theirs = theirs.get_parameter(name).grad.numpy()
        g_ours = ours.get_parameter(name).grad.numpy()
        np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-6, atol=1e-9 * np.abs(g_theirs).max())
    theirs.eval(), ours.eval()


@pytest.mark.parametrize(
    "name",
    [
        "fasterrcnn_resnet50_fpn_v2",
        "fasterrcnn_mobilenet_v3_large_fpn",
        "fasterrcnn_mobilenet_v3_large_320_fpn",
    ],
)
def test_other_faster_rcnn_builders_eval_and_train(tv_detection, name):
    theirs, ours = _pair(tv_detection, name, rpn_score_thresh=0.0)
    theirs.eval(), ours.eval()
    with torch.no_grad():
        expected = theirs(_images(torch))
    with chainrule.no_grad():
        got = ours(_images(chainrule))
    _assert_same_detections(expected, got)
    theirs.train(), ours.train()
    expected = theirs(_images(torch), _targets(torch))
    got = ours(_images(chainrule), _targets(chainrule))
    for key in expected:
        tol = 1e-6 if key == "loss_objectness" else 1e-9
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=tol)


def _half_images(lib):
    return [lib.from_numpy(i[:, ::2, ::2].copy()) for i in IMAGES]


def _mask_targets(lib):
    targets = _targets(lib)
    for target, (h, w) in zip(targets, [(48, 64), (40, 56)]):
        target["boxes"] = target["boxes"] / 2
        masks = np.zeros((len(target["boxes"]), h, w), dtype=np.uint8)
        for i, (x1, y1, x2, y2) in enumerate(target["boxes"].numpy().astype(int)):
            masks[i, y1:y2, x1 : (x1 + x2) // 2 + 3] = 1  # a part of each box
        target["masks"] = lib.from_numpy(masks)
    return targets


@pytest.mark.parametrize("name", ["fasterrcnn_resnet50_fpn_v2", "maskrcnn_resnet50_fpn_v2"])
def test_v2_builders_module_tree_and_state_dict(tv_detection, name):
    torch.manual_seed(0)
    theirs = getattr(tv_detection.models.detection, name)(weights=None, num_classes=4)
    ours = getattr(cd, name)(weights=None, num_classes=4)
    assert str(ours) == str(theirs)
    assert _layout(ours) == _layout(theirs)
    frozen = lambda m: [n for n, p in m.named_parameters() if not p.requires_grad]  # noqa: E731
    assert frozen(ours) == frozen(theirs) == []


def test_maskrcnn_eval_masks_and_train_losses(tv_detection):
    name = "maskrcnn_resnet50_fpn"
    # few detections and proposals: torchvision's Python RoI Align of the masks is slow
    theirs, ours = _pair(
        tv_detection,
        name,
        min_size=48,
        max_size=64,
        box_detections_per_img=6,
        rpn_post_nms_top_n_train=8,
    )
    theirs.eval(), ours.eval()
    with torch.no_grad():
        expected = theirs(_half_images(torch))
    with chainrule.no_grad():
        got = ours(_half_images(chainrule))
    _assert_same_detections(expected, got)
    assert tuple(got[1]["masks"].shape[1:]) == (1, 40, 56)
    theirs.train(), ours.train()
    expected = theirs(_half_images(torch), _mask_targets(torch))
    got = ours(_half_images(chainrule), _mask_targets(chainrule))
    assert list(got) == list(expected) and "loss_mask" in got
    for key in expected:
        tol = 1e-6 if key == "loss_objectness" else 1e-9
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=tol)
    expected["loss_mask"].backward()
    got["loss_mask"].backward()
    for param in ["roi_heads.mask_predictor.conv5_mask.weight", "roi_heads.mask_head.0.0.weight"]:
        g_theirs = theirs.get_parameter(param).grad.numpy()
        np.testing.assert_allclose(
            ours.get_parameter(param).grad.numpy(),
            g_theirs,
            rtol=1e-6,
            atol=1e-9 * np.abs(g_theirs).max(),
        )


# ---------------------------------------------------------------- parts


def test_anchor_generator_and_box_coder(tv_detection):
    tvd = tv_detection.models.detection
    from chainrule.vision.models.detection import _utils as du
    from chainrule.vision.models.detection.anchor_utils import AnchorGenerator
    from chainrule.vision.models.detection.image_list import ImageList

    sizes, ratios = ((16, 40), (64,)), ((0.5, 1.0), (1.0, 2.0, 3.0))
    theirs = tvd.anchor_utils.AnchorGenerator(sizes, ratios)
    ours = AnchorGenerator(sizes, ratios)
    assert ours.num_anchors_per_location() == theirs.num_anchors_per_location() == [4, 3]
    maps = [np.zeros((2, 1, 12, 16)), np.zeros((2, 1, 3, 4))]
    a_theirs = theirs(
        tvd.image_list.ImageList(torch.zeros(2, 3, 48, 64), [(48, 60), (40, 64)]),
        [torch.from_numpy(m) for m in maps],
    )
    a_ours = ours(
        ImageList(chainrule.zeros(2, 3, 48, 64), [(48, 60), (40, 64)]), [_c(m) for m in maps]
    )
    for x, y in zip(a_theirs, a_ours, strict=True):
        np.testing.assert_array_equal(y.numpy(), x.numpy())
        assert y.numpy().dtype == x.numpy().dtype
    with pytest.raises(AssertionError) as mine:
        ours.grid_anchors([[2, 2]], [[1, 1], [2, 2]])
    with pytest.raises(AssertionError) as real:
        theirs.grid_anchors([[2, 2]], [[1, 1], [2, 2]])
    assert str(mine.value) == str(real.value)

    proposals = np.array([[0.0, 0, 10, 10], [5, 5, 30, 20], [2, 3, 4, 9]])
    gt = np.array([[1.0, 1, 12, 9], [0, 8, 25, 25], [2, 2, 3, 3]])
    coder_t, coder_o = (
        tvd._utils.BoxCoder((10.0, 10.0, 5.0, 5.0)),
        du.BoxCoder((10.0, 10.0, 5.0, 5.0)),
    )
    (enc_t,) = coder_t.encode([torch.from_numpy(gt)], [torch.from_numpy(proposals)])
    (enc_o,) = coder_o.encode([_c(gt)], [_c(proposals)])
    np.testing.assert_allclose(enc_o.numpy(), enc_t.numpy(), rtol=1e-12)
    codes = RNG.normal(size=(3, 8)) * 3  # two classes, large log sizes get clamped
    dec_t = coder_t.decode(torch.from_numpy(codes), [torch.from_numpy(proposals)])
    dec_o = coder_o.decode(_c(codes), [_c(proposals)])
    assert tuple(dec_o.shape) == tuple(dec_t.shape) == (3, 2, 4)
    np.testing.assert_allclose(dec_o.numpy(), dec_t.numpy(), rtol=1e-12)


def _c(a):
    return chainrule.from_numpy(np.array(a, copy=True))


@pytest.mark.parametrize("allow_low", [False, True])
def test_matcher_and_sampler(tv_detection, allow_low):
    tvd = tv_detection.models.detection
    from chainrule.vision.models.detection import _utils as du

    quality = np.array(
        [[0.9, 0.2, 0.35, 0.1, 0.45], [0.1, 0.65, 0.1, 0.05, 0.45], [0.0, 0.1, 0.2, 0.25, 0.0]]
    )
    theirs = tvd._utils.Matcher(0.7, 0.3, allow_low_quality_matches=allow_low)(
        torch.from_numpy(quality)
    )
    ours = du.Matcher(0.7, 0.3, allow_low_quality_matches=allow_low)(_c(quality))
    assert ours.tolist() == theirs.tolist()
    for empty in (np.zeros((0, 3)), np.zeros((2, 0))):
        with pytest.raises(ValueError) as mine:
            du.Matcher(0.7, 0.3)(_c(empty))
        with pytest.raises(ValueError) as real:
            tvd._utils.Matcher(0.7, 0.3)(torch.from_numpy(empty))
        assert str(mine.value) == str(real.value)
    labels = [_c(np.array([1, 0, 0, -1, 2, 0, 0, 3, 0, 1]))]
    pos, neg = du.BalancedPositiveNegativeSampler(6, 0.25)(labels)
    assert pos[0].dtype == chainrule.uint8 and int(pos[0].sum()) == 1 and int(neg[0].sum()) == 5
    assert set(np.nonzero(pos[0].numpy())[0]) <= {0, 4, 7, 9}
    assert set(np.nonzero(neg[0].numpy())[0]) <= {1, 2, 5, 6, 8}


def test_transform_resize_batch_and_postprocess(tv_detection):
    tvd = tv_detection.models.detection
    from chainrule.vision.models.detection.transform import GeneralizedRCNNTransform

    args = ((50, 60), 90, [0.4, 0.5, 0.6], [0.2, 0.3, 0.25])
    theirs = tvd.transform.GeneralizedRCNNTransform(*args, size_divisible=16).eval()
    ours = GeneralizedRCNNTransform(*args, size_divisible=16).eval()
    assert repr(ours) == repr(theirs)
    images = [RNG.random((3, 37, 45)), RNG.random((3, 70, 41))]
    targets = [{"boxes": np.array([[1.0, 2, 30, 33]]), "masks": np.ones((1, 37, 45), np.uint8)}] + [
        {
            "boxes": np.array([[3.0, 4, 40, 60], [0, 0, 5, 7]]),
            "masks": np.ones((2, 70, 41), np.uint8),
        }
    ]
    il_t, tg_t = theirs(
        [torch.from_numpy(i) for i in images],
        [{k: torch.from_numpy(v) for k, v in t.items()} for t in targets],
    )
    il_o, tg_o = ours([_c(i) for i in images], [{k: _c(v) for k, v in t.items()} for t in targets])
    assert il_o.image_sizes == il_t.image_sizes
    np.testing.assert_allclose(il_o.tensors.numpy(), il_t.tensors.numpy(), rtol=1e-12, atol=1e-12)
    for a, b in zip(tg_t, tg_o):
        np.testing.assert_allclose(b["boxes"].numpy(), a["boxes"].numpy(), rtol=1e-12)
        np.testing.assert_array_equal(b["masks"].numpy(), a["masks"].numpy())
    result = [{"boxes": np.array([[3.0, 4, 30, 40]]), "masks": RNG.random((1, 1, 28, 28))}]
    out_t = theirs.postprocess(
        [{k: torch.from_numpy(v) for k, v in result[0].items()}], [(60, 73)], [(37, 45)]
    )
    out_o = ours.postprocess([{k: _c(v) for k, v in result[0].items()}], [(60, 73)], [(37, 45)])
    for key in ("boxes", "masks"):
        np.testing.assert_allclose(
            out_o[0][key].numpy(), out_t[0][key].numpy(), rtol=1e-12, atol=1e-12
        )
    with pytest.raises(TypeError) as mine:
        ours([chainrule.zeros((3, 5, 5), dtype=chainrule.uint8)])
    with pytest.raises(TypeError) as real:
        theirs([torch.zeros((3, 5, 5), dtype=torch.uint8)])
    assert str(mine.value) == str(real.value)


# ---------------------------------------------------------------- builders, weights, errors

BUILDERS = [
    "fasterrcnn_resnet50_fpn",
    "fasterrcnn_resnet50_fpn_v2",
    "fasterrcnn_mobilenet_v3_large_fpn",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
    "maskrcnn_resnet50_fpn",
    "maskrcnn_resnet50_fpn_v2",
    "retinanet_resnet50_fpn",
    "retinanet_resnet50_fpn_v2",
    "fcos_resnet50_fpn",
    "keypointrcnn_resnet50_fpn",
    "ssd300_vgg16",
    "ssdlite320_mobilenet_v3_large",
]


def test_registry_signatures_and_weights(tv_detection):
    import inspect

    from chainrule.vision import models as cm

    tvd = tv_detection.models.detection
    assert cm.list_models(cd) == sorted(BUILDERS)
    assert set(BUILDERS) <= set(tv_detection.models.list_models(tvd))
    for name in BUILDERS:
        ours, theirs = getattr(cd, name), getattr(tvd, name)
        sig_o, sig_t = inspect.signature(ours), inspect.signature(theirs)
        assert list(sig_o.parameters) == list(sig_t.parameters)
        assert [p.default for p in sig_o.parameters.values()] == [
            p.default
            if not hasattr(p.default, "name")
            else getattr(cm, type(p.default).__name__)[p.default.name]
            for p in sig_t.parameters.values()
        ]
        enum_o, enum_t = cm.get_model_weights(name), tv_detection.models.get_model_weights(name)
        assert enum_o.__name__ == enum_t.__name__
        assert [w.name for w in enum_o] == [w.name for w in enum_t]
        assert enum_o.DEFAULT.name == enum_t.DEFAULT.name
        for w_o, w_t in zip(enum_o, enum_t):
            assert w_o.url == w_t.url and w_o.meta == w_t.meta
            assert repr(w_o.transforms()) == repr(w_t.transforms()) == "ObjectDetection()"
        assert cm.get_weight(f"{enum_t.__name__}.COCO_V1") is enum_o.COCO_V1
    assert len(cd.FasterRCNN_ResNet50_FPN_Weights.COCO_V1.meta["categories"]) == 91


def _same_error(ours, theirs, exc):
    with pytest.raises(exc) as mine, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours()
    with pytest.raises(exc) as real, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs()
    assert str(mine.value) == str(real.value)


def test_builder_and_model_errors(tv_detection, resnet50_pair):
    tvd = tv_detection.models.detection
    _same_error(
        lambda: cd.fasterrcnn_resnet50_fpn(weights="COCO_V1", num_classes=3),
        lambda: tvd.fasterrcnn_resnet50_fpn(weights="COCO_V1", num_classes=3),
        ValueError,
    )
    _same_error(
        lambda: cd.FasterRCNN(chainrule.nn.Identity(), 3),
        lambda: tvd.FasterRCNN(torch.nn.Identity(), 3),
        ValueError,
    )
    backbone_o, backbone_t = chainrule.nn.Identity(), torch.nn.Identity()
    backbone_o.out_channels = backbone_t.out_channels = 8
    _same_error(lambda: cd.FasterRCNN(backbone_o), lambda: tvd.FasterRCNN(backbone_t), ValueError)
    _same_error(
        lambda: cd.FasterRCNN(backbone_o, 3, rpn_anchor_generator=1),
        lambda: tvd.FasterRCNN(backbone_t, 3, rpn_anchor_generator=1),
        TypeError,
    )
    theirs, ours = resnet50_pair
    theirs.train(), ours.train()
    _same_error(lambda: ours(_images(chainrule)), lambda: theirs(_images(torch)), AssertionError)
    bad_o, bad_t = _targets(chainrule), _targets(torch)
    bad_o[1]["boxes"] = _c(np.array([[5.0, 5, 5, 50]]))
    bad_t[1]["boxes"] = torch.tensor([[5.0, 5, 5, 50]], dtype=torch.float64)
    _same_error(
        lambda: ours(_images(chainrule), bad_o),
        lambda: theirs(_images(torch), bad_t),
        AssertionError,
    )
    theirs.eval(), ours.eval()


def test_trainable_layers_and_legacy_interface(tv_detection):
    tvd = tv_detection.models.detection
    with pytest.warns(UserWarning) as mine:
        ours = cd.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights_backbone=None, trainable_backbone_layers=2, num_classes=3
        )
    with pytest.warns(UserWarning) as real:
        theirs = tvd.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights_backbone=None, trainable_backbone_layers=2, num_classes=3
        )
    assert [str(w.message) for w in mine] == [str(w.message) for w in real]
    frozen = lambda m: [n for n, p in m.named_parameters() if not p.requires_grad]  # noqa: E731
    assert frozen(ours) == frozen(theirs) == []
    _same_error(
        lambda: cd.fasterrcnn_resnet50_fpn(pretrained=True, num_classes=3),
        lambda: tvd.fasterrcnn_resnet50_fpn(pretrained=True, num_classes=3),
        ValueError,
    )
    from chainrule.vision.models import resnet50 as c_resnet50
    from chainrule.vision.models.detection.backbone_utils import _resnet_fpn_extractor

    ours = _resnet_fpn_extractor(c_resnet50(), 2, returned_layers=[2, 4])
    theirs = tvd.backbone_utils._resnet_fpn_extractor(
        tv_detection.models.resnet50(), 2, returned_layers=[2, 4]
    )
    assert str(ours) == str(theirs) and frozen(ours) == frozen(theirs)
    _same_error(
        lambda: _resnet_fpn_extractor(c_resnet50(), 6),
        lambda: tvd.backbone_utils._resnet_fpn_extractor(tv_detection.models.resnet50(), 6),
        ValueError,
    )


def _keypoint_targets(lib):
    targets = _targets(lib)
    rng = np.random.default_rng(5)
    for target in targets:
        boxes = target["boxes"].numpy()
        u = rng.random((len(boxes), 3, 2))
        xy = boxes[:, None, :2] + u * (boxes[:, None, 2:] - boxes[:, None, :2])
        visible = np.array([[1.0, 0.0, 2.0]] * len(boxes))[..., None]
        target["keypoints"] = lib.from_numpy(np.concatenate([xy, visible], -1).astype(np.float32))
    return targets


def test_keypointrcnn_eval_keypoints_and_train_losses(tv_detection):
    theirs, ours = _pair(
        tv_detection,
        "keypointrcnn_resnet50_fpn",
        num_keypoints=3,
        box_detections_per_img=3,
        rpn_post_nms_top_n_train=4,
    )
    theirs.eval(), ours.eval()
    with torch.no_grad():
        expected = theirs(_images(torch))
    with chainrule.no_grad():
        got = ours(_images(chainrule))
    _assert_same_detections(expected, got)
    assert tuple(got[0]["keypoints"].shape) == (3, 3, 3)
    theirs.train(), ours.train()
    expected = theirs(_images(torch), _keypoint_targets(torch))
    got = ours(_images(chainrule), _keypoint_targets(chainrule))
    assert list(got) == list(expected) and "loss_keypoint" in got
    for key in expected:
        tol = 1e-6 if key == "loss_objectness" else 1e-9
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=tol)
    expected["loss_keypoint"].backward()
    got["loss_keypoint"].backward()
    param = "roi_heads.keypoint_predictor.kps_score_lowres.weight"
    g_theirs = theirs.get_parameter(param).grad.numpy()
    np.testing.assert_allclose(
        ours.get_parameter(param).grad.numpy(),
        g_theirs,
        rtol=1e-6,
        atol=1e-9 * np.abs(g_theirs).max(),
    )


# ---------------------------------------------------------------- RetinaNet


@pytest.mark.parametrize(
    "name", ["retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2", "fcos_resnet50_fpn"]
)
def test_retinanet_eval_detections_train_losses_and_gradients(tv_detection, name):
    kwargs = dict(
        weights=None,
        weights_backbone=None,
        num_classes=4,
        min_size=96,
        max_size=128,
        topk_candidates=25,
        detections_per_img=20,
    )
    torch.manual_seed(0)
    theirs = getattr(tv_detection.models.detection, name)(**kwargs).double()
    ours = getattr(cd, name)(**kwargs).double()
    assert str(ours) == str(theirs)
    assert _layout(ours) == _layout(theirs)
    with torch.no_grad():  # class 2 likely everywhere, with varied logits
        head = theirs.head.classification_head.cls_logits
        head.bias.view(-1, 4)[:, 2] = 1.5
        head.weight.normal_(0, 0.02, generator=torch.Generator().manual_seed(2))
    ours.load_state_dict(_converted(theirs))
    theirs.eval(), ours.eval()
    with torch.no_grad():
        expected = theirs(_images(torch))
    # (FCOS clips boxes to empty ones, whose IoU in chainrule's NMS is 0/0: NumPy warns)
    with chainrule.no_grad(), np.errstate(invalid="ignore"):
        got = ours(_images(chainrule))
    _assert_same_detections(expected, got)
    theirs.train(), ours.train()
    expected = theirs(_images(torch), _targets(torch))
    got = ours(_images(chainrule), _targets(chainrule))
    assert list(got) == list(expected)
    for key in expected:
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=1e-10)
    sum(expected.values()).backward()
    sum(got.values()).backward()
    for param in [
        "head.classification_head.cls_logits.weight",
        "head.regression_head.bbox_reg.bias",
    ]:
        g_theirs = theirs.get_parameter(param).grad.numpy()
        np.testing.assert_allclose(
            ours.get_parameter(param).grad.numpy(),
            g_theirs,
            rtol=1e-7,
            atol=1e-10 * np.abs(g_theirs).max(),
        )


@pytest.mark.parametrize(
    "module, args, renames",
    [
        ("rpn.RPNHead", (32, 3), {"conv.0.0.": "conv."}),
        (
            "mask_rcnn.MaskRCNNHeads",
            (32, [16, 16], 1),
            {"0.0.": "mask_fcn1.", "1.0.": "mask_fcn2."},
        ),
        (
            "retinanet.RetinaNetClassificationHead",
            (32, 2, 3),
            {f"conv.{i}.0.": f"conv.{2 * i}." for i in range(4)},
        ),
        (
            "retinanet.RetinaNetRegressionHead",
            (32, 2),
            {f"conv.{i}.0.": f"conv.{2 * i}." for i in range(4)},
        ),
    ],
)
def test_version_1_checkpoints_load(tv_detection, module, args, renames):
    """Old checkpoints (the COCO weights of the v1 builders) name the heads' convs as
    torchvision 0.x did; both libraries rename them on loading."""
    import importlib

    file, cls = module.split(".")
    theirs = getattr(importlib.import_module(f"torchvision.models.detection.{file}"), cls)(*args)
    ours = getattr(importlib.import_module(f"chainrule.vision.models.detection.{file}"), cls)(*args)
    old = OrderedDict()
    for key, value in theirs.state_dict().items():
        for new_prefix, old_prefix in renames.items():
            if key.startswith(new_prefix):
                key = old_prefix + key[len(new_prefix) :]
        old[key] = value
    assert list(old) != list(theirs.state_dict())
    reloaded = type(theirs)(*args)
    reloaded.load_state_dict(old)  # no ``_metadata``: version 1
    ours.load_state_dict(
        OrderedDict((k, chainrule.tensor(v.numpy().copy())) for k, v in old.items())
    )
    for (k_o, v_o), (k_t, v_t) in zip(
        ours.state_dict().items(), reloaded.state_dict().items(), strict=True
    ):
        assert k_o == k_t
        np.testing.assert_array_equal(v_o.numpy(), v_t.numpy())


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (
            ([[2], [2, 3], [2, 3], [2, 3], [2], [2]],),
            dict(
                scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05], steps=[8, 16, 32, 64, 100, 300]
            ),
        ),
        (([[2, 3] for _ in range(6)],), dict(min_ratio=0.2, max_ratio=0.95)),
        (([[2, 3]],), dict(clip=False)),
    ],
)
def test_default_box_generator(tv_detection, args, kwargs):
    from chainrule.vision.models.detection.anchor_utils import DefaultBoxGenerator
    from chainrule.vision.models.detection.image_list import ImageList

    theirs = tv_detection.models.detection.anchor_utils.DefaultBoxGenerator(*args, **kwargs)
    ours = DefaultBoxGenerator(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.num_anchors_per_location() == theirs.num_anchors_per_location()
    sizes = [(38, 38), (19, 19), (10, 10), (5, 5), (3, 3), (1, 1)][: len(args[0])]
    for dtype in ("float32", "float64"):
        maps = [np.zeros((2, 1, *s), dtype=dtype) for s in sizes]
        expected = theirs(
            tv_detection.models.detection.image_list.ImageList(
                torch.zeros(2, 3, 300, 300), [(300, 300)] * 2
            ),
            [torch.from_numpy(m) for m in maps],
        )
        got = ours(
            ImageList(chainrule.zeros(2, 3, 300, 300), [(300, 300)] * 2), [_c(m) for m in maps]
        )
        for a, b in zip(expected, got, strict=True):
            assert b.numpy().dtype == a.numpy().dtype
            np.testing.assert_allclose(
                b.numpy(), a.numpy(), rtol=1e-6 if dtype == "float32" else 1e-12
            )
    with pytest.raises(ValueError) as mine:
        DefaultBoxGenerator([[2]], steps=[8, 16])
    with pytest.raises(ValueError) as real:
        tv_detection.models.detection.anchor_utils.DefaultBoxGenerator([[2]], steps=[8, 16])
    assert str(mine.value) == str(real.value)


# ---------------------------------------------------------------- SSD


def test_ssdlite_eval_detections_train_losses_and_gradients(tv_detection):
    kwargs = dict(
        weights=None,
        weights_backbone=None,
        num_classes=4,
        topk_candidates=15,
        detections_per_img=15,
    )
    torch.manual_seed(0)
    theirs = tv_detection.models.detection.ssdlite320_mobilenet_v3_large(**kwargs).double()
    ours = cd.ssdlite320_mobilenet_v3_large(**kwargs).double()
    assert str(ours) == str(theirs)
    assert _layout(ours) == _layout(theirs)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():  # activations that do not vanish (no tied scores); class 2 likely
        for layer in theirs.modules():
            if isinstance(layer, torch.nn.Conv2d):
                torch.nn.init.kaiming_normal_(layer.weight, generator=gen)
        for block in theirs.head.classification_head.module_list:
            block[1].bias.view(-1, 4)[:, 2] += 3.0
    ours.load_state_dict(_converted(theirs))
    theirs.eval(), ours.eval()
    with torch.no_grad():
        expected = theirs(_images(torch))
    with chainrule.no_grad(), np.errstate(invalid="ignore"):
        got = ours(_images(chainrule))
    _assert_same_detections(expected, got)
    theirs.train(), ours.train()
    expected = theirs(_images(torch), _targets(torch))
    got = ours(_images(chainrule), _targets(chainrule))
    assert list(got) == list(expected) == ["bbox_regression", "classification"]
    for key in expected:
        np.testing.assert_allclose(got[key].item(), expected[key].item(), rtol=1e-10)
    sum(expected.values()).backward()
    sum(got.values()).backward()
    for param in [
        "head.classification_head.module_list.0.1.weight",
        "head.regression_head.module_list.5.1.bias",
    ]:
        g_theirs = theirs.get_parameter(param).grad.numpy()
        np.testing.assert_allclose(
            ours.get_parameter(param).grad.numpy(),
            g_theirs,
            rtol=1e-7,
            atol=1e-10 * np.abs(g_theirs).max(),
        )


def test_ssd300_vgg16_module_tree_and_state_dict(tv_detection):
    # on the meta device: building runs VGG-16 once at 300x300 to find the maps' channels
    with torch.device("meta"):
        theirs = tv_detection.models.detection.ssd300_vgg16(
            weights=None, weights_backbone=None, num_classes=3
        )
    with chainrule.device("meta"):
        ours = cd.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=3)
    assert str(ours) == str(theirs)
    assert _layout(ours) == _layout(theirs)
    frozen = lambda m: [n for n, p in m.named_parameters() if not p.requires_grad]  # noqa: E731
    assert frozen(ours) == frozen(theirs) == []
