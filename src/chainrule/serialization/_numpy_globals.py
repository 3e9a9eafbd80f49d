"""The NumPy globals a pickled ``ndarray`` names, which ``torch.load(weights_only=False)``
admits: PyTorch then unpickles with plain ``pickle``, so a NumPy array saved with
``torch.save`` loads back. Only the array and dtype constructors are admitted (they make
an array or dtype from the file's data and run nothing else); an object array's items
still go through the unpickler's own checks."""

from __future__ import annotations

from typing import Any

# the modules where NumPy 1 and NumPy 2 keep the array constructors that pickles name
_MULTIARRAY = ("numpy.core.multiarray", "numpy._core.multiarray")


def numpy_global(module: str, name: str) -> Any:
    """The NumPy constructor ``module.name`` that an ``ndarray``'s pickle names
    (``_reconstruct``, ``scalar``, ``ndarray``, ``dtype``, a ``numpy.dtypes`` class),
    or None."""
    import numpy as np

    if module in _MULTIARRAY and name in ("_reconstruct", "scalar"):
        return getattr(np._core.multiarray if hasattr(np, "_core") else np.core.multiarray, name)
    if module == "numpy" and name in ("ndarray", "dtype"):
        return getattr(np, name)
    if module == "numpy.dtypes" and name.endswith("DType"):
        found = getattr(getattr(np, "dtypes", None), name, None)
        return found if isinstance(found, type) and issubclass(found, np.dtype) else None
    return None
