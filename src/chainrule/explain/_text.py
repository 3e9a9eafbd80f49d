"""The narrative: each item in words, and the summary of what each leaf receives."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._backend import xp
from .._tensor import Tensor, _make
from ._describe import _num
from ._steps import MAX_LEAVES, Item, Step, _counts

if TYPE_CHECKING:
    from . import Explanation

# ----- formatting ----------------------------------------------------------------------


def _as_tensor(g: Any) -> Tensor:
    if isinstance(g, Tensor):
        return g.detach()
    arr = xp.asarray(g)
    from .._dtypes import from_numpy_dtype

    return _make(arr, from_numpy_dtype(arr.dtype))


def _values(arr: Any, limit: int = 6) -> str:
    """Values of a gradient, short: all of them up to ``limit``, else the first few and the shape."""
    arr = xp.asarray(arr)
    flat = arr.reshape(-1)
    text = ", ".join(_fmt(v) for v in flat[:limit])
    if flat.size > limit:
        return f"[{text}, ...] (shape {list(arr.shape)})"
    return f"[{text}]" if arr.ndim else text


def _fmt(v: Any) -> str:
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        return str(v)
    if v == 0 or 1e-4 <= abs(v) < 1e6:
        return f"{v:.4g}" if not v.is_integer() else f"{int(v)}."
    return f"{v:.4e}"


def _undoes(s: Step) -> str:
    """`y = y * 2` (line 15; the op out = a * 2), or `out = a * 2` when no line was recorded."""
    if s.code:
        line = s.source.rsplit(":", 1)[-1] if s.source else "?"
        op = s.forward.split(" = ", 1)[-1]
        same = s.code.replace(" ", "").endswith(op.replace(" ", ""))
        return f"`{s.code}` (line {line}" + ("" if same else f"; the op: {s.forward}") + ")"
    return f"`{s.forward}`"


def _out(s: Step) -> str:
    outs = [g for g in s.grads_out if g is not None]
    if s.same_inputs and len(outs) == 2:
        return f"{_values(outs[0]._data)} along each of its two edges (both inputs are the same tensor)"
    text = "; ".join(_values(g._data) for g in outs[:4])
    if len(outs) > 4:
        text = "; ".join(_values(g._data) for g in outs[:3]) + f"; ... ({len(outs)} gradients)"
    return text or "-"


def _in(s: Step) -> str:
    values = _values(s.grad_in._data)
    if s.fan_in > 1:
        return f"{values} (the sum of the gradients from its {s.fan_in} uses)"
    return values


def _step_text(s: Step) -> str:
    if s.op == "accumulate":
        return (
            f"Step {s.index}: AccumulateGrad adds the incoming gradient {_in(s)} into "
            f"{s.name}.grad."
        )
    shapes = [str(list(sh)) if sh is not None else "(constant)" for sh in s.input_shapes]
    if len(shapes) > 4:
        shapes = shapes[:3] + [f"... ({len(shapes)} inputs)"]
    broadcast = "".join(
        f" Input {i + 1} was broadcast from {list(s.input_shapes[i])} to {list(s.output_shape)}, "
        f"so its gradient is summed back to {list(s.input_shapes[i])}."
        for i in s.broadcast
    )
    return (
        f"Step {s.index}{_in_module([s])}: {s.node} undoes {_undoes(s)}; inputs {', '.join(shapes) or '-'} -> "
        f"output {list(s.output_shape)}. Local derivative: {s.local}.{broadcast} Gradient in: "
        f"{_in(s)}; gradient out: {_out(s)}."
    )


def _in_module(steps: list[Step]) -> str:
    """ " in fc1 (Linear)" when one module call made all the steps, " in fc (Linear)
    (calls 1-3)" when calls of one module did, else nothing."""
    labels = {s.where for s in steps}
    if len(labels) == 1:
        label = labels.pop()
        return f" in {label}" if label else ""
    if None in labels or len({s.module for s in steps}) > 1:
        return ""
    calls = sorted({s.call or 0 for s in steps})
    if calls[-1] - calls[0] == len(calls) - 1:
        return f" in {steps[0].module}, calls {calls[0]}-{calls[-1]}"
    return f" in {steps[0].module}, {len(calls)} calls"


def _item_text(item: Item) -> str:
    if item.kind == "step":
        return _step_text(item.steps[0])
    steps = item.steps
    if item.kind == "gap":
        return (
            f"Steps {item.first}-{item.last} ({len(steps)} steps: {_counts(steps)}) are not "
            "shown here; they are all in explanation.steps."
        )
    pattern = steps[: item.period]
    if all(s.op == "accumulate" for s in pattern):
        leaves = ", ".join(f"{s.name}.grad" for s in steps[:3])
        return (
            f"Steps {item.first}-{item.last}: AccumulateGrad x {len(steps)}, adding the "
            f"incoming gradients into {leaves}, ..., {steps[-1].name}.grad."
        )
    scale = _run_factor(item)
    tail = (
        (f"; together they scale the gradient by {_num(scale)}" if scale is not None else "")
        + f". Gradient in: {_values(steps[0].grad_in._data)}; out of the last: "
        + f"{_out(steps[-1])}."
    )
    if item.period == 1:
        s = steps[0]
        return (
            f"Steps {item.first}-{item.last}{_in_module(steps)}: {s.node} x {len(steps)}, "
            "each undoing "
            f"{_undoes(s)}, local derivative {s.local}" + tail
        )
    each = "; ".join(
        "AccumulateGrad adds its gradient into a leaf's .grad"
        if s.op == "accumulate"
        else f"{s.node}{f' in {s.module}' if s.module else ''} undoes {_undoes(s)} "
        f"(local derivative {s.local})"
        for s in pattern
    )
    names = " -> ".join(s.node for s in pattern)
    return (
        f"Steps {item.first}-{item.last}{_in_module(steps)}: the pattern {names} repeated "
        f"{item.reps} times "
        f"({_counts(steps)}). In each: {each}" + tail
    )


def _run_factor(item: Item) -> float | None:
    if all(s.factor is not None for s in item.steps):
        return math.prod(s.factor for s in item.steps)
    return None


def _narrative(e: Explanation, summary: bool = True) -> str:
    out = e.output
    lines = [
        f"backward(v) from an output of shape {list(out.shape)} computes the vector-Jacobian "
        "product vᵀJ, where J = d output / d leaves. It never forms J: each node multiplies the "
        "gradient arriving at its output by its own local derivative (the chain rule), from "
        "the output back to the leaves.",
        f"v = {_values(e.v._data)}"
        + (" (implicitly 1: the output is a scalar)" if gradient_is_implicit(e) else ""),
        "",
    ]
    lines += [_item_text(item) for item in e.items]
    if summary:
        lines += [""] + _summary(e)
    return "\n".join(lines)


def gradient_is_implicit(e: Explanation) -> bool:
    return e.output.numel() == 1 and bool((e.v._data == 1).all())


def _summary(e: Explanation) -> list[str]:
    lines = []
    compute = [s for s in e.steps if s.op != "accumulate"]
    scalings = bool(compute) and all(s.factor is not None for s in compute)
    out_name = e._names.get(id(e.output), "out")
    leaves = list(e.gradients.items())
    if e.output.numel() == 1 and leaves and float(e.v._data.reshape(-1)[0]) != 0:
        lines.append(
            f"The output is a scalar, so J = d{out_name}/d(leaves) is a single row, and vᵀJ is "
            + ("that row itself (v = 1)" if gradient_is_implicit(e) else "v times that row")
            + ": each leaf's .grad receives its part of the row"
            + ("." if gradient_is_implicit(e) else f" times {_values(e.v._data)}.")
        )
    for leaf, g in leaves[:MAX_LEAVES]:
        name = e.name(leaf)
        if scalings and len(e.gradients) == 1 and leaf.shape == e.output.shape:
            factor = math.prod(s.factor for s in compute)
            power = _power_of_two(factor)
            scaled = (
                f"{name} * 2^{power} = {_num(factor)} * {name}"
                if power is not None
                else f"{_num(factor)} * {name}"
            )
            lines.append(
                f"Folded: every step only scales, so {out_name} = {scaled}; so "
                f"d{out_name}/d{name} = {_num(factor)} * I (a diagonal Jacobian), and "
                f"{name}.grad = v * {_num(factor)} = {_values(g._data)}."
            )
        elif len(leaves) == 1 and _chain(e):
            lines.append(_chain(e))
        elif leaf in e._diagonals:
            lines.append(
                f"Every step is elementwise, so the Jacobian is diagonal: d{out_name}/d{name} = "
                f"diag({_values(e._diagonals[leaf]._data)}), and {name}.grad = v * that "
                f"diagonal = {_values(g._data)}."
            )
        held = e._held.get(id(leaf))
        lines.append(
            f"{name}.grad would receive {_values(g._data)}"
            + (f" (added to what it already holds, {_values(held)})." if held is not None else ".")
        )
    if len(leaves) > MAX_LEAVES:
        lines.append(f"... and {len(leaves) - MAX_LEAVES} more leaves (see explanation.gradients).")
    if e._check:
        lines.append("Check with the dense Jacobian J (built row by row; backward never forms it):")
        lines += ["  " + line for line in e._check.split("\n")]
    return lines


def _chain(e: Explanation) -> str | None:
    """For a graph that is one path from the output to one leaf, where every local
    derivative is one number: the chain rule as a product of those numbers."""
    steps = e.steps
    if len(steps) < 2 or steps[-1].op != "accumulate" or len(steps) > 12:
        return None
    factors = []
    for s, nxt in zip(steps, steps[1:]):
        if s.op == "accumulate" or {n for n in s.next_ids if n >= 0} != {nxt.node_id}:
            return None
        g_in = s.grad_in._data.astype(xp.float64)
        g_out = sum(g._data.astype(xp.float64) for g in s.grads_out if g is not None)
        if xp.any(g_in == 0):
            return None
        if g_in.shape != g_out.shape and g_in.size != 1:
            return None  # a broadcast or a reduction: not one number per element
        ratio = g_out / g_in
        if not xp.allclose(ratio, ratio.reshape(-1)[0], rtol=1e-6, atol=0):
            return None
        factors.append((s, float(ratio.reshape(-1)[0])))
    leaf = steps[-1]
    product = math.prod(f for _, f in factors)
    terms = " × ".join(
        f"{_fmt(f).rstrip('.')} ({s.node}: {s.local})" if len(s.local) < 40 else _fmt(f)
        for s, f in factors
    )
    v = "" if gradient_is_implicit(e) else "v × "
    return (
        f"One path leads from the output to {leaf.name}, so each element of {leaf.name}.grad "
        f"is {v}the product of the local derivatives along it: {v}{terms} = "
        f"{v}{_fmt(product).rstrip('.')}."
    )


def _power_of_two(f: float) -> int | None:
    if f <= 0:
        return None
    k = math.log2(f)
    return int(round(k)) if abs(k - round(k)) < 1e-12 and abs(k) >= 2 else None
