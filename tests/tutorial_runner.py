"""A fork server for the tutorial tests: one process per library imports it once (PyTorch
with torchvision and torchaudio, or chainrule), then runs each script in a child forked
from that state, as ``python -W default script`` (or ``chainrule run script``) would, with
its own stdout, stderr and exit status. The scripts so skip the seconds of imports each
fresh interpreter spends, and still start from a clean, just-imported process.

The server reads one request a line (the script's path and two files for its output) and
answers the child's exit status; :class:`Server` is the test's side of it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Imports done once, before any fork. PyPI's torchvision and torchaudio are built against
# PyTorch's CUDA build: with the CPU build their compiled libraries do not load, so their
# fake-kernel registrations are skipped and torchaudio's library is not looked for (as in
# tests/vision/conftest.py and tests/audio/conftest.py); the rest of them is the oracle.
TORCH_IMPORTS = """
import pathlib, torch, torch.library as library
register_fake = library.register_fake
library.register_fake = lambda *args, **kwargs: (lambda fn: fn)
import torchvision
library.register_fake = register_fake
glob = pathlib.Path.glob
pathlib.Path.glob = lambda self, pattern, *args, **kwargs: (
    iter(()) if 'torchaudio' in str(self) and str(self).endswith('lib')
    else glob(self, pattern, *args, **kwargs))
import torchaudio
pathlib.Path.glob = glob
"""

SERVER = """
import os, runpy, sys, traceback
KIND = sys.argv[1]
if KIND == "torch":
    exec(compile(IMPORTS, "<imports>", "exec"))
else:
    from chainrule import cli

def run(script):
    if KIND != "torch":
        return cli.run_script(script)
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0

for line in sys.stdin:
    script, out, err = line.rstrip("\\n").split("\\t")
    pid = os.fork()
    if pid == 0:
        fd_out = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        fd_err = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        sys.stdout.flush(); sys.stderr.flush()
        os.dup2(fd_out, 1); os.dup2(fd_err, 2)
        code = 1
        try:
            code = run(script)
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


@dataclass
class Completed:
    """What one script did: its exit status and its output."""

    returncode: int
    stdout: str
    stderr: str


class Server:
    """A fork server of one library (``"torch"`` or ``"chainrule"``), run from ``root``
    with ``env``; :meth:`run` runs a script in a fresh child of it."""

    def __init__(self, kind: str, root: Path, env: dict, scratch: Path) -> None:
        source = SERVER.replace("exec(compile(IMPORTS", "exec(compile(" + repr(TORCH_IMPORTS))
        self._process = subprocess.Popen(
            [sys.executable, "-W", "default", "-c", source, kind],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,  # (a group of its own: a hung child is killed with it)
        )
        self._scratch = scratch
        self._count = 0

    def run(self, script: Path, timeout: float = 600) -> Completed:
        self._count += 1
        out = self._scratch / f"{script.stem}.{self._count}.out"
        err = self._scratch / f"{script.stem}.{self._count}.err"
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(f"{script}\t{out}\t{err}\n")
        self._process.stdin.flush()
        if not select.select([self._process.stdout], [], [], timeout)[0]:
            os.killpg(self._process.pid, signal.SIGKILL)
            raise TimeoutError(f"{script} ran past {timeout} s")
        answer = self._process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the fork server ended while running {script}")
        return Completed(int(answer), out.read_text(), err.read_text())

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=60)
        if self._process.stdout is not None:
            self._process.stdout.close()


def environment() -> dict:
    """The scripts' environment: one thread, a fixed hash seed, and no strict warnings of
    the test run (the tutorials are PyTorch's, warnings and all; the warnings each library
    prints are compared instead)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("PYTHONWARNINGS", None)
    return env
