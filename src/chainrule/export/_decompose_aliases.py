"""Views of a value updated in place, as PyTorch's functionalization writes them in
``run_decompositions``: a forward's own tensor filled in place (the attention mask's
``zeros_like`` + ``masked_fill_``) becomes a new value, the base; a view taken of it (or
of a view of it) is written at once, but each call that reads such a view first writes
the whole chain of views again from the base and reads that copy. The first writing is
then read by nothing and dropped, its name kept taken (``view_7`` dropped, ``view_9``
read), which is where the node numbering of the masked attention programs comes from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..fx import Node

if TYPE_CHECKING:
    from ._decompose import Writer

# The core ATen views (a call of one of these on a view of the base is a view of it too).
VIEWS = frozenset(
    {
        "view.default",
        "expand.default",
        "unsqueeze.default",
        "permute.default",
        "select.int",
        "slice.Tensor",
        "squeeze.dim",
        "squeeze.dims",
        "squeeze.default",
        "transpose.int",
        "t.default",
        "alias.default",
        "diagonal.default",
        "unfold.default",
    }
)


def base(w: Writer, node: Node) -> None:
    """Marks ``node`` as the new value of a tensor updated in place."""
    w.aliases[node] = []


def _overload(node: Node) -> str:
    return str(node.target).removeprefix("aten.")


def _base_of(w: Writer, node: Node) -> Node:
    chain = w.aliases[node]
    return chain[0].args[0] if chain else node


def _replay(w: Writer, arg: Any) -> Any:
    """``arg``, or where it is a view of a base, the chain of views written again."""
    if not isinstance(arg, Node) or not w.aliases.get(arg):
        return arg
    chain = w.aliases[arg]
    x = _base_of(w, arg)
    for view in chain:
        x = w.call(_overload(view), x, *view.args[1:], **view.kwargs)
    w.aliases[x] = chain
    return x


def synced(w: Writer, args: list, kwargs: dict) -> tuple[list, dict]:
    """The call's arguments with each view of a base written again from it."""
    if not w.aliases:
        return args, kwargs
    args = [[_replay(w, a) for a in x] if isinstance(x, list) else _replay(w, x) for x in args]
    return args, {k: _replay(w, v) for k, v in kwargs.items()}


def last(w: Writer) -> Node | None:
    """The graph's last node (the point after which a call writes its nodes)."""
    return w.graph._root.prev if w.aliases else None


def extend(w: Writer, after: Node | None, result: Any) -> None:
    """Where the nodes written after ``after`` are views, each of the previous one and
    the first of a base or a view of one, ``result`` is a view of that base too."""
    if after is None or not isinstance(result, Node) or result in w.aliases:
        return
    written = []
    node = after.next
    while node is not w.graph._root:
        written.append(node)
        node = node.next
    if not written or written[-1] is not result:
        return
    source = written[0].args[0] if written[0].args else None
    if not isinstance(source, Node) or source not in w.aliases:
        return
    for previous, view in zip([source, *written], written):
        if _overload(view) not in VIEWS or view.args[0] is not previous:
            return
    w.aliases[result] = w.aliases[source] + written
