"""The parameter-free layers side by side with torch.nn: ``Upsample`` and its 2-d forms,
``PixelShuffle``/``PixelUnshuffle``, ``ChannelShuffle``, ``Fold``/``Unfold``, the padding
layers, ``CosineSimilarity`` and ``PairwiseDistance``: outputs, gradients, node names,
reprs and PyTorch's errors."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from nn_layers import check_module
from oracle import DT_IDS, FLOATS, R, assert_same_error

LAYERS = [
    ("Upsample", (), {"scale_factor": 2}, [(2, 3, 4)]),
    ("Upsample", (), {"size": (5, 7), "mode": "bilinear"}, [(2, 2, 3, 4)]),
    (
        "Upsample",
        (),
        {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True},
        [(1, 2, 4, 4)],
    ),
    ("Upsample", (), {"scale_factor": (2, 1.5), "mode": "nearest-exact"}, [(1, 2, 3, 4)]),
    (
        "Upsample",
        (),
        {"scale_factor": 1.7, "mode": "linear", "recompute_scale_factor": True},
        [(2, 2, 5)],
    ),
    ("Upsample", (), {"size": 4, "mode": "trilinear"}, [(1, 1, 2, 3, 2)]),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}, [(1, 2, 3, 3)]),
    ("UpsamplingBilinear2d", (), {"size": (5, 6)}, [(1, 2, 3, 3)]),
    ("PixelShuffle", (2,), {}, [(2, 8, 3, 3)]),
    ("PixelUnshuffle", (2,), {}, [(2, 2, 4, 6)]),
    ("ChannelShuffle", (3,), {}, [(2, 6, 2, 2)]),
    ("Unfold", ((2, 3),), {"padding": 1, "stride": 2}, [(2, 3, 5, 6)]),
    ("Unfold", (2,), {"dilation": 2}, [(3, 5, 5)]),
    ("Fold", ((4, 5), 2), {}, [(2, 12, 12)]),
    ("Fold", ((5, 5), (2, 3)), {"stride": 2, "padding": 1}, [(2, 6, 9)]),
    ("ZeroPad1d", (2,), {}, [(2, 3, 4)]),
    ("ZeroPad2d", ((1, 0, 2, 1),), {}, [(2, 3, 4)]),
    ("ZeroPad3d", (1,), {}, [(1, 2, 2, 3, 2)]),
    ("ConstantPad1d", ((1, 2), 3.5), {}, [(2, 4)]),
    ("ConstantPad2d", (1, -1.0), {}, [(1, 2, 3, 3)]),
    ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), 0.5), {}, [(2, 2, 3, 2)]),
    ("ReflectionPad1d", ((2, 1),), {}, [(2, 3, 4)]),
    ("ReflectionPad2d", (1,), {}, [(2, 3, 4)]),
    ("ReflectionPad3d", ((1, 1, 0, 1, 1, 0),), {}, [(1, 2, 2, 3, 2)]),
    ("ReplicationPad1d", (3,), {}, [(2, 3, 4)]),
    ("ReplicationPad2d", ((0, 2, 1, 1),), {}, [(1, 2, 3, 3)]),
    ("ReplicationPad3d", (1,), {}, [(2, 2, 3, 2)]),
    ("CircularPad1d", (2,), {}, [(2, 3, 4)]),
    ("CircularPad2d", ((1, 0, 2, 1),), {}, [(2, 3, 4)]),
    ("CircularPad3d", (1,), {}, [(1, 2, 2, 3, 2)]),
    ("CosineSimilarity", (), {}, [(4, 5), (4, 5)]),
    ("CosineSimilarity", (), {"dim": 0, "eps": 1e-6}, [(3, 4), (1, 4)]),
    ("PairwiseDistance", (), {}, [(4, 5), (4, 5)]),
    ("PairwiseDistance", (1.0,), {"eps": 1e-3, "keepdim": True}, [(4, 5), (1, 5)]),
    ("PairwiseDistance", (3,), {}, [(5,), (5,)]),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("name,args,kw,shapes", LAYERS, ids=lambda v: str(v))
def test_layer(name, args, kw, shapes, dtype):
    inputs = [R(*s, seed=i) for i, s in enumerate(shapes)]
    check_module(lambda lib: getattr(lib.nn, name)(*args, **kw), *inputs, dtype=dtype)


def test_reprs():
    def mods(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.Upsample(scale_factor=2),
            nn.Upsample(size=(3, 4), mode="bilinear", align_corners=False),
            nn.Upsample(scale_factor=(2, 3)),
            nn.UpsamplingNearest2d(size=4),
            nn.UpsamplingBilinear2d(scale_factor=1.5),
            nn.PixelShuffle(3),
            nn.PixelUnshuffle(2),
            nn.ChannelShuffle(4),
            nn.Fold((4, 5), 2, stride=(1, 2)),
            nn.Unfold(3, padding=1),
            nn.ZeroPad1d(2),
            nn.ZeroPad2d((1, 2, 3, 4)),
            nn.ZeroPad3d(1),
            nn.ConstantPad1d(1, 2.5),
            nn.ConstantPad2d((1, 2, 3, 4), 0),
            nn.ConstantPad3d(2, -1.0),
            nn.ReflectionPad1d(1),
            nn.ReflectionPad2d((1, 2, 3, 4)),
            nn.ReflectionPad3d(2),
            nn.ReplicationPad1d((0, 1)),
            nn.ReplicationPad2d(3),
            nn.ReplicationPad3d(1),
            nn.CircularPad1d(1),
            nn.CircularPad2d((1, 1, 2, 0)),
            nn.CircularPad3d(1),
            nn.CosineSimilarity(),
            nn.PairwiseDistance(p=1, keepdim=True),
        )

    assert str(mods(cr)) == str(mods(torch))
    up = cr.nn.Upsample(scale_factor=2)
    assert up.scale_factor == 2.0 and isinstance(up.scale_factor, float) and up.name == "Upsample"
    assert cr.nn.PairwiseDistance(3).norm == 3


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.nn.CircularPad2d(1)(lib.ones(3, 3)),
        lambda lib: lib.nn.CircularPad1d(1)(lib.ones(1, 2, 3, 3)),
        lambda lib: lib.nn.ReflectionPad1d(4)(lib.ones(1, 2, 3)),
        lambda lib: lib.nn.PixelShuffle(2)(lib.ones(1, 3, 2, 2)),
        lambda lib: lib.nn.ChannelShuffle(4)(lib.ones(1, 6, 2, 2)),
        lambda lib: lib.nn.Upsample()(lib.ones(1, 1, 2, 2)),
        lambda lib: lib.nn.Upsample(scale_factor=2, mode="bilinear")(lib.ones(1, 2, 3)),
        lambda lib: lib.nn.Fold(3, 2)(lib.ones(1, 5, 4)),
    ],
    ids=[
        "circ2d",
        "circ1d",
        "reflect-too-wide",
        "pixel",
        "channel",
        "upsample-none",
        "upsample-mode",
        "fold",
    ],
)
def test_errors(fn):
    assert_same_error(fn)
