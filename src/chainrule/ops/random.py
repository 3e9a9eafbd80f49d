"""Random draws as ops: the in-place samplers (``uniform_``, ``normal_``, ...) and
``normal``/``bernoulli``/``poisson`` of tensors that require grad, and the reparameterized
draws of the gamma and Dirichlet distributions (``_standard_gamma``, ``_sample_dirichlet``)
with their gradients (``_standard_gamma_grad``, ``_dirichlet_grad``).

The values are drawn by the caller (``api/parsers/random.py``, from a generator) and
handed to the op, which only records the node PyTorch records. As in PyTorch, most draws
do not depend differentiably on their parameters (every gradient is zero); a gamma draw
x ~ Gamma(α, 1) does, by implicit differentiation of its CDF: dx/dα = -(∂P/∂α)/p."""

from __future__ import annotations

from .. import _dtypes
from .._backend import current, like, to_host, xp
from ..autograd.recording import KEEP, defop, no_forward_ad, not_differentiable
from . import copies, gamma_draws


def _drawn(x, values=None, node_name="NormalBackward0"):
    """the values drawn (by the caller) for x's place"""
    return values


def _node(*arrays, values=None, node_name="NormalBackward0"):
    return node_name


sample = defop(
    "sample",
    _drawn,
    dtypes=KEEP,
    node=_node,
    vjp=lambda g: copies.zero(g),  # d/dx = 0: the draw replaces x
    jvp=lambda t: copies.zero(t),  # as the VJP
)


def _drawn2(a, b, values=None, node_name="NormalBackward3"):
    """the values drawn (by the caller) from a distribution with parameters a and b"""
    return values


sample2 = defop(
    "sample2",
    _drawn2,
    args=("a", "b"),
    dtypes=KEEP,
    node=_node,
    vjp=(
        lambda g: copies.zero(g),  # d/da = 0: the draw is not reparameterized
        lambda g: copies.zero(g),  # d/db = 0
    ),
    jvp=(
        lambda t: copies.zero(t),  # as the VJP
        lambda t: copies.zero(t),  # as the VJP
    ),
)


# ----- reparameterized draws: gamma and Dirichlet ------------------------------------------


def _same_float_dtype(kernel: str):
    """A dtype rule: every input of the first's floating dtype (float32 or float64), with
    PyTorch's errors otherwise."""

    def rule(args, params):
        dt = args[0]._dtype
        for other in args[1:]:
            if other._dtype is not dt:
                raise RuntimeError(
                    f"Found dtype {other._dtype.scalar_name} but expected {dt.scalar_name}"
                )
        if dt.np not in (xp.float32, xp.float64):
            raise _dtypes.not_implemented(kernel, dt)
        return dt

    return rule


def _on_host(kernel, *arrays):
    """``kernel`` (a float64 NumPy series, element by element) run on the host, its result
    put where the first array is: the series iterate a data-dependent number of times."""
    previous, current[0] = current[0], None  # (NumPy as xp while it runs)
    try:
        out = kernel(*(to_host(a) for a in arrays))
    finally:
        current[0] = previous
    return like(arrays[0], out.astype(arrays[0].dtype))


def _gamma_grad(alpha, x):
    """dx/dα of a draw x ~ Gamma(α, 1): -(∂P(α, x)/∂α) / p(x; α), P the regularized lower
    incomplete gamma function and p the density (exact, from P's series and Q's continued
    fraction; 0 at x = 0, nan where α <= 0 or x = inf)"""
    return _on_host(gamma_draws.standard_gamma_grad, alpha, x)


def _no_derivative_in_alpha(g):
    """No derivative: raises PyTorch's NotImplementedError."""
    raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


standard_gamma_grad = defop(
    "standard_gamma_grad",
    _gamma_grad,
    args=("alpha", "x"),
    dtypes=_same_float_dtype("_standard_gamma_grad_cpu"),
    node="StandardGammaGradBackward0",
    vjp=(_no_derivative_in_alpha, None),
    jvp=(no_forward_ad("_standard_gamma_grad"), None),
    conventions="Not differentiable in α (PyTorch's NotImplementedError) nor in x (the "
    "result does not require grad through x), and no forward mode (PyTorch has none).",
)


def _gamma_drawn(alpha, draws=None):
    """x ~ Gamma(α, 1), drawn (by the caller) for each α"""
    return draws


standard_gamma = defop(
    "standard_gamma",
    _gamma_drawn,
    args=("alpha",),
    dtypes=KEEP,
    node="StandardGammaBackward0",
    vjp=lambda g, alpha, ans: g * standard_gamma_grad(alpha, ans),  # dx/dα = -(∂P/∂α)/p
    jvp=no_forward_ad("_standard_gamma"),
    conventions="Reparameterized: x moves with α so that P(α, x) stays put. No forward "
    "mode (PyTorch has none).",
)


def _beta_grad(x, alpha, total):
    """-(∂I_x(a, b)/∂a) / (f(x; a, b) (1 - x)), a = alpha, b = total - alpha fixed: the
    reparameterized gradient of a draw x ~ Beta(a, b), I the regularized incomplete beta
    function and f the density, scaled by 1/(1 - x) as PyTorch's (exact, from the series of
    I_x(a, b) and of I_(1-x)(b, a))"""
    return _on_host(gamma_draws.dirichlet_grad, x, alpha, total)


_dirichlet_grad_vjp, _dirichlet_grad_jvp = not_differentiable("_dirichlet_grad")

dirichlet_grad = defop(
    "dirichlet_grad",
    _beta_grad,
    args=("x", "alpha", "total"),
    dtypes=_same_float_dtype("_dirichlet_grad_cpu"),
    node="NotImplemented",
    vjp=(_dirichlet_grad_vjp, _dirichlet_grad_vjp, _dirichlet_grad_vjp),
    jvp=(_dirichlet_grad_jvp, _dirichlet_grad_jvp, _dirichlet_grad_jvp),
    conventions="Not differentiable (PyTorch's error).",
)


def _dirichlet_drawn(alpha, draws=None):
    """x ~ Dirichlet(α) over the last dim, drawn (by the caller): normalized gammas"""
    return draws


def _dirichlet_vjp(g, alpha, ans):
    """∂L/∂α_j = D_j (g_j - Σ_i x_i g_i), D_j = _dirichlet_grad(x_j, α_j, Σ_i α_i): the
    reparameterized gradient PyTorch's Dirichlet.rsample takes (x_j ~ Beta(α_j, Σα - α_j))"""
    from . import reductions

    total = reductions.sum(alpha, dim=-1, keepdim=True)  # (broadcast against α)
    return dirichlet_grad(ans, alpha, total) * (g - reductions.sum(ans * g, dim=-1, keepdim=True))


def _dirichlet_jvp(t, alpha, ans):
    """dx_i = D_i t_i - x_i Σ_j D_j t_j, the JVP of the same Jacobian D_j (δ_ij - x_i)"""
    from . import reductions

    total = reductions.sum(alpha, dim=-1, keepdim=True)
    dt = dirichlet_grad(ans, alpha, total) * t
    return dt - ans * reductions.sum(dt, dim=-1, keepdim=True)


sample_dirichlet = defop(
    "sample_dirichlet",
    _dirichlet_drawn,
    args=("alpha",),
    dtypes=KEEP,
    node="_DirichletBackward",
    vjp=_dirichlet_vjp,
    jvp=_dirichlet_jvp,
    conventions="Reparameterized as PyTorch's Dirichlet.rsample (its node name); PyTorch's "
    "own _sample_dirichlet has no derivative and no forward mode.",
)
