"""``chainrule.special``: PyTorch's ``torch.special`` names for the ops chainrule has.

Each name is the op it aliases (``special.expit`` is ``sigmoid``, ``special.gammaln`` is
``lgamma``, ``special.psi`` is ``digamma``); the ops and their derivatives live in
``ops/pointwise.py``, ``ops/elementwise.py`` and ``ops/activations.py``.
"""

from __future__ import annotations

from .ops import activations as _activations
from .ops import pointwise as _pointwise
from .ops.pointwise import (  # noqa: F401
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    i0,  # noqa: F401
    log1p,
    logit,
    polygamma,
    round,
    sinc,
    xlogy,
)
from .ops.pointwise import digamma as psi  # noqa: F401
from .ops.pointwise import lgamma as gammaln  # noqa: F401
from .ops.pointwise import sigmoid as expit  # noqa: F401


def ndtr(input, *, out=None):  # noqa: A002
    """Φ(input) = (1 + erf(input/√2))/2, the standard normal CDF, as PyTorch composes it."""
    if out is not None:
        return _pointwise._write_out("special_ndtr", ndtr, (input,), {}, out)
    return (erf(input * _SQRT1_2) + 1) * 0.5


_SQRT1_2 = 0.5**0.5


def softmax(input, dim, *, dtype=None):  # noqa: A002
    """softmax along dim (input cast to dtype first when given)."""
    return _activations.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):  # noqa: A002
    """log_softmax along dim (input cast to dtype first when given)."""
    return _activations.log_softmax(input, dim, dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):  # noqa: A002
    """log Σ_dim e^input, stable for large |input|."""
    return _activations.logsumexp(input, dim, keepdim)


def _scaled(op, doc: str):
    def function(input, *, out=None):  # noqa: A002
        if out is not None:
            return _pointwise._write_out(f"special_{op.name}", function, (input,), {}, out)
        return op(input)

    function.__name__ = function.__qualname__ = op.name
    function.__doc__ = doc
    return function


i0e = _scaled(_pointwise.i0e_op, "e^-|input| I0(input), the exponentially scaled I0.")
i1 = _scaled(_pointwise.i1_op, "I1(input), the modified Bessel function of order 1.")
i1e = _scaled(_pointwise.i1e_op, "e^-|input| I1(input), the exponentially scaled I1.")


def __getattr__(name: str):
    from ._missing import missing

    raise missing("torch.special", name)
