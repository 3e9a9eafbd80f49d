"""``torch.optim.Adagrad``: gradients scaled by the root of their accumulated squares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from . import _sparse
from . import _updates as u
from .optimizer import (
    Optimizer,
    ParamsT,
    _check_fused,
    _check_lr,
    _lr_number,
    _scalar_tensor,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``s <- s + g^2``, ``p <- p - lr/(1 + (t - 1) lr_decay) g/(sqrt(s) + eps)``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)
        for group in self.param_groups:  # PyTorch makes Adagrad's state up front
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_tensor(0.0)
                value = initial_accumulator_value  # a complex parameter: for both its parts
                state["sum"] = chainrule.full_like(
                    p, complex(value, value) if p.is_complex() else value
                )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adagrad step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _lr_number(group["lr"])
            for p in self._with_grad(group, "Adagrad"):
                state = self.state[p]
                param = u.pairs(p._data)
                step_t = state["step"]._data
                step_t += 1
                if _sparse.is_sparse(p.grad):
                    clr = lr / (1 + (float(step_t) - 1) * group["lr_decay"])
                    _sparse.adagrad(p, state, group, clr)
                    continue
                g = u.with_weight_decay(
                    u.grad_of(p, group["maximize"]), param, group["weight_decay"]
                )
                clr = lr / (1 + (float(step_t) - 1) * group["lr_decay"])
                state_sum = u.pairs(state["sum"]._data)
                u.addcmul_(state_sum, g, g, 1)
                std = u.fresh(xp.sqrt(state_sum))
                u.add_(std, group["eps"])
                u.addcdiv_(param, g, std, -clr)
                u.done(p)
        return loss
