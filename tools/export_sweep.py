"""Which one-call modules chainrule.export writes as PyTorch's torch.export does.

For each call of a curated list (a few hundred ``torch.nn.functional`` functions,
``torch.*`` math, reductions and shape functions, and Tensor methods, each with sample
arguments), a module whose forward is that one call is exported with the real
``torch.export.export`` and with ``chainrule.export.export``, and the generated code is
compared. Prints one line per call that is not the same: ``missing`` (no translation),
``differs`` (both export, the code is not the same: the first differing line of each is
shown), ``error`` (chainrule fails otherwise), ``torch-fails`` (PyTorch itself cannot
export it: not counted), then the counts.

    PYTHONPATH=src .venv/bin/python tools/export_sweep.py [NAME_SUBSTRING ...] [-v]

``-v`` prints the calls that match, too. The list is ``CASES``: (name, expression,
inputs), where the expression reads ``L`` (the library), ``F`` (its
``nn.functional``) and the inputs ``a``, ``b``, ``c``, ``d`` named by the letters of
``inputs`` in ``ARRAYS``.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

_R = np.random.default_rng(0)

# sample inputs by letter
ARRAYS: dict[str, np.ndarray] = {
    "x": _R.standard_normal((2, 3, 4, 5)),  # an image batch (N, C, H, W)
    "y": _R.standard_normal((2, 3, 4, 5)),
    "m": _R.standard_normal((3, 4)),  # matrices
    "n": _R.standard_normal((4, 5)),
    "k": _R.standard_normal((3, 5)),
    "v": _R.standard_normal(4),  # vectors
    "w": _R.standard_normal(3),
    "b": _R.standard_normal((2, 3, 4)),  # batches of matrices
    "e": _R.standard_normal((2, 4, 5)),
    "s": _R.standard_normal((2, 3, 5)),  # a sequence batch (N, C, L)
    "t": _R.standard_normal((2, 3, 4, 5, 6)),  # a volume batch (N, C, D, H, W)
    "p": _R.uniform(0.1, 0.9, (3, 4)),  # probabilities
    "q": _R.uniform(0.1, 0.9, (3, 4)),
    "i": _R.integers(0, 3, (3, 4)).astype(np.int64),  # indices into dims of size 3, 4
    "j": np.array([2, 0, 1], dtype=np.int64),
    "c": _R.integers(0, 4, 3).astype(np.int64),  # class indices
    "o": np.sign(_R.standard_normal((3, 4))),  # +-1 targets
    "z": _R.standard_normal((3, 4)) > 0,  # a mask
    "g": _R.standard_normal((3, 3, 3, 3)),  # conv weight (out, in, kh, kw)
    "h": _R.standard_normal((3, 3, 3)),  # conv1d weight
    "f": _R.standard_normal((3, 3, 3, 3, 3)),  # conv3d weight
    "l": _R.standard_normal((2, 12, 3, 3)),  # pixel_shuffle input
    "u": _R.standard_normal((2, 27, 4)),  # fold input: (N, C*kh*kw, L)
    "r": _R.integers(1, 4, 3).astype(np.int64),  # repeats
}
for _name in ("m", "n", "k", "p", "q", "b", "x"):
    ARRAYS[_name.upper()] = ARRAYS[_name] * 0.5 + 0.25  # second operands of the same shape

_U = """abs absolute acos arccos acosh asin arcsin asinh atan arctan atanh ceil cos cosh
deg2rad rad2deg digamma erf erfc erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p
log2 logit i0 isnan isinf isfinite isneginf isposinf isreal nan_to_num neg negative positive
reciprocal round rsqrt sigmoid sign sgn signbit sin sinc sinh sqrt square tan tanh trunc
logical_not angle""".split()
_B = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod
atan2 arctan2 pow float_power maximum minimum fmax fmin eq ne gt lt ge le greater less
greater_equal less_equal not_equal hypot copysign logaddexp logaddexp2 xlogy nextafter
heaviside logical_and logical_or logical_xor""".split()
_R_DIMS = """sum mean prod nansum nanmean logsumexp amax amin argmax argmin max min median
nanmedian mode std var all any count_nonzero norm""".split()

CASES: list[tuple[str, str, str]] = [
    *[(f"torch.{u}", f"L.{u}(a)", "p" if u in ("acosh",) else "m") for u in _U],
    *[(f"Tensor.{u}", f"a.{u}()", "m") for u in ("abs", "exp", "sigmoid", "relu", "square")],
    *[(f"torch.{op}", f"L.{op}(a, b)", "mM") for op in _B],
    ("torch.add alpha", "L.add(a, b, alpha=2)", "mM"),
    ("torch.lerp", "L.lerp(a, b, 0.3)", "mM"),
    ("torch.addcmul", "L.addcmul(a, b, b, value=0.5)", "mM"),
    ("torch.addcdiv", "L.addcdiv(a, b, b, value=0.5)", "mM"),
    ("torch.clamp", "L.clamp(a, -0.5, 0.5)", "m"),
    ("torch.clamp_min", "L.clamp_min(a, 0.1)", "m"),
    ("torch.clamp_max", "L.clamp_max(a, 0.1)", "m"),
    ("torch.clamp tensor", "L.clamp(a, min=b)", "mM"),
    ("torch.where", "L.where(c, a, b)", "mMz"),
    ("torch.where scalar", "L.where(c, a, 0.0)", "mMz"),
    ("Tensor.masked_fill", "a.masked_fill(c, 1.0)", "mMz"),
    ("torch.masked_select", "L.masked_select(a, c)", "mMz"),
    ("Tensor.masked_scatter", "a.masked_scatter(c, b)", "mMz"),
    *[(f"torch.{r}", f"L.{r}(a)", "m") for r in _R_DIMS if r != "logsumexp"],
    *[(f"torch.{r} dim", f"L.{r}(a, 1)", "m") for r in _R_DIMS if r not in ("norm",)],
    *[(f"torch.{r} keepdim", f"L.{r}(a, 1, keepdim=True)", "m") for r in ("sum", "mean")],
    ("torch.norm dim", "L.norm(a, dim=1)", "m"),
    ("torch.std_mean", "L.std_mean(a, 1)", "m"),
    ("torch.var_mean", "L.var_mean(a, 1)", "m"),
    ("torch.aminmax", "L.aminmax(a, dim=1)", "m"),
    ("torch.quantile", "L.quantile(a, 0.3, dim=1)", "m"),
    ("torch.cumsum", "L.cumsum(a, 1)", "m"),
    ("torch.cumprod", "L.cumprod(a, 1)", "m"),
    ("torch.cummax", "L.cummax(a, 1)", "m"),
    ("torch.cummin", "L.cummin(a, 1)", "m"),
    ("torch.logcumsumexp", "L.logcumsumexp(a, 1)", "m"),
    ("torch.diff", "L.diff(a, dim=1)", "m"),
    ("torch.sort", "L.sort(a, 1)", "m"),
    ("torch.argsort", "L.argsort(a, 1)", "m"),
    ("torch.topk", "L.topk(a, 2, 1)", "m"),
    ("torch.kthvalue", "L.kthvalue(a, 2, 1)", "m"),
    ("torch.msort", "L.msort(a)", "m"),
    # linear algebra
    ("torch.mm", "L.mm(a, b)", "mn"),
    ("torch.matmul", "L.matmul(a, b)", "mn"),
    ("torch.bmm", "L.bmm(a, b)", "be"),
    ("torch.baddbmm", "L.baddbmm(c, a, b)", "bes"),
    ("torch.addmm", "L.addmm(c, a, b)", "mnk"),
    ("torch.addmm beta", "L.addmm(c, a, b, beta=0.5, alpha=2)", "mnk"),
    ("torch.addmv", "L.addmv(c, a, b)", "mvw"),
    ("torch.addbmm", "L.addbmm(c, a, b)", "bek"),
    ("torch.mv", "L.mv(a, b)", "mv"),
    ("torch.dot", "L.dot(a, a)", "v"),
    ("torch.vdot", "L.vdot(a, a)", "v"),
    ("torch.inner", "L.inner(a, a)", "m"),
    ("torch.outer", "L.outer(a, b)", "vw"),
    ("torch.ger", "L.ger(a, b)", "vw"),
    ("torch.einsum", "L.einsum('ij,jk->ik', a, b)", "mn"),
    ("torch.tensordot", "L.tensordot(a, b, dims=1)", "mn"),
    ("torch.kron", "L.kron(a, b)", "mn"),
    ("torch.cross", "L.cross(a, b, dim=0)", "mM"),
    ("torch.trace", "L.trace(a)", "m"),
    ("torch.cdist", "L.cdist(a, b)", "mM"),
    ("torch.chain_matmul", "L.linalg.multi_dot([a, b])", "mn"),
    ("torch.linalg.norm", "L.linalg.norm(a)", "m"),
    ("torch.linalg.vector_norm", "L.linalg.vector_norm(a, 3, dim=1)", "m"),
    ("torch.linalg.matrix_norm", "L.linalg.matrix_norm(a)", "m"),
    # shapes
    ("Tensor.view", "a.view(12)", "m"),
    ("Tensor.view -1", "a.view(-1, 2)", "m"),
    ("Tensor.view_as", "a.view_as(b)", "mM"),
    ("Tensor.reshape_as", "a.reshape_as(b)", "mM"),
    ("Tensor.expand_as", "a.expand_as(b)", "vm"),
    ("Tensor.expand", "a.expand(4, 3)", "w"),
    ("torch.broadcast_to", "L.broadcast_to(a, (4, 3))", "w"),
    ("torch.reshape", "L.reshape(a, (4, 3))", "m"),
    ("torch.flatten", "L.flatten(a, 1)", "x"),
    ("torch.unflatten", "L.unflatten(a, 1, (2, 2))", "m"),
    ("Tensor.unflatten", "a.unflatten(1, (2, 2))", "m"),
    ("torch.ravel", "L.ravel(a)", "m"),
    ("torch.squeeze", "L.squeeze(a)", "x"),
    ("torch.unsqueeze", "L.unsqueeze(a, 1)", "m"),
    ("torch.transpose", "L.transpose(a, 0, 1)", "m"),
    ("torch.swapaxes", "L.swapaxes(a, 0, 1)", "m"),
    ("torch.swapdims", "L.swapdims(a, 0, 1)", "m"),
    ("torch.permute", "L.permute(a, (1, 0))", "m"),
    ("Tensor.mT", "a.mT", "b"),
    ("Tensor.T", "a.T", "m"),
    ("torch.t", "L.t(a)", "m"),
    ("torch.adjoint", "L.adjoint(a)", "m"),
    ("torch.movedim", "L.movedim(a, 0, 1)", "b"),
    ("torch.moveaxis", "L.moveaxis(a, 0, 1)", "b"),
    ("torch.cat", "L.cat([a, b])", "mM"),
    ("torch.concat", "L.concat([a, b], 1)", "mM"),
    ("torch.stack", "L.stack([a, b])", "mM"),
    ("torch.hstack", "L.hstack([a, b])", "mM"),
    ("torch.vstack", "L.vstack([a, b])", "mM"),
    ("torch.dstack", "L.dstack([a, b])", "mM"),
    ("torch.column_stack", "L.column_stack([a, b])", "mM"),
    ("torch.row_stack", "L.row_stack([a, b])", "mM"),
    ("torch.split", "L.split(a, 2, 1)", "m"),
    ("torch.split sizes", "L.split(a, [1, 3], 1)", "m"),
    ("torch.tensor_split", "L.tensor_split(a, 2, 1)", "m"),
    ("torch.chunk", "L.chunk(a, 2, 1)", "m"),
    ("torch.unbind", "L.unbind(a, 1)", "m"),
    ("torch.hsplit", "L.hsplit(a, 2)", "m"),
    ("torch.vsplit", "L.vsplit(a, 3)", "m"),
    ("torch.narrow", "L.narrow(a, 1, 1, 2)", "m"),
    ("torch.select", "L.select(a, 1, 2)", "m"),
    ("torch.flip", "L.flip(a, (0,))", "m"),
    ("torch.fliplr", "L.fliplr(a)", "m"),
    ("torch.flipud", "L.flipud(a)", "m"),
    ("torch.roll", "L.roll(a, 1, 1)", "m"),
    ("torch.rot90", "L.rot90(a)", "m"),
    ("torch.tril", "L.tril(a)", "m"),
    ("torch.triu", "L.triu(a, 1)", "m"),
    ("torch.diag", "L.diag(a)", "m"),
    ("torch.diag vector", "L.diag(a)", "v"),
    ("torch.diag_embed", "L.diag_embed(a)", "m"),
    ("torch.diagonal", "L.diagonal(a)", "m"),
    ("torch.diagflat", "L.diagflat(a)", "v"),
    ("Tensor.repeat", "a.repeat(2, 1)", "m"),
    ("torch.tile", "L.tile(a, (2, 1))", "m"),
    ("torch.repeat_interleave", "L.repeat_interleave(a, 2, 1)", "m"),
    ("torch.repeat_interleave tensor", "L.repeat_interleave(a, b, 0)", "mr"),
    ("Tensor.unfold", "a.unfold(1, 2, 1)", "m"),
    ("torch.atleast_2d", "L.atleast_2d(a)", "v"),
    ("torch.atleast_3d", "L.atleast_3d(a)", "m"),
    ("torch.meshgrid", "L.meshgrid(a, b, indexing='ij')", "vw"),
    ("torch.cartesian_prod", "L.cartesian_prod(a, b)", "vw"),
    ("torch.block_diag", "L.block_diag(a, b)", "mn"),
    ("torch.clone", "L.clone(a)", "m"),
    ("Tensor.contiguous", "a.t().contiguous()", "m"),
    ("Tensor.type_as", "a.type_as(b)", "im"),
    ("torch.zeros_like", "L.zeros_like(a)", "m"),
    ("torch.ones_like", "L.ones_like(a)", "m"),
    ("torch.full_like", "L.full_like(a, 2.0)", "m"),
    ("torch.empty_like", "L.empty_like(a) * 0", "m"),
    ("torch.rand_like", "L.rand_like(a) * 0", "m"),
    # indexing
    ("torch.gather", "L.gather(a, 1, b)", "mi"),
    ("torch.take_along_dim", "L.take_along_dim(a, b, 1)", "mi"),
    ("torch.take", "L.take(a, b)", "mi"),
    ("torch.scatter", "L.scatter(a, 1, b, c)", "miM"),
    ("torch.scatter value", "L.scatter(a, 1, b, 1.5)", "mi"),
    ("torch.scatter_add", "L.scatter_add(a, 1, b, c)", "miM"),
    ("torch.scatter_reduce", "L.scatter_reduce(a, 1, b, c, 'amax')", "miM"),
    ("torch.index_select", "L.index_select(a, 0, b)", "mj"),
    ("torch.index_add", "L.index_add(a, 0, b, c)", "mjM"),
    ("torch.index_copy", "L.index_copy(a, 0, b, c)", "mjM"),
    ("torch.index_fill", "L.index_fill(a, 0, b, 2.0)", "mj"),
    ("Tensor.index_put", "a.index_put((b,), c[0])", "mjM"),
    ("getitem tensor", "a[b]", "mj"),
    ("getitem slice", "a[1:, ::2]", "m"),
    ("getitem mask", "a[b]", "mz"),
    ("torch.nonzero", "L.nonzero(a)", "z"),
    ("torch.argwhere", "L.argwhere(a)", "z"),
    ("torch.searchsorted", "L.searchsorted(L.sort(a).values, b)", "vw"),
    ("torch.bucketize", "L.bucketize(b, L.sort(a).values)", "vw"),
    ("torch.isin", "L.isin(a, b)", "ij"),
    ("torch.bincount", "L.bincount(a)", "c"),
    ("torch.unique", "L.unique(a)", "c"),
    ("torch.unique inverse counts", "L.unique(a, return_inverse=True, return_counts=True)", "c"),
    ("torch.unique dim", "L.unique(a, dim=1)", "i"),
    ("Tensor.unique", "a.unique(sorted=False)", "i"),
    ("torch.unique_consecutive", "L.unique_consecutive(a, return_counts=True)", "c"),
    ("torch.nonzero as_tuple", "L.nonzero(a, as_tuple=True)", "z"),
    ("torch.histc", "L.histc(a)", "m"),
    ("torch.allclose-like isclose", "L.isclose(a, b)", "mM"),
    ("torch.clamp_ inplace", "a.clone().clamp_(0)", "m"),
    # activations
    *[
        (f"F.{act}", f"F.{act}(a)", "x")
        for act in """relu relu6 elu selu celu gelu silu mish hardswish hardsigmoid
        hardtanh leaky_relu logsigmoid softsign softplus tanhshrink softshrink hardshrink
        sigmoid tanh rrelu""".split()
    ],
    ("F.glu", "F.glu(a)", "m"),
    ("F.glu dim", "F.glu(a, 0)", "n"),
    ("F.gelu tanh", "F.gelu(a, approximate='tanh')", "x"),
    ("F.elu alpha", "F.elu(a, 0.5)", "x"),
    ("F.celu alpha", "F.celu(a, 0.5)", "x"),
    ("F.leaky_relu slope", "F.leaky_relu(a, 0.2)", "x"),
    ("F.softplus beta", "F.softplus(a, 2.0, 10.0)", "x"),
    ("F.softshrink lambd", "F.softshrink(a, 0.3)", "x"),
    ("F.hardshrink lambd", "F.hardshrink(a, 0.3)", "x"),
    ("F.threshold", "F.threshold(a, 0.1, 20.0)", "x"),
    ("F.hardtanh range", "F.hardtanh(a, -2.0, 2.0)", "x"),
    ("F.prelu", "F.prelu(a, b)", "xw"),
    ("F.relu inplace", "F.relu(a.clone(), inplace=True)", "x"),
    ("F.softmax", "F.softmax(a, 1)", "x"),
    ("F.log_softmax", "F.log_softmax(a, 1)", "x"),
    ("F.softmin", "F.softmin(a, 1)", "x"),
    ("F.gumbel_softmax-like", "F.softmax(a / 0.5, -1)", "x"),
    ("F.dropout eval", "F.dropout(a, 0.5, False)", "x"),
    ("F.dropout1d eval", "F.dropout1d(a, 0.5, False)", "s"),
    ("F.dropout2d eval", "F.dropout2d(a, 0.5, False)", "x"),
    ("F.dropout3d eval", "F.dropout3d(a, 0.5, False)", "t"),
    ("F.alpha_dropout eval", "F.alpha_dropout(a, 0.5, False)", "x"),
    ("F.feature_alpha_dropout eval", "F.feature_alpha_dropout(a, 0.5, False)", "x"),
    # norms
    ("F.batch_norm", "F.batch_norm(a, b, b.abs())", "xw"),
    ("F.batch_norm training", "F.batch_norm(a, None, None, training=True)", "x"),
    ("F.layer_norm", "F.layer_norm(a, (5,))", "x"),
    ("F.group_norm", "F.group_norm(a, 3)", "x"),
    ("F.instance_norm", "F.instance_norm(a)", "x"),
    ("F.instance_norm affine", "F.instance_norm(a, weight=b, bias=b)", "xw"),
    ("F.local_response_norm", "F.local_response_norm(a, 2)", "x"),
    ("F.rms_norm", "F.rms_norm(a, (5,))", "x"),
    ("F.normalize", "F.normalize(a)", "x"),
    ("F.normalize dim", "F.normalize(a, p=1.0, dim=-1)", "x"),
    # pools
    ("F.max_pool1d", "F.max_pool1d(a, 2)", "s"),
    ("F.max_pool2d", "F.max_pool2d(a, 2)", "x"),
    ("F.max_pool3d", "F.max_pool3d(a, 2)", "t"),
    ("F.max_pool2d indices", "F.max_pool2d(a, 2, return_indices=True)", "x"),
    ("F.avg_pool1d", "F.avg_pool1d(a, 2)", "s"),
    ("F.avg_pool2d", "F.avg_pool2d(a, 2)", "x"),
    ("F.avg_pool3d", "F.avg_pool3d(a, 2)", "t"),
    ("F.lp_pool1d", "F.lp_pool1d(a, 2.0, 2)", "s"),
    ("F.lp_pool2d", "F.lp_pool2d(a, 2.0, 2)", "x"),
    ("F.adaptive_avg_pool1d", "F.adaptive_avg_pool1d(a, 2)", "s"),
    ("F.adaptive_avg_pool2d", "F.adaptive_avg_pool2d(a, 2)", "x"),
    ("F.adaptive_avg_pool3d", "F.adaptive_avg_pool3d(a, 2)", "t"),
    ("F.adaptive_max_pool1d", "F.adaptive_max_pool1d(a, 2)", "s"),
    ("F.adaptive_max_pool2d", "F.adaptive_max_pool2d(a, 2)", "x"),
    ("F.adaptive_max_pool3d", "F.adaptive_max_pool3d(a, 2)", "t"),
    (
        "F.max_unpool2d",
        "F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2, output_size=a.shape[-2:])",
        "x",
    ),
    # convolutions and resampling
    ("F.conv1d", "F.conv1d(a, b)", "sh"),
    ("F.conv2d", "F.conv2d(a, b, padding=1)", "xg"),
    ("F.conv3d", "F.conv3d(a, b)", "tf"),
    ("F.conv2d same", "F.conv2d(a, b, padding='same')", "xg"),
    ("F.conv_transpose1d", "F.conv_transpose1d(a, b)", "sh"),
    ("F.conv_transpose2d", "F.conv_transpose2d(a, b, stride=2)", "xg"),
    ("F.conv_transpose3d", "F.conv_transpose3d(a, b)", "tf"),
    ("F.linear", "F.linear(a, b)", "nk"),
    ("F.unfold", "F.unfold(a, 3, padding=1)", "x"),
    ("F.fold", "F.fold(a, (4, 1), 3, padding=1)", "u"),
    ("F.pixel_shuffle", "F.pixel_shuffle(a, 2)", "l"),
    ("F.pixel_unshuffle", "F.pixel_unshuffle(a[..., :4], 2)", "x"),
    ("F.channel_shuffle", "F.channel_shuffle(a, 3)", "l"),
    ("F.pad", "F.pad(a, (1, 2))", "x"),
    ("F.pad reflect", "F.pad(a, (1, 2), mode='reflect')", "s"),
    ("F.pad replicate", "F.pad(a, (1, 2), mode='replicate')", "s"),
    ("F.pad circular", "F.pad(a, (1, 2), mode='circular')", "s"),
    ("F.interpolate nearest", "F.interpolate(a, scale_factor=2)", "x"),
    ("F.interpolate bilinear", "F.interpolate(a, size=(6, 7), mode='bilinear')", "x"),
    ("F.interpolate bicubic", "F.interpolate(a, scale_factor=2, mode='bicubic')", "x"),
    ("F.upsample", "F.upsample(a, scale_factor=2)", "x"),
    ("F.grid_sample", "F.grid_sample(a, b[:, :, :, :2].tanh(), align_corners=False)", "xy"),
    ("F.affine_grid", "F.affine_grid(a[:, :2, :3], [2, 3, 4, 5], align_corners=False)", "b"),
    ("F.embedding", "F.embedding(b, a)", "nc"),
    ("F.embedding_bag", "F.embedding_bag(b.view(1, 3), a)", "nc"),
    ("F.one_hot", "F.one_hot(a, 4)", "c"),
    # distances and similarities
    ("F.cosine_similarity", "F.cosine_similarity(a, b)", "mM"),
    ("F.pairwise_distance", "F.pairwise_distance(a, b)", "mM"),
    ("F.pdist", "F.pdist(a)", "m"),
    # losses
    *[
        (f"F.{loss}", f"F.{loss}(a, b)", "mM")
        for loss in "mse_loss l1_loss smooth_l1_loss huber_loss soft_margin_loss".split()
    ],
    ("F.mse_loss none", "F.mse_loss(a, b, reduction='none')", "mM"),
    ("F.soft_margin_loss", "F.soft_margin_loss(a, b)", "mo"),
    ("F.binary_cross_entropy", "F.binary_cross_entropy(a, b)", "pq"),
    ("F.binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits(a, b)", "mp"),
    ("F.cross_entropy", "F.cross_entropy(a, b)", "mc"),
    ("F.cross_entropy probs", "F.cross_entropy(a, b)", "mp"),
    ("F.nll_loss", "F.nll_loss(a, b)", "mc"),
    ("F.kl_div", "F.kl_div(a, b, reduction='batchmean')", "mp"),
    ("F.poisson_nll_loss", "F.poisson_nll_loss(a, b)", "mp"),
    ("F.hinge_embedding_loss", "F.hinge_embedding_loss(a, b)", "mo"),
    ("F.margin_ranking_loss", "F.margin_ranking_loss(a, b, c)", "mMo"),
    ("F.multilabel_soft_margin_loss", "F.multilabel_soft_margin_loss(a, b)", "mp"),
    ("F.multi_margin_loss", "F.multi_margin_loss(a, b)", "mc"),
    ("F.multilabel_margin_loss", "F.multilabel_margin_loss(a, b)", "mi"),
    ("F.cosine_embedding_loss", "F.cosine_embedding_loss(a, b, c[:, 0])", "mMo"),
    ("F.triplet_margin_loss", "F.triplet_margin_loss(a, b, c)", "mMq"),
    # comparisons and logic
    ("torch.equal-like eq", "a == b", "mM"),
    ("Tensor.__invert__", "~a", "z"),
    ("Tensor.__xor__", "a ^ b", "zz"),
    ("Tensor.__mod__", "a % 2", "m"),
    ("Tensor.__abs__", "abs(a)", "m"),
    ("torch.sign", "L.sign(a)", "m"),
    ("torch.clip", "L.clip(a, 0, 1)", "m"),
]

_EXPORT_WARNINGS = ("ignore",)


def _module(lib: Any, expr: str, n: int) -> Any:
    F = lib.nn.functional
    names = "abcd"[:n]
    code = compile(expr, "<sweep>", "eval")

    class One(lib.nn.Module):
        def forward(self, *args: Any) -> Any:
            scope = {"L": lib, "F": F, **dict(zip(names, args))}
            return eval(code, scope)

    return One()


def _inputs(lib: Any, letters: str) -> tuple:
    return tuple(lib.tensor(ARRAYS[c]) for c in letters)


def check(expr: str, letters: str) -> tuple[str, str]:
    """``(status, detail)`` of one case: ok, missing, differs, error or torch-fails."""
    import torch

    import chainrule
    import chainrule.export as cexport

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = torch.export.export(_module(torch, expr, len(letters)), _inputs(torch, letters))
        except Exception as e:  # noqa: BLE001 (any failure of PyTorch: not ours)
            return "torch-fails", f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
        try:
            got = cexport.export(
                _module(chainrule, expr, len(letters)), _inputs(chainrule, letters)
            )
        except Exception as e:  # noqa: BLE001
            first = (str(e).splitlines() or [""])[0][:120]
            if "cannot export the call" in first:
                return "missing", first.rsplit(" ", 1)[-1]
            return "error", f"{type(e).__name__}: {first}"
    w, g = want.graph_module.code, got.graph_module.code
    if w == g:
        return "ok", ""
    wl, gl = w.strip().splitlines(), g.strip().splitlines()
    for a, b in zip(wl + [""] * len(gl), gl + [""] * len(wl)):
        if a != b:
            return "differs", f"\n      torch:     {a.strip()}\n      chainrule: {b.strip()}"
    return "differs", ""


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts: dict[str, int] = {}
    for name, expr, letters in CASES:
        if wanted and not any(w in name for w in wanted):
            continue
        status, detail = check(expr, letters)
        counts[status] = counts.get(status, 0) + 1
        if status != "ok" or verbose:
            print(f"{status:12s} {name:36s} {detail}", flush=True)
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
