"""Transforms for ``TransformedDistribution`` and ``biject_to`` (PyTorch's
``torch.distributions.transforms``). Each maps x -> y, inverts y -> x (``inv``), gives
log |det dy/dx| summed over its event dims, and says how it changes shapes
(``forward_shape``/``inverse_shape``) and which constraints it maps between (``domain``,
``codomain``, whose ``event_dim`` is the number of rightmost dims it couples).

Elementwise: ``ExpTransform``, ``AffineTransform`` (also over ``event_dim`` dims),
``AbsTransform``, ``PowerTransform``, ``SigmoidTransform``, ``SoftplusTransform``,
``TanhTransform``, ``CumulativeDistributionTransform``. Over the last dim:
``SoftmaxTransform``, ``StickBreakingTransform`` (R^(n-1) -> the n-simplex). Over
matrices: ``LowerCholeskyTransform``, ``PositiveDefiniteTransform``,
``CorrCholeskyTransform`` (R^(n(n-1)/2) -> Cholesky factors of correlation matrices).
Structural: ``ComposeTransform``, ``IndependentTransform``, ``ReshapeTransform``,
``CatTransform``, ``StackTransform``, ``identity_transform``."""

from __future__ import annotations

from .base import (  # noqa: F401 - _InverseTransform: PyTorch's private name, imported by libraries
    ComposeTransform,
    Transform,
    _InverseTransform,
    identity_transform,
)
from .constrained import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StickBreakingTransform,
)
from .elementwise import (
    AbsTransform,
    AffineTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
)
from .structural import CatTransform, IndependentTransform, ReshapeTransform, StackTransform

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]
