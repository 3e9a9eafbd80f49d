"""The cases of an ecosystem cases script and their loop, run as scripts on both sides
(plain Python with the real PyTorch, and under ``chainrule run``): ``Cases`` registers
the script's cases and files what each one puts; each case runs, a failure is recorded
with its traceback, and the results go to ``<path>.npz`` with the report (the cases, the
keys each case put, the failures, which ``torch`` was imported) in ``<path>_errors.json``,
which tests/ecosystem/two_sides.py and three_sides.py read."""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable

import numpy as np
import torch

Case = Callable[[], None]


class Cases:
    """A script's cases (``case``), the cases of its own files (``own``: run after the
    others on chainrule's side, alone on the check side) and what they put. ``wrap``
    wraps each case as it is registered; ``copies`` files a copy of each tensor's values
    (otherwise a view, which later in-place writes change); ``prefixed`` files each result
    under its case's name and its own; ``state_grads`` makes ``put_state`` file each
    parameter's gradient too."""

    def __init__(
        self,
        *,
        wrap: Callable[[Case], Case] | None = None,
        copies: bool = False,
        prefixed: bool = False,
        state_grads: bool = False,
    ) -> None:
        self.results: dict[str, np.ndarray] = {}
        self.errors: dict[str, str] = {}
        self.keys: dict[str, list[str]] = {}
        self.current = ""  # the running case
        self.cases: list[tuple[str, Case]] = []
        self.owned: list[tuple[str, Case]] = []
        self.wrap = wrap
        self.copies = copies
        self.prefixed = prefixed
        self.state_grads = state_grads

    def add(self, name: str, fn: Case) -> None:
        """Register ``fn`` as the case ``name``."""
        self.cases.append((name, self._wrapped(fn)))

    def case(self, fn: Case) -> Case:
        """Register ``fn`` as a case under its own name (a decorator)."""
        self.add(fn.__name__, fn)
        return fn

    def own(self, fn: Case) -> Case:
        """Register ``fn`` as a case whose files chainrule writes and the real library
        reads (a decorator)."""
        self.owned.append((fn.__name__, self._wrapped(fn)))
        return fn

    def _wrapped(self, fn: Case) -> Case:
        return self.wrap(fn) if self.wrap else fn

    def put(self, name: str, value: object) -> None:
        """File ``value`` (a tensor as a NumPy array) under ``name`` and the running
        case's keys."""
        if isinstance(value, torch.Tensor):
            value = value.detach().numpy()
            if self.copies:
                value = value.copy()
        if self.prefixed:
            name = f"{self.current}.{name}"
        self.results[name] = np.asarray(value)
        self.keys.setdefault(self.current, []).append(name)

    def put_td(self, name: str, td: object) -> None:
        """Each leaf of the TensorDict ``td`` (sorted nested keys), its batch size and its
        keys."""
        keys = sorted(td.keys(include_nested=True, leaves_only=True), key=str)
        self.put(name + ".batch_size", list(td.batch_size))
        self.put(name + ".keys", [str(k) for k in keys])
        for key in keys:
            self.put(f"{name}.{key}", td.get(key))

    def put_state(self, name: str, module: torch.nn.Module) -> None:
        """Every parameter of ``module`` (and its gradient, with ``state_grads``)."""
        for key, value in module.named_parameters():
            self.put(f"{name}.{key}", value)
            if self.state_grads and value.grad is not None:
                self.put(f"{name}.{key}.grad", value.grad)

    def run(
        self,
        path: str,
        cases: list[tuple[str, Case]] | None = None,
        *,
        fresh_keys: bool = False,
        timed: bool = False,
    ) -> None:
        """Run ``cases`` (all registered ones by default) from nothing filed, writing
        ``<path>.npz`` and ``<path>_errors.json``; ``fresh_keys`` starts every case's key
        list empty; ``timed`` adds each case's seconds to the report."""
        self.results.clear()
        self.errors.clear()
        self.keys.clear()
        chosen = self.cases if cases is None else cases
        times = {}
        for name, fn in chosen:
            self.current = name
            if fresh_keys:
                self.keys[name] = []
            start = time.perf_counter()
            try:
                fn()
            except Exception:  # (recorded: the test reports it)
                self.errors[name] = traceback.format_exc()
            times[name] = time.perf_counter() - start
        np.savez(f"{path}.npz", **self.results)
        # which torch ran: the imported module's own spec names it ("chainrule" under
        # chainrule run, where ``torch.__name__`` is "torch" as in PyTorch)
        which = sys.modules["torch"].__spec__.name
        report = {"cases": [n for n, _ in chosen], "keys": self.keys, "errors": self.errors}
        report["torch"] = which
        if timed:
            report["times"] = times
        with open(f"{path}_errors.json", "w") as f:
            json.dump(report, f, indent=1)

    def run_side(self, out: str, stem: str, side: str) -> None:
        """The run of ``side``: the check side runs the own cases alone
        (``OUT/<stem>_check``); the others run the cases (``OUT/<stem>_<side>``), then on
        chainrule's side the own ones (``OUT/<stem>_own``)."""
        if side == "check":
            self.run(f"{out}/{stem}_check", self.owned)
            return
        self.run(f"{out}/{stem}_{side}")
        if side == "chainrule":
            self.run(f"{out}/{stem}_own", self.owned)
