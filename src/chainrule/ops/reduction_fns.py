"""Reductions beyond sum and mean: prod, max/min (with indices), amax/amin, argmax/argmin, var/std, cumsum/cumprod, sort/topk/median, logsumexp; their public functions with PyTorch's signatures and the Tensor methods they provide.

Each op is one ``defop`` entry (see docs/architecture.md). ``__all__`` lists the public
functions ``chainrule`` exports from here; ``TENSOR_METHODS`` the Tensor methods.
"""

from __future__ import annotations

__all__: list[str] = []

TENSOR_METHODS: dict = {}
