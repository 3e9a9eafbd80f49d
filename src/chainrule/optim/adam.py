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
    _lr_number,
    _over,
    _scalar_tensor,
)

__all__ = ["Adam", "AdamW"]


def _check_adam(lr: Any, betas: Any, eps: float, weight_decay: float, eager: bool) -> tuple:
    """Adam's checks in PyTorch's order; the betas as given, a tensor one as 0-d. ``eager``:
    the foreach form without capturable, which takes no tensor lr or betas."""
    if isinstance(lr, chainrule.Tensor) and eager:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    _check_adam_family(lr, eps, betas, weight_decay)
    if not (
        (isinstance(betas[0], float) and isinstance(betas[1], float))
        or (isinstance(betas[0], chainrule.Tensor) and isinstance(betas[1], chainrule.Tensor))
    ):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas):
        if isinstance(beta, chainrule.Tensor):
            if eager:
                raise ValueError(
                    f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True"
                )
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(b.squeeze() if isinstance(b, chainrule.Tensor) else b for b in betas)


def _is_number(x: Any) -> bool:
    """Whether ``x`` is a NumPy scalar (a tensor hyperparameter)."""
    return isinstance(x, xp.generic)


def _power(base: Any, exponent: float) -> Any:
    """``base ** exponent`` as PyTorch's power of a 0-d tensor (here a NumPy scalar): in
    float64, rounded once to the base's dtype."""
    if _is_number(base):
        return type(base)(float(base) ** exponent)
    return base**exponent


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
        betas = _check_adam(lr, betas, eps, weight_decay, bool(foreach) and not capturable)
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
            lr = _lr_number(group["lr"])
            beta1, beta2 = map(_lr_number, group["betas"])
            if group["foreach"] and isinstance(group["lr"], chainrule.Tensor):
                if not group["capturable"] and self._with_grad(group, type(self).__name__):
                    raise RuntimeError(
                        "lr as a Tensor is not supported for capturable=False and foreach=True"
                    )
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
                # (a tensor beta1 is first cast to the parameter's dtype)
                weight = 1 - (exp_avg.dtype.type(beta1) if _is_number(beta1) else beta1)
                u.lerp_(exp_avg, g, weight)
                u.decay_add_square_(exp_avg_sq, beta2, g)
                step = float(step_t)
                step_size = _over(lr, 1 - _power(beta1, step))
                bias_correction2_sqrt = _power(1 - _power(beta2, step), 0.5)
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
