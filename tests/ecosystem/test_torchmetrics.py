"""torchmetrics 1.9 runs unchanged under ``chainrule run`` and gives what it gives on the
real PyTorch: every case of tm_cases.py (classification, regression, aggregation,
functional API, MetricCollection, metrics inside Modules, wrappers, image, text,
retrieval and clustering metrics) is computed on both and compared array by array."""

from __future__ import annotations

import fcntl
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# (found, not imported: importing torchmetrics here would bind it to the real torch)
if importlib.util.find_spec("torchmetrics") is None or importlib.util.find_spec("torch") is None:
    pytest.skip("needs torchmetrics and the real torch", allow_module_level=True)

HERE = Path(__file__).resolve().parent
CASES = HERE / "tm_cases.py"
GROUPS = [
    "cls.binary.",
    "cls.multiclass.",
    "cls.multilabel.",
    "cls.",
    "reg.",
    "agg.",
    "coll.",
    "mod.",
    "ext.",
]


def _start(args: list[str], out: Path) -> subprocess.Popen:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    return subprocess.Popen(
        [*args, str(CASES), str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """The cases' results on the real PyTorch and under chainrule (run side by side)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # (the folder the session's workers share)
        base = base.parent
    tmp = base / "tm_ecosystem"
    tmp.mkdir(exist_ok=True)
    names = ("oracle", "chainrule")
    with open(tmp / "lock", "w") as lock:  # (pytest-xdist workers: the first one runs them)
        fcntl.flock(lock, fcntl.LOCK_EX)
        status = tmp / "status.txt"
        if not status.exists():
            runs = {
                "oracle": _start([sys.executable], tmp / "oracle.npz"),
                "chainrule": _start([sys.executable, "-m", "chainrule", "run"],
                                    tmp / "chainrule.npz"),
            }  # fmt: skip
            failed = []
            for name, proc in runs.items():
                log, _ = proc.communicate(timeout=300)
                if proc.returncode:
                    failed.append(f"{name} run failed:\n{log[-4000:]}")
            status.write_text("\n".join(failed) or "ok")
    assert status.read_text() == "ok", status.read_text()
    return tuple(dict(np.load(tmp / f"{name}.npz")) for name in names)  # type: ignore[return-value]


def _group(keys: set[str], prefix: str) -> list[str]:
    """The keys of ``prefix``'s group (``cls.`` holds the classification keys of no task)."""
    inner = [g for g in GROUPS if g != prefix and g.startswith(prefix)]
    return sorted(k for k in keys if k.startswith(prefix) and not any(map(k.startswith, inner)))


def test_same_cases(results: tuple[dict, dict]) -> None:
    oracle, ours = results
    assert str(oracle.pop("torch")) == "torch"
    assert str(ours.pop("torch")) == "chainrule"  # (the run really was chainrule's)
    assert sorted(ours) == sorted(oracle)
    assert len(oracle) > 300


@pytest.mark.parametrize("prefix", GROUPS)
def test_values_equal(results: tuple[dict, dict], prefix: str) -> None:
    oracle, ours = results
    keys = _group(set(oracle) - {"torch"}, prefix)
    assert keys
    for key in keys:
        want, got = oracle[key], ours[key]
        assert got.shape == want.shape, key
        assert got.dtype == want.dtype, key
        if want.dtype.kind in "USb" or want.dtype.kind in "iu":
            np.testing.assert_array_equal(got, want, err_msg=key)
        else:
            scale = max(1.0, float(np.nanmax(np.abs(want))) if want.size else 1.0)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * scale, err_msg=key)
