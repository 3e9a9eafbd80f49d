"""``torchvision.models``' architectures against the real torchvision: the module trees
and state-dict layouts of every builder, and for each family the eval-mode outputs and
train-mode gradients after loading torchvision's (randomised) state dict, in float64."""

from __future__ import annotations

import importlib
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
from chainrule.vision import models as cm

# builders whose structure is compared without allocating (``device="meta"``); RegNet's
# torchvision builder cannot run on meta tensors and is compared through its BlockParams,
# and the biggest transformers are left to their smaller siblings (same code, other sizes)
SLOW_ON_META = {"convnext_base", "convnext_large", "swin_s", "swin_b", "swin_v2_s", "swin_v2_b"}
META_BUILDERS = [
    n for n in cm.list_models(cm) if not n.startswith("regnet") and n not in SLOW_ON_META
]


def _layout(module):
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


@pytest.mark.parametrize("name", META_BUILDERS)
def test_builder_structure_matches(tv, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with torch.device("meta"):
            theirs = tv.models.get_model(name)
        with chainrule.device("meta"):
            ours = cm.get_model(name)
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


def test_regnet_block_params_match(tv, monkeypatch):
    theirs_module = importlib.import_module("torchvision.models.regnet")
    ours_module = importlib.import_module("chainrule.vision.models.regnet")
    captured = {}
    monkeypatch.setattr(
        theirs_module, "_regnet", lambda params, *a, **k: captured.update(theirs=vars(params))
    )
    monkeypatch.setattr(
        ours_module, "_regnet", lambda params, *a, **k: captured.update(ours=vars(params))
    )
    for name in cm.list_models(include="regnet*"):
        getattr(theirs_module, name)()
        getattr(ours_module, name)()
        assert captured["ours"] == captured["theirs"], name


def _randomize(model):
    """Every parameter perturbed (zero-initialised heads and tokens included) and random
    batch-norm statistics, so that every layer and buffer matters."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(
                torch.randn(p.shape, generator=gen, dtype=p.dtype) * 0.1 * (p.abs().mean() + 0.1)
            )
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn(b.shape, generator=gen) * 0.1)
            elif name.endswith("running_var"):
                b.copy_(torch.rand(b.shape, generator=gen) + 0.5)
    return model


def _converted(model):
    """A torchvision model's state dict as chainrule tensors, with its ``_metadata``
    (module versions) kept, as ``torch.load`` keeps it."""
    state = model.state_dict()
    converted = OrderedDict((k, chainrule.tensor(v.numpy().copy())) for k, v in state.items())
    converted._metadata = state._metadata
    return converted


def _no_dropout(model):
    for m in model.modules():
        if type(m).__name__ in ("Dropout", "StochasticDepth"):
            m.p = 0.0


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def check_against_torchvision(theirs, ours, size, batch=2, rtol=1e-9, train=True, train_rtol=1e-7):
    """Same tree and layout; with torchvision's randomised state loaded (float64), the same
    eval output and, in train mode, the same output and parameter gradients."""
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)
    x = np.random.default_rng(0).standard_normal((batch, 3, size, size))
    _no_dropout(theirs)
    _no_dropout(ours)
    _randomize(theirs.double())
    ours.double()
    ours.load_state_dict(_converted(theirs))
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        expected = _first(theirs(torch.tensor(x))).numpy()
    actual = _first(ours(chainrule.tensor(x))).detach().numpy()
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max())
    if not train:
        return
    theirs.train()
    ours.train()
    out_t, out_c = theirs(torch.tensor(x)), ours(chainrule.tensor(x))
    if isinstance(out_t, tuple):
        assert type(out_c).__name__ == type(out_t).__name__ and out_c._fields == out_t._fields
    outs_t = out_t if isinstance(out_t, tuple) else (out_t,)
    outs_c = out_c if isinstance(out_c, tuple) else (out_c,)
    rng = np.random.default_rng(1)
    loss_t, loss_c = 0, 0
    for a, b in zip(outs_t, outs_c):
        np.testing.assert_allclose(
            b.detach().numpy(),
            a.detach().numpy(),
            rtol=train_rtol,
            atol=train_rtol * a.abs().max().item(),
        )
        g = rng.standard_normal(tuple(a.shape))
        loss_t = loss_t + (a * torch.tensor(g)).sum()
        loss_c = loss_c + (b * chainrule.tensor(g)).sum()
    loss_t.backward()
    loss_c.backward()
    grads = dict(ours.named_parameters())
    scale = max(p.grad.abs().max().item() for p in theirs.parameters() if p.grad is not None)
    for name, p in theirs.named_parameters():
        if p.grad is None:
            assert grads[name].grad is None, name
            continue
        np.testing.assert_allclose(
            grads[name].grad.numpy(),
            p.grad.numpy(),
            rtol=train_rtol,
            atol=train_rtol * scale,
            err_msg=name,
        )


def _mod(models, name):
    return importlib.import_module(f"{models.__name__}.{name}")


def _efficientnet_small(models):
    m = _mod(models, "efficientnet")
    setting = [
        m.FusedMBConvConfig(1, 3, 1, 8, 8, 2),
        m.FusedMBConvConfig(4, 3, 2, 8, 16, 1),
        m.MBConvConfig(4, 3, 2, 16, 24, 2, width_mult=1.0, depth_mult=1.0),
    ]
    return models.EfficientNet(
        setting, dropout=0.1, stochastic_depth_prob=0.2, num_classes=10, last_channel=32
    )


def _regnet_small(models, se_ratio):
    m = _mod(models, "regnet")
    params = m.BlockParams.from_init_params(
        depth=4, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=se_ratio
    )
    return models.RegNet(params, num_classes=10, stem_width=8)


def _convnext_small(models):
    m = _mod(models, "convnext")
    setting = [m.CNBlockConfig(8, 16, 1), m.CNBlockConfig(16, 32, 2), m.CNBlockConfig(32, None, 1)]
    return models.ConvNeXt(setting, stochastic_depth_prob=0.1, num_classes=10)


def _swin_small(models, v2):
    m = _mod(models, "swin_transformer")
    extra = dict(block=m.SwinTransformerBlockV2, downsample_layer=m.PatchMergingV2) if v2 else {}
    return models.SwinTransformer([4, 4], 8, [2, 2], [2, 2], [3, 3], num_classes=10, **extra)


# name: (build(models), image size, compare train-mode gradients too)
CASES = {
    "resnet18": (lambda M: M.resnet18(num_classes=10), 16, True),
    "resnet_grouped_dilated": (
        lambda M: M.ResNet(
            _mod(M, "resnet").Bottleneck,
            [1, 1, 1, 1],
            num_classes=10,
            groups=2,
            width_per_group=8,
            replace_stride_with_dilation=[False, True, True],
            zero_init_residual=True,
        ),
        16,
        True,
    ),
    "squeezenet1_0": (lambda M: M.squeezenet1_0(num_classes=10), 48, False),
    "squeezenet1_1": (lambda M: M.squeezenet1_1(num_classes=10), 48, True),
    "mobilenet_v2": (lambda M: M.mobilenet_v2(width_mult=0.25, num_classes=10), 16, True),
    "mobilenet_v3_small": (
        lambda M: M.mobilenet_v3_small(reduced_tail=True, dilated=True, num_classes=10),
        32,
        True,
    ),
    "densenet": (
        lambda M: M.DenseNet(
            growth_rate=8,
            block_config=(2, 2, 2, 2),
            num_init_features=16,
            bn_size=2,
            num_classes=10,
        ),
        32,
        True,
    ),
    "efficientnet_small": (_efficientnet_small, 32, True),
    "shufflenet_v2_x0_5": (lambda M: M.shufflenet_v2_x0_5(num_classes=10), 32, True),
    "mnasnet": (lambda M: M.MNASNet(0.25, num_classes=10), 32, True),
    "regnet_y_small": (lambda M: _regnet_small(M, se_ratio=0.25), 32, True),
    "regnet_x_small": (lambda M: _regnet_small(M, se_ratio=None), 32, True),
    "convnext_small": (_convnext_small, 32, True),
    "vit_small": (
        lambda M: M.VisionTransformer(32, 8, 2, 2, 16, 24, num_classes=10, representation_size=12),
        32,
        True,
    ),
    "swin_small": (lambda M: _swin_small(M, v2=False), 32, True),
    "swin_v2_small": (lambda M: _swin_small(M, v2=True), 32, True),
    "maxvit_small": (
        lambda M: M.MaxVit(
            (32, 32), 8, 2, [8, 16], [1, 1], 4, stochastic_depth_prob=0.1, num_classes=10
        ),
        32,
        True,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_outputs_and_gradients_match(tv, case):
    build, size, train = CASES[case]
    torch.manual_seed(0)
    theirs = build(tv.models)
    ours = build(cm)
    # PyTorch's hardsigmoid backward uses 1/6 rounded to float32, even in float64
    train_rtol = 1e-6 if case.startswith("mobilenet_v3") else 1e-8
    check_against_torchvision(theirs, ours, size, train=train, train_rtol=train_rtol)


def test_googlenet_training_outputs(tv):
    """In training mode with ``aux_logits``, torchvision's named tuple (logits, aux_logits2,
    aux_logits1)."""
    torch.manual_seed(0)
    theirs = tv.models.googlenet(init_weights=False, num_classes=4).double()
    ours = cm.googlenet(init_weights=False, num_classes=4).double()
    _randomize(theirs)
    ours.load_state_dict(_converted(theirs))
    _no_dropout(theirs)
    _no_dropout(ours)
    x = np.random.default_rng(0).standard_normal((2, 3, 32, 32))
    expected = theirs.train()(torch.tensor(x))
    actual = ours.train()(chainrule.tensor(x))
    assert type(actual).__name__ == type(expected).__name__ == "GoogLeNetOutputs"
    assert actual._fields == expected._fields
    for a, b in zip(actual, expected):
        np.testing.assert_allclose(
            a.detach().numpy(), b.detach().numpy(), rtol=1e-7, atol=1e-7 * b.abs().max().item()
        )


@pytest.mark.parametrize(
    ("block", "args", "shape"),
    [
        ("InceptionA", (8,), dict(pool_features=4)),
        ("InceptionB", (8,), {}),
        ("InceptionC", (8,), dict(channels_7x7=4)),
        ("InceptionD", (8,), {}),
        ("InceptionE", (8,), {}),
        ("InceptionAux", (8, 5), {}),
    ],
)
def test_inception_v3_blocks_match(tv, block, args, shape):
    torch.manual_seed(0)
    theirs = getattr(_mod(tv.models, "inception"), block)(*args, **shape)
    ours = getattr(_mod(cm, "inception"), block)(*args, **shape)
    size = 17 if block == "InceptionAux" else 9
    x = np.random.default_rng(0).standard_normal((2, 8, size, size))
    assert repr(ours) == repr(theirs)
    _randomize(theirs.double())
    ours.double().load_state_dict(_converted(theirs))
    expected = theirs.eval()(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(
        ours.eval()(chainrule.tensor(x)).detach().numpy(), expected, rtol=1e-10, atol=1e-12
    )


def test_inception_v3_output_matches(tv):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        theirs = tv.models.inception_v3(transform_input=True, num_classes=10)
        ours = cm.inception_v3(transform_input=True, num_classes=10)
    check_against_torchvision(theirs, ours, 75, batch=1, train=False)


def test_init_warnings_match(tv):
    for name in ("googlenet", "inception_v3"):
        with warnings.catch_warnings(record=True) as theirs, torch.device("meta"):
            warnings.simplefilter("always")
            tv.models.get_model(name, aux_logits=False)
        with warnings.catch_warnings(record=True) as ours, chainrule.device("meta"):
            warnings.simplefilter("always")
            cm.get_model(name, aux_logits=False)
        assert [(w.category, str(w.message)) for w in ours] == [
            (w.category, str(w.message)) for w in theirs
        ]
