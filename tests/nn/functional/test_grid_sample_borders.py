"""grid_sample's grid gradient on the border and affine_grid's bits, against PyTorch.

PyTorch counts a coordinate that lands exactly on the border as outside when padding_mode
clips or reflects it (slope 0 there), and builds affine_grid's base grid from its float32
linspace, so an identity θ (a spatial transformer's start) samples exactly the pixels'
centres it samples: the two together make a spatial transformer train as PyTorch's does.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule

LIBS = (torch, chainrule)


def _grid_grad(lib, x: np.ndarray, grid: np.ndarray, **kw) -> tuple:
    g = lib.from_numpy(grid.copy()).requires_grad_()
    xi = lib.from_numpy(x.copy()).requires_grad_()
    out = lib.nn.functional.grid_sample(xi, g, **kw)
    (out * out).sum().backward()
    return out.detach().numpy(), g.grad.numpy(), xi.grad.numpy()


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_slope_on_the_border_is_zero_2d(padding_mode: str, align_corners: bool) -> None:
    x = (np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)) ** 2
    # the first two points land exactly on the left and right borders, the others inside
    cs = [-1.0, 1.0, -0.5, 0.25] if align_corners else [-0.75, 0.75, -0.5, 0.25]
    grid = np.array([[[[c, 0.1] for c in cs]]], np.float32)
    want = _grid_grad(torch, x, grid, padding_mode=padding_mode, align_corners=align_corners)
    got = _grid_grad(chainrule, x, grid, padding_mode=padding_mode, align_corners=align_corners)
    assert want[1][0, 0, 0, 0] == 0 and want[1][0, 0, 1, 0] == 0  # PyTorch's convention
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
def test_slope_on_the_border_is_zero_3d(padding_mode: str) -> None:
    x = (np.arange(1, 25, dtype=np.float32).reshape(1, 1, 2, 3, 4)) ** 2
    grid = np.array([[[[[-1.0, 0.2, 0.0], [1.0, -0.3, 0.5], [0.2, 1.0, -1.0]]]]], np.float32)
    want = _grid_grad(torch, x, grid, padding_mode=padding_mode, align_corners=True)
    got = _grid_grad(chainrule, x, grid, padding_mode=padding_mode, align_corners=True)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size", [(2, 1, 28, 28), (2, 3, 5, 7), (2, 1, 100, 3), (2, 1, 4, 6, 5)])
def test_affine_grid_of_identity_is_pytorchs_bits(size: tuple, align_corners: bool) -> None:
    d = len(size) - 2
    theta = np.broadcast_to(np.eye(d, d + 1, dtype=np.float32), (size[0], d, d + 1)).copy()
    want = torch.nn.functional.affine_grid(
        torch.from_numpy(theta), size, align_corners=align_corners
    ).numpy()
    got = chainrule.nn.functional.affine_grid(
        chainrule.from_numpy(theta), size, align_corners=align_corners
    ).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_identity_transformer_gradients(padding_mode: str) -> None:
    """A spatial transformer at its identity start: every sample on a pixel's centre (a kink
    of the bilinear weights, the border's too), θ's gradient as PyTorch's."""
    x = np.random.default_rng(0).standard_normal((2, 1, 12, 12)).astype(np.float32)
    theta = np.array([[[1, 0, 0], [0, 1, 0]]] * 2, np.float32)
    grads = []
    for lib in LIBS:
        t = lib.from_numpy(theta.copy()).requires_grad_()
        grid = lib.nn.functional.affine_grid(t, (2, 1, 12, 12), align_corners=False)
        out = lib.nn.functional.grid_sample(
            lib.from_numpy(x), grid, padding_mode=padding_mode, align_corners=False
        )
        (out * out).sum().backward()
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-4)
