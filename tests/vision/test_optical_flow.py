"""``torchvision.models.optical_flow`` (RAFT) against the real torchvision: module trees
and state-dict layouts of ``raft_large`` and ``raft_small``, every flow prediction and
the parameter gradients with torchvision's (randomised) weights loaded, in float64, in
eval and train mode; the correlation block and the sampling helpers on their own; the
errors; the weight enums, the registry and weights loaded from the hub cache.

torchvision's RAFT runs only in float32 (its coordinate grid is float32 and
``grid_sample`` wants one dtype): the float64 oracle gets a coordinate grid in the
model's dtype, which changes nothing but the dtype."""

from __future__ import annotations

import importlib
import inspect
import os
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
import chainrule.hub
import chainrule.vision.models.optical_flow as of
from chainrule import nn
from chainrule.vision.models import _api
from chainrule.vision.models.optical_flow import _utils as ours_utils
from chainrule.vision.models.optical_flow import raft as ours_raft


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    # PyTorch's OpenMP threads spin when the machine's cores are busy
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tv_raft(tv):
    """torchvision's raft module, its coordinate grid in float64 (see the module doc)."""
    raft = importlib.import_module("torchvision.models.optical_flow.raft")
    make_coords_grid = raft.make_coords_grid
    patch = pytest.MonkeyPatch()
    patch.setattr(
        raft, "make_coords_grid", lambda *args, **kwargs: make_coords_grid(*args, **kwargs).double()
    )
    yield raft
    patch.undo()


@pytest.fixture(scope="module")
def tv_utils(tv):
    return importlib.import_module("torchvision.models.optical_flow._utils")


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
    """Every parameter perturbed and random batch-norm statistics."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if name.endswith("running_var"):
                t.copy_(torch.rand(t.shape, generator=gen, dtype=t.dtype) + 0.5)
            elif t.dtype.is_floating_point:
                t.add_(
                    torch.randn(t.shape, generator=gen, dtype=t.dtype)
                    * 0.1
                    * (t.abs().mean() + 0.1)
                )
    return model


def _pair(shape, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)


def _assert_flows_match(actual, expected, rtol=1e-10):
    assert isinstance(actual, list) and len(actual) == len(expected)
    for a, e in zip(actual, expected):
        e = e.detach().numpy()
        assert tuple(a.shape) == e.shape
        np.testing.assert_allclose(a.detach().numpy(), e, rtol=rtol, atol=rtol * np.abs(e).max())


def _check_gradients(theirs, ours, flows_t, flows_c, grad_rtol=1e-8):
    """The same parameter gradients of a random projection of every flow prediction.
    (Feature-encoder biases before an instance norm have zero gradient up to rounding,
    hence the tolerance relative to the largest gradient.)"""
    rng = np.random.default_rng(1)
    loss_t, loss_c = 0, 0
    for f_t, f_c in zip(flows_t, flows_c):
        g = rng.standard_normal(tuple(f_t.shape))
        loss_t = loss_t + (f_t * torch.tensor(g)).sum()
        loss_c = loss_c + (f_c * chainrule.tensor(g)).sum()
    np.testing.assert_allclose(loss_c.item(), loss_t.item(), rtol=1e-10)
    loss_t.backward()
    loss_c.backward()
    grads = dict(ours.named_parameters())
    scale = max(p.grad.abs().max().item() for p in theirs.parameters() if p.grad is not None)
    for name, p in theirs.named_parameters():
        assert grads[name].grad is not None, name
        np.testing.assert_allclose(
            grads[name].grad.numpy(),
            p.grad.numpy(),
            rtol=grad_rtol,
            atol=grad_rtol * scale,
            err_msg=name,
        )


# --- structure -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["raft_large", "raft_small"])
def test_builder_structure_matches(tv, name):
    with torch.device("meta"):
        theirs = getattr(tv.models.optical_flow, name)()
    with chainrule.device("meta"):
        ours = getattr(of, name)()
    assert type(ours).__name__ == type(theirs).__name__ == "RAFT"
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    for attr in ("num_levels", "radius", "out_channels"):
        assert getattr(ours.corr_block, attr) == getattr(theirs.corr_block, attr)
    for part in ("feature_encoder", "context_encoder"):
        ours_part, theirs_part = getattr(ours, part), getattr(theirs, part)
        assert ours_part.output_dim == theirs_part.output_dim
        assert ours_part.downsample_factor == theirs_part.downsample_factor == 8
    assert ours.update_block.hidden_state_size == theirs.update_block.hidden_state_size
    assert ours.update_block.motion_encoder.out_channels == (
        theirs.update_block.motion_encoder.out_channels
    )


def test_builder_part_overrides_match(tv_raft):
    # feature_encoder, context_encoder, corr_block, update_block and mask_predictor may be
    # given to the builders; the motion encoder then reads the given pyramid's features
    def build(r):
        return [
            r.raft_small(corr_block=r.CorrBlock(num_levels=2, radius=2)),
            r.raft_small(mask_predictor=r.MaskPredictor(in_channels=96, hidden_size=8)),
            r.raft_large(mask_predictor=None),
        ]

    with torch.device("meta"):
        theirs = build(tv_raft)
    with chainrule.device("meta"):
        ours = build(ours_raft)
    for a, b in zip(ours, theirs):
        assert repr(a) == repr(b)
    assert ours[0].update_block.motion_encoder.convcorr1[0].in_channels == 2 * 25
    outcome = _recorded(ours_raft.raft_small, flow_head=None)[0]
    assert outcome == _recorded(tv_raft.raft_small, flow_head=None)[0]
    assert outcome[0] == "TypeError"


def test_parts_match(tv_raft):
    def build(r, norm):
        return [
            r.FeatureEncoder(block=r.BottleneckBlock, strides=(1, 2, 2, 1), norm_layer=None),
            r.FeatureEncoder(strides=(2, 2, 2, 2), norm_layer=norm),
            r.ResidualBlock(4, 8, norm_layer=norm, always_project=True),
            r.BottleneckBlock(8, 16, norm_layer=norm, stride=2),
            r.MotionEncoder(in_channels_corr=18, corr_layers=(6,), flow_layers=(4, 3)),
            r.RecurrentBlock(input_size=5, hidden_size=3, kernel_size=(3,), padding=(1,)),
            r.ConvGRU(input_size=5, hidden_size=3, kernel_size=3, padding=1),
            r.FlowHead(in_channels=3, hidden_size=4),
            r.MaskPredictor(in_channels=3, hidden_size=4, multiplier=0.5),
            r.CorrBlock(num_levels=2, radius=1),
        ]

    theirs = build(tv_raft, torch.nn.InstanceNorm2d)
    ours = build(ours_raft, nn.InstanceNorm2d)
    for a, b in zip(ours, theirs):
        assert repr(a) == repr(b)
        assert _layout(a) == _layout(b)
    assert ours[0].downsample_factor == theirs[0].downsample_factor == 4
    assert ours[1].downsample_factor == theirs[1].downsample_factor == 16
    assert ours[9].out_channels == theirs[9].out_channels == 18
    for name in ("__all__", "RAFT", "raft_large"):
        assert hasattr(ours_raft, name)
    assert ours_raft.__all__ == tv_raft.__all__


def test_feature_encoder_initialisation():
    chainrule.manual_seed(0)
    encoder = ours_raft.FeatureEncoder(norm_layer=nn.BatchNorm2d)
    stem = encoder.convnormrelu[0]
    # Kaiming-normal (fan_out, ReLU) weights; biases keep the default uniform init
    std = np.sqrt(2 / (64 * 7 * 7))
    assert abs(stem.weight.detach().numpy().std() / std - 1) < 0.05
    assert 0 < np.abs(stem.bias.detach().numpy()).max() <= 1 / np.sqrt(3 * 49)
    norm = encoder.layer1[0].convnormrelu1[1]
    assert np.all(norm.weight.detach().numpy() == 1) and np.all(norm.bias.detach().numpy() == 0)


# --- forward and backward against torchvision -----------------------------------------


def test_raft_small_flows_and_gradients_match(tv_raft):
    theirs = _randomize(tv_raft.raft_small().double()).eval()
    ours = of.raft_small().double().eval()
    ours.load_state_dict(_converted(theirs))
    a, b = _pair((1, 3, 128, 128))
    flows_t = theirs(torch.tensor(a), torch.tensor(b), num_flow_updates=2)
    flows_c = ours(chainrule.tensor(a), chainrule.tensor(b), num_flow_updates=2)
    _assert_flows_match(flows_c, flows_t)
    assert flows_c[0].dtype == chainrule.float64
    _check_gradients(theirs, ours, flows_t, flows_c)


def test_raft_large_flows_match(tv_raft):
    theirs = _randomize(tv_raft.raft_large().double()).eval()
    ours = of.raft_large().double().eval()
    ours.load_state_dict(_converted(theirs))
    a, b = _pair((1, 3, 128, 128), seed=2)
    with torch.no_grad():
        expected = theirs(torch.tensor(a), torch.tensor(b), num_flow_updates=2)
    with chainrule.no_grad():
        actual = ours(chainrule.tensor(a), chainrule.tensor(b), num_flow_updates=2)
    _assert_flows_match(actual, expected)


_LARGE_STYLE = {
    # raft_large's parts (residual blocks, batch-norm context, separable GRUs, convex
    # upsampling) at a fraction of its width, on a 2-level pyramid for small images
    "feature_encoder_layers": (16, 16, 24, 32, 48),
    "feature_encoder_norm_layer": "InstanceNorm2d",
    "context_encoder_layers": (16, 16, 24, 32, 40),
    "context_encoder_norm_layer": "BatchNorm2d",
    "corr_block_num_levels": 2,
    "corr_block_radius": 2,
    "motion_encoder_corr_layers": (24, 16),
    "motion_encoder_flow_layers": (16, 8),
    "motion_encoder_out_channels": 18,
    "recurrent_block_hidden_state_size": 24,
    "recurrent_block_kernel_size": ((1, 5), (5, 1)),
    "recurrent_block_padding": ((0, 2), (2, 0)),
    "flow_head_hidden_size": 16,
    "use_mask_predictor": True,
}


def _large_style(raft, nn_module):
    kwargs = dict(_LARGE_STYLE)
    for key in ("feature_encoder_norm_layer", "context_encoder_norm_layer"):
        kwargs[key] = getattr(nn_module, kwargs[key])
    block = raft.ResidualBlock
    return raft._raft(feature_encoder_block=block, context_encoder_block=block, **kwargs)


@pytest.mark.parametrize("mode", ["train", "eval"])
def test_large_style_raft_flows_and_gradients_match(tv_raft, mode):
    theirs = _randomize(_large_style(tv_raft, torch.nn).double())
    ours = _large_style(ours_raft, nn).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict(_converted(theirs))
    getattr(theirs, mode)()
    getattr(ours, mode)()
    a, b = _pair((2, 3, 32, 40), seed=3)
    flows_t = theirs(torch.tensor(a), torch.tensor(b), num_flow_updates=3)
    flows_c = ours(chainrule.tensor(a), chainrule.tensor(b), num_flow_updates=3)
    _assert_flows_match(flows_c, flows_t)
    _check_gradients(theirs, ours, flows_t, flows_c)
    # train mode updates the context encoder's batch-norm statistics as torchvision does
    # (atol: a mean near 0, 1.9e-5 of values about 0.1, came 4e-17 apart in a CI run, the
    # batch sums' rounding; relative to it 2e-12)
    state_t = theirs.state_dict()
    for key, value in ours.state_dict().items():
        np.testing.assert_allclose(
            value.numpy(), state_t[key].numpy(), rtol=1e-12, atol=1e-15, err_msg=key
        )


def test_raft_small_from_the_hub_cache_matches_in_float32(
    tv, tv_raft, tv_utils, tmp_path, monkeypatch
):
    # torchvision's own float32 coordinate grid
    monkeypatch.setattr(tv_raft, "make_coords_grid", tv_utils.make_coords_grid)
    previous = chainrule.hub.get_dir()
    chainrule.hub.set_dir(str(tmp_path))
    try:
        os.makedirs(tmp_path / "checkpoints")
        theirs = _randomize(tv.models.optical_flow.raft_small()).eval()
        weights = of.Raft_Small_Weights.DEFAULT
        torch.save(theirs.state_dict(), tmp_path / "checkpoints" / os.path.basename(weights.url))
        ours = of.raft_small(weights="DEFAULT", progress=False).eval()
        (status, legacy), messages = _recorded(of.raft_small, pretrained=True)
    finally:
        chainrule.hub.set_dir(previous)
    assert status == "ok" and "'pretrained' is deprecated" in messages[0]
    assert [k for k in legacy.state_dict()] == [k for k in theirs.state_dict()]
    a, b = _pair((1, 3, 128, 136), seed=4, dtype=np.float32)
    with torch.no_grad():
        expected = theirs(torch.tensor(a), torch.tensor(b), num_flow_updates=1)
    actual = ours(chainrule.tensor(a), chainrule.tensor(b), num_flow_updates=1)
    assert actual[0].dtype == chainrule.float32
    _assert_flows_match(actual, expected, rtol=1e-4)


# --- the correlation block and the sampling helpers ---------------------------------------


def test_corr_block_matches(tv_raft):
    theirs, ours = (
        tv_raft.CorrBlock(num_levels=3, radius=2),
        ours_raft.CorrBlock(num_levels=3, radius=2),
    )
    f1, f2 = _pair((2, 7, 16, 24), seed=5)
    theirs.build_pyramid(torch.tensor(f1), torch.tensor(f2))
    ours.build_pyramid(chainrule.tensor(f1), chainrule.tensor(f2))
    assert len(ours.corr_pyramid) == len(theirs.corr_pyramid) == 3
    for level_c, level_t in zip(ours.corr_pyramid, theirs.corr_pyramid):
        np.testing.assert_allclose(level_c.numpy(), level_t.numpy(), rtol=1e-12, atol=1e-14)
    # centroids inside and outside the map, at fractional positions
    rng = np.random.default_rng(6)
    coords = rng.uniform(-4, 28, (2, 2, 16, 24))
    expected = theirs.index_pyramid(torch.tensor(coords)).numpy()
    actual = ours.index_pyramid(chainrule.tensor(coords)).numpy()
    assert actual.shape == expected.shape == (2, 75, 16, 24)
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-14)


def test_grid_sample_matches(tv_utils):
    rng = np.random.default_rng(7)
    img = rng.standard_normal((3, 2, 5, 7))
    grid = rng.uniform(-2, 8, (3, 4, 6, 2))
    for kwargs in (
        {"align_corners": True},
        {"align_corners": False},
        {"mode": "nearest", "align_corners": True},
    ):
        expected = tv_utils.grid_sample(torch.tensor(img), torch.tensor(grid), **kwargs)
        actual = ours_utils.grid_sample(chainrule.tensor(img), chainrule.tensor(grid), **kwargs)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)
    # a single row keeps its y coordinates unnormalised
    row = img[:, :, :1]
    expected = tv_utils.grid_sample(torch.tensor(row), torch.tensor(grid), align_corners=True)
    actual = ours_utils.grid_sample(
        chainrule.tensor(row), chainrule.tensor(grid), align_corners=True
    )
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)
    # without align_corners, nn.functional.grid_sample's warning and its default (False)
    (_, expected), messages_t = _recorded(
        tv_utils.grid_sample, torch.tensor(img), torch.tensor(grid)
    )
    (_, actual), messages_c = _recorded(
        ours_utils.grid_sample, chainrule.tensor(img), chainrule.tensor(grid)
    )
    assert messages_c == messages_t and len(messages_c) == 1
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)


def test_make_coords_grid_matches(tv_utils):
    expected = tv_utils.make_coords_grid(2, 3, 4)
    actual = ours_utils.make_coords_grid(2, 3, 4)
    assert actual.dtype == chainrule.float32 and tuple(actual.shape) == (2, 2, 3, 4)
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())


@pytest.mark.parametrize("masked", [True, False])
def test_upsample_flow_matches_with_gradients(tv_utils, masked):
    rng = np.random.default_rng(8)
    flow = rng.standard_normal((2, 2, 3, 4))
    mask = rng.standard_normal((2, 9 * 4 * 4, 3, 4)) if masked else None
    flow_t = torch.tensor(flow, requires_grad=True)
    flow_c = chainrule.tensor(flow, requires_grad=True)
    mask_t = None if mask is None else torch.tensor(mask, requires_grad=True)
    mask_c = None if mask is None else chainrule.tensor(mask, requires_grad=True)
    expected = tv_utils.upsample_flow(flow_t, mask_t, factor=4)
    actual = ours_utils.upsample_flow(flow_c, mask_c, factor=4)
    assert tuple(actual.shape) == tuple(expected.shape) == (2, 2, 12, 16)
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    g = rng.standard_normal((2, 2, 12, 16))
    (expected * torch.tensor(g)).sum().backward()
    (actual * chainrule.tensor(g)).sum().backward()
    np.testing.assert_allclose(flow_c.grad.numpy(), flow_t.grad.numpy(), rtol=1e-10, atol=1e-12)
    if masked:
        np.testing.assert_allclose(mask_c.grad.numpy(), mask_t.grad.numpy(), rtol=1e-10, atol=1e-12)


# --- errors ------------------------------------------------------------------------------


def _error_cases(r, torch_module, nn_module):
    small = r.raft_small()
    rand = torch_module.rand
    narrow_context = r.FeatureEncoder(
        block=r.BottleneckBlock, layers=(32, 32, 64, 96, 96), norm_layer=None
    )
    return [
        lambda: small(rand(1, 3, 128, 128), rand(1, 3, 128, 136)),
        lambda: small(rand(1, 3, 124, 128), rand(1, 3, 124, 128)),
        lambda: small(rand(1, 3, 128, 124), rand(1, 3, 128, 124)),
        lambda: small(rand(1, 3, 64, 64), rand(1, 3, 64, 64)),
        lambda: small(rand(1, 3, 128, 128), rand(2, 3, 128, 128)),
        lambda: r.RAFT(
            feature_encoder=small.feature_encoder,
            context_encoder=narrow_context,
            corr_block=small.corr_block,
            update_block=small.update_block,
        )(rand(1, 3, 128, 128), rand(1, 3, 128, 128), num_flow_updates=1),
        lambda: r.RAFT(
            feature_encoder=small.feature_encoder,
            context_encoder=small.context_encoder,
            corr_block=small.corr_block,
            update_block=nn_module.Identity(),
        ),
        lambda: r.RecurrentBlock(input_size=3, hidden_size=4, kernel_size=(3,), padding=(1, 1)),
        lambda: r.RecurrentBlock(
            input_size=3, hidden_size=4, kernel_size=(3, 3, 3), padding=(1, 1, 1)
        ),
        lambda: r.MotionEncoder(in_channels_corr=3, corr_layers=(1, 2, 3)),
        lambda: r.MotionEncoder(in_channels_corr=3, flow_layers=(1, 2, 3)),
        lambda: r.FeatureEncoder(layers=(1, 2, 3)),
        lambda: r.CorrBlock().build_pyramid(rand(1, 8, 16, 16), rand(1, 8, 16, 8)),
        lambda: r.raft_small(foo=1),
        lambda: r.raft_large(weights="IMAGENET1K_V1"),
    ]


def test_errors_match(tv_raft):
    theirs = _error_cases(tv_raft, torch, torch.nn)
    ours = _error_cases(ours_raft, chainrule, nn)
    for i, (fn_c, fn_t) in enumerate(zip(ours, theirs)):
        outcome_c, outcome_t = _recorded(fn_c)[0], _recorded(fn_t)[0]
        assert outcome_c[0] != "ok", i
        if i == 4:  # the batch sizes differ: caught by the correlation block
            assert outcome_c[0] == outcome_t[0] == "ValueError"
            assert outcome_c[1].startswith("Input feature maps should have the same shape")
        else:
            assert outcome_c == outcome_t, i


def test_legacy_pretrained_false_warns_as_torchvision(tv):
    (status, model), messages = _recorded(of.raft_large, pretrained=False)
    (status_t, model_t), messages_t = _recorded(tv.models.optical_flow.raft_large, pretrained=False)
    assert status == status_t == "ok" and messages == messages_t and len(messages) == 2
    assert _layout(model) == _layout(model_t)


# --- namespace, weights, registry ---------------------------------------------------------


def test_namespace_matches(tv):
    theirs = tv.models.optical_flow
    assert sorted(n for n in dir(of) if not n.startswith("_")) == sorted(
        n for n in dir(theirs) if not n.startswith("_")
    )
    for name in ours_raft.__all__:
        assert getattr(of, name) is getattr(ours_raft, name)
    for name in ("grid_sample", "make_coords_grid", "upsample_flow"):
        ours_sig = inspect.signature(getattr(ours_utils, name))
        theirs_sig = inspect.signature(getattr(theirs._utils, name))
        assert list(ours_sig.parameters) == list(theirs_sig.parameters)
        assert [repr(p.default) for p in ours_sig.parameters.values()] == [
            repr(p.default) for p in theirs_sig.parameters.values()
        ]


@pytest.mark.parametrize("name", ["raft_large", "raft_small"])
def test_builder_signatures_match(tv, name):
    ours = inspect.signature(getattr(of, name))
    theirs = inspect.signature(getattr(tv.models.optical_flow, name))
    assert list(ours.parameters) == list(theirs.parameters)
    for p, q in zip(ours.parameters.values(), theirs.parameters.values()):
        assert p.kind == q.kind and repr(p.default) == repr(q.default)
    for cls in ("RAFT", "CorrBlock", "FeatureEncoder", "MotionEncoder", "RecurrentBlock"):
        ours_cls = inspect.signature(getattr(ours_raft, cls))
        theirs_cls = inspect.signature(getattr(tv.models.optical_flow.raft, cls))
        assert list(ours_cls.parameters) == list(theirs_cls.parameters)


@pytest.mark.parametrize("enum", ["Raft_Large_Weights", "Raft_Small_Weights"])
def test_weight_enums_match(tv, enum):
    ours_enum, theirs_enum = getattr(of, enum), getattr(tv.models.optical_flow, enum)
    assert [w.name for w in ours_enum] == [w.name for w in theirs_enum]
    assert ours_enum.DEFAULT.name == theirs_enum.DEFAULT.name
    for w in ours_enum:
        w_t = theirs_enum[w.name]
        assert repr(w) == repr(w_t) and w.url == w_t.url
        assert list(w.meta) == list(w_t.meta) and w.meta == w_t.meta
        assert w.transforms.__name__ == w_t.transforms.__name__ == "OpticalFlow"


def test_weights_transforms_match_the_preset(tv):
    preset = of.Raft_Large_Weights.DEFAULT.transforms()
    preset_t = tv.models.optical_flow.Raft_Large_Weights.DEFAULT.transforms()
    assert repr(preset) == repr(preset_t)
    rng = np.random.default_rng(9)
    a, b = rng.integers(0, 256, (2, 2, 3, 16, 24), dtype=np.uint8)
    actual = preset(chainrule.tensor(a), chainrule.tensor(b))
    expected = preset_t(torch.tensor(a), torch.tensor(b))
    for x, y in zip(actual, expected):
        assert x.dtype == chainrule.float32
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6, atol=1e-6)


def test_registry(tv):
    assert _api.list_models(of) == tv.models.list_models(tv.models.optical_flow)
    assert _api.list_models(of) == ["raft_large", "raft_small"]
    assert _api.get_model_builder("raft_large") is of.raft_large
    assert _api.get_model_weights("raft_small") is of.Raft_Small_Weights
    with chainrule.device("meta"):
        model = _api.get_model("raft_small", weights=None)
    assert isinstance(model, of.RAFT) and model.mask_predictor is None
