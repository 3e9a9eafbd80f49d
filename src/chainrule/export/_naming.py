"""Placeholders named as PyTorch's export names them."""

from __future__ import annotations

from ..fx import Graph, Node


def placeholder(graph: Graph, name: str) -> Node:
    """A placeholder named ``name`` exactly, a builtin's name (``input``) included: PyTorch's
    export keeps a forward's parameter name, and only its code writes that one
    ``input_1``."""
    node = graph.placeholder(name)
    node.name = name
    return node
