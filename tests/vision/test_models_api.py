"""``torchvision.models``' registry and weights against the real torchvision: the model
names, the weight enums (urls, meta, preprocessing), look-ups and their errors, the legacy
``pretrained=`` interface, and loading weights from the hub cache."""

from __future__ import annotations

import importlib
import math
import os
import warnings

import numpy as np
import pytest
import torch

import chainrule
import chainrule.hub
from chainrule.vision import models as cm

MODULES = [
    "alexnet",
    "convnext",
    "densenet",
    "efficientnet",
    "googlenet",
    "inception",
    "maxvit",
    "mnasnet",
    "mobilenetv2",
    "mobilenetv3",
    "regnet",
    "resnet",
    "shufflenetv2",
    "squeezenet",
    "swin_transformer",
    "vgg",
    "vision_transformer",
]


def _recorded(fn, *args, **kwargs):
    """``fn(...)``'s result or exception (type and message) and its warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("ok", fn(*args, **kwargs))
        except Exception as exc:
            outcome = (type(exc).__name__, str(exc))
    return outcome, [str(w.message) for w in caught]


def _same_meta(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same_meta(a[k], b[k]) for k in a)
    return a == b


def test_list_models_matches(tv):
    names = cm.list_models(cm)
    assert names == tv.models.list_models(tv.models)
    assert len(names) == 80
    # every package's builders are registered, and only the ones torchvision lacks here
    missing = set(tv.models.list_models(tv.models.quantization))
    assert cm.list_models() == sorted(set(tv.models.list_models()) - missing)
    for package in ("detection", "segmentation", "video", "optical_flow"):
        ours = cm.list_models(getattr(cm, package))
        assert ours == tv.models.list_models(getattr(tv.models, package))
    assert cm.list_models(include="resnet*", exclude="resnet1*") == ["resnet34", "resnet50"]
    assert cm.list_models(include=["vgg1?", "alexnet"], exclude="*3") == tv.models.list_models(
        include=["vgg1?", "alexnet"], exclude="*3"
    )


@pytest.mark.parametrize("module", MODULES)
def test_module_namespace_matches(tv, module):
    ours = importlib.import_module(f"chainrule.vision.models.{module}")
    theirs = importlib.import_module(f"torchvision.models.{module}")
    assert ours.__all__ == theirs.__all__
    for name in ours.__all__:
        assert getattr(cm, name) is getattr(ours, name)


@pytest.mark.parametrize("module", MODULES)
def test_weight_enums_match(tv, module):
    ours = importlib.import_module(f"chainrule.vision.models.{module}")
    theirs = importlib.import_module(f"torchvision.models.{module}")
    enums = [n for n in theirs.__all__ if n.endswith("_Weights")]
    assert enums
    for name in enums:
        ours_enum, theirs_enum = getattr(ours, name), getattr(theirs, name)
        assert [w.name for w in ours_enum] == [w.name for w in theirs_enum]
        assert ours_enum.DEFAULT.name == theirs_enum.DEFAULT.name
        for w_ours in ours_enum:
            w_theirs = theirs_enum[w_ours.name]
            assert repr(w_ours) == repr(w_theirs) == f"{name}.{w_ours.name}"
            assert w_ours.url == w_theirs.url
            assert _same_meta(w_ours.meta, w_theirs.meta)
            keywords = {
                k: (v.value if type(v).__name__ == "InterpolationMode" else v)
                for k, v in w_theirs.transforms.keywords.items()
            }
            assert w_ours.transforms.keywords == keywords
            assert w_ours.transforms.func.__name__ == w_theirs.transforms.func.__name__


def test_weights_transforms_build_the_preset():
    preset = cm.EfficientNet_B3_Weights.IMAGENET1K_V1.transforms()
    assert type(preset).__name__ == "ImageClassification"
    assert preset.crop_size == [300] and preset.resize_size == [320]
    assert preset.interpolation.value == "bicubic"
    preset = cm.ResNet50_Weights.DEFAULT.transforms(antialias=False)
    assert (preset.crop_size, preset.resize_size, preset.antialias) == ([224], [232], False)
    img = chainrule.rand(3, 240, 250)
    assert tuple(preset(img).shape) == (3, 224, 224)


def test_weights_meta_facts():
    meta = cm.ResNet18_Weights.IMAGENET1K_V1.meta
    assert meta["categories"][:3] == ["tench", "goldfish", "great white shark"]
    assert len(meta["categories"]) == 1000 and meta["num_params"] == 11689512
    assert meta["_metrics"]["ImageNet-1K"] == {"acc@1": 69.758, "acc@5": 89.078}
    assert cm.VGG16_Weights.IMAGENET1K_FEATURES.meta["categories"] is None


def test_lookups_match(tv):
    assert cm.get_model_weights("resnet18") is cm.ResNet18_Weights
    assert cm.get_model_weights(cm.vit_b_16) is cm.ViT_B_16_Weights
    assert cm.get_weight("ResNet50_Weights.IMAGENET1K_V2") is cm.ResNet50_Weights.IMAGENET1K_V2
    assert cm.get_weight("ResNet50_Weights.DEFAULT") is cm.ResNet50_Weights.IMAGENET1K_V2
    assert cm.get_model_builder("ResNet18") is cm.resnet18
    for name in cm.list_models():
        assert cm.get_model_weights(name).__name__ == tv.models.get_model_weights(name).__name__
    for bad in ["ResNet18_Weights.X", "Foo.X", "nodot", "a.b.c"]:
        assert _recorded(cm.get_weight, bad) == _recorded(tv.models.get_weight, bad)
    for fn in ("get_model", "get_model_builder", "get_model_weights"):
        assert _recorded(getattr(cm, fn), "foo") == _recorded(getattr(tv.models, fn), "foo")


def test_verify_matches(tv):
    for obj in ["IMAGENET1K_V1", "ResNet18_Weights.IMAGENET1K_V1", None]:
        assert repr(cm.ResNet18_Weights.verify(obj)) == repr(tv.models.ResNet18_Weights.verify(obj))
    for bad, other in [
        ("FOO", "FOO"),
        (3, 3),
        (cm.VGG11_Weights.IMAGENET1K_V1, tv.models.VGG11_Weights.IMAGENET1K_V1),
    ]:
        assert _recorded(cm.ResNet18_Weights.verify, bad) == _recorded(
            tv.models.ResNet18_Weights.verify, other
        )


def test_register_model_refuses_a_taken_name():
    with pytest.raises(
        ValueError, match="An entry is already registered under the name 'resnet18'."
    ):
        cm._api.register_model("resnet18")(lambda: None)


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("resnet18", (), {"pretrained": False}),
        ("resnet18", (False,), {}),
        ("resnet18", (False, False), {}),
        ("resnet18", (), {"pretrained": True, "num_classes": 10}),
        ("resnet18", (), {"weights": "IMAGENET1K_V1", "num_classes": 10}),
        ("resnext50_32x4d", (), {"groups": 16}),
        ("resnet50", (), {"pretrained": True, "num_classes": 3}),
        ("vit_h_14", (), {"pretrained": True}),
        ("regnet_y_128gf", (), {"pretrained": True}),
        ("vit_b_16", (), {"weights": "DEFAULT", "image_size": 32}),
        ("googlenet", (), {"weights": "DEFAULT", "num_classes": 5}),
        ("squeezenet1_0", (), {"weights": cm.VGG11_Weights.IMAGENET1K_V1}),
    ],
)
def test_builder_arguments_match(tv, name, args, kwargs):
    tv_kwargs = {
        k: (
            tv.models.VGG11_Weights.IMAGENET1K_V1
            if k == "weights" and not isinstance(v, str)
            else v
        )
        for k, v in kwargs.items()
    }
    (status, model), messages = _recorded(cm.get_model_builder(name), *args, **kwargs)
    (tv_status, tv_model), tv_messages = _recorded(
        tv.models.get_model_builder(name), *args, **tv_kwargs
    )
    assert messages == tv_messages
    assert status == tv_status
    if status == "ok":
        assert repr(model) == repr(tv_model)
    else:
        assert model == tv_model


@pytest.fixture
def hub_dir(tmp_path):
    previous = chainrule.hub.get_dir()
    chainrule.hub.set_dir(str(tmp_path))
    os.makedirs(tmp_path / "checkpoints")
    yield tmp_path
    chainrule.hub.set_dir(previous)


def _cache(hub_dir, weights, state_dict):
    torch.save(state_dict, hub_dir / "checkpoints" / os.path.basename(weights.url))


def _randomized(model):
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if t.dtype.is_floating_point:
                t.copy_(
                    torch.rand(t.shape, generator=gen) + 0.5
                    if "var" in name
                    else torch.randn(t.shape, generator=gen) * 0.1
                )
    return model.eval()


def _outputs_match(cr_model, tv_model, size):
    x = np.random.default_rng(0).standard_normal((1, 3, size, size)).astype(np.float32)
    expected = tv_model(torch.tensor(x)).detach().numpy()
    actual = cr_model.eval()(chainrule.tensor(x)).detach().numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())


def test_weights_load_from_the_hub_cache(tv, hub_dir):
    torch.manual_seed(0)
    tv_model = _randomized(tv.models.resnet18())
    _cache(hub_dir, cm.ResNet18_Weights.IMAGENET1K_V1, tv_model.state_dict())
    _outputs_match(cm.resnet18(weights=cm.ResNet18_Weights.IMAGENET1K_V1), tv_model, 32)
    _outputs_match(cm.resnet18(weights="DEFAULT", progress=False), tv_model, 32)
    _outputs_match(cm.get_model("resnet18", weights="ResNet18_Weights.IMAGENET1K_V1"), tv_model, 32)
    (status, legacy), messages = _recorded(cm.resnet18, pretrained=True)
    assert status == "ok" and "'pretrained' is deprecated" in messages[0]
    _outputs_match(legacy, tv_model, 32)
    state = cm.ResNet18_Weights.IMAGENET1K_V1.get_state_dict(progress=False)
    assert list(state) == list(tv_model.state_dict())


def test_densenet_weights_with_old_key_names_load(tv, hub_dir):
    torch.manual_seed(0)
    tv_model = _randomized(tv.models.densenet121())
    # the published checkpoint names a dense layer's modules "norm.1", "conv.2", ...
    old = {}
    for key, value in tv_model.state_dict().items():
        if key.endswith("num_batches_tracked"):
            continue  # saved before batch norm counted batches
        for part in ("norm1", "norm2", "relu1", "relu2", "conv1", "conv2"):
            key = (
                key.replace(f".{part}.", f".{part[:-1]}.{part[-1]}.")
                if "denselayer" in key
                else key
            )
        old[key] = value
    assert "features.denseblock1.denselayer1.norm.1.weight" in old
    _cache(hub_dir, cm.DenseNet121_Weights.IMAGENET1K_V1, old)
    _outputs_match(cm.densenet121(weights="IMAGENET1K_V1"), tv_model, 32)


def test_googlenet_weights_drop_the_auxiliary_heads(tv, hub_dir):
    torch.manual_seed(0)
    tv_full = _randomized(tv.models.googlenet(aux_logits=True, init_weights=False))
    _cache(hub_dir, cm.GoogLeNet_Weights.IMAGENET1K_V1, tv_full.state_dict())
    tv_model = tv.models.googlenet(aux_logits=True, init_weights=False, transform_input=True)
    tv_model.load_state_dict(tv_full.state_dict())
    tv_model.aux1 = tv_model.aux2 = None
    model = cm.googlenet(weights="IMAGENET1K_V1")
    assert model.aux1 is None and model.aux2 is None and model.transform_input
    _outputs_match(model, tv_model.eval(), 64)


def test_mnasnet_checkpoint_versions(tv, hub_dir):
    torch.manual_seed(0)
    tv_model = _randomized(tv.models.mnasnet0_5())
    _cache(hub_dir, cm.MNASNet0_5_Weights.IMAGENET1K_V1, tv_model.state_dict())
    _outputs_match(
        cm.mnasnet0_5(weights="DEFAULT"), tv_model, 32
    )  # the file's _metadata says version 2
    plain = {k: chainrule.tensor(v.numpy().copy()) for k, v in tv_model.state_dict().items()}
    outcome = _recorded(cm.mnasnet0_5().load_state_dict, plain)
    assert outcome == _recorded(tv.models.mnasnet0_5().load_state_dict, dict(tv_model.state_dict()))
    # a version-1 checkpoint of a scaled MNASNet gets the old, unscaled stem (then loads)
    state = tv_model.state_dict()
    state._metadata[""]["version"] = 1
    ours, theirs = cm.mnasnet0_5(), tv.models.mnasnet0_5()
    (status, _), messages = _recorded(ours.load_state_dict, chainrule.load(_saved(hub_dir, state)))
    (tv_status, _), tv_messages = _recorded(theirs.load_state_dict, state)
    assert (status, messages) == (tv_status, tv_messages) == ("RuntimeError", tv_messages)
    assert "A new version of MNASNet model has been implemented" in messages[0]
    assert repr(ours) == repr(theirs) and ours._version == theirs._version == 1


def _saved(hub_dir, state):
    path = hub_dir / "state.pth"
    torch.save(state, path)
    return str(path)
