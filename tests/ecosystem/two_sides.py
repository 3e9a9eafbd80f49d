"""The harness of the ecosystem tests that run one cases script on both sides: once with
plain Python (the real PyTorch, the oracle: it also writes the weights the other side
loads) and once under ``chainrule run``. Each run writes ``<stem>_<side>.npz`` (the
results, by key) and ``<stem>_<side>_errors.json`` (the cases run, the keys each case
put, the traceback of each case that failed, and which ``torch`` it imported)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np


def run_side(script: Path, stem: str, side: str, out: Path) -> dict:
    """Run ``script`` for ``side`` ("oracle" or "chainrule"); its report, with the results."""
    prefix = [sys.executable] if side == "oracle" else [sys.executable, "-m", "chainrule", "run"]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [*prefix, str(script), str(out), side],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / f"{stem}_{side}_errors.json").read_text())
    with np.load(out / f"{stem}_{side}.npz") as results:
        report["results"] = dict(results)
    return report


def both_sides(script: Path, stem: str, out: Path) -> tuple[dict, dict]:
    """The oracle's report, then chainrule's (the oracle runs first: it writes the weights)."""
    return run_side(script, stem, "oracle", out), run_side(script, stem, "chainrule", out)


def check_sides(sides: tuple[dict, dict], cases: list[str]) -> None:
    """Each side imported its own torch, ran exactly ``cases``, and the oracle none failed."""
    oracle, chainrule = sides
    assert oracle["torch"] == "torch"
    assert chainrule["torch"] == "chainrule"  # `import torch` gave chainrule
    assert oracle["cases"] == cases
    assert chainrule["cases"] == cases
    assert oracle["errors"] == {}


def compare(name: str, ours: np.ndarray, theirs: np.ndarray, loose: bool) -> None:
    """Same dtype and shape; floats to float32 rounding (scaled by the largest value;
    ``loose`` for results of many optimizer steps), the rest exactly."""
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    if theirs.dtype.kind in "fc":
        scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0.0)))
        atol = (1e-5 if loose else 2e-6) * scale
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=atol, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


def check_case(sides: tuple[dict, dict], case: str, loose: bool) -> None:
    """``case`` ran under chainrule and put the oracle's keys, each with the oracle's value."""
    oracle, chainrule = sides
    assert case not in chainrule["errors"], chainrule["errors"].get(case)
    keys = oracle["keys"][case]
    assert keys, case
    assert chainrule["keys"][case] == keys
    for key in keys:
        compare(key, chainrule["results"][key], oracle["results"][key], loose)


def check_float64(sides: tuple[dict, dict], case: str) -> None:
    """``case``'s float64 results agree far below float32 rounding (``check_case`` holds
    every result to float32's): to 1e-10, relative to each result's largest value."""
    oracle, chainrule = sides
    for key in oracle["keys"][case]:
        theirs, ours = oracle["results"][key], chainrule["results"][key]
        if theirs.dtype == np.float64:
            scale = max(1.0, float(np.abs(theirs).max(initial=0.0)))
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12 * scale, err_msg=key)
