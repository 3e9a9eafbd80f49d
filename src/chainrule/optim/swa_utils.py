"""``torch.optim.swa_utils``: weight averaging (``AveragedModel`` for SWA and EMA), the
``SWALR`` schedule, and ``update_bn`` to recompute batch-norm statistics for averaged
weights."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

import chainrule

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An in-place EMA over lists of tensors: ``ema <- lerp(ema, p, 1 - decay)``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_params: list[Tensor], current_params: list[Tensor], _: Any) -> None:
        floating = ema_params[0].is_floating_point()
        for p_ema, p_model in zip(ema_params, current_params):
            if floating:
                p_ema.lerp_(p_model, 1 - decay)
            else:
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """An in-place running mean over lists of tensors:
    ``avg <- lerp(avg, p, 1/(n + 1))``."""

    @no_grad()
    def swa_update(
        averaged_params: list[Tensor], current_params: list[Tensor], num_averaged: Any
    ) -> None:
        floating = averaged_params[0].is_floating_point()
        for p_avg, p_model in zip(averaged_params, current_params):
            if floating:
                p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
            elif isinstance(num_averaged, Tensor):
                p_avg.addcdiv_(p_model - p_avg, num_averaged + 1)
            else:
                p_avg.add_(p_model - p_avg, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """EMA of one tensor: ``decay * ema + (1 - decay) * p``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """Running mean of one tensor: ``avg + (p - avg)/(n + 1)``."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are the
    running average (SWA by default, or ``avg_fn``/``multi_avg_fn``) of the model's at each
    ``update_parameters``; ``n_averaged`` counts the updates."""

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", chainrule.tensor(0, dtype=chainrule.long))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module, own: bool) -> Iterable[Tensor]:
        if self.use_buffers:
            return itertools.chain(model.parameters(), model.buffers())
        return self.parameters() if own else model.parameters()

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters into the average (copy them the first time)."""
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(self._tensors(self.module, True), self._tensors(model, False)):
            averaged.append(p_avg.detach())
            current.append(p_model.detach())
            if first:
                with no_grad():
                    p_avg.detach().copy_(p_model.detach())
        if self.n_averaged > 0:
            with no_grad():
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(averaged, current, self.n_averaged)
                else:
                    avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                    for p_avg, p_model in zip(averaged, current):
                        p_avg.copy_(avg_fn(p_avg, p_model, self.n_averaged))
        if not self.use_buffers:
            with no_grad():
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach())
        with no_grad():
            self.n_averaged += 1


def _is_batch_norm(module: Module) -> bool:
    """Whether ``module`` is a batch-norm layer (a subclass of ``_BatchNorm``)."""
    return any(cls.__name__ == "_BatchNorm" for cls in type(module).__mro__)


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of ``model``'s batch-norm layers over ``loader``
    (a cumulative average: momentum None), in training mode, with no grad; the model's
    mode and the layers' momenta are restored."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if _is_batch_norm(module):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's rate to ``swa_lr`` over ``anneal_epochs`` (cosine or linear),
    then hold it."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The rate the annealing started from, given the rate ``lr`` at weight ``alpha``."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, "
                "please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / span)))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
