"""The statements of a traced forward written as PyTorch's TorchScript printer writes
them: a value read once, by the call just after it, is written inside that call
(``torch.relu(torch.mul(x, 2))``); other values get the names ``_0``, ``_1``, ...; an
argument whose text grows long (40 columns with the indent) is taken out into a name of
its own, with every argument written inside before it, so the calls keep their order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CALL, LIST, UNPACK, RETURN = "call", "list", "unpack", "return"


class Item:
    """One value of the forward, in the order it is computed: a call, a list argument
    (``[a, b]``), the unpacking of a list result (``_0, _1, = ...``) or the returned
    value. ``inputs`` are the Items, Results and names it reads; ``render`` writes its
    expression from their texts."""

    def __init__(
        self, kind: str, inputs: list[Any], render: Callable[[list[str]], str], results: int = 0
    ) -> None:
        self.kind, self.inputs, self.render = kind, inputs, render
        self.results = results  # (the names a call of several results unpacks to)
        self.comma = ""  # ("," after the names of an unpacked list)
        self.bare = False  # (a call whose value nothing reads)
        self.inline = False
        self.names: list[str] = []


class Result:
    """The ``index``-th result of a call of several results (one of its names)."""

    def __init__(self, item: Item, index: int) -> None:
        self.item, self.index = item, index


def place_inline(items: list[Item]) -> None:
    """Marks the items written inside their one reader: read once, by the item just
    before which they come (PyTorch's printer scans back from the return the same way)."""
    uses: dict[int, int] = {}
    for item in items:
        for value in item.inputs:
            uses[id(value)] = uses.get(id(value), 0) + 1
    before = {id(item): items[i - 1] if i else None for i, item in enumerate(items)}

    def scan(item: Item, point: Item | None) -> Item | None:
        for value in reversed(item.inputs):
            if value is point and _inlinable(value, uses):
                value.inline = True
                point = scan(value, before[id(value)])
        return point

    for item in reversed(items):
        if not item.inline:
            scan(item, before[id(item)])


def _inlinable(item: Item, uses: dict[int, int]) -> bool:
    return item.kind in (CALL, LIST) and not item.results and uses.get(id(item)) == 1


def write(items: list[Item], level: int, fresh: Callable[[], str]) -> list[str]:
    """The statements: first a pass in the order of computation that takes out the long
    arguments, then each item not written inline, named in that order."""
    text: dict[int, str] = {}

    def texts(item: Item, final: bool) -> list[str]:
        out = []
        for v in item.inputs:
            if isinstance(v, Result):
                out.append(v.item.names[v.index] if final else "_0")
            else:
                out.append(text[id(v)] if isinstance(v, Item) else v)
        return out

    for item in items:
        shown = texts(item, False)
        long = [i for i, (v, t) in enumerate(zip(item.inputs, shown))
                if isinstance(v, Item) and v.inline and len(t) + 2 * level >= 40]  # fmt: skip
        for v in item.inputs[: long[-1] + 1] if long else []:
            if isinstance(v, Item) and v.inline:
                v.inline = False
                text[id(v)] = "_0"  # (a name's width, until the names are given)
        text[id(item)] = item.render(texts(item, False))
    lines = []
    for item in items:
        expr = item.render(texts(item, True))
        text[id(item)] = expr
        if item.inline:
            continue
        if item.kind == RETURN:
            lines.append(f"return {expr}")
        elif item.bare:
            lines.append(expr)
        elif item.results:
            item.names = [fresh() for _ in range(item.results)]
            lines.append(f"{', '.join(item.names)}{item.comma} = {expr}")
        else:
            text[id(item)] = fresh()
            lines.append(f"{text[id(item)]} = {expr}")
    return lines
