"""``torch.optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov,
weight decay and maximize."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._layout import strided
from .._tensor import Tensor
from ..nn.parameter import Parameter
from . import _sparse
from . import _updates as u
from .optimizer import Optimizer, ParamsT, _check_fused, _check_lr, _to_scalar

__all__ = ["SGD"]


class SGD(Optimizer):
    """``g <- g + wd p``; ``b <- momentum b + (1 - dampening) g`` (``b = g`` first);
    ``g <- g + momentum b`` (Nesterov) or ``b``; ``p <- p - lr g``."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One SGD step on every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            momentum, dampening = group["momentum"], group["dampening"]
            if momentum == 0 and group["weight_decay"] == 0 and not group["maximize"]:
                _plain_step(group["params"], -lr)
                continue
            for p in self._with_grad(group, "SGD"):
                if _sparse.is_sparse(p.grad):
                    # (the state is touched only with momentum, as in PyTorch)
                    _sparse.sgd(p, self.state[p] if momentum != 0 else {}, group, lr)
                    continue
                param = u.pairs(p._data)
                g = u.with_weight_decay(
                    u.grad_of(p, group["maximize"]), param, group["weight_decay"]
                )
                if momentum != 0:
                    state = self.state[p]
                    if state.get("momentum_buffer") is None:
                        state["momentum_buffer"] = p.grad.detach().clone()
                        buf = u.pairs(state["momentum_buffer"]._data)
                        buf[...] = g
                    else:
                        buf = u.pairs(state["momentum_buffer"]._data)
                        u.mul_(buf, momentum)
                        u.add_scaled_(buf, g, 1 - dampening)
                    g = u.scaled_sum(g, buf, momentum) if group["nesterov"] else buf
                u.add_scaled_(param, g, -lr)
                u.done(p)
        return loss


def _plain_step(params: list, alpha: float) -> None:
    """``p <- p + alpha g`` for each parameter with a gradient (no momentum, weight decay or
    maximize): the general loop's update (``_updates.add_scaled_``, then the version bump)
    without the steps that do nothing here. tests/nn/test_mlp_fast_paths.py pins it."""
    for p in params:
        g = p._grad  # (an optimizer's parameters are leaves: .grad without its warning)
        if g is None and p.__class__ is not Parameter and p.layout is not strided:
            g = p.grad  # (a sparse parameter keeps its gradient with its values)
        if g is not None:
            if g.__class__ is not Tensor and g.is_sparse:  # (an embedding's: optim/_sparse.py)
                p.detach().add_(g, alpha=alpha)
                continue
            u.add_scaled_(p._data, g._data, alpha)
            p._bump()
