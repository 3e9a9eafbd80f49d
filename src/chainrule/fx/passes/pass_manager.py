"""``torch.fx.passes.pass_manager``: run a list of passes (callables from an object to the
changed object) in order, checked against ordering constraints."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from inspect import unwrap
from typing import Any

__all__ = [
    "PassManager",
    "inplace_wrapper",
    "log_hook",
    "loop_pass",
    "this_before_that_pass_constraint",
    "these_before_those_pass_constraint",
]

logger = logging.getLogger(__name__)

Pass = Callable[..., Any]
Constraint = Callable[[Pass, Pass], bool]


def inplace_wrapper(fn: Pass) -> Pass:
    """``fn`` (a pass changing its argument in place) made to return its argument."""

    @wraps(fn)
    def wrapped_fn(gm: Any, *args: Any, **kwargs: Any) -> Any:
        fn(gm, *args, **kwargs)
        return gm

    return wrapped_fn


def log_hook(fn: Pass, level: int = logging.INFO) -> Pass:
    """``fn``, logging its return value at ``level`` after each call."""

    @wraps(fn)
    def wrapped_fn(*args: Any, **kwargs: Any) -> Any:
        val = fn(*args, **kwargs)
        logger.log(level, "Ran pass %s\t Return value: %s", fn, val)
        return val

    return wrapped_fn


def loop_pass(
    base_pass: Pass, n_iter: int | None = None, predicate: Callable[[Any], bool] | None = None
) -> Pass:
    """``base_pass`` run ``n_iter`` times, or while ``predicate`` holds (exactly one)."""
    if (n_iter is None) == (predicate is None):
        raise AssertionError("Exactly one of `n_iter`or `predicate` must be specified.")

    @wraps(base_pass)
    def new_pass(source: Any) -> Any:
        output = source
        if n_iter is not None and n_iter > 0:
            for _ in range(n_iter):
                output = base_pass(output)
        elif predicate is not None:
            while predicate(output):
                output = base_pass(output)
        else:
            raise RuntimeError(
                f"loop_pass must be given positive int n_iter (given {n_iter}) xor predicate "
                f"(given {predicate})"
            )
        return output

    return new_pass


def _validate_pass_schedule_constraint(constraint: Constraint, passes: list[Pass]) -> None:
    for i, a in enumerate(passes):
        for j, b in enumerate(passes[i + 1 :]):
            if not constraint(a, b):
                raise RuntimeError(
                    f"pass schedule constraint violated. Expected {a} before {b} but found {a} "
                    f"at index {i} and {b} at index{j} in pass list."
                )


def this_before_that_pass_constraint(this: Pass, that: Pass) -> Constraint:
    """The constraint that ``this`` runs before ``that``: ``depends_on(a, b)`` is false only
    for ``a`` = ``that`` scheduled before ``b`` = ``this``."""

    def depends_on(a: Pass, b: Pass) -> bool:
        return a != that or b != this

    return depends_on


def these_before_those_pass_constraint(these: Pass, those: Pass) -> Constraint:
    """As ``this_before_that_pass_constraint``, comparing the passes unwrapped (so that
    ``loop_pass(p, 3)`` counts as ``p``)."""

    def depends_on(a: Pass, b: Pass) -> bool:
        return unwrap(a) != those or unwrap(b) != these

    return depends_on


class PassList:
    """What both pass managers share: a list of passes and ordering constraints, checked
    again after each change."""

    passes: list
    constraints: list
    _validated: bool

    def add_pass(self, _pass: Pass) -> None:
        """Append ``_pass``."""
        self.passes.append(_pass)
        self._validated = False

    def add_constraint(self, constraint: Constraint) -> None:
        """Add an ordering constraint."""
        self.constraints.append(constraint)
        self._validated = False


class PassManager(PassList):
    """Passes and the constraints on their order; calling it runs the passes in order."""

    passes: list[Pass]
    constraints: list[Constraint]
    _validated: bool = False

    def __init__(
        self, passes: list[Pass] | None = None, constraints: list[Constraint] | None = None
    ) -> None:
        self.passes = passes or []
        self.constraints = constraints or []

    @classmethod
    def build_from_passlist(cls, passes: list[Pass]) -> PassManager:
        """A PassManager of ``passes``."""
        return PassManager(passes)

    def remove_pass(self, _passes: list[str]) -> None:
        """Drop the passes whose ``__name__`` is in ``_passes``."""
        if _passes is None:
            return
        self.passes = [p for p in self.passes if p.__name__ not in _passes]
        self._validated = False

    def replace_pass(self, _target: Pass, _replacement: Pass) -> None:
        """Put ``_replacement`` in place of each pass named as ``_target``."""
        self.passes = [_replacement if p.__name__ == _target.__name__ else p for p in self.passes]
        self._validated = False

    def validate(self) -> None:
        """Check the order of the passes against every constraint (RuntimeError)."""
        if self._validated:
            return
        for constraint in self.constraints:
            _validate_pass_schedule_constraint(constraint, self.passes)
        self._validated = True

    def __call__(self, source: Any) -> Any:
        self.validate()
        out = source
        for _pass in self.passes:
            out = _pass(out)
        return out
