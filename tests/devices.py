"""The devices the oracle tests run on besides the CPU: 'cuda' where chainrule has it and
PyTorch has it too, or where chainrule's 'cuda' is the CPU stand-in (CHAINRULE_CUDA=standin,
compared with PyTorch on the CPU). On a machine without either nothing more is collected
(the suite never skips): the CUDA cases exist only where they can run."""

from __future__ import annotations

import functools
import os
import warnings

import torch

import chainrule as cr


def standin() -> bool:
    return os.environ.get("CHAINRULE_CUDA") == "standin"


@functools.cache
def extra_devices() -> tuple[str, ...]:
    with warnings.catch_warnings():  # CuPy's own import-time warnings are not chainrule's
        warnings.simplefilter("ignore")
        available = cr.cuda.is_available()
    if not available:
        return ()
    if standin() or torch.cuda.is_available():
        return ("cuda",)
    return ()


def torch_device(dev: str) -> str:
    """Where PyTorch's side of a comparison runs: on CUDA when it has CUDA, else the CPU."""
    return dev if dev == "cpu" or torch.cuda.is_available() else "cpu"
