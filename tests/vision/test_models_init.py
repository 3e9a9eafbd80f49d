"""Initialisation of chainrule's models, checked by statistics against torchvision's
documented schemes (chainrule's random stream differs from PyTorch's, so values cannot be
compared one by one)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import chainrule
from chainrule.vision import models as cm


def _w(t):
    return t.detach().numpy().ravel()


def _close(value, expected, rel=0.05):
    assert abs(value - expected) <= rel * abs(expected), (value, expected)


def _uniform_bound(values, bound):
    # a uniform(-b, b) sample: inside the bounds, std b / sqrt(3)
    assert np.abs(values).max() <= bound * (1 + 1e-6)
    _close(values.std(), bound / math.sqrt(3))


def _conv_fans(conv):
    receptive = conv.kernel_size[0] * conv.kernel_size[1]
    return conv.in_channels // conv.groups * receptive, conv.out_channels // conv.groups * receptive


def test_resnet_init():
    chainrule.manual_seed(0)
    model = cm.resnet50()
    conv = model.layer4[0].conv2
    _close(_w(conv.weight).std(), math.sqrt(2.0 / _conv_fans(conv)[1]))
    assert abs(_w(conv.weight).mean()) < 1e-3
    for bn in (model.bn1, model.layer3[2].bn3):
        assert np.all(_w(bn.weight) == 1) and np.all(_w(bn.bias) == 0)
    _uniform_bound(_w(model.fc.weight), 1 / math.sqrt(2048))  # PyTorch's default for Linear
    zero = cm.resnet18(zero_init_residual=True)
    assert np.all(_w(zero.layer2[1].bn2.weight) == 0) and np.all(_w(zero.layer2[1].bn1.weight) == 1)
    zero = cm.resnet50(zero_init_residual=True)
    assert np.all(_w(zero.layer1[0].bn3.weight) == 0)


def test_mobilenet_and_efficientnet_init():
    chainrule.manual_seed(0)
    v2 = cm.mobilenet_v2()
    conv = v2.features[18][0]
    _close(_w(conv.weight).std(), math.sqrt(2.0 / _conv_fans(conv)[1]))
    _close(_w(v2.classifier[1].weight).std(), 0.01)
    assert np.all(_w(v2.classifier[1].bias) == 0)
    v3 = cm.mobilenet_v3_large()
    _close(_w(v3.classifier[0].weight).std(), 0.01)
    se = v3.features[4].block[2]
    assert np.all(_w(se.fc1.bias) == 0)
    eff = cm.efficientnet_b0()
    _uniform_bound(_w(eff.classifier[1].weight), 1 / math.sqrt(1000))
    conv = eff.features[8][0]
    _close(_w(conv.weight).std(), math.sqrt(2.0 / _conv_fans(conv)[1]))


def test_small_classic_nets_init():
    chainrule.manual_seed(0)
    squeeze = cm.squeezenet1_0()
    final = squeeze.classifier[1]
    _close(_w(final.weight).std(), 0.01)
    fire = squeeze.features[12].expand3x3
    _uniform_bound(_w(fire.weight), math.sqrt(6.0 / _conv_fans(fire)[0]))  # Kaiming-uniform, fan_in
    assert np.all(_w(fire.bias) == 0)
    dense = cm.densenet121()
    conv = dense.features.denseblock3.denselayer5.conv1
    _close(_w(conv.weight).std(), math.sqrt(2.0 / _conv_fans(conv)[0]))  # Kaiming-normal, fan_in
    assert np.all(_w(dense.classifier.bias) == 0)
    mnas = cm.mnasnet1_0()
    _uniform_bound(_w(mnas.classifier[1].weight), math.sqrt(3.0 / 1000))  # fan_out, gain 1
    shuffle = cm.shufflenet_v2_x1_0()
    conv = shuffle.conv5[0]
    _uniform_bound(_w(conv.weight), 1 / math.sqrt(_conv_fans(conv)[0]))  # PyTorch's default


def test_regnet_init():
    chainrule.manual_seed(0)
    model = cm.regnet_y_800mf()
    conv = model.trunk_output.block4[0].f.b[0]
    fan_out = conv.kernel_size[0] * conv.kernel_size[1] * conv.out_channels
    _close(_w(conv.weight).std(), math.sqrt(2.0 / fan_out))
    _close(_w(model.fc.weight).std(), 0.01)


def test_googlenet_and_inception_truncated_normal_init():
    chainrule.manual_seed(0)
    google = cm.googlenet(init_weights=True)
    w = _w(google.inception5b.branch2[1].conv.weight)
    _close(w.std(), 0.01)
    assert np.abs(w).max() <= 2
    inception = cm.inception_v3(init_weights=True)
    w = _w(inception.Mixed_7c.branch3x3dbl_2.conv.weight)
    # N(0, 0.1) truncated to [-2, 2]: 20 standard deviations, no visible truncation
    _close(w.std(), 0.1)
    # ``stddev = 0.01`` sits on the block, not on its Conv2d: torchvision's init gives 0.1 too
    _close(_w(inception.AuxLogits.conv1.conv.weight).std(), 0.1)
    _close(_w(inception.AuxLogits.fc.weight).std(), 0.001, rel=0.1)


def test_transformer_init():
    chainrule.manual_seed(0)
    vit = cm.VisionTransformer(224, 16, 2, 4, 256, 512)
    assert np.all(_w(vit.heads.head.weight) == 0) and np.all(_w(vit.heads.head.bias) == 0)
    assert np.all(_w(vit.class_token) == 0)
    _close(_w(vit.encoder.pos_embedding).std(), 0.02)
    _close(_w(vit.conv_proj.weight).std(), math.sqrt(1 / (3 * 16 * 16)))  # truncated at ±2: far out
    mlp = vit.encoder.layers.encoder_layer_1.mlp
    _uniform_bound(_w(mlp[0].weight), math.sqrt(6 / (256 + 512)))  # Xavier-uniform
    assert np.abs(_w(mlp[0].bias)).max() < 1e-5 and np.abs(_w(mlp[0].bias)).max() > 0
    conv = cm.convnext_tiny()
    w = _w(conv.features[5][3].block[3].weight)
    _close(w.std(), 0.02)
    assert np.all(_w(conv.features[5][3].layer_scale) == np.float32(1e-6))
    swin = cm.swin_t()
    _close(_w(swin.features[3][1].attn.relative_position_bias_table).std(), 0.02)
    swin = cm.swin_v2_t()
    attn = swin.features[3][1].attn
    np.testing.assert_allclose(_w(attn.logit_scale), math.log(10), rtol=1e-6)
    bias = _w(attn.qkv.bias)
    assert np.all(bias == 0)
    _close(_w(swin.features[5][0].mlp[0].weight).std(), 0.02)


def test_quantized_package_does_not_exist():
    for name in ("quantization",):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"chainrule.vision.models.{name}")
