"""``torch.optim.Rprop``: resilient backpropagation, per-element step sizes grown or shrunk
by the sign agreement of successive gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule

from .._backend import xp
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _check_lr, _scalar_tensor, _to_scalar

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """``s <- clamp(s eta, min, max)`` with ``eta = eta+`` where ``g g_prev > 0``, ``eta-``
    where ``< 0`` (and ``g`` taken as 0 there), 1 elsewhere; ``p <- p - sign(g) s``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Rprop step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in self._with_grad(group, "Rprop"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_tensor(0.0)
                    state["prev"] = chainrule.zeros_like(p)
                    lr = _to_scalar(group["lr"])
                    # a complex parameter's parts are two reals: each starts at lr
                    state["step_size"] = chainrule.full_like(
                        p, complex(lr, lr) if p.is_complex() else lr
                    )
                param = u.pairs(p._data)
                g = u.grad_of(p, group["maximize"])
                state["step"]._data += 1
                prev, step_size = u.pairs(state["prev"]._data), u.pairs(state["step_size"]._data)
                agreement = xp.multiply(g, prev)
                grow, shrink = agreement > 0, agreement < 0
                factor = xp.where(grow, etaplus, xp.where(shrink, etaminus, 1.0))
                step_size *= factor.astype(step_size.dtype)
                xp.clip(step_size, step_size_min, step_size_max, out=step_size)
                g = xp.where(shrink, 0, g).astype(param.dtype)
                param -= xp.sign(g) * step_size
                prev[...] = g
                u.done(p)
        return loss
