"""``torch.optim.RAdam``: Adam with the variance of the adaptive learning rate rectified."""

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
    _lr_number,
    _scalar_tensor,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """``rho_t = rho_inf - 2 t b2^t/(1 - b2^t)``; for ``rho_t > 5``
    ``p <- p - lr m/(1 - b1^t) r_t sqrt(1 - b2^t)/(sqrt(v) + eps)``, else
    ``p <- p - lr m/(1 - b1^t)``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_adam_family(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RAdam step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _lr_number(group["lr"])
            beta1, beta2 = group["betas"]
            wd = group["weight_decay"]
            for p in self._with_grad(group, "RAdam"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["exp_avg"] = chainrule.zeros_like(p)
                    state["exp_avg_sq"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                g = u.grad_of(p, group["maximize"])
                step_t = state["step"]._data
                step_t += 1
                step = float(step_t)
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
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                update = u.divided(exp_avg, bias_correction1)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                u.mul_(update, lr)
                if rho_t > 5.0:
                    root = u.fresh(xp.sqrt(exp_avg_sq))
                    u.add_(root, group["eps"])
                    adaptive = u.scalar_over(bias_correction2**0.5, root)
                    update *= adaptive
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    u.mul_(update, rect)
                param -= update
                u.done(p)
        return loss
