"""``torch._tensor_str``: the print options object and the values text of a tensor.

Libraries read ``PRINT_OPTS`` (the live options ``torch.set_printoptions`` changes) and
call ``_tensor_str(tensor, indent)`` for the bracketed values without ``tensor(``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._printing import _OPTIONS, _values_text

__all__ = ["PRINT_OPTS"]

# the live options (precision, threshold, edgeitems, linewidth, sci_mode)
PRINT_OPTS = _OPTIONS


def _tensor_str(self: Any, indent: int) -> str:
    """The bracketed values of ``self`` as its repr shows them, continuation lines indented
    by ``indent`` columns; ``[]`` for an empty tensor."""
    if self.numel() == 0:
        return "[]"
    return _values_text(np.asarray(self.detach().cpu().numpy()), indent)
