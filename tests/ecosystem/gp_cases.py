"""The gpytorch cases of test_gpytorch.py, run once per side.

``python gp_cases.py OUT oracle`` runs every case on the real PyTorch, saving the models'
initial states to ``OUT/gp_weights.pt`` and the results to ``OUT/gp_oracle.npz``;
``chainrule run gp_cases.py OUT chainrule`` loads those states, writes ``OUT/gp_chainrule.npz``
and saves its trained exact GP to ``OUT/gp_chainrule_state.pt``, which
``python gp_cases.py OUT reload`` (the real PyTorch again) loads and predicts with, into
``OUT/gp_reload.npz``. Inputs are made with NumPy from seeds; everything is float64. A case
that raises records its error in ``OUT/gp_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import gpytorch
import linear_operator
import numpy as np
import torch
from case_inputs import Weights
from case_runner import Cases
from gpytorch import kernels, likelihoods, means, mlls, settings, variational
from gpytorch.distributions import MultitaskMultivariateNormal, MultivariateNormal
from linear_operator import operators as ops

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
STATE_FILE = f"{OUT}/gp_chainrule_state.pt"
# the oracle's initial states (drawn without reseeding torch's stream)
WEIGHTS = Weights(f"{OUT}/gp_weights.pt", ORACLE, seeded=False)
# put_state: every parameter of a module with its gradient where it has one
CASES = Cases(state_grads=True)
case, put, put_state, module = CASES.case, CASES.put, CASES.put_state, WEIGHTS.module
torch.set_default_dtype(torch.float64)


def arr(shape: tuple, seed: int, low: float | None = None, high: float | None = None):
    rng = np.random.default_rng(seed)
    if low is None:
        return torch.tensor(rng.standard_normal(shape))
    return torch.tensor(rng.uniform(low, high, shape))


def data(n: int = 16, d: int = 2, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    x = arr((n, d), seed, 0.0, 1.0)
    y = torch.sin(3.0 * x.sum(-1)) + torch.cos(5.0 * x[:, 0]) + 0.05 * arr((n,), seed + 1)
    return x, y


class ExactModel(gpytorch.models.ExactGP):
    def __init__(self, x, y, likelihood, covar) -> None:
        super().__init__(x, y, likelihood)
        self.mean_module = means.ConstantMean()
        self.covar_module = covar

    def forward(self, x):
        return MultivariateNormal(self.mean_module(x), self.covar_module(x))


def exact_model(key: str, covar: Callable[[], kernels.Kernel], n: int = 16, d: int = 2):
    x, y = data(n, d)

    def make():
        return ExactModel(x, y, likelihoods.GaussianLikelihood(), covar())

    return module(key, make), x, y


def train_exact(name: str, model, x, y, steps: int = 12, lr: float = 0.1) -> None:
    losses = fit_exact(model, x, y, steps, lr)
    put(name + ".losses", np.array(losses))
    put_state(name, model)


def fit_exact(model, x, y, steps: int, lr: float) -> list[float]:
    likelihood = model.likelihood
    mll = mlls.ExactMarginalLogLikelihood(likelihood, model)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    likelihood.train()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = -mll(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def predict(name: str, model, xt) -> None:
    model.eval()
    model.likelihood.eval()
    with torch.no_grad():
        f = model(xt)
        p = model.likelihood(f)
    put(name + ".f_mean", f.mean)
    put(name + ".f_var", f.variance)
    put(name + ".f_cov", f.covariance_matrix)
    put(name + ".mean", p.mean)
    put(name + ".var", p.variance)
    lo, hi = p.confidence_region()
    put(name + ".lo", lo)
    put(name + ".hi", hi)


@case
def kernel_matrices() -> None:
    x1 = arr((7, 3), 1, -1.0, 1.0)
    x2 = arr((5, 3), 2, -1.0, 1.0)
    made = {
        "rbf": lambda: kernels.RBFKernel(),
        "rbf_ard": lambda: kernels.RBFKernel(ard_num_dims=3),
        "matern05": lambda: kernels.MaternKernel(nu=0.5),
        "matern15": lambda: kernels.MaternKernel(nu=1.5, ard_num_dims=3),
        "matern25": lambda: kernels.MaternKernel(nu=2.5),
        "periodic": lambda: kernels.PeriodicKernel(),
        "rq": lambda: kernels.RQKernel(),
        "linear": lambda: kernels.LinearKernel(),
        "poly": lambda: kernels.PolynomialKernel(power=3),
        "cosine": lambda: kernels.CosineKernel(),
        "constant": lambda: kernels.ConstantKernel(),
        "ppoly": lambda: kernels.PiecewisePolynomialKernel(q=2),
        "scale_rbf": lambda: kernels.ScaleKernel(kernels.RBFKernel()),
        "sum": lambda: kernels.RBFKernel() + kernels.ScaleKernel(kernels.LinearKernel()),
        "product": lambda: kernels.MaternKernel(nu=1.5) * kernels.PeriodicKernel(),
        "additive": lambda: kernels.AdditiveStructureKernel(kernels.RBFKernel(), num_dims=3),
        "active_dims": lambda: kernels.RBFKernel(active_dims=[0, 2]),
    }
    for i, (name, make) in enumerate(made.items()):
        k = module("kernel." + name, make)
        # move every raw hyperparameter off its default, reproducibly
        with torch.no_grad():
            for j, (_, p) in enumerate(k.named_parameters()):
                p.copy_(arr(tuple(p.shape), 100 + 10 * i + j) * 0.5)
        x1g = x1.clone().requires_grad_()
        full = k(x1g, x2).to_dense()
        put(f"{name}.k12", full)
        put(f"{name}.k11", k(x1, x1).to_dense())
        put(f"{name}.diag", k(x1, diag=True))
        (full * arr(tuple(full.shape), 7)).sum().backward()
        if x1g.grad is not None:  # None for the constant kernel, on both sides
            put(f"{name}.grad_x", x1g.grad)
        put_state(name, k)


@case
def batch_kernels() -> None:
    x = arr((3, 6, 2), 3, 0.0, 1.0)
    k = module(
        "batch_kernel",
        lambda: kernels.ScaleKernel(
            kernels.RBFKernel(batch_shape=torch.Size([3]), ard_num_dims=2),
            batch_shape=torch.Size([3]),
        ),
    )
    with torch.no_grad():
        k.base_kernel.raw_lengthscale.copy_(arr((3, 1, 2), 4))
        k.raw_outputscale.copy_(arr((3,), 5))
    put("batch.k", k(x).to_dense())
    put("batch.lengthscale", k.base_kernel.lengthscale)
    put("batch.outputscale", k.outputscale)
    put("batch.diag", k(x, diag=True))


@case
def linear_operators() -> None:
    a = arr((6, 6), 11)
    spd = a @ a.mT + 6.0 * torch.eye(6)
    rhs = arr((6, 2), 12)
    lo = ops.DenseLinearOperator(spd)
    put("dense.to_dense", lo.to_dense())
    put("dense.matmul", lo.matmul(rhs))
    put("dense.solve", lo.solve(rhs))
    put("dense.logdet", lo.logdet())
    put("dense.diagonal", lo.diagonal())
    put("dense.cholesky", lo.cholesky().to_dense())
    put(
        "dense.root",
        lo.root_decomposition().root.to_dense() @ lo.root_decomposition().root.to_dense().mT,
    )
    put("dense.inv_quad", lo.inv_quad(rhs[:, 0]))
    with settings.max_cholesky_size(1000):
        iq, ld = lo.inv_quad_logdet(inv_quad_rhs=rhs, logdet=True)
    put("dense.iqld", torch.stack([iq, ld]))
    diag = ops.DiagLinearOperator(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    added = lo + diag
    put("added.to_dense", added.to_dense())
    put("added.solve", added.solve(rhs))
    put("added.logdet", added.logdet())
    kron = ops.KroneckerProductLinearOperator(
        ops.DenseLinearOperator(spd[:3, :3]), ops.DenseLinearOperator(spd[3:, 3:] + torch.eye(3))
    )
    put("kron.to_dense", kron.to_dense())
    put("kron.matmul", kron.matmul(arr((9, 2), 13)))
    put("kron.logdet", kron.logdet())
    put("kron.solve", kron.solve(arr((9, 2), 13)))
    lowrank = ops.LowRankRootAddedDiagLinearOperator(
        ops.LowRankRootLinearOperator(arr((6, 2), 14)),
        ops.DiagLinearOperator(torch.full((6,), 0.5)),
    )
    put("lowrank.solve", lowrank.solve(rhs))
    put("lowrank.logdet", lowrank.logdet())
    tri = ops.TriangularLinearOperator(torch.linalg.cholesky(spd))
    put("tri.solve", tri.solve(rhs))
    put("cat", ops.CatLinearOperator(lo, lo, dim=-1).to_dense())
    put(
        "blockdiag",
        ops.BlockDiagLinearOperator(ops.DenseLinearOperator(spd.expand(2, 6, 6))).to_dense(),
    )
    put("mul", (lo * 2.5).to_dense())
    put("sum", (lo + lo).diagonal())
    # gradients through solve and logdet
    sg = spd.clone().requires_grad_()
    val = ops.DenseLinearOperator(sg).inv_quad_logdet(rhs, logdet=True)
    (val[0] + val[1]).backward()
    put("dense.iqld.grad", sg.grad)
    # conjugate gradients (deterministic: no probe vectors) for the solve
    with (
        settings.max_cholesky_size(0),
        settings.cg_tolerance(1e-10),
        settings.max_cg_iterations(50),
    ):
        put("cg.solve", lo.solve(rhs))
    put("psd_safe_cholesky", linear_operator.utils.cholesky.psd_safe_cholesky(spd))
    put("to_linear_operator", linear_operator.to_dense(linear_operator.to_linear_operator(spd)))


def _rbf() -> kernels.Kernel:
    return kernels.ScaleKernel(kernels.RBFKernel(ard_num_dims=2))


@case
def exact_rbf() -> None:
    model, x, y = exact_model("exact_rbf", _rbf)
    train_exact("rbf", model, x, y)
    predict("rbf", model, arr((9, 2), 20, 0.0, 1.0))
    if SIDE == "chainrule":
        torch.save(model.state_dict(), STATE_FILE)


@case
def exact_matern() -> None:
    model, x, y = exact_model(
        "exact_matern", lambda: kernels.ScaleKernel(kernels.MaternKernel(nu=2.5))
    )
    train_exact("matern", model, x, y)
    predict("matern", model, arr((9, 2), 21, 0.0, 1.0))


@case
def exact_periodic() -> None:
    model, x, y = exact_model(
        "exact_periodic",
        lambda: kernels.ScaleKernel(kernels.PeriodicKernel() + kernels.MaternKernel(nu=1.5)),
        d=1,
    )
    train_exact("periodic", model, x, y, steps=10)
    predict("periodic", model, arr((9, 1), 22, -0.5, 1.5))


@case
def exact_priors_and_constraints() -> None:
    def covar() -> kernels.Kernel:
        return kernels.ScaleKernel(
            kernels.RBFKernel(
                lengthscale_prior=gpytorch.priors.GammaPrior(3.0, 6.0),
                lengthscale_constraint=gpytorch.constraints.Interval(0.05, 4.0),
            ),
            outputscale_prior=gpytorch.priors.LogNormalPrior(0.0, 1.0),
        )

    x, y = data(14, 2, seed=5)

    def make():
        lik = likelihoods.GaussianLikelihood(
            noise_prior=gpytorch.priors.NormalPrior(0.1, 0.5),
            noise_constraint=gpytorch.constraints.GreaterThan(1e-3),
        )
        return ExactModel(x, y, lik, covar())

    model = module("exact_priors", make)
    train_exact("priors", model, x, y, steps=8, lr=0.05)
    put("priors.lengthscale", model.covar_module.base_kernel.lengthscale)
    put("priors.noise", model.likelihood.noise)
    predict("priors", model, arr((5, 2), 23, 0.0, 1.0))


@case
def exact_settings() -> None:
    model, x, y = exact_model("exact_settings", _rbf)
    train_exact("settings", model, x, y, steps=4)
    model.eval()
    xt = arr((6, 2), 24, 0.0, 1.0)
    with torch.no_grad(), settings.fast_pred_var():
        p = model.likelihood(model(xt))
        put("fast_pred_var.mean", p.mean)
        put("fast_pred_var.var", p.variance)
    with torch.no_grad(), settings.cholesky_jitter(double_value=1e-4):
        put("jitter.var", model(xt).variance)
    with torch.no_grad(), settings.skip_posterior_variances():
        put("skip_var.mean", model(xt).mean)
    with torch.no_grad(), settings.max_cholesky_size(0), settings.cg_tolerance(1e-10):
        put("cg.mean", model(xt + 0.01).mean)
    with settings.debug(False), torch.no_grad():
        put("debug_off.mean", model(xt).mean)
    # gradient of the posterior mean with respect to the test inputs
    xg = xt.clone().requires_grad_()
    model(xg).mean.sum().backward()
    put("posterior.grad_x", xg.grad)
    # the marginal log likelihood and its gradient, in train mode, with jitter settings
    model.train()
    mll = mlls.ExactMarginalLogLikelihood(model.likelihood, model)
    with settings.cholesky_jitter(float_value=1e-5, double_value=1e-7):
        put("mll", mll(model(x), y))
    # log_prob of a MultivariateNormal and its KL
    mvn = MultivariateNormal(arr((4,), 30), torch.eye(4) * 2.0 + 0.1)
    other = MultivariateNormal(torch.zeros(4), torch.eye(4))
    put("mvn.log_prob", mvn.log_prob(arr((4,), 31)))
    put("mvn.kl", torch.distributions.kl_divergence(mvn, other))
    put("mvn.rsample_base", mvn.rsample(base_samples=arr((3, 4), 32)))


@case
def exact_float32() -> None:
    """The same exact GP in float32 (gpytorch's own default use): compared to float32
    rounding."""
    x, y = data()
    x, y = x.float(), y.float()

    def make():
        return ExactModel(x, y, likelihoods.GaussianLikelihood(), _rbf()).float()

    model = module("exact_float32", make)
    train_exact("f32", model, x, y, steps=8)
    predict("f32", model, arr((5, 2), 27, 0.0, 1.0).float())


@case
def fixed_noise_and_batch() -> None:
    x, y = data(12, 2, seed=8)
    noise = torch.full((12,), 0.01) + 0.01 * arr((12,), 9).abs()

    def make():
        lik = likelihoods.FixedNoiseGaussianLikelihood(noise=noise, learn_additional_noise=True)
        return ExactModel(x, y, lik, _rbf())

    model = module("fixed_noise", make)
    train_exact("fixed", model, x, y, steps=6)
    model.eval()
    with torch.no_grad():
        xt = arr((4, 2), 25, 0.0, 1.0)
        p = model.likelihood(model(xt), noise=torch.full((4,), 0.02))
        put("fixed.mean", p.mean)
        put("fixed.var", p.variance)

    # a batch of two independent GPs
    xb = torch.stack([x, x.flip(0)])
    yb = torch.stack([y, 2.0 * y - 1.0])

    class BatchModel(gpytorch.models.ExactGP):
        def __init__(self) -> None:
            super().__init__(xb, yb, likelihoods.GaussianLikelihood(batch_shape=torch.Size([2])))
            self.mean_module = means.ConstantMean(batch_shape=torch.Size([2]))
            self.covar_module = kernels.ScaleKernel(
                kernels.RBFKernel(batch_shape=torch.Size([2])), batch_shape=torch.Size([2])
            )

        def forward(self, x):
            return MultivariateNormal(self.mean_module(x), self.covar_module(x))

    bm = module("batch_gp", BatchModel)
    mll = mlls.ExactMarginalLogLikelihood(bm.likelihood, bm)
    opt = torch.optim.Adam(bm.parameters(), lr=0.1)
    losses = []
    bm.train()
    for _ in range(6):
        opt.zero_grad()
        loss = -mll(bm(xb), yb).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    put("batch.losses", np.array(losses))
    put_state("batch", bm)
    bm.eval()
    with torch.no_grad():
        p = bm(arr((2, 5, 2), 26, 0.0, 1.0))
        put("batch.mean", p.mean)
        put("batch.var", p.variance)


@case
def multitask() -> None:
    x = arr((10, 1), 40, 0.0, 1.0)
    y = torch.cat([torch.sin(6.0 * x), torch.cos(6.0 * x) + 0.3 * x], -1) + 0.05 * arr((10, 2), 41)

    class MTModel(gpytorch.models.ExactGP):
        def __init__(self) -> None:
            super().__init__(x, y, likelihoods.MultitaskGaussianLikelihood(num_tasks=2))
            self.mean_module = means.MultitaskMean(means.ConstantMean(), num_tasks=2)
            self.covar_module = kernels.MultitaskKernel(kernels.RBFKernel(), num_tasks=2, rank=1)

        def forward(self, x):
            return MultitaskMultivariateNormal(self.mean_module(x), self.covar_module(x))

    m = module("multitask", MTModel)
    mll = mlls.ExactMarginalLogLikelihood(m.likelihood, m)
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    losses = []
    m.train()
    for _ in range(6):
        opt.zero_grad()
        loss = -mll(m(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    put("mt.losses", np.array(losses))
    put_state("mt", m)
    m.eval()
    with torch.no_grad():
        p = m.likelihood(m(arr((5, 1), 42, 0.0, 1.0)))
        put("mt.mean", p.mean)
        put("mt.var", p.variance)
        put("mt.cov", p.covariance_matrix)
        lo, hi = p.confidence_region()
        put("mt.lo", lo)

    # independent outputs as a batch turned into a multitask distribution
    class IndepModel(gpytorch.models.ExactGP):
        def __init__(self) -> None:
            super().__init__(x, y, likelihoods.MultitaskGaussianLikelihood(num_tasks=2))
            self.mean_module = means.ConstantMean(batch_shape=torch.Size([2]))
            self.covar_module = kernels.ScaleKernel(
                kernels.MaternKernel(batch_shape=torch.Size([2])), batch_shape=torch.Size([2])
            )

        def forward(self, x):
            mvn = MultivariateNormal(self.mean_module(x), self.covar_module(x))
            return MultitaskMultivariateNormal.from_batch_mvn(mvn)

    im = module("indep", IndepModel)
    mll = mlls.ExactMarginalLogLikelihood(im.likelihood, im)
    im.train()
    loss = -mll(im(x), y)
    loss.backward()
    put("indep.loss", loss)
    put_state("indep", im)
    im.eval()
    with torch.no_grad():
        p = im(arr((5, 1), 43, 0.0, 1.0))
        put("indep.mean", p.mean)
        put("indep.var", p.variance)


class SVGP(gpytorch.models.ApproximateGP):
    def __init__(self, inducing: torch.Tensor, whiten: bool = True) -> None:
        dist = variational.CholeskyVariationalDistribution(inducing.size(0))
        strategy = variational.VariationalStrategy(
            self, inducing, dist, learn_inducing_locations=True
        )
        if not whiten:
            strategy = variational.UnwhitenedVariationalStrategy(
                self, inducing, dist, learn_inducing_locations=True
            )
        super().__init__(strategy)
        self.mean_module = means.ConstantMean()
        self.covar_module = kernels.ScaleKernel(kernels.RBFKernel())

    def forward(self, x):
        return MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _svgp(key: str, lik: likelihoods.Likelihood, whiten: bool = True) -> SVGP:
    inducing = arr((6, 2), 50, 0.0, 1.0)
    model = SVGP(inducing, whiten)
    if ORACLE:
        # the variational mean is initialised with random noise on first use: initialise it
        # here and move that state to the other side
        model.train()
        model(inducing[:2])
        WEIGHTS[key] = {k: v.clone() for k, v in model.state_dict().items()}
        WEIGHTS[key + ".lik"] = {k: v.clone() for k, v in lik.state_dict().items()}
    else:
        model.load_state_dict(WEIGHTS[key])
        lik.load_state_dict(WEIGHTS[key + ".lik"])
    return model


@case
def variational_gp() -> None:
    x, y = data(20, 2, seed=12)
    for name, whiten in (("svgp", True), ("unwhitened", False)):
        lik = likelihoods.GaussianLikelihood()
        model = _svgp(name, lik, whiten)
        mll = mlls.VariationalELBO(lik, model, num_data=y.numel())
        opt = torch.optim.Adam([*model.parameters(), *lik.parameters()], lr=0.05)
        model.train()
        lik.train()
        losses = []
        for _ in range(8):
            opt.zero_grad()
            loss = -mll(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        put(name + ".losses", np.array(losses))
        put_state(name, model)
        model.eval()
        lik.eval()
        with torch.no_grad():
            p = lik(model(arr((5, 2), 51, 0.0, 1.0)))
            put(name + ".mean", p.mean)
            put(name + ".var", p.variance)
    # a classification model: Bernoulli likelihood (Gauss-Hermite quadrature)
    lik = likelihoods.BernoulliLikelihood()
    model = _svgp("svgp_class", lik)
    labels = (y > y.median()).double()
    mll = mlls.VariationalELBO(lik, model, num_data=y.numel())
    model.train()
    loss = -mll(model(x), labels)
    loss.backward()
    put("class.loss", loss)
    put_state("class", model)
    model.eval()
    with torch.no_grad():
        put("class.probs", lik(model(arr((5, 2), 52, 0.0, 1.0))).probs)
    # a predictive log likelihood objective
    lik = likelihoods.GaussianLikelihood()
    model = _svgp("svgp_pll", lik)
    model.train()
    pll = mlls.PredictiveLogLikelihood(lik, model, num_data=y.numel())
    put("pll.loss", pll(model(x), y))


@case
def structured_kernels() -> None:
    """KISS-GP (grid interpolation), SGPR (inducing point kernel), a Hadamard multitask GP
    with an index kernel, and the spectral mixture kernel."""
    x, y = data(18, 1, seed=70)

    def kiss():
        return kernels.ScaleKernel(
            kernels.GridInterpolationKernel(kernels.RBFKernel(), grid_size=20, num_dims=1)
        )

    def sgpr():
        return kernels.InducingPointKernel(
            kernels.ScaleKernel(kernels.RBFKernel()),
            inducing_points=arr((5, 1), 71, 0.0, 1.0),
            likelihood=likelihoods.GaussianLikelihood(),
        )

    def spectral():
        k = kernels.SpectralMixtureKernel(num_mixtures=3, ard_num_dims=1)
        with torch.no_grad():
            k.raw_mixture_weights.copy_(arr((3,), 72))
            k.raw_mixture_means.copy_(arr((3, 1, 1), 73))
            k.raw_mixture_scales.copy_(arr((3, 1, 1), 74))
        return k

    xt = arr((6, 1), 75, 0.0, 1.0)
    for name, covar in (("kiss", kiss), ("sgpr", sgpr), ("spectral", spectral)):

        def make(covar=covar):
            return ExactModel(x, y, likelihoods.GaussianLikelihood(), covar())

        model = module("structured_" + name, make)
        train_exact(name, model, x, y, steps=5, lr=0.05)
        predict(name, model, xt)

    # Hadamard multitask: (x, task index) inputs, an index kernel over the tasks
    i = torch.tensor([[0], [1]] * 9)
    yi = torch.where(i[:, 0] == 0, y, 0.5 * y + 0.2)

    class Hadamard(gpytorch.models.ExactGP):
        def __init__(self) -> None:
            super().__init__((x, i), yi, likelihoods.GaussianLikelihood())
            self.mean_module = means.ConstantMean()
            self.covar_module = kernels.RBFKernel()
            self.task_covar_module = kernels.IndexKernel(num_tasks=2, rank=1)

        def forward(self, x, i):
            covar = self.covar_module(x).mul(self.task_covar_module(i))
            return MultivariateNormal(self.mean_module(x), covar)

    hm = module("hadamard", Hadamard)
    mll = mlls.ExactMarginalLogLikelihood(hm.likelihood, hm)
    opt = torch.optim.Adam(hm.parameters(), lr=0.1)
    hm.train()
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = -mll(hm(x, i), yi)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    put("hadamard.losses", np.array(losses))
    put_state("hadamard", hm)
    hm.eval()
    with torch.no_grad():
        p = hm(xt, torch.ones(6, 1, dtype=torch.long))
        put("hadamard.mean", p.mean)
        put("hadamard.var", p.variance)


@case
def fantasy_and_loo() -> None:
    """get_fantasy_model (conditioning on new data), the leave-one-out pseudo likelihood,
    and prediction caches surviving a second call."""
    model, x, y = exact_model("fantasy", _rbf)
    fit_exact(model, x, y, steps=4, lr=0.1)
    model.eval()
    xt = arr((5, 2), 80, 0.0, 1.0)
    with torch.no_grad():
        put("fantasy.before", model(xt).mean)
        put("fantasy.again", model(xt).variance)
        fx = arr((3, 2), 81, 0.0, 1.0)
        fy = torch.sin(3.0 * fx.sum(-1))
        fm = model.get_fantasy_model(fx, fy)
        p = fm(xt)
        put("fantasy.mean", p.mean)
        put("fantasy.var", p.variance)
    model.train()
    loo = mlls.LeaveOneOutPseudoLikelihood(model.likelihood, model)
    val = loo(model(x), y)
    val.backward()
    put("loo.value", val)
    put_state("loo", model)


@case
def other_likelihoods() -> None:
    """Variational GPs with non-Gaussian likelihoods whose expectations use Gauss-Hermite
    quadrature (deterministic): Student-t, Laplace, Poisson, Beta; and mean-field /
    natural variational distributions."""
    x, y = data(15, 2, seed=90)
    targets = {
        "studentt": (likelihoods.StudentTLikelihood, y),
        "laplace": (likelihoods.LaplaceLikelihood, y),
        "poisson": (likelihoods.PoissonLikelihood, (y.exp()).round()),
        "beta": (likelihoods.BetaLikelihood, torch.sigmoid(y).clamp(0.05, 0.95)),
    }
    for name, (lik_cls, target) in targets.items():
        lik = lik_cls()
        model = _svgp("lik_" + name, lik)
        model.train()
        lik.train()
        elbo = mlls.VariationalELBO(lik, model, num_data=target.numel())
        loss = -elbo(model(x), target)
        loss.backward()
        put(name + ".loss", loss)
        put_state(name, model)
        put_state(name + ".lik", lik)

    inducing = arr((5, 2), 91, 0.0, 1.0)
    for name, dist_cls in (
        ("meanfield", variational.MeanFieldVariationalDistribution),
        ("natural", variational.NaturalVariationalDistribution),
        ("trilnatural", variational.TrilNaturalVariationalDistribution),
    ):

        class Model(gpytorch.models.ApproximateGP):
            def __init__(self, dist_cls: type = dist_cls) -> None:
                dist = dist_cls(5)
                super().__init__(variational.VariationalStrategy(self, inducing, dist))
                self.mean_module = means.ZeroMean()
                self.covar_module = kernels.MaternKernel(nu=1.5)

            def forward(self, x):
                return MultivariateNormal(self.mean_module(x), self.covar_module(x))

        model = Model()
        lik = likelihoods.GaussianLikelihood()
        key = "dist_" + name
        if ORACLE:
            model.train()
            model(inducing[:2])
            WEIGHTS[key] = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            model.load_state_dict(WEIGHTS[key])
        model.train()
        elbo = mlls.VariationalELBO(lik, model, num_data=15)
        loss = -elbo(model(x), y)
        loss.backward()
        put(name + ".loss", loss)
        put_state(name, model)
        model.eval()
        with torch.no_grad():
            put(name + ".mean", model(x[:4]).mean)
            put(name + ".var", model(x[:4]).variance)


@case
def multitask_variational() -> None:
    """Independent and LMC multitask variational strategies."""
    x = arr((12, 1), 95, 0.0, 1.0)
    y = torch.cat([torch.sin(6.0 * x), torch.cos(6.0 * x)], -1)
    for name in ("independent", "lmc"):

        class Model(gpytorch.models.ApproximateGP):
            def __init__(self, name: str = name) -> None:
                latents = 3 if name == "lmc" else 2
                inducing = arr((latents, 4, 1), 96, 0.0, 1.0)
                dist = variational.CholeskyVariationalDistribution(
                    4, batch_shape=torch.Size([latents])
                )
                base = variational.VariationalStrategy(self, inducing, dist)
                if name == "lmc":
                    strategy = variational.LMCVariationalStrategy(
                        base, num_tasks=2, num_latents=3, latent_dim=-1
                    )
                else:
                    strategy = variational.IndependentMultitaskVariationalStrategy(
                        base, num_tasks=2
                    )
                super().__init__(strategy)
                self.mean_module = means.ConstantMean(batch_shape=torch.Size([latents]))
                self.covar_module = kernels.ScaleKernel(
                    kernels.RBFKernel(batch_shape=torch.Size([latents])),
                    batch_shape=torch.Size([latents]),
                )

            def forward(self, x):
                return MultivariateNormal(self.mean_module(x), self.covar_module(x))

        model = Model()
        lik = likelihoods.MultitaskGaussianLikelihood(num_tasks=2)
        key = "mtvar_" + name
        if ORACLE:
            model.train()
            model(x[:2])
            WEIGHTS[key] = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            model.load_state_dict(WEIGHTS[key])
        model.train()
        elbo = mlls.VariationalELBO(lik, model, num_data=12)
        loss = -elbo(model(x), y)
        loss.backward()
        put(name + ".loss", loss)
        put_state(name, model)
        model.eval()
        with torch.no_grad():
            p = lik(model(x[:3]))
            put(name + ".mean", p.mean)
            put(name + ".var", p.variance)


@case
def deepcopy_pickle_and_utils() -> None:
    """copy.deepcopy and pickle of a trained model, model lists, and small utilities."""
    import copy
    import pickle

    model, x, y = exact_model("copies", _rbf)
    fit_exact(model, x, y, steps=3, lr=0.1)
    model.eval()
    xt = arr((4, 2), 99, 0.0, 1.0)
    twin = copy.deepcopy(model)
    pickled = pickle.loads(pickle.dumps(model))
    with torch.no_grad():
        put("copy.mean", twin(xt).mean)
        put("pickle.var", pickled(xt).variance)
    other, _, _ = exact_model("copies2", lambda: kernels.ScaleKernel(kernels.MaternKernel(nu=0.5)))
    other.eval()
    both = gpytorch.models.IndependentModelList(model, other)
    lik = gpytorch.likelihoods.LikelihoodList(model.likelihood, other.likelihood)
    with torch.no_grad():
        preds = lik(*both(xt, xt))
    put("list.means", torch.stack([p.mean for p in preds]))
    grid = torch.tensor([[0.0, 1.0], [0.5, 1.5], [1.0, 2.0]])
    put("grid", gpytorch.utils.grid.create_data_from_grid(grid))
    put("grid_size", gpytorch.utils.grid.choose_grid_size(x, 1.0))
    put("hermgauss", gpytorch.utils.quadrature.GaussHermiteQuadrature1D(5).locations)


@case
def state_dict_roundtrip() -> None:
    """The oracle's trained model's state, saved with torch.save and loaded on this side."""
    x, y = data()
    model = ExactModel(x, y, likelihoods.GaussianLikelihood(), _rbf())
    if ORACLE:
        fit_exact(model, x, y, steps=5, lr=0.1)
        torch.save(model.state_dict(), f"{OUT}/gp_oracle_state.pt")
    else:
        model.load_state_dict(torch.load(f"{OUT}/gp_oracle_state.pt"))
    predict("roundtrip", model, arr((5, 2), 60, 0.0, 1.0))
    put("roundtrip.keys", np.array(sorted(model.state_dict())))


def reload() -> None:
    """The real PyTorch loads the state chainrule saved after exact_rbf and predicts."""
    x, y = data()
    model = ExactModel(x, y, likelihoods.GaussianLikelihood(), _rbf())
    state = torch.load(STATE_FILE)
    model.load_state_dict(state)
    CASES.current = "reload"
    put("reload.keys", np.array(sorted(state)))
    predict("rbf", model, arr((9, 2), 20, 0.0, 1.0))
    np.savez(f"{OUT}/gp_reload.npz", **CASES.results)


def main() -> None:
    if SIDE == "reload":
        reload()
        return
    CASES.run(f"{OUT}/gp_{SIDE}", fresh_keys=True)
    WEIGHTS.save()


main()
