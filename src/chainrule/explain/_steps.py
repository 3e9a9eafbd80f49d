"""Steps and items: what every view of an explanation shows."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._tensor import Tensor

MAX_LEAVES = 12  # leaves listed one by one in the summary
RUN = 4  # a run of more than this many alike steps is folded into one item
PERIOD = 8  # the longest repeating pattern of steps that is folded ("Mul, Add" x 5000)
MAX_ITEMS = 40  # more items than this: the middle ones become one gap


@dataclass
class Step:
    """One backward step: a node turning the gradient of its output into its inputs'."""

    index: int
    node: str  # MulBackward0
    op: str  # mul, or "accumulate" for a leaf
    forward: str  # the forward operation the node undoes, as an op: "out = a * 2"
    source: str | None  # "script.py:7" where the node was recorded, if recording was on
    input_shapes: list[tuple | None]
    output_shape: tuple
    local: str  # the local derivative, in words and symbols
    grad_in: Tensor  # the gradient arriving at the node's output
    grads_out: list[Tensor | None]  # the gradient sent to each input
    leaf: Tensor | None = None  # for an AccumulateGrad step: the leaf
    factor: float | None = None  # when the step only scales by a number
    elementwise: bool = False
    node_id: int = 0
    next_ids: list[int] = field(default_factory=list)
    code: str | None = None  # the text of the user's line that made the node: "y = y * 2"
    name: str | None = None  # for an AccumulateGrad step: the leaf's variable name
    fan_in: int = 1  # how many edges brought gradient to this node (their sum is grad_in)
    same_inputs: bool = False  # both inputs are one tensor: y * y
    broadcast: list[int] = field(default_factory=list)  # inputs broadcast by an elementwise op
    module: str | None = None  # the module whose forward made the node: "fc1 (Linear)"
    call: int | None = None  # which call of that module (1, 2, ...) when it was called again
    calls: tuple = ()  # (call number, label) of each module call, the outermost first

    @property
    def where(self) -> str | None:
        """The module call that made the node: "fc1 (Linear)", "fc (Linear), call 2"."""
        if self.module is None:
            return None
        return self.module + (f", call {self.call}" if self.call else "")


@dataclass
class Item:
    """What the text, Markdown, DOT and HTML views show: a step, a run of alike steps
    (``reps`` repetitions of a pattern of ``period`` steps) or a gap of omitted steps."""

    kind: str  # "step", "run" or "gap"
    steps: list[Step]
    period: int = 1

    @property
    def reps(self) -> int:
        return len(self.steps) // self.period

    @property
    def first(self) -> int:
        return self.steps[0].index

    @property
    def last(self) -> int:
        return self.steps[-1].index


# ----- folding steps into items --------------------------------------------------------


def _items(steps: list[Step]) -> list[Item]:
    """Steps, with runs of a repeating pattern folded, and the middle of a long list cut."""
    kinds: dict[tuple, int] = {}
    sigs = [
        kinds.setdefault(
            ("leaf", s.output_shape)
            if s.op == "accumulate"
            else (s.node, s.forward, s.code, s.module),
            len(kinds),
        )
        for s in steps
    ]
    items: list[Item] = []
    i, n = 0, len(steps)
    while i < n:
        best_p, best_len = 0, 0
        for p in range(1, PERIOD + 1):
            if i + 2 * p > n:
                break
            block = sigs[i : i + p]
            reps = 1
            while sigs[i + reps * p : i + (reps + 1) * p] == block:
                reps += 1
            if reps >= (2 if p == 1 else 3) and reps * p > RUN and reps * p > best_len:
                best_p, best_len = p, reps * p
        if best_p:
            items.append(Item("run", steps[i : i + best_len], best_p))
            i += best_len
        else:
            items.append(Item("step", [steps[i]]))
            i += 1
    if len(items) > MAX_ITEMS:
        head, tail = MAX_ITEMS * 2 // 3, MAX_ITEMS // 3 - 1
        middle = [s for item in items[head:-tail] for s in item.steps]
        items = items[:head] + [Item("gap", middle)] + items[-tail:]
    return items


def _counts(steps: list[Step]) -> str:
    counts: dict[str, int] = {}
    for s in steps:
        counts[s.node] = counts.get(s.node, 0) + 1
    return ", ".join(f"{k} x {v}" for k, v in counts.items())
