"""Under ``chainrule run`` chainrule's classes carry PyTorch's module paths
(``torch.nn.modules.linear``, ``torch`` for ``Tensor``), so what a library writes of a
class (a config's class path, ``repr(type(m))``, a plain pickle) reads as under PyTorch and
imports chainrule's class back; without the hook they keep chainrule's own paths."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import pickle
    import torch
    import torch.nn as nn
    import torch.utils.data

    def path(cls):
        return f"{cls.__module__}.{cls.__qualname__}"

    classes = [
        torch.Tensor, torch.Size, torch.dtype, torch.device, torch.Generator, nn.Module,
        nn.Linear, nn.Conv2d, nn.LSTM, nn.ReLU, nn.Sequential, nn.Parameter, nn.Embedding,
        nn.TransformerEncoderLayer, nn.CrossEntropyLoss, torch.optim.SGD, torch.optim.Adam,
        torch.optim.lr_scheduler.StepLR, torch.utils.data.DataLoader,
        torch.utils.data.TensorDataset, torch.no_grad, torch.autograd.Function,
    ]
    for cls in classes:
        print(path(cls), repr(cls))
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    print(torch.typename(model), repr(type(model[1])))
    data = pickle.dumps(model)
    print(b"torch.nn.modules.activation" in data, b"torch.nn.modules.linear" in data)
    back = pickle.loads(data)
    print(type(back[0]) is nn.Linear, repr(back))
    print(nn.Parameter(torch.ones(2)))
    """
)


def run(argv: list[str], tmp_path) -> str:
    script = tmp_path / "paths.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, *argv, str(script)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_classes_carry_pytorch_paths_under_chainrule_run(tmp_path):
    expected = run([], tmp_path)  # (the real PyTorch)
    got = run(["-m", "chainrule", "run"], tmp_path)
    assert got == expected


@pytest.mark.parametrize("twice", [False, True])
def test_without_the_hook_classes_keep_chainrule_paths(twice):
    code = textwrap.dedent(
        f"""
        import chainrule, chainrule.nn as nn
        from chainrule import _import_hook
        for _ in range({2 if twice else 1}):
            with _import_hook.installed():
                import torch
                assert nn.Linear.__module__ == "torch.nn.modules.linear", nn.Linear.__module__
                assert chainrule.Tensor.__module__ == "torch"
                assert _import_hook.is_chainrule_module("torch.nn.modules.linear")
            assert nn.Linear.__module__ == "chainrule.nn.modules.linear", nn.Linear.__module__
            assert chainrule.Tensor.__module__ == "chainrule._tensor"
            assert not _import_hook.is_chainrule_module("torch.nn.modules.linear")
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
