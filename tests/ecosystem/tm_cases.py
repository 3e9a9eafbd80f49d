"""torchmetrics cases run twice: on the real PyTorch and under ``chainrule run``.

``python tm_cases.py OUT.npz`` computes every case on inputs made with NumPy from a seed
and saves each result (an array) under the case's name."""

from __future__ import annotations

import sys

import numpy as np
import torch
from real_torchvision import import_real_torchvision

import_real_torchvision()

import torchmetrics  # noqa: E402
import torchmetrics.functional as TF  # noqa: E402
from torchmetrics import aggregation as agg  # noqa: E402
from torchmetrics import classification as C  # noqa: E402
from torchmetrics import regression as R  # noqa: E402

rng = np.random.default_rng(0)
N, K, L = 48, 5, 4
BATCHES = 3


def t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


bin_p = t(rng.random(N).astype(np.float32))
bin_t = t(rng.integers(0, 2, N).astype(np.int64))
mc_logits = t(rng.standard_normal((N, K)).astype(np.float32))
mc_p = mc_logits.softmax(-1)
mc_t = t(rng.integers(0, K, N).astype(np.int64))
ml_p = t(rng.random((N, L)).astype(np.float32))
ml_t = t(rng.integers(0, 2, (N, L)).astype(np.int64))
reg_p = t(rng.standard_normal(N).astype(np.float32))
reg_t = t((0.7 * reg_p.numpy() + 0.5 * rng.standard_normal(N)).astype(np.float32))
reg2_p = t(rng.standard_normal((N, 2)).astype(np.float32))
reg2_t = t(rng.standard_normal((N, 2)).astype(np.float32))

DATA = {
    "binary": (bin_p, bin_t, {}),
    "multiclass": (mc_p, mc_t, {"num_classes": K}),
    "multilabel": (ml_p, ml_t, {"num_labels": L}),
}
out: dict[str, np.ndarray] = {}


def put(name: str, value: object) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            put(f"{name}.{k}", v)
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            put(f"{name}.{i}", v)
        return
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    out[name] = np.asarray(value)


def batched(metric: torchmetrics.Metric, preds: torch.Tensor, target: torch.Tensor) -> object:
    """Update over batches (forward on the first, which gives the batch's value), compute."""
    chunks = list(zip(preds.chunk(BATCHES), target.chunk(BATCHES)))
    first = metric(*chunks[0])
    for p, y in chunks[1:]:
        metric.update(p, y)
    return first, metric.compute()


CLASSIFIERS = {
    "accuracy": (C.Accuracy, TF.accuracy),
    "f1": (torchmetrics.F1Score, TF.f1_score),
    "precision": (torchmetrics.Precision, TF.precision),
    "recall": (torchmetrics.Recall, TF.recall),
    "auroc": (torchmetrics.AUROC, TF.auroc),
    "confmat": (torchmetrics.ConfusionMatrix, TF.confusion_matrix),
    "specificity": (torchmetrics.Specificity, TF.specificity),
    "avgprec": (torchmetrics.AveragePrecision, TF.average_precision),
}


def classification() -> None:
    for task, (p, y, kw) in DATA.items():
        for name, (cls, fn) in CLASSIFIERS.items():
            averages = [None]
            if task != "binary" and name not in ("confmat",):
                averages = ["macro", "weighted", "none"] + (
                    ["micro"] if name not in ("auroc", "avgprec") else []
                )
            for avg in averages:
                extra = dict(kw)
                if avg is not None:
                    extra["average"] = avg
                key = f"cls.{task}.{name}.{avg}"
                put(key + ".module", batched(cls(task=task, **extra), p, y))
                put(key + ".functional", fn(p, y, task=task, **extra))
    # the task-specific classes, thresholds, top_k, ignore_index, normalize
    put("cls.bin_acc_thr", C.BinaryAccuracy(threshold=0.3)(bin_p, bin_t))
    put("cls.mc_top2", C.MulticlassAccuracy(num_classes=K, top_k=2)(mc_p, mc_t))
    put("cls.mc_ignore", C.MulticlassF1Score(num_classes=K, ignore_index=1)(mc_p, mc_t))
    put("cls.mc_logits", C.MulticlassAccuracy(num_classes=K)(mc_logits, mc_t))
    put("cls.mc_labels", C.MulticlassPrecision(num_classes=K)(mc_p.argmax(-1), mc_t))
    put("cls.cm_norm", C.MulticlassConfusionMatrix(num_classes=K, normalize="true")(mc_p, mc_t))
    put("cls.ml_cm", C.MultilabelConfusionMatrix(num_labels=L)(ml_p, ml_t))
    put("cls.bin_roc", TF.roc(bin_p, bin_t, task="binary"))
    put("cls.stat_scores", C.MulticlassStatScores(num_classes=K, average=None)(mc_p, mc_t))
    put("cls.fbeta", C.MultilabelFBetaScore(num_labels=L, beta=2.0)(ml_p, ml_t))
    put("cls.mcc", TF.matthews_corrcoef(mc_p, mc_t, task="multiclass", num_classes=K))
    put("cls.bin_auroc_binned", C.BinaryAUROC(thresholds=11)(bin_p, bin_t))


def regression() -> None:
    metrics = {
        "mse": (R.MeanSquaredError, TF.mean_squared_error),
        "mae": (R.MeanAbsoluteError, TF.mean_absolute_error),
        "r2": (R.R2Score, TF.r2_score),
        "pearson": (R.PearsonCorrCoef, TF.pearson_corrcoef),
    }
    for name, (cls, fn) in metrics.items():
        put(f"reg.{name}.module", batched(cls(), reg_p, reg_t))
        put(f"reg.{name}.functional", fn(reg_p, reg_t))
    put("reg.rmse", batched(R.MeanSquaredError(squared=False), reg_p, reg_t))
    put("reg.r2_multi", batched(R.R2Score(multioutput="raw_values"), reg2_p, reg2_t))
    put("reg.pearson_2", batched(R.PearsonCorrCoef(num_outputs=2), reg2_p, reg2_t))
    put("reg.spearman", TF.spearman_corrcoef(reg_p, reg_t))
    put("reg.cosine", TF.cosine_similarity(reg2_p, reg2_t, reduction="mean"))
    put("reg.explained_var", R.ExplainedVariance()(reg_p, reg_t))
    put("reg.mape", R.MeanAbsolutePercentageError()(reg_p, reg_t))
    put("reg.double", batched(R.MeanSquaredError(), reg_p.double(), reg_t.double()))


def aggregation() -> None:
    vals = t(rng.standard_normal(12).astype(np.float32))
    w = t(rng.random(12).astype(np.float32))
    m = agg.MeanMetric()
    for i in range(3):
        m.update(vals[4 * i : 4 * i + 4], w[4 * i : 4 * i + 4])
    put("agg.mean_weighted", m.compute())
    for name, cls in [("mean", agg.MeanMetric), ("sum", agg.SumMetric), ("max", agg.MaxMetric),
                      ("min", agg.MinMetric), ("cat", agg.CatMetric)]:  # fmt: skip
        m = cls()
        first = m(vals[:4])
        m.update(vals[4:])
        m.update(float(vals[0]))
        put(f"agg.{name}", (first, m.compute()))
    m = agg.MeanMetric(nan_strategy="ignore")
    m.update(torch.tensor([1.0, float("nan"), 3.0]))
    put("agg.mean_nan_ignore", m.compute())
    m = agg.RunningMean(window=3)
    for v in vals[:6]:
        m.update(v)
    put("agg.running_mean", m.compute())


def collection_and_module() -> None:
    coll = torchmetrics.MetricCollection(
        {
            "acc": C.MulticlassAccuracy(num_classes=K),
            "f1": C.MulticlassF1Score(num_classes=K, average="macro"),
            "prec": C.MulticlassPrecision(num_classes=K),
        },
        prefix="val_",
    )
    first, total = batched(coll, mc_p, mc_t)
    put("coll.first", first)
    put("coll.total", total)
    coll.reset()
    coll.update(mc_p[:10], mc_t[:10])
    put("coll.after_reset", coll.compute())
    put("coll.keys", np.array(sorted(coll.keys())))
    clone = coll.clone(prefix="test_")
    put("coll.clone_keys", np.array(sorted(clone.keys())))
    coll2 = torchmetrics.MetricCollection([R.MeanSquaredError(), R.MeanAbsoluteError()])
    put("coll.list", batched(coll2, reg_p, reg_t)[1])

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, K)
            self.acc = C.MulticlassAccuracy(num_classes=K)
            self.mse = R.MeanSquaredError()

    net = Net()
    put("mod.state_keys", np.array(sorted(net.state_dict())))
    net.acc.persistent(True)
    net.acc.update(mc_p[:20], mc_t[:20])
    sd = net.state_dict()
    put("mod.state_keys_persistent", np.array(sorted(sd)))
    put("mod.persistent_tp", sd["acc.tp"])
    fresh = Net()
    fresh.acc.persistent(True)
    fresh.load_state_dict(sd)
    put("mod.loaded_compute", fresh.acc.compute())
    net = net.to("cpu")
    put("mod.device", np.array(str(net.acc.device)))
    net.double()  # metric states keep their dtype unless set_dtype
    net.mse.update(reg_p.double(), reg_t.double())
    put("mod.mse_double", net.mse.compute())
    put("mod.mse_dtype", np.array(str(net.mse.compute().dtype)))
    m = R.MeanSquaredError().set_dtype(torch.float64)
    m.update(reg_p, reg_t)
    put("mod.set_dtype", np.array(str(m.compute().dtype)))
    m = C.BinaryAccuracy()
    m.update(bin_p, bin_t)
    put("mod.update_count", np.array(m.update_count))
    m.reset()
    m.update(bin_p[:7], bin_t[:7])
    put("mod.after_reset", m.compute())
    put("mod.repr", np.array(repr(C.BinaryAccuracy())))
    st = m.metric_state
    put("mod.metric_state", {k: v for k, v in st.items()})
    # copies: deepcopy and pickle carry the states, and go on independently
    import copy
    import pickle

    m = C.MulticlassAccuracy(num_classes=K)
    m.update(mc_p[:20], mc_t[:20])
    for name, dup in [("deepcopy", copy.deepcopy(m)), ("pickle", pickle.loads(pickle.dumps(m)))]:
        dup.update(mc_p[20:], mc_t[20:])
        put(f"mod.{name}", (dup.compute(), m.compute()))
    coll = torchmetrics.MetricCollection(
        [C.MulticlassAccuracy(num_classes=K), C.MulticlassRecall(num_classes=K)]
    )
    coll.update(mc_p, mc_t)
    put("mod.coll_pickle", pickle.loads(pickle.dumps(coll)).compute())


def extras() -> None:
    """Wrappers, image, text, retrieval and clustering metrics."""
    from torchmetrics import image, retrieval, text, wrappers
    from torchmetrics.functional import clustering

    cw = wrappers.ClasswiseWrapper(C.MulticlassAccuracy(num_classes=K, average=None))
    put("ext.classwise", batched(cw, mc_p, mc_t)[1])
    tracker = wrappers.MetricTracker(R.MeanSquaredError(), maximize=False)
    for epoch in range(3):
        tracker.increment()
        tracker.update(reg_p[epoch::3], reg_t[epoch::3] * (1 + epoch))
    put("ext.tracker_all", tracker.compute_all())
    put("ext.tracker_best", tracker.best_metric(return_step=True))
    mm = wrappers.MinMaxMetric(C.BinaryAccuracy())
    for i in range(3):
        mm.update(bin_p[16 * i : 16 * i + 16], bin_t[16 * i : 16 * i + 16])
        put(f"ext.minmax{i}", mm.compute())
    mt = wrappers.MultitaskWrapper({"c": C.BinaryAccuracy(), "r": R.MeanSquaredError()})
    mt.update({"c": bin_p, "r": reg_p}, {"c": bin_t, "r": reg_t})
    put("ext.multitask", mt.compute())

    img_p = t(rng.random((2, 3, 24, 24)).astype(np.float32))
    img_t = t(np.clip(img_p.numpy() + 0.1 * rng.standard_normal((2, 3, 24, 24)), 0, 1)
              .astype(np.float32))  # fmt: skip
    put("ext.psnr", image.PeakSignalNoiseRatio(data_range=1.0)(img_p, img_t))
    put("ext.ssim", image.StructuralSimilarityIndexMeasure(data_range=1.0)(img_p, img_t))
    put("ext.ms_tv", image.TotalVariation()(img_p))
    put("ext.sam", TF.image.spectral_angle_mapper(img_p + 0.1, img_t + 0.1))
    put("ext.uqi", TF.image.universal_image_quality_index(img_p, img_t))

    preds_txt = ["the cat sat on the mat", "a quick brown fox"]
    refs_txt = ["the cat is on the mat", "the quick brown fox jumps"]
    put("ext.wer", text.WordErrorRate()(preds_txt, refs_txt))
    put("ext.cer", text.CharErrorRate()(preds_txt, refs_txt))
    put("ext.bleu", text.BLEUScore(n_gram=2)(preds_txt, [[r] for r in refs_txt]))
    put("ext.chrf", text.CHRFScore()(preds_txt, [[r] for r in refs_txt]))

    idx = t(np.repeat(np.arange(4), 6).astype(np.int64))
    r_p = t(rng.random(24).astype(np.float32))
    r_t = t((rng.random(24) > 0.6).astype(np.int64))
    r_t[::6] = 1
    put("ext.mrr", retrieval.RetrievalMRR()(r_p, r_t, indexes=idx))
    put("ext.ndcg", retrieval.RetrievalNormalizedDCG(top_k=3)(r_p, r_t, indexes=idx))
    put("ext.map", retrieval.RetrievalMAP()(r_p, r_t, indexes=idx))
    put("ext.rprec", retrieval.RetrievalPrecision(top_k=2)(r_p, r_t, indexes=idx))

    lab_p = t(rng.integers(0, 3, 30).astype(np.int64))
    lab_t = t(rng.integers(0, 3, 30).astype(np.int64))
    put("ext.rand", clustering.adjusted_rand_score(lab_p, lab_t))
    put("ext.nmi", clustering.normalized_mutual_info_score(lab_p, lab_t))
    put("ext.kl", TF.kl_divergence(mc_p[:8], mc_p[8:16]))
    put("ext.calib", C.MulticlassCalibrationError(num_classes=K, n_bins=5)(mc_p, mc_t))
    put("ext.hamming", C.MultilabelHammingDistance(num_labels=L)(ml_p, ml_t))
    put("ext.jaccard", C.MulticlassJaccardIndex(num_classes=K)(mc_p, mc_t))
    put("ext.cohen", C.MulticlassCohenKappa(num_classes=K)(mc_p, mc_t))
    put("ext.pr_curve", C.BinaryPrecisionRecallCurve(thresholds=5)(bin_p, bin_t))
    put("ext.ranking", C.MultilabelRankingAveragePrecision(num_labels=L)(ml_p, ml_t))


def main() -> None:
    put("torch", np.array(torch.__spec__.name))
    classification()
    regression()
    aggregation()
    collection_and_module()
    extras()
    np.savez(sys.argv[1], **out)


if __name__ == "__main__":
    main()
