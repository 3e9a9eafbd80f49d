"""skorch runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: NeuralNetClassifier and NeuralNetRegressor fit from the same initial weights
(loss histories, predictions, final weights), validation splits and scoring, parameter
files (``save_params``/``load_params``, PyTorch's format and safetensors, with the
optimizer's state) read both ways, the Checkpoint, EarlyStopping, LRScheduler (StepLR,
ReduceLROnPlateau), EpochScoring, BatchScoring, GradientNormClipping, Freezer,
TrainEndCheckpoint callbacks, NeuralNetBinaryClassifier, dict inputs
(SliceDict), pickled nets, and a sklearn Pipeline and GridSearchCV (skorch_cases.py). The real
skorch loads the files chainrule's run saved (in this process, on the real PyTorch)."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_case, check_sides, compare

if not all(importlib.util.find_spec(m) for m in ("torch", "skorch", "sklearn")):
    pytest.skip(
        "needs the real torch, skorch and scikit-learn (the oracle)", allow_module_level=True
    )

SCRIPT = Path(__file__).with_name("skorch_cases.py")

# every case of skorch_cases.py (the test checks the script runs exactly these)
CASES = [
    "classifier_fit_predict",
    "load_params_from_the_other_side",
    "valid_split_and_scoring",
    "regressor_fit_predict",
    "callbacks_checkpoint_early_stopping_lr",
    "more_callbacks_binary_and_pickle",
    "dict_inputs",
    "pipeline_and_grid_search",
]


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("skorch")


@pytest.fixture(scope="module")
def sides(out: Path) -> tuple[dict, dict]:
    return both_sides(SCRIPT, "skorch", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    # every case trains for several epochs: float32 rounding grows with each step
    check_case(sides, case, True)


def test_real_skorch_loads_chainrule_files(sides: tuple[dict, dict], out: Path) -> None:
    """The real skorch (on the real PyTorch) loads the parameter files and the checkpoint
    chainrule's run saved, and predicts what chainrule predicted."""
    import torch

    with warnings.catch_warnings():
        # skorch imports torch_geometric when installed, whose import calls the real
        # torch.jit.script (deprecated in PyTorch 2.13)
        warnings.simplefilter("ignore", DeprecationWarning)
        from skorch import NeuralNetClassifier, NeuralNetRegressor
        from skorch.callbacks import Checkpoint

    class MLP(torch.nn.Module):  # skorch_cases.py's MLP
        def __init__(self, n_in: int = 10, n_out: int = 2, softmax: bool = True) -> None:
            super().__init__()
            self.l1 = torch.nn.Linear(n_in, 16)
            self.l2 = torch.nn.Linear(16, n_out)
            self.softmax = softmax

        def forward(self, X: torch.Tensor) -> torch.Tensor:
            out = self.l2(torch.relu(self.l1(X)))
            return torch.softmax(out, -1) if self.softmax else out

    mlp = MLP
    ours = sides[1]["results"]
    x, _ = _data()
    mine = out / "chainrule"
    for fmt, kw in (("pt", {}), ("safetensors", {"use_safetensors": True})):
        net = NeuralNetClassifier(mlp(), train_split=None).initialize()
        net.load_params(f_params=str(mine / f"clf_params.{fmt}"), **kw)
        compare(f"real.{fmt}", net.predict_proba(x[0]), ours["clf.proba"], True)
    reg = NeuralNetRegressor(mlp(n_in=6, n_out=1, softmax=False), train_split=None).initialize()
    reg.load_params(f_params=str(mine / "reg_params.pt"))
    compare("real.reg", reg.predict(x[1]), ours["reg.pred"], True)
    cp = NeuralNetClassifier(mlp(), train_split=None).initialize()
    cp.load_params(checkpoint=Checkpoint(dirname=str(mine / "cp")))
    compare("real.cp", cp.predict_proba(x[0][:20]), ours["cb.restored.proba"], True)
    assert len(cp.history) == int(ours["cb.epochs"])


def _data() -> tuple[tuple[np.ndarray, np.ndarray], None]:
    from sklearn.datasets import make_classification, make_regression

    xc, _ = make_classification(120, 10, n_informative=6, random_state=0)
    xr, _ = make_regression(80, 6, noise=0.1, random_state=1)
    return (xc.astype(np.float32), xr.astype(np.float32)), None
