"""``torch.optim.lr_scheduler``: learning-rate schedules that rewrite the ``lr`` of an
optimizer's groups at each ``step()``.

Most schedules are chainable, as PyTorch's are: ``get_lr`` derives the next rate from the
group's current one, so several schedulers can act on the same optimizer; the
``_get_closed_form_lr`` formulas answer ``step(epoch)``. A scheduler's state (``state_dict``)
is its ``__dict__`` without the optimizer, under PyTorch's attribute names.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from functools import wraps
from typing import Any
from weakref import ref

from .._tensor import Tensor
from .optimizer import Optimizer, _to_scalar

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def _per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    """One value per parameter group: a list or tuple of that length, or one value."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(value)} values, param_groups has {n}."
            )
        return [_copy(v) for v in value]
    return [_copy(value)] * n


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """Write a group's hyperparameter (filling a tensor hyperparameter in place)."""
    if isinstance(group[key], Tensor):
        group[key].fill_(_to_scalar(value))
    else:
        group[key] = value


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Callable[[int], float]]:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


@contextmanager
def _flag(scheduler: LRScheduler, name: str) -> Any:
    """Set the scheduler's attribute ``name`` to True for the duration (as PyTorch's)."""
    setattr(scheduler, name, True)
    try:
        yield
    finally:
        setattr(scheduler, name, False)


def _warn_get_lr_outside_step(scheduler: LRScheduler) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=3,
        )


def _mark_optimizer_steps(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` (once) so it records that it ran (``_opt_called``), for the
    warning about calling ``scheduler.step()`` first."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(optimizer)
    func = optimizer.step.__func__  # type: ignore[attr-defined]

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """Base class: ``base_lrs`` (the groups' ``initial_lr``), ``last_epoch``, ``step()``
    writing ``get_lr()`` into the groups, ``get_last_lr()``."""

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run "
                        "(not recommended)"
                    )
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """The step a scheduler takes when made: epoch 0's rates."""
        self._step_count = 0
        with _flag(self, "_is_initial"):
            self.step()

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """The rates the last ``step`` set."""
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The rates for ``last_epoch`` (each scheduler defines it)."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated) and set the groups' rates."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _flag(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = _group_values(self.optimizer, "lr")

    def _current(self) -> list[Any]:
        return _group_values(self.optimizer, "lr")

    def _scaled(self, factor: float) -> list[Any]:
        return [group["lr"] * factor for group in self.optimizer.param_groups]


class _LRScheduler(LRScheduler):
    """The old name of ``LRScheduler``."""


class _LambdaState:
    """``state_dict`` for schedulers holding ``lr_lambdas``: a callable object's
    ``__dict__`` is saved, a plain function is not (None)."""

    lr_lambdas: list[Callable[[int], float]]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaState, LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)``."""

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """``lr <- lr * lr_lambda(epoch)`` (from epoch 1)."""

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self._is_initial:
            return self._current()
        return [
            group["lr"] * fn(self.last_epoch)
            for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class StepLR(LRScheduler):
    """``lr = base_lr * gamma ** (epoch // step_size)``."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``lr = base_lr * gamma ** (number of milestones reached)``."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch not in self.milestones:
            return self._current()
        return self._scaled(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self) -> list[Any]:
        milestones = sorted(self.milestones.elements())
        return [
            base * self.gamma ** bisect_right(milestones, self.last_epoch) for base in self.base_lrs
        ]


class ConstantLR(LRScheduler):
    """``lr = base_lr * factor`` until ``total_iters``, then ``base_lr``."""

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch == 0:
            return self._scaled(self.factor)
        if self.last_epoch != self.total_iters:
            return self._current()
        return self._scaled(1.0 / self.factor)

    def _get_closed_form_lr(self) -> list[Any]:
        reached = self.last_epoch >= self.total_iters
        return [base * (self.factor + reached * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor goes linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs."""

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self.last_epoch == 0:
            return self._scaled(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return self._scaled(ratio)

    def _get_closed_form_lr(self) -> list[Any]:
        span = self.end_factor - self.start_factor
        done = min(self.total_iters, self.last_epoch)
        return [
            base * (self.start_factor + span * done / self.total_iters) for base in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """``lr = base_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self._is_initial:
            return self._current()
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr = base_lr * (1 - min(epoch, total_iters)/total_iters) ** power``."""

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        now = 1.0 - self.last_epoch / self.total_iters
        before = 1.0 - (self.last_epoch - 1) / self.total_iters
        return self._scaled((now / before) ** self.power)

    def _get_closed_form_lr(self) -> list[Any]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``lr = eta_min + (base_lr - eta_min)(1 + cos(pi epoch / T_max))/2``, taken as the
    ratio of successive values (chainable)."""

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_outside_step(self)
        t, t_max, low = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return [
                low + (base - low) * (1 + math.cos(t * math.pi / t_max)) / 2
                for base in self.base_lrs
            ]
        if (t - 1 - t_max) % (2 * t_max) == 0:
            return [
                group["lr"] + (base - low) * (1 - math.cos(math.pi / t_max)) / 2
                for base, group in zip(self.base_lrs, groups)
            ]
        ratio = (1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
        return [ratio * (group["lr"] - low) + low for group in groups]

    def _get_closed_form_lr(self) -> list[Any]:
        t, low = self.last_epoch, self.eta_min
        return [
            low + (base - low) * (1 + math.cos(math.pi * t / self.T_max)) / 2
            for base in self.base_lrs
        ]


def _check_sub_schedulers(owner: str, optimizer: Any, schedulers: Sequence[Any]) -> None:
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it "
                "requires additional kwargs to be specified when calling `step`, "
                f"but got one at index {i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but "
                f"got scheduler {scheduler.__class__.__name__} at index {i} has "
                f"{scheduler.optimizer}, which is different from "
                f"{optimizer.__class__.__name__}."
            )


class _Composite:
    """``state_dict`` for schedulers made of schedulers: theirs nested under
    ``_schedulers``."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = schedulers
        for scheduler, saved in zip(self._schedulers, schedulers):
            scheduler.load_state_dict(saved)


class SequentialLR(_Composite, LRScheduler):
    """One scheduler after another, switching at the ``milestones`` (each restarts from
    epoch 0 there)."""

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_sub_schedulers(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo the sub-schedulers' initial steps
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Take one epoch off every (nested) scheduler's ``last_epoch``."""
        target = self if sched is None else sched
        if hasattr(target, "_schedulers"):
            for s in target._schedulers:
                self.recursive_undo(s)
        elif hasattr(target, "last_epoch"):
            target.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Step the scheduler in charge (restarting it at its milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Every scheduler steps at each ``step()``, in order (their effects compose)."""

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_sub_schedulers(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


from ._plateau_cyclic import (  # noqa: E402 - they subclass LRScheduler, defined above
    CosineAnnealingWarmRestarts,
    CyclicLR,
    OneCycleLR,
    ReduceLROnPlateau,
)
