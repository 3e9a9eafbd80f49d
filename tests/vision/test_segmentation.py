"""``torchvision.models.segmentation`` (FCN, DeepLabV3, LR-ASPP) and
``models._utils.IntermediateLayerGetter`` against the real torchvision: module trees and
state-dict layouts, the output dicts and gradients with torchvision's (randomised) weights
loaded in float64, the weight enums, the registry, the errors, and weights (the whole
model's or the backbone's) loaded from the hub cache."""

from __future__ import annotations

import importlib
import os
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
import chainrule.hub
from chainrule.vision import models as cm
from chainrule.vision.models import segmentation as cs
from chainrule.vision.models._utils import IntermediateLayerGetter

BUILDERS = [
    "fcn_resnet50",
    "fcn_resnet101",
    "deeplabv3_resnet50",
    "deeplabv3_resnet101",
    "deeplabv3_mobilenet_v3_large",
    "lraspp_mobilenet_v3_large",
]
MODULES = ["fcn", "deeplabv3", "lraspp"]


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    # PyTorch's OpenMP threads spin when the machine's cores are busy: one thread is
    # faster and steadier for these small float64 problems
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _layout(module):
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


def _recorded(fn, *args, **kwargs):
    """``fn(...)``'s result or exception (type and message) and its warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("ok", fn(*args, **kwargs))
        except Exception as exc:
            outcome = (type(exc).__name__, str(exc))
    return outcome, [str(w.message) for w in caught]


def _converted(model):
    state = model.state_dict()
    converted = OrderedDict((k, chainrule.tensor(v.numpy().copy())) for k, v in state.items())
    converted._metadata = state._metadata
    return converted


def _randomize(model):
    """Every parameter perturbed and random batch-norm statistics; dropout off."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if name.endswith("running_var"):
                t.copy_(torch.rand(t.shape, generator=gen) + 0.5)
            elif t.dtype.is_floating_point:
                t.add_(
                    torch.randn(t.shape, generator=gen, dtype=t.dtype)
                    * 0.1
                    * (t.abs().mean() + 0.1)
                )
    return _no_dropout(model)


def _no_dropout(model):
    for m in model.modules():
        if type(m).__name__ == "Dropout":
            m.p = 0.0
    return model


@pytest.mark.parametrize("name", BUILDERS)
def test_builder_structure_matches(tv, name):
    kwargs = {"weights_backbone": None}
    if name != "lraspp_mobilenet_v3_large":
        kwargs["aux_loss"] = True
    with torch.device("meta"):
        theirs = getattr(tv.models.segmentation, name)(**kwargs)
    with chainrule.device("meta"):
        ours = cm.get_model(name, **kwargs)
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


def test_default_builders_have_no_aux_head_and_21_classes(tv):
    with chainrule.device("meta"):
        ours = cs.deeplabv3_mobilenet_v3_large(weights_backbone=None)
    with torch.device("meta"):
        theirs = tv.models.segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None)
    assert ours.aux_classifier is None and theirs.aux_classifier is None
    assert repr(ours) == repr(theirs)
    assert ours.classifier[4].out_channels == 21
    assert ours.backbone.return_layers == theirs.backbone.return_layers == {"16": "out"}


def _as_dict(out):
    return out if isinstance(out, dict) else {"out": out}


def _check(theirs, ours, shape, rtol=1e-9, grad_rtol=1e-7):
    """Same eval-mode output dicts; in train mode the same outputs and parameter
    gradients of a random projection of all outputs."""
    x = np.random.default_rng(0).standard_normal(shape)
    _no_dropout(ours)
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        expected = _as_dict(theirs(torch.tensor(x)))
    actual = _as_dict(ours(chainrule.tensor(x)))
    assert list(actual) == list(expected)
    for key in expected:
        e = expected[key].numpy()
        assert tuple(actual[key].shape) == e.shape == (shape[0], e.shape[1], *shape[2:])
        np.testing.assert_allclose(
            actual[key].detach().numpy(), e, rtol=rtol, atol=rtol * np.abs(e).max()
        )
    theirs.train()
    ours.train()
    out_t, out_c = _as_dict(theirs(torch.tensor(x))), _as_dict(ours(chainrule.tensor(x)))
    rng = np.random.default_rng(1)
    loss_t, loss_c = 0, 0
    for key in out_t:
        g = rng.standard_normal(tuple(out_t[key].shape))
        loss_t = loss_t + (out_t[key] * torch.tensor(g)).sum()
        loss_c = loss_c + (out_c[key] * chainrule.tensor(g)).sum()
    np.testing.assert_allclose(loss_c.item(), loss_t.item(), rtol=grad_rtol)
    loss_t.backward()
    loss_c.backward()
    grads = dict(ours.named_parameters())
    scale = max(p.grad.abs().max().item() for p in theirs.parameters() if p.grad is not None)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            grads[name].grad.numpy(),
            p.grad.numpy(),
            rtol=grad_rtol,
            atol=grad_rtol * scale,
            err_msg=name,
        )


def test_fcn_outputs_and_gradients_match(tv):
    # the FCN model and heads on a ResNet-18 (cheaper than the builders' ResNet-50)
    fcn_t = importlib.import_module("torchvision.models.segmentation.fcn")
    getter_t = importlib.import_module("torchvision.models._utils").IntermediateLayerGetter
    layers = {"layer4": "out", "layer3": "aux"}

    def build(fcn, getter, resnet18):
        head = fcn.FCNHead
        return fcn.FCN(getter(resnet18(), layers), head(512, 3), head(256, 3))

    theirs = _randomize(build(fcn_t, getter_t, tv.models.resnet18).double())
    ours = build(cs.fcn, IntermediateLayerGetter, cm.resnet18).double()
    assert repr(ours) == repr(theirs).replace("p=0.0", "p=0.1")
    ours.load_state_dict(_converted(theirs))
    _check(theirs, ours, (2, 3, 40, 45))


def test_deeplabv3_mobilenet_outputs_and_gradients_match(tv):
    kwargs = {"weights_backbone": None, "num_classes": 4, "aux_loss": True}
    theirs = _randomize(tv.models.segmentation.deeplabv3_mobilenet_v3_large(**kwargs).double())
    ours = cs.deeplabv3_mobilenet_v3_large(**kwargs).double()
    ours.load_state_dict(_converted(theirs))
    _check(theirs, ours, (2, 3, 33, 36), grad_rtol=1e-6)


def test_deeplab_head_on_a_resnet_matches(tv):
    # DeepLabV3-ResNet50 is the FCN's backbone with the ASPP head: the head alone
    theirs = importlib.import_module("torchvision.models.segmentation.deeplabv3").DeepLabHead(
        2048, 3, atrous_rates=(2, 3, 4)
    )
    ours = cs.deeplabv3.DeepLabHead(2048, 3, atrous_rates=(2, 3, 4)).double()
    assert repr(ours) == repr(theirs)
    _randomize(theirs.double())
    ours.load_state_dict(_converted(theirs))
    _check(theirs, ours, (2, 2048, 5, 6))


def test_lraspp_outputs_and_gradients_match(tv):
    kwargs = {"weights_backbone": None, "num_classes": 3}
    theirs = _randomize(tv.models.segmentation.lraspp_mobilenet_v3_large(**kwargs).double())
    ours = cs.lraspp_mobilenet_v3_large(**kwargs).double()
    ours.load_state_dict(_converted(theirs))
    _check(theirs, ours, (2, 3, 33, 36), grad_rtol=1e-6)


def test_fcn_resnet50_output_matches(tv):
    kwargs = {"weights_backbone": None, "num_classes": 3, "aux_loss": True}
    theirs = _randomize(tv.models.segmentation.fcn_resnet50(**kwargs)).eval()
    ours = cs.fcn_resnet50(**kwargs).eval()
    ours.load_state_dict(_converted(theirs))
    x = np.random.default_rng(2).standard_normal((1, 3, 17, 19)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(x))
    actual = ours(chainrule.tensor(x))
    assert type(actual) is OrderedDict and list(actual) == list(expected) == ["out", "aux"]
    for key in expected:
        e = expected[key].numpy()
        assert actual[key].dtype == chainrule.float32 and e.shape == (1, 3, 17, 19)
        np.testing.assert_allclose(
            actual[key].detach().numpy(), e, rtol=1e-4, atol=1e-4 * np.abs(e).max()
        )


# --- IntermediateLayerGetter -------------------------------------------------------


def test_intermediate_layer_getter_matches(tv):
    getter_t = importlib.import_module("torchvision.models._utils").IntermediateLayerGetter
    theirs_model = _randomize(tv.models.resnet18().double()).eval()
    ours_model = cm.resnet18().double().eval()
    ours_model.load_state_dict(_converted(theirs_model))
    layers = {"layer1": "feat1", "layer3": "feat3"}
    theirs = getter_t(theirs_model, return_layers=layers)
    ours = IntermediateLayerGetter(ours_model, return_layers=layers)
    assert repr(ours) == repr(theirs)
    assert (
        list(ours.keys())
        == list(theirs.keys())[:]
        == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3"]
    )
    assert ours.return_layers is layers and ours._version == theirs._version == 2
    assert _layout(ours) == _layout(theirs)
    x = np.random.default_rng(0).standard_normal((2, 3, 32, 32))
    with torch.no_grad():
        expected = _as_dict(theirs(torch.tensor(x)))
    actual = _as_dict(ours(chainrule.tensor(x)))
    assert list(actual) == list(expected) == ["feat1", "feat3"]
    for key in expected:
        np.testing.assert_allclose(
            actual[key].detach().numpy(), expected[key].numpy(), rtol=1e-10, atol=1e-12
        )


def test_intermediate_layer_getter_errors_and_gradients(tv):
    getter_t = importlib.import_module("torchvision.models._utils").IntermediateLayerGetter
    theirs_model, ours_model = tv.models.resnet18(), cm.resnet18()
    outcome_t = _recorded(getter_t, theirs_model, {"layer9": "x"})
    outcome_c = _recorded(IntermediateLayerGetter, ours_model, {"layer9": "x"})
    assert outcome_c == outcome_t and outcome_c[0][0] == "ValueError"
    getter = IntermediateLayerGetter(ours_model, {"layer1": "a"})
    x = chainrule.randn(1, 3, 16, 16)
    getter(x)["a"].sum().backward()
    assert (
        ours_model.conv1.weight.grad is not None and ours_model.layer2[0].conv1.weight.grad is None
    )


# --- namespace, weights, registry, errors -----------------------------------------


@pytest.mark.parametrize("module", MODULES)
def test_module_namespace_matches(tv, module):
    ours = importlib.import_module(f"chainrule.vision.models.segmentation.{module}")
    theirs = importlib.import_module(f"torchvision.models.segmentation.{module}")
    assert ours.__all__ == theirs.__all__
    for name in ours.__all__:
        assert getattr(cs, name) is getattr(ours, name)
    assert sorted(n for n in dir(cs) if not n.startswith("_")) == sorted(
        n for n in dir(tv.models.segmentation) if not n.startswith("_")
    )


@pytest.mark.parametrize("module", MODULES)
def test_weight_enums_match(tv, module):
    ours = importlib.import_module(f"chainrule.vision.models.segmentation.{module}")
    theirs = importlib.import_module(f"torchvision.models.segmentation.{module}")
    for name in [n for n in theirs.__all__ if n.endswith("_Weights")]:
        ours_enum, theirs_enum = getattr(ours, name), getattr(theirs, name)
        assert [w.name for w in ours_enum] == [w.name for w in theirs_enum]
        assert ours_enum.DEFAULT.name == theirs_enum.DEFAULT.name
        for w in ours_enum:
            w_t = theirs_enum[w.name]
            assert repr(w) == repr(w_t) and w.url == w_t.url
            assert list(w.meta) == list(w_t.meta) and w.meta == w_t.meta
            assert w.transforms.keywords == w_t.transforms.keywords == {"resize_size": 520}
            assert w.transforms.func.__name__ == w_t.transforms.func.__name__


def test_builder_signatures_match(tv):
    import inspect

    for name in BUILDERS:
        ours = inspect.signature(getattr(cs, name))
        theirs = inspect.signature(getattr(tv.models.segmentation, name))
        assert list(ours.parameters) == list(theirs.parameters)
        for p, q in zip(ours.parameters.values(), theirs.parameters.values()):
            assert p.kind == q.kind
            assert repr(p.default) == repr(q.default)


def test_weights_transforms_build_the_preset():
    preset = cs.FCN_ResNet50_Weights.DEFAULT.transforms()
    assert type(preset).__module__ == "chainrule.vision.transforms._presets"
    assert type(preset).__name__ == "SemanticSegmentation"
    assert preset.resize_size == [520]
    out = preset(chainrule.rand(3, 40, 60))
    assert tuple(out.shape) == (3, 520, 780)
    assert len(cs.LRASPP_MobileNet_V3_Large_Weights.DEFAULT.meta["categories"]) == 21


def test_registry(tv):
    names = cm.list_models(cs)
    assert names == tv.models.list_models(tv.models.segmentation) == sorted(BUILDERS)
    assert cm.get_model_weights("fcn_resnet50") is cs.FCN_ResNet50_Weights
    assert cm.get_weight("DeepLabV3_ResNet50_Weights.DEFAULT") is (
        cs.DeepLabV3_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1
    )
    model = cm.get_model("lraspp_mobilenet_v3_large", weights=None, weights_backbone=None)
    assert isinstance(model, cs.LRASPP)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("fcn_resnet50", {"weights": "DEFAULT", "aux_loss": False}),
        ("deeplabv3_resnet101", {"weights": "DEFAULT", "num_classes": 10}),
        (
            "deeplabv3_mobilenet_v3_large",
            {"weights": "COCO_WITH_VOC_LABELS_V1", "aux_loss": None, "num_classes": 3},
        ),
        ("lraspp_mobilenet_v3_large", {"weights_backbone": None, "aux_loss": True}),
        ("lraspp_mobilenet_v3_large", {"weights": "DEFAULT", "num_classes": 2}),
        ("fcn_resnet101", {"weights": "IMAGENET1K_V1"}),
        ("deeplabv3_resnet50", {"weights": None, "weights_backbone": "COCO_WITH_VOC_LABELS_V1"}),
    ],
)
def test_errors_match(tv, name, kwargs):
    ours = _recorded(getattr(cs, name), **kwargs)
    theirs = _recorded(getattr(tv.models.segmentation, name), **kwargs)
    assert ours[0][0] != "ok"
    assert ours == theirs


def test_legacy_pretrained_arguments_warn_as_torchvision(tv):
    kwargs = {"pretrained": False, "pretrained_backbone": False, "num_classes": 2}
    (status, model), messages = _recorded(cs.lraspp_mobilenet_v3_large, **kwargs)
    (status_t, model_t), messages_t = _recorded(
        tv.models.segmentation.lraspp_mobilenet_v3_large, **kwargs
    )
    assert status == status_t == "ok" and messages == messages_t and len(messages) == 4
    assert repr(model) == repr(model_t)


# --- weights from the hub cache ------------------------------------------------------


@pytest.fixture
def hub_dir(tmp_path):
    previous = chainrule.hub.get_dir()
    chainrule.hub.set_dir(str(tmp_path))
    os.makedirs(tmp_path / "checkpoints")
    yield tmp_path
    chainrule.hub.set_dir(previous)


def _cache(hub_dir, weights, state_dict):
    torch.save(state_dict, hub_dir / "checkpoints" / os.path.basename(weights.url))


def _outputs_match(ours, theirs, size):
    x = np.random.default_rng(0).standard_normal((1, 3, size, size + 5)).astype(np.float32)
    with torch.no_grad():
        expected = theirs.eval()(torch.tensor(x))
    actual = ours.eval()(chainrule.tensor(x))
    assert list(actual) == list(expected)
    for key in expected:
        e = expected[key].numpy()
        np.testing.assert_allclose(
            actual[key].detach().numpy(), e, rtol=1e-4, atol=1e-5 * np.abs(e).max()
        )


def test_model_weights_load_from_the_hub_cache(tv, hub_dir):
    theirs = _randomize(
        tv.models.segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None, aux_loss=True)
    )
    _cache(hub_dir, cs.DeepLabV3_MobileNet_V3_Large_Weights.DEFAULT, theirs.state_dict())
    ours = cs.deeplabv3_mobilenet_v3_large(weights="DEFAULT", progress=False)
    assert ours.aux_classifier is not None
    _outputs_match(ours, theirs, 33)
    (status, legacy), messages = _recorded(cs.deeplabv3_mobilenet_v3_large, pretrained=True)
    assert status == "ok" and "'pretrained' is deprecated" in messages[0]
    _outputs_match(legacy, theirs, 33)


def test_backbone_weights_load_from_the_hub_cache(tv, hub_dir):
    backbone = _randomize(tv.models.mobilenet_v3_large(dilated=True))
    _cache(hub_dir, cm.MobileNet_V3_Large_Weights.IMAGENET1K_V1, backbone.state_dict())
    ours = cs.lraspp_mobilenet_v3_large(num_classes=2)  # the default weights_backbone
    expected = {
        f"backbone.{k[len('features.') :]}": v
        for k, v in backbone.state_dict().items()
        if k.startswith("features.")
    }
    state = ours.state_dict()
    loaded = [k for k in state if k.startswith("backbone.")]
    assert loaded == list(expected)
    for key in loaded:
        np.testing.assert_array_equal(state[key].numpy(), expected[key].numpy())
    theirs = _randomize(
        tv.models.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=2)
    )
    theirs.load_state_dict({**theirs.state_dict(), **expected})
    theirs.classifier.load_state_dict(
        {k: torch.tensor(v.numpy()) for k, v in ours.classifier.state_dict().items()}
    )
    _outputs_match(ours, theirs, 33)
