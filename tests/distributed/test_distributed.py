"""chainrule.distributed, DistributedDataParallel and ``chainrule launch`` on real MPI jobs.

One MPI job per process count (2 and 4, oversubscribed where the machine has fewer cores)
runs every check of mp_collectives.py, mp_ddp.py and mp_sync_batchnorm.py on every rank
(mp_worker.py); each rank writes its outcomes to a JSON file that the tests here read. The
checks compare every collective, for every dtype and reduce op, with NumPy, and DDP
training and SyncBatchNorm with one process on the concatenated batches.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chainrule.distributed._launch import mpi_environment, mpirun_command

HERE = Path(__file__).parent
SRC = HERE.parent.parent / "src"
JOB_TIMEOUT = 900  # seconds; each check also ends its job after 60 s (mp_worker.py)


def _env() -> dict:
    env = mpi_environment()
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _launch(nproc: int, *args: str, timeout: float = JOB_TIMEOUT) -> subprocess.CompletedProcess:
    """``chainrule launch --nproc N args`` (its mpirun, run as `make test` would)."""
    return subprocess.run(
        [sys.executable, "-m", "chainrule", "launch", "--nproc", str(nproc), *args],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _run_job_once(nproc: int, base: Path) -> tuple[Path, dict]:
    """Launch the job of ``nproc`` processes unless another pytest-xdist worker of this
    session has (a lock file orders them): its folder and its exit status and output."""
    out = base / f"mpi-np{nproc}"
    with open(base / f"mpi-np{nproc}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "launch.json").exists():
            out.mkdir(exist_ok=True)
            done = _launch(
                nproc, str(HERE / "mp_worker.py"), str(out), "collectives", "ddp", "sync_batchnorm"
            )
            launch = {"rc": done.returncode, "out": done.stdout, "err": done.stderr[-5000:]}
            (out / "launch.json").write_text(json.dumps(launch))
    return out, json.loads((out / "launch.json").read_text())


@pytest.fixture(scope="module", params=[2, 4], ids=["np2", "np4"])
def job(request, tmp_path_factory) -> dict:
    """The outcomes of every check on every rank of one MPI job of ``request.param``."""
    nproc = request.param
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the folder the session's workers share
        base = base.parent
    out, done = _run_job_once(nproc, base)
    ranks = []
    for r in range(nproc):
        path = out / f"rank{r}.json"
        assert path.exists(), f"rank {r} wrote nothing:\n{done['out']}\n{done['err']}"
        ranks.append(json.loads(path.read_text()))
    assert done["rc"] == 0, done["err"]
    assert all(r["world"] == nproc for r in ranks)
    return {"nproc": nproc, "ranks": ranks}


def _failures(job: dict, prefixes: tuple[str, ...]) -> list[str]:
    bad, seen = [], 0
    for rank, outcome in enumerate(job["ranks"]):
        for name, result in outcome["results"].items():
            if name.startswith(prefixes):
                seen += 1
                if result != "ok":
                    bad.append(f"rank {rank} {name}:\n{result}")
    assert seen, f"no check named {prefixes}"
    return bad


@pytest.mark.parametrize(
    "prefixes",
    [
        ("all_reduce[", "all_reduce_async["),
        ("reduce[",),
        ("reduce_scatter[", "reduce_scatter_tensor["),
        ("moves[",),  # broadcast, all_gather(_into_tensor), gather, scatter, all_to_all, p2p
        ("non_contiguous", "groups", "objects", "errors"),
        ("ddp_training[",),
        ("ddp_buckets", "ddp_broadcast", "ddp_no_sync", "ddp_unused"),
        ("sync_bn[", "sync_bn_ddp", "sync_bn_groups"),
    ],
    ids=[
        "all_reduce",
        "reduce",
        "reduce_scatter",
        "moves",
        "groups_objects_errors",
        "ddp_training",
        "ddp_features",
        "sync_batchnorm",
    ],  # fmt: skip
)
def test_checks_pass_on_every_rank(job, prefixes):
    bad = _failures(job, prefixes)
    assert not bad, "\n".join(bad[:5])


def test_every_dtype_and_op_is_checked(job):
    import mp_collectives as mc

    names = set(job["ranks"][0]["results"])
    for dtype in mc.DTYPES:
        assert f"moves[{dtype}]" in names
        for op in mc.OPS:
            assert f"all_reduce[{dtype},{op}]" in names


FAILING = """\
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
model = DistributedDataParallel(torch.nn.Linear(3, 1))
model(torch.ones(2, 3)).sum().backward()
print(f"rank {dist.get_rank()} stepped", flush=True)
if dist.get_rank() == 1:
    time.sleep(0.5)
    if sys.argv[1] == "raise":
        raise ValueError("rank one gives up")
    sys.exit(3)
dist.barrier()  # rank 0 waits here for a rank that will never come
print("unreachable")
"""


@pytest.mark.parametrize("how", ["raise", "exit"])
def test_a_rank_that_fails_ends_the_job_with_its_error(tmp_path, how):
    script = tmp_path / "fail.py"
    script.write_text(FAILING)
    start = time.monotonic()
    if how == "raise":  # mpirun -n 2 chainrule run script.py, as docs/distributed.md shows
        argv = mpirun_command(2, [sys.executable, "-m", "chainrule", "run", str(script), how])
        done = subprocess.run(argv, env=_env(), capture_output=True, text=True, timeout=120)
    else:
        done = _launch(2, str(script), how, timeout=120)
    elapsed = time.monotonic() - start
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert "rank 0 stepped" in out and "rank 1 stepped" in out, out
    if how == "raise":
        assert "rank 1: Traceback" in out and "ValueError: rank one gives up" in out, out
    else:
        assert done.returncode == 3 and "rank 1: exited with status 3" in out, out
    assert "unreachable" not in out
    assert elapsed < 60, elapsed
