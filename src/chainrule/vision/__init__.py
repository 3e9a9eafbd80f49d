"""``torchvision`` on chainrule: ``models``, ``transforms``, ``datasets``, ``utils``,
``io`` and ``ops``, with torchvision 0.28's API (the release that goes with PyTorch 2.13).

Under ``chainrule run`` (or :mod:`chainrule._import_hook`), ``import torchvision`` gives
this package, so a tutorial's ``torchvision.datasets.FashionMNIST(...)``,
``transforms.Compose([...])`` and ``models.resnet18(...)`` run unchanged. Images as PIL
images need the optional Pillow (``pip install chainrule[vision]``); tensors need nothing
but chainrule. Nothing is downloaded: datasets and pretrained weights are read from the
files torchvision would have put on disk (``download=True`` says where to put them).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__version__ = "0.28.0"

__all__ = [
    "__version__",
    "datasets",
    "get_image_backend",
    "get_video_backend",
    "io",
    "models",
    "ops",
    "set_image_backend",
    "set_video_backend",
    "transforms",
    "tv_tensors",
    "utils",
]

_SUBMODULES = ("datasets", "io", "models", "ops", "transforms", "tv_tensors", "utils")

_image_backend = "PIL"
_video_backend = "pyav"


def set_image_backend(backend: str) -> None:
    """Choose how image datasets load files: ``'PIL'`` (the default) or ``'accimage'``."""
    global _image_backend
    if backend not in ("PIL", "accimage"):
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' and 'accimage'")
    _image_backend = backend


def get_image_backend() -> str:
    """The image backend datasets load files with (``'PIL'`` unless set)."""
    return _image_backend


def set_video_backend(backend: str) -> None:
    """Video decoding is not implemented; the name is kept for torchvision's API."""
    global _video_backend
    if backend not in ("pyav", "video_reader", "cuda"):
        raise ValueError(
            f"Invalid video backend '{backend}'. Options are 'pyav', 'video_reader' and 'cuda'"
        )
    _video_backend = backend


def get_video_backend() -> str:
    """The video backend's name (``'pyav'`` unless set)."""
    return _video_backend


def __getattr__(name: str) -> ModuleType:
    # the subpackages load on first use, so ``import torchvision`` stays light
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'torchvision' has no attribute '{name}'")
