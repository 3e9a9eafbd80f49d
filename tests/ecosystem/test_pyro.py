"""pyro-ppl 1.9 runs unchanged under ``chainrule run`` (pyro checks that
``torch.__name__`` is "torch", as it is under the hook) and gives what it gives on the real PyTorch (pyro_cases.py):
its distributions and their wrappers (to_event, expand, mask), constraints, transforms and
normalizing flows, KL divergences, traces of conditioned models under poutine's handlers,
Trace/TraceMeanField/TraceGraph/Renyi/JitTrace ELBO losses and gradients on replayed guide
samples (score-function ones too), SVI with pyro.optim and its LR schedulers, PyroModule,
autoguides (median, quantiles, posteriors, Laplace, lists, IAF, discrete), the param
store's files both ways, Predictive, exact enumeration with TraceEnum_ELBO and
infer_discrete, pyro.ops.stats, reparameterizers, structured distributions (GaussianHMM),
pyro.contrib.gp, and HMC/NUTS (posterior mean and spread checked against the analytic
ones; a short seeded float64 chain is PyTorch's)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from two_sides import check_case, compare

if not all(importlib.util.find_spec(m) for m in ("torch", "pyro")):
    pytest.skip("needs the real torch and pyro-ppl (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("pyro_cases.py")

# every case of pyro_cases.py (the test checks the script runs exactly these)
CASES = [
    "pyro_distributions",
    "pyro_trace_condition",
    "pyro_elbo",
    "pyro_svi",
    "pyro_autoguides",
    "pyro_param_store",
    "pyro_predictive",
    "pyro_enum",
    "pyro_mcmc",
    "pyro_mcmc_seeded",
    "pyro_nn_module",
    "pyro_jit_elbo",
    "pyro_flows",
    "pyro_ops_stats",
    "pyro_reparam",
    "pyro_structured_dists",
    "pyro_lr_schedulers",
    "pyro_score_function",
    "pyro_handlers",
    "pyro_autoguides_more",
    "pyro_gp",
    "pyro_more_distributions",
]
# results after optimizer steps: float32 rounding grows with each step
TRAINING = {"pyro_svi", "pyro_nn_module", "pyro_jit_elbo", "pyro_lr_schedulers", "pyro_gp"}


def run_side(out: Path, side: str) -> dict:
    """Run the cases script for ``side`` (oracle, chainrule or check); its report."""
    prefix = [sys.executable]
    if side == "chainrule":
        prefix += ["-m", "chainrule", "run"]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [*prefix, str(SCRIPT), str(out), side],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / f"pyro_{side}_errors.json").read_text())
    with np.load(out / f"pyro_{side}.npz") as results:
        report["results"] = dict(results)
    return report


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("pyro")
    return {side: run_side(out, side) for side in ("oracle", "chainrule", "check")}


def test_sides_and_cases(reports: dict[str, dict]) -> None:
    oracle, chainrule = reports["oracle"], reports["chainrule"]
    assert oracle["torch"] == "torch"
    assert chainrule["torch"] == "chainrule"  # `import torch` gave chainrule
    assert oracle["cases"] == CASES
    assert chainrule["cases"] == CASES
    assert oracle["errors"] == {}


@pytest.mark.parametrize("case", CASES)
def test_case(reports: dict[str, dict], case: str) -> None:
    check_case((reports["oracle"], reports["chainrule"]), case, case in TRAINING)


def test_real_pyro_loads_chainrule_store(reports: dict[str, dict]) -> None:
    """The real PyTorch's pyro loads the param store chainrule saved (its tensors and
    constraints) and finds chainrule's values."""
    check, ours = reports["check"], reports["chainrule"]["results"]
    assert check["errors"] == {}
    got = check["results"]
    names = list(got["store.names"])
    assert names == list(ours["store.names"]) == ["a", "b", "c", "d"]
    assert [str(got[f"store.{n}.constraint"]) for n in names] == [
        "_Real",
        "_GreaterThan",
        "_Interval",
        "_Simplex",
    ]
    for n in names:
        for kind in ("constrained", "unconstrained"):
            key = f"store.{n}.{kind}"
            compare(key, got[key], ours[key], loose=False)


# ---------------------------------------------------------------- the gaps pyro met


def test_torch_is_named_torch_under_chainrule_run(tmp_path: Path) -> None:
    """Under ``chainrule run`` chainrule's top module is named ``torch`` (its submodules
    keep their names; ``torch.__spec__.name`` says which torch it is), and named back once
    the hook is gone."""
    script = tmp_path / "name.py"
    script.write_text(
        "import sys, torch, torch.distributions\n"
        "print(torch.__name__, torch.__spec__.name, torch.distributions.__name__)\n"
        "from chainrule import _import_hook\n"
        "_import_hook.uninstall()\n"
        "print(sys.modules['chainrule'].__name__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "chainrule", "run", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["torch", "chainrule", "chainrule.distributions", "chainrule"]


def test_private_names_pyro_uses() -> None:
    """``torch._C._get_tracing_state``, ``Tensor._cdata``, ``_sum_rightmost``,
    ``_jit_internal._copy_to_script_wrapper``, ``serialization.MAP_LOCATION``, as PyTorch."""
    import torch
    import torch._jit_internal

    import chainrule as cr
    import chainrule._jit_internal as cr_jit_internal

    assert cr._C._get_tracing_state() is None and torch._C._get_tracing_state() is None
    seen = []

    def fn(x: object) -> object:
        seen.append(bool(cr._C._get_tracing_state()))
        return x * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cr.jit.trace(fn, (cr.ones(2),), check_trace=False)
    assert seen[0] is True  # (a state while recording)
    # a leaf that requires grad reaches the traced function itself (pyro's JIT relies on it)
    for lib in (torch, cr):
        w = lib.ones(2, requires_grad=True)
        same = []

        def g(x: object, w: object = w, same: list = same) -> object:
            same.append(x is w)
            return x * 2

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.jit.trace(g, (w,), check_trace=False)
        assert same[0] is True
    a, b = cr.ones(2), cr.ones(2)
    assert a._cdata == a._cdata != b._cdata and isinstance(a._cdata, int)
    assert a.detach()._cdata != a._cdata
    x = torch.arange(24.0).reshape(2, 3, 4)
    got = cr.distributions.utils._sum_rightmost(cr.arange(24.0).reshape(2, 3, 4), 2)
    np.testing.assert_array_equal(
        got.numpy(), torch.distributions.utils._sum_rightmost(x, 2).numpy()
    )
    assert torch._jit_internal._copy_to_script_wrapper(fn) is fn
    assert cr_jit_internal._copy_to_script_wrapper(fn) is fn
    assert hasattr(cr.serialization, "MAP_LOCATION")


def flow_module(lib: object) -> object:
    """A transform that is an nn.Module too (pyro's TransformModule), made with ``lib``."""

    class Flow(lib.distributions.transforms.Transform, lib.nn.Module):
        def __init__(self) -> None:
            super().__init__(cache_size=1)
            self.w = lib.nn.Parameter(lib.ones(2))

        def __hash__(self) -> int:  # (Transform's __eq__ unsets it, as pyro's does)
            return id(self)

    return Flow()


def test_distribution_subclass_protocol() -> None:
    """What pyro's subclasses rely on: ``_get_checked_instance`` (and its error for a
    custom ``__init__``), dependent constraints skipped by the argument checks, and a
    Transform that is an nn.Module too (Module.__init__ runs)."""
    import torch

    import chainrule as cr

    messages = []
    for lib in (torch, cr):
        D = lib.distributions

        class Custom(D.Normal):
            arg_constraints = {"loc": D.constraints.dependent, "scale": D.constraints.positive}

            def __init__(self, loc: object, scale: object) -> None:
                super().__init__(loc, scale)

        d = Custom(lib.zeros(2), lib.ones(2))  # (the dependent constraint is not checked)
        new = d._get_checked_instance(Custom)
        assert type(new) is Custom and new is not d
        assert d._get_checked_instance(D.Normal, _instance=new) is new
        try:
            d._get_checked_instance(D.Normal)
        except NotImplementedError as e:
            messages.append(str(e))
        assert [n for n, _ in flow_module(lib).named_parameters()] == ["w"]
    assert messages[0] == messages[1] and len(messages) == 2
