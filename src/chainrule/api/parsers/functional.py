"""``torch.nn.functional``'s signatures for the activations: ``inplace=``,
``dim=None`` with PyTorch's legacy implicit dim, and its argument checks."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ... import _memory_format
from ..._backend import ndarray as _ndarray
from ..._backend import quiet_call as _quiet_call
from ..._backend import xp as _xp
from ..._dtypes import dtype as DType
from ..._tensor import Tensor
from ...autograd.grad_mode import _state as _grad_state
from ...autograd.inplace import inplace as _inplace
from ...ops import activations, arithmetic, reductions, special
from ..args import unary
from . import activations as torch_activations
from .activations import celu_, real_parameter, selu_

if TYPE_CHECKING:
    from ...autograd.recording import Op


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _maybe_inplace(op: Op, input: Tensor, params: dict, inplace: bool) -> Tensor:
    if inplace:
        return _inplace(input, op, (input,), params)
    return op(input, **params)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0); relu'(0) = 0."""
    if not inplace:
        return _relu(input)  # (torch.relu's entry: nn.ReLU's call)
    return _maybe_inplace(activations.relu, input, {}, inplace)


_relu = unary(activations.relu)  # relu(x) in one call (entries.unary_entry)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """x clipped to [min_val, max_val]; the gradient is 0 at both bounds."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(
        activations.hardtanh, input, {"min_val": min_val, "max_val": max_val}, inplace
    )


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6), as hardtanh(x, 0, 6) (PyTorch's HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, negative_slope·x otherwise; the gradient at 0 is negative_slope."""
    negative_slope = real_parameter(negative_slope, input)
    op = activations.leaky_relu_result if inplace else activations.leaky_relu
    return _maybe_inplace(op, input, {"negative_slope": negative_slope}, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha·(e^x - 1) otherwise."""
    alpha = real_parameter(alpha, input)
    op = activations.elu_result if inplace else activations.elu
    return _maybe_inplace(op, input, {"alpha": alpha, "scale": 1.0, "input_scale": 1.0}, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale·elu(x, alpha) with alpha ≈ 1.6733, scale ≈ 1.0507 (EluBackward0, as PyTorch)."""
    return selu_(input) if inplace else torch_activations.selu(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha·(e^(x/alpha) - 1))."""
    return celu_(input, alpha) if inplace else torch_activations.celu(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x·Φ(x), Φ the standard normal CDF; approximate='tanh' for the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate == "none" and input._requires_grad and _grad_state.enabled:
        data = input._data
        if data.__class__ is _ndarray and data.dtype == _xp.float32 and data.size <= _KEEP:
            # one evaluation for the forward and the Φ(x) its backward reads (not recomputed)
            value, cdf = _quiet_call(special.gelu_and_cdf, data)  # (as the op's forward)
            out = activations.gelu(input, approximate="none", value=value, cdf=cdf)
            return _memory_format.follow_result(out, data)  # (PyTorch's keeps the format)
    return _memory_format.follow_result(activations.gelu(input, approximate=approximate),
                                        input._data)  # fmt: skip


# The most elements whose Φ(x) gelu keeps from forward to backward (16 MB in float32): a
# larger input's backward computes it again, rather than hold one more array per layer.
_KEEP = 1 << 22


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x·σ(x)."""
    return _maybe_inplace(activations.silu, input, {}, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x·tanh(softplus(x))."""
    return _maybe_inplace(activations.mish, input, {}, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx))/β, and x where βx > threshold."""
    beta, threshold = real_parameter(beta, input), real_parameter(threshold, input)
    return activations.softplus(input, beta=beta, threshold=threshold)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x + 3, 0), 6)/6; the gradient is 0 at ±3."""
    return _maybe_inplace(activations.hardsigmoid, input, {}, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x·min(max(x + 3, 0), 6)/6; the gradient is 0 at -3 and 1 at 3."""
    return _maybe_inplace(activations.hardswish, input, {}, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """log σ(x) = -softplus(-x)."""
    return activations.log_sigmoid(input)


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """e^x / Σ_dim e^x; dim=None picks PyTorch's legacy dim, with its warning."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return torch_activations.softmax(input, dim, dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """x - log Σ_dim e^x."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return torch_activations.log_softmax(input, dim, dtype)


def gumbel_softmax(
    logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution: softmax((logits + g) / tau)
    along dim, g = -log E with E ~ Exp(1) drawn as PyTorch draws it (Gumbel(0, 1)
    noise). ``hard``: the one-hot of the sample's argmax in the forward, the soft sample's
    gradient in the backward (y_hard - y_soft.detach() + y_soft, the straight-through
    estimator). d/dlogits is softmax's Jacobian over tau, the noise held fixed."""
    from ..._creation import empty_like, zeros_like

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = -empty_like(logits).exponential_().log()
    y_soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """softmax(-x) (PyTorch's graph: SoftmaxBackward0 of NegBackward0)."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    return torch_activations.softmax(arithmetic.neg(input), dim, dtype)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where input <= threshold, else input (ThresholdBackward0; in place Backward1)."""
    if inplace:
        return torch_activations.threshold_(input, threshold, value)
    return torch_activations.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return torch_activations.threshold_(input, threshold, value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input where |input| > lambd, else 0; the gradient is 0 at |input| = lambd."""
    return torch_activations.hardshrink(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input ∓ lambd beyond ±lambd, 0 between; the gradient is 0 at |input| = lambd."""
    lambd = real_parameter(lambd, None)
    if lambd < 0:
        top = _xp.finfo(input.dtype.np).max if input.is_floating_point() else 0
        raise RuntimeError(
            f"lambda must be in range [0, {top:g}] for input dtype "
            f"{input.dtype.name.capitalize()}, but found {lambd:g}"
        )
    return activations.softshrink(input, lambd=lambd)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a · σ(b), a and b the halves of input along dim (GluBackward0)."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = reductions.dims_of(dim, input.ndim)[0]
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    return activations.glu(input, dim=d)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """input for input > 0, weight · input otherwise (weight: one value or one per channel)."""
    return torch_activations.prelu(input, weight)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: slope (lower + upper)/2 in evaluation, uniform in training."""
    if inplace:
        return torch_activations.rrelu_(input, lower, upper, training)
    return torch_activations.rrelu(input, lower, upper, training)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    return torch_activations.rrelu_(input, lower, upper, training)
