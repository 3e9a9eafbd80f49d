"""``torchvision.models.video`` (R3D, MC3, R(2+1)D, S3D) against the real torchvision:
module trees and state-dict layouts, eval outputs and train-mode gradients on clips
``(B, 3, T, H, W)`` with torchvision's (randomised) weights loaded in float64, the weight
enums and their ``VideoClassification`` preset, the registry, and weights from the hub
cache."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
import chainrule.hub
from chainrule.vision import models as cm
from chainrule.vision.models import video as cv

BUILDERS = [
    "mc3_18",
    "mvit_v1_b",
    "mvit_v2_s",
    "r2plus1d_18",
    "r3d_18",
    "s3d",
    "swin3d_b",
    "swin3d_s",
    "swin3d_t",
]
MODULES = ["mvit", "resnet", "s3d", "swin_transformer"]
# compared on meta tensors; Swin3D-S and -B are Swin3D-T with other sizes (see below)
STRUCTURE = ["mc3_18", "mvit_v1_b", "mvit_v2_s", "r2plus1d_18", "r3d_18", "s3d", "swin3d_t"]


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


def _no_dropout(model):
    for m in model.modules():
        if type(m).__name__ == "Dropout":
            m.p = 0.0
    return model


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


def _pair(theirs, ours):
    theirs = _randomize(theirs.double())
    ours = _no_dropout(ours.double())
    ours.load_state_dict(_converted(theirs))
    return theirs, ours


def _check(theirs, ours, shape, rtol=1e-9, grad_rtol=1e-7, train=True):
    """The same eval-mode logits; in train mode the same logits and parameter gradients
    of a random projection of them."""
    x = np.random.default_rng(0).standard_normal(shape)
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        expected = theirs(torch.tensor(x)).numpy()
    actual = ours(chainrule.tensor(x)).detach().numpy()
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max())
    if not train:
        return
    theirs.train()
    ours.train()
    out_t, out_c = theirs(torch.tensor(x)), ours(chainrule.tensor(x))
    np.testing.assert_allclose(
        out_c.detach().numpy(),
        out_t.detach().numpy(),
        rtol=grad_rtol,
        atol=grad_rtol * out_t.abs().max().item(),
    )
    g = np.random.default_rng(1).standard_normal(tuple(out_t.shape))
    (out_t * torch.tensor(g)).sum().backward()
    (out_c * chainrule.tensor(g)).sum().backward()
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


@pytest.mark.parametrize("name", STRUCTURE)
def test_builder_structure_matches(tv, name):
    with torch.device("meta"):
        theirs = getattr(tv.models.video, name)()
    with chainrule.device("meta"):
        ours = cm.get_model(name)
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


@pytest.mark.parametrize("name", ["r3d_18", "mc3_18", "r2plus1d_18"])
def test_video_resnet_outputs_match(tv, name):
    theirs, ours = _pair(
        getattr(tv.models.video, name)(num_classes=7), getattr(cv, name)(num_classes=7)
    )
    # gradients for R(2+1)D only: the Bottleneck test below trains every convolution type
    _check(theirs, ours, (2, 3, 4, 16, 18), train=name == "r2plus1d_18")


def test_video_resnet_bottleneck_matches(tv):
    # VideoResNet with the Bottleneck block (no builder uses it)
    theirs_mod = importlib.import_module("torchvision.models.video.resnet")
    ours_mod = cv.resnet

    def build(mod):
        return mod.VideoResNet(
            mod.Bottleneck,
            [mod.Conv3DSimple, mod.Conv3DNoTemporal, mod.Conv2Plus1D, mod.Conv3DNoTemporal],
            [1, 1, 1, 1],
            mod.BasicStem,
            num_classes=3,
        )

    theirs, ours = build(theirs_mod), build(ours_mod)
    assert repr(ours) == repr(theirs)
    theirs, ours = _pair(theirs, ours)
    _check(theirs, ours, (2, 3, 2, 8, 8))
    outcome_t = _recorded(
        build(theirs_mod).__class__,
        theirs_mod.Bottleneck,
        [theirs_mod.Conv3DSimple] * 4,
        [1, 1, 1, 1],
        theirs_mod.BasicStem,
        zero_init_residual=True,
    )
    outcome_c = _recorded(
        ours.__class__,
        ours_mod.Bottleneck,
        [ours_mod.Conv3DSimple] * 4,
        [1, 1, 1, 1],
        ours_mod.BasicStem,
        zero_init_residual=True,
    )
    assert outcome_c[0][0] == outcome_t[0][0] == "AttributeError"


def test_video_resnet_initialisation_matches_in_distribution():
    model = cv.r3d_18()
    chainrule.set_grad_enabled(False)
    try:
        _assert_init(model)
    finally:
        chainrule.set_grad_enabled(True)


def _assert_init(model):
    assert float(model.fc.bias.abs().max()) == 0.0
    assert abs(float(model.fc.weight.std()) - 0.01) < 1e-3
    w = model.layer1[0].conv1[0].weight
    fan_out = w.shape[0] * 27
    assert abs(float(w.std()) - (2.0 / fan_out) ** 0.5) < 0.1 * (2.0 / fan_out) ** 0.5
    assert float(model.layer1[0].conv1[1].weight.min()) == 1.0


def test_s3d_pools_its_minimum_clip_to_one_value(tv):
    # 14 frames of 224x224 (the weights' minimum) reach the 2x7x7 average pool as 2x7x7
    with torch.device("meta"):
        theirs = tv.models.video.s3d()
        shape = theirs.features(torch.empty(1, 3, 14, 224, 224)).shape
    assert tuple(shape) == (1, 1024, 2, 7, 7)
    ours = cv.s3d(num_classes=5)
    x = np.random.default_rng(0).standard_normal((1, 1024, 2, 7, 7))
    expected = theirs.avgpool.to("cpu")(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours.avgpool(chainrule.tensor(x)).numpy(), expected, rtol=1e-12)
    assert expected.shape == (1, 1024, 1, 1, 1)


def test_s3d_outputs_and_gradients_match(tv):
    # on small clips, with the final 2x7x7 average pool made adaptive on both sides
    theirs, ours = _pair(tv.models.video.s3d(num_classes=5), cv.s3d(num_classes=5))
    theirs.avgpool = torch.nn.AdaptiveAvgPool3d(1)
    ours.avgpool = chainrule.nn.AdaptiveAvgPool3d(1)
    _check(theirs, ours, (2, 3, 8, 24, 24))


def _swin_module(tv):
    importlib.import_module("torchvision.models.video")
    return sys.modules["torchvision.models.video.swin_transformer"]


@pytest.mark.parametrize(
    "shape",
    [(2, 3, 4, 12, 12), (2, 3, 5, 11, 13), (1, 3, 2, 4, 4)],
    ids=["whole-windows", "padded-and-shifted", "window-shrunk"],
)
def test_swin3d_outputs_and_gradients_match(tv, shape):
    # a small SwinTransformer3d: 2x3x3 windows, shifted every other block, on clips that
    # fill whole windows, need padding, or are smaller than a window
    kwargs = {
        "patch_size": [2, 2, 2],
        "embed_dim": 8,
        "depths": [2, 2],
        "num_heads": [2, 2],
        "window_size": [2, 3, 3],
        "num_classes": 5,
        "stochastic_depth_prob": 0.0,
    }
    theirs = _swin_module(tv).SwinTransformer3d(**kwargs)
    ours = cv.SwinTransformer3d(**kwargs)
    assert repr(ours) == repr(theirs)
    _check(*_pair(theirs, ours), shape)


def test_swin3d_t_output_matches(tv):
    theirs = _randomize(tv.models.video.swin3d_t(num_classes=5)).eval()
    ours = cv.swin3d_t(num_classes=5).eval()
    ours.load_state_dict(_converted(theirs))
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 30, 32)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(x)).numpy()
    actual = ours(chainrule.tensor(x)).detach().numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_swin3d_sizes_match(tv, monkeypatch):
    # the S and B builders pass torchvision's sizes (their 18-block stages are slow to build)
    captured = {}
    for module, key in ((_swin_module(tv), "theirs"), (cv.swin_transformer, "ours")):
        monkeypatch.setattr(
            module,
            "SwinTransformer3d",
            lambda key=key, **kwargs: captured.setdefault(key, []).append(kwargs),
        )
    for name in ("swin3d_t", "swin3d_s", "swin3d_b"):
        getattr(tv.models.video, name)(num_classes=3)
        getattr(cv, name)(num_classes=3)
    assert captured["ours"] == captured["theirs"] and len(captured["ours"]) == 3


def test_swin3d_attention_errors_match(tv):
    theirs = _recorded(_swin_module(tv).ShiftedWindowAttention3d, 8, [2, 2], [0, 0], 2)
    ours = _recorded(cv.swin_transformer.ShiftedWindowAttention3d, 8, [2, 2], [0, 0], 2)
    assert ours == theirs and ours[0][0] == "ValueError"


def _mvit_blocks(module, v2):
    config = module.MSBlockConfig
    if v2:
        return [
            config(1, 8, 8, [3, 3, 3], [3, 3, 3], [1, 1, 1], [1, 2, 2]),
            config(2, 8, 16, [3, 3, 3], [3, 3, 3], [1, 2, 2], [1, 2, 2]),
            config(2, 16, 16, [3, 3, 3], [3, 3, 3], [1, 1, 1], [1, 1, 1]),
        ]
    return [
        config(1, 8, 16, [], [3, 3, 3], [], [1, 2, 2]),
        config(2, 16, 16, [3, 3, 3], [3, 3, 3], [1, 2, 2], [1, 2, 2]),
        config(2, 16, 16, [], [3, 3, 3], [], [1, 1, 1]),
    ]


@pytest.mark.parametrize(
    "v2, cls_residual", [(False, False), (True, False), (True, True)], ids=["v1", "v2", "v2-cls"]
)
def test_mvit_outputs_and_gradients_match(tv, v2, cls_residual):
    # small MViTs (the builders' are fixed to 16 frames of 224x224): absolute positions and
    # pooled keys/values (v1); relative positions, residual pooling, projection after the
    # attention (v2); the pooled queries added to the class token too (cls)
    importlib.import_module("torchvision.models.video")
    theirs_mod = sys.modules["torchvision.models.video.mvit"]
    kwargs = {
        "spatial_size": (16, 12),
        "temporal_size": 4,
        "residual_pool": v2,
        "residual_with_cls_embed": cls_residual,
        "rel_pos_embed": v2,
        "proj_after_attn": v2,
        "num_classes": 5,
    }
    theirs = theirs_mod.MViT(block_setting=_mvit_blocks(theirs_mod, v2), **kwargs)
    ours = cv.MViT(block_setting=_mvit_blocks(cv.mvit, v2), **kwargs)
    assert repr(ours) == repr(theirs)
    _check(*_pair(theirs, ours), (2, 3, 4, 16, 12))


def test_mvit_v2_s_output_matches_at_its_size(tv):
    # the builder's own 16 frames of 224x224 (relative positions at their real sizes)
    theirs = _randomize(tv.models.video.mvit_v2_s(num_classes=5)).eval()
    ours = _no_dropout(cv.mvit_v2_s(num_classes=5)).eval()
    ours.load_state_dict(_converted(theirs))
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 224, 224)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(x)).numpy()
    with chainrule.no_grad():
        actual = ours(chainrule.tensor(x)).numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_mvit_errors_match(tv):
    theirs_mod = sys.modules["torchvision.models.video.mvit"]
    args = ((16, 16), 4, [], False, False, False, False)
    assert _recorded(cv.MViT, *args) == _recorded(theirs_mod.MViT, *args)
    ours = _recorded(cv.mvit._unsqueeze, chainrule.zeros(2, 3), 5, 2)
    theirs = _recorded(theirs_mod._unsqueeze, torch.zeros(2, 3), 5, 2)
    assert ours == theirs and ours[0][0] == "ValueError"


# --- namespace, weights, registry --------------------------------------------------


@pytest.mark.parametrize("module", MODULES)
def test_module_namespace_matches(tv, module):
    ours = importlib.import_module(f"chainrule.vision.models.video.{module}")
    importlib.import_module("torchvision.models.video")
    theirs = sys.modules[f"torchvision.models.video.{module}"]
    assert ours.__all__ == theirs.__all__
    for name in ours.__all__:
        assert getattr(cv, name) is getattr(ours, name)


@pytest.mark.parametrize("module", MODULES)
def test_weight_enums_match(tv, module):
    ours = importlib.import_module(f"chainrule.vision.models.video.{module}")
    theirs = sys.modules[f"torchvision.models.video.{module}"]
    for name in [n for n in theirs.__all__ if n.endswith("_Weights")]:
        ours_enum, theirs_enum = getattr(ours, name), getattr(theirs, name)
        assert [w.name for w in ours_enum] == [w.name for w in theirs_enum]
        assert ours_enum.DEFAULT.name == theirs_enum.DEFAULT.name
        for w in ours_enum:
            w_t = theirs_enum[w.name]
            assert repr(w) == repr(w_t) and w.url == w_t.url
            assert list(w.meta) == list(w_t.meta) and w.meta == w_t.meta
            assert w.transforms.keywords == w_t.transforms.keywords
            assert w.transforms.func.__name__ == w_t.transforms.func.__name__


def test_builder_signatures_match(tv):
    for name in BUILDERS:
        ours = inspect.signature(getattr(cv, name))
        theirs = inspect.signature(getattr(tv.models.video, name))
        assert list(ours.parameters) == list(theirs.parameters)
        for p, q in zip(ours.parameters.values(), theirs.parameters.values()):
            assert p.kind == q.kind and repr(p.default) == repr(q.default)


def test_weights_transforms_build_the_preset(tv):
    preset = cv.R3D_18_Weights.DEFAULT.transforms()
    assert type(preset).__module__ == "chainrule.vision.transforms._presets"
    assert type(preset).__name__ == "VideoClassification"
    assert preset.crop_size == [112, 112] and preset.resize_size == [128, 171]
    preset_t = tv.models.video.R3D_18_Weights.DEFAULT.transforms()
    assert repr(preset) == repr(preset_t)
    frames = np.random.default_rng(0).integers(0, 256, (2, 4, 3, 130, 180), dtype=np.uint8)
    out = preset(chainrule.tensor(frames)).numpy()
    expected = preset_t(torch.tensor(frames)).numpy()
    assert out.shape == expected.shape == (2, 3, 4, 112, 112)
    np.testing.assert_allclose(out, expected, atol=2e-2)
    meta = cv.S3D_Weights.DEFAULT.meta
    assert len(meta["categories"]) == 400 and meta["categories"][0] == "abseiling"


def test_registry(tv):
    names = cm.list_models(cv)
    assert names == tv.models.list_models(tv.models.video) == BUILDERS
    assert cm.get_model_weights("r2plus1d_18") is cv.R2Plus1D_18_Weights
    assert cm.get_weight("S3D_Weights.KINETICS400_V1") is cv.S3D_Weights.DEFAULT
    model = cm.get_model("mc3_18", weights=None, num_classes=3)
    assert isinstance(model, cv.VideoResNet) and model.fc.out_features == 3


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("r3d_18", {"weights": "DEFAULT", "num_classes": 10}),
        ("s3d", {"weights": "IMAGENET1K_V1"}),
        ("mc3_18", {"weights": cv.R3D_18_Weights.DEFAULT}),
        ("r2plus1d_18", {"pretrained": False, "num_classes": 3}),
    ],
)
def test_errors_and_warnings_match(tv, name, kwargs):
    if isinstance(kwargs.get("weights"), cv.R3D_18_Weights):
        kwargs_t = {**kwargs, "weights": tv.models.video.R3D_18_Weights.DEFAULT}
    else:
        kwargs_t = kwargs
    (status, model), messages = _recorded(getattr(cv, name), **kwargs)
    (status_t, model_t), messages_t = _recorded(getattr(tv.models.video, name), **kwargs_t)
    assert (status, messages) == (status_t, messages_t)
    if status == "ok":
        assert repr(model) == repr(model_t)
    else:
        assert model == model_t


@pytest.fixture
def hub_dir(tmp_path):
    previous = chainrule.hub.get_dir()
    chainrule.hub.set_dir(str(tmp_path))
    os.makedirs(tmp_path / "checkpoints")
    yield tmp_path
    chainrule.hub.set_dir(previous)


def test_weights_load_from_the_hub_cache(tv, hub_dir):
    theirs = _randomize(tv.models.video.mc3_18()).eval()
    weights = cv.MC3_18_Weights.KINETICS400_V1
    torch.save(theirs.state_dict(), hub_dir / "checkpoints" / os.path.basename(weights.url))
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 16, 16)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(x)).numpy()
    for model in (
        cv.mc3_18(weights="DEFAULT", progress=False),
        cm.get_model("mc3_18", weights=weights),
    ):
        actual = model.eval()(chainrule.tensor(x)).detach().numpy()
        np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())
    (status, legacy), messages = _recorded(cv.mc3_18, pretrained=True)
    assert status == "ok" and "'pretrained' is deprecated" in messages[0]
