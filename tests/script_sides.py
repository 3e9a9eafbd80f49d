"""Run one script twice, as plain Python with the real PyTorch and under ``chainrule run``,
for tests whose scenario needs its own processes (multiprocessing, fork and spawn)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def both_outputs(script: Path, *args: str) -> tuple[str, str]:
    """(PyTorch's stdout, chainrule's stdout) of ``script args``; each run must succeed."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    outs = []
    for prefix in ([], ["-m", "chainrule", "run"]):
        done = subprocess.run(
            [sys.executable, *prefix, str(script), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outs.append(done.stdout)
    return outs[0], outs[1]
