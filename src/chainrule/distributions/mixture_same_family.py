"""``MixtureSameFamily(mixture_distribution, component_distribution)``: a mixture of K
distributions of one family, p(x) = Σ_k π_k p_k(x), the weights π a Categorical over the
rightmost batch dim of the components."""

from __future__ import annotations

from typing import Any

from . import constraints
from .categorical import Categorical
from .distribution import Distribution, _size

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Mixtures with weights ``mixture_distribution`` (a Categorical of batch shape B or ())
    over the K components of ``component_distribution`` (batch shape B + (K,)).
    log p(x) = logsumexp_k(log π_k + log p_k(x)); mean Σ π_k μ_k; variance by the law of
    total variance, Σ π_k σ_k² + Σ π_k (μ_k - μ)²; cdf Σ π_k F_k(x). Samples pick a
    component per draw; there is no ``rsample``."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: Any = None,
    ) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of "
                "torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of "
                "torch.distributions.Distribution"
            )
        mdbs = mixture_distribution.batch_shape
        cdbs = _size(tuple(component_distribution.batch_shape)[:-1])
        for m, c in zip(reversed(mdbs), reversed(cdbs)):
            if m != 1 and c != 1 and m != c:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        batch = _size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new._component_distribution = self._component_distribution.expand(
            tuple(batch) + (self._num_component,)
        )
        new._mixture_distribution = self._mixture_distribution.expand(batch)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(
            new, batch, new._component_distribution.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    @property
    def mean(self) -> Any:
        """Σ_k π_k μ_k"""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Any:
        """Σ_k π_k σ_k² + Σ_k π_k (μ_k - μ)²"""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_of_variances = (probs * self.component_distribution.variance).sum(dim)
        spread = (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)
        return mean_of_variances + (probs * spread).sum(dim)

    def cdf(self, x: Any) -> Any:
        """Σ_k π_k F_k(x)"""
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Any) -> Any:
        """logsumexp_k(log π_k + log p_k(x))"""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = self.mixture_distribution.logits.log_softmax(dim=-1)
        return (log_prob_x + log_mix_prob).logsumexp(dim=-1)

    def sample(self, sample_shape: Any = ()) -> Any:
        from .. import gather, no_grad

        sample_shape = _size(sample_shape)
        gather_dim = len(sample_shape) + len(self.batch_shape)
        es = tuple(self.event_shape)
        with no_grad():
            which = self.mixture_distribution.sample(sample_shape)  # [n, B]
            draws = self.component_distribution.sample(sample_shape)  # [n, B, K, E]
            index = which.reshape(tuple(which.shape) + (1,) * (len(es) + 1))
            index = index.repeat((1,) * which.dim() + (1,) + es)
            return gather(draws, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x: Any) -> Any:
        """x with a component dim of size 1 before its event dims"""
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Any) -> Any:
        """the weights (..., K) shaped to broadcast against the components' (B, K, E)"""
        batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_batch_ndims == 1 else batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self) -> str:
        return (
            f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
        )
