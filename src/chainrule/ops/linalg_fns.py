"""Linear algebra beyond matmul: bmm, mv, dot, outer, inner, einsum, tensordot, trace, diag, diagonal, tril, triu, cross, and the decompositions behind chainrule.linalg; their public functions and the Tensor methods they provide.

Each op is one ``defop`` entry (see docs/architecture.md). ``__all__`` lists the public
functions ``chainrule`` exports from here; ``TENSOR_METHODS`` the Tensor methods.
"""

from __future__ import annotations

__all__: list[str] = []

TENSOR_METHODS: dict = {}
