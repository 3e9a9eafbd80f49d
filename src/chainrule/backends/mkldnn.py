"""``torch.backends.mkldnn``: oneDNN is not used (NumPy's BLAS does the work)."""

from __future__ import annotations

enabled: bool = True


def is_available() -> bool:
    return False
