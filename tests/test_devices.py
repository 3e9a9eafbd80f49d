"""Devices as a CPU-only PyTorch has them: ``torch.device`` names any device type,
``torch.cuda``/``torch.accelerator``/``torch.backends`` answer that there is no GPU, and
allocating on CUDA raises PyTorch's error, so ``"cuda" if torch.cuda.is_available() else
"cpu"`` scripts run unchanged."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, both


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.device("cpu"),
        lambda L: L.device("cuda"),
        lambda L: L.device("cuda:1"),
        lambda L: L.device("cpu", 0),
        lambda L: L.device("mps"),
        lambda L: L.device("meta"),
        lambda L: L.device(L.device("cuda:0")),
    ],
)
def test_device_objects_print_and_compare_as_torch(make):
    c, t = both(make)
    assert (repr(c), str(c), c.type, c.index) == (repr(t), str(t), t.type, t.index)
    assert c == make(cr) and hash(c) == hash(make(cr))


def test_devices_differ_by_type_and_index():
    assert cr.device("cuda:0") != cr.device("cuda:1")
    assert cr.device("cuda") != cr.device("cpu")
    assert cr.device("cpu") == "cpu"


def test_an_unknown_device_type_is_refused_as_torch_refuses_it():
    assert_same_error(lambda L: L.device("foo"))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.zeros(2, device="cuda"),
        lambda L: L.ones(2, 3, device="cuda:0"),
        lambda L: L.full((2,), 1.0, device=L.device("cuda")),
        lambda L: L.arange(3, device="cuda"),
        lambda L: L.eye(2, device="cuda"),
        lambda L: L.tensor([1.0], device="cuda"),
        lambda L: L.zeros_like(L.ones(2), device="cuda"),
        lambda L: L.ones(2).cuda(),
        lambda L: L.ones(2).to("cuda"),
        lambda L: L.cuda.current_device(),
        lambda L: L.cuda.synchronize(),
    ],
)
def test_using_cuda_raises_torch_s_error(fn):
    assert_same_error(fn, "Torch not compiled with CUDA enabled")


def test_a_module_moved_to_cuda_raises_torch_s_error():
    def move(L):
        return L.nn.Sequential(L.nn.ParameterList([L.nn.Parameter(L.ones(2))])).to("cuda")

    assert_same_error(move, "Torch not compiled with CUDA enabled")


def test_cpu_everywhere_is_accepted():
    x = cr.zeros(2, device="cpu")
    assert x.to("cpu") is x and x.device == cr.device("cpu")
    assert cr.ones(2, device=cr.device("cpu")).tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "query",
    [
        lambda L: L.cuda.is_available(),
        lambda L: L.cuda.device_count(),
        lambda L: L.cuda.is_initialized(),
        lambda L: L.accelerator.is_available(),
        lambda L: L.accelerator.current_accelerator(),
        lambda L: L.accelerator.device_count(),
        lambda L: L.backends.mps.is_available(),
        lambda L: L.backends.mps.is_built(),
        lambda L: L.backends.cudnn.is_available(),
        lambda L: L.backends.cudnn.enabled,
        lambda L: L.backends.cudnn.benchmark,
        lambda L: L.backends.cudnn.deterministic,
        lambda L: L.cuda.manual_seed(0),
        lambda L: L.cuda.manual_seed_all(0),
    ],
)
def test_queries_answer_as_a_cpu_only_torch(query):
    c, t = both(query)
    assert c == t


def test_the_tutorials_device_choice_picks_the_cpu():
    def choose(L):
        accel = L.accelerator.current_accelerator()
        name = accel.type if L.accelerator.is_available() else "cpu"
        dev = L.device("cuda" if L.cuda.is_available() else name)
        return L.ones(2, device=dev).device

    c, t = both(choose)
    assert repr(c) == repr(t)


def test_backend_flags_can_be_set():
    old = cr.backends.cudnn.benchmark
    try:
        cr.backends.cudnn.benchmark = True
        assert cr.backends.cudnn.benchmark is True
    finally:
        cr.backends.cudnn.benchmark = old
    assert torch.backends.cudnn.benchmark is False
