"""More of pyro's distributions for pyro_cases.py (its ``pyro_more_distributions`` case):
each entry makes one distribution from seeded inputs and computes a log density (or a
moment, a partition function, a shape); a failure is a result too (its exception's type
and message, which must be PyTorch's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyro.distributions as dist
import torch

Maker = Callable[[int], torch.Tensor]


def entries(arr: Maker, pos: Maker) -> dict[str, Callable[[], Any]]:
    """The computations by name; ``arr(shape, seed)`` and ``pos(shape, seed)`` make normal
    and positive inputs."""
    counts = torch.tensor([0.0, 1, 3, 2])
    angles = torch.stack([arr((4,), 5), arr((4,), 6)], -1).clamp(-3, 3)
    mvn = dist.MultivariateNormal
    eye = torch.eye(2)
    return {
        "sine_bivariate_von_mises": lambda: dist.SineBivariateVonMises(
            arr((), 1), arr((), 2), pos((), 3), pos((), 4), torch.tensor(0.3)
        ).log_prob(angles),
        "extended_beta_binomial": lambda: dist.ExtendedBetaBinomial(
            pos((4,), 1), pos((4,), 2), 5
        ).log_prob(counts),
        "extended_binomial": lambda: dist.ExtendedBinomial(5, torch.full((4,), 0.3)).log_prob(
            counts
        ),
        "log_normal_negative_binomial": lambda: dist.LogNormalNegativeBinomial(
            3.0, arr((4,), 3), 0.5, num_quad_points=4
        ).log_prob(counts),
        "soft_asymmetric_laplace": lambda: dist.SoftAsymmetricLaplace(
            arr((4,), 1), pos((4,), 2), pos((4,), 3), softness=0.5
        ).log_prob(arr((4,), 4)),
        "affine_beta": lambda: dist.AffineBeta(pos((4,), 1), pos((4,), 2), -1.0, 3.0).log_prob(
            torch.tensor([0.1, 0.5, 1.2, 1.9])
        ),
        "nan_masked_normal": lambda: dist.NanMaskedNormal(arr((4,), 1), pos((4,), 2)).log_prob(
            torch.tensor([0.1, float("nan"), 1.2, 1.9])
        ),
        "dirichlet_multinomial": lambda: dist.DirichletMultinomial(pos((3,), 1), 6).log_prob(
            torch.tensor([1.0, 2, 3])
        ),
        "ordered_logistic": lambda: dist.OrderedLogistic(
            arr((4,), 1), torch.tensor([-1.0, 0.0, 1.5])
        ).log_prob(torch.tensor([0, 1, 2, 3])),
        "unit": lambda: dist.Unit(arr((4,), 1)).log_prob(torch.zeros(4, 0)),
        "improper_uniform": lambda: dist.ImproperUniform(
            dist.constraints.positive, (3,), ()
        ).log_prob(pos((3,), 2)),
        "empirical": lambda: dist.Empirical(arr((5, 2), 1), arr((5,), 2)).log_prob(
            arr((5, 2), 1)[2]
        ),
        "empirical_mean": lambda: dist.Empirical(arr((5, 2), 1), arr((5,), 2)).mean,
        "truncated_polya_gamma": lambda: dist.TruncatedPolyaGamma(prototype=torch.ones(1)).log_prob(
            torch.tensor([0.3, 1.0, 2.0])
        ),
        "wishart": lambda: dist.Wishart(torch.tensor(5.0), torch.eye(3) + 0.1).log_prob(
            torch.eye(3) * 2
        ),
        "coalescent_times_error": lambda: dist.CoalescentTimes(
            torch.tensor([0.0, 0, 1, 2])
        ).log_prob(torch.tensor([3.0, 4.0, 5.0])),
        "spanning_tree": lambda: dist.SpanningTree(arr((3,), 1)).log_prob(
            torch.tensor([[0, 1], [1, 2]])
        ),
        "linear_hmm_error": lambda: dist.LinearHMM(
            dist.Normal(torch.zeros(2), 1).to_event(1),
            eye * 0.9,
            dist.Normal(torch.zeros(2), 0.5).to_event(1),
            eye,
            dist.Normal(torch.zeros(2), 0.3).to_event(1),
            duration=4,
        ).log_prob(arr((4, 2), 3)),
        "gamma_gaussian_hmm": lambda: dist.GammaGaussianHMM(
            dist.Gamma(2.0, 1.0),
            mvn(torch.zeros(2), eye),
            eye * 0.8,
            mvn(torch.zeros(2), eye * 0.3),
            eye,
            mvn(torch.zeros(2), eye * 0.2),
            duration=4,
        ).log_prob(arr((4, 2), 4)),
        "sine_skewed": lambda: dist.SineSkewed(
            dist.VonMises(torch.zeros(2), torch.ones(2)).to_event(1), torch.tensor([0.2, -0.3])
        ).log_prob(torch.tensor([0.5, -1.0])),
        "zero_inflated_distribution": lambda: dist.ZeroInflatedDistribution(
            dist.Poisson(pos((4,), 3)), gate_logits=arr((4,), 4)
        ).log_prob(counts),
        "von_mises_3d": lambda: dist.VonMises3D(arr((3,), 1)).log_prob(
            torch.nn.functional.normalize(arr((3,), 2), dim=-1)
        ),
        "stable_error": lambda: dist.Stable(torch.tensor(1.5), torch.tensor(0.2)).log_prob(
            torch.tensor([0.1, 1.0])
        ),
        "one_two_matching": lambda: (
            dist.OneTwoMatching(arr((4, 2), 5), bp_iters=10).log_partition_function
        ),
        "logistic_cdf": lambda: dist.Logistic(0.0, 1.0).cdf(torch.tensor([0.3, -1.0])),
        "student_t_rsample_shape": lambda: torch.tensor(
            dist.MultivariateStudentT(3.0, torch.zeros(2), eye).rsample((4,)).shape
        ),
    }


def outcome(fn: Callable[[], Any]) -> Any:
    """``fn()``, or its exception as "Type: message"."""
    try:
        return fn()
    except Exception as e:  # (the error is the result)
        return f"{type(e).__name__}: {e}"
