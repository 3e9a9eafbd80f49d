"""PyTorch's top-level signatures for the activations and normalizations
(``chainrule.softmax(input, dim, dtype)``, ``chainrule.selu_``, ...) and ``chainrule.special``'s
softmax, log_softmax and logsumexp."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ... import _dtypes
from ..._backend import like, ndarray, run_quietly, to_host, xp
from ..._dtypes import checked_fill
from ..._dtypes import dtype as DType
from ..._tensor import Tensor
from ...autograd.inplace import inplace as _inplace
from ...autograd.recorders import recorder
from ...ops import activations, complex_parts, normalizations, reductions

if TYPE_CHECKING:
    from ..._random import Generator

SELU_ALPHA = 1.6732632423543772848170429916717

SELU_SCALE = 1.0507009873554804934193349852946

# ----- public functions with PyTorch's top-level signatures ----------------------------


def _softmax_dim(dim: Any, ndim: int) -> int:
    """dim as a non-negative int (0 for a 0-d tensor); IndexError when out of range."""
    if dim.__class__ is int and -ndim <= dim < ndim:  # (the usual case: a dim in range)
        return dim % ndim
    if not isinstance(dim, int):
        raise TypeError(f"softmax(): argument 'dim' must be int, not {type(dim).__name__}")
    return reductions._axis(dim, ndim)


def softmax(input: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    """e^x / Σ_dim e^x (input cast to ``dtype`` first when given)."""
    if dtype is None and dim.__class__ is int and input.__class__ is Tensor:
        data = input._data
        n = data.ndim
        if data.__class__ is ndarray and input._dtype._native and -n <= dim < n:
            if data.size:  # (a float array with a dim in range: the forward straight away)
                return _along(_record_softmax, _softmax_along, input, data, dim % n)
    elif dtype is not None:
        input = input.to(dtype)
    return normalizations.softmax(input, dim=_softmax_dim(dim, input.ndim))


def log_softmax(input: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    """x - log Σ_dim e^x (input cast to ``dtype`` first when given)."""
    if dtype is None and dim.__class__ is int and input.__class__ is Tensor:
        data = input._data
        n = data.ndim
        if data.__class__ is ndarray and input._dtype._native and -n <= dim < n:
            if data.size:
                return _along(_record_log_softmax, _log_softmax_along, input, data, dim % n)
    elif dtype is not None:
        input = input.to(dtype)
    return normalizations.log_softmax(input, dim=_softmax_dim(dim, input.ndim))


def _along(record: Callable, forward: Callable, input: Tensor, data: Any, axis: int) -> Tensor:
    """softmax or log_softmax of a float tensor along ``axis`` (in range, the array not
    empty): the op's forward on the array, with floating-point errors ignored and the result
    laid out contiguously (``recording.contiguous``), into the op's output step
    (tests/autograd/test_reduce_cost.py pins it to the general path)."""
    out = run_quietly(forward, data, axis)
    if out.ndim > 1 and not out.flags.c_contiguous:
        out = xp.ascontiguousarray(out)
    return record(input, data, out, {"dim": axis})


_softmax_along = normalizations.softmax_along
_log_softmax_along = normalizations.log_softmax_along
_record_softmax = recorder(normalizations.softmax, normalizations.softmax.node_class)
_record_log_softmax = recorder(normalizations.log_softmax, normalizations.log_softmax.node_class)


def logsumexp(
    input: Tensor, dim: int | Sequence[int], keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:
    """log Σ_dim e^x, stable for large |x|; ``dim`` an int or a sequence of ints."""
    if isinstance(dim, list):
        dim = tuple(dim)
    reductions.dims_of(dim, input.ndim)  # range check, PyTorch's IndexError
    if input._dtype._category == 3:
        return _complex_logsumexp(input, dim, keepdim)
    return normalizations.logsumexp(input, dim=dim, keepdim=keepdim)


def _complex_logsumexp(z: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """log Σ e^z for complex z, as m + log Σ e^(z - m) with m the largest real part (a
    constant: the gradient e^z / Σ e^z flows through the holomorphic exp, sum and log)."""
    m = complex_parts.real(z).detach().amax(dim=dim, keepdim=True)
    m = m.masked_fill(~m.isfinite(), 0.0)
    out = (z - m).exp().sum(dim=dim, keepdim=True).log() + m
    return out if keepdim else out.squeeze(dim)


def selu(input: Tensor) -> Tensor:
    """scale·elu(x, alpha) with SELU's fixed alpha and scale."""
    return activations.elu(input, alpha=SELU_ALPHA, scale=SELU_SCALE, input_scale=1.0)


def selu_(input: Tensor) -> Tensor:
    return _inplace(input, activations.elu_result, (input,), _SELU_PARAMS)


_SELU_PARAMS = {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1.0}


def _check_celu_alpha(alpha: float) -> None:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """max(0, x) + min(0, alpha·(e^(x/alpha) - 1))."""
    alpha = real_parameter(alpha, None)
    _check_celu_alpha(alpha)
    return activations.celu(input, alpha=alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    alpha = real_parameter(alpha, None)
    _check_celu_alpha(alpha)
    return _inplace(input, activations.celu_result, (input,), {"alpha": alpha})


def relu_(input: Tensor) -> Tensor:
    """relu written into input."""
    return _inplace(input, activations.relu, (input,), {})


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """value where input <= threshold, else input."""
    threshold, value = real_parameter(threshold, input), real_parameter(value, input)
    return activations.threshold(input, threshold=threshold, value=value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """threshold written into input (ThresholdBackward1)."""
    threshold, value = real_parameter(threshold, input), real_parameter(value, input)
    return _inplace(
        input, activations.threshold_result, (input,), {"threshold": threshold, "value": value}
    )


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input where |input| > lambd, else 0."""
    return activations.hardshrink(input, lambd=real_parameter(lambd, input))


def real_parameter(value: Any, input: Tensor | None) -> Any:
    """A complex parameter of a function of real numbers: its real part where its imaginary
    part is 0, else PyTorch's overflow error for input's dtype (for a double where ``input``
    is None: the kernels that read the parameter as one)."""
    if not isinstance(value, complex):
        return value
    return checked_fill(value, _dtypes.float64 if input is None else input._dtype)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """input for input > 0, weight · input otherwise; weight one value or one per channel."""
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    n = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{n} and channel size = {channels}."
        )
    return activations.prelu(input, weight)


def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool) -> Any:
    """The slopes: (lower + upper)/2 in evaluation; in training, drawn uniformly from
    [lower, upper) for each element <= 0 (1 elsewhere), PyTorch's draws."""
    if not training:
        return (lower + upper) / 2
    from ..._dtypes import float64
    from ..._random import generator_of
    from ..._sampling import fma64, uniform01

    # PyTorch's draws: one float64 uniform on [lower, upper) per element <= 0, in order (the
    # bounds first rounded to input's dtype)
    x = to_host(input._data).reshape(-1)
    slopes = xp.ones(x.shape, x.dtype)
    negative = x <= 0
    u = uniform01(generator_of(None, "rrelu"), int(negative.sum()), float64)
    lo, hi = (float(x.real.dtype.type(v)) for v in (lower, upper))
    slopes[negative] = fma64(u, hi - lo, lo)
    return like(input._data, slopes.reshape(input._data.shape))


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    """Randomized leaky ReLU: slope (lower + upper)/2 in evaluation, random in training."""
    return activations.rrelu(input, noise=_rrelu_noise(input, lower, upper, training))


def rrelu_(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    """rrelu written into input (saves its output: RreluWithNoiseBackward1)."""
    noise = _rrelu_noise(input, lower, upper, training)
    return _inplace(input, activations.rrelu_result, (input,), {"noise": noise})


def special_softmax(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:  # noqa: A002
    """softmax along dim (input cast to dtype first when given)."""
    return softmax(input, dim, dtype)


def special_log_softmax(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:  # noqa: A002
    """log_softmax along dim (input cast to dtype first when given)."""
    return log_softmax(input, dim, dtype)


def special_logsumexp(
    input: Tensor, dim: int | Sequence[int], keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """log Σ_dim e^input, stable for large |input|."""
    return logsumexp(input, dim, keepdim)
