"""``torch.from_file``: a 1-D CPU tensor whose memory is a file mapped into memory."""

from __future__ import annotations

import mmap
import os
from typing import Any

from . import _dtypes
from ._backend import xp
from ._tensor import Tensor, _make, check_device

__all__ = ["from_file"]


def from_file(
    filename: str,
    shared: bool | None = None,
    size: int | None = 0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
) -> Tensor:
    """``size`` elements of ``dtype`` mapped from ``filename``. ``shared=True`` maps the
    file itself (made or lengthened to fit): writes to the tensor go to the file and other
    mappings see them; otherwise the mapping is private (copy on write), and the file must
    already hold ``size`` elements."""
    if device is not None:
        check_device(device)
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    size = size or 0
    nbytes = size * dt.itemsize
    mode = os.O_RDWR | os.O_CREAT if shared else os.O_RDONLY
    try:
        fd = os.open(filename, mode, 0o666)
    except OSError as err:
        how = "read-write" if shared else "read-only"
        raise RuntimeError(
            f"unable to open file <{filename}> in {how} mode: {err.strerror} ({err.errno})"
        ) from None
    try:
        have = os.fstat(fd).st_size
        if have < nbytes:
            if not shared:
                raise RuntimeError(
                    f"file <{filename}> size <{have}> is smaller than the required mapping "
                    f"size <{nbytes}>"
                )
            os.ftruncate(fd, nbytes)
        if nbytes == 0:
            arr = xp.empty((0,), dtype=dt.np)
        else:
            access = mmap.ACCESS_WRITE if shared else mmap.ACCESS_COPY
            buffer = mmap.mmap(fd, nbytes, access=access)
            arr = xp.frombuffer(buffer, dtype=dt.np, count=size)
    finally:
        os.close(fd)
    t = _make(arr, dt)
    if requires_grad:
        t.requires_grad_(True)
    return t
