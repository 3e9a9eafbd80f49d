"""Random sampling with PyTorch's signatures: the in-place samplers of a tensor
(``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``exponential_``, ``geometric_``,
``cauchy_``, ``log_normal_``) and ``normal``, ``bernoulli``, ``poisson``, ``multinomial``,
each with ``generator=``, PyTorch's parameter checks and messages; the reparameterized
draws ``_standard_gamma`` and ``_sample_dirichlet`` and their gradients.

The values are PyTorch's for the same seed (chainrule/_sampling: uniform, normal, integer,
Bernoulli, exponential, geometric, Cauchy, log-normal draws, ``normal``, ``bernoulli``,
``multinomial``; gamma, Dirichlet, Poisson and binomial draws by PyTorch's rejection
samplers, chainrule/_sampling_rejection), drawn on the host for every device (the same seed gives
the same values on each) and copied to the device of the tensor they fill or follow; the op
``random.sample`` records the node PyTorch records (every gradient of a draw is zero)."""

from __future__ import annotations

from typing import Any

from ... import _dtypes, _sampling, _sampling_rejection
from ..._backend import like, ndarray, on_device_of, to_host, xp
from ..._random import Generator, draw, generator_of
from ..._tensor import Tensor, _make, check_device, check_inference_write
from ...autograd import grad_mode
from ...autograd.inplace import inplace
from ...ops import random as random_ops

# the C++ type names PyTorch's continuous-distribution errors print
_CPP_NAMES = {
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _num(v: float) -> str:
    """A number as PyTorch's messages print it (1 for 1.0)."""
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def _write(self: Tensor, values: Any, node_name: str) -> Tensor:
    """Write ``values`` into self in place, recorded as PyTorch's node ``node_name``."""
    values = like(self._data, values).astype(self._dtype.np, copy=False)
    params = {"values": values, "node_name": node_name}
    return inplace(self, random_ops.sample, (self,), params)


def _fill_in_place(self: Tensor) -> bool:
    """Whether a draw can be written straight into self's memory, nothing recorded: a
    row-major float32 or float64 host array, no gradient to record (grad mode off, or self
    needs none), no forward-mode tangent (what ``nn.init`` fills: half the memory touched
    of a draw then copied in, which for a large fresh weight is most of the time)."""
    data = self._data
    return (
        data.__class__ is ndarray
        and data.flags.c_contiguous
        and data.flags.writeable
        and self._dtype.name in ("float32", "float64")
        and not (self._requires_grad and grad_mode._state.enabled)
        and getattr(self, "_fw", None) is None
    )


def _drawn_in_place(self: Tensor, kind: str, gen: Generator, a: float, b: float) -> Tensor:
    """``draw`` written into self (``_fill_in_place``), its version bumped."""
    check_inference_write(self)
    draw(kind, gen, self._data, self._dtype, a, b, into=True)
    self._bump()
    return self


def _require_float(self: Tensor, kernel: str, complex_ok: bool = False) -> None:
    """PyTorch's error for a sampler with no kernel for self's dtype (integers, bools, and
    complex unless ``complex_ok``)."""
    if self._dtype._category < 2 or self._dtype._category == 3 and not complex_ok:
        raise _dtypes.not_implemented(kernel, self._dtype)


def _laid_out(self: Tensor, flat: Any) -> Any:
    """Draws in drawing order, placed on self's elements as PyTorch visits them."""
    return _sampling.in_visit_order(flat, self._data)


def _continuous_only(self: Tensor, name: str, cpp: bool = False) -> None:
    if not self._dtype.is_floating_point:
        d = _CPP_NAMES[self._dtype.name] if cpp else self._dtype.scalar_name
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {d}"
        )


# ----- the in-place samplers -------------------------------------------------------------


def uniform_(
    self: Tensor, from_: float = 0, to: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of the uniform distribution on [from, to) (complex: each part)."""
    _require_float(self, "check_uniform_bounds", complex_ok=True)
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(from_)} > "
            f"to={_num(to)}"
        )
    gen = generator_of(generator, "uniform_")
    if _fill_in_place(self):
        return _drawn_in_place(self, "u", gen, from_, to)
    u = draw("u", gen, self._data, self._dtype, from_, to)
    return _write(self, u, "UniformBackward0")


def normal_(
    self: Tensor, mean: float = 0, std: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of the normal distribution N(mean, std²); complex: each part
    N(mean, std²/2), as PyTorch draws them (mean added to both parts)."""
    _require_float(self, "normal_kernel_cpu", complex_ok=True)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    gen = generator_of(generator, "normal_")
    if _fill_in_place(self):
        return _drawn_in_place(self, "n", gen, mean, std)
    n = draw("n", gen, self._data, self._dtype, mean, std)
    return _write(self, n, "NormalBackward0")


def random_(
    self: Tensor,
    from_: int | None = None,
    to: int | None = None,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Fill with integers uniform on [from, to); ``random_(to)`` is [0, to), ``random_()``
    every integer the dtype holds exactly from 0."""
    if self._dtype._category == 3:
        raise _dtypes.not_implemented("random_kernel_cpu", self._dtype)
    gen = generator_of(generator, "random_")
    size = self._data.size
    if from_ is None:  # random_()
        values = _sampling.every_integer(gen, size, self._dtype)
        return _write(self, _laid_out(self, values), "RandomBackward2")
    if to is None:  # random_(to)
        low, high = 0, int(from_)
        node = "RandomBackward1"
    else:
        low, high = int(from_), int(to)
        node = "RandomBackward0"
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    values = _sampling.integers(gen, size, low, high, self._dtype)
    return _write(self, _laid_out(self, values), node)


def bernoulli_(
    self: Tensor, p: float | Tensor = 0.5, *, generator: Generator | None = None
) -> Tensor:
    """Fill with 1 with probability p (a number, or a tensor broadcast to self), else 0."""
    gen = generator_of(generator, "bernoulli_")
    if self._dtype._category == 3:
        kernel = "bernoulli_tensor_cpu_self_" if isinstance(p, Tensor) else "bernoulli_scalar_cpu_"
        raise _dtypes.not_implemented(kernel, self._dtype)
    if isinstance(p, Tensor):
        probs = to_host(xp.broadcast_to(p._data, self._data.shape))
        flat = _sampling.flat_in_visit_order(probs, self._data)
        double = p._dtype is _dtypes.float64
        return _write(self, _laid_out(self, _sampling.bernoulli(gen, flat, flat.size, double)),
                      "BernoulliBackward1")  # fmt: skip
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    draws = _sampling.bernoulli(gen, p, self._data.size)
    return _write(self, _laid_out(self, draws), "BernoulliBackward2")


def exponential_(self: Tensor, lambd: float = 1, *, generator: Generator | None = None) -> Tensor:
    """Fill with samples of the exponential distribution of rate lambd."""
    _continuous_only(self, "Exponential")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    e = _sampling.exponential(generator_of(generator, "exponential_"), self._data.size, lambd)
    return _write(self, _laid_out(self, e), "ExponentialBackward0")


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if self._dtype._category == 3:
        raise _dtypes.not_implemented("geometric_cpu", self._dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    values = _sampling.geometric(generator_of(generator, "geometric_"), self._data.size, p)
    return _write(self, _laid_out(self, values), "GeometricBackward0")


def cauchy_(
    self: Tensor, median: float = 0, sigma: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of the Cauchy distribution: median + sigma·tan(π(u - 1/2))."""
    _continuous_only(self, "Cauchy", cpp=True)
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    gen = generator_of(generator, "cauchy_")
    c = _sampling.cauchy(gen, self._data.size, median, sigma)
    return _write(self, _laid_out(self, c), "CauchyBackward0")


def log_normal_(
    self: Tensor, mean: float = 1, std: float = 2, *, generator: Generator | None = None
) -> Tensor:
    """Fill with exp of samples of N(mean, std²)."""
    _require_float(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    gen = generator_of(generator, "log_normal_")
    values = _sampling.log_normal(gen, self._data.size, mean, std)
    return _write(self, _laid_out(self, values), "LogNormalBackward0")


# ----- functions -------------------------------------------------------------------------


def _draw_like(shape: tuple, values: Any, dt: Any, inputs: tuple, node_name: str) -> Tensor:
    """A tensor of ``values``; where an input requires grad, the node PyTorch records."""
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    values = like(tensors[0]._data, values).astype(dt.np, copy=False).reshape(shape)
    if len(tensors) == 2:
        return random_ops.sample2(*tensors, values=values, node_name=node_name)
    return random_ops.sample(tensors[0], values=values, node_name=node_name)


def normal(
    mean: Tensor | float,
    std: Tensor | float = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Samples of N(mean, std²): mean and std tensors (broadcast) or numbers (with size)."""
    check_device(device)
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not m_t and not s_t:
        if size is None:
            raise TypeError(
                f"normal() received an invalid combination of arguments - got "
                f"({type(mean).__name__}, {type(std).__name__})"
            )
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        from ..._creation import _size
        from ..._random import _float_dtype

        dt = _float_dtype(dtype, "normal_kernel_cpu")
        target = xp.empty(_size((size,), "normal"), dt.np)
        z = _make(draw("n", generator_of(generator, "normal"), target, dt, mean, std), dt)
        return z.requires_grad_() if requires_grad else z
    if s_t:
        if std._dtype._category == 3:
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if (std._data < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    from ..._promotion import result_type

    dt = result_type([t for t in (mean, std) if isinstance(t, Tensor)])
    m = mean._data if m_t else mean
    s = std._data if s_t else std
    shape = xp.broadcast_shapes(xp.shape(m), xp.shape(s))
    gen = generator_of(generator, "normal")
    # PyTorch's order: N(0, std) drawn for a number std, else N(0, 1) times std; then + mean
    # (a complex mean: complex noise, each part N(0, std²/2))
    n = draw("n", gen, xp.empty(shape, dt.np), dt, 0.0, 1.0 if s_t else s)
    n = like(m if m_t else s, n)  # (drawn on the host) where the tensors are
    if s_t:
        n = (n * s).astype(dt.np, copy=False)
    node = "NormalBackward3" if m_t and s_t else "NormalBackward1" if m_t else "NormalBackward2"
    return _draw_like(shape, n + m, dt, (mean, std), node)


def bernoulli(
    input: Tensor,
    p: float | None = None,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """1 with probability input (elementwise; or p for every element), else 0, in input's
    dtype."""
    gen = generator_of(generator, "bernoulli")
    n = input._data.size
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        draws = _sampling.bernoulli(gen, p, n).reshape(input._data.shape)
        return _make(like(input._data, draws).astype(input._dtype.np), input._dtype)
    if input._dtype._category == 3:
        raise _dtypes.not_implemented("bernoulli_tensor_cpu_self_", input._dtype)
    if not input._dtype.is_floating_point:
        raise _dtypes.not_implemented("bernoulli_tensor_cpu_p_", input._dtype)
    probs = input._data
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    draws = _sampling.bernoulli(gen, to_host(probs).reshape(-1), n, input._dtype is _dtypes.float64)
    return _draw_like(probs.shape, draws, input._dtype, (input,), "BernoulliBackward0")


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples of the Poisson distribution of rate input (elementwise), in input's dtype."""
    if not input._dtype.is_floating_point:
        raise _dtypes.not_implemented("poisson_cpu", input._dtype)
    rates = input._data
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    gen = generator_of(generator, "poisson")
    values = _sampling_rejection.poisson(gen, to_host(rates).astype(xp.float64).reshape(-1))
    with xp.errstate(over="ignore"):  # (counts past a 16-bit float's range are inf)
        values = values.astype(input._dtype.np)
    return _draw_like(rates.shape, values, input._dtype, (input,), "PoissonBackward0")


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """Indices drawn from the categories of each row of input (weights, not necessarily
    summing to 1), without replacement unless ``replacement`` (int64)."""
    if not input._dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{input._dtype.scalar_name}"
        )
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n_cat = input._data.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = input._data.shape[0] if input.ndim == 2 else 1
    with on_device_of(input._data):  # the indices where input is
        p = input._data.astype(xp.float64).reshape(rows, n_cat)
        if replacement and num_samples > 1:
            _check_rows(p)
        elif not (xp.isfinite(p) & (p >= 0)).all():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        total = p.sum(axis=1, keepdims=True)
        if (total <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = generator_of(generator, "multinomial")
    probs = to_host(input._data).reshape(rows, n_cat)  # (drawn on the host)
    if replacement and num_samples > 1:
        idx = _with_replacement(gen, probs, num_samples)
    else:  # an exponential race: p/E, the largest num_samples win
        e = _sampling.exponential(gen, rows * n_cat, 1.0).astype(input._dtype.np)
        with xp.errstate(divide="ignore", invalid="ignore"):
            keys = probs / e.reshape(rows, n_cat)
        idx = xp.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    shape = (num_samples,) if input.ndim == 1 else (rows, num_samples)
    idx = like(input._data, idx.astype(xp.int64).reshape(shape))  # where input is
    return _make(idx, _dtypes.int64)


def _check_rows(p: Any) -> None:
    """PyTorch's checks before draws with replacement, row by row: the first entry that is
    negative or NaN, or infinite, names the error; else a row whose sum is <= 0."""
    bad = ~(p >= 0) | xp.isinf(p)
    row_bad = bad.any(axis=1) | (p.sum(axis=1) <= 0)
    if not row_bad.any():
        return
    row = int(row_bad.argmax())
    if bad[row].any():
        if not p[row, int(bad[row].argmax())] >= 0:
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)"
            )
        raise RuntimeError(
            "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
        )
    raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _with_replacement(gen: Generator, p: Any, num_samples: int) -> Any:
    """PyTorch's draws with replacement: per row, the CDF summed in p's dtype (float32 for
    16-bit floats) and divided by its total, the last entry set to 1; each sample the first
    category whose CDF reaches a float64 uniform."""
    acc = xp.float64 if p.dtype == xp.float64 else xp.float32
    cdf = xp.cumsum(p.astype(acc), axis=1)
    cdf = cdf / cdf[:, -1:]
    cdf[:, -1] = 1
    u = _sampling.uniform01(gen, cdf.shape[0] * num_samples, _dtypes.float64)
    u = u.reshape(-1, num_samples)
    return xp.stack([xp.searchsorted(c.astype(xp.float64), r) for c, r in zip(cdf, u)])


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples of the binomial distribution: successes in ``count`` trials of probability
    ``prob`` (elementwise, broadcast; 0 for a probability <= 0 or a count <= 0, count for a
    probability >= 1), in count's float dtype."""
    if not count._dtype.is_floating_point:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {count._dtype.scalar_name}"
        )
    if prob._dtype is not count._dtype:
        raise RuntimeError(
            f"Found dtype {prob._dtype.scalar_name} but expected {count._dtype.scalar_name}"
        )
    n, p = (
        to_host(v).astype(xp.float64).reshape(-1)
        for v in xp.broadcast_arrays(count._data, prob._data)
    )
    if count._dtype.np not in (xp.float32, xp.float64):
        raise _dtypes.not_implemented("binomial_cpu", count._dtype)
    gen = generator_of(generator, "binomial")
    counts = _sampling_rejection.binomial(gen, n, p, count._dtype is _dtypes.float32)
    shape = xp.broadcast_shapes(count._data.shape, prob._data.shape)
    return _make(like(count._data, counts.reshape(shape), dtype=count._dtype.np), count._dtype)


# ----- gamma and Dirichlet draws, reparameterized ------------------------------------------


def _tensor_args(fn: str, **named: Any) -> None:
    """PyTorch's TypeError for an argument that is not a tensor (positions from 1)."""
    for position, (name, value) in enumerate(named.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )


def _gamma_draws(alpha: Tensor, gen: Any, kernel: str) -> Any:
    """PyTorch's draws for alpha, in float64 on the host: x ~ Gamma(α, 1) for each element
    (rounded to alpha's dtype, at least its smallest normal number), or for ``kernel``
    "dirichlet" the Dirichlet draws over the last dim (already in alpha's dtype)."""
    if alpha._dtype.np not in (xp.float32, xp.float64):
        raise _dtypes.not_implemented(kernel, alpha._dtype)
    a = to_host(alpha._data).astype(xp.float64)
    if kernel == "dirichlet":
        return _sampling_rejection.dirichlet(gen, a, alpha._dtype.np)
    single = alpha._dtype is _dtypes.float32
    return _sampling_rejection.gamma(gen, a.reshape(-1), single).reshape(a.shape)


def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples x ~ Gamma(input, 1) (shape input, rate 1) elementwise; differentiable in
    input: dx/dα = -(∂P(α, x)/∂α) / p(x; α) (``_standard_gamma_grad``)."""
    _tensor_args("_standard_gamma", input=input)
    gen = generator_of(generator, "_standard_gamma")
    draws = _gamma_draws(input, gen, "gamma_cpu")
    values = like(input._data, draws).astype(input._dtype.np, copy=False)
    return random_ops.standard_gamma(input, draws=values)


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    """dx/dα of the draws ``output`` of Gamma(``input``, 1): -(∂P(α, x)/∂α) / p(x; α)."""
    _tensor_args("_standard_gamma_grad", input=input, output=output)
    return random_ops.standard_gamma_grad(input, output)


def _sample_dirichlet(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples of Dirichlet(input) over the last dim: independent Gamma(α_i, 1) draws over
    their sum, within [tiny, the largest number below 1] of the dtype; differentiable in input with the
    gradient PyTorch's Dirichlet.rsample takes (``_dirichlet_grad``)."""
    _tensor_args("_sample_dirichlet", input=input)
    gen = generator_of(generator, "_sample_dirichlet")
    x = _gamma_draws(input, gen, "dirichlet")
    values = like(input._data, x).astype(input._dtype.np, copy=False)
    return random_ops.sample_dirichlet(input, draws=values)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """-(∂I_x(a, b)/∂a) / (f(x; a, b) (1 - x)) for x ~ Beta(a, b), a = alpha,
    b = total - alpha: the scaled reparameterized gradient of a Dirichlet coordinate."""
    _tensor_args("_dirichlet_grad", x=x, alpha=alpha, total=total)
    return random_ops.dirichlet_grad(x, alpha, total)
