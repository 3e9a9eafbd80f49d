"""``torch.optim.Adamax``: Adam with the infinity norm."""

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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``m <- lerp(m, g, 1 - b1)``, ``u <- max(b2 u, |g| + eps)``,
    ``p <- p - lr/(1 - b1^t) m / u``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_adam_family(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adamax step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _lr_number(group["lr"])
            beta1, beta2 = group["betas"]
            for p in self._with_grad(group, "Adamax"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["exp_avg"] = chainrule.zeros_like(p)
                    state["exp_inf"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                step_t = state["step"]._data
                step_t += 1
                g = u.with_weight_decay(
                    u.grad_of(p, group["maximize"]), param, group["weight_decay"]
                )
                exp_avg, exp_inf = u.pairs(state["exp_avg"]._data), u.pairs(state["exp_inf"]._data)
                u.lerp_(exp_avg, g, 1 - beta1)
                u.mul_(exp_inf, beta2)
                norm = u.fresh(xp.abs(g))
                u.add_(norm, group["eps"])
                xp.maximum(exp_inf, norm, out=exp_inf)
                clr = lr / (1 - beta1 ** float(step_t))
                u.addcdiv_(param, exp_avg, exp_inf, -clr)
                u.done(p)
        return loss
