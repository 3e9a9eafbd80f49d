"""Fractional max pooling (``F.fractional_max_pool2d/3d``, ``nn.FractionalMaxPool2d/3d``)
against PyTorch: given the same ``_random_samples`` the windows are PyTorch's, bit for bit,
so values, indices and gradients compare; without them the draws differ (chainrule's
stream) and only shapes do. Also the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import NoGrad, check, check_same_error, distinct


def F(lib):
    return lib.nn.functional


def _samples(shape, seed):
    return NoGrad(np.random.default_rng(seed).random(shape))


X2 = distinct((2, 3, 7, 9), seed=1)
X3 = distinct((2, 2, 6, 7, 8), seed=2)

CASES = {
    "2d": (
        lambda L, x, s: F(L).fractional_max_pool2d(x, 2, (4, 5), _random_samples=s),
        X2,
        (2, 3, 2),
    ),
    "2d rectangular": (
        lambda L, x, s: F(L).fractional_max_pool2d(x, (3, 2), (5, 8), _random_samples=s),
        X2,
        (2, 3, 2),
    ),
    "2d by ratio": (
        lambda L, x, s: F(L).fractional_max_pool2d(
            x, 2, output_ratio=(0.5, 0.7), _random_samples=s
        ),
        X2,
        (2, 3, 2),
    ),
    "2d unbatched": (
        lambda L, x, s: F(L).fractional_max_pool2d(x[0], 3, 4, _random_samples=s),
        X2,
        (1, 3, 2),
    ),
    "2d output 1": (
        lambda L, x, s: F(L).fractional_max_pool2d(x, 2, 1, _random_samples=s),
        X2,
        (2, 3, 2),
    ),
    "3d": (
        lambda L, x, s: F(L).fractional_max_pool3d(x, (2, 3, 2), (4, 3, 5), _random_samples=s),
        X3,
        (2, 2, 3),
    ),
    "3d by ratio": (
        lambda L, x, s: F(L).fractional_max_pool3d(x, 2, output_ratio=0.5, _random_samples=s),
        X3,
        (2, 2, 3),
    ),
    "2d module": (
        lambda L, x, s: L.nn.FractionalMaxPool2d(2, output_size=(3, 4), _random_samples=s)(x),
        X2,
        (2, 3, 2),
    ),
    "3d module, indices": (
        lambda L, x, s: L.nn.FractionalMaxPool3d(
            2, output_ratio=0.5, return_indices=True, _random_samples=s
        )(x)[0],
        X3,
        (2, 2, 3),
    ),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_match_torch(name, dtype):
    fn, x, shape = CASES[name]
    check(fn, x, _samples(shape, seed=len(name)), dtype=dtype)


@pytest.mark.parametrize("nd", [2, 3])
def test_indices_match_torch(nd):
    x = X2 if nd == 2 else X3
    s = np.random.default_rng(5).random((2, x.shape[1], nd))
    out = {}
    for lib in (torch, cr):
        pool = getattr(F(lib), f"fractional_max_pool{nd}d_with_indices")
        ratio = (0.5,) * nd  # (a bare float raises in PyTorch's 2-d function: len() of it)
        values, index = pool(lib.tensor(x), 2, output_ratio=ratio, _random_samples=lib.tensor(s))
        out[lib.__name__] = (values.numpy(), index.numpy(), str(index.dtype))
    assert np.array_equal(out["torch"][0], out["chainrule"][0])
    assert np.array_equal(out["torch"][1], out["chainrule"][1])
    assert out["torch"][2] == out["chainrule"][2]


def test_float32_windows_are_placed_in_float32_as_torch():
    # samples near the truncation boundaries: the windows depend on float32 rounding
    x = np.sin(np.arange(1 * 4 * 31 * 29)).reshape(1, 4, 31, 29).astype(np.float32)
    s = np.array([[[0.0, 0.9999999], [0.5, 0.25], [1e-7, 0.3333333], [0.6666666, 0.1]]])
    out = {}
    for lib in (torch, cr):
        _, index = F(lib).fractional_max_pool2d(
            lib.tensor(x),
            3,
            (12, 13),
            return_indices=True,
            _random_samples=lib.tensor(s, dtype=lib.float32),
        )
        out[lib.__name__] = index.numpy()
    assert np.array_equal(out["torch"], out["chainrule"])


def test_without_samples_the_shapes_match_and_each_plane_draws_its_own():
    for lib in (torch, cr):
        lib.manual_seed(0)
        y = F(lib).fractional_max_pool2d(lib.tensor(X2), 2, (4, 5))
        assert tuple(y.shape) == (2, 3, 4, 5)
    cr.manual_seed(0)
    y = cr.nn.FractionalMaxPool2d(2, output_ratio=0.5)(cr.tensor(X2))
    assert tuple(y.shape) == (2, 3, 3, 4)


ERRORS = {
    "neither size nor ratio": lambda L, x: F(L).fractional_max_pool2d(x, 2),
    "a window too tall": lambda L, x: F(L).fractional_max_pool2d(
        x, 8, (4, 5), _random_samples=L.zeros(2, 3, 2, dtype=x.dtype)
    ),
    "a window too wide": lambda L, x: F(L).fractional_max_pool2d(
        x, 2, (4, 9), _random_samples=L.zeros(2, 3, 2, dtype=x.dtype)
    ),
    "too few samples": lambda L, x: F(L).fractional_max_pool2d(
        x, 2, (4, 5), _random_samples=L.zeros(1, 3, 2, dtype=x.dtype)
    ),
    "samples of another dtype": lambda L, x: F(L).fractional_max_pool2d(
        x, 2, (4, 5), _random_samples=L.zeros(2, 3, 2, dtype=L.float32)
    ),
    "3d, too long in time": lambda L, x: F(L).fractional_max_pool3d(
        x.reshape(1, 2, 3, 7, 9), 2, (3, 3, 3)
    ),
    "3d, a window that would just fit": lambda L, x: F(L).fractional_max_pool3d(
        x.reshape(2, 3, 7, 3, 3), 2, (1, 2, 2)
    ),
    "module without a size": lambda L, x: L.nn.FractionalMaxPool2d(2),
    "module ratio above 1": lambda L, x: L.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    "module with both": lambda L, x: L.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    check_same_error(ERRORS[name], X2)


def test_module_repr_and_buffer_as_torch():
    s = np.random.default_rng(0).random((1, 3, 2))
    for lib in (torch, cr):
        m = lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), _random_samples=lib.tensor(s))
        assert repr(m) == "FractionalMaxPool2d()"
        assert list(dict(m.named_buffers())) == ["_random_samples"]
