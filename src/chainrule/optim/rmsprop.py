"""``torch.optim.RMSprop``: gradients scaled by a running root mean square, optionally
centered and with momentum."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _check_lr, _scalar_tensor, _to_scalar

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``v <- a v + (1 - a) g^2``; ``d = sqrt(v - gbar^2) + eps`` (centered, ``gbar <-
    lerp(gbar, g, 1 - a)``) or ``sqrt(v) + eps``; ``b <- mu b + g/d``, ``p <- p - lr b``
    (momentum) or ``p <- p - lr g/d``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RMSprop step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            alpha, momentum = group["alpha"], group["momentum"]
            for p in self._with_grad(group, "RMSprop"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["square_avg"] = chainrule.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = chainrule.zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                g = u.grad_of(p, group["maximize"])
                step_t = state["step"]._data
                step_t += 1
                g = u.with_weight_decay(g, param, group["weight_decay"])
                square_avg = u.pairs(state["square_avg"]._data)
                u.decay_add_square_(square_avg, alpha, g)
                if group["centered"]:
                    grad_avg = u.pairs(state["grad_avg"]._data)
                    u.lerp_(grad_avg, g, 1 - alpha)
                    avg = u.fresh(xp.sqrt(u.addcmul(square_avg, grad_avg, grad_avg, -1)))
                else:
                    avg = u.fresh(xp.sqrt(square_avg))
                u.add_(avg, group["eps"])
                if momentum > 0:
                    buf = u.pairs(state["momentum_buffer"]._data)
                    u.mul_(buf, momentum)
                    u.addcdiv_(buf, g, avg, 1)
                    u.add_scaled_(param, buf, -lr)
                else:
                    u.addcdiv_(param, g, avg, -lr)
                u.done(p)
        return loss
