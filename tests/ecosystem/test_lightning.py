"""Lightning 2.6 runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: pl_cases.py trains tiny models with ``L.Trainer`` (fit/validate/test/predict,
torchmetrics logged with ``self.log``, ModelCheckpoint, EarlyStopping, LR schedulers and
monitors, gradient clipping, accumulation, manual optimization, float64, a datamodule,
a seeded fit on a shuffled loader (PyTorch's batch orders),
CSV and TensorBoard logs, stochastic weight averaging, the LR finder, DDP on two
processes) and with ``L.Fabric`` on both; each side then loads the checkpoints the other
wrote (``load_from_checkpoint`` and resuming ``fit``). The torch internals Lightning
reaches for are checked against the real torch in-process."""

from __future__ import annotations

import fcntl
import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("lightning") is None or importlib.util.find_spec("torch") is None:
    pytest.skip("needs lightning and the real torch", allow_module_level=True)

import torch  # the real PyTorch: the oracle

import chainrule

HERE = Path(__file__).resolve().parent
CASES = HERE / "pl_cases.py"
PYTHON = [sys.executable]
CHAINRULE = [sys.executable, "-m", "chainrule", "run"]


def _run_both(*jobs: tuple[list[str], list[str]]) -> None:
    """Run the jobs side by side; each must succeed."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    procs = [
        subprocess.Popen(
            [*cmd, str(CASES), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for cmd, args in jobs
    ]
    for proc in procs:
        log, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{proc.args} failed:\n{log[-4000:]}"


def _shared_folder(factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder of this session that its pytest-xdist workers share."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    (base / name).mkdir(exist_ok=True)
    return base / name


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The results of both sides: ``oracle``/``chainrule`` (fit) and ``oracle_load``/
    ``chainrule_load`` (each side loading the checkpoints the other wrote)."""
    tmp = _shared_folder(tmp_path_factory, "pl_ecosystem")
    o, c = tmp / "oracle", tmp / "chainrule"
    with open(tmp / "lock", "w") as lock:  # (pytest-xdist workers: the first one runs them)
        fcntl.flock(lock, fcntl.LOCK_EX)
        status = tmp / "status.txt"
        if not status.exists():
            try:
                _run_both((PYTHON, ["fit", str(o)]), (CHAINRULE, ["fit", str(c)]))
                _run_both(
                    (PYTHON, ["load", str(tmp / "oracle_load"), str(c)]),
                    (CHAINRULE, ["load", str(tmp / "chainrule_load"), str(o)]),
                )
                status.write_text("ok")
            except AssertionError as exc:
                status.write_text(str(exc))
    assert status.read_text() == "ok", status.read_text()
    out = {
        "oracle": torch.load(o / "results.pt", weights_only=False),
        "chainrule": torch.load(c / "results.pt", weights_only=False),
        "oracle_load": torch.load(tmp / "oracle_load" / "loaded.pt", weights_only=False),
        "chainrule_load": torch.load(tmp / "chainrule_load" / "loaded.pt", weights_only=False),
        "dirs": {"oracle": o, "chainrule": c},
    }
    return out


def _same(want: object, got: object, key: str) -> None:
    if isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor), key
        assert got.shape == want.shape and got.dtype == want.dtype, key
        if want.is_floating_point():
            scale = max(1.0, want.abs().nan_to_num().max().item()) if want.numel() else 1.0
            torch.testing.assert_close(
                got, want, rtol=1e-5, atol=1e-6 * scale, equal_nan=True, msg=key
            )
        else:
            assert torch.equal(got, want), key
    elif isinstance(want, float):
        assert type(got) is float and math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6), key
    else:
        assert type(got) is type(want) and got == want, (key, want, got)


GROUPS = [
    "seed", "fit.", "validate", "test", "predict", "ckpt.", "adam.", "early.", "steps.",
    "manual.", "summary.", "f64.", "f32.", "module.", "swa.", "tb.", "lrfind.", "bf16.",
    "defaults.", "prune.", "compiled.", "loops.", "pl.", "fabric.", "fabric_bf16.",
]  # fmt: skip


def test_ran_on_chainrule(runs: dict) -> None:
    assert runs["oracle"]["torch"] == "torch"
    assert runs["chainrule"]["torch"] == "chainrule"
    assert runs["chainrule_load"]["torch"] == "chainrule"
    assert sorted(runs["chainrule"]) == sorted(runs["oracle"])
    grouped = {k for k in runs["oracle"] if any(k.startswith(g) for g in GROUPS)}
    assert grouped == set(runs["oracle"]) - {"torch"}


@pytest.mark.parametrize("prefix", GROUPS)
def test_fit_equal(runs: dict, prefix: str) -> None:
    oracle, ours = runs["oracle"], runs["chainrule"]
    keys = [k for k in oracle if k.startswith(prefix)]
    assert keys
    for key in keys:
        _same(oracle[key], ours[key], key)


def test_fit_results_are_real(runs: dict) -> None:
    """A few facts of the oracle run (the cases test what they claim to)."""
    r = runs["oracle"]
    assert r["fit.global_step"] == 10 and r["adam.global_step"] == 4
    assert r["early.stopped_epoch"] == 2 and r["steps.global_step"] == 7
    assert r["seed.torch_repeats"] is True and runs["chainrule"]["seed.torch_repeats"] is True
    assert r["f64.weights.net.0.weight"].dtype == torch.float64
    assert isinstance(r["lrfind.suggestion"], float)
    assert r["prune.zeros"] > 0 and r["defaults.accelerator"] == "CPUAccelerator"
    assert "val_loss/dataloader_idx_1" in [r[f"tb.tags.{i}"] for i in range(7)]
    assert "lr-SGD" in [r[f"fit.csv_columns.{i}"] for i in range(12) if f"fit.csv_columns.{i}" in r]


def test_checkpoints_cross_load(runs: dict) -> None:
    """Real Lightning loads chainrule's checkpoints and chainrule loads real Lightning's,
    with the same outcome (weights, hyperparameters, a resumed fit)."""
    oracle, ours = runs["oracle_load"], runs["chainrule_load"]
    assert sorted(ours) == sorted(oracle)
    for key in oracle:
        if key != "torch":
            _same(oracle[key], ours[key], key)
    assert oracle["resume.global_step"] == 15


@pytest.mark.parametrize("name", ["ckpt/last.ckpt", "ckpt/best.ckpt", "f64.ckpt", "fabric.ckpt"])
def test_chainrule_checkpoints_load_weights_only(runs: dict, name: str) -> None:
    """The real torch.load reads chainrule's checkpoints with ``weights_only=True`` and
    finds the tensors the oracle's hold."""
    want = torch.load(runs["dirs"]["oracle"] / name, weights_only=True)
    got = torch.load(runs["dirs"]["chainrule"] / name, weights_only=True)
    sd = "model" if name == "fabric.ckpt" else "state_dict"
    assert sorted(got[sd]) == sorted(want[sd])
    for key in want[sd]:
        _same(want[sd][key], got[sd][key], key)


def test_ddp_two_processes(tmp_path: Path) -> None:
    """``strategy="ddp"`` on two CPU processes: the real Lightning starts the second one
    itself (Gloo); chainrule runs on MPI ranks, launched with ``chainrule launch``. Same
    weights (on every rank), same metrics synced over the ranks, the same differentiable
    collectives (torch.distributed.nn); then Fabric's DDP on the same processes."""
    from chainrule.distributed._launch import mpi_environment

    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    mpi_env = dict(mpi_environment(), OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    jobs = {
        "oracle": ([*PYTHON, str(CASES)], env),
        "chainrule": ([sys.executable, "-m", "chainrule", "launch", "--nproc", "2", str(CASES)],
                      mpi_env),
    }  # fmt: skip

    def start(name: str) -> subprocess.Popen:
        cmd, job_env = jobs[name]
        return subprocess.Popen(
            [*cmd, "ddp", str(tmp_path / name)],
            env=job_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    procs = {name: start(name) for name in jobs}
    for name, proc in procs.items():
        log, _ = proc.communicate(timeout=300)
        for _ in range(2 if name == "oracle" else 0):
            if not proc.returncode:
                break
            # (the real Lightning picks a free TCP port for Gloo, then its second process
            # connects to it: on a busy machine another job (an MPI job's TCP transport)
            # can take the port between)
            log, _ = (proc := start(name)).communicate(timeout=300)
        assert proc.returncode == 0, f"{name} failed:\n{log[-4000:]}"
    want = torch.load(tmp_path / "oracle" / "ddp.pt", weights_only=False)
    got = torch.load(tmp_path / "chainrule" / "ddp.pt", weights_only=False)
    assert want.pop("torch") == "torch" and got.pop("torch") == "chainrule"
    assert sorted(got) == sorted(want)
    for key in want:
        _same(want[key], got[key], key)
    assert got["ddp.world_size"] == 2 and got["ddp.rank_weights_equal"] is True


# the torch internals Lightning and torchmetrics reach for, in-process against the real torch


def test_reduce_op_types() -> None:
    dist = chainrule.distributed
    assert isinstance(dist.ReduceOp.SUM, dist.ReduceOp.RedOpType)
    assert isinstance(torch.distributed.ReduceOp.SUM, torch.distributed.ReduceOp.RedOpType)
    from chainrule.distributed import constants

    assert constants.default_pg_timeout == torch.distributed.constants.default_pg_timeout
    assert constants.default_pg_nccl_timeout is None
    real, ours = torch.distributed.Backend, dist.Backend
    for name in ("gloo", "GLOO", "Mpi", "nccl", "undefined", "custom"):
        assert ours(name) == real(name) and type(ours(name)) is type(real(name))
    for attr in ("backend_list", "backend_capability", "GLOO"):
        assert getattr(ours, attr) == getattr(real, attr)
    # (importing torch's fake process group, as other tests in this process may, maps
    # "hpu" to it in the real torch's table)
    assert ours.default_device_backend_map == {
        k: v for k, v in real.default_device_backend_map.items() if k != "hpu"
    }
    with pytest.raises(ValueError, match="must be string-ish"):
        ours(3)
    from chainrule.distributed.algorithms.ddp_comm_hooks import post_localSGD_hook

    with pytest.raises(NotImplementedError):
        post_localSGD_hook.PostLocalSGDState(None, None, 1)
    os.environ.pop("TORCHELASTIC_RUN_ID", None)
    assert dist.is_torchelastic_launched() is torch.distributed.is_torchelastic_launched()


def test_parse_to_like_torch() -> None:
    cases = [
        ((("cpu",), {}), "cpu", None, False),
        (((torch.float64,), {}), None, "float64", False),
        ((("cpu", torch.float16), {"non_blocking": True}), "cpu", "float16", True),
    ]
    for (args, kwargs), dev, dt, nb in cases:
        want = torch._C._nn._parse_to(*args, **kwargs)
        ours_args = tuple(getattr(chainrule, str(a).split(".")[1]) if isinstance(a, torch.dtype)
                          else a for a in args)  # fmt: skip
        got = chainrule._C._nn._parse_to(*ours_args, **kwargs)
        assert len(got) == len(want) == 4
        assert (
            (str(got[0]) if got[0] is not None else None)
            == dev
            == (str(want[0]) if want[0] is not None else None)
        )
        assert (str(got[1]).split(".")[1] if got[1] is not None else None) == dt
        assert got[2] is want[2] is nb and got[3] is want[3] is None
    t = chainrule.zeros(2, dtype=chainrule.float16)
    assert chainrule._C._nn._parse_to(t)[:2] == (chainrule.device("cpu"), chainrule.float16)


def test_file_reader_reads_torch_archives(tmp_path: Path) -> None:
    path = tmp_path / "x.pt"
    torch.save({"a": torch.arange(3.0)}, path)
    want, got = torch.PyTorchFileReader(str(path)), chainrule.PyTorchFileReader(str(path))
    assert chainrule._C.PyTorchFileReader is chainrule.PyTorchFileReader
    assert sorted(got.get_all_records()) == sorted(want.get_all_records())
    for record in want.get_all_records():
        assert got.get_record(record) == want.get_record(record)
        assert got.get_record_size(record) == want.get_record_size(record)
    assert got.serialization_id() == want.serialization_id()
    assert got.has_record("data.pkl") and not got.has_record("nope")
    with open(path, "rb") as f:
        assert chainrule.PyTorchFileReader(f).get_record("data/0") == want.get_record("data/0")
    with pytest.raises(RuntimeError, match="failed locating file nope"):
        got.get_record("nope")
    with pytest.raises(RuntimeError, match="open file failed"):
        chainrule.PyTorchFileReader(str(tmp_path / "absent.pt"))


def test_tensor_device_flags_like_torch() -> None:
    names = ["is_cpu", "is_cuda", "is_mps", "is_xpu", "is_ipu", "is_mtia", "is_vulkan",
             "is_xla", "is_mkldnn", "is_quantized", "is_meta", "is_maia"]  # fmt: skip
    a, b = torch.zeros(2), chainrule.zeros(2)
    for name in names:
        assert getattr(b, name) is getattr(a, name), name
    assert chainrule.empty(2, device="meta").is_cpu is torch.empty(2, device="meta").is_cpu


def test_small_internals() -> None:
    assert type(chainrule.Tensor) is chainrule._C._TensorMeta
    assert chainrule.profiler.kineto_available() is False  # (no Kineto here)
    model = chainrule.compile(chainrule.nn.Linear(2, 2))
    from chainrule import _dynamo

    assert isinstance(model, _dynamo.OptimizedModule)
    step = model.dynamo_ctx(model._orig_mod.forward)  # (Lightning compiles steps with it)
    x = chainrule.ones(1, 2)
    assert chainrule.equal(step(x), model._orig_mod(x))
    assert _dynamo.is_compiling() is False
    with pytest.raises(RuntimeError, match="no TorchScript runtime"):
        chainrule.ScriptModule()
    assert issubclass(chainrule.ScriptModule, chainrule.ScriptObject)
    if not chainrule.cuda.is_available():
        assert chainrule.cuda.get_rng_state_all() == torch.cuda.get_rng_state_all() == []
        chainrule.cuda.set_rng_state_all([])
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            chainrule.cuda.set_rng_state_all([chainrule.zeros(3, dtype=chainrule.uint8)])


def test_profiler_state_like_torch() -> None:
    """``torch.autograd._profiler_enabled``/``_disable_profiler`` (Lightning's
    PyTorchProfiler stops a profiler left running with them)."""
    for lib in (torch, chainrule):
        assert lib.autograd._profiler_enabled() is False
        prof = lib.profiler.profile()
        prof.__enter__()
        lib.ones(2) + 1
        assert lib.autograd._profiler_enabled() is True
        result = lib.autograd._disable_profiler()
        assert lib.autograd._profiler_enabled() is False
        assert any(e.name() == "aten::add" and e.duration_ns() >= 0 for e in result.events())
        prof.__exit__(None, None, None)
        assert lib.autograd._profiler_enabled() is False
    with pytest.warns(UserWarning, match="no active profiling session"):
        assert len(chainrule.autograd._disable_profiler().events()) == 0


def test_log_api_usage_like_torch(tmp_path: Path) -> None:
    """PyTorch's default API-usage logger: silent, or with PYTORCH_API_USAGE_STDERR set,
    one stderr line per event."""
    script = tmp_path / "usage.py"
    script.write_text(
        "import sys, torch\nprint('-', file=sys.stderr)\n"
        "for e in ('a.b', 'a.b', 'c'):\n    torch._C._log_api_usage_once(e)\n"
    )
    for env in ({}, {"PYTORCH_API_USAGE_STDERR": "1"}):
        logs = [
            subprocess.run(
                [*cmd, str(script)], env=dict(os.environ, **env), capture_output=True,
                text=True, check=True,
            ).stderr.split("-\n", 1)[1]
            for cmd in (PYTHON, CHAINRULE)
        ]  # fmt: skip
        assert logs[0] == logs[1]
        assert logs[0] == ("PYTORCH_API_USAGE a.b\nPYTORCH_API_USAGE c\n" if env else "")
