"""``torch.utils.cpp_extension``: building C++/CUDA extensions, which chainrule cannot do.

PyTorch compiles an extension's sources against libtorch and loads the resulting shared
library; chainrule is pure Python on NumPy and has no libtorch to build against. The module
exists so that libraries which import it to try a compiled fast path (peft's BOFT loads a
CUDA kernel this way and falls back when loading fails) import it as they do on PyTorch's
CPU build; every build or load raises. As on a machine without CUDA, ``CUDA_HOME`` and
``ROCM_HOME`` are ``None``, and CUDA sources fail with PyTorch's ``OSError`` for that case.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = [
    "CUDA_HOME",
    "IS_HIP_EXTENSION",
    "IS_LINUX",
    "IS_MACOS",
    "IS_WINDOWS",
    "ROCM_HOME",
    "BuildExtension",
    "CUDAExtension",
    "CppExtension",
    "include_paths",
    "is_ninja_available",
    "library_paths",
    "load",
    "load_inline",
]

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")
IS_LINUX = sys.platform.startswith("linux")
IS_HIP_EXTENSION = False
CUDA_HOME: str | None = None  # (chainrule has no CUDA)
ROCM_HOME: str | None = None
_CUDA_SUFFIXES = (".cu", ".cuh")
_NO_CUDA_HOME = (
    "CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
)


def _cannot_build(name: str) -> NoReturn:
    raise RuntimeError(
        f"chainrule cannot build the C++ extension {name!r}: torch.utils.cpp_extension compiles "
        "against libtorch, and chainrule is pure Python (it has no libtorch)"
    )


def load(name: str, sources: str | Sequence[str], *args: Any, **kwargs: Any) -> NoReturn:
    """Raise: CUDA sources (or ``with_cuda=True``) with PyTorch's ``OSError`` for a machine
    without ``CUDA_HOME``, a missing source with ``FileNotFoundError``, C++ ones with a
    ``RuntimeError`` saying chainrule cannot build extensions."""
    paths = [sources] if isinstance(sources, str) else list(sources)
    for path in paths:
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
    if kwargs.get("with_cuda") or any(p.endswith(_CUDA_SUFFIXES) for p in paths):
        raise OSError(_NO_CUDA_HOME)
    _cannot_build(name)


def load_inline(name: str, cpp_sources: Any, cuda_sources: Any = None, **kwargs: Any) -> NoReturn:
    """Raise, as :func:`load` does (``OSError`` when there are CUDA sources)."""
    if cuda_sources or kwargs.get("with_cuda"):
        raise OSError(_NO_CUDA_HOME)
    _cannot_build(name)


def CppExtension(name: str, sources: Sequence[str], *args: Any, **kwargs: Any) -> NoReturn:  # noqa: N802
    """Raise: chainrule cannot build a C++ extension (``setup.py`` builds included)."""
    _cannot_build(name)


def CUDAExtension(name: str, sources: Sequence[str], *args: Any, **kwargs: Any) -> NoReturn:  # noqa: N802
    """Raise PyTorch's ``OSError`` for a machine without ``CUDA_HOME``."""
    raise OSError(_NO_CUDA_HOME)


class BuildExtension:
    """setuptools' ``build_ext`` command of PyTorch; constructing it raises (no libtorch)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _cannot_build("BuildExtension")

    @classmethod
    def with_options(cls, **options: Any) -> type[BuildExtension]:
        """The command class with ``options``; building still raises."""
        return cls


def include_paths(device_type: str = "cpu") -> list[str]:
    """Raise: there are no libtorch headers to include."""
    _cannot_build("include_paths")


def library_paths(device_type: str = "cpu") -> list[str]:
    """Raise: there is no libtorch to link."""
    _cannot_build("library_paths")


def is_ninja_available() -> bool:
    """Whether the ``ninja`` build tool is on the PATH (as PyTorch answers)."""
    import shutil

    return shutil.which("ninja") is not None
