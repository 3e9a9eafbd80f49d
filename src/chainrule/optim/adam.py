"""``torch.optim.Adam`` and ``AdamW``: adaptive moment estimation, with AMSGrad, L2 or
decoupled weight decay, and maximize."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from . import _updates as u
from .optimizer import (
    Optimizer,
    ParamsT,
    _check_adam_family,
    _check_fused,
    _scalar_tensor,
    _to_scalar,
)

__all__ = ["Adam", "AdamW"]


def _check_adam(lr: Any, betas: Any, eps: float, weight_decay: float) -> tuple:
    _check_adam_family(lr, eps, betas, weight_decay)
    if not (
        (isinstance(betas[0], float) and isinstance(betas[1], float))
        or (isinstance(betas[0], chainrule.Tensor) and isinstance(betas[1], chainrule.Tensor))
    ):
        raise ValueError("betas must be either both floats or both Tensors")
    return tuple(map(_to_scalar, betas))


class Adam(Optimizer):
    """``m <- lerp(m, g, 1 - b1)``, ``v <- b2 v + (1 - b2) g^2`` (``vmax <- max(vmax, v)``
    with AMSGrad), ``p <- p - lr/(1 - b1^t) m / (sqrt(v)/sqrt(1 - b2^t) + eps)``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        betas = _check_adam(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adam step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            wd, eps = group["weight_decay"], group["eps"]
            for p in self._with_grad(group, type(self).__name__):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["exp_avg"] = chainrule.zeros_like(p)
                    state["exp_avg_sq"] = chainrule.zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                g = u.grad_of(p, group["maximize"])
                step_t = state["step"]._data
                step_t += 1
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        u.mul_(param, 1 - lr * wd)
                    else:
                        g = u.with_weight_decay(g, param, wd)
                exp_avg, exp_avg_sq = (
                    u.pairs(state["exp_avg"]._data),
                    u.pairs(state["exp_avg_sq"]._data),
                )
                u.lerp_(exp_avg, g, 1 - beta1)
                u.decay_add_square_(exp_avg_sq, beta2, g)
                step = float(step_t)
                step_size = lr / (1 - beta1**step)
                bias_correction2_sqrt = (1 - beta2**step) ** 0.5
                if group["amsgrad"]:
                    vmax = u.pairs(state["max_exp_avg_sq"]._data)
                    xp.maximum(vmax, exp_avg_sq, out=vmax)
                    denom = u.fresh(xp.sqrt(vmax))
                else:
                    denom = u.fresh(xp.sqrt(exp_avg_sq))
                u.div_(denom, bias_correction2_sqrt)
                u.add_(denom, eps)
                u.addcdiv_(param, exp_avg, denom, -step_size)
                u.done(p)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (``p <- p (1 - lr wd)`` before the step)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
