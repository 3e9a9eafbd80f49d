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


def test_the_cuda_tests_pass_on_the_cpu_stand_in():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            str(ROOT / "tests" / "gpu"),
        ],  # fmt: skip
        env=_env(CHAINRULE_CUDA="standin"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout
