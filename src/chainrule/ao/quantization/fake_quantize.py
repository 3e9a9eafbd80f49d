"""``torch.ao.quantization.fake_quantize``: modules that observe their input and fake
quantize it (quantize and dequantize at once, with the straight-through gradient), for
quantization-aware training.

``FusedMovingAvgObsFakeQuantize`` (the default QAT qconfigs' fake quantizer) computes
what PyTorch's fused kernel does, step by step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule as torch

from ... import nn
from ..._quantized import choose_qparams
from .observer import (
    FixedQParamsObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    _with_args,
    _with_callable_args,
    default_fixed_qparams_range_0to1_observer,
    default_fixed_qparams_range_neg1to1_observer,
    is_per_channel,
    is_per_tensor,
)

__all__ = [
    "FakeQuantize",
    "FakeQuantizeBase",
    "FixedQParamsFakeQuantize",
    "FusedMovingAvgObsFakeQuantize",
    "default_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_weight_fake_quant",
    "disable_fake_quant",
    "disable_observer",
    "enable_fake_quant",
    "enable_observer",
]

_INT_RANGES = {"qint8": (-128, 127), "quint8": (0, 255), "qint32": (-(2**31), 2**31 - 1)}
_INT_RANGES.update({"int8": (-128, 127), "uint8": (0, 255), "int32": (-(2**31), 2**31 - 1)})


class FakeQuantizeBase(nn.Module):
    """The base of fake quantizers: the ``fake_quant_enabled``/``observer_enabled`` flags."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.uint8))
        self.register_buffer("observer_enabled", torch.tensor([1], dtype=torch.uint8))

    def forward(self, x: Any) -> Any:
        raise NotImplementedError

    def calculate_qparams(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    def enable_fake_quant(self, enabled: bool = True) -> None:
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self) -> None:
        self.enable_fake_quant(False)

    def enable_observer(self, enabled: bool = True) -> None:
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self) -> None:
        self.enable_observer(False)

    @classmethod
    def with_args(cls, **kwargs: Any) -> Any:
        made = _with_args(cls, **kwargs)
        made.__module__ = "torch.ao.quantization.fake_quantize"
        return made

    with_callable_args = classmethod(_with_callable_args)


class FakeQuantize(FakeQuantizeBase):
    """Observe (``observer``, a MovingAverageMinMaxObserver by default) and fake quantize
    with the scale and zero point the observer gives."""

    def __init__(
        self,
        observer: Any = MovingAverageMinMaxObserver,
        quant_min: int | None = None,
        quant_max: int | None = None,
        is_dynamic: bool = False,
        **observer_kwargs: Any,
    ) -> None:
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            dtype = observer_kwargs.get("dtype", torch.quint8)
            if hasattr(observer, "p"):
                dtype = getattr(observer.p, "keywords", {}).get("dtype", dtype)
            lo, hi = _INT_RANGES[dtype.name]
            if lo > quant_min:
                raise AssertionError("quant_min out of bound")
            if quant_max > hi:
                raise AssertionError("quant_max out of bound")
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        post = self.activation_post_process
        self.quant_min, self.quant_max = post.quant_min, post.quant_max
        self.is_dynamic = post.is_dynamic
        float_qparams = post.qscheme is torch.per_channel_affine_float_qparams
        self.register_buffer("scale", torch.tensor([1.0], dtype=torch.float))
        zp_dtype = torch.float if float_qparams else torch.int
        self.register_buffer("zero_point", torch.tensor([0], dtype=zp_dtype))
        self.dtype = post.dtype
        self.qscheme = post.qscheme
        self.ch_axis = post.ch_axis if hasattr(post, "ch_axis") else -1
        if not (is_per_channel(self.qscheme) or is_per_tensor(self.qscheme)):
            raise AssertionError(
                "Only per channel and per tensor quantization are supported in fake quantize "
                f"got qscheme: {self.qscheme}"
            )
        self.is_per_channel = is_per_channel(self.qscheme)

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        return self.activation_post_process.calculate_qparams()

    def forward(self, X: Any) -> Any:  # noqa: N803
        post = self.activation_post_process
        if self.observer_enabled[0] == 1:
            post(X.detach())
            scale, zero_point = self.calculate_qparams()
            if self.scale.shape != scale.shape:
                self.scale.resize_(scale.shape)
                self.zero_point.resize_(zero_point.shape)
            self.scale.copy_(scale)
            self.zero_point.copy_(zero_point)
        if self.fake_quant_enabled[0] == 1:
            if self.is_per_channel:
                X = torch.fake_quantize_per_channel_affine(
                    X, self.scale, self.zero_point, self.ch_axis, post.quant_min, post.quant_max
                )
            else:
                X = torch.fake_quantize_per_tensor_affine(
                    X, self.scale, self.zero_point, post.quant_min, post.quant_max
                )
        return X

    def extra_repr(self) -> str:
        post = self.activation_post_process
        return (
            f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled="
            f"{self.observer_enabled}, quant_min={post.quant_min}, quant_max={post.quant_max}, "
            f"dtype={self.dtype}, qscheme={self.qscheme}, ch_axis={self.ch_axis}, "
            f"scale={self.scale}, zero_point={self.zero_point}"
        )

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        # (the scale and zero point take the saved shapes: per channel they have one entry each)
        for name in ("scale", "zero_point"):
            key = prefix + name
            if key in state_dict:
                getattr(self, name).resize_(state_dict[key].shape)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class FixedQParamsFakeQuantize(FakeQuantize):
    """Fake quantization with a fixed scale and zero point (a FixedQParamsObserver's)."""

    def __init__(self, observer: Any) -> None:
        super().__init__(observer=observer)
        if type(self.activation_post_process) is not FixedQParamsObserver:
            raise AssertionError(
                f"{self.__class__.__name__}'s observer must be a FixedQParamsObserver"
            )
        self._observer_ctr = observer
        self.scale = self.activation_post_process.scale
        self.zero_point = self.activation_post_process.zero_point
        if not is_per_tensor(self.qscheme):
            raise AssertionError(
                "Only per tensor quantization is supported FixedQParamsFakeQuantize module, "
                f"got qscheme:{self.qscheme}"
            )

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        return self.scale, self.zero_point

    def extra_repr(self) -> str:
        post = self.activation_post_process
        return (
            f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled="
            f"{self.observer_enabled}, scale={self.scale}, zero_point={self.zero_point}, "
            f"dtype={self.dtype}, quant_min={post.quant_min}, quant_max={post.quant_max}, "
            f"qscheme={self.qscheme}"
        )


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """The moving-average observer and the fake quantizer in one step, as PyTorch's fused
    kernel (``torch.fused_moving_avg_obs_fake_quant``) computes them: the running minimum
    and maximum move by ``averaging_constant`` (set outright the first time), and the scale
    and zero point are chosen as PyTorch's CPU kernels choose them (symmetric schemes keep
    zero in the middle: ``scale = max(-min / 128, max / 127)`` for qint8), which is not
    quite the observer's ``calculate_qparams``."""

    def __init__(
        self,
        observer: Any = MovingAverageMinMaxObserver,
        quant_min: int = 0,
        quant_max: int = 255,
        **observer_kwargs: Any,
    ) -> None:
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        if not isinstance(
            self.activation_post_process,
            (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver),
        ):
            raise AssertionError(
                "Fused observer+fake_quant module only works with MovingAverageMinMaxObserver"
            )
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.long))
        self.register_buffer("observer_enabled", torch.tensor([1], dtype=torch.long))
        self.is_symmetric_quant = self.qscheme in (
            torch.per_tensor_symmetric,
            torch.per_channel_symmetric,
        )

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        return self.activation_post_process.calculate_qparams()

    def extra_repr(self) -> str:
        post = self.activation_post_process
        return (
            f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled="
            f"{self.observer_enabled}, scale={self.scale}, zero_point={self.zero_point}, "
            f"dtype={self.dtype}, quant_min={post.quant_min}, quant_max={post.quant_max}, "
            f"qscheme={self.qscheme}, reduce_range={post.reduce_range}"
        )

    def _observe(self, X: Any) -> None:  # noqa: N803
        post = self.activation_post_process
        if self.is_per_channel and self.ch_axis != 0:
            raise RuntimeError(
                "Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is only supported on "
                "axis == 0 (make the observer with ch_axis=0)"
            )
        x = X.detach().to(torch.float32).numpy()
        if self.is_per_channel:
            rows = np.moveaxis(x, self.ch_axis, 0).reshape(x.shape[self.ch_axis], -1)
            cur_lo, cur_hi = rows.min(axis=1), rows.max(axis=1)
        else:
            cur_lo, cur_hi = x.min(), x.max()
        lo, hi = post.min_val.numpy(), post.max_val.numpy()
        first = lo.size == 0 or (np.isinf(lo).all() and np.isinf(hi).all())
        if not first:
            c = np.float32(post.averaging_constant)
            cur_lo = (lo + c * (cur_lo - lo)).astype(np.float32)
            cur_hi = (hi + c * (cur_hi - hi)).astype(np.float32)
        new_lo = torch.from_numpy(np.asarray(cur_lo, dtype=np.float32).copy())
        new_hi = torch.from_numpy(np.asarray(cur_hi, dtype=np.float32).copy())
        post.min_val.resize_(new_lo.shape)
        post.max_val.resize_(new_hi.shape)
        post.min_val.copy_(new_lo)
        post.max_val.copy_(new_hi)

    def _choose(self) -> None:
        """The scale and zero point from the running range (only while fake quantizing)."""
        post = self.activation_post_process
        cur_lo, cur_hi = post.min_val.numpy(), post.max_val.numpy()
        pairs = zip(np.atleast_1d(cur_lo), np.atleast_1d(cur_hi), strict=True)
        chosen = [
            choose_qparams(
                float(a), float(b), post.quant_min, post.quant_max, False, self.is_symmetric_quant
            )
            for a, b in pairs
        ]
        scale = torch.tensor([s for s, _ in chosen], dtype=torch.float32)
        zero_point = torch.tensor([z for _, z in chosen], dtype=torch.int32)
        if self.scale.shape != scale.shape:
            self.scale.resize_(scale.shape)
            self.zero_point.resize_(zero_point.shape)
        self.scale.copy_(scale)
        self.zero_point.copy_(zero_point)

    def forward(self, X: Any) -> Any:  # noqa: N803
        post = self.activation_post_process
        if self.observer_enabled[0] == 1:
            self._observe(X)
        if self.fake_quant_enabled[0] != 1:
            return X
        if self.observer_enabled[0] == 1:
            self._choose()
        if self.is_per_channel:
            return torch.fake_quantize_per_channel_affine(
                X, self.scale, self.zero_point, self.ch_axis, post.quant_min, post.quant_max
            )
        return torch.fake_quantize_per_tensor_affine(
            X, self.scale, self.zero_point, post.quant_min, post.quant_max
        )


def _apply_to(mod: Any, name: str) -> None:
    if isinstance(mod, FakeQuantizeBase):
        getattr(mod, name)()


def disable_fake_quant(mod: Any) -> None:
    """For ``model.apply``: turn fake quantization off in a FakeQuantize module."""
    _apply_to(mod, "disable_fake_quant")


def enable_fake_quant(mod: Any) -> None:
    _apply_to(mod, "enable_fake_quant")


def disable_observer(mod: Any) -> None:
    _apply_to(mod, "disable_observer")


def enable_observer(mod: Any) -> None:
    _apply_to(mod, "enable_observer")


default_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=0,
    quant_max=255,
    dtype=torch.quint8,
    qscheme=torch.per_tensor_affine,
    reduce_range=True,
)
default_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric,
    reduce_range=False,
)
default_dynamic_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=0,
    quant_max=255,
    is_dynamic=True,
    dtype=torch.quint8,
    averaging_constant=1,
)
default_fixed_qparams_range_neg1to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_neg1to1_observer
)
default_fixed_qparams_range_0to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_0to1_observer
)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=torch.qint8,
    qscheme=torch.per_channel_symmetric,
    reduce_range=False,
    ch_axis=0,
)
default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=torch.quint8
)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric,
)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=torch.qint8,
    qscheme=torch.per_channel_symmetric,
)
