"""Lightning cases run twice: on the real PyTorch and under ``chainrule run``.

``python pl_cases.py fit OUT`` trains tiny models with ``L.Trainer`` (fit, validate, test,
predict, checkpoints, early stopping, gradient clipping, a LightningDataModule, Fabric)
from weights and data made with NumPy from a seed, and saves every result under ``OUT``
(``results.pt``: a dict of tensors, numbers and strings; the checkpoints it wrote).
``python pl_cases.py load OUT OTHER`` loads the checkpoints the other side wrote in
``OTHER`` (``load_from_checkpoint``, resuming ``fit``) and saves ``OUT/loaded.pt``."""

from __future__ import annotations

import csv
import os
import random
import sys
import warnings
from pathlib import Path

import numpy as np
import torch
from real_torchvision import import_real_torchvision
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")


import_real_torchvision()

import lightning as L  # noqa: E402
import torchmetrics  # noqa: E402
from lightning.pytorch.callbacks import (  # noqa: E402
    EarlyStopping,
    LearningRateMonitor,
    ModelCheckpoint,
)
from lightning.pytorch.loggers import CSVLogger  # noqa: E402
from lightning.pytorch.utilities.model_summary import ModelSummary  # noqa: E402

IN, HID, OUT_, N = 4, 8, 3, 40
rng = np.random.default_rng(0)
X = torch.from_numpy(rng.standard_normal((N, IN)).astype(np.float32))
Y = torch.from_numpy(rng.integers(0, OUT_, N).astype(np.int64))
XV = torch.from_numpy(rng.standard_normal((16, IN)).astype(np.float32))
YV = torch.from_numpy(rng.integers(0, OUT_, 16).astype(np.int64))
INIT = {
    "net.0.weight": rng.standard_normal((HID, IN)).astype(np.float32) * 0.5,
    "net.0.bias": rng.standard_normal(HID).astype(np.float32) * 0.1,
    "net.2.weight": rng.standard_normal((OUT_, HID)).astype(np.float32) * 0.5,
    "net.2.bias": rng.standard_normal(OUT_).astype(np.float32) * 0.1,
}


def loader(x: torch.Tensor, y: torch.Tensor, batch_size: int = 8) -> DataLoader:
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=False)


class LitClassifier(L.LightningModule):
    """A two-layer classifier with metrics, an optimizer and an LR scheduler."""

    def __init__(self, lr: float = 0.1, optimizer: str = "sgd", hidden: int = HID) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(IN, hidden), nn.ReLU(), nn.Linear(hidden, OUT_))
        self.net.load_state_dict({k[4:]: torch.from_numpy(v.copy()) for k, v in INIT.items()})
        self.train_acc = torchmetrics.classification.MulticlassAccuracy(num_classes=OUT_)
        self.val_acc = torchmetrics.classification.MulticlassAccuracy(num_classes=OUT_)
        self.val_f1 = torchmetrics.classification.MulticlassF1Score(num_classes=OUT_)
        self.test_mean = torchmetrics.aggregation.MeanMetric()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch: tuple, batch_idx: int) -> torch.Tensor:
        x, y = batch
        logits = self(x)
        loss = nn.functional.cross_entropy(logits, y)
        self.train_acc(logits, y)
        self.log("train_loss", loss, on_step=True, on_epoch=True)
        self.log("train_acc", self.train_acc, on_step=False, on_epoch=True)
        return loss

    def validation_step(self, batch: tuple, batch_idx: int) -> None:
        x, y = batch
        logits = self(x)
        self.val_acc.update(logits, y)
        self.val_f1.update(logits, y)
        self.log("val_loss", nn.functional.cross_entropy(logits, y), prog_bar=True)
        self.log_dict({"val_acc": self.val_acc, "val_f1": self.val_f1})

    def test_step(self, batch: tuple, batch_idx: int) -> None:
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y, reduction="none")
        self.test_mean.update(loss)
        self.log("test_loss", self.test_mean)
        self.log("test_max", loss.max(), reduce_fx="max")

    def predict_step(self, batch: tuple, batch_idx: int, dataloader_idx: int = 0) -> torch.Tensor:
        return self(batch[0]).softmax(-1)

    def configure_optimizers(self) -> dict:
        if self.hparams.optimizer == "adam":
            opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        else:
            opt = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


class DataModule(L.LightningDataModule):
    def __init__(self, batch_size: int = 10) -> None:
        super().__init__()
        self.batch_size = batch_size

    def setup(self, stage: str) -> None:
        self.train, self.val = TensorDataset(X, Y), TensorDataset(XV, YV)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.train, batch_size=self.batch_size)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.val, batch_size=self.batch_size)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(self.val, batch_size=self.batch_size)


res: dict[str, object] = {}


def put(name: str, value: object) -> None:
    """Keep ``value`` as a tensor, number, string or a dict/list of them, under ``name``."""
    if isinstance(value, dict):
        for k, v in value.items():
            put(f"{name}.{k}", v)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            put(f"{name}.{i}", v)
    elif isinstance(value, torch.Tensor):
        res[name] = value.detach().clone()
    elif isinstance(value, (int, float, str, bool)) or value is None:
        res[name] = value
    else:
        res[name] = repr(value)


def trainer(root: Path, **kw: object) -> L.Trainer:
    base = dict(max_epochs=2, accelerator="cpu", devices=1, logger=False,
                enable_progress_bar=False, enable_model_summary=False, deterministic=True,
                default_root_dir=str(root), num_sanity_val_steps=0)  # fmt: skip
    base.update(kw)
    return L.Trainer(**base)


def read_csv(path: Path) -> dict[str, list]:
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {k: [r[k] for r in rows] for k in rows[0]} if rows else {}


def fit_cases(out: Path) -> None:
    put("seed", L.seed_everything(7))
    put("seed.python", random.random())
    put("seed.numpy", float(np.random.rand()))
    first = torch.rand(3)
    L.seed_everything(7)
    put("seed.torch_repeats", bool(torch.equal(first, torch.rand(3))))
    put("seed.torch_values", first)  # (PyTorch's numbers for the seed)
    # a seeded fit on a shuffled loader: PyTorch's batch orders, so PyTorch's weights
    L.seed_everything(11)
    shuffled = LitClassifier()
    trainer(out / "shuffled", max_epochs=1, enable_checkpointing=False).fit(
        shuffled, DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True)
    )
    put("seed.shuffled_fit", shuffled.state_dict())

    # 1. fit with metrics, a StepLR stepped every batch, clipping, checkpoints, a CSV log
    model = LitClassifier()
    ckpt = ModelCheckpoint(dirpath=out / "ckpt", filename="best", monitor="val_loss",
                           save_last=True, save_top_k=1)  # fmt: skip
    lr_monitor = LearningRateMonitor(logging_interval="step")
    tr = trainer(out, logger=CSVLogger(out, name="csv", version=0), callbacks=[ckpt, lr_monitor],
                 gradient_clip_val=0.5, log_every_n_steps=2)  # fmt: skip
    tr.fit(model, loader(X, Y), loader(XV, YV))
    put("fit.weights", model.state_dict())
    put("fit.callback_metrics", dict(tr.callback_metrics))
    put("fit.global_step", tr.global_step)
    put("fit.epoch", tr.current_epoch)
    put("fit.lr", tr.optimizers[0].param_groups[0]["lr"])
    put("fit.best_score", ckpt.best_model_score)
    put("fit.best_path", Path(ckpt.best_model_path).name)
    put("fit.ckpts", sorted(p.name for p in (out / "ckpt").iterdir()))
    csv_log = read_csv(out / "csv" / "version_0" / "metrics.csv")
    put("fit.csv_columns", sorted(csv_log))
    for col, vals in csv_log.items():
        put(f"fit.csv.{col}", torch.tensor([float(v) if v else float("nan") for v in vals]))
    put("validate", tr.validate(model, loader(XV, YV), verbose=False))
    put("test", tr.test(model, loader(XV, YV, 5), verbose=False))
    preds = tr.predict(model, loader(XV, YV, 6))
    put("predict", torch.cat(preds))
    put("predict.n", len(preds))
    ck = torch.load(out / "ckpt" / "last.ckpt", weights_only=False)
    put("ckpt.keys", sorted(ck))
    put("ckpt.epoch", ck["epoch"])
    put("ckpt.global_step", ck["global_step"])
    put("ckpt.hparams", dict(ck["hyper_parameters"]))
    put("ckpt.state", ck["state_dict"])
    put("ckpt.opt_state", ck["optimizer_states"][0]["state"])
    put(
        "ckpt.sched",
        {k: v for k, v in ck["lr_schedulers"][0].items() if k != "_get_lr_called_within_step"},
    )
    put("ckpt.loops.fit_loop.epoch_progress", ck["loops"]["fit_loop"]["epoch_progress"])

    # 2. Adam, clipping by value, accumulated gradients, a datamodule
    model = LitClassifier(lr=0.05, optimizer="adam")
    tr = trainer(out, gradient_clip_val=0.05, gradient_clip_algorithm="value",
                 accumulate_grad_batches=2)  # fmt: skip
    tr.fit(model, datamodule=DataModule())
    put("adam.weights", model.state_dict())
    put("adam.global_step", tr.global_step)
    put("adam.test", tr.test(model, datamodule=DataModule(), verbose=False))

    # 3. early stopping: no improvement of at least 10 stops after patience 2
    model = LitClassifier()
    stop = EarlyStopping(monitor="val_loss", min_delta=10.0, patience=2, mode="min")
    tr = trainer(out, max_epochs=10, callbacks=[stop], limit_train_batches=2)
    tr.fit(model, loader(X, Y), loader(XV, YV))
    put("early.stopped_epoch", stop.stopped_epoch)
    put("early.epoch", tr.current_epoch)
    put("early.wait", stop.wait_count)
    put("early.best", stop.best_score)
    put("early.weights", model.state_dict())

    # 4. max_steps, val_check_interval, a checkpoint every epoch (save_top_k=-1)
    model = LitClassifier(lr=0.02)
    every = ModelCheckpoint(dirpath=out / "every", save_top_k=-1, filename="{epoch}-{step}")
    tr = trainer(out, max_steps=7, val_check_interval=2, callbacks=[every])
    tr.fit(model, loader(X, Y), loader(XV, YV))
    put("steps.weights", model.state_dict())
    put("steps.ckpts", sorted(p.name for p in (out / "every").iterdir()))
    put("steps.global_step", tr.global_step)

    # 5. manual optimization, with the scheduler stepped by hand
    model = ManualClassifier()
    tr = trainer(out, max_epochs=2)
    tr.fit(model, loader(X, Y))
    put("manual.weights", model.state_dict())
    put("manual.lr", model.optimizers().param_groups[0]["lr"])
    put("manual.global_step", tr.global_step)

    # 6. float64 training (precision="64-true"), a summary, module helpers
    model = LitClassifier()
    summary = ModelSummary(model, max_depth=2)
    put("summary.params", summary.total_parameters)
    put("summary.trainable", summary.trainable_parameters)
    put("summary.names", summary.layer_names)
    put("summary.types", summary.layer_types)
    put("summary.str", str(summary))
    tr = trainer(out, precision="64-true", max_epochs=1)
    tr.fit(model, loader(X, Y))
    put("f64.weights", model.state_dict())
    put("f64.dtype", str(model.dtype))
    model.to(torch.float32)
    put("f32.dtype", str(model.dtype))
    put("module.device", str(model.device))
    model.freeze()
    put("module.frozen", [p.requires_grad for p in model.parameters()])
    tr.save_checkpoint(out / "f64.ckpt", weights_only=True)
    back = LitClassifier.load_from_checkpoint(out / "f64.ckpt", map_location="cpu")
    put("f64.reloaded", back.state_dict())

    more_cases(out)
    fabric_cases(out)


class TwoValLoaders(LitClassifier):
    """Validation over two dataloaders (metrics per dataloader)."""

    def validation_step(self, batch: tuple, batch_idx: int, dataloader_idx: int = 0) -> None:
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self(x), y))


def read_events(logdir: Path) -> dict[str, list]:
    """The scalars of TensorBoard event files under ``logdir``, by tag: (step, value)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(logdir))
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def more_cases(out: Path) -> None:
    from lightning.pytorch.callbacks import GradientAccumulationScheduler, StochasticWeightAveraging
    from lightning.pytorch.tuner import Tuner

    # 7. the default logger (TensorBoard), sanity checking, two validation loaders,
    # stochastic weight averaging, an accumulation schedule
    model = TwoValLoaders()
    swa = StochasticWeightAveraging(swa_lrs=0.05, swa_epoch_start=2, annealing_epochs=1)
    accum = GradientAccumulationScheduler(scheduling={0: 1, 1: 2})
    tr = trainer(out / "tb", logger=True, num_sanity_val_steps=2, max_epochs=3,
                 callbacks=[swa, accum], log_every_n_steps=1)  # fmt: skip
    tr.fit(model, loader(X, Y), [loader(XV, YV), loader(XV[:8], YV[:8], 4)])
    put("swa.weights", model.state_dict())
    put("swa.global_step", tr.global_step)
    put("swa.callback_metrics", dict(tr.callback_metrics))
    events = read_events(out / "tb" / "lightning_logs" / "version_0")
    put("tb.tags", sorted(events))
    for tag, points in events.items():
        put(f"tb.{tag}.steps", torch.tensor([p[0] for p in points]))
        put(f"tb.{tag}.values", torch.tensor([p[1] for p in points]))
    hparams = (out / "tb" / "lightning_logs" / "version_0" / "hparams.yaml").read_text()
    put("tb.hparams_yaml", hparams)

    # 8. the learning-rate finder
    model = LitClassifier(lr=0.01)
    tr = trainer(out / "lrf", max_epochs=3)
    finder = Tuner(tr).lr_find(model, loader(X, Y, 2), min_lr=1e-4, max_lr=1.0,
                               num_training=25, early_stop_threshold=None)  # fmt: skip
    put("lrfind.lrs", torch.tensor(finder.results["lr"]))
    put("lrfind.loss", torch.tensor(finder.results["loss"]))
    put("lrfind.suggestion", finder.suggestion())
    put("lrfind.weights_restored", model.state_dict())

    # 9. bfloat16 autocast on the CPU (precision="bf16-mixed")
    model = LitClassifier()
    tr = trainer(out, precision="bf16-mixed", max_epochs=1)
    tr.fit(model, loader(X, Y))
    put("bf16.weights", model.state_dict())
    put("bf16.predict", torch.cat(tr.predict(model, loader(XV, YV))))

    # 10. the Trainer's defaults (accelerator="auto", progress bar, summary, TensorBoard)
    model = LitClassifier()
    tr = L.Trainer(max_epochs=1, default_root_dir=str(out / "defaults"))
    tr.fit(model, loader(X, Y), loader(XV, YV))
    put("defaults.weights", model.state_dict())
    put("defaults.accelerator", type(tr.accelerator).__name__)
    put("defaults.strategy", type(tr.strategy).__name__)
    put("defaults.logger", type(tr.logger).__name__)

    # 11. PyTorch's profiler, pruning, a DataLoader with a worker process
    from lightning.pytorch.callbacks import ModelPruning

    model = LitClassifier()
    prune = ModelPruning("l1_unstructured", amount=0.3)
    tr = trainer(out, profiler="pytorch", callbacks=[prune], max_epochs=2)
    data = DataLoader(TensorDataset(X, Y), batch_size=8, num_workers=1)
    tr.fit(model, data)
    put("prune.weights", model.state_dict())
    put("prune.zeros", sum(int((p == 0).sum()) for p in model.parameters()))

    # 12. a compiled LightningModule (Lightning unwraps torch.compile's OptimizedModule and
    # compiles the steps with its dynamo_ctx). On the real torch 2.13 this fails inside
    # Dynamo (InternalTorchDynamoError on the wrapped bound methods), so the oracle trains
    # the model uncompiled: compiling must not change what is computed.
    model = LitClassifier()
    compiled = torch.compile(model) if torch.__spec__.name == "chainrule" else model
    tr = trainer(out, max_epochs=1)
    tr.fit(compiled, loader(X, Y), loader(XV, YV))
    put("compiled.weights", model.state_dict())
    put("compiled.predict", torch.cat(tr.predict(compiled, loader(XV, YV))))

    loop_options(out)
    standalone_package(out)


class Stream(torch.utils.data.IterableDataset):
    """The training data as an iterable dataset (no length)."""

    def __iter__(self):  # noqa: ANN204
        return iter(zip(X, Y))


class CollectionClassifier(LitClassifier):
    """Validation metrics as a MetricCollection logged with log_dict."""

    def __init__(self) -> None:
        super().__init__()
        mc = torchmetrics.classification
        self.val_metrics = torchmetrics.MetricCollection(
            {"acc": mc.MulticlassAccuracy(num_classes=OUT_),
             "prec": mc.MulticlassPrecision(num_classes=OUT_, average="macro")},
            prefix="val/",
        )  # fmt: skip

    def validation_step(self, batch: tuple, batch_idx: int) -> None:
        x, y = batch
        self.val_metrics.update(self(x), y)
        self.log_dict(self.val_metrics, on_epoch=True)


def loop_options(out: Path) -> None:
    """14. loop options: fast_dev_run, overfit_batches, validation every other epoch over a
    fraction of the batches, an iterable dataset, a MetricCollection logged with log_dict."""
    model = CollectionClassifier()
    tr = trainer(out, fast_dev_run=True)
    tr.fit(model, loader(X, Y), loader(XV, YV))
    put("loops.fast_dev_run", model.state_dict())
    put("loops.fast_dev_run_metrics", dict(tr.callback_metrics))
    model = CollectionClassifier()
    tr = trainer(out, overfit_batches=2, max_epochs=3)
    tr.fit(model, loader(X, Y), loader(XV, YV))
    put("loops.overfit", model.state_dict())
    put("loops.overfit_metrics", dict(tr.callback_metrics))
    model = CollectionClassifier()
    tr = trainer(out, max_epochs=4, check_val_every_n_epoch=2, limit_val_batches=0.5)
    tr.fit(model, DataLoader(Stream(), batch_size=6), loader(XV, YV, 4))
    put("loops.iterable", model.state_dict())
    put("loops.iterable_metrics", dict(tr.callback_metrics))
    put("loops.iterable_steps", tr.global_step)
    put("loops.num_val_batches", tr.num_val_batches)


def standalone_package(out: Path) -> None:
    """13. the same training through the ``pytorch_lightning`` package."""
    import pytorch_lightning as pl

    class PLClassifier(pl.LightningModule):
        def __init__(self, lr: float = 0.1) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.net = LitClassifier().net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

        def training_step(self, batch: tuple, batch_idx: int) -> torch.Tensor:
            loss = nn.functional.cross_entropy(self(batch[0]), batch[1])
            self.log("loss", loss)
            return loss

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.5)

    model = PLClassifier()
    ckpt = pl.callbacks.ModelCheckpoint(dirpath=out / "pl", filename="pl")
    tr = pl.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, callbacks=[ckpt],
                    enable_progress_bar=False, enable_model_summary=False)  # fmt: skip
    tr.fit(model, loader(X, Y))
    put("pl.weights", model.state_dict())
    back = PLClassifier.load_from_checkpoint(out / "pl" / "pl.ckpt")
    put("pl.loaded", back.state_dict())
    put("pl.callback_metrics", dict(tr.callback_metrics))


class ManualClassifier(LitClassifier):
    """Manual optimization: two optimizer steps per batch, the scheduler stepped per epoch."""

    def __init__(self) -> None:
        super().__init__(lr=0.05)
        self.automatic_optimization = False

    def training_step(self, batch: tuple, batch_idx: int) -> None:
        opt = self.optimizers()
        x, y = batch
        for _ in range(2):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(self(x), y)
            self.manual_backward(loss)
            self.clip_gradients(opt, gradient_clip_val=0.3, gradient_clip_algorithm="norm")
            opt.step()
        self.log("manual_loss", loss)

    def on_train_epoch_end(self) -> None:
        self.lr_schedulers().step()

    def configure_optimizers(self) -> tuple:
        opt = torch.optim.RMSprop(self.parameters(), lr=self.hparams.lr)
        return [opt], [torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)]


def fabric_cases(out: Path) -> None:
    fabric = L.Fabric(accelerator="cpu", devices=1)
    model = LitClassifier().net
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = fabric.setup(model, opt)
    dl = fabric.setup_dataloaders(loader(X, Y))
    losses = []
    for _ in range(2):
        for x, y in dl:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            fabric.backward(loss)
            fabric.clip_gradients(model, opt, max_norm=1.0)
            opt.step()
            losses.append(loss.detach())
    put("fabric.losses", torch.stack(losses))
    put("fabric.weights", model.state_dict())
    put("fabric.device", str(fabric.device))
    put("fabric.all_reduce", fabric.all_reduce(torch.tensor([1.0, 2.0]), reduce_op="mean"))
    fabric.save(out / "fabric.ckpt", {"model": model, "optimizer": opt, "step": 8})
    fresh = L.Fabric(accelerator="cpu", devices=1)
    model2 = LitClassifier().net
    opt2 = torch.optim.SGD(model2.parameters(), lr=0.1)
    model2, opt2 = fresh.setup(model2, opt2)
    state = {"model": model2, "optimizer": opt2}
    rest = fresh.load(out / "fabric.ckpt", state)
    put("fabric.loaded", model2.state_dict())
    put("fabric.rest", rest)

    # Fabric with a CSV logger, bfloat16 autocast and its own seeding
    from lightning.fabric.loggers import CSVLogger as FabricCSV

    fabric = L.Fabric(accelerator="cpu", devices=1, precision="bf16-mixed",
                      loggers=FabricCSV(out / "fabric_logs", name="f", version=0))  # fmt: skip
    put("fabric.seed", fabric.seed_everything(3))
    model = LitClassifier().net
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model, opt = fabric.setup(model, opt)
    for step, (x, y) in enumerate(fabric.setup_dataloaders(loader(X, Y, 10))):
        opt.zero_grad()
        out_ = model(x)
        loss = nn.functional.cross_entropy(out_, y)
        fabric.backward(loss)
        opt.step()
        fabric.log_dict({"loss": loss, "mean_out": out_.float().mean()}, step=step)
    fabric.logger.finalize("success")
    put("fabric_bf16.out_dtype", str(out_.dtype))
    put("fabric_bf16.weights", model.state_dict())
    log = read_csv(out / "fabric_logs" / "f" / "version_0" / "metrics.csv")
    for col, vals in log.items():
        put(f"fabric_bf16.csv.{col}", torch.tensor([float(v) for v in vals]))


def load_cases(out: Path, other: Path) -> None:
    # the other side's best checkpoint through load_from_checkpoint
    model = LitClassifier.load_from_checkpoint(other / "ckpt" / "best.ckpt")
    put("load.hparams", dict(model.hparams))
    put("load.weights", model.state_dict())
    put("load.out", model(XV))
    # resume the other side's last checkpoint for one more epoch (optimizer, scheduler, loops)
    model = LitClassifier()
    tr = trainer(out, max_epochs=3, gradient_clip_val=0.5)
    tr.fit(model, loader(X, Y), loader(XV, YV), ckpt_path=str(other / "ckpt" / "last.ckpt"))
    put("resume.weights", model.state_dict())
    put("resume.global_step", tr.global_step)
    put("resume.lr", tr.optimizers[0].param_groups[0]["lr"])
    tr.save_checkpoint(out / "resumed.ckpt")
    ck = torch.load(out / "resumed.ckpt", weights_only=False)
    put("resume.ckpt_state", ck["state_dict"])


class ShardedData(L.LightningDataModule):
    """Each rank's half of the data, in order (a DistributedSampler without shuffling,
    made once the process group exists: Lightning keeps it)."""

    def train_dataloader(self) -> DataLoader:
        data = TensorDataset(X, Y)
        sampler = torch.utils.data.DistributedSampler(data, shuffle=False)
        return DataLoader(data, batch_size=5, sampler=sampler)

    def val_dataloader(self) -> DataLoader:
        data = TensorDataset(XV, YV)
        sampler = torch.utils.data.DistributedSampler(data, shuffle=False)
        return DataLoader(data, batch_size=4, sampler=sampler)


class SyncedClassifier(LitClassifier):
    """Logs a loss averaged over the ranks (sync_dist) and metrics synced by torchmetrics."""

    def validation_step(self, batch: tuple, batch_idx: int) -> None:
        x, y = batch
        logits = self(x)
        self.val_acc.update(logits, y)
        self.log("val_loss", nn.functional.cross_entropy(logits, y), sync_dist=True)
        self.log("val_acc", self.val_acc)


def ddp_case(out: Path) -> None:
    """Two processes (strategy="ddp"): gradients averaged over ranks, metrics synced."""
    model = SyncedClassifier()
    tr = trainer(out, strategy="ddp", devices=2, max_epochs=2, gradient_clip_val=0.5)
    tr.fit(model, datamodule=ShardedData())
    put("ddp.weights", model.state_dict())
    put("ddp.callback_metrics", dict(tr.callback_metrics))
    put("ddp.world_size", tr.world_size)
    put("ddp.global_step", tr.global_step)
    put("ddp.rank_weights_equal", _same_on_ranks(model))
    # differentiable collectives (Lightning's all_gather with sync_grads=True uses them)
    import torch.distributed.nn.functional as dist_fn

    rank = tr.global_rank
    x = torch.tensor([1.0, 2.0, 3.0]) * (rank + 1)
    x.requires_grad_(True)
    gathered = torch.stack(dist_fn.all_gather(x))
    weights = torch.arange(6.0).reshape(2, 3) + 10 * rank
    (gathered * weights).sum().backward()
    put("ddp.gathered", gathered)
    put(f"ddp.gather_grad{rank}", x.grad)
    y = torch.tensor([0.5, -1.0]) * (rank + 2)
    y.requires_grad_(True)
    reduced = dist_fn.all_reduce(y)
    (reduced * torch.tensor([1.0, 3.0]) * (rank + 1)).sum().backward()
    put("ddp.reduced", reduced)
    put(f"ddp.reduce_grad{rank}", y.grad)
    put("ddp.lightning_gather", model.all_gather(torch.tensor([rank + 0.5])))
    grads = _gathered_grads(x.grad, y.grad)
    put("ddp.all_grads", grads)
    fabric_ddp()
    if tr.global_rank == 0:
        put("torch", torch.__spec__.name)
        torch.save(res, out / "ddp.pt")


def fabric_ddp() -> None:
    """Fabric on the same two processes: DDP training on each rank's half of the data,
    all_gather (with gradients), all_reduce, broadcast."""
    fabric = L.Fabric(accelerator="cpu", devices=2, strategy="ddp")
    fabric.launch()
    model = LitClassifier().net
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model, opt = fabric.setup(model, opt)
    data = TensorDataset(X, Y)
    sampler = torch.utils.data.DistributedSampler(data, shuffle=False)
    dl = fabric.setup_dataloaders(DataLoader(data, batch_size=5, sampler=sampler))
    for x, y in dl:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        fabric.backward(loss)
        opt.step()
    put("fabric_ddp.weights", model.state_dict())
    put("fabric_ddp.gathered", fabric.all_gather(loss.detach()))
    put("fabric_ddp.sum", fabric.all_reduce(loss.detach(), reduce_op="sum"))
    put("fabric_ddp.broadcast", fabric.broadcast(fabric.global_rank * 10 + 3))
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    gathered = fabric.all_gather(w * (fabric.global_rank + 1), sync_grads=True)
    (gathered * torch.tensor([[1.0], [5.0]])).sum().backward()
    put("fabric_ddp.sync_grads", _gathered_grads(w.grad))


def _gathered_grads(*grads: torch.Tensor) -> torch.Tensor:
    """Every rank's gradients, gathered (rank 0 saves the results)."""
    import torch.distributed as dist

    flat = torch.cat([g.reshape(-1) for g in grads])
    out = [torch.empty_like(flat) for _ in range(dist.get_world_size())]
    dist.all_gather(out, flat)
    return torch.stack(out)


def _same_on_ranks(model: nn.Module) -> bool:
    """Whether every rank holds rank 0's weights."""
    import torch.distributed as dist

    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    first = flat.clone()
    dist.broadcast(first, 0)
    same = torch.tensor([float(torch.equal(first, flat))])
    dist.all_reduce(same, op=dist.ReduceOp.MIN)
    return bool(same.item())


def main() -> None:
    mode, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    if mode == "ddp":
        ddp_case(out)
        return
    put("torch", torch.__spec__.name)
    if mode == "fit":
        fit_cases(out)
        torch.save(res, out / "results.pt")
    else:
        load_cases(out, Path(sys.argv[3]))
        torch.save(res, out / "loaded.pt")


if __name__ == "__main__":
    os.environ.setdefault("PL_DISABLE_FORK", "1")
    main()
