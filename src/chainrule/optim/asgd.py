"""``torch.optim.ASGD``: averaged stochastic gradient descent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _check_lr, _lr_number, _over, _scalar_tensor

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``p <- p (1 - lambd eta) - eta g``; ``ax <- ax + mu (p - ax)``;
    ``eta = lr/(1 + lambd lr t)^alpha``, ``mu = 1/max(1, t - t0)``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One ASGD step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _lr_number(group["lr"])
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            for p in self._with_grad(group, "ASGD"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["eta"] = _scalar_tensor(lr)
                    state["mu"] = _scalar_tensor(1.0)
                    state["ax"] = chainrule.zeros_like(p)
                param = u.pairs(p._data)
                g = u.grad_of(p, group["maximize"])
                step_t, eta, mu = (state[k]._data for k in ("step", "eta", "mu"))
                ax = u.pairs(state["ax"]._data)
                step_t += 1
                g = u.with_weight_decay(g, param, group["weight_decay"])
                eta_value = float(eta)
                u.mul_(param, 1 - lambd * eta_value)
                u.add_scaled_(param, g, -eta_value)
                if float(mu) != 1:
                    diff = u.fresh(xp.subtract(param, ax))
                    u.mul_(diff, float(mu))
                    ax += diff
                else:
                    ax[...] = param
                step = float(step_t)
                # PyTorch's foreach form computes eta with the 0-d step tensor
                t = step_t[()] if group["foreach"] else step
                eta[...] = _new_scalar(_eta(lr, lambd, alpha, t))
                mu[...] = _new_scalar(1 / max(1, step - t0))
                u.done(p)
        return loss


def _eta(lr: Any, lambd: float, alpha: float, step: Any) -> Any:
    """``lr / (1 + lambd lr step)^alpha`` as PyTorch evaluates it: where ``lr`` or ``step``
    is a 0-d tensor (here a NumPy scalar), in that tensor's dtype, its power rounded from
    float64."""
    base = 1 + lambd * lr * step
    if not isinstance(base, xp.generic):
        return lr / base**alpha
    return _over(lr, type(base)(float(base) ** alpha))


def _new_scalar(value: float) -> Any:
    """``torch.as_tensor(value)``: the value rounded to the default dtype."""
    return chainrule.as_tensor(value)._data
