"""``torch.version``: what this build is. chainrule is a NumPy library: no CUDA, no ROCm, no
XPU toolkit is built in, so those versions are None, as in PyTorch's CPU-only builds.

Where chainrule differs from PyTorch: ``__version__`` is chainrule's own version (the one
``chainrule.__version__`` reports), not a PyTorch release number, and ``git_version`` is
``"Unknown"`` (what PyTorch reports when it is built outside a git checkout): chainrule
records no commit at install time.
"""

from __future__ import annotations

from . import __version__

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

debug = False
cuda: str | None = None
git_version = "Unknown"
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
