"""The meta device turns the fast paths off only while a meta array lives: each MetaArray
counts itself in when made and out when collected (``_meta._alive``), and when the last one
goes (and no device array was ever made) ``_backend.live`` and the "device" mode are off
again (``_modes.usual``)."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import _backend, _meta, _modes


def _state() -> tuple:
    return _backend.live[0], "device" in _modes._reasons


def test_the_fast_paths_come_back_when_the_last_meta_array_goes():
    gc.collect()
    before = _meta._alive[0]
    m = cr.empty(2, 3, device="meta")
    y = (m * 2).sum(1)
    assert _meta._alive[0] > before
    assert _state() == (True, True) and not _modes.usual[0]
    assert y.device.type == "meta" and tuple(y.shape) == (2,)
    del m, y
    gc.collect()
    assert _meta._alive[0] == before
    # on again unless another meta array lives or a device array was ever made here
    off = before == 0 and not _backend.device_made[0]
    assert _state() == ((False, False) if off else (True, True))
    x = cr.tensor([1.0, -2.0, 3.0], requires_grad=True)
    z = (x * x).sum()
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0, 6.0])


def test_a_meta_array_made_again_is_meta_through_every_op():
    for _ in range(2):  # (the second time after the count fell back)
        m = cr.empty(3, 4, device="meta", requires_grad=True)
        out = (m.view(-1)[1:].unsqueeze(0) @ cr.empty(11, 2, device="meta")).relu()
        assert out.device.type == "meta" and tuple(out.shape) == (1, 2)
        assert _backend.live[0] and not _modes.usual[0]
        (m * 2).sum().backward()
        assert m.grad.device.type == "meta" and tuple(m.grad.shape) == (3, 4)
        del m, out
        gc.collect()


def test_views_and_copies_of_meta_arrays_are_counted():
    gc.collect()
    before = _meta._alive[0]
    a = _meta.meta_array((4, 4), np.float32)
    views = [a[1:], a.T, a.reshape(16), a.copy(), a.astype(np.float64)]
    assert _meta._alive[0] == before + 1 + len(views)
    del a
    gc.collect()
    assert _backend.live[0]  # the views still live
    del views
    gc.collect()
    assert _meta._alive[0] == before


META_GRADS = {
    "relu": lambda m: m.relu(),
    "slice": lambda m: m.view(-1)[1:],
    "select": lambda m: m[1],
    "mm": lambda m: m @ m.t(),
    "sigmoid": lambda m: m.sigmoid(),
    "max(1)": lambda m: m.max(1).values,
    "t": lambda m: m.t() * 1,
    "softmax": lambda m: m.softmax(1),
}


@pytest.mark.parametrize("name", META_GRADS)
def test_gradients_of_meta_tensors_are_meta_as_torch(name):
    """A VJP that works on its arrays' bits or writes into zeros (relu's, a slice's) gives a
    meta gradient for a meta tensor, as PyTorch's: the engine follows the outputs' device."""

    def run(lib):
        m = lib.empty(3, 4, device="meta", requires_grad=True)
        META_GRADS[name](m).sum().backward()
        return m.grad.device.type, tuple(m.grad.shape), str(m.grad.dtype)

    assert run(cr) == run(torch) == ("meta", (3, 4), "torch.float32")
