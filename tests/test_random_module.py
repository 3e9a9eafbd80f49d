"""``chainrule.random`` (torch.random): its names, and ``fork_rng`` restoring the global
stream on leaving the block, also by an exception, as PyTorch's does."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import compare, error_of


def test_the_names_are_torchs():
    assert sorted(cr.random.__all__) == sorted(torch.random.__all__)
    assert cr.random.manual_seed is cr.manual_seed and cr.random.get_rng_state is cr.get_rng_state


def test_fork_rng_leaves_the_stream_where_it_was():
    def run(lib):
        lib.manual_seed(3)
        first = lib.rand(2)
        with lib.random.fork_rng():
            inside = lib.rand(5)
        after = lib.rand(2)
        with pytest.raises(ValueError):
            with lib.random.fork_rng(devices=[]):
                lib.rand(3)
                raise ValueError
        after_error = lib.rand(2)
        with lib.random.fork_rng(enabled=False):
            lib.rand(1)  # (not forked: the stream moves on)
        lib.manual_seed(3)
        replay = lib.rand(9)
        return (
            (first == replay[:2]).all(),
            (after == replay[2:4]).all(),
            (after_error == replay[4:6]).all(),
            inside.shape,
        )

    compare(run)


def test_thread_safe_generator_is_the_global_one_outside_thread_workers():
    assert cr.random.thread_safe_generator() is torch.random.thread_safe_generator() is None


def test_a_device_type_that_is_no_device_raises_as_torch():
    def fn(lib):
        with lib.random.fork_rng(device_type="xpu2"):
            pass

    want, got = error_of(fn, torch), error_of(fn, cr)
    assert type(got) is type(want) and "xpu2" in str(got)
