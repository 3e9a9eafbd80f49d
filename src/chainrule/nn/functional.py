"""``chainrule.nn.functional``: activations and normalizations with PyTorch's signatures.

The primitives (softmax, gelu, softplus, elu, ...) are ops in ``ops/activations.py``;
relu6, softsign, softmin and normalize are compositions, with PyTorch's graphs.
``inplace=True`` writes the result into ``input`` (``ops/functions.inplace``); where
PyTorch's in-place kernel saves its output (leaky_relu, elu, selu, celu), so does ours
(``...Backward1`` nodes).
"""

from __future__ import annotations

from .._backend import xp as _xp
from ..autograd.inplace import inplace as _inplace
from ..ops import activations as A
from ..ops import elementwise as ew
from ..ops import reductions as red
from ..ops import shape as sh
from ..ops.activations import celu_, relu_, selu_  # noqa: F401
from ..ops.functions import sigmoid, tanh  # noqa: F401


def _maybe_inplace(op, input, params: dict, inplace: bool):
    if inplace:
        return _inplace(input, op, (input,), params)
    return op(input, **params)


def relu(input, inplace: bool = False):
    """max(x, 0); relu'(0) = 0."""
    return _maybe_inplace(ew.relu, input, {}, inplace)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """x clipped to [min_val, max_val]; the gradient is 0 at both bounds."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(A.hardtanh, input, {"min_val": min_val, "max_val": max_val}, inplace)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace: bool = False):
    """min(max(x, 0), 6), as hardtanh(x, 0, 6) (PyTorch's HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """x for x > 0, negative_slope·x otherwise; the gradient at 0 is negative_slope."""
    op = A.leaky_relu_result if inplace else A.leaky_relu
    return _maybe_inplace(op, input, {"negative_slope": negative_slope}, inplace)


def leaky_relu_(input, negative_slope: float = 0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """x for x > 0, alpha·(e^x - 1) otherwise."""
    op = A.elu_result if inplace else A.elu
    return _maybe_inplace(op, input, {"alpha": alpha, "scale": 1.0, "input_scale": 1.0}, inplace)


def elu_(input, alpha: float = 1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace: bool = False):
    """scale·elu(x, alpha) with alpha ≈ 1.6733, scale ≈ 1.0507 (EluBackward0, as PyTorch)."""
    return A.selu_(input) if inplace else A.selu(input)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """max(0, x) + min(0, alpha·(e^(x/alpha) - 1))."""
    return A.celu_(input, alpha) if inplace else A.celu(input, alpha)


def gelu(input, approximate: str = "none"):
    """x·Φ(x), Φ the standard normal CDF; approximate='tanh' for the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return A.gelu(input, approximate=approximate)


def silu(input, inplace: bool = False):
    """x·σ(x)."""
    return _maybe_inplace(A.silu, input, {}, inplace)


def mish(input, inplace: bool = False):
    """x·tanh(softplus(x))."""
    return _maybe_inplace(A.mish, input, {}, inplace)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """log(1 + e^(βx))/β, and x where βx > threshold."""
    return A.softplus(input, beta=beta, threshold=threshold)


def softsign(input):
    """x / (1 + |x|) (PyTorch's graph: DivBackward0 of AddBackward0 of AbsBackward0)."""
    return input / (ew.abs(input) + 1)


def hardsigmoid(input, inplace: bool = False):
    """min(max(x + 3, 0), 6)/6; the gradient is 0 at ±3."""
    return _maybe_inplace(A.hardsigmoid, input, {}, inplace)


def hardswish(input, inplace: bool = False):
    """x·min(max(x + 3, 0), 6)/6; the gradient is 0 at -3 and 1 at 3."""
    return _maybe_inplace(A.hardswish, input, {}, inplace)


def logsigmoid(input):
    """log σ(x) = -softplus(-x)."""
    return A.log_sigmoid(input)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """e^x / Σ_dim e^x; dim=None picks PyTorch's legacy dim, with its warning."""
    if dim is None:
        dim = A._implicit_dim("softmax", input.ndim, _stacklevel)
    return A.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """x - log Σ_dim e^x."""
    if dim is None:
        dim = A._implicit_dim("log_softmax", input.ndim, _stacklevel)
    return A.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """softmax(-x) (PyTorch's graph: SoftmaxBackward0 of NegBackward0)."""
    if dim is None:
        dim = A._implicit_dim("softmin", input.ndim, _stacklevel)
    return A.softmax(ew.neg(input), dim, dtype)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """x / max(‖x‖_p over dim, eps) (PyTorch's graph: Div, Expand, ClampMin, norm)."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not implemented in chainrule yet")
    norm = red.vector_norm(input, ord=p, dim=dim, keepdim=True)
    denom = sh.expand(A.clamp_min(norm, min=eps), shape=tuple(input.shape))
    return input / denom


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """value where input <= threshold, else input (ThresholdBackward0; in place Backward1)."""
    if inplace:
        return A.threshold_(input, threshold, value)
    return A.threshold(input, threshold, value)


def threshold_(input, threshold: float, value: float):
    return A.threshold_(input, threshold, value)


def hardshrink(input, lambd: float = 0.5):
    """input where |input| > lambd, else 0; the gradient is 0 at |input| = lambd."""
    return A.hardshrink(input, lambd)


def softshrink(input, lambd: float = 0.5):
    """input ∓ lambd beyond ±lambd, 0 between; the gradient is 0 at |input| = lambd."""
    if lambd < 0:
        top = _xp.finfo(input.dtype.np).max if input.is_floating_point() else 0
        raise RuntimeError(
            f"lambda must be in range [0, {top:g}] for input dtype "
            f"{input.dtype.name.capitalize()}, but found {lambd:g}"
        )
    return A.softshrink_op(input, lambd=lambd)


def tanhshrink(input):
    """input - tanh(input) (PyTorch's graph: SubBackward0 of TanhBackward0)."""
    return input - ew.tanh(input)


def glu(input, dim: int = -1):
    """a · σ(b), a and b the halves of input along dim (GluBackward0)."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = red.dims_of(dim, input.ndim)[0]
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    return A.glu_op(input, dim=d)


def prelu(input, weight):
    """input for input > 0, weight · input otherwise (weight: one value or one per channel)."""
    return A.prelu(input, weight)


def rrelu(
    input,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
):
    """Randomized leaky ReLU: slope (lower + upper)/2 in evaluation, uniform in training."""
    if inplace:
        return A.rrelu_(input, lower, upper, training)
    return A.rrelu(input, lower, upper, training)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    return A.rrelu_(input, lower, upper, training)


def __getattr__(name: str):
    from .._missing import missing

    raise missing("torch.nn.functional", name)
