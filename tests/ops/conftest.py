"""The op families' oracle tests run on every device there is: on the CPU always, and on
'cuda' where chainrule and PyTorch both have it (``devices.py``). A CUDA case runs the same
test with both libraries' default device set to 'cuda', so the inputs, the factories inside
the test and the gradients all live there; results are compared on the host."""

from __future__ import annotations

import pytest
import torch

import chainrule as cr
import oracle
from devices import extra_devices, torch_device


def pytest_generate_tests(metafunc) -> None:
    devices = extra_devices()
    if devices and "oracle_device" in metafunc.fixturenames:
        metafunc.parametrize("oracle_device", ["cpu", *devices], indirect=True)


@pytest.fixture(autouse=True)
def oracle_device(request):
    """The device of this case (``cpu`` unless parametrised)."""
    dev = getattr(request, "param", "cpu")
    if dev == "cpu":
        yield dev
        return
    theirs = torch_device(dev)
    cr.set_default_device(dev)
    torch.set_default_device(theirs)
    oracle.DEVICE = dev
    try:
        yield dev
    finally:
        cr.set_default_device(None)
        torch.set_default_device(None)
        oracle.DEVICE = "cpu"
