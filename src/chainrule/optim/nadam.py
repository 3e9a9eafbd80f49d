"""``torch.optim.NAdam``: Adam with Nesterov momentum and momentum decay."""

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """``mu_t = b1 (1 - 0.96^(t psi)/2)``; ``p <- p - lr (1 - mu_t)/(1 - prod mu) g / d
    - lr mu_{t+1}/(1 - prod mu mu_{t+1}) m / d`` with ``d = sqrt(v/(1 - b2^t)) + eps``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_adam_family(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One NAdam step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _lr_number(group["lr"])
            beta1, beta2 = group["betas"]
            wd, psi = group["weight_decay"], group["momentum_decay"]
            for p in self._with_grad(group, "NAdam"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["mu_product"] = _scalar_tensor(1.0)
                    state["exp_avg"] = chainrule.zeros_like(p)
                    state["exp_avg_sq"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                g = u.grad_of(p, group["maximize"])
                step_t, mu_product = state["step"]._data, state["mu_product"]._data
                step_t += 1
                step = float(step_t)
                bias_correction2 = 1 - beta2**step
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        u.mul_(param, 1 - lr * wd)
                    else:
                        g = u.with_weight_decay(g, param, wd)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                mu_product *= mu
                exp_avg, exp_avg_sq = (
                    u.pairs(state["exp_avg"]._data),
                    u.pairs(state["exp_avg_sq"]._data),
                )
                u.lerp_(exp_avg, g, 1 - beta1)
                u.decay_add_square_(exp_avg_sq, beta2, g)
                denom = u.fresh(xp.sqrt(u.divided(exp_avg_sq, bias_correction2)))
                mu_product_next = float(mu_product) * mu_next
                u.add_(denom, group["eps"])
                u.addcdiv_(param, g, denom, -lr * (1.0 - mu) / (1.0 - float(mu_product)))
                u.addcdiv_(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
                u.done(p)
        return loss
