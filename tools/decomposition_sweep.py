"""Single-op sweep of ``ExportedProgram.run_decompositions()``: each case exports a small
module with PyTorch and with chainrule (float64, the same parameters), decomposes both
to core ATen and compares the generated code and the graph signature; where they agree,
it runs chainrule's decomposed program, and the real ``torch.export.load`` of the .pt2
file chainrule saves, against PyTorch's eager forward.

    .venv/bin/python tools/decomposition_sweep.py            # one line per case
    .venv/bin/python tools/decomposition_sweep.py gn l1      # those cases, with the diffs

Each line says ``same (err ...)`` (the largest absolute error of both runs), ``DIFF`` (the
code or signature differs; the diff is printed for named cases), or which step failed.
"""

from __future__ import annotations

import difflib
import io
import sys
import warnings
from collections.abc import Callable

import numpy as np
import torch

import chainrule
import chainrule.export as cexport

_R = np.random.default_rng(0)


def _n(*shape: int) -> np.ndarray:
    return _R.standard_normal(shape)


def _u(*shape: int) -> np.ndarray:
    return _R.random(shape)


_TARGETS = np.array([0, 2, 1, 1])
_CAUSAL = np.triu(np.ones((3, 3), bool), 1)

# name -> (forward of (lib, F, module, *inputs), the inputs as arrays)
CASES: dict[str, tuple[Callable, Callable[[], list]]] = {
    "sdpa_causal": (
        lambda lib, F, m, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        lambda: [_n(2, 2, 3, 4), _n(2, 2, 5, 4), _n(2, 2, 5, 4)],
    ),
    "sdpa_bool": (
        lambda lib, F, m, q, k, v, b: F.scaled_dot_product_attention(q, k, v, attn_mask=b),
        lambda: [_n(2, 2, 3, 4), _n(2, 2, 5, 4), _n(2, 2, 5, 4), _u(3, 5) < 0.7],
    ),
    "sdpa_3d": (
        lambda lib, F, m, q, k, v: F.scaled_dot_product_attention(q, k, v),
        lambda: [_n(2, 3, 4), _n(2, 5, 4), _n(2, 5, 4)],
    ),
    "mha_kpm": (
        lambda lib, F, m, x, b: m.mha(x, x, x, key_padding_mask=b, need_weights=False)[0],
        lambda: [_n(2, 3, 4), np.array([[False, False, True], [False, True, True]])],
    ),
    "mha_bool": (
        lambda lib, F, m, x, b: m.mha(x, x, x, attn_mask=b, need_weights=False)[0],
        lambda: [_n(2, 3, 4), _CAUSAL],
    ),
    "mha_causal": (
        lambda lib, F, m, x, b: m.mha(x, x, x, attn_mask=b, is_causal=True, need_weights=False)[0],
        lambda: [_n(2, 3, 4), _CAUSAL],
    ),
    "enc_causal": (
        lambda lib, F, m, x, b: m.enc(x, src_mask=b, is_causal=True),
        lambda: [_n(2, 3, 4), _CAUSAL],
    ),
    "enc_mask": (lambda lib, F, m, x, b: m.enc(x, src_mask=b), lambda: [_n(2, 3, 4), _CAUSAL]),
    "hardswish": (lambda lib, F, m, x: F.hardswish(x), lambda: [_n(3, 4) * 4]),
    "hardsigmoid": (lambda lib, F, m, x: F.hardsigmoid(x), lambda: [_n(3, 4) * 4]),
    "leaky_relu": (lambda lib, F, m, x: F.leaky_relu(x, 0.1), lambda: [_n(3, 4)]),
    "elu": (lambda lib, F, m, x: F.elu(x), lambda: [_n(3, 4)]),
    "softplus": (lambda lib, F, m, x: F.softplus(x), lambda: [_n(3, 4)]),
    "relu6": (lambda lib, F, m, x: F.relu6(x * 4), lambda: [_n(3, 4)]),
    "hardtanh": (lambda lib, F, m, x: F.hardtanh(x), lambda: [_n(3, 4)]),
    "gelu": (lambda lib, F, m, x: F.gelu(x), lambda: [_n(3, 4)]),
    "tanh_sig": (
        lambda lib, F, m, x: (lib.tanh(x), lib.sigmoid(x), x.exp(), x.abs()),
        lambda: [_n(3, 4)],
    ),
    "mish": (lambda lib, F, m, x: F.mish(x), lambda: [_n(3, 4)]),
    "selu": (lambda lib, F, m, x: F.selu(x), lambda: [_n(3, 4)]),
    "celu": (lambda lib, F, m, x: F.celu(x), lambda: [_n(3, 4)]),
    "softsign": (lambda lib, F, m, x: F.softsign(x), lambda: [_n(3, 4)]),
    "logsigmoid": (lambda lib, F, m, x: F.logsigmoid(x), lambda: [_n(3, 4)]),
    "expand_as": (lambda lib, F, m, x, y: x.expand_as(y) * 1, lambda: [_n(1, 4), _n(3, 4)]),
    "l1": (
        lambda lib, F, m, x, y: (F.l1_loss(x, y), F.l1_loss(x, y, reduction="none")),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "l1_sum": (
        lambda lib, F, m, x, y: F.l1_loss(x, y, reduction="sum"),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "smooth_l1": (lambda lib, F, m, x, y: F.smooth_l1_loss(x, y), lambda: [_n(3, 4), _n(3, 4)]),
    "smooth_l1_b": (
        lambda lib, F, m, x, y: F.smooth_l1_loss(x, y, beta=0.5, reduction="none"),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "smooth_l1_0": (
        lambda lib, F, m, x, y: F.smooth_l1_loss(x, y, beta=0.0, reduction="sum"),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "huber": (lambda lib, F, m, x, y: F.huber_loss(x, y), lambda: [_n(3, 4), _n(3, 4)]),
    "huber_d": (
        lambda lib, F, m, x, y: F.huber_loss(x, y, delta=0.5, reduction="sum"),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "bce": (
        lambda lib, F, m, x, y: F.binary_cross_entropy(lib.sigmoid(x), y),
        lambda: [_n(3, 4), _u(3, 4)],
    ),
    "bce_w": (
        lambda lib, F, m, x, y, w: F.binary_cross_entropy(lib.sigmoid(x), y, weight=w),
        lambda: [_n(3, 4), _u(3, 4), _u(4)],
    ),
    "bcel": (
        lambda lib, F, m, x, y: F.binary_cross_entropy_with_logits(x, y),
        lambda: [_n(3, 4), _u(3, 4)],
    ),
    "bcel_pw": (
        lambda lib, F, m, x, y, p: F.binary_cross_entropy_with_logits(x, y, pos_weight=p),
        lambda: [_n(3, 4), _u(3, 4), _u(4) + 0.5],
    ),
    "nll": (
        lambda lib, F, m, x, t: F.nll_loss(F.log_softmax(x, 1), t),
        lambda: [_n(4, 3), _TARGETS],
    ),
    "nll_sum": (
        lambda lib, F, m, x, t: F.nll_loss(x, t, reduction="sum"),
        lambda: [_n(4, 3), _TARGETS],
    ),
    "nll_w": (
        lambda lib, F, m, x, t, w: (
            F.nll_loss(x, t, weight=w),
            F.nll_loss(x, t, ignore_index=1, reduction="none"),
            F.nll_loss(x, t, weight=w, reduction="sum"),
        ),
        lambda: [_n(4, 3), _TARGETS, _u(3)],
    ),
    "ce_nd": (
        lambda lib, F, m, x, t: (
            F.cross_entropy(x, t, reduction="none"),
            F.cross_entropy(x[..., None], t[..., None], reduction="sum"),
        ),
        lambda: [_n(4, 3, 2), np.array([[0, 2], [1, 1], [2, 0], [1, 0]])],
    ),
    "bce_more": (
        lambda lib, F, m, x, y, w, p: (
            F.kl_div(x, y),
            F.binary_cross_entropy_with_logits(x, y, weight=w),
            F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=p, reduction="sum"),
            F.binary_cross_entropy(y, y, reduction="none"),
        ),
        lambda: [_n(3, 4), _u(3, 4), _u(4), _u(4) + 0.5],
    ),
    "kl": (
        lambda lib, F, m, x, y: F.kl_div(x, y, reduction="batchmean"),
        lambda: [_n(3, 4), _u(3, 4)],
    ),
    "kl_log": (
        lambda lib, F, m, x, y: F.kl_div(x, y, reduction="sum", log_target=True),
        lambda: [_n(3, 4), _n(3, 4)],
    ),
    "ce_w": (
        lambda lib, F, m, x, t, w: F.cross_entropy(x, t, weight=w),
        lambda: [_n(4, 3), _TARGETS, _u(3)],
    ),
    "ce_ls": (
        lambda lib, F, m, x, t: F.cross_entropy(x, t, label_smoothing=0.1),
        lambda: [_n(4, 3), _TARGETS],
    ),
    "ce_3d": (
        lambda lib, F, m, x, t: F.cross_entropy(x, t),
        lambda: [_n(4, 3, 2), np.array([[0, 2], [1, 1], [2, 0], [1, 0]])],
    ),
    "ln_train": (lambda lib, F, m, x: m.ln(x), lambda: [_n(2, 3, 4)]),
    "gn": (lambda lib, F, m, x: m.gn(x), lambda: [_n(2, 4, 3)]),
    "gn_4d": (lambda lib, F, m, x: m.gn(x), lambda: [_n(2, 4, 3, 2)]),
    "inorm": (lambda lib, F, m, x: m.inorm(x), lambda: [_n(2, 4, 3)]),
    "adapt_avg1": (lambda lib, F, m, x: F.adaptive_avg_pool1d(x, 2), lambda: [_n(2, 4, 6)]),
    "adapt_avg2": (
        lambda lib, F, m, x: F.adaptive_avg_pool2d(x, (1, 1)),
        lambda: [_n(2, 4, 6, 6)],
    ),
    "adapt_avg2_3": (lambda lib, F, m, x: F.adaptive_avg_pool2d(x, 3), lambda: [_n(2, 4, 6, 6)]),
    "adapt_avg3": (
        lambda lib, F, m, x: F.adaptive_avg_pool3d(x, 2),
        lambda: [_n(2, 2, 4, 4, 4)],
    ),
    "adapt_max2": (lambda lib, F, m, x: F.adaptive_max_pool2d(x, 2), lambda: [_n(2, 4, 6, 6)]),
    "avg_pool2": (lambda lib, F, m, x: F.avg_pool2d(x, 2), lambda: [_n(2, 4, 6, 6)]),
    "max_pool1": (lambda lib, F, m, x: F.max_pool1d(x, 2), lambda: [_n(2, 4, 6)]),
    "max_pool1_s": (
        lambda lib, F, m, x: F.max_pool1d(x, 3, 2, 1),
        lambda: [_n(2, 4, 7)],
    ),
    "max_pool1_args": (
        lambda lib, F, m, x: (
            F.max_pool1d(x, 2, 2, 0, 2),
            F.max_pool1d(x, 3, ceil_mode=True),
            F.max_pool1d(x, 3, 1),
        ),
        lambda: [_n(2, 3, 8)],
    ),
    "adapt_ones": (
        lambda lib, F, m, x: (F.adaptive_avg_pool1d(x, 1), F.adaptive_avg_pool3d(x[None], 1)),
        lambda: [_n(2, 3, 8)],
    ),
    "gn_plain": (lambda lib, F, m, x: F.group_norm(x, 3), lambda: [_n(2, 6, 5)]),
    "up_near": (lambda lib, F, m, x: F.interpolate(x, scale_factor=2), lambda: [_n(2, 4, 3, 3)]),
    "up_bil": (
        lambda lib, F, m, x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        lambda: [_n(2, 4, 3, 3)],
    ),
    "emb": (lambda lib, F, m, t: m.emb(t), lambda: [np.array([[1, 2], [3, 9]])]),
    "cat": (lambda lib, F, m, x: lib.cat([x, x], 1), lambda: [_n(3, 4)]),
    "stack": (lambda lib, F, m, x: lib.stack([x, x]), lambda: [_n(3, 4)]),
    "stack_1": (lambda lib, F, m, x, y: lib.stack([x, y], 1), lambda: [_n(3, 4), _n(3, 4)]),
    "stack_last": (lambda lib, F, m, x: lib.stack([x, x, x], -1), lambda: [_n(3, 4)]),
    "where_num": (
        lambda lib, F, m, x, i: (lib.where(x > 0, 1.5, x), lib.where(i > 0, i, 2.5)),
        lambda: [_n(3, 4), np.array([[1, -2], [3, 0]])],
    ),
    "sum_dtype": (lambda lib, F, m, x: x.sum(dtype=lib.float32), lambda: [_n(3, 4)]),
    "reductions": (lambda lib, F, m, x: (x.mean(1), x.sum()), lambda: [_n(3, 4)]),
    "var": (lambda lib, F, m, x: x.var(0), lambda: [_n(3, 4)]),
    "var_all": (lambda lib, F, m, x: x.var(), lambda: [_n(3, 4)]),
    "var_kd": (
        lambda lib, F, m, x: x.var(1, unbiased=False, keepdim=True),
        lambda: [_n(3, 4)],
    ),
    "std": (lambda lib, F, m, x: x.std(), lambda: [_n(3, 4)]),
    "std_1": (lambda lib, F, m, x: x.std(1, correction=0), lambda: [_n(3, 4)]),
    "std_all": (
        lambda lib, F, m, x: (x.std(unbiased=False), x.var(unbiased=False), x.std(correction=2)),
        lambda: [_n(3, 4)],
    ),
    "std_kd": (lambda lib, F, m, x: x.std(-1, keepdim=True), lambda: [_n(3, 4)]),
    "chunk": (lambda lib, F, m, x: x.chunk(2, 1), lambda: [_n(2, 4)]),
    "chunk_odd": (lambda lib, F, m, x: x.chunk(2, 1), lambda: [_n(2, 5)]),
    "split": (lambda lib, F, m, x: x.split(1, 0), lambda: [_n(2, 4)]),
    "split_sizes": (lambda lib, F, m, x: x.split([1, 3], 1), lambda: [_n(2, 4)]),
    "unbind": (lambda lib, F, m, x: x.unbind(0), lambda: [_n(2, 4)]),
    "misc": (
        lambda lib, F, m, x: (
            x.clamp(-0.5, 0.5),
            x.pow(2),
            x.max(1),
            x.argmax(),
            x.norm(),
            lib.where(x > 0, x, 0.0),
        ),
        lambda: [_n(3, 4)],
    ),
    "index": (
        lambda lib, F, m, x: (
            x[:, 1],
            x[1:],
            x[..., None],
            x.permute(1, 0),
            x.repeat(2, 1),
            x.flip(0),
        ),
        lambda: [_n(3, 4)],
    ),
    "conv_t": (lambda lib, F, m, x: m.convt(x), lambda: [_n(1, 2, 3, 3)]),
    "conv_t1": (lambda lib, F, m, x: m.convt1(x), lambda: [_n(1, 2, 5)]),
    "conv_t_s": (
        lambda lib, F, m, x: F.conv_transpose2d(x, m.convt.weight, None, 2, 1, 1),
        lambda: [_n(1, 2, 3, 3)],
    ),
    "bn_eval": (lambda lib, F, m, x: m.bn(x), lambda: [_n(2, 4, 3)]),
    "dropout_eval": (
        lambda lib, F, m, x: F.dropout(x, 0.5, training=False) + 1,
        lambda: [_n(2, 4)],
    ),
    "glu_prelu": (lambda lib, F, m, x: (F.glu(x), m.prelu(x)), lambda: [_n(3, 4)]),
    "celu_alpha": (lambda lib, F, m, x: (F.celu(x, 0.5), F.selu(x)), lambda: [_n(2, 4, 3)]),
    "prelu_ch": (
        lambda lib, F, m, x, s: (m.prelu4(x), m.prelu(x), m.prelu(s), F.prelu(s, m.prelu.weight)),
        lambda: [_n(2, 4, 3, 2), _n(5)],
    ),
    "inorm_affine": (lambda lib, F, m, x: m.inorm_affine(x), lambda: [_n(2, 4, 3)]),
    "inorm_stats": (
        lambda lib, F, m, x, y: (m.inorm_stats(x), m.inorm2d(y)),
        lambda: [_n(2, 4, 3), _n(3, 4, 2, 2)],
    ),
    "inorm_eval": (
        lambda lib, F, m, x, y: (m.inorm_stats(x), m.inorm2d(y)),
        lambda: [_n(2, 4, 3), _n(3, 4, 2, 2)],
    ),
    "sdpa_gqa": (
        lambda lib, F, m, q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        lambda: [_n(2, 4, 3, 5), _n(2, 2, 6, 5), _n(2, 2, 6, 5)],
    ),
    "sdpa_gqa_mask": (
        lambda lib, F, m, q, k, v, b: F.scaled_dot_product_attention(
            q, k, v, attn_mask=b, enable_gqa=True
        ),
        lambda: [_n(2, 4, 3, 5), _n(2, 1, 6, 5), _n(2, 1, 6, 5), _u(3, 6) < 0.7],
    ),
    "log_softmax": (
        lambda lib, F, m, x: (F.log_softmax(x, -1), F.softmin(x, 1), F.normalize(x)),
        lambda: [_n(3, 4)],
    ),
}

# cases whose modules run in training mode (the others in eval)
TRAIN = {"ln_train", "gn", "gn_4d", "inorm", "inorm_affine", "inorm_stats"}


def make(lib, name: str, count: int):
    """A module of ``lib`` whose forward takes ``count`` inputs and runs case ``name``."""
    nn = lib.nn
    forward = CASES[name][0]

    class Layers(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mha = nn.MultiheadAttention(4, 2, batch_first=True)
            self.enc = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
            self.ln = nn.LayerNorm(4)
            self.gn = nn.GroupNorm(2, 4)
            self.inorm = nn.InstanceNorm1d(4)
            self.emb = nn.Embedding(10, 4)
            self.convt = nn.ConvTranspose2d(2, 3, 2)
            self.convt1 = nn.ConvTranspose1d(2, 3, 3, stride=2)
            self.bn = nn.BatchNorm1d(4)
            self.prelu = nn.PReLU()
            self.prelu4 = nn.PReLU(4)
            self.inorm_affine = nn.InstanceNorm1d(4, affine=True)
            self.inorm_stats = nn.InstanceNorm1d(4, track_running_stats=True)
            self.inorm2d = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)

    # a forward of exactly ``count`` named parameters, as export reads the signature
    params = ", ".join(f"a{i}" for i in range(count))
    scope = {"forward_of": forward, "lib": lib}
    exec(
        f"def forward(self, {params}):\n    return forward_of(lib, lib.nn.functional, self, {params})",
        scope,
    )
    return type("Case", (Layers,), {"forward": scope["forward"]})()


def _flat(x) -> list:
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat(v)]
    return [x]


def _error(got, want) -> float:
    errors = [
        float(np.abs(g.detach().double().numpy() - w.detach().double().numpy()).max())
        for g, w in zip(_flat(got), _flat(want))
        if w.numel()
    ]
    return max(errors, default=0.0)


def check(name: str, verbose: bool) -> str:
    """One line about case ``name``; the diffs printed where ``verbose``."""
    arrays = CASES[name][1]()
    torch.manual_seed(0)
    tm = make(torch, name, len(arrays)).double()
    cm = make(chainrule, name, len(arrays)).double()
    cm.load_state_dict(
        {k: chainrule.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    )
    if name not in TRAIN:
        tm.eval()
        cm.eval()
    targs = tuple(torch.tensor(a) for a in arrays)
    cargs = tuple(chainrule.tensor(a) for a in arrays)
    try:
        tep = torch.export.export(tm, targs).run_decompositions()
    except Exception as e:
        return f"torch fails {type(e).__name__}"
    try:
        cep0 = cexport.export(cm, cargs)
    except Exception as e:
        return f"EXPORT fails {type(e).__name__}: {str(e)[:150]}"
    try:
        cep = cep0.run_decompositions()
    except Exception as e:
        return f"DECOMP fails {type(e).__name__}: {str(e)[:200]}"
    want, got = tep.graph_module.code, cep.graph_module.code
    want_sig, got_sig = str(tep.graph_signature), str(cep.graph_signature)
    if want != got or want_sig != got_sig:
        if verbose:
            lines = difflib.unified_diff(
                (want + want_sig).split("\n"), (got + got_sig).split("\n"), lineterm="", n=1
            )
            print("\n".join(lines))
        return "DIFF"
    expected = tm(*targs)
    error = _error(cep.module()(*cargs), expected)
    buffer = io.BytesIO()
    cexport.save(cep, buffer)
    buffer.seek(0)
    loaded = torch.export.load(buffer)
    error = max(error, _error(loaded.module()(*targs), expected))
    return f"same (err {error:.1e})"


def main(names: list[str]) -> None:
    warnings.simplefilter("ignore")
    for name in names or list(CASES):
        print(name, check(name, bool(names)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
