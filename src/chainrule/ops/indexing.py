"""Shapes, joining and indexing: squeeze/unsqueeze, movedim, repeat/tile, flip/roll, narrow/split/chunk/unbind, cat/stack, gather/scatter, index_select/index_add, masked_fill/masked_select, take; their public functions and the Tensor methods they provide.

Each op is one ``defop`` entry (see docs/architecture.md). ``__all__`` lists the public
functions ``chainrule`` exports from here; ``TENSOR_METHODS`` the Tensor methods.
"""

from __future__ import annotations

__all__: list[str] = []

TENSOR_METHODS: dict = {}
