"""The one array backend: every array call in chainrule goes through ``xp``.

NumPy today. A CuPy backend would rebind ``xp`` (and ``asarray``) here and
nothing in the op definitions would change.
"""

from __future__ import annotations

import functools

import numpy

xp = numpy
ndarray = numpy.ndarray
name = "numpy"


# Floating-point errors: chainrule's math produces inf and nan where PyTorch's does (log 0,
# 1/0, exp overflow, 0/0), silently as PyTorch does. NumPy would warn (and under
# ``python -W error`` raise), so ops compute with NumPy's error state set to "ignore" between
# ``quiet()`` and ``loud(token)``. In NumPy 2 that state is a context variable, set here
# directly: np.errstate, which builds its state anew on every entry, costs several times
# more, and this runs around every op's forward.
try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj
except ImportError:  # NumPy 1.x: its thread-local error state, through seterr

    def quiet():
        """Ignore floating-point errors until ``loud(token)``; returns the token."""
        return numpy.seterr(all="ignore")

    def loud(token) -> None:
        """Restore the floating-point error state ``quiet()`` replaced."""
        numpy.seterr(**token)

    IGNORE: object = {"all": "ignore"}

    def set_errstate(state) -> object:
        """Set NumPy's floating-point error state (``IGNORE``); returns the token for ``loud``."""
        return numpy.seterr(**state)

else:
    IGNORE = _make_extobj(all="ignore")
    # quiet() is set_errstate(IGNORE); the hot path calls the latter, one call less
    set_errstate = _extobj_contextvar.set
    quiet = functools.partial(set_errstate, IGNORE)
    loud = _extobj_contextvar.reset


def asarray(value, dtype=None):
    """Return ``value`` as a backend array (no copy when it already is one)."""
    return xp.asarray(value, dtype=dtype)


def is_array(value) -> bool:
    return isinstance(value, ndarray)
