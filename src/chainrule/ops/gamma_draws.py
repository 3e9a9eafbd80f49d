"""The reparameterization gradients of gamma and beta draws, in float64 on arrays (the
kernels of ``_standard_gamma_grad`` and ``_dirichlet_grad``; the ops are in ops/random.py).

A draw x of a distribution with CDF F(x; α) moves with α so that F stays put: by implicit
differentiation dx/dα = -(∂F/∂α)/p(x), p the density. Both kernels compute this from the
series of F written relative to the density, so the prefactor x^a e^-x / Γ(a) (or its beta
counterpart) cancels and nothing overflows:

- Gamma(α, 1), below the median (log x <= ψ(α + 1)): P(α, x)/p(x) = (x/α) Σ c_n with
  c_0 = 1, c_n = c_(n-1) x/(α + n), so dx/dα = (x/α) (S (ψ(α + 1) - log x) + Σ c_n h_n),
  S = Σ c_n, h_n = Σ_(k<=n) 1/(α + k);
- Gamma, above it: Q(α, x)/p(x) = x K(α, x), K Legendre's continued fraction of
  Γ(α, x) e^x x^-α, so dx/dα = x (K (log x - ψ(α)) + ∂K/∂α), ∂K/∂α carried through the
  fraction's recurrence (forward-mode differentiation of each convergent);
- Beta(a, b) (b fixed), through I_x(a, b) = x^a (1-x)^b / (a B(a, b)) Σ c_n,
  c_n = c_(n-1) x (a + b + n - 1)/(a + n), below (a + 1)/(a + b + 2), and through
  I_x(a, b) = 1 - I_(1-x)(b, a) above it.

In each branch the two terms have the same sign (no cancellation) and the series converge
geometrically; near the mode of a large α they take about √α terms.
"""

from __future__ import annotations

from .._backend import xp
from .special import _digamma64

_EPS = 2.0**-53
_MAX_TERMS = 1_000_000
_BIG, _BIGINV = 2.0**256, 2.0**-256


def _run(state: dict, step, done, max_terms: int = _MAX_TERMS) -> dict:
    """Iterate ``step(state, n)`` (n = 1, 2, ...) on the elements not ``done`` yet, dropping
    the converged ones from the arrays every 16 steps. ``state`` maps names to 1-d arrays of
    one length; the finished values come back in the same order."""
    out = {k: v.copy() for k, v in state.items()}
    live = xp.arange(next(iter(state.values())).shape[0])
    cur = {k: v.copy() for k, v in state.items()}
    n = 0
    while live.size and n < max_terms:
        for _ in range(16):
            n += 1
            step(cur, n)
        finished = done(cur)
        for k in out:
            out[k][live] = cur[k]
        keep = ~finished
        live = live[keep]
        cur = {k: v[keep] for k, v in cur.items()}
    return out


def _gamma_lower(a, x):
    """dx/dα for log x <= ψ(α + 1): (x/α)(S (ψ(α + 1) - log x) + Σ c_n h_n)."""

    def step(s, n):
        r = s["a"] + n
        s["h"] = s["h"] + 1.0 / r
        s["c"] = s["c"] * s["x"] / r
        s["S"] = s["S"] + s["c"]
        s["H"] = s["H"] + s["c"] * s["h"]

    def done(s):
        return (s["c"] <= _EPS * s["S"]) & (s["c"] * s["h"] <= _EPS * s["H"])

    one = xp.ones(a.shape)
    zero = xp.zeros(a.shape)
    s = _run({"a": a, "x": x, "c": one, "h": zero, "S": one, "H": zero}, step, done)
    return x / a * (s["S"] * (_digamma64(a + 1.0) - xp.log(x)) + s["H"])


def _gamma_upper(a, x):
    """dx/dα for log x > ψ(α + 1): x (K (log x - ψ(α)) + ∂K/∂α), K the continued fraction
    of Γ(α, x) e^x x^-α, with the derivative of each convergent p_k/q_k carried along."""

    def step(s, n):
        yc = (s["y"] + n) * n  # (y = 1 - α; the n-th numerator is -(n)(n - α))
        z = s["z"] + 2.0 * n
        pk = s["p1"] * z - s["p2"] * yc
        qk = s["q1"] * z - s["q2"] * yc
        # d/dα: dz = -1, d(yc) = -n
        dpk = s["dp1"] * z - s["p1"] - s["dp2"] * yc + s["p2"] * n
        dqk = s["dq1"] * z - s["q1"] - s["dq2"] * yc + s["q2"] * n
        k = pk / qk
        dk = (dpk - k * dqk) / qk
        s["dk_change"] = xp.abs(dk - s["dk"])
        s["k_change"] = xp.abs(k - s["k"])
        s["k"], s["dk"] = k, dk
        s["p2"], s["p1"], s["q2"], s["q1"] = s["p1"], pk, s["q1"], qk
        s["dp2"], s["dp1"], s["dq2"], s["dq1"] = s["dp1"], dpk, s["dq1"], dqk
        big = xp.abs(qk) > _BIG
        for name in ("p2", "p1", "q2", "q1", "dp2", "dp1", "dq2", "dq1"):
            s[name] = xp.where(big, s[name] * _BIGINV, s[name])

    def done(s):
        # (∂K/∂α comes from differences of the convergents' derivatives: once K has
        # converged, its last steps change by a few rounding errors, not by _EPS)
        return (s["k_change"] <= _EPS * xp.abs(s["k"])) & (
            s["dk_change"] <= 64 * _EPS * xp.abs(s["dk"])
        )

    y = 1.0 - a
    z = x + y + 1.0
    zero = xp.zeros(a.shape)
    state = {
        "y": y,
        "z": z,
        "p2": xp.ones(a.shape),
        "q2": x.copy(),
        "p1": x + 1.0,
        "q1": z * x,
        "dp2": zero,
        "dq2": zero,
        "dp1": zero,
        "dq1": -x,
        "k": (x + 1.0) / (z * x),
        "dk": zero + 0.0,
        "k_change": zero + 1.0,
        "dk_change": zero + 1.0,
    }
    state["dk"] = -(x + 1.0) * (-x) / (z * x) ** 2
    s = _run(state, step, done)
    return x * (s["k"] * (xp.log(x) - _digamma64(a)) + s["dk"])


def standard_gamma_grad(alpha, x):
    """dx/dα of a draw x ~ Gamma(α, 1): -(∂P(α, x)/∂α) / p(x; α), exactly (float64 arrays,
    broadcast). 0 at x = 0; nan where α <= 0, x < 0, x = inf or either is nan."""
    a, x = (xp.array(v, dtype=xp.float64) for v in xp.broadcast_arrays(alpha, x))
    out = xp.full(a.shape, xp.nan)
    regular = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    with xp.errstate(all="ignore"):
        aa, xx = a[regular], x[regular]
        lower = xp.log(xx) <= _digamma64(aa + 1.0)
        res = xp.empty(aa.shape)
        if lower.any():
            res[lower] = _gamma_lower(aa[lower], xx[lower])
        if (~lower).any():
            res[~lower] = _gamma_upper(aa[~lower], xx[~lower])
    out[regular] = res
    out[(a > 0) & (x == 0)] = 0.0
    return out


def _beta_lower(x, a, b):
    """(x/a)(S (ψ(a + 1) - ψ(a + b) - log x) - Σ c_n h_n), the series of I_x(a, b)."""

    def step(s, n):
        up, down = s["a"] + s["b"] + (n - 1), s["a"] + n
        s["h"] = s["h"] + 1.0 / up - 1.0 / down
        s["c"] = s["c"] * s["x"] * up / down
        s["S"] = s["S"] + s["c"]
        s["H"] = s["H"] + s["c"] * s["h"]

    def done(s):
        return (s["c"] <= _EPS * s["S"]) & (xp.abs(s["c"] * s["h"]) <= _EPS * xp.abs(s["H"]))

    one = xp.ones(a.shape)
    zero = xp.zeros(a.shape)
    s = _run({"a": a, "b": b, "x": x, "c": one, "h": zero, "S": one, "H": zero}, step, done)
    bracket = _digamma64(a + 1.0) - _digamma64(a + b) - xp.log(x)
    return x / a * (s["S"] * bracket - s["H"])


def _beta_upper(x, a, b):
    """(x/b)(S' (log x - ψ(a) + ψ(a + b)) + Σ c'_n h'_n), the series of I_(1-x)(b, a)."""

    def step(s, n):
        up, down = s["a"] + s["b"] + (n - 1), s["b"] + n
        s["h"] = s["h"] + 1.0 / up
        s["c"] = s["c"] * s["y"] * up / down
        s["S"] = s["S"] + s["c"]
        s["H"] = s["H"] + s["c"] * s["h"]

    def done(s):
        return (s["c"] <= _EPS * s["S"]) & (s["c"] * s["h"] <= _EPS * s["H"])

    one = xp.ones(a.shape)
    zero = xp.zeros(a.shape)
    s = _run({"a": a, "b": b, "y": 1.0 - x, "c": one, "h": zero, "S": one, "H": zero}, step, done)
    bracket = xp.log(x) - _digamma64(a) + _digamma64(a + b)
    return x / b * (s["S"] * bracket + s["H"])


def dirichlet_grad(x, alpha, total):
    """-(∂I_x(a, b)/∂a) / (f(x; a, b) (1 - x)) for a draw x ~ Beta(a, b), a = alpha,
    b = total - alpha held fixed: PyTorch's scaled gradient of a Dirichlet coordinate
    (float64 arrays, broadcast). nan outside 0 <= x <= 1, a > 0, b > 0."""
    x, a, total = (xp.array(v, dtype=xp.float64) for v in xp.broadcast_arrays(x, alpha, total))
    b = total - a
    out = xp.full(a.shape, xp.nan)
    regular = (a > 0) & (b > 0) & (x > 0) & (x <= 1) & xp.isfinite(a) & xp.isfinite(b)
    with xp.errstate(all="ignore"):
        xx, aa, bb = x[regular], a[regular], b[regular]
        lower = xx <= (aa + 1.0) / (aa + bb + 2.0)
        res = xp.empty(aa.shape)
        if lower.any():
            res[lower] = _beta_lower(xx[lower], aa[lower], bb[lower])
        if (~lower).any():
            res[~lower] = _beta_upper(xx[~lower], aa[~lower], bb[~lower])
    out[regular] = res
    out[(a > 0) & (b > 0) & (x == 0)] = 0.0
    return out
