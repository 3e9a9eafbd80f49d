"""The one array backend: every array call in chainrule goes through ``xp``.

NumPy today. A CuPy backend would rebind ``xp`` (and ``asarray``) here and
nothing in the op definitions would change.
"""

from __future__ import annotations

import numpy

xp = numpy
ndarray = numpy.ndarray
name = "numpy"


def asarray(value, dtype=None):
    """Return ``value`` as a backend array (no copy when it already is one)."""
    return xp.asarray(value, dtype=dtype)


def is_array(value) -> bool:
    return isinstance(value, ndarray)
