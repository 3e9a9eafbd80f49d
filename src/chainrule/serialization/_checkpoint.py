"""Looking into a checkpoint without loading it (``get_unsafe_globals_in_checkpoint``), and
saving or loading tensors without their bytes (``skip_data``)."""

from __future__ import annotations

import _compat_pickle
import io
import os
import pickle
import pickletools
import threading
from types import TracebackType
from typing import IO

from ._archive import ArchiveReader
from ._unpickler import _allowed, _user_globals

__all__ = ["get_unsafe_globals_in_checkpoint", "skip_data"]

_state = threading.local()  # (skip_data holds per thread, as PyTorch's)


def _skipping_data() -> bool:
    return getattr(_state, "skip_data", False)


class skip_data:  # noqa: N801 - PyTorch's spelling
    """While it is active, ``save`` writes each storage's record as zeros in place of its
    bytes, and ``load`` reads no storage bytes (chainrule's tensors hold zeros then: PyTorch
    leaves them uninitialized)."""

    def __init__(self, materialize_fake_tensors: bool = False) -> None:
        self.materialize_fake_tensors = materialize_fake_tensors  # (no fake tensors here)

    def __enter__(self) -> None:
        self._before = _skipping_data()
        _state.skip_data = True

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.skip_data = self._before


def get_unsafe_globals_in_checkpoint(f: str | os.PathLike | IO[bytes]) -> list[str]:
    """The globals (``"module.name"``) that the checkpoint's pickle names and that
    ``weights_only=True`` would refuse: neither allowed by default nor by
    ``add_safe_globals``. The pickle is read as opcodes; nothing in it runs."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            return get_unsafe_globals_in_checkpoint(stream)
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    if magic != b"PK\x03\x04":
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    data = ArchiveReader(f).read("data.pkl")
    safe = set(_allowed()) | set(_user_globals)
    return list(_globals_in(data) - safe)


def _globals_in(data: bytes) -> set[str]:
    """``module.name`` of each global a pickle names (Python 2's names mapped to 3's)."""
    found: set[str] = set()
    strings: list[str] = []  # the last strings pushed, for protocol 4's STACK_GLOBAL
    try:
        for op, arg, _ in pickletools.genops(io.BytesIO(data)):
            if op.name == "GLOBAL":
                module, name = arg.split(" ", 1)
                if (module, name) in _compat_pickle.NAME_MAPPING:
                    module, name = _compat_pickle.NAME_MAPPING[module, name]
                elif module in _compat_pickle.IMPORT_MAPPING:
                    module = _compat_pickle.IMPORT_MAPPING[module]
                found.add(f"{module}.{name}")
            elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                found.add(f"{strings[-2]}.{strings[-1]}")
            elif isinstance(arg, str) and "UNICODE" in op.name:
                strings = [*strings[-1:], arg]
    except ValueError as exc:  # (pickletools' error for a damaged pickle)
        raise pickle.UnpicklingError(f"data.pkl is not a valid pickle: {exc}") from exc
    return found
