"""The botorch cases of test_botorch.py, run once per side.

``python botorch_cases.py OUT oracle`` runs every case on the real PyTorch and writes
``OUT/botorch_oracle.npz``; ``chainrule run botorch_cases.py OUT chainrule`` writes
``OUT/botorch_chainrule.npz``. botorch's models start from fixed hyperparameters (no random
initialisation), so both sides build the same models from the same NumPy-made data;
what botorch draws from torch's generator (IID samplers, the restarts picked from raw
samples) is seeded: PyTorch's draws for the same seed. Everything is float64. A case that
raises records its error in ``OUT/botorch_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import torch
from botorch import acquisition as acq
from botorch.acquisition import multi_objective as moacq
from botorch.acquisition.analytic import LogProbabilityOfImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import ModelListGP, MultiTaskGP, SingleTaskGP
from botorch.models.transforms import Log, Normalize, Standardize
from botorch.optim import optimize_acqf
from botorch.optim.fit import fit_gpytorch_mll_torch
from botorch.optim.initializers import gen_batch_initial_conditions
from botorch.sampling import IIDNormalSampler, SobolQMCNormalSampler
from botorch.test_functions import Ackley, Branin, Hartmann, Levy, Rosenbrock
from botorch.test_functions.multi_objective import BraninCurrin
from botorch.utils import draw_sobol_samples, standardize
from botorch.utils.multi_objective import is_non_dominated
from botorch.utils.multi_objective.box_decompositions import FastNondominatedPartitioning
from botorch.utils.multi_objective.hypervolume import Hypervolume
from botorch.utils.transforms import normalize, unnormalize
from case_runner import Cases
from gpytorch.mlls import ExactMarginalLogLikelihood, SumMarginalLogLikelihood

OUT, SIDE = sys.argv[1], sys.argv[2]
CASES = Cases()
case, put, put_state = CASES.case, CASES.put, CASES.put_state
torch.set_default_dtype(torch.float64)
warnings.simplefilter("ignore")


def unit(shape: tuple, seed: int) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).uniform(0.0, 1.0, shape))


def branin_data(n: int = 12, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    f = Branin()
    x = unnormalize(unit((n, 2), seed), f.bounds)
    return x, f(x).unsqueeze(-1)


def fitted_model(n: int = 12, seed: int = 0) -> tuple[SingleTaskGP, torch.Tensor, torch.Tensor]:
    x, y = branin_data(n, seed)
    model = SingleTaskGP(x, y, input_transform=Normalize(2), outcome_transform=Standardize(1))
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    fit_gpytorch_mll(mll)
    return model, x, y


@case
def test_functions() -> None:
    for name, f in {
        "branin": Branin(),
        "hartmann6": Hartmann(dim=6),
        "hartmann3": Hartmann(dim=3),
        "ackley": Ackley(dim=3),
        "rosenbrock": Rosenbrock(dim=4),
        "levy": Levy(dim=2),
    }.items():
        x = unnormalize(unit((5, f.dim), 1), f.bounds).requires_grad_()
        y = f(x)
        y.sum().backward()
        put(name + ".y", y)
        put(name + ".grad", x.grad)
        put(name + ".optimal_value", f.optimal_value)
        put(name + ".optimizers", f.optimizers)
    mo = BraninCurrin()
    put("branincurrin", mo(unit((4, 2), 2)))


@case
def transforms() -> None:
    x = unnormalize(unit((8, 3), 3), torch.tensor([[-2.0, 0.0, 5.0], [2.0, 10.0, 6.0]]))
    y = unit((8, 2), 4) * 10.0 + 3.0
    norm = Normalize(3)
    norm.train()
    put("normalize.learned", norm(x))
    norm.eval()
    put("normalize.eval", norm(x[:3] + 0.5))
    put("normalize.untransform", norm.untransform(norm(x)))
    fixed = Normalize(3, bounds=torch.tensor([[-3.0, -1.0, 4.0], [3.0, 11.0, 7.0]]))
    put("normalize.fixed", fixed(x))
    std = Standardize(2)
    ys, _ = std(y)
    put("standardize.y", ys)
    put("standardize.means", std.means)
    put("standardize.stdvs", std.stdvs)
    std.eval()
    back, _ = std.untransform(ys)
    put("standardize.back", back)
    log = Log()
    ly, _ = log(y)
    put("log.y", ly)
    put("utils.standardize", standardize(y))
    put("utils.normalize", normalize(x, torch.tensor([[-2.0, 0.0, 5.0], [2.0, 10.0, 6.0]])))
    put("sobol", draw_sobol_samples(torch.tensor([[0.0, -1.0], [1.0, 1.0]]), n=4, q=2, seed=5))


@case
def fit_single_task() -> None:
    """fit_gpytorch_mll with scipy's L-BFGS-B (parameters through NumPy), the fitted
    hyperparameters and the posterior."""
    model, x, y = fitted_model()
    put_state("stgp", model)
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    model.train()
    put("stgp.mll", mll(model(*model.train_inputs), model.train_targets))
    model.eval()
    xt = unnormalize(unit((6, 2), 10), Branin().bounds)
    post = model.posterior(xt)
    put("post.mean", post.mean)
    put("post.variance", post.variance)
    put("post.cov", post.mvn.covariance_matrix)
    noisy = model.posterior(xt, observation_noise=True)
    put("post.noisy_variance", noisy.variance)
    sampler = SobolQMCNormalSampler(torch.Size([8]), seed=3)
    put("post.samples", sampler(post))
    put("post.iid_samples", IIDNormalSampler(torch.Size([8]), seed=3)(post))
    # gradient of the posterior mean with respect to the inputs
    xg = xt.clone().requires_grad_()
    model.posterior(xg).mean.sum().backward()
    put("post.grad", xg.grad)
    # a fixed-noise model and a two-output (batched) model
    yvar = torch.full_like(y, 0.5)
    fixed = SingleTaskGP(x, y, yvar, input_transform=Normalize(2), outcome_transform=Standardize(1))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(fixed.likelihood, fixed))
    put_state("fixed", fixed)
    put("fixed.mean", fixed.posterior(xt).mean)
    y2 = torch.cat([y, (x**2).sum(-1, keepdim=True)], -1)
    two = SingleTaskGP(x, y2, input_transform=Normalize(2), outcome_transform=Standardize(2))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(two.likelihood, two))
    put_state("two", two)
    put("two.mean", two.posterior(xt).mean)
    put("two.var", two.posterior(xt).variance)


@case
def fit_with_torch_optimizer() -> None:
    x, y = branin_data(10, seed=20)
    model = SingleTaskGP(x, y, input_transform=Normalize(2), outcome_transform=Standardize(1))
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    fit_gpytorch_mll(mll, optimizer=fit_gpytorch_mll_torch, optimizer_kwargs={"step_limit": 15})
    put_state("torchfit", model)
    put("torchfit.mean", model.posterior(x[:3] + 0.1).mean)


@case
def analytic_acquisitions() -> None:
    model, x, y = fitted_model()
    xt = unnormalize(unit((5, 1, 2), 30), Branin().bounds)
    best = y.min()
    for name, fn in {
        "ei": acq.ExpectedImprovement(model, best_f=best, maximize=False),
        "logei": acq.LogExpectedImprovement(model, best_f=best, maximize=False),
        "pi": acq.ProbabilityOfImprovement(model, best_f=best, maximize=False),
        "logpi": LogProbabilityOfImprovement(model, best_f=best, maximize=False),
        "ucb": acq.UpperConfidenceBound(model, beta=0.2, maximize=False),
        "mean": acq.PosteriorMean(model, maximize=False),
        "std": acq.PosteriorStandardDeviation(model),
    }.items():
        xg = xt.clone().requires_grad_()
        val = fn(xg)
        val.sum().backward()
        put(name, val)
        put(name + ".grad", xg.grad)


@case
def mc_acquisitions() -> None:
    model, x, y = fitted_model()
    xt = unnormalize(unit((3, 2, 2), 40), Branin().bounds)

    def sampler() -> SobolQMCNormalSampler:
        return SobolQMCNormalSampler(torch.Size([32]), seed=7)

    best = y.max()
    for name, make in {
        "qei": lambda: acq.qExpectedImprovement(model, best_f=best, sampler=sampler()),
        "qlogei": lambda: acq.qLogExpectedImprovement(model, best_f=best, sampler=sampler()),
        "qpi": lambda: acq.qProbabilityOfImprovement(model, best_f=best, sampler=sampler()),
        "qucb": lambda: acq.qUpperConfidenceBound(model, beta=0.3, sampler=sampler()),
        "qsr": lambda: acq.qSimpleRegret(model, sampler=sampler()),
        "qnei": lambda: acq.qNoisyExpectedImprovement(
            model, X_baseline=x, sampler=sampler(), prune_baseline=False
        ),
        "qlognei": lambda: acq.qLogNoisyExpectedImprovement(
            model, X_baseline=x, sampler=sampler(), prune_baseline=False
        ),
    }.items():
        xg = xt.clone().requires_grad_()
        val = make()(xg)
        val.sum().backward()
        put(name, val)
        put(name + ".grad", xg.grad)
    # a linear objective on a two-output model
    y2 = torch.cat([y, -y / 2.0 + 1.0], -1)
    two = SingleTaskGP(x, y2, input_transform=Normalize(2), outcome_transform=Standardize(2))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(two.likelihood, two))
    obj = acq.LinearMCObjective(torch.tensor([0.7, 0.3]))
    put(
        "qei.objective",
        acq.qExpectedImprovement(two, best_f=0.0, sampler=sampler(), objective=obj)(xt),
    )


@case
def optimize_acquisition() -> None:
    """optimize_acqf from given starting points (deterministic), and from botorch's own
    raw-sample initialisation with a seed: the Sobol raw samples are PyTorch's bit for bit,
    and so are the restarts picked from them with ``torch.multinomial`` (q=2 too)."""
    model, x, y = fitted_model()
    bounds = Branin().bounds
    logei = acq.LogExpectedImprovement(model, best_f=y.min(), maximize=False)
    starts = unnormalize(unit((3, 1, 2), 50), bounds)
    cand, val = optimize_acqf(
        logei, bounds=bounds, q=1, num_restarts=3, batch_initial_conditions=starts
    )
    put("fixed_starts.candidate", cand)
    put("fixed_starts.value", val)
    cand, val = optimize_acqf(
        logei,
        bounds=bounds,
        q=1,
        num_restarts=3,
        batch_initial_conditions=starts,
        return_best_only=False,
    )
    put("all_restarts.candidates", cand)
    put("all_restarts.values", val)
    qlogei = acq.qLogExpectedImprovement(
        model, best_f=-y.min(), sampler=SobolQMCNormalSampler(torch.Size([16]), seed=1)
    )
    starts2 = unnormalize(unit((2, 2, 2), 51), bounds)
    cand, val = optimize_acqf(
        qlogei, bounds=bounds, q=2, num_restarts=2, batch_initial_conditions=starts2
    )
    put("q2.candidate", cand)
    put("q2.value", val)
    torch.manual_seed(5)  # (the seed option seeds the raw samples, not the pick)
    picked = gen_batch_initial_conditions(
        qlogei, bounds, q=2, num_restarts=3, raw_samples=32, options={"seed": 5}
    )
    put("q2.picked_restarts", picked)
    cand, val = optimize_acqf(
        logei, bounds=bounds, q=1, num_restarts=4, raw_samples=64, options={"seed": 0}
    )
    put("raw_samples.value", val)
    put("raw_samples.candidate", cand)  # (here every restart finds the one optimum)
    ucb = acq.UpperConfidenceBound(model, beta=0.1)
    cand, val = optimize_acqf(
        ucb,
        bounds=bounds,
        q=1,
        num_restarts=2,
        batch_initial_conditions=starts[:2],
        fixed_features={0: 1.5},
    )
    put("fixed_features.candidate", cand)


@case
def constrained_optimization() -> None:
    """optimize_acqf under linear inequality and equality constraints and a nonlinear
    constraint (scipy's SLSQP), gen_candidates_torch and gen_candidates_scipy."""
    from botorch.generation.gen import gen_candidates_scipy, gen_candidates_torch

    x = unit((10, 3), 100)
    y = torch.sin(5.0 * x).sum(-1, keepdim=True)
    model = SingleTaskGP(x, y)
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    logei = acq.LogExpectedImprovement(model, best_f=y.max())
    bounds = torch.tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    starts = unit((2, 1, 3), 101) * 0.3
    ineq = [(torch.tensor([0, 1]), torch.tensor([-1.0, -1.0]), -0.5)]
    put(
        "inequality",
        optimize_acqf(
            logei, bounds, 1, 2, batch_initial_conditions=starts, inequality_constraints=ineq
        )[0],
    )
    eq = [(torch.tensor([0, 2]), torch.tensor([1.0, 1.0]), 0.8)]
    put(
        "equality",
        optimize_acqf(
            logei, bounds, 1, 2, batch_initial_conditions=starts + 0.1, equality_constraints=eq
        )[0],
    )
    ball = [(lambda z: 0.5 - (z**2).sum(-1), True)]
    put(
        "nonlinear",
        optimize_acqf(
            logei,
            bounds,
            1,
            2,
            batch_initial_conditions=starts,
            nonlinear_inequality_constraints=ball,
        )[0],
    )
    cand, val = gen_candidates_torch(
        starts, logei, lower_bounds=0.0, upper_bounds=1.0, options={"maxiter": 20}
    )
    put("gen_torch", cand)
    put("gen_torch.values", val)
    cand, val = gen_candidates_scipy(starts, logei, lower_bounds=0.0, upper_bounds=1.0)
    put("gen_scipy", cand)
    put("gen_scipy.values", val)


@case
def multi_output_models() -> None:
    x, y = branin_data(10, seed=60)
    y2 = (x**2).sum(-1, keepdim=True)
    m1 = SingleTaskGP(x, y, input_transform=Normalize(2), outcome_transform=Standardize(1))
    m2 = SingleTaskGP(x, y2, input_transform=Normalize(2), outcome_transform=Standardize(1))
    mlist = ModelListGP(m1, m2)
    fit_gpytorch_mll(SumMarginalLogLikelihood(mlist.likelihood, mlist))
    put_state("list", mlist)
    xt = unnormalize(unit((4, 2), 61), Branin().bounds)
    post = mlist.posterior(xt)
    put("list.mean", post.mean)
    put("list.var", post.variance)
    # a multitask GP: the task index is the last input column
    xi = torch.cat([torch.cat([x, torch.zeros(10, 1)], -1), torch.cat([x, torch.ones(10, 1)], -1)])
    yi = torch.cat([standardize(y), standardize(y2)])
    mt = MultiTaskGP(xi, yi, task_feature=-1)
    with torch.no_grad():  # the task covariance starts random: fix it
        for key, value in mt.named_parameters():
            if key.endswith(("covar_factor", "raw_var")):
                value.copy_(unit(tuple(value.shape), 62) - 0.5)
    fit_gpytorch_mll(ExactMarginalLogLikelihood(mt.likelihood, mt))
    put_state("mtgp", mt)
    p = mt.posterior(xt)
    put("mtgp.mean", p.mean)
    put("mtgp.var", p.variance)
    # condition_on_observations (fantasy data) and fantasize with a seeded Sobol sampler
    m1.eval()
    cond = m1.condition_on_observations(xt[:2], Branin()(xt[:2]).unsqueeze(-1))
    put("cond.mean", cond.posterior(xt).mean)
    fm = m1.fantasize(xt[:2], SobolQMCNormalSampler(torch.Size([4]), seed=2))
    put("fantasize.mean", fm.posterior(xt).mean)


@case
def multi_objective() -> None:
    f = BraninCurrin(negate=True)
    x = unit((12, 2), 70)
    y = f(x)
    put("pareto", is_non_dominated(y))
    ref = torch.tensor([-200.0, -15.0])
    hv = Hypervolume(ref)
    put("hypervolume", hv.compute(y[is_non_dominated(y)]))
    part = FastNondominatedPartitioning(ref_point=ref, Y=y)
    put("partition.hv", part.compute_hypervolume())
    put("partition.bounds", part.get_hypercell_bounds())
    model = SingleTaskGP(x, y, outcome_transform=Standardize(2))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    put_state("mo", model)
    ehvi = moacq.qLogExpectedHypervolumeImprovement(
        model,
        ref_point=ref,
        partitioning=part,
        sampler=SobolQMCNormalSampler(torch.Size([16]), seed=4),
    )
    xt = unit((3, 1, 2), 71)
    put("qlogehvi", ehvi(xt))


@case
def more_models_and_tools() -> None:
    """Mixed and multi-fidelity GPs, chained transforms, a scalarized posterior, discrete
    optimisation and the knowledge gradient with a seeded Sobol sampler."""
    from botorch.acquisition.objective import ScalarizedPosteriorTransform
    from botorch.models import MixedSingleTaskGP, SingleTaskMultiFidelityGP
    from botorch.models.transforms.input import InputStandardize
    from botorch.models.transforms.outcome import ChainedOutcomeTransform
    from botorch.optim import optimize_acqf_discrete

    x, y = branin_data(12, seed=80)
    xc = torch.cat([normalize(x, Branin().bounds), (unit((12, 1), 81) * 3).floor()], -1)
    # (their L-BFGS-B fits run into flat directions of the likelihood, where rounding
    # differences grow: they take a few Adam steps instead, after the initial gradient)
    mixed = MixedSingleTaskGP(xc, y, cat_dims=[2], outcome_transform=Standardize(1))
    xf = torch.cat([normalize(x, Branin().bounds), unit((12, 1), 82)], -1)
    mf = SingleTaskMultiFidelityGP(xf, y, data_fidelities=[2], outcome_transform=Standardize(1))
    for name, model, xt in (("mixed", mixed, xc[:4] + 0.05), ("mf", mf, xf[:4] * 0.9)):
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        model.train()
        loss = -mll(model(*model.train_inputs), model.train_targets)
        loss.backward()
        put(name + ".loss", loss)
        for key, value in model.named_parameters():
            put(f"{name}.{key}.grad", value.grad)
        fit_gpytorch_mll(mll, optimizer=fit_gpytorch_mll_torch, optimizer_kwargs={"step_limit": 10})
        put_state(name, model)
        put(name + ".mean", model.posterior(xt).mean)
        put(name + ".var", model.posterior(xt).variance)
    chained = ChainedOutcomeTransform(log=Log(), standardize=Standardize(1))
    model = SingleTaskGP(x, y + 1.0, input_transform=InputStandardize(2), outcome_transform=chained)
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    put_state("chained", model)
    post = model.posterior(x[:3] * 0.95)
    put("chained.mean", post.mean)
    put("chained.var", post.variance)
    y2 = torch.cat([y, (x**2).sum(-1, keepdim=True)], -1)
    two = SingleTaskGP(x, y2, input_transform=Normalize(2), outcome_transform=Standardize(2))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(two.likelihood, two))
    scal = ScalarizedPosteriorTransform(weights=torch.tensor([-1.0, 0.5]))
    ei = acq.LogExpectedImprovement(two, best_f=-20.0, posterior_transform=scal)
    xt = unnormalize(unit((5, 1, 2), 83), Branin().bounds)
    put("scalarized.logei", ei(xt))
    choices = unnormalize(unit((20, 2), 84), Branin().bounds)
    cand, val = optimize_acqf_discrete(
        acq.qLogExpectedImprovement(
            two,
            best_f=-20.0,
            posterior_transform=scal,
            sampler=SobolQMCNormalSampler(torch.Size([16]), seed=8),
        ),
        q=2,
        choices=choices,
    )
    put("discrete.candidates", cand)
    put("discrete.values", val)
    single, _, _ = fitted_model()
    kg = acq.qKnowledgeGradient(
        single, num_fantasies=4, sampler=SobolQMCNormalSampler(torch.Size([4]), seed=9)
    )
    xkg = torch.cat(
        [xt[:2, :, :].expand(2, 1, 2), unnormalize(unit((2, 4, 2), 85), Branin().bounds)], -2
    )
    put("kg", kg(xkg))


@case
def other_models() -> None:
    """Kronecker multitask and higher-order GPs (their random task factors and latents
    fixed), a variational GP, a preference (pairwise) GP fitted through scipy, leave-one-out
    cross validation, qLogNEHVI, input perturbations and a deterministic model."""
    from botorch.acquisition.multi_objective import qLogNoisyExpectedHypervolumeImprovement
    from botorch.cross_validation import batch_cross_validation, gen_loo_cv_folds
    from botorch.models import (
        AffineDeterministicModel,
        HigherOrderGP,
        KroneckerMultiTaskGP,
        PairwiseGP,
        SingleTaskVariationalGP,
    )
    from botorch.models.pairwise_gp import PairwiseLaplaceMarginalLogLikelihood
    from botorch.models.transforms.input import InputPerturbation
    from gpytorch.mlls import VariationalELBO

    x = unit((10, 2), 90)
    y = torch.sin(5.0 * x).sum(-1, keepdim=True)
    xt = x[:3] * 0.9

    def fix(model: torch.nn.Module, words: tuple[str, ...], seed: int) -> None:
        with torch.no_grad():
            for key, value in model.named_parameters():
                if any(w in key for w in words):
                    value.copy_(unit(tuple(value.shape), seed) - 0.5)

    kron = KroneckerMultiTaskGP(x, torch.cat([y, y**2], -1))
    fix(kron, ("covar_factor", "raw_var"), 91)
    hogp = HigherOrderGP(
        x, torch.stack([y.squeeze(-1) * i for i in (1, 2, 3)], -1)[..., None].expand(10, 3, 2)
    )
    fix(hogp, ("latent",), 92)
    for name, model in (("kron", kron), ("hogp", hogp)):
        model.train()
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        loss = mll(model(*model.train_inputs), model.train_targets)
        loss.backward()
        put(name + ".mll", loss)
        for key, value in model.named_parameters():
            put(f"{name}.{key}.grad", value.grad)
        model.eval()
        put(name + ".mean", model.posterior(xt).mean)
    svgp = SingleTaskVariationalGP(x, y, inducing_points=x[:4].clone())
    svgp.train()
    svgp(x[:2])  # (initialises the variational parameters, with random noise: fixed below)
    fix(svgp, ("variational_mean", "chol_variational_covar"), 93)
    elbo = VariationalELBO(svgp.likelihood, svgp.model, num_data=10)
    put("svgp.elbo", elbo(svgp(x), y.squeeze(-1)))
    svgp.eval()
    put("svgp.mean", svgp.posterior(xt).mean)
    put("svgp.var", svgp.posterior(xt).variance)
    comps = torch.tensor([[0, 1], [2, 1], [3, 4], [5, 6], [7, 8], [9, 0]])
    pair = PairwiseGP(x, comps)
    fit_gpytorch_mll(PairwiseLaplaceMarginalLogLikelihood(pair.likelihood, pair))
    put_state("pairwise", pair)
    put("pairwise.utility", pair.utility)
    put("pairwise.mean", pair.posterior(xt).mean)
    cv = batch_cross_validation(SingleTaskGP, ExactMarginalLogLikelihood, gen_loo_cv_folds(x, y))
    put("cv.mean", cv.posterior.mean)
    two = SingleTaskGP(x, torch.cat([y, -(y**2)], -1), outcome_transform=Standardize(2))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(two.likelihood, two))
    nehvi = qLogNoisyExpectedHypervolumeImprovement(
        two,
        ref_point=torch.tensor([-2.0, -2.0]),
        X_baseline=x,
        sampler=SobolQMCNormalSampler(torch.Size([16]), seed=0),
        prune_baseline=False,
    )
    put("qlognehvi", nehvi(unit((3, 1, 2), 94)))
    perturbed = SingleTaskGP(
        x, y, input_transform=InputPerturbation(torch.tensor([[0.0, 0.0], [0.01, -0.01]]))
    )
    perturbed.eval()
    put("perturbation.mean", perturbed.posterior(xt).mean)
    affine = AffineDeterministicModel(torch.tensor([[1.0], [2.0]]), torch.tensor([0.5]))
    put("affine.mean", affine.posterior(xt).mean)


CASES.run(f"{OUT}/botorch_{SIDE}", fresh_keys=True, timed=True)
