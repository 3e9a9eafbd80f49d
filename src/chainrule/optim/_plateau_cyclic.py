"""The schedulers of ``torch.optim.lr_scheduler`` that do more than scale the rate:
``ReduceLROnPlateau`` (driven by a metric), ``CyclicLR`` and ``OneCycleLR`` (which also
cycle the momentum), ``CosineAnnealingWarmRestarts`` (its own epoch arithmetic)."""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, SupportsFloat

from .lr_scheduler import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _check_optimizer,
    _flag,
    _group_values,
    _per_group,
    _set_group_value,
    _warn_get_lr_outside_step,
)
from .optimizer import Optimizer

__all__ = ["CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR", "ReduceLROnPlateau"]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rates by ``factor`` once the metric has not improved (by
    ``threshold``, relative or absolute) for more than ``patience`` epochs; then wait
    ``cooldown`` epochs; never below ``min_lr``."""

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(self.optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record this epoch's metric; reduce the rates after too many bad epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch: int) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(groups)}) differs from when `ReduceLROnPlateau` was initialized "
                    f"({len(self.min_lrs)}), usually due to a new param group being added to "
                    "the optimizer. Please modify the `min_lrs` field to match the length "
                    "of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return a < best * (1.0 - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(
            mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode
        )


def _set_momentum(group: dict[str, Any], use_beta1: bool, momentum: float) -> None:
    """Write the momentum: the first of ``betas`` (Adam-like) or ``momentum``."""
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _init_momentum(
    scheduler: Any, optimizer: Optimizer, base_momentum: Any, max_momentum: Any, fresh: bool
) -> tuple[list[Any], list[Any]]:
    """Check the optimizer has a momentum; set each group's to its maximum (when fresh)
    and record ``max_momentum``/``base_momentum`` in the groups."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    scheduler.use_beta1 = "betas" in optimizer.defaults
    base = _per_group("base_momentum", optimizer, base_momentum)
    top = _per_group("max_momentum", optimizer, max_momentum)
    if fresh:
        for m, b, group in zip(top, base, optimizer.param_groups):
            _set_momentum(group, scheduler.use_beta1, m)
            group["max_momentum"] = m
            group["base_momentum"] = b
    return base, top


class CyclicLR(LRScheduler):
    """The rate cycles between ``base_lr`` and ``max_lr`` (triangular, halving each cycle,
    or exponentially damped, or ``scale_fn``); the momentum the opposite way."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _init_momentum(
                self, optimizer, base_momentum, max_momentum, last_epoch == -1
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base + ((top - base) * scale_factor) * scale
            for base, top in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, base, top in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                _set_momentum(group, self.use_beta1, top - ((top - base) * scale_factor) * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from ``base_lr`` to ``eta_min`` over ``T_i`` epochs, restarting;
    each period ``T_mult`` times the last."""

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        low = self.eta_min
        return [
            low + (base - low) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base in self.base_lrs
        ]

    def step(self, epoch: Any = None) -> None:
        """Advance one epoch, or go to ``epoch`` (a float for a fraction of one)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** (n)
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _flag(self, "_get_lr_called_within_step"):
            for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
                _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate rises from ``max_lr/div_factor`` to ``max_lr`` over
    ``pct_start`` of the steps, then anneals (cosine or linear) to
    ``initial_lr/final_div_factor``; the momentum the opposite way."""

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        self._schedule_phases = self._phases(pct_start, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, self.optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch == -1)
        super().__init__(optimizer, last_epoch)

    def _phases(self, pct_start: float, three_phase: bool) -> list[dict[str, Any]]:
        """Each phase: the step it ends at and the group keys it goes from and to."""

        def phase(end: float, lr: tuple[str, str], momentum: tuple[str, str]) -> dict:
            return {
                "end_step": end,
                "start_lr": lr[0],
                "end_lr": lr[1],
                "start_momentum": momentum[0],
                "end_momentum": momentum[1],
            }

        rise = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            return [
                phase(rise, ("initial_lr", "max_lr"), ("max_momentum", "base_momentum")),
                phase(
                    float(2 * pct_start * self.total_steps) - 2,
                    ("max_lr", "initial_lr"),
                    ("base_momentum", "max_momentum"),
                ),
                phase(last, ("initial_lr", "min_lr"), ("max_momentum", "max_momentum")),
            ]
        return [
            phase(rise, ("initial_lr", "max_lr"), ("max_momentum", "base_momentum")),
            phase(last, ("max_lr", "min_lr"), ("base_momentum", "max_momentum")),
        ]

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        """Cosine from ``start`` to ``end`` as ``pct`` goes from 0 to 1."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        """Linear from ``start`` to ``end`` as ``pct`` goes from 0 to 1."""
        return (end - start) * pct + start

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        phases = self._schedule_phases
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(
                        self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    )
                    if self.cycle_momentum:
                        momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                        _set_momentum(group, self.use_beta1, momentum)
                    break
                start_step = phase["end_step"]
        return lrs
