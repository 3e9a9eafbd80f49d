"""``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``): the error a device
allocator raises when it runs out of memory.

The class exists so that code catching it runs. Host memory running out is not this error
(on PyTorch's CPU build it is a ``RuntimeError`` from the CPU allocator; in chainrule,
NumPy's ``MemoryError``), so nothing raises it when chainrule runs on the CPU.
"""

from __future__ import annotations

__all__ = ["OutOfMemoryError"]


class OutOfMemoryError(RuntimeError):
    """A device allocator ran out of memory."""
