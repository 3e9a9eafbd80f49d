"""``torch.backends``: the flags and availability queries scripts set and ask. chainrule
computes with NumPy on the CPU: no cuDNN, no MPS; the flags are kept (a script may set
``torch.backends.cudnn.benchmark = True``) and change nothing."""

from __future__ import annotations

from . import cpu, cuda, cudnn, mkldnn, mps, openmp, quantized  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp", "quantized"]
