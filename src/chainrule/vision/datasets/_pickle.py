"""Reading the CIFAR batch files (Python pickles of dicts of NumPy arrays and lists)
without running code from them: the unpickler admits only the few globals that rebuild
a NumPy array and plain containers, and refuses every other one."""

from __future__ import annotations

import pickle
from typing import IO, Any

# (module, name) pairs a NumPy array (and a NumPy scalar) needs to be rebuilt
_ALLOWED = {
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.dtypes", "UInt8DType"),
    ("numpy.dtypes", "Int64DType"),
    ("_codecs", "encode"),  # how protocol 2 writes ``bytes`` under Python 3
    ("builtins", "bytearray"),
}


class _DataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(
                f"refusing to load global '{module}.{name}': only NumPy arrays and plain containers are allowed"
            )
        return super().find_class(module, name)


def load_data_pickle(f: IO[bytes], encoding: str = "latin1") -> Any:
    """Unpickle ``f`` admitting only NumPy arrays, numbers, strings, bytes and containers."""
    return _DataUnpickler(f, encoding=encoding).load()
