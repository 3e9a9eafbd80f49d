"""The harness of ecosystem tests whose files move both ways (test_peft.py,
test_sentence_transformers.py). One cases script runs three times: ``oracle`` (plain
Python, the real PyTorch: it saves what chainrule loads; ``<stem>_oracle``), ``chainrule``
(under ``chainrule run``: the same cases, ``<stem>_chainrule``, then saves files of its own
with their results, ``<stem>_own``), and ``check`` (plain Python loading chainrule's files,
``<stem>_check``). Each run writes ``<stem>_<side>.npz`` and ``<stem>_<side>_errors.json``
(the cases run, the keys each put, each failed case's traceback, the ``torch`` imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from two_sides import compare


def run_all(script: Path, stem: str, out: Path) -> dict:
    """Run the three sides; the reports by name (oracle, chainrule, own, check)."""
    for side in ("oracle", "chainrule", "check"):
        prefix = [sys.executable]
        if side == "chainrule":
            prefix += ["-m", "chainrule", "run"]
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
        env["TRANSFORMERS_NO_ADVISORY_WARNINGS"] = "1"
        proc = subprocess.run(
            [*prefix, str(script), str(out), side],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    reports = {}
    for name in ("oracle", "chainrule", "own", "check"):
        report = json.loads((out / f"{stem}_{name}_errors.json").read_text())
        with np.load(out / f"{stem}_{name}.npz") as results:
            report["results"] = dict(results)
        reports[name] = report
    return reports


def check_reports(reports: dict, cases: list[str], own: list[str]) -> None:
    """Each run imported its own torch and ran exactly its cases; the oracle's and the
    check's none failed."""
    for name, torch_name in (("oracle", "torch"), ("chainrule", "chainrule")):
        assert reports[name]["torch"] == torch_name
        assert reports[name]["cases"] == cases
    for name, torch_name in (("own", "chainrule"), ("check", "torch")):
        assert reports[name]["torch"] == torch_name
        assert reports[name]["cases"] == own
    assert reports["oracle"]["errors"] == {}
    assert reports["check"]["errors"] == {}


def check_case(expected: dict, got: dict, case: str, loose: bool) -> None:
    """``case`` ran in ``got`` and put ``expected``'s keys with its values (gradients at
    the scale of the case's largest gradient)."""
    assert case not in got["errors"], got["errors"].get(case)
    keys = expected["keys"][case]
    assert keys, case
    assert got["keys"][case] == keys
    grads = [k for k in keys if "/grad/" in k]
    scale = max((float(np.abs(expected["results"][k]).max()) for k in grads), default=1.0)
    for key in keys:
        want, have = expected["results"][key], got["results"][key]
        if "/grad/" in key and want.dtype.kind == "f":
            have, want = have / max(scale, 1.0), want / max(scale, 1.0)
        compare(key, have, want, loose)
