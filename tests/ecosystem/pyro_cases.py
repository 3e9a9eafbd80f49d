"""The pyro-ppl cases of test_pyro.py, run once per side.

``python pyro_cases.py OUT oracle`` runs every case on the real PyTorch, saving pyro's
param store to ``OUT/pyro_params_oracle.pt``, the weights of the networks it draws to
``OUT/pyro_weights.pt`` and the results to ``OUT/pyro_oracle.npz``; ``chainrule run
pyro_cases.py OUT chainrule`` loads those, runs the same cases, saves its own param store to
``OUT/pyro_params_chainrule.pt`` and writes ``OUT/pyro_chainrule.npz``; ``python
pyro_cases.py OUT check`` loads chainrule's param store with the real PyTorch. Inputs and
parameters are made with NumPy from seeds; every value pyro would draw from torch's random
stream is fixed with ``poutine.condition`` or ``poutine.replay``, except in the MCMC case,
which checks the posterior against the analytic one (and a short seeded float64 chain
against PyTorch's: its draws are PyTorch's). A case that raises records its error
in ``OUT/pyro_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys

import numpy as np
import pyro
import pyro.distributions as dist
import pyro.optim
import pyro_dist_table
import torch
from case_inputs import Weights, arr
from case_runner import Cases
from pyro import poutine
from pyro.infer import (
    HMC,
    MCMC,
    NUTS,
    SVI,
    JitTrace_ELBO,
    Predictive,
    Trace_ELBO,
    TraceEnum_ELBO,
    TraceGraph_ELBO,
    TraceMeanField_ELBO,
    autoguide,
    config_enumerate,
)
from pyro.infer.autoguide import init_to_value

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
CASES = Cases()
case, put = CASES.case, CASES.put


def pos(shape: tuple, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).uniform(0.5, 2.0, shape), dtype=dtype)


def unit(shape: tuple, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).uniform(0.1, 0.9, shape), dtype=dtype)


def put_grads(name: str, value: torch.Tensor, params: dict[str, torch.Tensor]) -> None:
    """``value``, then the gradients of its weighted sum with respect to ``params``."""
    put(name, value)
    if not value.requires_grad:
        return
    weight = arr(tuple(value.shape), 99, value.dtype)
    grads = torch.autograd.grad(
        (value * weight).sum(), list(params.values()), allow_unused=True, retain_graph=True
    )
    for key, g in zip(params, grads):
        put(f"{name}.d{key}", torch.zeros(()) if g is None else g)


def leaves(**tensors: torch.Tensor) -> dict[str, torch.Tensor]:
    return {k: v.clone().requires_grad_() for k, v in tensors.items()}


# ---------------------------------------------------------------- distributions


@case
def pyro_distributions() -> None:
    p = leaves(loc=arr((3, 2), 1), scale=pos((3, 2), 2), a=pos((3, 2), 3), b=pos((3, 2), 4))
    x = arr((3, 2), 5)
    xp = pos((3, 2), 6)
    xu = unit((3, 2), 7)
    made = {
        "normal": (dist.Normal(p["loc"], p["scale"]), x),
        "lognormal": (dist.LogNormal(p["loc"], p["scale"]), xp),
        "gamma": (dist.Gamma(p["a"], p["b"]), xp),
        "beta": (dist.Beta(p["a"], p["b"]), xu),
        "studentt": (dist.StudentT(p["a"] + 1, p["loc"], p["scale"]), x),
        "laplace": (dist.Laplace(p["loc"], p["scale"]), x),
        "cauchy": (dist.Cauchy(p["loc"], p["scale"]), x),
        "halfcauchy": (dist.HalfCauchy(p["scale"]), xp),
        "halfnormal": (dist.HalfNormal(p["scale"]), xp),
        "exponential": (dist.Exponential(p["a"]), xp),
        "poisson": (dist.Poisson(p["a"]), torch.tensor([[0.0, 1], [2, 3], [1, 4]])),
        "bernoulli": (dist.Bernoulli(logits=p["loc"]), (x > 0).float()),
        "binomial": (dist.Binomial(5, probs=xu.flip(0)), torch.tensor([[0.0, 1], [2, 3], [5, 4]])),
        "asymmetric_laplace": (dist.AsymmetricLaplace(p["loc"], p["scale"], p["a"]), x),
        "gamma_poisson": (
            dist.GammaPoisson(p["a"], p["b"]),
            torch.tensor([[0.0, 1], [2, 3], [1, 4]]),
        ),
        "beta_binomial": (
            dist.BetaBinomial(p["a"], p["b"], 5),
            torch.tensor([[0.0, 1], [2, 3], [5, 4]]),
        ),
        "zip": (
            dist.ZeroInflatedPoisson(p["a"], gate=xu),
            torch.tensor([[0.0, 1], [0, 3], [1, 0]]),
        ),
        "zinb": (
            dist.ZeroInflatedNegativeBinomial(p["a"], probs=xu, gate=xu.flip(0)),
            torch.tensor([[0.0, 1], [0, 3], [1, 0]]),
        ),
        "delta": (dist.Delta(p["loc"], log_density=p["scale"]), p["loc"].detach()),
        "von_mises": (dist.VonMises(p["loc"], p["a"]), x.clamp(-3, 3)),
        "soft_laplace": (dist.SoftLaplace(p["loc"], p["scale"]), x),
        "logistic": (dist.Logistic(p["loc"], p["scale"]), x),
        "skew_logistic": (dist.SkewLogistic(p["loc"], p["scale"], p["a"]), x),
        "inverse_gamma": (dist.InverseGamma(p["a"], p["b"]), xp),
    }
    for name, (d, value) in made.items():
        put_grads(f"dist.{name}.log_prob", d.log_prob(value), p)
        put(f"dist.{name}.shapes", list(d.batch_shape) + [-1] + list(d.event_shape))
    for name in ["normal", "gamma", "beta", "laplace", "exponential", "bernoulli", "lognormal"]:
        put_grads(f"dist.{name}.entropy", made[name][0].entropy(), p)
    for name in ["normal", "gamma", "beta", "poisson"]:
        d = made[name][0]
        put(f"dist.{name}.mean", d.mean)
        put(f"dist.{name}.variance", d.variance)
    # multivariate
    chol = torch.tensor([[1.0, 0, 0], [0.3, 0.9, 0], [-0.2, 0.4, 1.1]])
    mvn = dist.MultivariateNormal(p["loc"][:, :1].expand(3, 3), scale_tril=chol)
    put_grads("dist.mvn.log_prob", mvn.log_prob(arr((4, 3, 3), 8)), p)
    put_grads("dist.mvn.entropy", mvn.entropy(), p)
    dirich = dist.Dirichlet(p["a"].exp())
    put_grads("dist.dirichlet.log_prob", dirich.log_prob(torch.tensor([0.3, 0.7])), p)
    cat = dist.Categorical(logits=p["loc"])
    put_grads("dist.categorical.log_prob", cat.log_prob(torch.tensor([0, 1, 1])), p)
    put_grads("dist.categorical.entropy", cat.entropy(), p)
    put("dist.categorical.support", cat.enumerate_support())
    put("dist.categorical.support_noexpand", cat.enumerate_support(expand=False))
    lkj = dist.LKJCholesky(3, concentration=torch.tensor(1.5))
    put("dist.lkj.log_prob", lkj.log_prob(chol / chol.norm(dim=-1, keepdim=True)))
    # wrappers: to_event, expand, mask, reshape
    normal = made["normal"][0]
    ev = normal.to_event(1)
    put("wrap.to_event.shapes", [*ev.batch_shape, -1, *ev.event_shape])
    put_grads("wrap.to_event.log_prob", ev.log_prob(x), p)
    put_grads("wrap.to_event_all.log_prob", normal.to_event().log_prob(x), p)
    ex = normal.expand([4, 3, 2])
    put("wrap.expand.shapes", [*ex.batch_shape, -1, *ex.event_shape])
    put_grads("wrap.expand.log_prob", ex.log_prob(arr((4, 3, 2), 9)), p)
    ex_ev = dist.Normal(p["loc"][0, 0], p["scale"][0, 0]).expand([3]).to_event(1)
    put_grads("wrap.expand_to_event.log_prob", ex_ev.log_prob(arr((5, 3), 10)), p)
    mask = torch.tensor([[True, False], [False, True], [True, True]])
    put_grads("wrap.mask.log_prob", normal.mask(mask).log_prob(x), p)
    put_grads("wrap.mask_false.log_prob", normal.mask(False).log_prob(x), p)
    put_grads("wrap.mask_event.log_prob", normal.mask(mask[:, :1]).to_event(1).log_prob(x), p)
    masked = dist.MaskedDistribution(normal, mask)
    put_grads("wrap.masked_dist.log_prob", masked.log_prob(x), p)
    folded = dist.FoldedDistribution(normal)
    put_grads("wrap.folded.log_prob", folded.log_prob(xp), p)
    put("wrap.has_rsample", [ev.has_rsample, masked.has_rsample, made["poisson"][0].has_rsample])
    # shape bookkeeping and the score parts ELBOs use
    parts = normal.score_parts(x)
    put_grads("wrap.score_parts.log_prob", parts.log_prob, p)
    put("wrap.score_parts.kinds", [parts.score_function == 0, parts.entropy_term is parts.log_prob])
    put("wrap.shape", list(ex.shape((7,))))
    # pyro's constraints and the transforms onto them
    from torch.distributions import biject_to, constraints, transform_to

    for i, (c, shape, registry) in enumerate(
        [
            (constraints.positive, (2, 3), biject_to),
            (constraints.interval(-1.0, 2.0), (2, 3), biject_to),
            (constraints.simplex, (2, 3), biject_to),
            (constraints.unit_interval, (2, 3), biject_to),
            (constraints.lower_cholesky, (2, 3, 3), transform_to),
            (constraints.corr_cholesky, (2, 3), biject_to),
            (constraints.positive_definite, (2, 3, 3), transform_to),
            (dist.constraints.positive_ordered_vector, (2, 3), biject_to),
            (dist.constraints.softplus_positive, (2, 3), biject_to),
            (dist.constraints.ordered_vector, (2, 3), biject_to),
            (dist.constraints.softplus_lower_cholesky, (2, 3, 3), transform_to),
            (dist.constraints.sphere, (2, 3), transform_to),
        ]
    ):
        u = arr(shape, 20 + i).requires_grad_()
        t = registry(c)
        y = t(u)
        put(f"biject.{i}.y", y)
        if registry is biject_to:
            put_grads(f"biject.{i}.ladj", t.log_abs_det_jacobian(u, y), {"u": u})
            put(f"biject.{i}.inv", t.inv(y.detach()))
        put(f"biject.{i}.check", c.check(y.detach()))


# ---------------------------------------------------------------- models and traces

DATA = arr((6,), 30) + 1.5


def model(data: torch.Tensor) -> None:
    mu = pyro.sample("mu", dist.Normal(0.0, 2.0))
    sigma = pyro.sample("sigma", dist.LogNormal(0.0, 1.0))
    with pyro.plate("groups", 2):
        offset = pyro.sample("offset", dist.Normal(0.0, 1.0))
    with pyro.plate("data", data.shape[0], dim=-1):
        group = torch.arange(data.shape[0]) % 2
        pyro.sample("obs", dist.Normal(mu + offset[..., group], sigma), obs=data)


def conjugate(data: torch.Tensor) -> None:
    mu = pyro.sample("mu", dist.Normal(0.0, 1.0))
    with pyro.plate("data", len(data)):
        pyro.sample("obs", dist.Normal(mu, 1.0), obs=data)


def guide(data: torch.Tensor) -> None:
    mu_loc = pyro.param("mu_loc", torch.tensor(0.5))
    mu_scale = pyro.param("mu_scale", torch.tensor(0.7), constraint=dist.constraints.positive)
    s_loc = pyro.param("s_loc", torch.tensor(-0.2))
    off_loc = pyro.param("off_loc", torch.tensor([0.1, -0.3]))
    off_scale = pyro.param(
        "off_scale", torch.tensor([0.5, 0.8]), constraint=dist.constraints.positive
    )
    pyro.sample("mu", dist.Normal(mu_loc, mu_scale))
    pyro.sample("sigma", dist.LogNormal(s_loc, 0.3))
    with pyro.plate("groups", 2):
        pyro.sample("offset", dist.Normal(off_loc, off_scale))


LATENT = {"mu": torch.tensor(0.8), "sigma": torch.tensor(1.3), "offset": torch.tensor([0.2, -0.4])}


def put_trace(name: str, tr: poutine.Trace) -> None:
    tr.compute_log_prob()
    for site, node in tr.nodes.items():
        if node["type"] == "sample" and hasattr(node["fn"], "batch_shape"):
            put(f"{name}.{site}.log_prob", node["log_prob"])
            put(f"{name}.{site}.value", node["value"])
            put(f"{name}.{site}.info", [node["is_observed"], *node["fn"].batch_shape])
    put(f"{name}.log_prob_sum", tr.log_prob_sum())
    put(f"{name}.stochastic", sorted(tr.stochastic_nodes))
    put(f"{name}.observed", sorted(tr.observation_nodes))


@case
def pyro_trace_condition() -> None:
    pyro.clear_param_store()
    put_trace("cond.model", poutine.trace(poutine.condition(model, data=LATENT)).get_trace(DATA))
    put_trace("cond.guide", poutine.trace(pyro.condition(guide, data=LATENT)).get_trace(DATA))
    conditioned = pyro.condition(model, data={"mu": torch.tensor(0.8)})
    tr = poutine.trace(poutine.condition(conditioned, data=LATENT)).get_trace(DATA)
    put_trace("cond.nested", tr)
    # scale, mask, block, do, uncondition
    scaled = poutine.scale(poutine.condition(model, data=LATENT), scale=0.25)
    put_trace("cond.scaled", poutine.trace(scaled).get_trace(DATA))
    blocked = poutine.block(poutine.condition(model, data=LATENT), hide=["offset"])
    put("cond.blocked", sorted(poutine.trace(blocked).get_trace(DATA).nodes))
    masked = poutine.mask(poutine.condition(model, data=LATENT), mask=torch.tensor(False))
    put_trace("cond.masked", poutine.trace(masked).get_trace(DATA))
    intervened = poutine.do(poutine.condition(model, data=LATENT), data={"mu": torch.tensor(2.0)})
    put_trace("cond.do", poutine.trace(intervened).get_trace(DATA))
    # the log density pyro's MCMC and autoguides use
    from pyro.infer.mcmc.util import initialize_model
    from pyro.infer.util import torch_item

    put("cond.torch_item", torch_item(torch.tensor(1.5)))
    _, fn, transforms, _ = initialize_model(model, (DATA,))
    unconstrained = {
        "mu": torch.tensor(0.8),
        "sigma": torch.tensor(1.3).log(),
        "offset": torch.tensor([0.2, -0.4]),
    }
    unconstrained = {k: v.requires_grad_() for k, v in unconstrained.items()}
    put_grads("cond.potential", fn(unconstrained), unconstrained)
    put("cond.transforms", sorted(transforms))


# ---------------------------------------------------------------- ELBOs


def guide_trace(eps: dict[str, torch.Tensor]) -> poutine.Trace:
    """A trace of the guide whose values are reparameterized from fixed ``eps``: loc +
    scale * eps, differentiable in the guide's parameters."""
    tr = poutine.trace(guide).get_trace(DATA)
    for name, e in eps.items():
        fn = tr.nodes[name]["fn"]
        if isinstance(fn, dist.LogNormal):
            value = (fn.loc + fn.scale * e).exp()
        else:
            value = fn.loc + fn.scale * e
        tr.nodes[name]["value"] = value
    return tr


EPS = [
    {"mu": arr((), 40 + i), "sigma": arr((), 50 + i), "offset": arr((2,), 60 + i)} for i in range(3)
]


def store_params() -> dict[str, torch.Tensor]:
    store = pyro.get_param_store()
    return {name: store.get_param(name).unconstrained() for name in sorted(store.keys())}


@case
def pyro_elbo() -> None:
    for label, elbo_cls in [
        ("trace", Trace_ELBO),
        ("meanfield", TraceMeanField_ELBO),
        ("graph", TraceGraph_ELBO),
    ]:
        for i, eps in enumerate(EPS):
            elbo = elbo_cls()
            if label != "graph":
                pyro.clear_param_store()
                replayed = poutine.replay(guide, trace=guide_trace(eps))
                loss = elbo.differentiable_loss(model, replayed, DATA)
                put_grads(f"elbo.{label}.{i}.loss", loss, store_params())
            pyro.clear_param_store()
            replayed = poutine.replay(guide, trace=guide_trace(eps))
            value = elbo.loss_and_grads(model, replayed, DATA)
            put(f"elbo.{label}.{i}.loss_and_grads", value)
            for name, p in store_params().items():
                put(f"elbo.{label}.{i}.grad.{name}", p.grad)
    # several particles, vectorized, with replay of a vectorized trace
    pyro.clear_param_store()
    elbo = Trace_ELBO(num_particles=3, vectorize_particles=True, max_plate_nesting=1)
    tr = poutine.trace(elbo._vectorized_num_particles(guide)).get_trace(DATA)
    eps = {"mu": arr((3, 1), 70), "sigma": arr((3, 1), 71), "offset": arr((3, 2), 72)}
    for name, e in eps.items():
        fn = tr.nodes[name]["fn"]
        value = fn.loc + fn.scale * e
        tr.nodes[name]["value"] = value.exp() if isinstance(fn, dist.LogNormal) else value
    vec_guide = poutine.replay(guide, trace=tr)
    vec_model_tr = poutine.trace(
        poutine.replay(elbo._vectorized_num_particles(model), trace=tr)
    ).get_trace(DATA)
    vec_model_tr.compute_log_prob()
    put("elbo.vectorized.model_log_prob", vec_model_tr.nodes["obs"]["log_prob"])
    del vec_guide
    # the analytic KL of TraceMeanField_ELBO: a guide and a prior of the same family
    pyro.clear_param_store()

    def kl_model() -> None:
        pyro.sample("z", dist.Normal(torch.zeros(3), torch.ones(3)).to_event(1))

    def kl_guide() -> None:
        loc = pyro.param("loc", arr((3,), 80))
        scale = pyro.param("scale", pos((3,), 81), constraint=dist.constraints.positive)
        pyro.sample("z", dist.Normal(loc, scale).to_event(1))

    loss = TraceMeanField_ELBO().differentiable_loss(kl_model, kl_guide)
    put_grads("elbo.meanfield_kl", loss, store_params())
    kl = torch.distributions.kl_divergence(
        dist.Normal(arr((3,), 80), pos((3,), 81)).to_event(1),
        dist.Normal(0.0, 1.0).expand([3]).to_event(1),
    )
    put("elbo.kl_independent", kl)


# ---------------------------------------------------------------- SVI


def delta_model(data: torch.Tensor) -> None:
    w = pyro.sample("w", dist.Normal(torch.zeros(2), 1.0).to_event(1))
    b = pyro.sample("b", dist.Normal(0.0, 2.0))
    s = pyro.sample("s", dist.HalfNormal(1.0))
    x = data[:, :2]
    with pyro.plate("rows", data.shape[0]):
        pyro.sample("y", dist.Normal(x @ w + b, s), obs=data[:, 2])


SVI_DATA = arr((10, 3), 90)


@case
def pyro_svi() -> None:
    for label, optim in [
        ("adam", lambda: pyro.optim.Adam({"lr": 0.05})),
        ("clipped", lambda: pyro.optim.ClippedAdam({"lr": 0.05, "clip_norm": 2.0, "lrd": 0.99})),
        ("sgd", lambda: pyro.optim.SGD({"lr": 0.01, "momentum": 0.9})),
    ]:
        pyro.clear_param_store()
        init = {"w": torch.tensor([0.3, -0.2]), "b": torch.tensor(0.1), "s": torch.tensor(0.9)}
        g = autoguide.AutoDelta(delta_model, init_loc_fn=init_to_value(values=init))
        svi = SVI(delta_model, g, optim(), loss=Trace_ELBO())
        losses = [svi.step(SVI_DATA) for _ in range(8)]
        put(f"svi.{label}.losses", np.array(losses, dtype=np.float32))
        for name, value in sorted(pyro.get_param_store().items()):
            put(f"svi.{label}.param.{name}", value)
        put(f"svi.{label}.median", g.median(SVI_DATA)["w"])
        put(f"svi.{label}.evaluate_loss", np.float32(svi.evaluate_loss(SVI_DATA)))
    # the torch optimizer state pyro keeps, as a state dict
    state = svi.optim.get_state()
    put("svi.optim_state_keys", sorted(state))
    # a plain torch.optim optimizer of pyro's params, stepped by hand
    pyro.clear_param_store()
    g = autoguide.AutoDelta(delta_model, init_loc_fn=init_to_value(values=init))
    g(SVI_DATA)
    params = [p.unconstrained() for p in pyro.get_param_store().values()]
    opt = torch.optim.Adam(params, lr=0.02)
    for _ in range(5):
        opt.zero_grad()
        loss = Trace_ELBO().differentiable_loss(delta_model, g, SVI_DATA)
        loss.backward()
        opt.step()
    put("svi.manual.loss", loss)
    for name, value in sorted(pyro.get_param_store().items()):
        put(f"svi.manual.param.{name}", value)


# ---------------------------------------------------------------- autoguides


def set_store(seed: int) -> None:
    """Overwrite every param of the store with values made by NumPy from ``seed``."""
    store = pyro.get_param_store()
    for i, name in enumerate(sorted(store.keys())):
        u = store.get_param(name).unconstrained()
        new = torch.tensor(
            np.random.default_rng(seed + i).uniform(-0.5, 0.5, tuple(u.shape)), dtype=u.dtype
        )
        if name.endswith("scale_tril") or name.endswith("scale_tril_unconstrained"):
            new = torch.eye(u.shape[-1]) + torch.tril(new, -1) * 0.3
        with torch.no_grad():
            u.copy_(new)


@case
def pyro_autoguides() -> None:
    init = {
        "mu": torch.tensor(0.8),
        "sigma": torch.tensor(1.3),
        "offset": torch.tensor([0.2, -0.4]),
    }
    for label, make in [
        ("normal", lambda: autoguide.AutoNormal(model, init_loc_fn=init_to_value(values=init))),
        (
            "diag",
            lambda: autoguide.AutoDiagonalNormal(model, init_loc_fn=init_to_value(values=init)),
        ),
        (
            "mvn",
            lambda: autoguide.AutoMultivariateNormal(model, init_loc_fn=init_to_value(values=init)),
        ),
        (
            "lowrank",
            lambda: autoguide.AutoLowRankMultivariateNormal(
                model, init_loc_fn=init_to_value(values=init), rank=2
            ),
        ),
    ]:
        pyro.clear_param_store()
        g = make()
        g(DATA)  # builds the guide's params
        put(
            f"auto.{label}.initial",
            [v.detach().numpy().ravel() for _, v in sorted(pyro.get_param_store().items())][0],
        )
        put(f"auto.{label}.names", sorted(pyro.get_param_store().keys()))
        set_store(100)
        med = g.median(DATA)
        for name in sorted(med):
            put(f"auto.{label}.median.{name}", med[name])
        q = g.quantiles([0.1, 0.5, 0.9], DATA)
        for name in sorted(q):
            put(f"auto.{label}.quantiles.{name}", q[name])
        if True:
            tr = poutine.trace(poutine.condition(g, data=LATENT)).get_trace(DATA)
            put(f"auto.{label}.guide_log_prob", tr.log_prob_sum())
        if label in ("diag", "mvn", "lowrank"):
            posterior = g.get_posterior()
            put(f"auto.{label}.posterior.loc", posterior.mean)
            if label == "diag":
                put(f"auto.{label}.posterior.scale", posterior.base_dist.scale)
            else:
                put(f"auto.{label}.posterior.cov", posterior.covariance_matrix)
    # the Laplace approximation (a Hessian by double backward) of a Gaussian model
    pyro.clear_param_store()
    g = autoguide.AutoLaplaceApproximation(conjugate)
    g(DATA)
    set_store(150)
    mvn_guide = g.laplace_approximation(DATA)
    put("auto.laplace.loc", mvn_guide.loc)
    put("auto.laplace.scale_tril", mvn_guide.scale_tril)
    put("auto.laplace.median", mvn_guide.median(DATA)["mu"])
    # ELBO of an autoguide with a replayed (fixed) latent trace, and its gradients
    pyro.clear_param_store()
    g = autoguide.AutoNormal(model, init_loc_fn=init_to_value(values=init))
    g(DATA)
    set_store(200)
    tr = poutine.trace(g).get_trace(DATA)
    for i, node in enumerate(tr.nodes.values()):
        if node["type"] == "sample" and node["infer"].get("is_auxiliary"):
            base = node["fn"]  # (Normal(loc, scale), maybe .to_event())
            base = getattr(base, "base_dist", base)
            eps = arr(tuple(base.batch_shape), 210 + i)
            node["value"] = base.loc + base.scale * eps  # differentiable in loc, scale
    for name in [n for n in LATENT if n in tr.nodes]:
        tr.remove_node(name)  # (the Delta sites follow from the replayed auxiliary ones)
    put("auto.elbo.replayed", sorted(n for n in tr.nodes if n.endswith("_unconstrained")))
    loss = Trace_ELBO().differentiable_loss(model, poutine.replay(g, trace=tr), DATA)
    put_grads("auto.elbo", loss, store_params())


# ---------------------------------------------------------------- param store files


@case
def pyro_param_store() -> None:
    pyro.clear_param_store()
    pyro.param("a", arr((2, 3), 300))
    pyro.param("b", pos((3,), 301), constraint=dist.constraints.positive)
    pyro.param("c", unit((2,), 302), constraint=dist.constraints.interval(0.0, 1.0))
    pyro.param("d", torch.tensor([0.2, 0.3, 0.5]), constraint=dist.constraints.simplex)
    store = pyro.get_param_store()
    put("store.names", sorted(store.keys()))
    for name in sorted(store.keys()):
        put(f"store.{name}.constrained", store[name])
        put(f"store.{name}.unconstrained", store.get_param(name).unconstrained())
    own = f"{OUT}/pyro_params_{SIDE}.pt"
    store.save(own)
    # the oracle's file on both sides (it is the oracle's own on the oracle side)
    pyro.clear_param_store()
    store.load(f"{OUT}/pyro_params_oracle.pt")
    put("store.loaded.names", sorted(store.keys()))
    for name in sorted(store.keys()):
        put(f"store.loaded.{name}", store[name])
        put(f"store.loaded.{name}.constraint", type(store._constraints[name]).__name__)
    state = store.get_state()
    put("store.state_keys", sorted(state))
    # a state dict round trip through set_state
    pyro.clear_param_store()
    store.set_state(state)
    put("store.set_state.b", pyro.param("b"))
    put("store.named_parameters", sorted(n for n, _ in store.named_parameters()))


# ---------------------------------------------------------------- predictive


@case
def pyro_predictive() -> None:
    pyro.clear_param_store()
    samples = {
        "mu": arr((5,), 400),
        "sigma": pos((5,), 401),
        "offset": arr((5, 2), 402),
    }
    pred = Predictive(model, posterior_samples=samples)
    out = pred(DATA)
    put("pred.names", sorted(out))
    put("pred.obs_shape", list(out["obs"].shape))
    pred = Predictive(model, posterior_samples=samples, return_sites=["obs", "mu"])
    put("pred.return_sites", sorted(pred(DATA)))
    pred = Predictive(model, num_samples=4)
    out = pred(DATA)
    put("pred.prior_shapes", [list(out[k].shape) for k in sorted(out)])
    g = autoguide.AutoNormal(model)
    g(DATA)
    pred = Predictive(model, guide=g, num_samples=7, parallel=True)
    out = pred(DATA)
    put("pred.guide_shapes", [list(out[k].shape) for k in sorted(out)])
    pred = Predictive(g, num_samples=3)
    put("pred.of_guide", [list(v.shape) for _, v in sorted(pred(DATA).items())])


# ---------------------------------------------------------------- enumeration

MIX_DATA = torch.tensor([-1.2, -0.8, 2.1, 1.9, 0.1, 2.4, -1.5])


@config_enumerate
def mixture(data: torch.Tensor) -> None:
    weights = pyro.sample("weights", dist.Dirichlet(torch.ones(2)))
    locs = pyro.sample("locs", dist.Normal(torch.zeros(2), 3.0).to_event(1))
    with pyro.plate("data", len(data)):
        z = pyro.sample("z", dist.Categorical(weights))
        pyro.sample("obs", dist.Normal(locs[z], 0.7), obs=data)


def mix_guide(data: torch.Tensor) -> None:
    w = pyro.param("w", torch.tensor([0.4, 0.6]), constraint=dist.constraints.simplex)
    locs = pyro.param("locs_q", torch.tensor([-1.0, 2.0]))
    pyro.sample("weights", dist.Delta(w, event_dim=1))
    pyro.sample("locs", dist.Delta(locs, event_dim=1))


@case
def pyro_enum() -> None:
    pyro.clear_param_store()
    elbo = TraceEnum_ELBO(max_plate_nesting=1)
    loss = elbo.differentiable_loss(mixture, mix_guide, MIX_DATA)
    put_grads("enum.loss", loss, store_params())
    # the same sum by hand: log sum over z of p(z) p(x|z), for each point
    w = torch.tensor([0.4, 0.6])
    locs = torch.tensor([-1.0, 2.0])
    lp = dist.Normal(locs, 0.7).log_prob(MIX_DATA[:, None]) + w.log()
    put("enum.by_hand", lp.logsumexp(-1).sum())
    pyro.clear_param_store()
    put("enum.loss_and_grads", np.float32(elbo.loss_and_grads(mixture, mix_guide, MIX_DATA)))
    for name, p in store_params().items():
        put(f"enum.grad.{name}", p.grad)
    # marginals of z given the guide's values
    marginals = elbo.compute_marginals(mixture, mix_guide, MIX_DATA)
    put("enum.marginal_z", marginals["z"].probs)
    # an enumerated trace's shapes
    tr = poutine.trace(poutine.enum(config_enumerate(mixture), first_available_dim=-2)).get_trace(
        MIX_DATA
    )
    put("enum.z_shape", list(tr.nodes["z"]["value"].shape))
    put("enum.z_values", tr.nodes["z"]["value"])
    # infer_discrete with MAP (temperature 0) is deterministic
    from pyro.infer import infer_discrete

    conditioned = poutine.condition(mixture, data={"weights": w, "locs": locs})
    decoded = infer_discrete(conditioned, first_available_dim=-2, temperature=0)
    tr = poutine.trace(decoded).get_trace(MIX_DATA)
    put("enum.map_z", tr.nodes["z"]["value"])

    # a hidden Markov model summed with pyro.markov
    def hmm(data: torch.Tensor) -> None:
        trans = torch.tensor([[0.8, 0.2], [0.3, 0.7]])
        x = 0
        for t in pyro.markov(range(len(data))):
            x = pyro.sample(f"x_{t}", dist.Categorical(trans[x]), infer={"enumerate": "parallel"})
            pyro.sample(f"y_{t}", dist.Normal(torch.tensor([-1.0, 1.0])[x], 0.8), obs=data[t])

    hmm_loss = TraceEnum_ELBO(max_plate_nesting=0).loss(hmm, lambda d: None, MIX_DATA)
    put("enum.hmm", np.float32(hmm_loss))
    d = dist.DiscreteHMM(
        torch.tensor([0.5, 0.5]).log(),
        torch.tensor([[0.8, 0.2], [0.3, 0.7]]).log(),
        dist.Normal(torch.tensor([-1.0, 1.0]), 0.8),
    )
    put("enum.discrete_hmm", d.log_prob(MIX_DATA[:, None]))


# ---------------------------------------------------------------- MCMC


@case
def pyro_mcmc() -> None:
    data = arr((12,), 500) + 1.0
    n = len(data)
    post_mean = float(data.sum()) / (n + 1)
    post_sd = (1.0 / (n + 1)) ** 0.5
    for label, kernel in [
        ("nuts", NUTS(conjugate, max_tree_depth=4)),
        ("hmc", HMC(conjugate, step_size=0.2, num_steps=5)),
    ]:
        pyro.set_rng_seed(0)
        mcmc = MCMC(kernel, num_samples=150, warmup_steps=60, disable_progbar=True)
        mcmc.run(data)
        samples = mcmc.get_samples()
        mean = float(samples["mu"].mean())
        put(f"mcmc.{label}.shape", list(samples["mu"].shape))
        put(f"mcmc.{label}.mean_ok", abs(mean - post_mean) < 4 * post_sd / 150**0.5 + 0.05)
        put(f"mcmc.{label}.sd_ok", abs(float(samples["mu"].std()) - post_sd) < 0.5 * post_sd)
        diag = mcmc.diagnostics()
        put(f"mcmc.{label}.diag_keys", sorted(diag))
        put(f"mcmc.{label}.diag_mu", sorted(diag["mu"]))
        grouped = mcmc.get_samples(group_by_chain=True)
        put(f"mcmc.{label}.grouped_shape", list(grouped["mu"].shape))
        put(f"mcmc.{label}.step_size_positive", kernel.step_size > 0)
    pred = Predictive(conjugate, posterior_samples=mcmc.get_samples())
    put("mcmc.predictive_shape", list(pred(data)["obs"].shape))


def conjugate64(data: torch.Tensor) -> None:
    mu = pyro.sample("mu", dist.Normal(torch.tensor(0.0, dtype=torch.float64), 1.0))
    with pyro.plate("data", len(data)):
        pyro.sample("obs", dist.Normal(mu, 0.5), obs=data)


@case
def pyro_mcmc_seeded() -> None:
    # short float64 chains: the momenta and acceptances are PyTorch's draws for the seed
    data = arr((6,), 501, dtype=torch.float64) + 0.5
    for label, kernel in [
        ("nuts", NUTS(conjugate64)),
        ("hmc", HMC(conjugate64, step_size=0.3, num_steps=4, adapt_step_size=False)),
    ]:
        pyro.set_rng_seed(3)
        mcmc = MCMC(kernel, num_samples=20, warmup_steps=10, disable_progbar=True)
        mcmc.run(data)
        put(f"mcmc_seeded.{label}", mcmc.get_samples()["mu"])


# ---------------------------------------------------------------- pyro.nn, flows, ops

WEIGHTS = Weights(f"{OUT}/pyro_weights.pt", ORACLE, load=SIDE == "chainrule")


def weights_of(key: str, m: torch.nn.Module, seed: int) -> torch.nn.Module:
    """``m`` with the oracle's weights: drawn there from ``seed``, loaded here."""
    if ORACLE:
        torch.manual_seed(seed)
        for p in m.parameters():
            with torch.no_grad():
                p.copy_(torch.randn(p.shape) * 0.3)
        WEIGHTS[key] = {k: v.clone() for k, v in m.state_dict().items()}
    else:
        m.load_state_dict(WEIGHTS[key])
    return m


class BayesianRegression(pyro.nn.PyroModule):
    def __init__(self, n_in: int) -> None:
        super().__init__()
        self.linear = pyro.nn.PyroModule[torch.nn.Linear](n_in, 1)
        self.linear.weight = pyro.nn.PyroSample(dist.Normal(0.0, 1.0).expand([1, n_in]).to_event(2))
        self.linear.bias = pyro.nn.PyroSample(dist.Normal(0.0, 5.0).expand([1]).to_event(1))
        self.log_sigma = pyro.nn.PyroParam(torch.tensor(-0.5))

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
        mean = self.linear(x).squeeze(-1)
        with pyro.plate("rows", x.shape[0]):
            pyro.sample("y", dist.Normal(mean, self.log_sigma.exp()), obs=y)
        return mean


@case
def pyro_nn_module() -> None:
    pyro.clear_param_store()
    x, y = SVI_DATA[:, :2], SVI_DATA[:, 2]
    reg = BayesianRegression(2)
    values = {"linear.weight": torch.tensor([[0.4, -0.1]]), "linear.bias": torch.tensor([0.2])}
    tr = poutine.trace(poutine.condition(reg, data=values)).get_trace(x, y)
    put_trace("nn.trace", tr)
    put("nn.params", sorted(n for n, _ in reg.named_parameters()))
    g = autoguide.AutoDelta(reg, init_loc_fn=init_to_value(values=values))
    svi = SVI(reg, g, pyro.optim.Adam({"lr": 0.03}), Trace_ELBO())
    put("nn.losses", np.array([svi.step(x, y) for _ in range(6)], dtype=np.float32))
    for name, value in sorted(pyro.get_param_store().items()):
        put(f"nn.param.{name}", value)
    put("nn.state_dict", sorted(reg.state_dict()))
    # a PyroModule with plain (non-random) weights, its gradients through a model
    net = weights_of(
        "mlp",
        pyro.nn.PyroModule[torch.nn.Sequential](
            torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)
        ),
        1,
    )

    def net_model(x: torch.Tensor, y: torch.Tensor) -> None:
        pyro.module("net", net)
        with pyro.plate("rows", x.shape[0]):
            pyro.sample("y", dist.Normal(net(x).squeeze(-1), 0.5), obs=y)

    loss = Trace_ELBO().differentiable_loss(net_model, lambda x, y: None, x, y)
    put_grads("nn.mlp.loss", loss, dict(net.named_parameters()))
    put("nn.mlp.store", sorted(pyro.get_param_store().keys()))


@case
def pyro_jit_elbo() -> None:
    for label, elbo in [("jit_trace", JitTrace_ELBO()), ("plain", Trace_ELBO())]:
        pyro.clear_param_store()
        init = {"w": torch.tensor([0.3, -0.2]), "b": torch.tensor(0.1), "s": torch.tensor(0.9)}
        g = autoguide.AutoDelta(delta_model, init_loc_fn=init_to_value(values=init))
        svi = SVI(delta_model, g, pyro.optim.Adam({"lr": 0.05}), loss=elbo)
        put(
            f"jit.{label}.losses",
            np.array([svi.step(SVI_DATA) for _ in range(4)], dtype=np.float32),
        )
        for name, value in sorted(pyro.get_param_store().items()):
            put(f"jit.{label}.param.{name}", value)


@case
def pyro_flows() -> None:
    from pyro.distributions import transforms as T

    x = arr((5, 3), 600)
    flows = {
        "planar": T.Planar(3),
        "radial": T.Radial(3),
        "affine_autoregressive": T.affine_autoregressive(3, hidden_dims=[8]),
        "affine_coupling": T.affine_coupling(3, hidden_dims=[8]),
        "spline": T.Spline(3, count_bins=4),
        "batchnorm": T.BatchNorm(3),
        "householder": T.Householder(3, count_transforms=2),
        "sylvester": T.Sylvester(3, count_transforms=2),
        "permute": T.Permute(torch.tensor([2, 0, 1])),
        "block_autoregressive": T.block_autoregressive(3),
        "lower_cholesky_affine": T.LowerCholeskyAffine(arr((3,), 601), torch.eye(3) + 0.1),
    }
    for i, (name, t) in enumerate(flows.items()):
        if isinstance(t, torch.nn.Module):
            t = weights_of(f"flow.{name}", t, 10 + i)
            t.eval()
        params = dict(t.named_parameters()) if isinstance(t, torch.nn.Module) else {}
        y = t(x)
        put_grads(f"flow.{name}.y", y, params)
        put_grads(f"flow.{name}.ladj", t.log_abs_det_jacobian(x, y), params)
        if name in ("planar", "radial", "sylvester", "block_autoregressive"):
            continue  # (no inverse)
        put(f"flow.{name}.inv", t.inv(y.detach()))
    base = dist.Normal(torch.zeros(3), torch.ones(3)).to_event(1)
    flow = dist.TransformedDistribution(base, [flows["affine_autoregressive"], flows["permute"]])
    put("flow.transformed.log_prob", flow.log_prob(x))
    # a conditional flow
    cond = weights_of(
        "flow.cond", T.conditional_affine_coupling(3, context_dim=2, hidden_dims=[6]), 30
    )
    context = arr((2,), 602)
    cd = dist.ConditionalTransformedDistribution(base, [cond]).condition(context)
    put("flow.conditional.log_prob", cd.log_prob(x))


@case
def pyro_ops_stats() -> None:
    from pyro.ops import stats

    chains = arr((3, 200), 700).cumsum(-1) * 0.1 + arr((3, 200), 701)
    put("stats.autocorrelation", stats.autocorrelation(chains[0]))
    put("stats.autocovariance", stats.autocovariance(chains[0]))
    put("stats.ess", stats.effective_sample_size(chains, chain_dim=0, sample_dim=1))
    put("stats.gelman_rubin", stats.gelman_rubin(chains, chain_dim=0, sample_dim=1))
    put("stats.split_gelman_rubin", stats.split_gelman_rubin(chains, chain_dim=0, sample_dim=1))
    put("stats.hpdi", stats.hpdi(chains[0], 0.8))
    put("stats.quantile", stats.quantile(chains[0], [0.1, 0.5, 0.9]))
    put("stats.pi", stats.pi(chains[0], 0.8))
    put("stats.waic", torch.stack(stats.waic(chains[:, :50].T)))
    put("stats.resample", stats.resample(chains[0], num_samples=10, replacement=False).shape)
    put("stats.crps", stats.crps_empirical(chains[:, :20], arr((20,), 702)))
    from pyro.infer.mcmc.util import summary

    s = summary({"x": chains}, prob=0.9, group_by_chain=True)
    for k in sorted(s["x"]):
        put(f"stats.summary.{k}", s["x"][k])
    from pyro.ops.tensor_utils import convolve, safe_normalize

    put("stats.convolve", convolve(arr((7,), 703), arr((4,), 704)))
    put("stats.safe_normalize", safe_normalize(arr((3, 4), 705)))
    # HMC's integrator and adaptation, on fixed values
    from pyro.infer.mcmc.adaptation import WarmupAdapter
    from pyro.ops.integrator import potential_grad, velocity_verlet
    from pyro.ops.welford import WelfordCovariance

    def energy(z: dict) -> torch.Tensor:
        return 0.5 * (z["x"] ** 2).sum() + (z["x"][0] * z["x"][1]).sin()

    z, r = {"x": arr((2,), 706)}, {"x": arr((2,), 707)}
    z2, r2, grads, pe = velocity_verlet(z, r, energy, lambda r: r, 0.1, 5)
    put("hmc.verlet", torch.cat([z2["x"], r2["x"], grads["x"], pe.reshape(1)]))
    put("hmc.potential_grad", potential_grad(energy, z)[0]["x"])
    welford = WelfordCovariance(diagonal=False)
    for row in arr((6, 2), 708):
        welford.update(row)
    put("hmc.welford", welford.get_covariance(regularize=True))
    adapter = WarmupAdapter(step_size=0.5, adapt_step_size=True, target_accept_prob=0.8)
    adapter.configure(20, initial_step_size=0.5, mass_matrix_shape={("x",): (2,)})
    for t, accept in enumerate([0.9, 0.5, 0.7, 0.95, 0.3]):
        adapter.step(t, {"x": z["x"] + 0.1 * t}, torch.tensor(accept))
    put("hmc.step_size", np.float64(adapter.step_size))
    put("hmc.inverse_mass_matrix", adapter.mass_matrix_adapter.inverse_mass_matrix[("x",)])


@case
def pyro_reparam() -> None:
    from pyro.infer.reparam import LocScaleReparam, TransformReparam

    def m() -> None:
        loc = pyro.sample("loc", dist.Normal(0.0, 1.0))
        with pyro.plate("n", 3):
            pyro.sample("x", dist.Normal(loc, 2.0))
            pyro.sample(
                "y",
                dist.TransformedDistribution(
                    dist.Normal(0.0, 1.0), [dist.transforms.AffineTransform(loc, 3.0)]
                ),
            )

    reparam = poutine.reparam(m, config={"x": LocScaleReparam(0.3), "y": TransformReparam()})
    values = {"loc": torch.tensor(0.4), "x_decentered": arr((3,), 800), "y_base": arr((3,), 801)}
    tr = poutine.trace(poutine.condition(reparam, data=values)).get_trace()
    put_trace("reparam", tr)
    # a reparameterized model's potential energy, as HMC sees it
    from pyro.infer.mcmc.util import initialize_model

    _, fn, _, _ = initialize_model(reparam, ())
    u = {"loc": torch.tensor(0.4), "x_decentered": arr((3,), 800), "y_base": arr((3,), 801)}
    u = {k: v.requires_grad_() for k, v in u.items()}
    put_grads("reparam.potential", fn(u), u)


@case
def pyro_structured_dists() -> None:
    init = dist.MultivariateNormal(torch.zeros(2), torch.eye(2))
    trans = torch.tensor([[0.9, 0.1], [-0.2, 0.8]])
    trans_dist = dist.MultivariateNormal(torch.zeros(2), 0.3 * torch.eye(2))
    obs_mat = torch.tensor([[1.0, 0.0, 0.5], [0.2, 1.0, 0.0]])
    obs_dist = dist.MultivariateNormal(torch.zeros(3), 0.5 * torch.eye(3))
    hmm = dist.GaussianHMM(init, trans, trans_dist, obs_mat, obs_dist, duration=5)
    put("structured.gaussian_hmm", hmm.log_prob(arr((5, 3), 900)))
    put("structured.gaussian_hmm.shapes", [*hmm.batch_shape, -1, *hmm.event_shape])
    filtered = hmm.filter(arr((5, 3), 900))
    put("structured.filter.loc", filtered.loc)
    put("structured.filter.cov", filtered.covariance_matrix)
    mst = dist.MultivariateStudentT(
        torch.tensor(4.0), arr((3,), 901), torch.eye(3) + 0.2 * torch.ones(3, 3).tril(-1)
    )
    put("structured.mvt", mst.log_prob(arr((4, 3), 902)))
    lkj = dist.LKJ(3, torch.tensor(2.0))
    corr = torch.tensor([[1.0, 0.3, -0.2], [0.3, 1.0, 0.1], [-0.2, 0.1, 1.0]])
    put("structured.lkj", lkj.log_prob(corr))
    mix = dist.MixtureOfDiagNormals(arr((2, 3), 903), pos((2, 3), 904), arr((2,), 905))
    put("structured.mixture_diag", mix.log_prob(arr((4, 3), 906)))
    vm = dist.ProjectedNormal(arr((3,), 907))
    put(
        "structured.projected_normal",
        vm.log_prob(torch.nn.functional.normalize(arr((4, 3), 908), dim=-1)),
    )
    omt = dist.OneOneMatching(arr((3, 3), 909))
    put("structured.one_one_matching", omt.log_prob(torch.tensor([2, 0, 1])))
    put("structured.one_one_partition", omt.log_partition_function)


@case
def pyro_lr_schedulers() -> None:
    pyro.clear_param_store()
    init = {"w": torch.tensor([0.3, -0.2]), "b": torch.tensor(0.1), "s": torch.tensor(0.9)}
    g = autoguide.AutoDelta(delta_model, init_loc_fn=init_to_value(values=init))
    sched = pyro.optim.ExponentialLR(
        {"optimizer": torch.optim.Adam, "optim_args": {"lr": 0.1}, "gamma": 0.7}
    )
    svi = SVI(delta_model, g, sched, loss=Trace_ELBO())
    losses = []
    for _ in range(5):
        losses.append(svi.step(SVI_DATA))
        sched.step()
    put("sched.losses", np.array(losses, dtype=np.float32))
    for name, value in sorted(pyro.get_param_store().items()):
        put(f"sched.param.{name}", value)
    lrs = [o.optimizer.param_groups[0]["lr"] for o in sched.optim_objs.values()]
    put("sched.lrs", np.array(lrs))


@case
def pyro_score_function() -> None:
    data = torch.tensor([1.0, 0.0, 1.0, 1.0])

    def sf_model(data: torch.Tensor) -> None:
        p = pyro.sample("p", dist.Beta(2.0, 2.0))
        with pyro.plate("n", len(data)):
            z = pyro.sample("z", dist.Bernoulli(p))
            pyro.sample("x", dist.Normal(z, 0.5), obs=data)
        pyro.factor("penalty", -0.1 * p**2)

    def sf_guide(data: torch.Tensor) -> None:
        a = pyro.param("a", torch.tensor(3.0), constraint=dist.constraints.positive)
        b = pyro.param("b", torch.tensor(2.0), constraint=dist.constraints.positive)
        q = pyro.param("q", torch.full((4,), 0.6), constraint=dist.constraints.unit_interval)
        pyro.sample("p", dist.Beta(a, b))
        with pyro.plate("n", len(data)):
            pyro.sample("z", dist.Bernoulli(q))

    fixed = {"p": torch.tensor(0.7), "z": torch.tensor([1.0, 0.0, 0.0, 1.0])}
    for label, elbo in [
        ("graph", TraceGraph_ELBO()),
        ("trace", Trace_ELBO()),
        ("renyi", pyro.infer.RenyiELBO(alpha=0.5)),
    ]:
        pyro.clear_param_store()
        tr = poutine.trace(sf_guide).get_trace(data)
        for name, value in fixed.items():
            tr.nodes[name]["value"] = value
        put(
            f"sf.{label}.loss",
            np.float32(elbo.loss_and_grads(sf_model, poutine.replay(sf_guide, trace=tr), data)),
        )
        for name, p in store_params().items():
            put(f"sf.{label}.grad.{name}", p.grad)
    try:  # (Bernoulli has no rsample)
        TraceMeanField_ELBO().differentiable_loss(sf_model, sf_guide, data)
    except NotImplementedError as e:
        put("sf.meanfield_error", str(e))
    # the shapes report of a trace, and an enumerated site's log-likelihood sum
    tr = poutine.trace(poutine.condition(sf_model, data=fixed)).get_trace(data)
    put("sf.format_shapes", tr.format_shapes())
    pyro.clear_param_store()

    def enum_model(data: torch.Tensor) -> None:
        z = pyro.sample(
            "z", dist.Categorical(torch.tensor([0.2, 0.5, 0.3])), infer={"enumerate": "parallel"}
        )
        pyro.sample(
            "x",
            dist.Normal(torch.tensor([-1.0, 0.0, 2.0])[z, None] + torch.zeros(4), 1.0).to_event(1),
            obs=data,
        )

    par = TraceEnum_ELBO(max_plate_nesting=0).loss(
        config_enumerate(enum_model, "parallel"), lambda d: None, data
    )
    put("sf.enum_parallel", np.float32(par))
    # kl divergences pyro registers for its wrappers
    from torch.distributions import kl_divergence

    p, q = (
        dist.Normal(arr((3,), 1000), pos((3,), 1001)),
        dist.Normal(arr((3,), 1002), pos((3,), 1003)),
    )
    mask = torch.tensor([True, False, True])
    put("sf.kl.masked", kl_divergence(p.mask(mask), q.mask(mask)))
    put("sf.kl.delta", kl_divergence(dist.Delta(arr((3,), 1004)), q))
    put("sf.kl.expanded", kl_divergence(p.expand([2, 3]).to_event(2), q.expand([2, 3]).to_event(2)))


@case
def pyro_handlers() -> None:
    pyro.clear_param_store()
    guide(DATA)  # (its params)
    subs = poutine.substitute(guide, data={"mu_loc": torch.tensor(1.5)})
    tr = poutine.trace(poutine.condition(subs, data=LATENT)).get_trace(DATA)
    put("handlers.substitute.mu", tr.nodes["mu"]["fn"].loc)
    put_trace("handlers.substitute", tr)
    # lift: the guide's params become samples of priors
    priors = {"mu_loc": dist.Normal(0.0, 1.0), "s_loc": dist.Normal(0.0, 2.0)}
    lifted = poutine.lift(guide, prior=priors)
    values = {"mu_loc": torch.tensor(0.3), "s_loc": torch.tensor(-0.1), **LATENT}
    tr = poutine.trace(poutine.condition(lifted, data=values)).get_trace(DATA)
    put_trace("handlers.lift", tr)
    # uncondition leaves an observed site to be sampled: condition it again, as a latent
    un = poutine.uncondition(poutine.condition(model, data=LATENT))
    tr = poutine.trace(poutine.condition(un, data={**LATENT, "obs": DATA})).get_trace(DATA)
    put("handlers.uncondition.observed", sorted(tr.observation_nodes))
    put("handlers.uncondition.log_prob", tr.log_prob_sum())
    # infer_config, and the trace of a model under config_enumerate
    configured = poutine.infer_config(model, lambda msg: {"foo": msg["name"]})
    tr = poutine.trace(poutine.condition(configured, data=LATENT)).get_trace(DATA)
    put("handlers.infer_config", [tr.nodes[n]["infer"].get("foo", "") for n in sorted(LATENT)])
    # the queue of a discrete model (exhaustive search of a small enumeration)
    from pyro.infer.util import MultiFrameTensor

    mft = MultiFrameTensor()
    tr = poutine.trace(poutine.condition(model, data=LATENT)).get_trace(DATA)
    tr.compute_log_prob()
    for name in ["mu", "offset", "obs"]:
        node = tr.nodes[name]
        mft.add((node["cond_indep_stack"], node["log_prob"]))
    put("handlers.multiframe", mft.sum_to(()))


@case
def pyro_autoguides_more() -> None:
    init = {
        "mu": torch.tensor(0.8),
        "sigma": torch.tensor(1.3),
        "offset": torch.tensor([0.2, -0.4]),
    }
    pyro.clear_param_store()
    g = autoguide.AutoGuideList(model)
    g.append(
        autoguide.AutoDelta(
            poutine.block(model, expose=["mu"]), init_loc_fn=init_to_value(values=init)
        )
    )
    g.append(
        autoguide.AutoDiagonalNormal(
            poutine.block(model, hide=["mu"]), init_loc_fn=init_to_value(values=init)
        )
    )
    g(DATA)
    set_store(500)
    put("auto_more.list.names", sorted(pyro.get_param_store().keys()))
    for name, value in sorted(g.median(DATA).items()):
        put(f"auto_more.list.median.{name}", value)
    tr = poutine.trace(poutine.condition(g, data=LATENT)).get_trace(DATA)
    put("auto_more.list.log_prob", tr.log_prob_sum())
    # a normalizing-flow guide: its network's weights from the oracle
    pyro.clear_param_store()
    iaf = autoguide.AutoIAFNormal(conjugate, hidden_dim=[4], num_transforms=2)
    iaf(DATA)
    set_store(600)
    tr = poutine.trace(poutine.condition(iaf, data={"mu": torch.tensor(0.4)})).get_trace(DATA)
    put("auto_more.iaf.names", sorted(pyro.get_param_store().keys()))
    put(
        "auto_more.iaf.shapes",
        [str(tuple(v.shape)) for _, v in sorted(pyro.get_param_store().items())],
    )
    post = iaf.get_posterior()
    put("auto_more.iaf.log_prob", post.log_prob(torch.tensor([[0.4], [-0.3]])))
    del tr
    # AutoDiscreteParallel: enumerated discrete latents of the mixture, summed exactly
    pyro.clear_param_store()
    w, locs = torch.tensor([0.4, 0.6]), torch.tensor([-1.0, 2.0])
    conditioned = poutine.condition(mixture, data={"weights": w, "locs": locs})
    disc = autoguide.AutoDiscreteParallel(conditioned)
    elbo = TraceEnum_ELBO(max_plate_nesting=1)
    loss = elbo.differentiable_loss(conditioned, config_enumerate(disc), MIX_DATA)
    put_grads("auto_more.discrete.loss", loss, store_params())


@case
def pyro_gp() -> None:
    import pyro.contrib.gp as gp

    X = arr((8, 2), 1100)
    y = arr((8,), 1101)
    Z = arr((5, 2), 1102)
    kernels = {
        "rbf": gp.kernels.RBF(2, variance=torch.tensor(1.5), lengthscale=torch.tensor([0.7, 1.2])),
        "matern52": gp.kernels.Matern52(2, lengthscale=torch.tensor(0.9)),
        "matern32": gp.kernels.Matern32(2),
        "periodic": gp.kernels.Periodic(2, period=torch.tensor(1.3)),
        "linear": gp.kernels.Linear(2),
        "rq": gp.kernels.RationalQuadratic(2, scale_mixture=torch.tensor(0.8)),
        "exponential": gp.kernels.Exponential(2),
    }
    kernels["sum"] = gp.kernels.Sum(kernels["rbf"], kernels["linear"])
    kernels["product"] = gp.kernels.Product(kernels["matern52"], kernels["periodic"])
    for name, k in kernels.items():
        params = dict(k.named_parameters())
        put_grads(f"gp.kernel.{name}", k(X, Z), params)
        put(f"gp.kernel.{name}.diag", k(X, diag=True))
    pyro.clear_param_store()
    model_gp = gp.models.GPRegression(X, y, kernels["rbf"], noise=torch.tensor(0.3))
    mean, cov = model_gp(Z, full_cov=True)
    put("gp.regression.mean", mean)
    put("gp.regression.cov", cov)
    loss = Trace_ELBO().differentiable_loss(model_gp.model, model_gp.guide)
    put_grads("gp.regression.loss", loss, dict(model_gp.named_parameters()))
    sparse = gp.models.SparseGPRegression(
        X, y, gp.kernels.RBF(2), Xu=Z.clone(), noise=torch.tensor(0.2)
    )
    for approx in ["DTC", "FITC", "VFE"]:
        sparse.approx = approx
        loss = Trace_ELBO().differentiable_loss(sparse.model, sparse.guide)
        put_grads(f"gp.sparse.{approx}", loss, dict(sparse.named_parameters()))
        mean, var = sparse(Z)
        put(f"gp.sparse.{approx}.mean", mean)
        put(f"gp.sparse.{approx}.var", var)
    # a few steps of Adam on the exact GP's marginal likelihood
    optimizer = torch.optim.Adam(model_gp.parameters(), lr=0.05)
    losses = gp.util.train(model_gp, optimizer, num_steps=5)
    put("gp.train.losses", np.array(losses, dtype=np.float32))
    put("gp.train.lengthscale", model_gp.kernel.lengthscale)


@case
def pyro_more_distributions() -> None:
    for name, fn in pyro_dist_table.entries(arr, pos).items():
        put(f"more_dist.{name}", pyro_dist_table.outcome(fn))


def check_own_store() -> None:
    """(The ``check`` side: the real PyTorch loads the param store chainrule saved.)"""
    store = pyro.get_param_store()
    store.load(f"{OUT}/pyro_params_chainrule.pt")
    put("store.names", sorted(store.keys()))
    for name in sorted(store.keys()):
        put(f"store.{name}.constrained", store[name])
        put(f"store.{name}.unconstrained", store.get_param(name).unconstrained())
        put(f"store.{name}.constraint", type(store._constraints[name]).__name__)


def main() -> None:
    cases = [("check_own_store", check_own_store)] if SIDE == "check" else None
    CASES.run(f"{OUT}/pyro_{SIDE}", cases, fresh_keys=True)
    WEIGHTS.save()


main()
