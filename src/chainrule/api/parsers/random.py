"""Random sampling with PyTorch's signatures: the in-place samplers of a tensor
(``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``exponential_``, ``geometric_``,
``cauchy_``, ``log_normal_``) and ``normal``, ``bernoulli``, ``poisson``, ``multinomial``,
each with ``generator=``, PyTorch's parameter checks and messages; the reparameterized
draws ``_standard_gamma`` and ``_sample_dirichlet`` and their gradients.

The values come from the generator's NumPy stream (not PyTorch's numbers, PyTorch's
distributions), drawn on the host for every device (the same seed gives the same values on
each) and copied to the device of the tensor they fill or follow; the op ``random.sample``
records the node PyTorch records (every gradient of a draw is zero)."""

from __future__ import annotations

from typing import Any

from ... import _dtypes
from ..._backend import like, on_device_of, to_host, xp
from ..._random import Generator, complex_parts, rng_of, sample_np_dtype
from ..._tensor import Tensor, _make, check_device
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


def _float_np(t: Tensor) -> Any:
    return sample_np_dtype(t._dtype)


def _write(self: Tensor, values: Any, node_name: str) -> Tensor:
    """Write ``values`` into self in place, recorded as PyTorch's node ``node_name``."""
    values = like(self._data, values).astype(self._dtype.np, copy=False)
    params = {"values": values, "node_name": node_name}
    return inplace(self, random_ops.sample, (self,), params)


def _require_float(self: Tensor, kernel: str, complex_ok: bool = False) -> None:
    """PyTorch's error for a sampler with no kernel for self's dtype (integers, bools, and
    complex unless ``complex_ok``)."""
    if self._dtype._category < 2 or self._dtype._category == 3 and not complex_ok:
        raise _dtypes.not_implemented(kernel, self._dtype)


def _draws(self: Tensor, kind: str, generator: Generator | None, fn: str) -> Any:
    """Standard normal ("n") or uniform [0, 1) ("u") samples of self's shape, drawn in
    self's sampling dtype; complex: each part drawn, the normal ones N(0, 1/2) (PyTorch's:
    E|z|² is the variance)."""
    gen = rng_of(generator, fn)
    if self._dtype._category == 3:
        return complex_parts(kind, gen, self._data.shape, self._dtype)
    if kind == "n":
        return gen.standard_normal(self._data.shape, dtype=_float_np(self))
    return gen.random(self._data.shape, dtype=_float_np(self))


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
    u = _draws(self, "u", generator, "uniform_")
    if self._dtype._category == 3:  # each part on [from, to)
        return _write(self, complex(from_, from_) + (to - from_) * u, "UniformBackward0")
    return _write(self, from_ + (to - from_) * u, "UniformBackward0")


def normal_(
    self: Tensor, mean: float = 0, std: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of the normal distribution N(mean, std²); complex: each part
    N(mean, std²/2), as PyTorch draws them (mean added to both parts)."""
    _require_float(self, "normal_kernel_cpu", complex_ok=True)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    n = _draws(self, "n", generator, "normal_")
    if self._dtype._category == 3:  # (n's parts are N(0, 1/2): std scales both)
        return _write(self, complex(mean, mean) + std * n, "NormalBackward0")
    return _write(self, mean + std * n, "NormalBackward0")


def _random_bounds(dt: Any) -> tuple[int, int]:
    """The inclusive range random_() draws from: [0, 2^digits] for floats (every integer
    the format holds exactly), [0, max] for integers."""
    if dt.is_floating_point:
        return 0, 1 << {"float16": 11, "float32": 24, "float64": 53}[dt.name]
    if dt is _dtypes.bool:
        return 0, 1
    return 0, int(xp.iinfo(dt.np).max)


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
    if from_ is None:  # random_()
        low, high = _random_bounds(self._dtype)
        high += 1
        node = "RandomBackward2"
    elif to is None:  # random_(to)
        low, high = 0, int(from_)
        node = "RandomBackward1"
    else:
        low, high = int(from_), int(to)
        node = "RandomBackward0"
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    values = rng_of(generator, "random_").integers(low, high, self._data.shape, endpoint=False)
    return _write(self, values, node)


def bernoulli_(
    self: Tensor, p: float | Tensor = 0.5, *, generator: Generator | None = None
) -> Tensor:
    """Fill with 1 with probability p (a number, or a tensor broadcast to self), else 0."""
    gen = rng_of(generator, "bernoulli_")
    if self._dtype._category == 3:
        kernel = "bernoulli_tensor_cpu_self_" if isinstance(p, Tensor) else "bernoulli_scalar_cpu_"
        raise _dtypes.not_implemented(kernel, self._dtype)
    if isinstance(p, Tensor):
        probs = xp.broadcast_to(p._data, self._data.shape)
        node = "BernoulliBackward1"
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        probs = p
        node = "BernoulliBackward2"
    return _write(self, like(self._data, gen.random(self._data.shape)) < probs, node)


def exponential_(self: Tensor, lambd: float = 1, *, generator: Generator | None = None) -> Tensor:
    """Fill with samples of the exponential distribution of rate lambd."""
    _continuous_only(self, "Exponential")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    e = rng_of(generator, "exponential_").standard_exponential(
        self._data.shape, dtype=_float_np(self)
    )
    return _write(self, e / lambd, "ExponentialBackward0")


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if self._dtype._category == 3:
        raise _dtypes.not_implemented("geometric_cpu", self._dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    values = rng_of(generator, "geometric_").geometric(p, self._data.shape)
    return _write(self, values, "GeometricBackward0")


def cauchy_(
    self: Tensor, median: float = 0, sigma: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with samples of the Cauchy distribution: median + sigma·tan(π(u - 1/2))."""
    _continuous_only(self, "Cauchy", cpp=True)
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    c = rng_of(generator, "cauchy_").standard_cauchy(self._data.shape)
    return _write(self, median + sigma * c, "CauchyBackward0")


def log_normal_(
    self: Tensor, mean: float = 1, std: float = 2, *, generator: Generator | None = None
) -> Tensor:
    """Fill with exp of samples of N(mean, std²)."""
    _require_float(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    n = rng_of(generator, "log_normal_").standard_normal(self._data.shape)
    return _write(self, xp.exp(mean + std * n), "LogNormalBackward0")


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
    from ..._random import randn

    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not m_t and not s_t:
        if size is None:
            raise TypeError(
                f"normal() received an invalid combination of arguments - got "
                f"({type(mean).__name__}, {type(std).__name__})"
            )
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        z = randn(size, dtype=dtype, generator=generator)
        if z._dtype._category == 3:  # (each part N(0, 1/2)) the mean on both parts, as normal_
            mean = complex(mean, mean)
        z._data = (mean + std * z._data).astype(z._data.dtype, copy=False)
        if requires_grad:
            z.requires_grad_()
        return z
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
    gen = rng_of(generator, "normal")
    if dt._category == 3:  # a complex mean: complex noise, each part N(0, std²/2)
        n = complex_parts("n", gen, shape, dt)
    else:
        n = gen.standard_normal(shape, dtype=sample_np_dtype(dt))
    n = like(m if m_t else s, n)  # (drawn on the host) where the tensors are
    node = "NormalBackward3" if m_t and s_t else "NormalBackward1" if m_t else "NormalBackward2"
    return _draw_like(shape, m + s * n, dt, (mean, std), node)


def bernoulli(
    input: Tensor,
    p: float | None = None,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """1 with probability input (elementwise; or p for every element), else 0, in input's
    dtype."""
    gen = rng_of(generator, "bernoulli")
    u = like(input._data, gen.random(input._data.shape))  # (drawn on the host) where input is
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        return _make((u < p).astype(input._dtype.np), input._dtype)
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
    return _draw_like(input._data.shape, u < probs, input._dtype, (input,), "BernoulliBackward0")


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples of the Poisson distribution of rate input (elementwise), in input's dtype."""
    if not input._dtype.is_floating_point:
        raise _dtypes.not_implemented("poisson_cpu", input._dtype)
    rates = input._data
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    values = rng_of(generator, "poisson").poisson(to_host(rates).astype(xp.float64))
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
    with on_device_of(input._data):  # the indices where input is
        p = input._data.astype(xp.float64).reshape(-1, n_cat)
        if not (xp.isfinite(p) & (p >= 0)).all():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        total = p.sum(axis=1, keepdims=True)
        if (total <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        gen = rng_of(generator, "multinomial")
        rows = p.shape[0]
        if replacement:  # inverse CDF: one sorted search over the rows' CDFs shifted by row
            cdf = xp.cumsum(p / total, axis=1) + xp.arange(rows)[:, None]
            u = like(p, gen.random((rows, num_samples))) + xp.arange(rows)[:, None]
            idx = xp.searchsorted(cdf.reshape(-1), u.reshape(-1), side="right").reshape(u.shape)
            idx = idx - xp.arange(rows)[:, None] * n_cat
            last = n_cat - 1 - xp.argmax(p[:, ::-1] > 0, axis=1)  # the last category of weight > 0
            idx = xp.minimum(idx, last[:, None])
        else:  # an exponential race: E/p, the smallest num_samples win (zero weights last)
            with xp.errstate(divide="ignore"):
                keys = like(p, gen.standard_exponential(p.shape)) / p
            idx = xp.argsort(keys, axis=1, kind="stable")[:, :num_samples]
        shape = (num_samples,) if input.ndim == 1 else (rows, num_samples)
        return _make(idx.astype(xp.int64).reshape(shape), _dtypes.int64)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples of the binomial distribution: successes in ``count`` trials of probability
    ``prob`` (elementwise, broadcast; probabilities outside [0, 1] are clamped), in count's
    float dtype."""
    if not count._dtype.is_floating_point:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {count._dtype.scalar_name}"
        )
    if prob._dtype is not count._dtype:
        raise RuntimeError(
            f"Found dtype {prob._dtype.scalar_name} but expected {count._dtype.scalar_name}"
        )
    n, p = xp.broadcast_arrays(count._data, prob._data)
    with xp.errstate(invalid="ignore"):  # (nan counts draw 0)
        trials = xp.nan_to_num(xp.maximum(n, 0), nan=0.0).astype(xp.int64)
    draw = rng_of(generator, "binomial").binomial(to_host(trials), to_host(xp.clip(p, 0.0, 1.0)))
    return _make(like(count._data, draw, dtype=count._dtype.np), count._dtype)


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
    """x ~ Gamma(α, 1) for each element of alpha, in float64 on the host, at least the
    dtype's smallest normal number (which α <= 0 and nan give, as in PyTorch)."""
    if alpha._dtype.np not in (xp.float32, xp.float64):
        raise _dtypes.not_implemented(kernel, alpha._dtype)
    a = to_host(alpha._data).astype(xp.float64)
    drawable = a > 0
    draws = gen.standard_gamma(xp.where(drawable, a, 1.0))
    tiny = float(xp.finfo(alpha._dtype.np).tiny)
    return xp.where(drawable, xp.maximum(draws, tiny), tiny)


def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples x ~ Gamma(input, 1) (shape input, rate 1) elementwise; differentiable in
    input: dx/dα = -(∂P(α, x)/∂α) / p(x; α) (``_standard_gamma_grad``)."""
    _tensor_args("_standard_gamma", input=input)
    gen = rng_of(generator, "_standard_gamma")
    draws = _gamma_draws(input, gen, "gamma_cpu")
    values = like(input._data, draws).astype(input._dtype.np, copy=False)
    return random_ops.standard_gamma(input, draws=values)


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    """dx/dα of the draws ``output`` of Gamma(``input``, 1): -(∂P(α, x)/∂α) / p(x; α)."""
    _tensor_args("_standard_gamma_grad", input=input, output=output)
    return random_ops.standard_gamma_grad(input, output)


def _sample_dirichlet(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Samples of Dirichlet(input) over the last dim: independent Gamma(α_i, 1) draws over
    their sum, within [tiny, 1 - eps] of the dtype; differentiable in input with the
    gradient PyTorch's Dirichlet.rsample takes (``_dirichlet_grad``)."""
    _tensor_args("_sample_dirichlet", input=input)
    gen = rng_of(generator, "_sample_dirichlet")
    gammas = _gamma_draws(input, gen, "dirichlet")
    axis = -1 if gammas.ndim else None
    x = gammas / gammas.sum(axis=axis, keepdims=gammas.ndim > 0)
    info = xp.finfo(input._dtype.np)
    x = xp.clip(x, float(info.tiny), 1.0 - float(info.eps))
    values = like(input._data, x).astype(input._dtype.np, copy=False)
    return random_ops.sample_dirichlet(input, draws=values)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """-(∂I_x(a, b)/∂a) / (f(x; a, b) (1 - x)) for x ~ Beta(a, b), a = alpha,
    b = total - alpha: the scaled reparameterized gradient of a Dirichlet coordinate."""
    _tensor_args("_dirichlet_grad", x=x, alpha=alpha, total=total)
    return random_ops.dirichlet_grad(x, alpha, total)
