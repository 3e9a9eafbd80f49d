"""``torch.backends.cudnn``: not available; its flags are plain attributes."""

from __future__ import annotations

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
