"""``torch.version``: what this build is. chainrule is a NumPy library: no CUDA, no ROCm, no
XPU toolkit is built in, so those versions are None, as in PyTorch's CPU-only builds.

``__version__`` (the same as ``chainrule.__version__``) is the PyTorch release whose API
chainrule follows, with chainrule's own release as its local part:
``2.13.0+chainrule.0.1.0``, a :class:`~chainrule.torch_version.TorchVersion` that compares
as a version (programs written for PyTorch branch on it, ``torch.__version__ >= "2.1"``);
``chainrule --version`` prints chainrule's own release. Where chainrule differs from
PyTorch: ``git_version`` is ``"Unknown"`` (what PyTorch reports when it is built outside a
git checkout): chainrule records no commit at install time.
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
