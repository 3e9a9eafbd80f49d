"""The oracle for chainrule.vision: the real torchvision 0.28 (the test extra installs it).

PyPI's torchvision wheel is built against PyTorch's CUDA build; with the CPU build its
compiled ops library does not load, and its ``_meta_registrations`` then fails to register
fake kernels for ops that do not exist. :func:`torchvision` imports it with those
registrations skipped: everything written in Python (models, transforms, datasets,
utils, the box functions) works; the compiled kernels (``nms``, ``roi_align``, ...) do not,
and tests compare those against their definitions instead.
"""

from __future__ import annotations

import sys
from types import ModuleType

import pytest


def import_torchvision() -> ModuleType:
    """The real torchvision, on the real PyTorch."""
    if "torchvision" in sys.modules and not sys.modules["torchvision"].__name__.startswith(
        "chainrule"
    ):
        return sys.modules["torchvision"]
    import torch.library

    register_fake = torch.library.register_fake
    torch.library.register_fake = lambda *args, **kwargs: lambda fn: fn
    try:
        import torchvision
    finally:
        torch.library.register_fake = register_fake
    return torchvision


@pytest.fixture(scope="session")
def tv() -> ModuleType:
    """The real torchvision package."""
    return import_torchvision()
