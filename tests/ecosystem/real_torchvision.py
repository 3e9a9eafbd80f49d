"""PyPI's torchvision for the real PyTorch in a cases script: on the real PyTorch (CPU
build), torchvision (built for CUDA) imports with its fake-kernel registrations skipped,
as tests/vision/conftest.py does: its compiled ops do not load there. Under chainrule,
torchvision is chainrule.vision, and nothing is done."""

from __future__ import annotations

import torch


def import_real_torchvision() -> None:
    """Import torchvision on the real PyTorch, skipping its fake-kernel registrations."""
    if torch.__spec__.name != "torch":
        return
    import torch.library as library

    register_fake = library.register_fake
    library.register_fake = lambda *args, **kwargs: lambda fn: fn
    try:
        import torchvision  # noqa: F401
    finally:
        library.register_fake = register_fake
