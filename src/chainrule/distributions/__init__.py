"""``chainrule.distributions`` (PyTorch's ``torch.distributions``), every family PyTorch
has: the ``Distribution`` base with PyTorch's parameter and value checks and ``expand``,
and ``ExponentialFamily`` (entropy and KL as Bregman divergences of the log normalizer);
continuous families (``Normal``, ``Uniform``, ``Exponential``, ``Laplace``, ``Gamma``,
``Chi2``, ``InverseGamma``, ``Beta``, ``Dirichlet``, ``StudentT``, ``FisherSnedecor``,
``Cauchy``, ``HalfNormal``, ``HalfCauchy``, ``Gumbel``, ``Pareto``, ``GeneralizedPareto``,
``Weibull``, ``Kumaraswamy``, ``LogNormal``, ``LogisticNormal``, ``ContinuousBernoulli``,
``VonMises``, ``MultivariateNormal``, ``LowRankMultivariateNormal``, ``Wishart``,
``LKJCholesky``, the relaxed ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical``),
discrete ones (``Bernoulli``, ``Categorical``, ``OneHotCategorical`` and its
straight-through form, ``Binomial``, ``Geometric``, ``Multinomial``, ``NegativeBinomial``,
``Poisson``) and ones built from others (``Independent``, ``MixtureSameFamily``,
``TransformedDistribution``); the ``transforms`` and ``constraints``,
``biject_to``/``transform_to``; ``kl_divergence`` for every pair PyTorch registers.
Samples are PyTorch's for the same seed (docs/random.md), but for ``LKJCholesky`` and
``Wishart``, whose samplers differ on purpose (docs/missing.md). Log densities, entropies,
moments, CDFs and KL divergences are PyTorch's, and differentiable (``rsample`` where the
family has it)."""

from . import constraint_registry, constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import LogNormal, TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "CatTransform",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ContinuousBernoulli",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "IndependentTransform",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "LowerCholeskyTransform",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraint_registry",
    "constraints",
    "identity_transform",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
