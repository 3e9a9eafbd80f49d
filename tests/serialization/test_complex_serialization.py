"""Complex tensors in files, both ways with the real PyTorch: torch.save/torch.load keep
complex64/complex128 in ComplexFloatStorage/ComplexDoubleStorage (views still share their
storage after loading), state_dicts with complex parameters move between the libraries,
and safetensors holds complex64 ("C64") but refuses complex128 as safetensors.torch does."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import safetensors.torch
import torch

import chainrule as cr


def complex_checkpoint(L):
    """Complex tensors of both widths, a transposed view and a row of one, a scalar, a
    complex Parameter and an empty tensor."""
    z = L.tensor([[1 + 2j, 3 - 4j, -0.5j], [5j, 6.0 + 0j, -7 - 8j]], dtype=L.complex128)
    return {
        "c64": L.tensor([1 + 2j, -3.5j, 2.25], dtype=L.complex64),
        "c128": z,
        "zt": z.t(),
        "row": z[1],
        "scalar": L.tensor(2 - 1j, dtype=L.complex64),
        "p": L.nn.Parameter(L.tensor([0.5 + 0.25j, -1j], dtype=L.complex128)),
        "empty": L.zeros(0, 2, dtype=L.complex64),
    }


def assert_same(got, want):
    assert set(got) == set(want)
    for k, w in want.items():
        g = got[k]
        assert str(g.dtype) == str(w.dtype), k
        assert tuple(g.shape) == tuple(w.shape), k
        assert g.requires_grad == w.requires_grad, k
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())


def saved_bytes(L, obj):
    buf = io.BytesIO()
    L.save(obj, buf)
    return buf.getvalue()


def test_complex_tensors_chainrule_saves_load_in_torch():
    want = complex_checkpoint(cr)
    got = torch.load(io.BytesIO(saved_bytes(cr, want)))
    assert_same(got, want)
    assert isinstance(got["p"], torch.nn.Parameter)
    got["c128"][0, 0] = 9 + 9j  # the view and the row share the saved storage
    assert got["zt"][0, 0].item() == 9 + 9j
    assert got["row"].untyped_storage().data_ptr() == got["c128"].untyped_storage().data_ptr()


def test_complex_tensors_torch_saves_load_in_chainrule():
    want = complex_checkpoint(torch)
    got = cr.load(io.BytesIO(saved_bytes(torch, want)))
    assert_same(got, want)
    assert isinstance(got["p"], cr.nn.Parameter)
    got["c128"][1, 2] = 1j
    assert got["zt"][2, 1].item() == 1j
    assert got["row"][2].item() == 1j


def test_the_storage_classes_are_pytorchs_complex_storages():
    with zipfile.ZipFile(io.BytesIO(saved_bytes(cr, complex_checkpoint(cr)))) as z:
        text = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    assert b"ComplexFloatStorage" in text and b"ComplexDoubleStorage" in text


def complex_module(L):
    class Phase(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = L.nn.Parameter(
                L.tensor([[1 + 1j, -2j], [0.5, 3 - 0.5j]], dtype=L.complex64)
            )
            self.register_buffer("shift", L.tensor([1j, -1 + 0j], dtype=L.complex128))

    return Phase()


def test_a_complex_state_dict_moves_from_chainrule_to_torch():
    src = complex_module(cr)
    dst = complex_module(torch)
    with torch.no_grad():
        dst.weight.zero_()
        dst.shift.zero_()
    state = torch.load(io.BytesIO(saved_bytes(cr, src.state_dict())))
    dst.load_state_dict(state)
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())
    np.testing.assert_array_equal(dst.shift.numpy(), src.shift.numpy())


def test_a_complex_state_dict_moves_from_torch_to_chainrule():
    src = complex_module(torch)
    dst = complex_module(cr)
    with cr.no_grad():
        dst.weight.zero_()
        dst.shift.zero_()
    dst.load_state_dict(cr.load(io.BytesIO(saved_bytes(torch, src.state_dict()))))
    assert dst.weight.dtype == cr.complex64 and dst.shift.dtype == cr.complex128
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())
    np.testing.assert_array_equal(dst.shift.numpy(), src.shift.numpy())


def test_complex64_round_trips_through_safetensors_both_ways(tmp_path):
    mine, theirs = tmp_path / "mine.safetensors", tmp_path / "theirs.safetensors"
    z = cr.tensor([[1 + 2j, -3.5j], [0.25, -1 - 1j]], dtype=cr.complex64)
    cr.save_safetensors({"z": z, "zt": z.t()}, mine)
    loaded = safetensors.torch.load_file(str(mine))
    assert loaded["z"].dtype == torch.complex64
    np.testing.assert_array_equal(loaded["zt"].numpy(), z.t().numpy())
    safetensors.torch.save_file(
        {"w": torch.tensor([1j, 2 - 3j], dtype=torch.complex64)}, str(theirs)
    )
    back = cr.load_safetensors(theirs)
    assert back["w"].dtype == cr.complex64
    np.testing.assert_array_equal(back["w"].numpy(), np.array([1j, 2 - 3j], np.complex64))


def test_complex128_is_refused_by_safetensors_as_in_torch(tmp_path):
    with pytest.raises(KeyError) as theirs:
        safetensors.torch.save_file(
            {"w": torch.ones(2, dtype=torch.complex128)}, str(tmp_path / "t.safetensors")
        )
    with pytest.raises(KeyError) as mine:
        cr.save_safetensors({"w": cr.ones(2, dtype=cr.complex128)}, tmp_path / "c.safetensors")
    assert str(mine.value) == str(theirs.value) == "torch.complex128"
    assert not (tmp_path / "c.safetensors").exists()
