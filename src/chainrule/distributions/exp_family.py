"""``ExponentialFamily``: the base of the families whose density is
p(x; η) = exp(⟨t(x), η⟩ - A(η) + k(x)), η the natural parameters, t the sufficient
statistic, A the log normalizer and k the carrier measure; their entropy from A by
autograd."""

from __future__ import annotations

from typing import Any

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family, p(x; η) = exp(⟨t(x), η⟩ - A(η) + k(x)).

    A family gives ``_natural_params`` (the tuple η), ``_log_normalizer(*η)`` (A, as a
    function of η) and ``_mean_carrier_measure`` (E[k(x)]). Since ∇A(η) = E[t(x)], the
    entropy is H = -E[k(x)] + A(η) - ⟨η, ∇A(η)⟩, with ∇A taken by autograd; the KL between
    two members of one family is the Bregman divergence of A (registered in ``kl``)."""

    @property
    def _natural_params(self) -> tuple:
        """η, one tensor per natural parameter."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Any) -> Any:
        """A(η), the log of the normalizing constant as a function of η."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        """E[k(x)], the expected carrier measure."""
        raise NotImplementedError

    def entropy(self) -> Any:
        """-E[k(x)] + A(η) - Σ η·∇A(η); η is detached first, so (as in PyTorch) the result
        carries no gradient back to the parameters (∇A itself is kept differentiable)."""
        from .. import autograd

        result = -self._mean_carrier_measure
        etas = [eta.detach().requires_grad_() for eta in self._natural_params]
        log_normalizer = self._log_normalizer(*etas)
        grads = autograd.grad(log_normalizer.sum(), etas, create_graph=True)
        result = result + log_normalizer
        for eta, grad in zip(etas, grads):
            result = result - (eta * grad).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
