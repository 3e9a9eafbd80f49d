"""Tensor layouts as PyTorch names them (``torch.strided``, ``torch.sparse_coo``, ...).

Every chainrule tensor is strided (a NumPy array); the other layouts exist as names, so
that code comparing a tensor's ``layout`` with them, or passing ``layout=torch.strided``,
runs as under PyTorch."""

from __future__ import annotations


class layout:  # noqa: N801 - PyTorch's spelling
    """A memory layout: prints as ``torch.<name>``; one object per name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
_mkldnn = layout("_mkldnn")
jagged = layout("jagged")
