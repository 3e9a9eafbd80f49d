"""``chainrule.distributions`` (PyTorch's ``torch.distributions``), a first part: the
``Distribution`` base with PyTorch's parameter and value checks, ``Normal``, ``Uniform``,
``Bernoulli``, ``Categorical``, ``OneHotCategorical``, ``Exponential``, ``Laplace``,
``MultivariateNormal``, ``Independent``, ``TransformedDistribution`` with elementwise
``transforms`` (``LogNormal``), ``kl_divergence`` between two of one family, and the
constraints they use. Samples come from chainrule's random stream (not PyTorch's);
log densities, entropies, moments, CDFs and KL divergences are PyTorch's, and
differentiable (``rsample`` where the family has it)."""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .transformed_distribution import LogNormal, TransformedDistribution
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Exponential",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "TransformedDistribution",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transforms",
]
