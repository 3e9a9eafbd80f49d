"""``Dirichlet(concentration)``: density Γ(Σα) / ΠΓ(α_i) · Π x_i^(α_i - 1) on the simplex,
the last dim of ``concentration`` indexing the coordinates."""

from __future__ import annotations

from typing import Any

from . import constraints
from .exp_family import ExponentialFamily
from .kl import register_kl

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet distributions of concentrations α (positive, the last dim the event);
    ``rsample`` is normalized Gamma(α_i, 1) draws (``_sample_dirichlet``), differentiable
    in α with PyTorch's reparameterized gradient (through the Beta(α_i, Σα - α_i)
    marginals, ``_dirichlet_grad``). As an exponential family: η = α,
    A(η) = Σ log Γ(η_i) - log Γ(Σ η_i); no carrier measure is given (as in PyTorch), so
    only the explicit ``entropy`` works."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Any, validate_args: Any = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> Any:
        from .. import _sample_dirichlet

        shape = self._extended_shape(sample_shape)
        return _sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """Σ (α_i - 1) log x_i + log Γ(Σα) - Σ log Γ(α_i)"""
        from .. import xlogy

        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return xlogy(a - 1.0, value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    @property
    def mean(self) -> Any:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Any:
        """(α - 1)⁺ normalized; where every α_i < 1, the vertex of the largest coordinate
        of that (nan: the first)"""
        from ..nn.functional import one_hot

        above = (self.concentration - 1).clamp(min=0.0)
        mode = above / above.sum(-1, True)
        vertex = one_hot(mode.argmax(dim=-1), above.shape[-1]).to(mode)
        all_below = (self.concentration < 1).all(dim=-1, keepdim=True)
        return vertex.where(all_below, mode)

    @property
    def variance(self) -> Any:
        total = self.concentration.sum(-1, True)
        a = self.concentration
        return a * (total - a) / (total.pow(2) * (total + 1))

    def entropy(self) -> Any:
        """Σ log Γ(α_i) - log Γ(α0) - (K - α0) ψ(α0) - Σ (α_i - 1) ψ(α_i), α0 = Σα"""
        a = self.concentration
        k = a.size(-1)
        a0 = a.sum(-1)
        return (
            a.lgamma().sum(-1)
            - a0.lgamma()
            - (k - a0) * a0.digamma()
            - ((a - 1.0) * a.digamma()).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x: Any) -> Any:
        """A(η) = Σ log Γ(η_i) - log Γ(Σ η_i)"""
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Any:
    """log Γ(Σαp) - log Γ(Σαq) - Σ (log Γ(αp) - log Γ(αq)) + Σ (αp - αq)(ψ(αp) - ψ(Σαp))"""
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)
