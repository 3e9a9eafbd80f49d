"""``torch.optim.Adadelta``: steps scaled by running averages of squared gradients and of
squared steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _check_lr, _scalar_tensor, _to_scalar

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``v <- rho v + (1 - rho) g^2``, ``dx = sqrt(u + eps)/sqrt(v + eps) g``,
    ``u <- rho u + (1 - rho) dx^2``, ``p <- p - lr dx``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adadelta step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            rho, eps = group["rho"], group["eps"]
            for p in self._with_grad(group, "Adadelta"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["square_avg"] = chainrule.zeros_like(p)
                    state["acc_delta"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                state["step"]._data += 1
                g = u.with_weight_decay(
                    u.grad_of(p, group["maximize"]), param, group["weight_decay"]
                )
                square_avg, acc_delta = (
                    u.pairs(state["square_avg"]._data),
                    u.pairs(state["acc_delta"]._data),
                )
                u.decay_add_square_(square_avg, rho, g)
                std = xp.sqrt(square_avg + eps)
                delta = xp.sqrt(acc_delta + eps)
                delta /= std
                delta *= g
                u.decay_add_square_(acc_delta, rho, delta)
                u.add_scaled_(param, delta, -lr)
                u.done(p)
        return loss
