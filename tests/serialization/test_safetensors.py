"""State dicts in the safetensors format, read and written by safetensors' own torch API."""

from __future__ import annotations

import numpy as np
import safetensors.torch
import torch

import chainrule as cr


def test_a_file_chainrule_writes_loads_with_safetensors_torch(tmp_path):
    path = tmp_path / "model.safetensors"
    x = cr.arange(12.0).reshape(3, 4)
    state = {"w": x.t(), "b": cr.ones(3, dtype=cr.float64), "i": cr.tensor([1, 2]), "h": x[1]}
    cr.save_safetensors(state, path, metadata={"format": "pt"})
    loaded = safetensors.torch.load_file(str(path))
    assert sorted(loaded) == sorted(state)
    for k, v in state.items():
        assert str(loaded[k].dtype) == str(v.dtype)
        np.testing.assert_array_equal(loaded[k].numpy(), v.numpy())


def test_a_file_safetensors_torch_writes_loads_in_chainrule(tmp_path):
    path = tmp_path / "model.safetensors"
    state = {
        "w": torch.randn(2, 3),
        "f16": torch.ones(2, dtype=torch.float16),
        "flags": torch.tensor([True, False]),
    }
    safetensors.torch.save_file(state, str(path))
    loaded = cr.load_safetensors(path)
    for k, v in state.items():
        assert str(loaded[k].dtype) == str(v.dtype)
        np.testing.assert_array_equal(loaded[k].numpy(), v.numpy())


def test_only_tensors_can_be_written(tmp_path):
    import pytest

    with pytest.raises(TypeError, match="not a tensor"):
        cr.save_safetensors({"n": 3}, tmp_path / "x.safetensors")
