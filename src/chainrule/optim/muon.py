"""``torch.optim.Muon``: momentum whose update is orthogonalized by a quintic Newton-Schulz
iteration (computed in bfloat16, as PyTorch 2.13 computes it), for 2-D parameters."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import loud, quiet, xp
from .._tensor import Tensor
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _refuse_complex, _to_scalar

__all__ = ["Muon"]

Array = Any

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _bfloat16(x: Array) -> Array:
    """``x`` rounded to bfloat16 and held as float64 (NumPy has no bfloat16; its values are
    exact in float64): first to float32, then to nearest even, the two roundings
    PyTorch's ``.bfloat16()`` of a float64 makes."""
    bits = xp.asarray(x, dtype=xp.float32).view(xp.uint32).astype(xp.uint64)
    bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= 0xFFFF0000
    return bits.astype(xp.uint32).view(xp.float32).astype(xp.float64)


def newton_schulz(
    g: Array,
    ns_coefficients: tuple[float, float, float],
    ns_steps: int,
    eps: float,
    normalized_into: Array | None = None,
) -> Array:
    """``X <- a X + (b X X^T + c (X X^T)^2) X``, ``ns_steps`` times from ``X = G / max(||G||_F,
    eps)`` (transposed while ``G`` is tall): ``X`` tends to ``U V^T`` of ``G = U S V^T``
    (roughly: singular values land near 1). Each op rounds to bfloat16 once, as PyTorch's
    bfloat16 ops on the CPU do after computing in float32; computing in float64 instead
    gives the same bits unless a float32 sum lands within its own rounding of a bfloat16
    tie (none in a thousand random matrices checked against PyTorch 2.13).

    ``normalized_into``: an array of ``g``'s shape that receives ``G / max(||G||_F, eps)``
    (PyTorch 2.13 normalizes a bfloat16 ``G`` in place: Muon's momentum buffer, without
    Nesterov, is left holding it)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if g.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    token = quiet()  # (overflow to inf, and inf - inf, as in PyTorch: no warning)
    try:
        tall = g.shape[0] > g.shape[1]
        x = _bfloat16(g.T if tall else g)
        norm = max(float(_bfloat16(xp.sqrt(xp.sum(x * x)))), float(_bfloat16(eps)))
        x = _bfloat16(x / norm)
        if normalized_into is not None:
            normalized_into[...] = x.T if tall else x
        for _ in range(ns_steps):
            gram = _bfloat16(x @ x.T)
            gram_update = _bfloat16(b * gram + c * (gram @ gram))
            x = _bfloat16(a * x + gram_update @ x)
    finally:
        loud(token)
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """``lr sqrt(max(1, A/B))`` ("original", the default) or ``0.2 lr sqrt(max(A, B))``
    ("match_rms_adamw") for an ``A x B`` parameter."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * (0.2 * math.sqrt(max(rows, cols)))
    return lr


def _lerp(a: Array, b: Array, w: float) -> Array:
    """``a + w (b - a)``, a new array, rounded as PyTorch's lerp."""
    out = a.copy()
    u.lerp_(out, b, w)
    return out


class Muon(Optimizer):
    """``B <- mu B + (1 - mu) g`` (a lerp), ``O = NS(lerp(g, B, mu))`` with Nesterov or
    ``NS(B)`` without, ``p <- p (1 - lr wd) - lr' O`` with ``lr'`` the learning rate
    adjusted to the shape (``adjusted_lr``); ``NS`` is ``newton_schulz``.

    The orthogonalization is in bfloat16 as in PyTorch (emulated in float64, so that it
    needs no ml_dtypes), so the update has bfloat16's precision whatever the parameter's
    dtype. For a bfloat16 parameter without Nesterov, PyTorch 2.13 normalizes the momentum
    buffer itself in place (its orthogonalization starts from ``buffer.bfloat16()``, the
    buffer): chainrule's buffer is left the same.
    Muon's ``momentum_buffer`` is its only state (no ``step``), as in PyTorch. A complex
    parameter raises PyTorch's error; chainrule has no sparse tensors, so that error has no
    case here.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter "
                        f"with size: {p.size()}"
                    )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Muon step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            wd = group["weight_decay"]
            _refuse_complex(self._with_grad(group, "Muon"), "Muon")
            for p in self._with_grad(group, "Muon"):
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = chainrule.zeros_like(p.grad)
            lr = _to_scalar(group["lr"])
            for p in self._with_grad(group, "Muon"):
                g = p.grad._data
                if g.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buf = self.state[p]["momentum_buffer"]._data
                u.lerp_(buf, g, 1 - momentum)
                update = _lerp(g, buf, momentum) if group["nesterov"] else buf
                in_place = not group["nesterov"] and u.narrow(buf)  # (PyTorch's, see NS)
                update = newton_schulz(
                    update,
                    group["ns_coefficients"],
                    group["ns_steps"],
                    group["eps"],
                    buf if in_place else None,
                )
                lr_p = adjusted_lr(lr, group["adjust_lr_fn"], p.shape)
                param = p._data
                u.mul_(param, 1 - lr * wd)
                if param.dtype != update.dtype:
                    update = update.astype(param.dtype)
                u.add_scaled_(param, update, -lr_p)
                u.done(p)
        return loss
