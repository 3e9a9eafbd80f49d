"""The ``chainrule`` command (``demo``, ``run``, ``--version``) and the ``torch`` import hook.

Scripts under ``chainrule run`` are written for PyTorch; where it matters, the same
script is also run with the real PyTorch (the oracle) and the outputs compared.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import chainrule
from chainrule import _import_hook
from chainrule.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MISSING_PRUNING = (
    "chainrule: chainrule does not implement torch.ao.pruning yet "
    "(chainrule covers PyTorch's autograd core; see README.md)"
)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m chainrule ARGS`` in a fresh interpreter."""
    return run_python("-m", "chainrule", *args)


def run_python(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a fresh interpreter, from the repository root."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def write_script(tmp_path: Path, source: str, name: str = "script.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


# ---------------------------------------------------------------- demo


def test_demo_prints_the_check_and_exits_0() -> None:
    proc = run_cli("demo")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    c = int(re.fullmatch(r"c = (\d+)", lines[0]).group(1))
    assert lines[1].startswith("x.grad = tensor([")
    assert lines[2] == f"x.grad == gradients * 2**{c + 1} = gradients * {2 ** (c + 1)}: True"


@pytest.mark.parametrize("seed", [0, 1, 7, 123])
def test_demo_with_seed(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].endswith(": True")


def test_demo_seed_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "5"])
    first = capsys.readouterr().out
    main(["demo", "--seed", "5"])
    assert capsys.readouterr().out == first


def test_demo_explain_shows_the_programs_own_lines_and_names() -> None:
    """``demo --explain`` attributes each step to the demo program's source line and names
    its variables (x, y), as ``chainrule explain examples/seed.py`` does; not to
    ``sys.exit(main())`` and ``leaf1``."""
    demo = run_cli("demo", "--explain", "--seed", "3")
    script = run_cli("explain", "examples/seed.py")
    assert demo.returncode == 0 and script.returncode == 0, demo.stderr + script.stderr
    assert "each undoing `y = y * 2` (line " in demo.stdout
    assert "undoes `y = x * 2` (line " in demo.stdout
    assert "into x.grad" in demo.stdout and "dy/dx" in demo.stdout
    assert "leaf1" not in demo.stdout and "main()" not in demo.stdout
    for text in ("each undoing `y = y * 2`", "undoes `y = x * 2`", "into x.grad"):
        assert text in script.stdout


# ---------------------------------------------------------------- run: the examples


def test_run_seed_example() -> None:
    proc = run_cli("run", "examples/seed.py")
    assert proc.returncode == 0, proc.stderr
    c_line, grad_line = proc.stdout.splitlines()
    assert int(c_line) >= 0
    assert re.fullmatch(r"tensor\(\[.+, .+, .+\]\)", grad_line)


GRADIENT_IDENTITY = """\
    import sys

    import torch
    from torch.autograd import Variable

    torch.manual_seed(int(sys.argv[1]))
    x = torch.randn(3)
    x = Variable(x, requires_grad=True)
    y = x * 2
    c = 0
    while y.data.norm() < 1000:
        y = y * 2
        c += 1
    gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
    y.backward(gradients)
    print(bool((x.grad == gradients * 2 ** (c + 1)).all()))
    print(x.grad.dtype)
    print(x.grad.shape)
"""
GRADIENT_IDENTITY_OUTPUT = "True\ntorch.float32\ntorch.Size([3])\n"


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42, 2024])
def test_run_seed_program_gradient_is_exact(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(tmp_path, GRADIENT_IDENTITY)
    assert main(["run", str(script), str(seed)]) == 0
    assert capsys.readouterr().out == GRADIENT_IDENTITY_OUTPUT


def test_gradient_identity_script_holds_in_torch(tmp_path: Path) -> None:
    script = write_script(tmp_path, GRADIENT_IDENTITY)
    proc = run_python(str(script), "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == GRADIENT_IDENTITY_OUTPUT


def test_run_scalar_example_prints_what_torch_prints() -> None:
    expected = run_python(str(EXAMPLES / "scalar.py"))
    assert expected.returncode == 0, expected.stderr
    got = run_cli("run", "examples/scalar.py")
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout
    assert "grad_fn=<MeanBackward0>" in got.stdout


def _losses(out: str) -> list[float]:
    return [float(m) for m in re.findall(r"loss (\d+\.\d+)", out)]


def test_run_tiny_net_loss_decreases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "tiny_net.py")]) == 0
    losses = _losses(capsys.readouterr().out)
    assert len(losses) >= 3
    assert losses[-1] < losses[0] / 2


def test_tiny_net_loss_decreases_in_torch() -> None:
    proc = run_python(str(EXAMPLES / "tiny_net.py"))
    assert proc.returncode == 0, proc.stderr
    losses = _losses(proc.stdout)
    assert len(losses) >= 3
    assert losses[-1] < losses[0] / 2


# ---------------------------------------------------------------- run: as python SCRIPT ARGS


def test_run_sets_argv_path_and_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = write_script(
        tmp_path,
        """\
        import sys

        import torch

        print(sys.argv)
        print(sys.path[0])
        print(__name__, __file__)
        print(sys.modules["__main__"].__dict__ is globals())
        print(sys.modules["torch"] is torch, torch.__name__, torch.__spec__.name)
        """,
    )
    argv_before, path_before = sys.argv[:], sys.path[:]
    assert main(["run", str(script), "a b", "--flag", "-x", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        repr([str(script), "a b", "--flag", "-x", "3"]),
        str(tmp_path),
        f"__main__ {script}",
        "True",
        "True torch chainrule",
    ]
    assert sys.argv == argv_before and sys.path == path_before


def test_run_passes_argv_in_a_subprocess(tmp_path: Path) -> None:
    script = write_script(tmp_path, "import sys\nprint(sys.argv[1:])\n")
    proc = run_cli("run", str(script), "--help", "1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "['--help', '1']\n"


def test_run_script_error_gives_a_traceback_and_exit_1(tmp_path: Path) -> None:
    script = write_script(
        tmp_path,
        """\
        def f():
            raise ValueError("boom")

        f()
        """,
    )
    proc = run_cli("run", str(script))
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert f'File "{script}", line 4, in <module>' in proc.stderr
    assert "cli.py" not in proc.stderr  # the runner's own frames are hidden
    assert proc.stderr.endswith("ValueError: boom\n")
    assert "chainrule:" not in proc.stderr


@pytest.mark.parametrize(("code", "status"), [("", 0), ("3", 3), ("None", 0)])
def test_run_keeps_the_scripts_exit_status(tmp_path: Path, code: str, status: int) -> None:
    script = write_script(tmp_path, f"import sys\nsys.exit({code})\n")
    assert main(["run", str(script)]) == status


def test_run_missing_script_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "nope.py")]) == 2
    assert "can't open file" in capsys.readouterr().err


# ---------------------------------------------------------------- run: features chainrule lacks


def test_run_missing_submodule(tmp_path: Path) -> None:
    script = write_script(tmp_path, "import torch\nimport torch.ao.pruning\n")
    proc = run_cli("run", str(script))
    assert proc.returncode == 1
    assert "Traceback (most recent call last):" in proc.stderr
    assert proc.stderr.splitlines()[-1] == MISSING_PRUNING


def test_run_from_torch_import_missing_submodule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(tmp_path, "from torch.ao import pruning\n")
    assert main(["run", str(script)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == MISSING_PRUNING


def test_run_missing_function(tmp_path: Path) -> None:
    script = write_script(tmp_path, "import torch\n\ntorch.some_missing_function()\n")
    proc = run_cli("run", str(script))
    assert proc.returncode == 1
    assert "Traceback (most recent call last):" in proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("chainrule: chainrule does not implement torch.some_missing_function")


def test_run_missing_feature_behind_another_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(
        tmp_path,
        """\
        import torch

        try:
            torch.some_missing_function()
        except AttributeError as exc:
            raise RuntimeError("setup failed") from exc
        """,
    )
    assert main(["run", str(script)]) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: setup failed" in err
    assert err.splitlines()[-1].startswith("chainrule: chainrule does not implement torch.some_")


# ---------------------------------------------------------------- the import hook


def test_hook_resolves_torch_to_chainrule() -> None:
    real_torch = sys.modules.get("torch")  # conftest imported the real PyTorch
    with _import_hook.installed():
        assert _import_hook.is_installed()
        torch = importlib.import_module("torch")
        assert torch is chainrule
        assert sys.modules["torch"] is chainrule
        assert importlib.import_module("torch.autograd") is chainrule.autograd
        assert importlib.import_module("torch.nn.functional") is chainrule.nn.functional
        namespace: dict[str, object] = {}
        exec("from torch.autograd import Variable\nfrom torch import nn", namespace)
        assert namespace["Variable"] is chainrule.autograd.Variable
        assert namespace["nn"] is chainrule.nn
        # chainrule's modules keep their own identity
        assert chainrule.__spec__.name == "chainrule"
        assert chainrule.nn.functional.__name__ == "chainrule.nn.functional"
    assert not _import_hook.is_installed()
    assert sys.modules.get("torch") is real_torch
    assert not any(
        getattr(module, "__name__", "").startswith("chainrule")
        for name, module in sys.modules.items()
        if name == "torch" or name.startswith("torch.")
    )


def test_hook_resolves_torchvision_to_chainrule_vision() -> None:
    import chainrule.vision

    real = {
        n: m for n, m in sys.modules.items() if n == "torchvision" or n.startswith("torchvision.")
    }
    with _import_hook.installed():
        assert importlib.import_module("torchvision") is chainrule.vision
        ops = importlib.import_module("torchvision.ops")
        assert ops.__name__ == "chainrule.vision.ops"
        namespace: dict[str, object] = {}
        exec(
            "import torchvision\nfrom torchvision import ops\nversion = torchvision.__version__",
            namespace,
        )
        assert namespace["ops"] is ops and namespace["version"] == "0.28.0"
        with pytest.raises(
            ModuleNotFoundError, match=r"chainrule does not implement torchvision\.prototype"
        ) as e:
            importlib.import_module("torchvision.prototype")
        assert isinstance(e.value, _import_hook.ModuleNotInChainrule)
    after = {
        n: m for n, m in sys.modules.items() if n == "torchvision" or n.startswith("torchvision.")
    }
    assert after == real  # a real torchvision imported before is put back


def test_hook_resolves_torchaudio_to_chainrule_audio() -> None:
    import chainrule.audio

    real = {n: m for n, m in sys.modules.items() if n.partition(".")[0] == "torchaudio"}
    with _import_hook.installed():
        assert importlib.import_module("torchaudio") is chainrule.audio
        functional = importlib.import_module("torchaudio.functional")
        assert functional.__name__ == "chainrule.audio.functional"
        namespace: dict[str, object] = {}
        exec(
            "import torchaudio\nimport torchaudio.transforms as T\n"
            "version = torchaudio.__version__",
            namespace,
        )
        assert namespace["T"] is chainrule.audio.transforms
        assert namespace["version"] == "2.11.0"
        with pytest.raises(
            ModuleNotFoundError, match=r"chainrule does not implement torchaudio\.prototype"
        ):
            importlib.import_module("torchaudio.prototype")
    after = {n: m for n, m in sys.modules.items() if n.partition(".")[0] == "torchaudio"}
    assert after == real  # a real torchaudio imported before is put back


def test_hook_keeps_functions_named_as_their_modules() -> None:
    # `import torch.autograd.gradcheck` must not replace the function autograd.gradcheck by
    # its module (as in PyTorch, where the module was imported first)
    with _import_hook.installed():
        namespace: dict[str, object] = {}
        exec(
            "import torch\nimport torch.autograd.gradcheck\nimport torch.autograd.variable\n"
            "import torch.nn.parallel.data_parallel",
            namespace,
        )
        torch = namespace["torch"]
        assert torch is chainrule
        assert callable(torch.autograd.gradcheck) and callable(torch.autograd.variable)
        assert callable(torch.nn.parallel.data_parallel)
    assert callable(chainrule.autograd.gradcheck)


def test_hook_loads_a_lazily_loaded_module_once(tmp_path: Path) -> None:
    # `import torch.distributions.kl` as a program's first import of torch.distributions
    # (chainrule loads distributions lazily) binds chainrule.distributions.kl itself: not a
    # second copy of it, whose registry (register_kl) the package's kl_divergence never sees
    script = write_script(
        tmp_path,
        """\
        import sys
        import torch.distributions.kl as kl
        import torch

        assert kl is sys.modules["chainrule.distributions.kl"] is torch.distributions.kl
        assert sys.modules["torch.distributions.kl"] is kl
        assert torch.distributions.kl_divergence is kl.kl_divergence
        print("once")
        """,
    )
    proc = run_cli("run", str(script))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "once\n"


@pytest.mark.parametrize(
    "name",
    ["torch.ao.pruning", "torch.ao.quantization.quantize_fx", "torch.utils.mobile_optimizer"],
)
def test_hook_missing_submodule(name: str) -> None:
    with _import_hook.installed():
        with pytest.raises(ModuleNotFoundError, match=r"chainrule does not implement torch\.") as e:
            importlib.import_module(name)
    assert isinstance(e.value, _import_hook.ModuleNotInChainrule)
    assert "see README.md" in str(e.value)


def test_hook_leaves_other_modules_alone() -> None:
    with _import_hook.installed():
        assert importlib.import_module("json").__name__ == "json"
        with pytest.raises(ModuleNotFoundError) as e:
            importlib.import_module("torchvision_does_not_exist")
        assert not isinstance(e.value, _import_hook.ModuleNotInChainrule)


def test_hook_install_is_idempotent_and_nests() -> None:
    real_torch = sys.modules.get("torch")
    with _import_hook.installed():
        _import_hook.install()
        with _import_hook.installed():
            assert importlib.import_module("torch") is chainrule
        assert _import_hook.is_installed()  # the inner block did not install it
        assert importlib.import_module("torch") is chainrule
    assert sys.modules.get("torch") is real_torch
    _import_hook.uninstall()  # uninstalling when not installed is a no-op


def test_no_leak_into_a_later_real_torch_import() -> None:
    code = textwrap.dedent(
        """\
        import sys

        import chainrule
        from chainrule import _import_hook

        _import_hook.install()
        import torch
        import torch.nn.functional

        assert torch is chainrule and sys.modules["torch"] is chainrule
        _import_hook.uninstall()
        assert not any(n == "torch" or n.startswith("torch.") for n in sys.modules)
        assert not any(type(f).__name__ == "_TorchFinder" for f in sys.meta_path)

        import torch
        import torch.nn.functional

        assert torch is not chainrule and torch.__name__ == "torch"
        assert torch.nn.functional.__name__ == "torch.nn.functional"
        print(torch.__version__, hasattr(torch, "_C"))
        """
    )
    proc = run_python("-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("2.")
    assert proc.stdout.strip().endswith("True")


# ---------------------------------------------------------------- --version and usage


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"chainrule {chainrule._RELEASE}"


def test_version_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"chainrule {chainrule._RELEASE}"


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "demo" in capsys.readouterr().err


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.skipif(os.name == "nt", reason="console-script layout differs on Windows")
def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "chainrule"
    found = str(script) if script.exists() else shutil.which("chainrule")
    if found is None:
        pytest.fail("the `chainrule` console script is missing: reinstall chainrule")
    proc = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("chainrule ")


SPAWNING = """
import torch
import torch.multiprocessing as mp


def work(i, q):
    q.put((i, torch.__spec__.name, float(torch.ones(2).sum() * i)))


if __name__ == "__main__":
    q = mp.get_context("spawn").Queue()
    mp.spawn(work, args=(q,), nprocs=2)
    print(sorted(q.get() for _ in range(2)))
"""


def test_run_processes_started_by_spawn_get_chainrule_too(tmp_path: Path) -> None:
    # a spawned child re-imports the script as __mp_main__: its `import torch` is chainrule
    # there as well (the hook is installed before the script runs in the child)
    script = tmp_path / "spawning.py"
    script.write_text(SPAWNING)
    proc = run_cli("run", str(script))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[(0, 'chainrule', 0.0), (1, 'chainrule', 2.0)]"
