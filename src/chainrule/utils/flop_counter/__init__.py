"""``torch.utils.flop_counter``: count the floating-point operations of the matrix
products, convolutions and attention a program runs, by module and by op.

Inside ``FlopCounterMode`` every op call goes through the hook ``recording.PROFILER`` (as
with ``torch.profiler``). Each call of a counted op (matmul, mm, bmm, addmm, baddbmm,
convolution, scaled_dot_product_attention) is translated into the aten calls PyTorch makes
for it (``_aten``), each counted by its formula in ``flop_registry``; the node it records
keeps the aten calls of its backward, counted when the engine runs it. Counts go to every
module running at the time (``_tracker``) and to ``Global``.

Where chainrule differs from PyTorch: ops are named by ``aten.<name>`` stand-ins (printed
as PyTorch's, e.g. ``aten.mm``; look a count up with ``flop_counter.aten.mm`` or compare
``str(op)``); a formula registered with ``get_raw=True`` gets shapes, not tensors. Not
counted: the backward of a graph recorded before the mode was entered, the second order of
a double backward, and ops chainrule runs as one op where PyTorch calls mm (RNN, LSTM,
GRU); ``einsum`` counts mm where PyTorch counts bmm, an in-place ``addmm_`` counts addmm
(PyTorch: nothing), and ``autograd.grad`` counts the gradients of every input that
requires grad (PyTorch: those leading to the inputs asked for). The mode counts the ops of
every thread. A ``torch.profiler`` profile started inside the mode pauses its counting
until it stops; a mode entered inside a profile counts, and the profile records. The table is printed without the ``tabulate`` package.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections import defaultdict
from typing import Any

from ... import _modes
from ..._tensor import Tensor
from ...autograd import recording
from ._aten import PLANNERS
from ._formulas import (  # noqa: F401 (the helpers PyTorch's module has)
    OpOverloadPacket,
    addmm_flop,
    aten,
    baddbmm_flop,
    bmm_flop,
    conv_backward_flop,
    conv_flop,
    conv_flop_count,
    convert_num_with_suffix,
    convert_to_percent_str,
    flop_registry,
    get_shape,
    get_suffix_str,
    mm_flop,
    normalize_tuple,
    register_flop_formula,
    sdpa_backward_flop,
    sdpa_backward_flop_count,
    sdpa_flop,
    sdpa_flop_count,
    shape_wrapper,
    suffixes,
)
from ._tracker import ModuleTracker

__all__ = ["FlopCounterMode", "register_flop_formula"]

# the aten calls of each recorded node's backward, kept until the node is freed
_BACKWARDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_ACTIVE = [0]  # how many modes are entered (the ops' general path while any is)


class _Thread(threading.local):
    """A mode's state in one thread."""

    def __init__(self) -> None:
        self.open: list = []  # the ops whose call runs now, innermost last
        self.counting = 0  # > 0 inside a counted op's call: the ops it calls are its own
        self.backward = 0  # > 0 while an op node's VJPs run


class FlopCounterMode:
    """A context manager counting flops while entered: ``get_total_flops()``,
    ``get_flop_counts()`` ({module: {op: flops}}) and, on exit with ``display``, the table
    ``get_table(depth)`` printed."""

    def __init__(
        self,
        mods: Any = None,
        depth: int = 2,
        display: bool = True,
        custom_mapping: dict[Any, Any] | None = None,
    ) -> None:
        self.flop_counts: defaultdict = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        if custom_mapping is None:
            custom_mapping = {}
        if mods is not None:
            warnings.warn(
                "mods argument is not needed anymore, you can stop passing it", stacklevel=2
            )
        self.flop_registry = {
            **flop_registry,
            **{
                k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
                for k, v in custom_mapping.items()
            },
        }
        self.mod_tracker = ModuleTracker()
        self._outer: Any = None  # the hook this mode replaced (a profiler's, another mode)
        self._thread = _Thread()

    # ----- results --------------------------------------------------------------------

    def get_total_flops(self) -> int:
        """The flops counted in all."""
        return sum(self.flop_counts.get("Global", {}).values())

    def get_flop_counts(self) -> dict[str, dict[Any, int]]:
        """The flops counted, by module (``Global``, ``Net``, ``Net.layer1``) and op."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth: int | None = None) -> str:
        """The counts as PyTorch's table: a row per module down to ``depth`` dots (sorted by
        name), its total flops and share, then a row per op."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        total = self.get_total_flops()
        suffix = get_suffix_str(total)
        rows: list[list[str]] = []
        global_subsumed = False
        for mod in sorted(self.flop_counts):
            if mod == "Global" or mod.count(".") + 1 > depth:
                continue
            if sum(self.flop_counts[mod].values()) == total:
                global_subsumed = True
            rows += self._rows(mod, total, suffix)
        if not global_subsumed:
            rows = self._rows("Global", total, suffix) + rows
        return _table(["Module", "FLOP", "% Total"], rows, numbers=suffix == "")

    def _rows(self, mod: str, total: int, suffix: str) -> list[list[str]]:
        counts = self.flop_counts[mod]
        mod_total = sum(counts.values())
        rows = [[mod, convert_num_with_suffix(mod_total, suffix), _percent(mod_total, total)]]
        for op, flops in counts.items():
            rows.append([f"- {op}", convert_num_with_suffix(flops, suffix), _percent(flops, total)])
        return rows

    # ----- on and off -----------------------------------------------------------------

    def __enter__(self) -> FlopCounterMode:
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self._outer = recording.PROFILER[0]
        recording.PROFILER[0] = self
        _ACTIVE[0] += 1
        _modes.mark("flop_counter", True)
        return self

    def __exit__(self, *args: Any) -> None:
        if recording.PROFILER[0] is self:
            recording.PROFILER[0] = self._outer
        self._outer = None
        _ACTIVE[0] -= 1
        _modes.mark("flop_counter", _ACTIVE[0] > 0)
        self.mod_tracker.__exit__(*args)
        if self.display:
            print(self.get_table(self.depth))

    # ----- counting -------------------------------------------------------------------

    def _count(self, calls: list) -> None:
        """Add each aten call's flops, by its formula, to every running module."""
        parents = list(self.mod_tracker.parents)
        for call in calls:
            formula = self.flop_registry.get(call.op)
            if formula is None:
                continue
            flops = formula(*call.args, out_val=call.out_shape)
            for par in parents:
                self.flop_counts[par][call.op] += flops

    def _counted(self, op: Any, args: tuple, params: dict, result: Any) -> None:
        """Count a forward call of ``op``, and keep its backward's calls on its node."""
        plan = PLANNERS[op.name](args, params, result)
        self.mod_tracker.sync()
        self._count(plan.forward)
        if plan.backward and isinstance(result, Tensor) and result._grad_fn is not None:
            _BACKWARDS[result._grad_fn] = plan.backward

    def _run(self, op: Any, run: Any) -> Any:
        """``run()``, a call of ``op``, inside this mode's record of open calls; counted
        when op is counted and called neither by a counted op nor in backward."""
        t = self._thread
        counted = op.name in PLANNERS and not t.counting and not t.backward
        t.open.append(op)
        t.counting += counted
        try:
            result = run()
        finally:
            t.counting -= counted
            t.open.pop()
        return result, counted

    # ----- the hook recording.PROFILER (the profiler's collector's protocol) ------------

    def open(self, op: Any) -> bool:
        """Whether this thread's innermost running call is a call of ``op``."""
        stack = self._thread.open
        return bool(stack) and stack[-1] is op

    def call(self, op: Any, args: tuple, params: dict) -> Any:
        """``op(*args, **params)`` on its general path, counted."""
        outer = self._outer
        if outer is not None:
            result, counted = self._run(op, lambda: outer.call(op, args, params))
        else:
            result, counted = self._run(op, lambda: op._slow(args, params, True))
        if counted:
            self._counted(op, args, params, result)
        return result

    def wrap(self, op: Any, args: tuple, arrays: Any, params: dict, out: Any) -> Any:
        """``op._wrap``, for a caller that ran op's forward itself, counted."""
        outer = self._outer
        if outer is not None:
            run = lambda: outer.wrap(op, args, arrays, params, out)  # noqa: E731
        else:
            run = lambda: op._wrap(args, arrays, params, out)  # noqa: E731
        result, counted = self._run(op, run)
        if counted:
            self._counted(op, args, params, result)
        return result

    def run(self, op: Any, call: Any, args: tuple) -> Any:
        """``call()``, a call of an op over a sequence of tensors (counted by none)."""
        outer = self._outer
        if outer is not None:
            return self._run(op, lambda: outer.run(op, call, args))[0]
        return self._run(op, call)[0]

    def node(self, node: Any, grad_outputs: list, create_graph: bool) -> Any:
        """The engine running ``node``; the aten calls of its backward counted."""
        self.mod_tracker.sync()
        outer = self._outer
        # an op's VJPs are counted as its plan says (the ops they call, with create_graph,
        # are not PyTorch's); a Function's backward is user code: its ops count as called
        internal = getattr(node, "_op", None) is not None
        self._thread.backward += internal
        try:
            if outer is not None:
                grad_inputs = outer.node(node, grad_outputs, create_graph)
            else:
                grad_inputs = node.apply(grad_outputs, create_graph)
        finally:
            self._thread.backward -= internal
        calls = _BACKWARDS.get(node)
        if calls:
            self._count(calls)
        return grad_inputs


def _percent(num: int, denom: int) -> str:
    return convert_to_percent_str(num, denom)


def _table(headers: list[str], rows: list[list[str]], numbers: bool) -> str:
    """The rows in columns, as ``tabulate`` prints them (its "simple" format): the first
    column left-aligned, the others right-aligned; the counts as integers when they carry
    no suffix (``numbers``)."""
    if numbers:
        rows = [[r[0], f"{float(r[1]):g}", r[2]] for r in rows]
    widths = [max([len(h) + 2] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "  ".join([first, *rest])

    lines = [line(headers), "  ".join("-" * w for w in widths)]
    lines += [line(r) for r in rows]
    return "\n".join(lines)
