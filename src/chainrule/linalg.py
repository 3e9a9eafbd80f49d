"""``chainrule.linalg``: PyTorch's ``torch.linalg`` namespace.

The ops and their derivatives live in ops/linalg.py (matrix products) and
ops/linalg_fns.py (everything else); this module gives them their ``torch.linalg`` names.
"""

from __future__ import annotations

from .ops.linalg_fns import (  # noqa: F401
    LinAlgError,
    cholesky_ex,
    cond,
    det,
    eigh,
    eigvalsh,
    inv,
    inv_ex,
    lstsq,
    lu_factor,
    lu_solve,
    matmul,
    matrix_exp,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    solve,
    solve_ex,
    solve_triangular,
    svdvals,
    tensorinv,
    tensorsolve,
    vander,
    vecdot,
    vector_norm,
)
from .ops.linalg_fns import linalg_cholesky as cholesky  # noqa: F401
from .ops.linalg_fns import linalg_cross as cross  # noqa: F401
from .ops.linalg_fns import linalg_diagonal as diagonal  # noqa: F401
from .ops.linalg_fns import linalg_lu as lu  # noqa: F401
from .ops.linalg_fns import linalg_qr as qr  # noqa: F401
from .ops.linalg_fns import linalg_slogdet as slogdet  # noqa: F401
from .ops.linalg_fns import linalg_svd as svd  # noqa: F401


def __getattr__(name: str):
    from ._missing import missing

    raise missing("torch.linalg", name)
