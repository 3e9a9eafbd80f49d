"""Losses with PyTorch's fused kernels: mse, smooth_l1, huber, soft_margin,
binary_cross_entropy (and with logits), nll_loss, multi_margin, multilabel_margin.

Each is one op with its reduction inside it (``reduction``: 'none', 'mean' or 'sum'), as
PyTorch's ``MseLossBackward0`` and its kin are one node. A VJP is the derivative of the
loss per element times the output gradient, divided by the count for 'mean'; a JVP is the
same reduction of the derivative times the tangent. Targets that have no gradient in
PyTorch (class indices, ±1 labels of soft_margin) and weights are forward parameters. The
losses PyTorch composes from other ops (l1, kl_div, cross_entropy, ...) are composed the
same way in ``api/parsers/losses.py``."""

from __future__ import annotations

import math

from .. import _dtypes
from .._backend import clip_ufunc, loud, ndarray, quiet, row_indices, xp
from .._promotion import result_type
from .._tensor import Tensor, _make
from ..autograd.recording import array_of, defop, floating_only
from . import activations, binary, copies, logical, reductions, shapes, unary

# ----- reductions ----------------------------------------------------------------------------


def _reduced(loss, reduction: str):
    """The loss per element ('none'), its mean or its sum; on arrays in a forward, with the
    ops themselves on tensors in a JVP"""
    if reduction == "mean":
        return reductions.mean(loss)
    if reduction == "sum":
        return reductions.sum(loss)
    return loss


def _count(*values) -> int:
    """The number of elements of the broadcast of ``values``: what 'mean' divides by."""
    sizes = [array_of(v).shape for v in values]
    if all(s == sizes[0] for s in sizes):  # (the usual case: no broadcast to work out)
        return math.prod(sizes[0])
    return math.prod(xp.broadcast_shapes(*sizes))


def _per_element(g, reduction: str, *values):
    """The output gradient's share per element: g / n for 'mean' (n elements), else g
    (a 0-d g broadcasts for 'sum')"""
    return g / _count(*values) if reduction == "mean" else g


# ----- regression: mse, smooth_l1, huber -----------------------------------------------------


def _mse_loss(x, target, reduction="mean"):
    """(x - target)², reduced"""
    return _reduced((x - target) ** 2, reduction)


mse_loss = defop(
    "mse_loss",
    _mse_loss,
    args=("x", "target"),
    node="MseLossBackward0",
    dtypes=floating_only("mse_cpu"),
    vjp=(
        lambda g, x, target, reduction: (
            _per_element(g, reduction, x, target) * ((x - target) * 2)
        ),  # ∂/∂x (x - target)² = 2(x - target)
        lambda g, x, target, reduction: (
            _per_element(g, reduction, x, target) * ((target - x) * 2)
        ),  # ∂/∂target (x - target)² = -2(x - target)
    ),
    jvp=(
        lambda t, x, target, reduction: _reduced(
            t * ((x - target) * 2), reduction
        ),  # J t = reduction of 2(x - target)·t
        lambda t, x, target, reduction: _reduced(
            t * ((target - x) * 2), reduction
        ),  # J t = reduction of -2(x - target)·t
    ),
)


def _smooth_l1_loss(x, target, reduction="mean", beta=1.0):
    """0.5·d²/beta where |d| < beta, else |d| - 0.5·beta (d = x - target), reduced"""
    d = x - target
    a = xp.abs(d)
    if beta > 0 and activations.host_floats(x, target):
        # the same ufuncs written in place (a quotient by 1 skipped: it is the number
        # itself), the branch beyond beta put in by its bits: where's, without its branch
        # per element
        loss = 0.5 * d
        loss *= d
        if beta != 1:
            loss /= beta
        beyond = ~(a < beta)
        a -= 0.5 * beta
        activations.put_where(loss, beyond, a)
        return _reduced(loss, reduction)
    return _reduced(xp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)


def _smooth_l1_slope(x, target, beta):
    """d/dd of smooth_l1: d/beta for |d| <= beta, sign(d) beyond (d = x - target)"""
    d = x - target
    if beta > 0 and clip_ufunc is not None and activations.host_floats(x, target):
        # arrays: d/beta clipped to [-1, 1] is the selects' value: |d| <= beta gives
        # |d/beta| <= 1 (a quotient rounds monotonically), beyond it ±1 (inf included), and
        # nan stays nan; a quotient by 1 is skipped (it is d itself)
        slope = d / beta if beta != 1 else d
        return clip_ufunc(slope, -1.0, 1.0, out=slope)
    da = array_of(d)
    return logical.select(da < -beta, -1.0, logical.select(da > beta, 1.0, d / beta))


smooth_l1_loss = defop(
    "smooth_l1_loss",
    _smooth_l1_loss,
    args=("x", "target"),
    node="SmoothL1LossBackward0",
    dtypes=floating_only("smooth_l1_cpu"),
    vjp=(
        lambda g, x, target, reduction, beta: (
            _per_element(g, reduction, x, target) * _smooth_l1_slope(x, target, beta)
        ),  # ∂/∂x = d/beta for |d| <= beta, sign(d) beyond (d = x - target)
        lambda g, x, target, reduction, beta: (
            _per_element(g, reduction, x, target) * -_smooth_l1_slope(x, target, beta)
        ),  # ∂/∂target = -∂/∂x
    ),
    jvp=(
        lambda t, x, target, reduction, beta: _reduced(
            t * _smooth_l1_slope(x, target, beta), reduction
        ),  # J t = reduction of the slope times t
        lambda t, x, target, reduction, beta: _reduced(
            t * -_smooth_l1_slope(x, target, beta), reduction
        ),  # J t = reduction of minus the slope times t
    ),
    conventions="At |x - target| = beta both pieces have slope ±1: the gradient is ±1.",
)


def _huber_loss(x, target, reduction="mean", delta=1.0):
    """0.5·d² where |d| < delta, else delta·(|d| - 0.5·delta) (d = x - target), reduced"""
    d = x - target
    a = xp.abs(d)
    return _reduced(xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta)), reduction)


def _huber_slope(x, target, delta):
    """d/dd of huber: d clipped to [-delta, delta] (d = x - target)"""
    d = x - target
    da = array_of(d)
    return logical.select(da < -delta, -delta, logical.select(da > delta, delta, d))


huber_loss = defop(
    "huber_loss",
    _huber_loss,
    args=("x", "target"),
    node="HuberLossBackward0",
    dtypes=floating_only("huber_cpu"),
    vjp=(
        lambda g, x, target, reduction, delta: (
            _per_element(g, reduction, x, target) * _huber_slope(x, target, delta)
        ),  # ∂/∂x = d clipped to [-delta, delta] (d = x - target)
        lambda g, x, target, reduction, delta: (
            _per_element(g, reduction, x, target) * -_huber_slope(x, target, delta)
        ),  # ∂/∂target = -∂/∂x
    ),
    jvp=(
        lambda t, x, target, reduction, delta: _reduced(
            t * _huber_slope(x, target, delta), reduction
        ),  # J t = reduction of the clipped d times t
        lambda t, x, target, reduction, delta: _reduced(
            t * -_huber_slope(x, target, delta), reduction
        ),  # J t = reduction of minus the clipped d times t
    ),
)

# ----- two classes: soft_margin, binary_cross_entropy ----------------------------------------


def _soft_margin_loss(x, target=None, reduction="mean"):
    """log(1 + e^(-target·x)), reduced (target: labels ±1, no gradient)"""
    z = -target * x
    return _reduced(xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z))), reduction)


def _soft_margin_dtype(args, params):
    dtype = args[0]._dtype
    if dtype._category != 2:
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {dtype.scalar_name}"
        )
    return dtype


soft_margin_loss = defop(
    "soft_margin_loss",
    _soft_margin_loss,
    node="SoftMarginLossBackward0",
    dtypes=_soft_margin_dtype,
    vjp=lambda g, x, target, reduction: (
        _per_element(g, reduction, x, target) * (-target * activations.sigmoid(x * -target))
    ),  # ∂/∂x log(1 + e^(-yx)) = -y·σ(-yx)
    jvp=lambda t, x, target, reduction: _reduced(
        t * (-target * activations.sigmoid(x * -target)), reduction
    ),  # J t = reduction of -y·σ(-yx)·t
)

EPSILON = 1e-12  # PyTorch's floor under x(1 - x) in binary_cross_entropy's gradient


def _bce_dtype(args, params):
    """input's dtype, which target must have (PyTorch's error); floating only."""
    x, target = args
    if x._dtype._category != 2:
        raise _dtypes.not_implemented("binary_cross_entropy", x._dtype)
    if target._dtype is not x._dtype:
        raise RuntimeError(
            f"Found dtype {target._dtype.scalar_name} but expected {x._dtype.scalar_name}"
        )
    return x._dtype


def _binary_cross_entropy(x, target, weight=None, reduction="mean"):
    """-weight·(target·log x + (1 - target)·log(1 - x)), each log at least -100, reduced"""
    # (a nan is outside [0, 1]; PyTorch checks element by element, the input's before the
    # target's, so the first element outside names which)
    bad_x, bad_target = ~((x >= 0) & (x <= 1)), ~((target >= 0) & (target <= 1))
    if bad_x.any() or bad_target.any():
        first = int(xp.argmax((bad_x | bad_target).reshape(-1)))
        name = "input" if bad_x.reshape(-1)[first] else "target"
        raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    with xp.errstate(divide="ignore"):
        log_x = xp.maximum(xp.log(x), -100)
        log_1mx = xp.maximum(xp.log1p(-x), -100)
    loss = -(target * log_x + (1 - target) * log_1mx)
    return _reduced(loss if weight is None else loss * weight, reduction)


def _weighted(v, weight):
    return v if weight is None else v * weight


def _bce_x_grad(x, target, weight):
    """∂/∂x = weight·(x - target) / max(x(1 - x), 1e-12)"""
    return _weighted((x - target) / binary.clamp_min_scalar((1 - x) * x, min=EPSILON), weight)


def _bce_target_grad(x, weight):
    """∂/∂target = weight·(log(1 - x) - log x)"""
    return _weighted(unary.log(1 - x) - unary.log(x), weight)


binary_cross_entropy = defop(
    "binary_cross_entropy",
    _binary_cross_entropy,
    args=("x", "target"),
    node="BinaryCrossEntropyBackward0",
    dtypes=_bce_dtype,
    vjp=(
        lambda g, x, target, weight, reduction: (
            _per_element(g, reduction, x) * _bce_x_grad(x, target, weight)
        ),  # ∂/∂x = weight·(x - target) / max(x(1 - x), 1e-12)
        lambda g, x, weight, reduction: (
            _per_element(g, reduction, x) * _bce_target_grad(x, weight)
        ),  # ∂/∂target = weight·(log(1 - x) - log x)
    ),
    jvp=(
        lambda t, x, target, weight, reduction: _reduced(
            t * _bce_x_grad(x, target, weight), reduction
        ),  # J t = reduction of ∂/∂x times t
        lambda t, x, weight, reduction: _reduced(
            t * _bce_target_grad(x, weight), reduction
        ),  # J t = reduction of ∂/∂target times t
    ),
    conventions="The logs are clamped at -100 (so x = 0 or 1 gives a finite loss), and "
    "x(1 - x) at 1e-12 in the gradient, as in PyTorch.",
)


def _bce_logits_dtype(args, params):
    dtype = result_type(args)
    if dtype._category != 2:
        raise _dtypes.not_implemented("log_sigmoid_cpu", dtype)
    return dtype


def _binary_cross_entropy_with_logits(
    x, target, weight=None, pos_weight=None, reduction="mean", loss_dtype=None
):
    """(1 - target)·x - c·log σ(x) with c = 1 + (pos_weight - 1)·target, times weight;
    log σ(x) = min(x, 0) - log(1 + e^-|x|) never overflows. Computed in the promoted dtype
    and given in ``loss_dtype`` where that is set (the target's narrower dtype, as PyTorch
    gives it)."""
    log_sig = xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * target + 1)
    loss = _reduced(_weighted((1 - target) * x - log_sig, weight), reduction)
    return loss if loss_dtype is None else xp.asarray(loss).astype(loss_dtype.np)


def _share_of(g, reduction: str, x, target):
    """``_per_element`` of g in x's dtype where the loss was given narrower (its backward
    keeps the input's precision, as PyTorch's)."""
    wide = _dtypes._FROM_NP[_dtype_of(x)]
    if _dtypes._FROM_NP[_dtype_of(g)] is not wide:
        g = copies.to_dtype(g, dtype=wide)
    return _per_element(g, reduction, x, target)


def _bce_logits_x_grad(x, target, weight, pos_weight):
    """∂/∂x = weight·(c·σ(x) - pos_weight·target), c = 1 + (pos_weight - 1)·target"""
    s = activations.sigmoid(x)
    if pos_weight is None:
        return _weighted(s - target, weight)
    pt = target * pos_weight
    return _weighted((pt + 1 - target) * s - pt, weight)


def _bce_logits_target_grad(x, weight, pos_weight):
    """∂/∂target = weight·(log σ(-x) - pos_weight·log σ(x)); -weight·x without pos_weight"""
    if pos_weight is None:
        return _weighted(-x, weight)
    return _weighted(activations.log_sigmoid(-x) - activations.log_sigmoid(x) * pos_weight, weight)


binary_cross_entropy_with_logits = defop(
    "binary_cross_entropy_with_logits",
    _binary_cross_entropy_with_logits,
    args=("x", "target"),
    node="BinaryCrossEntropyWithLogitsBackward0",
    dtypes=_bce_logits_dtype,
    vjp=(
        lambda g, x, target, weight, pos_weight, reduction: (
            _share_of(g, reduction, x, target) * _bce_logits_x_grad(x, target, weight, pos_weight)
        ),  # ∂/∂x = weight·(c·σ(x) - pos_weight·target), c = 1 + (pos_weight - 1)·target
        lambda g, x, target, weight, pos_weight, reduction: (
            _per_element(g, reduction, x, target) * _bce_logits_target_grad(x, weight, pos_weight)
        ),  # ∂/∂target = weight·(log σ(-x) - pos_weight·log σ(x))
    ),
    jvp=(
        lambda t, x, target, weight, pos_weight, reduction: _reduced(
            t * _bce_logits_x_grad(x, target, weight, pos_weight), reduction
        ),  # J t = reduction of ∂/∂x times t
        lambda t, x, weight, pos_weight, reduction: _reduced(
            t * _bce_logits_target_grad(x, weight, pos_weight), reduction
        ),  # J t = reduction of ∂/∂target times t
    ),
)

# ----- classes by index: nll_loss ------------------------------------------------------------


def _class_axis(ndim: int) -> int:
    """The class dim of a classifier's input: 0 for one sample (C,), else 1."""
    return 0 if ndim == 1 else 1


def _target_weights(target, weight, ignore_index, dtype):
    """Per target: the weight of its class (1 without weights), 0 where it is ignore_index;
    and the targets with ignored entries set to class 0 (safe to index with). The weights
    are None where they are all 1 (no weight given, no target ignored): the plain mean."""
    ignored = target == ignore_index
    if weight is None and not ignored.any():
        return None, target
    safe = xp.where(ignored, 0, target)
    w = xp.ones_like(target, dtype=dtype) if weight is None else weight[safe].astype(dtype)
    return xp.where(ignored, 0, w).astype(dtype, copy=False), safe


def _check_targets(target, n_classes: int, ignore_index: int) -> None:
    if not target.size or (target.min() >= 0 and target.max() < n_classes):
        return  # every target a class (the usual case: two reductions, no masks)
    bad = (target != ignore_index) & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(f"Target {target[bad].reshape(-1)[0]} is out of bounds.")


def _at_targets(x, safe, axis: int):
    """x[..., t, ...] along the class axis: each sample's entry at its target class."""
    if x.ndim == 2:
        return x[xp.arange(x.shape[0], like=safe), safe]
    return xp.take_along_axis(x, xp.expand_dims(safe, axis), axis=axis).squeeze(axis)


def _nll_loss(x, target=None, weight=None, ignore_index=-100, reduction="mean"):
    """-weight[t]·x[t] at each target class t (0 where t is ignore_index), reduced; the mean
    divides by the sum of the targets' weights"""
    if weight is None and x.ndim == 2 and target.size and x.__class__ is ndarray:
        # a batch of samples, no weights (the usual case): every target a class and none
        # ignore_index when the targets' range says so, one reduction and no masks
        if _all_classes(target, x.shape[1], ignore_index):
            return _nll_mean_or_sum(x, target, reduction)
    axis = _class_axis(x.ndim)
    _check_targets(target, x.shape[axis], ignore_index)
    w, safe = _target_weights(target, weight, ignore_index, x.dtype)
    picked = _at_targets(x, safe, axis)
    loss = -picked if w is None else -picked * w
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    count = xp.asarray(loss.size, dtype=x.dtype, like=x) if w is None else w.sum()
    token = quiet()  # every target ignored: 0/0, nan as in PyTorch
    try:
        return xp.asarray(total / count, dtype=x.dtype)
    finally:
        loud(token)


def _nll_mean_or_sum(x, target, reduction: str):
    """-x[i, t_i] per sample i, reduced: ``_nll_loss`` where every weight is 1 and no target
    is ignored (the steps of its general path that compute something then: the same bits)"""
    picked = x[row_indices(x.shape[0]), target]
    if reduction == "none":
        return xp.negative(picked, out=picked)
    # -(Σ x[i, t_i]): the bits of Σ -x[i, t_i] (rounding is symmetric about 0)
    total = -xp.add.reduce(picked)
    if reduction == "sum":
        return xp.asarray(total)
    return xp.asarray(total / x.dtype.type(picked.size), dtype=x.dtype)


def _all_classes(target, n_classes: int, ignore_index: int) -> bool:
    """Whether every target of an int64 host array is a class (0 <= t < n_classes) and none
    is ignore_index: one reduction, the targets read as unsigned (a negative one is then
    at least 2⁶³). False sends a caller to its general path (masks, errors)."""
    if (
        target.__class__ is not ndarray
        or target.dtype.char not in "lq"
        or 0 <= ignore_index < n_classes
    ):
        return False  # (an ignore_index that is a class: its targets must be looked for)
    return bool(xp.maximum.reduce(target.view(xp.uint64)) < n_classes)


def _nll_coefficients(x_shape, target, weight, ignore_index, reduction, dtype, empty=0.0):
    """∂loss/∂x per element of x: -weight[t] at each target class, 0 elsewhere, divided by
    Σ weight[t] for 'mean' (where every target is ignored, ``empty`` at the classes)"""
    axis = _class_axis(len(x_shape))
    w, safe = _target_weights(target, weight, ignore_index, dtype)
    if w is None and 1 <= len(x_shape) <= 2:  # every weight 1: -1 (-1/N for the mean) at targets
        coef = xp.zeros(x_shape, dtype, like=target)
        n = target.size
        if n:
            one = xp.ones((), dtype, like=target)
            value = -(one / xp.asarray(n, dtype, like=target)) if reduction == "mean" else -one
            coef.reshape(-1, x_shape[-1])[xp.arange(n, like=target), target.reshape(-1)] = value
        return coef
    if w is None:
        w = xp.ones_like(target, dtype=dtype)
    if reduction == "mean":
        total = w.sum()
        w = w / total if total else xp.full_like(w, empty)
    classes = xp.arange(x_shape[axis], like=target).reshape(
        (-1,) + (1,) * (len(x_shape) - axis - 1)
    )
    onehot = classes == xp.expand_dims(safe, axis)
    return xp.where(onehot, -xp.expand_dims(w, axis), 0).astype(dtype, copy=False)


def _nll_vjp(g, x_shape, target, weight, ignore_index, reduction):
    """∂/∂x = -weight[t] at each target class t, 0 elsewhere (÷ Σ weight[t] for the mean)"""
    data = g._data if isinstance(g, Tensor) else g
    if (
        data.__class__ is ndarray
        and weight is None
        and reduction != "none"
        and len(x_shape) == 2
        and target.size
        and _all_classes(target, x_shape[1], ignore_index)
    ):
        # a batch, every weight 1 (the usual case): -g (-g/N for the mean) at the targets, 0
        # elsewhere (as PyTorch's kernel: 0 there even for an infinite g)
        coef = xp.zeros(x_shape, data.dtype)
        one = data.dtype.type(1)
        n = target.size
        value = -(one / data.dtype.type(n)) if reduction == "mean" else -one
        if g is data:  # arrays: the product written at the targets
            coef[row_indices(n), target] = value * g
            return coef
        # create_graph: the line at the end with the mask read off the coefficients (the
        # same values, bits and nodes: tests/nn/test_mlp_fast_paths.py)
        coef[row_indices(n), target] = value
        return logical.where(coef != 0, g * _make(coef, g._dtype), 0)
    coef = _nll_coefficients(x_shape, target, weight, ignore_index, reduction, _dtype_of(g))
    if reduction == "none":
        g = shapes.unsqueeze(g, dim=_class_axis(len(x_shape)))
    if isinstance(g, Tensor):  # create_graph: a constant of g's dtype, not an array to wrap
        coef = _make(coef, g._dtype)
    # 0 off the targets whatever g is (an infinite g: 0 there, not 0·inf = nan, as PyTorch)
    return logical.where(_target_mask(x_shape, target, ignore_index), g * coef, 0)


def _target_mask(x_shape, target, ignore_index):
    """True at each sample's target class (none for an ignored sample), along the class dim."""
    axis = _class_axis(len(x_shape))
    classes = xp.arange(x_shape[axis], like=target).reshape(
        (-1,) + (1,) * (len(x_shape) - axis - 1)
    )
    kept = xp.expand_dims(target != ignore_index, axis)
    return (classes == xp.expand_dims(target, axis)) & kept


def _nll_jvp(t, x_shape, target, weight, ignore_index, reduction):
    """J t = -weight[t]·t[t] at each target class, reduced (÷ Σ weight[t] for the mean)"""
    # every target ignored: the mean is 0/0, and so is its tangent (nan, as PyTorch's)
    dtype = _dtype_of(t)
    coef = _nll_coefficients(x_shape, target, weight, ignore_index, reduction, dtype, xp.nan)
    picked = t * coef
    if reduction == "none":
        return reductions.sum(picked, dim=_class_axis(len(x_shape)))
    return reductions.sum(picked)


def _dtype_of(v):
    return array_of(v).dtype


def _nll_loss_backward(grad, x, target=None, weight=None, ignore_index=-100, reduction="mean"):
    """-weight[t]·grad at each target class t, 0 elsewhere (÷ Σ weight[t] for the mean):
    nll_loss's gradient in x, as a kernel of the output gradient and x"""
    return _nll_vjp(grad, x.shape, target, weight, ignore_index, reduction)


# PyTorch's gradient of nll_loss is a kernel of the output gradient and the input, of
# derivative 0 in the input: a gradient taken with create_graph=True depends on x (a gradient
# penalty backpropagates zeros to x rather than finding nothing to differentiate)
nll_loss_backward = defop(
    "nll_loss_backward",
    _nll_loss_backward,
    args=("grad", "x"),
    node=lambda grad, x, **params: (
        "NllLossBackwardBackward0" if x.ndim <= 2 else "NllLoss2DBackwardBackward0"
    ),
    dtypes=floating_only("nll_loss_backward_out_frame"),
    vjp=(
        lambda g, x_shape, target, weight, ignore_index, reduction: _nll_jvp(
            g, x_shape, target, weight, ignore_index, reduction
        ),  # ∂/∂grad = -weight[t] at the targets: g's nll_loss, reduced as the loss
        activations._zero_in_x,  # ∂/∂x = 0
    ),
    jvp=(
        lambda t, x, target, weight, ignore_index, reduction: nll_loss_backward(
            t, x, target=target, weight=weight, ignore_index=ignore_index, reduction=reduction
        ),  # J t = the kernel of t (linear in grad)
        lambda t, x: copies.zero(t),  # J t = 0
    ),
)


def _nll_loss_vjp(g, x, target, weight, ignore_index, reduction):
    """∂/∂x = -weight[t] at each target class t, 0 elsewhere (÷ Σ weight[t] for the mean)"""
    # under create_graph, recorded as nll_loss_backward of (g, x), a function of x as PyTorch's
    if g.__class__ is ndarray:
        return _nll_vjp(g, x.shape, target, weight, ignore_index, reduction)
    return nll_loss_backward(
        g, x, target=target, weight=weight, ignore_index=ignore_index, reduction=reduction
    )


nll_loss = defop(
    "nll_loss",
    _nll_loss,
    node=lambda x, **params: "NllLossBackward0" if x.ndim <= 2 else "NllLoss2DBackward0",
    dtypes=floating_only("nll_loss_out_frame"),
    vjp=_nll_loss_vjp,
    jvp=_nll_jvp,
    conventions="With every target ignored, the 'mean' is 0/0 = nan, its gradient 0 and its "
    "tangent nan, as in PyTorch.",
)

# ----- margins: multi_margin, multilabel_margin ----------------------------------------------


def _frames(x, target):
    """x as (frames, classes) and target as (frames,) (one frame for a 0-d or 1-D input)."""
    n = x.shape[0] if x.ndim == 2 else 1
    c = x.shape[-1] if x.ndim else 1
    return x.reshape(n, c), target.reshape(n)


def _per_frame(per, scalar: bool, reduction: str):
    """The loss per frame ('none'; 0-d where the input was one sample and ``scalar``), or its
    mean or sum."""
    if reduction == "none":
        return per.reshape(()) if scalar else per
    return _reduced(per, reduction)


def _multi_margin_loss(x, target=None, p=1, margin=1.0, weight=None, reduction="mean"):
    """Σ_(i≠y) weight[y]·max(0, margin - x[y] + x[i])^p / C per sample, y its target"""
    x2, t = _frames(x, target)
    c = x2.shape[1]
    if ((t < 0) | (t >= c)).any():
        raise RuntimeError("target out of range")
    z = margin - xp.take_along_axis(x2, t[:, None], axis=1) + x2
    h = xp.where((z > 0) & (xp.arange(c) != t[:, None]), z, 0) ** p
    if weight is not None:
        h = h * weight[t][:, None]
    return _per_frame(h.sum(axis=1) / c, x.ndim < 2 and target.ndim == 0, reduction)


def _multi_margin_coefficients(x, target, p, margin, weight):
    """∂loss/∂x per sample (frames, C): weight[y]·p·z_i^(p-1)/C where z_i = margin - x_y +
    x_i > 0 (i ≠ y), and minus their sum at y"""
    xa = array_of(x)
    x2a, t = _frames(xa, target)
    c = x2a.shape[1]
    onehot = (xp.arange(c) == t[:, None]).astype(xa.dtype)
    z = x2a - xp.take_along_axis(x2a, t[:, None], axis=1) + margin
    scale = ((z > 0) & (onehot == 0)) / c
    if weight is not None:
        scale = scale * weight[t][:, None]
    scale = scale.astype(xa.dtype)
    if p == 2:  # 2·z_i, z written in ops: its own derivative for create_graph
        x2 = shapes.reshape(x, x2a.shape)
        d = ((x2 - reductions.sum(x2 * onehot, dim=1, keepdim=True)) + margin) * (2 * scale)
    else:
        d = scale
    return d - reductions.sum(d, dim=1, keepdim=True) * onehot


def _margin_rules(coefficients, scalar_out):
    """The VJP and JVP of a margin loss from its coefficients (∂loss/∂x per sample, as
    (frames, C)); ``scalar_out(x_ndim, target_ndim)``: whether 'none' gives a 0-d loss."""

    def vjp(g, x, target, reduction, **params):
        coef = coefficients(x, target, **params)
        n = array_of(coef).shape[0]
        g = g / n if reduction == "mean" else g
        if reduction == "none":
            g = shapes.reshape(g, (n, 1))
        return shapes.reshape(coef * g, array_of(x).shape)

    def jvp(t, x, target, reduction, **params):
        coef = coefficients(x, target, **params)
        per = reductions.sum(coef * shapes.reshape(t, array_of(coef).shape), dim=1)
        if reduction == "none":
            scalar = scalar_out(array_of(x).ndim, target.ndim)
            return shapes.reshape(per, ()) if scalar else per
        return _reduced(per, reduction)

    return vjp, jvp


_multi_margin_vjp, _multi_margin_jvp = _margin_rules(
    _multi_margin_coefficients, lambda x_ndim, target_ndim: x_ndim < 2 and target_ndim == 0
)


def _multi_margin_grad(g, x, target, p, margin, weight, reduction):
    """∂/∂x_i = weight[y]·p·max(0, z_i)^(p-1)/C for i ≠ y, z_i = margin - x_y + x_i > 0;
    ∂/∂x_y = minus the sum of those (÷ N for the mean)"""
    return _multi_margin_vjp(g, x, target, reduction, p=p, margin=margin, weight=weight)


def _multi_margin_tangent(t, x, target, p, margin, weight, reduction):
    """J t = Σ_i ∂loss/∂x_i·t_i per sample, reduced"""
    return _multi_margin_jvp(t, x, target, reduction, p=p, margin=margin, weight=weight)


multi_margin_loss = defop(
    "multi_margin_loss",
    _multi_margin_loss,
    node="MultiMarginLossBackward0",
    dtypes=floating_only("multi_margin_loss_cpu_kernel"),
    vjp=_multi_margin_grad,
    jvp=_multi_margin_tangent,
    conventions="A margin term at exactly 0 (x_i = x_y - margin) gets no gradient.",
)


def _label_sets(target, c: int):
    """Per sample (frames, C): which entries of target are labels (those before the first
    -1), and which classes are labels."""
    valid = xp.cumprod(target >= 0, axis=1).astype(bool)
    safe = xp.where(valid, target, 0)
    is_label = xp.zeros(target.shape[:1] + (c,), dtype=bool)
    rows = xp.broadcast_to(xp.arange(target.shape[0])[:, None], target.shape)
    is_label[rows[valid], safe[valid]] = True
    return valid, safe, is_label


def _multilabel_terms(x2, target):
    """z[n, k, i] = 1 - x[n, t_k] + x[n, i] for each label t_k and non-label class i, and
    where it counts (z > 0)."""
    c = x2.shape[1]
    valid, safe, is_label = _label_sets(target, c)
    z = 1 - xp.take_along_axis(x2, safe, axis=1)[:, :, None] + x2[:, None, :]
    active = valid[:, :, None] & ~is_label[:, None, :] & (z > 0)
    return z, active, safe


def _multilabel_frames(x, target):
    if x.ndim == 2:
        return x, target
    c = x.shape[0] if x.ndim else 1
    return x.reshape(1, c), target.reshape(1, c)


def _multilabel_margin_loss(x, target=None, reduction="mean"):
    """Σ_(labels j) Σ_(non-labels i) max(0, 1 - x[j] + x[i]) / C per sample; a sample's
    labels are its target entries before the first -1"""
    x2, t = _multilabel_frames(x, target)
    c = x2.shape[1]
    if ((t < -1) | (t >= c)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    z, active, _ = _multilabel_terms(x2, t)
    return _per_frame(xp.where(active, z, 0).sum(axis=(1, 2)) / c, x.ndim < 2, reduction)


def _multilabel_coefficients(x, target):
    """∂loss/∂x per sample (frames, C): the number of labels each non-label class is within
    the margin of, minus, at a label, the number of non-labels within its margin; ÷ C"""
    xa = array_of(x)
    x2, t = _multilabel_frames(xa, target)
    c = x2.shape[1]
    _, active, safe = _multilabel_terms(x2, t)
    per_label = active.sum(axis=2)  # (frames, labels)
    coef = active.sum(axis=1).astype(xa.dtype)
    rows = xp.broadcast_to(xp.arange(t.shape[0])[:, None], t.shape)
    xp.subtract.at(coef, (rows, safe), per_label)
    return coef / c


_multilabel_vjp, _multilabel_jvp = _margin_rules(
    _multilabel_coefficients, lambda x_ndim, target_ndim: x_ndim < 2
)


def _multilabel_grad(g, x, target, reduction):
    """∂/∂x_i = (number of labels j with 1 - x_j + x_i > 0)/C for a non-label i, minus (the
    number of non-labels i with 1 - x_j + x_i > 0)/C for a label j (÷ N for the mean)"""
    return _multilabel_vjp(g, x, target, reduction)


def _multilabel_tangent(t, x, target, reduction):
    """J t = Σ_i ∂loss/∂x_i·t_i per sample, reduced"""
    return _multilabel_jvp(t, x, target, reduction)


multilabel_margin_loss = defop(
    "multilabel_margin_loss",
    _multilabel_margin_loss,
    node="MultilabelMarginLossBackward0",
    dtypes=floating_only("multilabel_margin_loss_forward_out_frame"),
    vjp=_multilabel_grad,
    jvp=_multilabel_tangent,
    conventions="Piecewise linear: the second derivative is 0. A term at exactly 0 gets no "
    "gradient.",
)

# ----- sequences: ctc_loss -----------------------------------------------------------------------


def _shifted(a, k: int):
    """a moved k places along its last dim (right for k > 0, left for k < 0), -inf in."""
    out = xp.full_like(a, -xp.inf)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


def _ctc_lattice(log_probs, targets, input_lengths, target_lengths, blank):
    """The CTC forward-backward lattice over the extended labels (blank, l1, blank, ...,
    blank): log α and log β per (t, sample, s), the log-probability of each extended label,
    the extended labels and each sample's negative log-likelihood."""
    t_max, n = log_probs.shape[:2]
    width = 2 * targets.shape[1] + 1
    ext = xp.full((n, width), blank, dtype=xp.int64)
    ext[:, 1::2] = targets
    ends = 2 * target_lengths + 1  # each sample's extended length
    inside = xp.arange(width) < ends[:, None]
    lpe = log_probs[:, xp.arange(n)[:, None], ext]  # (t, n, s)
    skip = xp.zeros((n, width), dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    alpha = xp.full((t_max, n, width), -xp.inf, dtype=log_probs.dtype)
    beta = xp.full_like(alpha, -xp.inf)
    if t_max:
        alpha[0, :, :2] = lpe[0, :, :2]
        alpha[0] = xp.where(inside, alpha[0], -xp.inf)
    with xp.errstate(invalid="ignore"):
        for t in range(1, t_max):
            prev = alpha[t - 1]
            reach = xp.logaddexp(prev, _shifted(prev, 1))
            reach = xp.logaddexp(reach, xp.where(skip, _shifted(prev, 2), -xp.inf))
            alpha[t] = xp.where(inside, reach + lpe[t], -xp.inf)
        skip_back = _shifted(xp.where(skip, 0.0, -xp.inf), -2) == 0
        last = xp.arange(width)[None, :]
        final = (last == ends[:, None] - 1) | (last == ends[:, None] - 2)
        for t in range(t_max - 1, -1, -1):
            end = input_lengths - 1 == t
            if t < t_max - 1:
                nxt = beta[t + 1]
                reach = xp.logaddexp(nxt, _shifted(nxt, -1))
                reach = xp.logaddexp(reach, xp.where(skip_back, _shifted(nxt, -2), -xp.inf))
                beta[t] = xp.where(inside, reach + lpe[t], -xp.inf)
            beta[t] = xp.where(end[:, None], xp.where(final & inside, lpe[t], -xp.inf), beta[t])
        rows = xp.arange(n)
        at_end = alpha[xp.maximum(input_lengths - 1, 0), rows]  # (n, s)
        last_two = xp.where(final & inside, at_end, -xp.inf)
        nll = -xp.logaddexp.reduce(last_two, axis=1)
    empty = input_lengths == 0
    nll = xp.where(empty, xp.where(target_lengths == 0, 0.0, xp.inf), nll)
    return alpha, beta, lpe, ext, nll.astype(log_probs.dtype)


def _ctc_loss(
    log_probs, targets=None, input_lengths=None, target_lengths=None, blank=0, zero_infinity=False
):
    """-log Σ over the alignments of each target to its input (blanks between and around
    the labels, repeats merged) of Π_t p_t(label): one loss per sample"""
    return _ctc_lattice(log_probs, targets, input_lengths, target_lengths, blank)[4]


def _ctc_coefficients(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """∂loss/∂log_probs[t, n, c] = -(the posterior probability that an alignment is at
    label c at time t), 0 past the sample's input length; where the loss is inf, nan (0
    with zero_infinity), as PyTorch's"""
    lp = array_of(log_probs)
    alpha, beta, lpe, ext, nll = _ctc_lattice(lp, targets, input_lengths, target_lengths, blank)
    t_max, n, c = lp.shape
    with xp.errstate(invalid="ignore", over="ignore"):
        occupancy = xp.exp(alpha + beta - lpe + nll[None, :, None])
    live = xp.arange(t_max)[:, None] < input_lengths[None, :]
    occupancy = xp.where(live[:, :, None], occupancy, 0)
    if zero_infinity:
        occupancy = xp.where(xp.isinf(nll)[None, :, None], 0, occupancy)
    coef = xp.zeros(lp.shape, dtype=lp.dtype)
    times = xp.arange(t_max)[:, None, None]
    rows = xp.arange(n)[None, :, None]
    xp.add.at(coef, (times, rows, ext[None]), -occupancy)
    return coef


def _ctc_vjp(g, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """∂loss_n/∂log_probs[t, n, c] = -P(an alignment of sample n is at c at time t)"""
    coef = _ctc_coefficients(
        log_probs, targets, input_lengths, target_lengths, blank, zero_infinity
    )
    if hasattr(g, "_data"):  # create_graph: the gradient recorded, without a derivative
        return ctc_loss_backward(g, log_probs, coef=coef)
    return coef * g[None, :, None]


def _ctc_jvp(t, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """J t = Σ_(time, class) ∂loss_n/∂log_probs·t per sample"""
    coef = _ctc_coefficients(
        log_probs, targets, input_lengths, target_lengths, blank, zero_infinity
    )
    return reductions.sum(t * coef, dim=(0, 2))


def _ctc_backward(g, log_probs, coef=None):
    """the gradient of ctc_loss: coef·g per sample (coef = ∂loss/∂log_probs)"""
    return coef * g[None, :, None]


def _no_second_derivative(gg):
    """PyTorch has none: raises its error, "derivative for _ctc_loss_backward ..." """
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def _no_second_tangent(t):
    """PyTorch has none: raises its NotImplementedError"""
    raise NotImplementedError(
        "Trying to use forward AD with _ctc_loss_backward that does not support it."
    )


# the gradient, recorded when backward runs with create_graph: no derivative of its own,
# as in PyTorch (CTC's second derivative is not implemented there either)
ctc_loss_backward = defop(
    "ctc_loss_backward",
    _ctc_backward,
    args=("g", "log_probs"),
    node="CtcLossBackwardBackward0",
    vjp=(_no_second_derivative, _no_second_derivative),
    jvp=(_no_second_tangent, _no_second_tangent),
)

ctc_loss = defop(
    "ctc_loss",
    _ctc_loss,
    args=("log_probs",),
    node="CtcLossBackward0",
    dtypes=floating_only("ctc_loss_cpu"),
    vjp=_ctc_vjp,
    jvp=_ctc_jvp,
    conventions="The gradient with respect to log_probs is the derivative, -P(label c at "
    "time t); PyTorch's adds exp(log_probs)·g, which a log_softmax before it cancels (the "
    "two agree on the logits). A sample whose target cannot be aligned has loss inf.",
)
