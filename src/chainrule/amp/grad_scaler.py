"""``torch.amp.GradScaler``: loss scaling, so that small float16 gradients do not flush to 0.

The loss is multiplied by a scale s before backward, so every gradient is s·∂L/∂θ;
``unscale_`` multiplies the gradients by 1/s (computed in float64, rounded to float32, as
PyTorch) and notes whether any is inf or nan; ``step`` skips the optimizer's step when one
was; ``update`` then sets s ← s·backoff_factor after a skipped step, s ← s·growth_factor
after ``growth_interval`` unskipped steps in a row (if that stays finite in float32).

As PyTorch's on a machine without CUDA: device="cuda" warns and disables the scaler.
Differs from PyTorch: an optimizer that declares ``_step_supports_amp_scaling`` (PyTorch's
fused optimizers, which unscale inside their step) is treated like any other (chainrule's
optimizers declare none); sparse gradients are not handled.
"""

from __future__ import annotations

import enum
import warnings
from collections import defaultdict
from typing import Any

import numpy as np

from .. import _dtypes
from .._tensor import Tensor
from ..autograd import grad_mode


class OptState(enum.Enum):
    """Where an optimizer is in the iteration: nothing yet, gradients unscaled, stepped."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_FIX = (
    "This may indicate your script did not use scaler.scale(loss or outputs) earlier in "
    "the iteration."
)


class GradScaler:
    """Scales the loss, unscales gradients, skips steps with inf/nan gradients, adapts s."""

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda":
            from .. import cuda

            if enabled and not cuda.is_available():
                warnings.warn(
                    "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                    stacklevel=2,
                )
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Tensor | None = None  # made by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states: dict = defaultdict(_fresh_state)

    # ----- the scale ---------------------------------------------------------------

    def _lazy_init_scale_growth_tracker(self) -> None:
        from .._creation import full

        self._scale = full((), self._init_scale, dtype=_dtypes.float32)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtypes.int32)

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Tensor, Tensor]:
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _FIX)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + _FIX)
        return self._scale, self._growth_tracker

    def scale(self, outputs: Any) -> Any:
        """``outputs`` · s: a tensor, or the tensors of nested lists and tuples (another
        iterable gives a lazy map); unchanged when the scaler is disabled."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker()
            return outputs * self._scale

        def apply_scale(val: Any) -> Any:
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker()
                return val * self._scale
            if hasattr(val, "__iter__"):
                scaled = map(apply_scale, val)
                return type(val)(scaled) if isinstance(val, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    # ----- unscaling and stepping ------------------------------------------------------

    def _unscale_grads_(self, optimizer: Any, inv_scale: Tensor, allow_fp16: bool) -> dict:
        """Multiply every gradient by 1/s in place; {device: 1.0 if any was inf or nan}."""
        found = False
        seen = False
        with grad_mode.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(
                            f"expected param to be torch.Tensor, got {type(param).__name__}"
                        )
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad._dtype is _dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    seen = True
                    if not np.isfinite(grad._data).all():
                        found = True
                    grad.mul_(inv_scale)
        if not seen:
            return {}
        from .._creation import full

        return {"cpu": full((), 1.0 if found else 0.0, dtype=_dtypes.float32)}

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by s in place (once per optimizer per step)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step(*args, **kwargs)`` on unscaled gradients, unless one was inf or
        nan: then nothing, and None."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Back off s after a skipped step, grow it after ``growth_interval`` good ones, or
        set it to ``new_scale``; then start a new iteration."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                if not isinstance(new_scale, Tensor) or new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [
                found
                for state in self._per_optimizer_states.values()
                for found in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(scale, tracker, sum(f.item() for f in found_infs) > 0)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def _update_scale(self, scale: Tensor, tracker: Tensor, found_inf: bool) -> None:
        """s ← s·backoff and 0 good steps after an inf; else one more good step, and at
        ``growth_interval`` of them s ← s·growth (kept only if finite in float32)."""
        s = np.float32(scale.item())
        if found_inf:
            scale.fill_(float(np.float32(float(s) * self._backoff_factor)))
            tracker.fill_(0)
            return
        successful = tracker.item() + 1
        if successful == self._growth_interval:
            grown = np.float32(float(s) * self._growth_factor)
            if np.isfinite(grown):
                scale.fill_(float(grown))
            tracker.fill_(0)
        else:
            tracker.fill_(successful)

    # ----- settings and state ------------------------------------------------------------

    def _get_scale_async(self) -> Tensor | None:
        return self._scale

    def get_scale(self) -> float:
        """s as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            if self._growth_tracker is None:
                return self._init_growth_tracker
            return self._growth_tracker.item()
        return 0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} when
        disabled), PyTorch's keys."""
        if self._enabled:
            return {
                "scale": self.get_scale(),
                "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker(),
            }
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict`` (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
