"""``torch.optim.Adafactor``: Adam-like steps with a second moment kept as row and column
factors for parameters of two or more dimensions, as PyTorch 2.13 has it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from .._tensor import Tensor
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _refuse_complex, _scalar_tensor, _to_scalar

__all__ = ["Adafactor"]

Array = Any


def _check(lr: Any, beta2_decay: float, eps: tuple, d: float, weight_decay: float) -> None:
    """PyTorch's argument checks, in its order and with its messages."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
    if not 0.0 >= beta2_decay:
        raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
    if eps[0] is not None and not 0.0 <= eps[0]:
        raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
    if not 0.0 <= eps[1]:
        raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
    if not 1.0 <= d:
        raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")


def _norm(a: Array, axis: int | None = None) -> Array:
    """``||a||_2`` (along ``axis``, kept), in ``a``'s dtype; bfloat16: summed in float32
    and rounded once, as PyTorch's reductions."""
    wide = a.astype(xp.float32) if u.narrow(a) else a
    keep = axis is not None
    return u.fresh(xp.sqrt(xp.sum(wide * wide, axis=axis, keepdims=keep)).astype(a.dtype))


def _rms(a: Array) -> float:
    """``||a||_2 / sqrt(numel)`` as a Python number (the norm in ``a``'s dtype)."""
    return float(_norm(a)) / math.sqrt(a.size)


def _mean_square(g: Array, axis: int) -> Array:
    """``||g||^2 / n`` along ``axis`` (kept): the norm squared, as PyTorch rounds it."""
    m = _norm(g, axis)
    m *= m
    u.div_(m, g.shape[axis])
    return m


def _variance(row_var: Array, col_var: Array, eps1: float) -> Array:
    """``row_var col_var / max(mean(row_var), eps1)``: the factored second moment (the
    outer product and the mean rounded to bfloat16 once each, as PyTorch's)."""
    var = xp.matmul(row_var, col_var).astype(row_var.dtype)  # (bfloat16's: float32)
    wide = row_var.astype(xp.float32) if u.narrow(row_var) else row_var
    mean = u.fresh(xp.mean(wide, axis=-2, keepdims=True).astype(row_var.dtype))
    var /= xp.maximum(mean, eps1)
    return var


def _scaled_gradient(var: Array, g: Array, eps1: float) -> Array:
    """``g / sqrt(max(var, eps1^2))`` (bfloat16: the reciprocal root rounded once, then
    the product, as PyTorch's ``rsqrt_`` and ``mul_``)."""
    floor = xp.maximum(var, eps1 * eps1)
    if u.narrow(var):
        root = (1 / xp.sqrt(floor.astype(xp.float32))).astype(var.dtype)
        return u.fresh(root * g)
    return xp.asarray(1 / xp.sqrt(floor) * g)


class Adafactor(Optimizer):
    """With ``t`` the step, ``beta2_t = 1 - t^beta2_decay``, ``rho_t = min(lr, 1/sqrt(t))``
    and ``alpha_t = max(eps2, rms(p)) rho_t``: for a matrix (a tensor of 2+ dims, over its
    last two) ``R <- lerp(R, mean_j g^2, 1 - beta2_t)``, ``C <- lerp(C, mean_i g^2,
    1 - beta2_t)``, ``V = R C / max(mean(R), eps1)``; for a vector or scalar ``V <-
    lerp(V, g^2, 1 - beta2_t)``. Then ``U = g / sqrt(max(V, eps1^2))`` and ``p <- p (1 -
    lr wd) - alpha_t U / max(1, rms(U)/d)``; ``eps1 = None`` means the dtype's machine
    epsilon.

    As in PyTorch, ``foreach`` changes only the rounding of the last update (``U`` scaled,
    then added, rather than added with a factor), and ``eps1 = None`` means, for a whole
    group, the machine epsilon of the dtype of its first parameter with a gradient.
    Difference: for a group that mixes dtypes, PyTorch's ``foreach=True`` path takes that
    epsilon from whichever dtype its internal (hash-ordered) grouping processes first;
    chainrule keeps the first parameter's dtype there too. A complex parameter raises
    PyTorch's error; chainrule has no sparse tensors, so that error has no case here.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        _check(lr, beta2_decay, eps, d, weight_decay)
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _scalar_tensor(float(p_state["step"]))

    @staticmethod
    def _init_state(state: dict[str, Any], grad: Tensor) -> None:
        """``step`` 0; zero factors ``row_var`` (last dim 1) and ``col_var`` (second to
        last dim 1) for a matrix, a zero ``variance`` of the gradient's shape otherwise."""
        state["step"] = _scalar_tensor(0.0)
        if grad.dim() > 1:
            shape = list(grad.shape)
            state["row_var"] = chainrule.zeros(shape[:-1] + [1], dtype=grad.dtype)
            state["col_var"] = chainrule.zeros(shape[:-2] + [1, shape[-1]], dtype=grad.dtype)
        else:
            state["variance"] = chainrule.zeros_like(grad)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adafactor step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            eps1, eps2 = group["eps"]
            wd, d = group["weight_decay"], group["d"]
            _refuse_complex(self._with_grad(group, "Adafactor"), "Adafactor")
            for p in self._with_grad(group, "Adafactor"):
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(state, p.grad)
                if eps1 is None:
                    eps1 = chainrule.finfo(p.dtype).eps
                param = p._data
                g = u.grad_of(p, group["maximize"])
                step_t = state["step"]._data
                step_t += 1
                t = float(step_t)
                weight = t ** group["beta2_decay"]  # 1 - beta2_t
                rho = min(lr, 1 / t**0.5)
                alpha = max(eps2, _rms(param)) * rho
                if wd != 0:
                    u.mul_(param, 1 - lr * wd)
                if g.ndim > 1:
                    row_var, col_var = state["row_var"]._data, state["col_var"]._data
                    u.lerp_(row_var, _mean_square(g, -1), weight)
                    u.lerp_(col_var, _mean_square(g, -2), weight)
                    var = _variance(row_var, col_var, eps1)
                else:
                    variance = state["variance"]._data
                    u.lerp_(variance, g * g, weight)
                    var = variance.copy()
                update = _scaled_gradient(var, g, eps1)
                scale = -alpha / max(1.0, _rms(update) / d)
                if group["foreach"]:
                    update *= scale  # (bfloat16: scale rounded first, as PyTorch's foreach)
                    param += update
                else:
                    u.add_scaled_(param, update, scale)
                u.done(p)
        return loss
