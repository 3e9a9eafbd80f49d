"""CUDA without a GPU: ``import chainrule`` never imports CuPy, and the tests of 'cuda'
(tests/gpu/) pass on the CPU stand-in (``_standin.py``: NumPy arrays in a type that
refuses to be taken for NumPy's, so an op that bypasses the backend fails there). They run
in a subprocess: the stand-in is chosen when 'cuda' is first loaded, once per process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env(**extra: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def test_import_chainrule_does_not_import_cupy():
    code = (
        "import sys, chainrule, chainrule.nn, chainrule.optim\n"
        "x = chainrule.ones(2) * 2\n"
        "assert not any(m == 'cupy' or m.startswith('cupy.') for m in sys.modules), 'cupy'\n"
        "assert 'chainrule._standin' not in sys.modules\n"
        "assert chainrule._backend.xp is __import__('numpy')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_env(), timeout=120)


def test_without_cupy_cuda_is_unavailable_and_cpu_code_is_untouched():
    code = (
        "import sys; sys.modules['cupy'] = None\n"  # an import of cupy fails
        "import chainrule\n"
        "assert not chainrule.cuda.is_available() and chainrule.cuda.device_count() == 0\n"
        "import chainrule.ops.arithmetic as a\n"
        "assert a.xp is __import__('numpy')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_env(), timeout=120)


def _pytest_on_the_stand_in(*args: str, timeout: int, **env: str) -> None:
    """Run pytest with 'cuda' on the CPU stand-in, in one process; every test must pass."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
        env=_env(CHAINRULE_CUDA="standin", **env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


def test_the_cuda_tests_pass_on_the_cpu_stand_in():
    _pytest_on_the_stand_in(str(ROOT / "tests" / "gpu"), timeout=600)


# The op families whose oracle tests all pass on the stand-in, run on 'cuda' in CI: values,
# gradients, double backward and tangents of each case compared with PyTorch on the CPU.
# One dtype per case (the float64 one) keeps this within a minute; ``make test-standin``
# runs every family and every dtype.
STANDIN_FAMILIES = [
    "test_unary.py",
    "test_binary.py",
    "test_arithmetic.py",
    "test_logical.py",
    "test_special.py",
    "test_special_entr.py",
    "test_addcmul.py",
    "test_indexing.py",
    "test_properties.py",
    "linalg/test_norms.py",
    "linalg/test_matrices.py",
]
ONE_DTYPE = "cuda and not f32 and not f16 and not bf16 and not i32 and not i64 and not int"


def test_op_oracle_cases_pass_on_the_cpu_stand_in():
    families = [str(ROOT / "tests" / "ops" / f) for f in STANDIN_FAMILIES]
    _pytest_on_the_stand_in("-k", ONE_DTYPE, *families, timeout=900)


def _lines(name: str) -> list[str]:
    text = (ROOT / "tests" / name).read_text()
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_every_row_of_the_name_table_runs_on_the_cpu_stand_in(tmp_path):
    """Every op dispatches through the backend: for each row of api/table.py one oracle
    case (tests/cuda_sweep.txt) runs on 'cuda' (values, gradients and tangents compared
    with PyTorch on the CPU), and cuda_coverage.py records the rows that ran there; the
    rows no case reaches yet are listed in tests/cuda_unproven.txt."""
    from cuda_coverage import rows

    covered = tmp_path / "rows.txt"
    _pytest_on_the_stand_in(
        "-p",
        "cuda_coverage",
        *_lines("cuda_sweep.txt"),
        timeout=600,
        CUDA_DEFAULT_DEVICE="1",
        CUDA_COVERAGE=str(covered),
    )
    ran = {line.split(" ", 1)[0] for line in covered.read_text().splitlines()}
    every = set(rows().values())
    unproven = set(_lines("cuda_unproven.txt"))
    assert unproven <= every, sorted(unproven - every)  # (no stale names)
    assert not every - unproven - ran, sorted(every - unproven - ran)
