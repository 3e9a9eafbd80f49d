"""``VonMises(loc, concentration)``: the circular normal on angles,
p(x) = e^(κ cos(x - μ)) / (2π I₀(κ)), I₀ the modified Bessel function of order 0."""

from __future__ import annotations

import math
from typing import Any

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of I₀ and I₁ (Abramowitz & Stegun 9.8.1-9.8.4, relative error
# about 1e-7), the ones PyTorch evaluates, so densities agree with its to rounding:
# for x < 3.75, I_n(x) ≈ x^n Σ a_k (x/3.75)^(2k); above, I_n(x) ≈ e^x/√x Σ b_k (3.75/x)^k.
_SMALL = {
    0: (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
    1: (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3),
}
_LARGE = {
    0: (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
        0.2635537e-1, -0.1647633e-1, 0.392377e-2),
    1: (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
        -0.2895312e-1, 0.1787654e-1, -0.420059e-2),
}  # fmt: skip


def _horner(y: Any, coefficients: tuple) -> Any:
    """Σ_k c_k y^k, highest power first"""
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Any, order: int = 0) -> Any:
    """log I_order(x) for x > 0, order 0 or 1, by the polynomial approximations above."""
    from .. import where

    if order not in (0, 1):
        raise ValueError(f"order must be 0 or 1, got {order}")
    small = _horner((x / 3.75) ** 2, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, _LARGE[order]).log()
    return where(x < 3.75, small.log(), large)


def _rejection_sample(loc: Any, concentration: Any, proposal_r: Any, x: Any) -> Any:
    """Best & Fisher's (1979) rejection sampler, run until every element accepts: with
    u1, u2, u3 uniform, z = cos πu1, f = (1 + rz)/(r + z), c = κ(r - f); accept
    x = ±acos f (the sign from u3) when c(2 - c) > u2 or log(c/u2) + 1 ≥ c. The result is
    shifted by μ and wrapped into [-π, π)."""
    from .. import rand, where, zeros

    done = zeros(x.shape, dtype=bool)
    while not done.all():
        u1, u2, u3 = rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = (math.pi * u1).cos()
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Von Mises distributions of mean angle ``loc`` μ (any real, read modulo 2π) and
    ``concentration`` κ > 0: log p(x) = κ cos(x - μ) - log 2π - log I₀(κ). ``mean`` and
    ``mode`` are μ; ``variance`` is the circular one, 1 - I₁(κ)/I₀(κ). Samples are drawn in
    float64 by rejection (Best & Fisher) and lie in [-π, π); there is no ``rsample``.

    As PyTorch, log I₀ and log I₁ are the Abramowitz & Stegun polynomial approximations
    (relative error about 1e-7), not the exact ``special.i0``/``i1``."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: Any = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def log_prob(self, value: Any) -> Any:
        """κ cos(x - μ) - log 2π - log I₀(κ)"""
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * (value - self.loc).cos()
        return (
            log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)
        )

    @lazy_property
    def _loc(self) -> Any:
        from .. import float64

        return self.loc.to(float64)

    @lazy_property
    def _concentration(self) -> Any:
        from .. import float64

        return self.concentration.to(float64)

    @lazy_property
    def _proposal_r(self) -> Any:
        """r = (1 + ρ²)/(2ρ), ρ = (τ - √(2τ))/(2κ), τ = 1 + √(1 + 4κ²); 1/κ + κ for κ < 1e-5"""
        from .. import where

        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import no_grad, zeros

        with no_grad():
            x = zeros(self._extended_shape(sample_shape), dtype=self._loc.dtype)
            x = _rejection_sample(self._loc, self._concentration, self._proposal_r, x)
            return x.to(self.loc.dtype)

    @property
    def mean(self) -> Any:
        """the circular mean, μ"""
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @lazy_property
    def variance(self) -> Any:  # type: ignore[override]
        """the circular variance, 1 - I₁(κ)/I₀(κ)"""
        log_i1 = _log_modified_bessel_fn(self.concentration, order=1)
        log_i0 = _log_modified_bessel_fn(self.concentration, order=0)
        return 1 - (log_i1 - log_i0).exp()
