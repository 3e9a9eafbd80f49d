"""Convolutions against PyTorch over a seeded fuzz of their options (stride, padding, 'same'
and 'valid', dilation, groups with channel multipliers, output_padding, no bias, unbatched,
channels-last and non-contiguous inputs), and the cases the fuzz found: complex gradients,
empty inputs, outputs of size 0, integer dtypes, and the errors of PyTorch's kernels."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import (
    assert_same,
    assert_same_error,
    check,
    check_double_backward,
    crandn,
    randn,
)

FUNCTIONS = {
    (d, t): (f"conv_transpose{d}d" if t else f"conv{d}d") for d in (1, 2, 3) for t in (0, 1)
}


def _case(seed: int) -> dict:
    """A random convolution: its dims, shapes and keyword arguments."""
    r = random.Random(seed)
    d, transposed = r.choice((1, 2, 3)), r.random() < 0.4
    groups = r.choice((1, 1, 2, 3))
    cin_g, mult = (1, r.choice((1, 2))) if r.random() < 0.3 else (r.choice((1, 2)), 1)
    cin, cout = cin_g * groups, mult * groups
    stride = [r.choice((1, 1, 2, 3)) for _ in range(d)]
    dilation = [r.choice((1, 1, 2)) for _ in range(d)]
    kernel = [r.choice((1, 2, 3, 2 * s)) for s in stride]
    kw: dict = {"stride": stride, "dilation": dilation, "groups": groups}
    if transposed:
        kw["padding"] = [r.randrange(0, k) for k in kernel]
        kw["output_padding"] = [r.randrange(0, max(s, dl)) for s, dl in zip(stride, dilation)]
        weight = [cin, cout // groups, *kernel]
    else:
        kw["padding"] = r.choice(([r.randrange(0, 3) for _ in range(d)], "same", "valid"))
        if kw["padding"] == "same":
            kw["stride"] = [1] * d
        weight = [cout, cin_g, *kernel]
    reach = [dl * (k - 1) + 1 for dl, k in zip(dilation, kernel)]
    sizes = [m + r.randrange(0, 4) for m in reach]  # (never a kernel longer than the input)
    batch = [] if r.random() < 0.15 else [r.choice((1, 2))]
    layout = r.choice((None, None, "channels_last", "strided"))
    return {
        "name": FUNCTIONS[(d, transposed)],
        "x": [*batch, cin, *sizes],
        "w": weight,
        "bias": r.random() < 0.7,
        "kw": kw,
        "layout": layout,
        "seed": seed,
    }


def _laid_out(lib, t, layout):
    """t channels-last (4-d and 5-d), or a strided view of a copy, or as it is."""
    if layout == "channels_last" and t.ndim in (4, 5):
        return t.contiguous(
            memory_format=lib.channels_last if t.ndim == 4 else lib.channels_last_3d
        )
    if layout == "strided":
        return lib.repeat_interleave(t, 2, dim=-1)[..., ::2]
    return t


def _fuzz_fn(case: dict):
    def fn(lib, x, w, *b):
        f = getattr(lib.nn.functional, case["name"])
        with warnings.catch_warnings():  # ('same' with an even kernel warns in PyTorch)
            warnings.simplefilter("ignore")
            return f(_laid_out(lib, x, case["layout"]), w, *b, **case["kw"])

    return fn


def _inputs(case: dict) -> list:
    channels = case["w"][1] * case["kw"]["groups"] if case["name"][5] == "t" else case["w"][0]
    arrays = [randn(tuple(case["x"]), case["seed"]), randn(tuple(case["w"]), case["seed"] + 1)]
    return arrays + ([randn((channels,), case["seed"] + 2)] if case["bias"] else [])


@pytest.mark.parametrize("seed", range(48))
def test_fuzz_values_and_gradients_float64(seed):
    case = _case(seed)
    check(_fuzz_fn(case), *_inputs(case), dtype=np.float64)


@pytest.mark.parametrize("seed", range(48, 60))
def test_fuzz_double_backward(seed):
    case = _case(seed)
    check_double_backward(_fuzz_fn(case), *_inputs(case))


@pytest.mark.parametrize("seed", range(60, 84))
def test_fuzz_float32_values_and_layout(seed):
    case = _case(seed)
    fn = _fuzz_fn(case)
    ys = [
        fn(lib, *(lib.tensor(a, dtype=lib.float32) for a in _inputs(case))) for lib in (cr, torch)
    ]
    assert_same(ys[0], ys[1])
    if ys[1].numel() > 1:  # (the strides of dims longer than 1: PyTorch's layout)
        strides = [[s for s, n in zip(y.stride(), y.shape) if n > 1] for y in ys]
        assert strides[0] == strides[1]


# ----- complex values: gradients (bilinear, the conjugate Wirtinger convention) -------------

COMPLEX = [
    ("conv1d", (2, 2, 7), (4, 1, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv2d", (1, 2, 5, 6), (3, 2, 2, 3), {"dilation": (2, 1), "padding": "same"}),
    ("conv3d", (2, 1, 4, 3, 5), (2, 1, 2, 2, 2), {"stride": (1, 2, 2)}),
    ("conv_transpose1d", (2, 3, 5), (3, 2, 3), {"stride": 2, "output_padding": 1}),
    ("conv_transpose2d", (1, 4, 3, 4), (4, 1, 2, 2), {"groups": 2, "dilation": 2}),
    ("conv_transpose3d", (1, 2, 2, 3, 2), (2, 2, 2, 1, 2), {"padding": (1, 0, 0)}),
]


def _complex_fn(name: str, kw: dict):
    def fn(lib, x, w, b):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(lib.nn.functional, name)(x, w, b, **kw)

    return fn


def _complex_inputs(x_shape, w_shape, name, kw):
    channels = w_shape[1] * kw.get("groups", 1) if "transpose" in name else w_shape[0]
    return crandn(x_shape, 1), crandn(w_shape, 2), crandn((channels,), 3)


@pytest.mark.parametrize("name, x_shape, w_shape, kw", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_complex_gradients(name, x_shape, w_shape, kw):
    check(_complex_fn(name, kw), *_complex_inputs(x_shape, w_shape, name, kw))


@pytest.mark.parametrize(
    "name, x_shape, w_shape, kw", COMPLEX[::2], ids=[c[0] for c in COMPLEX[::2]]
)
def test_complex_double_backward(name, x_shape, w_shape, kw):
    check_double_backward(
        _complex_fn(name, kw), *_complex_inputs(x_shape, w_shape, name, kw), dtype=np.complex128
    )


# ----- layouts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x_shape, w_shape, dilation, groups",
    [((2, 4, 3, 2), (8, 1, 2, 1), 1, 4), ((1, 2, 6, 3), (2, 2, 1, 4), (2, 1), 1)],
)
def test_same_padding_keeps_channels_last(x_shape, w_shape, dilation, groups):
    """'same' with an odd total padding pads a copy of the input, which keeps its layout."""

    def run(lib):
        x = lib.tensor(randn(x_shape)).contiguous(memory_format=lib.channels_last)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.nn.functional.conv2d(
                x, lib.tensor(randn(w_shape, 1)), padding="same", dilation=dilation, groups=groups
            )

    got, want = run(cr), run(torch)
    assert_same(got, want)
    assert got.stride() == want.stride()


# ----- empty inputs and outputs -----------------------------------------------------------


@pytest.mark.parametrize(
    "name, x_shape, w_shape, kw",
    [
        # an empty batch skips PyTorch's kernels, and their checks
        ("conv_transpose1d", (0, 1, 3), (1, 1, 2), {"stride": 2, "output_padding": 2}),
        ("conv_transpose2d", (0, 6, 6, 4), (6, 1, 4, 1), {"stride": (3, 1), "dilation": (2, 1), "groups": 3, "output_padding": (3, 0)}),
        ("conv_transpose1d", (0, 1, 2), (1, 1, 1), {"padding": 1}),
        ("conv1d", (0, 1, 3), (1, 1, 2), {"dilation": 0}),
        ("conv_transpose1d", (0, 1, 3), (1, 1, 2), {"dilation": 0}),
        ("conv_transpose3d", (0, 3, 6, 4, 13), (3, 1, 3, 2, 4), {"groups": 3, "padding": (1, 2, 0), "dilation": (1, 1, 2)}),
        # float32's oneDNN kernel gives an output of length 0
        ("conv_transpose1d", (2, 1, 2), (1, 1, 1), {"padding": 1}),
        ("conv_transpose2d", (2, 1, 2, 2), (1, 1, 1, 1), {"padding": 1}),
        ("conv_transpose3d", (2, 1, 2, 2, 2), (1, 1, 1, 1, 1), {"padding": (1, 0, 0)}),
    ],
)  # fmt: skip
def test_empty_results(name, x_shape, w_shape, kw):
    def fn(lib, x, w, b):
        return getattr(lib.nn.functional, name)(
            lib.repeat_interleave(x, 2, -1)[..., ::2], w, b, **kw
        )

    channels = w_shape[1] * kw.get("groups", 1) if "transpose" in name else w_shape[0]
    dtype = np.float64 if x_shape[0] == 0 else np.float32
    check(fn, randn(x_shape), randn(w_shape, 1), randn((channels,), 2), dtype=dtype)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_no_input_channels_gives_the_bias(d):
    """With no input channels every sum is empty: y is the bias (PyTorch instead returns
    an output of 0 channels, or fails to expand the bias: a deliberate difference)."""
    x = cr.zeros(2, 0, *[5] * d, dtype=cr.float64, requires_grad=True)
    w = cr.ones(3, 0, *[2] * d, dtype=cr.float64, requires_grad=True)
    b = cr.tensor([1.0, 2.0, 3.0], dtype=cr.float64, requires_grad=True)
    y = getattr(cr.nn.functional, f"conv{d}d")(x, w, b)
    assert tuple(y.shape) == (2, 3, *[4] * d)
    gx, gw, gb = cr.autograd.grad(y.sum(), (x, w, b))
    assert tuple(gx.shape) == tuple(x.shape) and tuple(gw.shape) == tuple(w.shape)
    np.testing.assert_array_equal(gb.numpy(), [2 * 4**d] * 3)
    np.testing.assert_array_equal(
        y.detach().numpy().reshape(2, 3, -1),
        np.array([1.0, 2.0, 3.0])[None, :, None] + np.zeros((2, 3, 4**d)),
    )


# ----- errors of PyTorch's kernels ------------------------------------------------------------


def _conv(name, x_shape, w_shape, dtype="float32", **kw):
    def fn(lib):
        x = lib.ones(*x_shape, dtype=getattr(lib, dtype))
        return getattr(lib.nn.functional, name)(
            x, lib.ones(*w_shape, dtype=getattr(lib, dtype)), **kw
        )

    return fn


ERRORS = {
    "bool": _conv("conv2d", (1, 2, 4, 4), (2, 2, 2, 2), "bool"),
    "bool 3d": _conv("conv3d", (1, 1, 3, 3, 3), (1, 1, 2, 2, 2), "bool"),
    "int8 dilated": _conv("conv1d", (1, 2, 5), (2, 2, 2), "int8", dilation=2),
    "uint8 transposed": _conv("conv_transpose1d", (1, 2, 5), (2, 2, 2), "uint8"),
    "int32 transposed 3d": _conv("conv_transpose3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), "int32"),
    "bool dilated": _conv("conv2d", (1, 2, 4, 4), (2, 1, 2, 2), "bool", dilation=2, groups=2),
    "spatial 0": _conv("conv2d", (2, 1, 0, 3), (1, 1, 1, 1), padding=1),
    "spatial 0 transposed": _conv("conv_transpose2d", (2, 1, 0, 3), (1, 1, 2, 2), "float64"),
    "no output channels 1d": _conv("conv_transpose1d", (2, 2, 4), (2, 0, 3)),
    "no output channels 2d": _conv("conv_transpose2d", (2, 2, 4, 4), (2, 0, 3, 3), "float64"),
    "no output channels 3d": _conv("conv_transpose3d", (2, 2, 4, 4, 4), (2, 0, 3, 3, 3), "float64"),
    "output 0 float64": _conv("conv_transpose1d", (2, 1, 2), (1, 1, 1), "float64", padding=1),
    "output 0 one sample": _conv("conv_transpose1d", (1, 2, 1), (2, 1, 2), padding=1),
    "output 0 big output_padding": _conv("conv_transpose1d", (2, 2, 1), (2, 1, 1), padding=1, output_padding=1, dilation=2),
}  # fmt: skip

# (no output channels: PyTorch's float32 oneDNN kernel has its own words; float64's are kept)
_ONEDNN_WORDS = {"no output channels 1d": "non-empty 2D or 4D weight tensor expected"}


@pytest.mark.parametrize("case", list(ERRORS))
def test_kernel_errors(case):
    if case in _ONEDNN_WORDS:
        with pytest.raises(RuntimeError, match=_ONEDNN_WORDS[case]):
            ERRORS[case](cr)
        with pytest.raises(RuntimeError):
            ERRORS[case](torch)
        return
    assert_same_error(ERRORS[case])


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
def test_integer_convolutions(dtype):
    """Integer convolutions PyTorch runs: the plain one for every integer type."""

    def fn(lib):
        dt = getattr(lib, dtype)
        x = lib.arange(2 * 2 * 5 * 4, dtype=dt).reshape(2, 2, 5, 4) % 7
        w = lib.arange(3 * 2 * 2 * 3, dtype=dt).reshape(3, 2, 2, 3) % 5
        return lib.nn.functional.conv2d(x, w, stride=(2, 1), padding=1)

    assert_same(fn(cr), fn(torch))


# ----- modules ----------------------------------------------------------------------------

MODULES = [
    ("Conv1d", (2, 4, 3), {"padding": 2, "padding_mode": "circular", "groups": 2}, (2, 2, 7)),
    ("Conv2d", (2, 4, (2, 4)), {"padding": "same", "dilation": (1, 3), "padding_mode": "reflect"}, (1, 2, 6, 12)),
    ("Conv3d", (2, 2, 3), {"padding": (1, 0, 1), "padding_mode": "replicate", "stride": 2}, (2, 4, 5, 4)),
    ("ConvTranspose2d", (2, 4, 3), {"stride": 2, "groups": 2, "dilation": (1, 2)}, (1, 2, 4, 3)),
    ("ConvTranspose1d", (3, 2, 3), {"stride": 3, "dilation": 2, "bias": False}, (3, 4)),
    ("LazyConv2d", (4, 3), {"groups": 2, "padding": "valid"}, (2, 2, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), {"stride": (2, 1, 1)}, (1, 3, 2, 3, 2)),
]  # fmt: skip


@pytest.mark.parametrize("name, args, kw, x_shape", MODULES, ids=[m[0] for m in MODULES])
def test_modules_forward_and_gradients(name, args, kw, x_shape):
    def fn(lib, x):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(*args, dtype=lib.float64, **kw)
        m(x.detach())  # (a lazy module takes its shapes from the first input)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.tensor(randn(tuple(p.shape), 10 + i)))
        return m(x)

    check(fn, randn(x_shape), dtype=np.float64)


@pytest.mark.parametrize("output_size", [[9, 8], [10, 9], [1, 2, 10, 8]])
def test_conv_transpose_output_size(output_size):
    def fn(lib, x):
        lib.manual_seed(0)
        m = lib.nn.ConvTranspose2d(2, 3, (3, 2), stride=(2, 3), dtype=lib.float64)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(randn((2, 3, 3, 2), 1)))
            m.bias.copy_(lib.tensor(randn((3,), 2)))
        return m(x, output_size=output_size)

    check(fn, randn((1, 2, 4, 3)), dtype=np.float64)


@pytest.mark.parametrize("output_size", [[12, 8], [8, 8], [9]])
def test_conv_transpose_output_size_errors(output_size):
    def fn(lib):
        m = lib.nn.ConvTranspose2d(2, 3, (3, 2), stride=(2, 3))
        return m(lib.ones(1, 2, 4, 3), output_size=output_size)

    assert_same_error(fn)


@pytest.mark.parametrize(
    "name, args, kw",
    [("Conv2d", (6, 4, 3), {"groups": 2}), ("ConvTranspose3d", (4, 6, 2), {"groups": 2})],
)
def test_reset_parameters_bounds(name, args, kw):
    """Kaiming-uniform weights and a bias within ±1/sqrt(fan_in), as PyTorch draws them."""
    m = getattr(cr.nn, name)(*args, **kw)
    fan_in = m.weight.shape[1] * int(np.prod(m.weight.shape[2:]))
    bound = 1 / np.sqrt(fan_in)
    assert float(m.weight.detach().abs().max()) <= bound + 1e-7
    assert float(m.bias.detach().abs().max()) <= bound + 1e-7
    assert float(m.weight.detach().abs().max()) > bound / 2  # (drawn, not zeros)
