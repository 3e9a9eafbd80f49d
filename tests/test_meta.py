"""The meta device against PyTorch: factories with ``device="meta"`` and under
``with torch.device("meta")``, ops, modules and backward on meta tensors give meta tensors
of PyTorch's shapes and dtypes, printed as PyTorch prints them; reading their values raises
PyTorch's errors; CPU tensors are untouched.

Each case is ``fn(lib)`` returning text (a tensor's ``repr``: device, size, dtype, node),
which must be the same on both libraries.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error


def M(lib, *shape, **kw):
    return lib.randn(*shape, device="meta", **kw)


def _net(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.BatchNorm2d(6),
        nn.Flatten(),
        nn.Linear(6 * 14 * 14, 10),
    )


def _shapes_by_hooks(lib):
    with lib.device("meta"):
        net = _net(lib)
        x = lib.randn(8, 3, 32, 32)
    seen = []
    for m in net.modules():
        m.register_forward_hook(lambda mod, inp, out: seen.append((type(mod).__name__, out)))
    net(x)
    return [f"{name} {out!r}" for name, out in seen]


def _backward(lib):
    lin = lib.nn.Linear(4, 3, device="meta")
    x = M(lib, 2, 4, requires_grad=True)
    loss = lib.nn.functional.cross_entropy(lin(x), lib.zeros(2, dtype=lib.int64, device="meta"))
    loss.backward()
    return [loss, x.grad, lin.weight.grad, lin.bias.grad]


def _lstm(lib):
    lstm = lib.nn.LSTM(4, 3, num_layers=2, batch_first=True).to("meta")
    out, (h, c) = lstm(M(lib, 2, 5, 4))
    return [out.shape, h, c]


CASES = {
    "rand": lambda L: L.rand(2, 3, device="meta"),
    "randn_float64": lambda L: L.randn(2, device="meta", dtype=L.float64),
    "zeros_int64": lambda L: L.zeros(3, dtype=L.int64, device="meta"),
    "ones_bool": lambda L: L.ones(2, 2, dtype=L.bool, device=L.device("meta")),
    "empty": lambda L: L.empty((0, 3), device="meta"),
    "full": lambda L: L.full((2,), 7.0, device="meta"),
    "arange": lambda L: L.arange(5, device="meta"),
    "linspace": lambda L: L.linspace(0, 1, 4, device="meta"),
    "eye": lambda L: L.eye(3, device="meta"),
    "tensor": lambda L: L.tensor([1.0, 2.0], device="meta"),
    "scalar": lambda L: L.tensor(3, device="meta"),
    "randint": lambda L: L.randint(0, 5, (2, 3), device="meta"),
    "zeros_like_meta": lambda L: L.zeros_like(M(L, 2, 3)),
    "randn_like_meta": lambda L: L.randn_like(M(L, 2, 3)),
    "ones_like_to_meta": lambda L: L.ones_like(L.ones(2), device="meta"),
    "requires_grad": lambda L: M(L, 2, requires_grad=True),
    "to_meta": lambda L: L.ones(2, 3).to("meta"),
    "to_meta_dtype": lambda L: L.ones(2, 3).to("meta", L.float64),
    "to_meta_graph": lambda L: L.ones(2, requires_grad=True).to("meta").device,
    "device": lambda L: [M(L, 2).device, M(L, 2).is_meta, L.ones(2).is_meta],
    "arithmetic": lambda L: M(L, 2, 3) * 2 + M(L, 3) / M(L, 1, 1),
    "log": lambda L: M(L, 2).log(),
    "matmul": lambda L: M(L, 5, 2, 3) @ M(L, 3, 4),
    "reductions": lambda L: [M(L, 2, 3).sum(), M(L, 2, 3).mean(dim=1), M(L, 4, 2).max(dim=0)],
    "argmax": lambda L: M(L, 2, 3).argmax(dim=1),
    "compare": lambda L: M(L, 2, 3) > 0,
    "softmax": lambda L: M(L, 2, 3).softmax(dim=-1),
    "views": lambda L: [M(L, 2, 3).view(3, 2), M(L, 2, 3).t(), M(L, 2, 3, 4).permute(2, 0, 1)],
    "indexing": lambda L: [M(L, 4, 5)[1:, ::2], M(L, 4, 5)[L.tensor([0, 2])]],
    "cat_stack": lambda L: [L.cat([M(L, 2, 3), M(L, 1, 3)]), L.stack([M(L, 2), M(L, 2)], 1)],
    "flatten": lambda L: L.flatten(M(L, 2, 3, 4), 1),
    "cast": lambda L: [M(L, 2).double(), M(L, 2).long(), M(L, 2).to(L.float16)],
    "conv2d": lambda L: L.nn.Conv2d(3, 5, 2, device="meta")(L.rand(2, 3, 10, 10, device="meta")),
    "conv_transpose1d": lambda L: L.nn.functional.conv_transpose1d(M(L, 1, 2, 5), M(L, 2, 3, 3)),
    "max_pool_indices": lambda L: L.nn.functional.max_pool2d(
        M(L, 1, 2, 6, 6), 2, return_indices=True
    ),
    "layer_norm": lambda L: L.nn.LayerNorm(4, device="meta")(M(L, 2, 4)),
    "embedding": lambda L: L.nn.Embedding(10, 3, device="meta")(
        L.zeros(2, 4, dtype=L.long, device="meta")
    ),
    "module_to_meta": lambda L: [p for p in L.nn.Linear(3, 2).to("meta").parameters()],
    "hooks": _shapes_by_hooks,
    "backward": _backward,
    "lstm": _lstm,
    "inplace": lambda L: M(L, 2, 3).add_(1).mul_(M(L, 3)),
    "sum_format": lambda L: f"{M(L, 2).sum()}",
    "new_methods": lambda L: [
        M(L, 2).new_zeros(3),
        M(L, 2, dtype=L.float64).new_full((2,), 1.0),
        M(L, 2).new_tensor([1, 2]),
        M(L, 2).new_empty(2, device="cpu").device,
    ],
    # no memory: a layer of 10^10 parameters, initialised
    "big_module": lambda L: L.nn.Linear(100_000, 100_000, device="meta").weight,
    "big_default": lambda L: _big_default(L),
}


def _big_default(lib):
    with lib.device("meta"):
        emb = lib.nn.Embedding(1_000_000, 4096)
        x = lib.randn(100_000, 100_000)
    return [emb.weight, x]


@pytest.mark.parametrize("name", sorted(CASES))
def test_meta_matches_torch(name):
    assert repr(CASES[name](cr)) == repr(CASES[name](torch))


ERRORS = {
    "numpy": lambda L: M(L, 2).numpy(),
    "item": lambda L: M(L, 1).item(),
    "float": lambda L: float(M(L, 1)),
    "bool": lambda L: bool(M(L, 1)),
    "tolist": lambda L: M(L, 2).tolist(),
    "cpu": lambda L: M(L, 2).cpu(),
    "to_cpu": lambda L: M(L, 2).to("cpu"),
    "array": lambda L: np.asarray(M(L, 2)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_reading_values_raises_torch_error(name):
    assert_same_error(ERRORS[name])


def test_default_device_is_restored_and_nests():
    for lib in (cr, torch):
        with lib.device("meta"):
            assert lib.zeros(2).is_meta
            with lib.device("cpu"):
                assert not lib.zeros(2).is_meta
            assert lib.ones(1).device.type == "meta"
        assert lib.zeros(2).device.type == "cpu"


def test_cpu_tensors_untouched_after_meta():
    """Once meta tensors exist, CPU ops still give CPU tensors with values."""
    M(cr, 2)
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert y.device == cr.device("cpu") and y.item() == 5.0
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert type(x.grad._data) is np.ndarray


def test_meta_arrays_hold_no_memory():
    t = cr.randn(1000, 1000, 100, device="meta")
    assert t._data.strides == (0, 0, 0)
    assert (t * 2).sum(dim=0)._data.strides == (0, 0)


@pytest.mark.parametrize(
    "init",
    ["uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "kaiming_normal_"],
)
def test_initialising_a_meta_tensor_draws_nothing(init):
    # PyTorch's init leaves a meta tensor as it is: no numbers are drawn
    w = cr.empty(64, 32, device="meta")
    state = cr.get_rng_state()
    assert getattr(cr.nn.init, init)(w) is w
    assert w.is_meta and cr.equal(cr.get_rng_state(), state)
