"""The skorch cases of test_skorch.py, run once per side.

``python skorch_cases.py OUT oracle`` runs every case on the real PyTorch: it saves the
modules' initial weights to ``OUT/skorch_weights.pt``, its checkpoints and parameter files
under ``OUT/oracle/``, and the results to ``OUT/skorch_oracle.npz``. ``chainrule run
skorch_cases.py OUT chainrule`` loads those weights (every net gets a module instance that
holds them, so nothing depends on the random stream) and files, runs the same cases, writes
its own parameter files under ``OUT/chainrule/`` (which test_skorch.py loads into the real
skorch) and ``OUT/skorch_chainrule.npz``. Training iterates in order (``shuffle`` off). A
case that raises records its traceback in ``OUT/skorch_<side>_errors.json``.
"""

from __future__ import annotations

import copy
import os
import pickle
import sys

import numpy as np
import torch
from case_inputs import Weights
from case_runner import Cases
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from skorch import NeuralNetBinaryClassifier, NeuralNetClassifier, NeuralNetRegressor
from skorch.callbacks import (
    BatchScoring,
    Checkpoint,
    EarlyStopping,
    EpochScoring,
    Freezer,
    GradientNormClipping,
    LRScheduler,
    TrainEndCheckpoint,
)
from skorch.dataset import ValidSplit
from skorch.helper import SliceDict

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
MINE = f"{OUT}/{SIDE}"
os.makedirs(MINE, exist_ok=True)
WEIGHTS = Weights(f"{OUT}/skorch_weights.pt", ORACLE)
CASES = Cases()
case, put = CASES.case, CASES.put

XC, YC = make_classification(120, 10, n_informative=6, random_state=0)
XC, YC = XC.astype(np.float32), YC.astype(np.int64)
XR, YR = make_regression(80, 6, noise=0.1, random_state=1)
XR, YR = XR.astype(np.float32), (YR / 100).astype(np.float32)[:, None]


class MLP(torch.nn.Module):
    """A small classifier (softmax output, skorch's default NLL criterion) or regressor."""

    def __init__(self, n_in: int = 10, n_out: int = 2, hidden: int = 16, softmax: bool = True):
        super().__init__()
        self.l1 = torch.nn.Linear(n_in, hidden)
        self.l2 = torch.nn.Linear(hidden, n_out)
        self.softmax = softmax

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        out = self.l2(torch.relu(self.l1(X)))
        return torch.softmax(out, -1) if self.softmax else out


def module(key: str, **kwargs: object) -> torch.nn.Module:
    """An MLP holding the weights the oracle drew for ``key``."""
    if ORACLE and key not in WEIGHTS:
        torch.manual_seed(len(WEIGHTS))
        m = MLP(**kwargs)
        WEIGHTS[key] = copy.deepcopy(m.state_dict())
    else:
        m = MLP(**kwargs)
        m.load_state_dict(WEIGHTS[key])
    return m


def classifier(key: str, **kwargs: object) -> NeuralNetClassifier:
    kw: dict = dict(
        max_epochs=5,
        lr=0.1,
        batch_size=32,
        train_split=None,
        iterator_train__shuffle=False,
        verbose=0,
    )
    kw.update(kwargs)
    return NeuralNetClassifier(module(key), **kw)


def put_history(prefix: str, net: object, columns: list[str]) -> None:
    for col in columns:
        put(f"{prefix}.history.{col}", np.asarray(net.history[:, col], dtype=np.float64))


def put_weights(prefix: str, net: object) -> None:
    for name, value in net.module_.state_dict().items():
        put(f"{prefix}.weights.{name}", value)


@case
def classifier_fit_predict() -> None:
    net = classifier("clf", callbacks=[EpochScoring("accuracy", on_train=True)])
    net.fit(XC, YC)
    put_history("clf", net, ["train_loss", "accuracy"])
    put("clf.batches", [len(h["batches"]) for h in net.history])
    put("clf.proba", net.predict_proba(XC))
    put("clf.pred", net.predict(XC))
    put("clf.score", net.score(XC, YC))
    put_weights("clf", net)
    net.save_params(f_params=f"{MINE}/clf_params.pt", f_optimizer=f"{MINE}/clf_opt.pt")
    net.save_params(f_params=f"{MINE}/clf_params.safetensors", use_safetensors=True)
    put("clf.classes", net.classes_)


@case
def load_params_from_the_other_side() -> None:
    # the oracle reads its own files; chainrule reads the oracle's
    src = f"{OUT}/oracle"
    for fmt, kw in (("pt", {}), ("safetensors", {"use_safetensors": True})):
        net = classifier("clf_load").initialize()
        net.load_params(f_params=f"{src}/clf_params.{fmt}", **kw)
        put(f"load.{fmt}.proba", net.predict_proba(XC))
    net = classifier("clf_load", warm_start=True).initialize()
    net.load_params(f_params=f"{src}/clf_params.pt", f_optimizer=f"{src}/clf_opt.pt")
    net.partial_fit(XC, YC)  # one more epoch from the loaded optimizer state
    put("load.resumed.loss", np.asarray(net.history[:, "train_loss"], dtype=np.float64))
    put_weights("load.resumed", net)


@case
def valid_split_and_scoring() -> None:
    net = classifier(
        "clf_valid",
        train_split=ValidSplit(4),
        callbacks=[EpochScoring("f1", lower_is_better=False, name="valid_f1")],
        optimizer=torch.optim.SGD,
        optimizer__momentum=0.9,
    )
    net.fit(XC, YC)
    put_history("valid", net, ["train_loss", "valid_loss", "valid_acc", "valid_f1"])
    put("valid.best", np.asarray(net.history[:, "valid_loss_best"]))
    put("valid.proba", net.predict_proba(XC[:10]))


@case
def regressor_fit_predict() -> None:
    net = NeuralNetRegressor(
        module("reg", n_in=6, n_out=1, softmax=False),
        max_epochs=8,
        lr=0.01,
        optimizer=torch.optim.Adam,
        batch_size=16,
        train_split=None,
        iterator_train__shuffle=False,
        verbose=0,
    )
    net.fit(XR, YR)
    put_history("reg", net, ["train_loss"])
    put("reg.pred", net.predict(XR))
    put("reg.score", net.score(XR, YR))
    put_weights("reg", net)
    net.save_params(f_params=f"{MINE}/reg_params.pt")


@case
def callbacks_checkpoint_early_stopping_lr() -> None:
    cp_dir = f"{MINE}/cp"
    net = classifier(
        "clf_cb",
        max_epochs=30,
        lr=0.5,
        train_split=ValidSplit(3),
        callbacks=[
            Checkpoint(dirname=cp_dir, monitor="valid_loss_best"),
            EarlyStopping(monitor="valid_loss", patience=3),
            LRScheduler("StepLR", step_size=2, gamma=0.5),
        ],
    )
    net.fit(XC, YC)
    put("cb.epochs", len(net.history))
    put_history("cb", net, ["train_loss", "valid_loss", "event_lr"])
    put("cb.checkpointed", np.asarray(net.history[:, "event_cp"]))
    put("cb.lr_now", net.optimizer_.param_groups[0]["lr"])
    restored = classifier("clf_cb").initialize()
    restored.load_params(checkpoint=Checkpoint(dirname=cp_dir))
    put("cb.restored.proba", restored.predict_proba(XC[:20]))
    put("cb.restored.history_len", len(restored.history))


@case
def more_callbacks_binary_and_pickle() -> None:
    init_dir = f"{MINE}/train_end"
    net = classifier(
        "clf_more",
        max_epochs=6,
        lr=0.3,
        train_split=ValidSplit(4),
        callbacks=[
            GradientNormClipping(gradient_clip_value=0.5),
            LRScheduler("ReduceLROnPlateau", monitor="valid_loss", patience=0, factor=0.5),
            Freezer("l1.bias"),
            BatchScoring("accuracy", name="batch_acc", on_train=True),
            TrainEndCheckpoint(dirname=init_dir),
        ],
    )
    net.fit(XC, YC)
    put_history("more", net, ["train_loss", "valid_loss", "batch_acc"])
    put("more.lrs", [g["lr"] for g in net.optimizer_.param_groups])
    put(
        "more.frozen_bias_unchanged",
        bool(torch.equal(net.module_.l1.bias, WEIGHTS["clf_more"]["l1.bias"])),
    )
    put_weights("more", net)
    # training goes on from TrainEndCheckpoint's files (weights, optimizer, history)
    net2 = classifier("clf_more", max_epochs=2, warm_start=True).initialize()
    net2.load_params(
        f_params=f"{init_dir}/train_end_params.pt",
        f_optimizer=f"{init_dir}/train_end_optimizer.pt",
        f_history=f"{init_dir}/train_end_history.json",
    )
    net2.fit(XC, YC)
    put("more.resumed.loss", np.asarray(net2.history[:, "train_loss"], dtype=np.float64))
    put("more.resumed.epochs", len(net2.history))
    put_weights("more.resumed", net2)
    # a whole net through pickle, on the same side
    clone = pickle.loads(pickle.dumps(net))
    put("more.pickled.proba", clone.predict_proba(XC[:15]))
    # NeuralNetBinaryClassifier (logits, BCEWithLogitsLoss) and a dict input (SliceDict)
    binary = NeuralNetBinaryClassifier(
        module("bin", n_out=1, softmax=False),
        max_epochs=4,
        lr=0.2,
        train_split=None,
        iterator_train__shuffle=False,
        verbose=0,
    )
    binary.fit(XC, YC.astype(np.float32))
    put_history("bin", binary, ["train_loss"])
    put("bin.proba", binary.predict_proba(XC))
    put("bin.pred", binary.predict(XC))
    put("bin.forward", binary.forward(XC[:7]))


class TwoInputs(torch.nn.Module):
    """Keyword inputs a and b (skorch passes the dict's keys as arguments)."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(4, 2)
        self.b = torch.nn.Linear(6, 2)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.a(a) + self.b(b), -1)


@case
def dict_inputs() -> None:
    if ORACLE and "two" not in WEIGHTS:
        torch.manual_seed(99)
        WEIGHTS["two"] = copy.deepcopy(TwoInputs().state_dict())
    m = TwoInputs()
    m.load_state_dict(WEIGHTS["two"])
    X = SliceDict(a=XC[:, :4], b=XC[:, 4:])
    net = NeuralNetClassifier(
        m,
        max_epochs=3,
        lr=0.1,
        batch_size=20,
        train_split=None,
        iterator_train__shuffle=False,
        verbose=0,
    )
    net.fit(X, YC)
    put_history("dict", net, ["train_loss"])
    put("dict.proba", net.predict_proba(X))


@case
def pipeline_and_grid_search() -> None:
    pipe = Pipeline([("scale", StandardScaler()), ("net", classifier("clf_pipe", max_epochs=4))])
    pipe.fit(XC, YC)
    put("pipe.proba", pipe.predict_proba(XC))
    put("pipe.score", pipe.score(XC, YC))
    grid = GridSearchCV(
        classifier("clf_grid", max_epochs=3),
        {"lr": [0.05, 0.2], "batch_size": [16, 64]},
        cv=3,
        scoring="neg_log_loss",
        refit=True,
    )
    grid.fit(XC, YC)
    put("grid.mean_test_score", grid.cv_results_["mean_test_score"])
    put("grid.best_params", [grid.best_params_["lr"], grid.best_params_["batch_size"]])
    put("grid.best_proba", grid.predict_proba(XC[:10]))


CASES.run(f"{OUT}/skorch_{SIDE}")
WEIGHTS.save()
