"""The loop of the ecosystem cases scripts, run as scripts on both sides (plain Python with
the real PyTorch, and under ``chainrule run``): each case runs, a failure is recorded with
its traceback, and the results go to ``<path>.npz`` with the report (the cases, the keys
each case put, the failures, which ``torch`` was imported) in ``<path>_errors.json``,
which tests/ecosystem/two_sides.py and three_sides.py read."""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable

import numpy as np


def run_cases(
    cases: list[tuple[str, Callable[[], None]]],
    path: str,
    state: tuple[dict, dict, dict, list],
    torch_name: str,
    *,
    fresh_keys: bool = False,
    timed: bool = False,
) -> None:
    """Run ``cases`` with ``state`` = (results, keys, errors, current) of the script: the
    script's ``put`` files each value under ``current[0]``; ``fresh_keys`` starts every
    case's key list empty here; ``timed`` adds each case's seconds to the report."""
    results, keys, errors, current = state
    times = {}
    for name, fn in cases:
        current[0] = name
        if fresh_keys:
            keys[name] = []
        start = time.perf_counter()
        try:
            fn()
        except Exception:  # (recorded: the test reports it)
            errors[name] = traceback.format_exc()
        times[name] = time.perf_counter() - start
    np.savez(f"{path}.npz", **results)
    # which torch ran: the imported module's own spec names it ("chainrule" under chainrule
    # run, where ``torch.__name__`` is "torch" as in PyTorch)
    which = sys.modules["torch"].__spec__.name
    report = {"cases": [n for n, _ in cases], "keys": keys, "errors": errors, "torch": which}
    if timed:
        report["times"] = times
    with open(f"{path}_errors.json", "w") as f:
        json.dump(report, f, indent=1)
