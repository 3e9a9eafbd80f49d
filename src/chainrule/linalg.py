"""``chainrule.linalg``: the linear-algebra namespace (more ops come with the operator library)."""

from __future__ import annotations

from .ops.functions import matmul, vector_norm  # noqa: F401


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):  # noqa: A002
    """The 2-norm of all entries (vectors, and matrices with ord=None or 'fro')."""
    if ord not in (None, "fro", 2) or (ord == 2 and A.ndim == 2 and dim is None):
        from ._missing import missing

        raise missing("torch.linalg", f"norm(ord={ord!r})")
    return vector_norm(A, 2, dim, keepdim, dtype=dtype)


def __getattr__(name: str):
    from ._missing import missing

    raise missing("torch.linalg", name)
