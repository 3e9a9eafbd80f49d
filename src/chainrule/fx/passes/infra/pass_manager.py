"""``torch.fx.passes.infra.pass_manager``: run passes returning :class:`PassResult` until the
module stops changing (at most ``steps`` rounds), ordered to satisfy constraints, with
optional checks between passes."""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Callable
from functools import wraps
from typing import Any

from ...graph_module import GraphModule
from ..pass_manager import (
    Constraint,
    Pass,
    PassList,
    _validate_pass_schedule_constraint,
    this_before_that_pass_constraint,
)
from .pass_base import PassResult

__all__ = ["pass_result_wrapper", "this_before_that_pass_constraint", "PassManager"]


def _pass_name(fn: Pass) -> str:
    return fn.__name__ if inspect.isfunction(fn) else type(fn).__name__


def pass_result_wrapper(fn: Pass) -> Callable[..., PassResult | None]:
    """``fn`` made to return a PassResult: ``PassResult(module, True)`` when it returns
    None (changed in place) or a module."""
    if fn is None:
        return None

    from ....nn import Module

    @wraps(fn)
    def wrapped_fn(gm: Any) -> PassResult | None:
        res = fn(gm)
        if res is None:
            return PassResult(gm, True)
        if isinstance(res, PassResult):
            return res
        if isinstance(res, Module):
            return PassResult(res, True)
        return None

    if not inspect.isfunction(fn):
        wrapped_fn.__name__ = type(fn).__name__
    return wrapped_fn


def _topological_sort_passes(passes: list[Pass], constraints: list[Constraint]) -> list[Pass]:
    """``passes`` reordered so that every constraint holds (RuntimeError on a cycle)."""
    if not constraints:
        return passes
    after: dict[Pass, list[Pass]] = {p: [] for p in passes}
    indegree: dict[Pass, int] = dict.fromkeys(passes, 0)
    ready: deque[Pass] = deque()
    for a in passes:
        for b in passes:
            if a == b:
                continue
            for constraint in constraints:
                if not constraint(a, b):
                    after[b].append(a)
                    indegree[a] += 1
        if indegree[a] == 0:
            ready.append(a)
    visited: set[Pass] = set()
    order: list[Pass] = []
    while ready:
        p = ready.popleft()
        order.append(p)
        visited.add(p)
        for n in after[p]:
            if n not in visited:
                indegree[n] -= 1
                if indegree[n] == 0:
                    ready.append(n)
    cycle = [p for p, d in indegree.items() if d != 0]
    if cycle:
        raise RuntimeError(f"Circular dependency detected within the following passes: {cycle}")
    return order


class PassManager(PassList):
    """Passes returning PassResults, their ordering constraints, and checks; calling it on
    a module runs the passes (in rounds, until nothing changes or ``steps`` rounds) and
    returns a PassResult."""

    passes: list[Pass]
    constraints: list[Constraint]
    _validated: bool = False
    steps: int = 1

    def __init__(
        self,
        passes: list[Pass] | None = None,
        constraints: list[Constraint] | None = None,
        steps: int | None = None,
        run_checks_after_each_pass: bool = False,
        suppress_check_failures: bool = False,
    ) -> None:
        self.passes = passes or []
        self.constraints = constraints or []
        if steps:
            self.steps = steps
        self.run_checks_after_each_pass = run_checks_after_each_pass
        self.suppress_check_failures = suppress_check_failures

    def validate_constraints(self) -> None:
        """Check the order of the passes against every constraint (RuntimeError)."""
        if self._validated:
            return
        for constraint in self.constraints:
            _validate_pass_schedule_constraint(constraint, self.passes)
        self._validated = True

    def solve_constraints(self) -> None:
        """Reorder the passes to satisfy the constraints."""
        self.passes = _topological_sort_passes(self.passes, self.constraints)
        self._validated = True

    def add_checks(self, check: Callable[[Any], None]) -> None:
        """Use ``check(module)`` before the passes (and after each, when
        ``run_checks_after_each_pass``)."""
        if len(inspect.signature(check).parameters) != 1:
            raise TypeError("PassManager check function should only take in one variable, a module")
        self.check = check  # type: ignore[method-assign]

    def check(self, module: Any) -> None:
        """The check run on the module (nothing, unless ``add_checks`` set one)."""

    def __call__(self, module: Any) -> PassResult:
        if not self._validated:
            self.solve_constraints()
        self.check(module)
        overall_modified = False
        for _ in range(self.steps):
            modified = False
            for i, fn in enumerate(self.passes):
                fn_name = _pass_name(fn)
                try:
                    res = fn(module)
                    if not isinstance(res, PassResult) and not hasattr(res, "graph_module"):
                        raise TypeError(
                            f"The result of the pass {fn_name} should be type PassResult."
                            "Please wrap it with pass_result_wrapper()"
                        )
                    module = res.graph_module
                    modified = modified or res.modified
                    if isinstance(module, GraphModule):
                        module.recompile()
                    if self.run_checks_after_each_pass:
                        self.check(module)
                except Exception as e:
                    done = [_pass_name(p) for p in self.passes[:i]]
                    raise Exception(  # noqa: TRY002 - PyTorch raises a bare Exception here
                        f"An error occurred when running the '{fn_name}' pass after the "
                        f"following passes: {done}"
                    ) from e
            overall_modified = overall_modified or modified
            if not modified:
                break
        return PassResult(module, overall_modified)
