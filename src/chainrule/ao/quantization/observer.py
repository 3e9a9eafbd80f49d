"""``torch.ao.quantization.observer``: modules that watch the values passing through and
choose a scale and zero point for them (``calculate_qparams``).

The min/max observers keep the running minimum and maximum (per tensor or per channel,
optionally as a moving average) in float32 buffers; ``calculate_qparams`` turns them into
PyTorch's quantization parameters: the range always includes 0; affine schemes spread it
over ``[quant_min, quant_max]`` (``zero_point = quant_min - round(min / scale)``,
clamped), symmetric ones center it (zero point 0, or 128 for quint8), and the scale is at
least ``eps``. ``reduce_range`` drops one bit (qint8 -64..63, quint8 0..127).
``HistogramObserver`` keeps a histogram and searches it for the range of least
quantization error.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import numpy as np

import chainrule as torch

from ... import nn

__all__ = [
    "FixedQParamsObserver",
    "HistogramObserver",
    "MinMaxObserver",
    "MovingAverageMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver",
    "NoopObserver",
    "ObserverBase",
    "PerChannelMinMaxObserver",
    "PlaceholderObserver",
    "UniformQuantizationObserverBase",
    "default_dynamic_quant_observer",
    "default_float_qparams_observer",
    "default_observer",
    "default_per_channel_weight_observer",
    "default_placeholder_observer",
    "default_weight_observer",
]

_EPS = 1.1920928955078125e-07  # torch.finfo(torch.float32).eps


class _PartialWrapper:
    """What ``with_args`` gives: calling it makes a new instance with those arguments."""

    def __init__(self, p: Any) -> None:
        self.p = p
        self.callable_args: dict = {}

    def __call__(self, *args: Any, **keywords: Any) -> Any:
        made = {k: f() for k, f in self.callable_args.items() if k not in keywords}
        return self.p(*args, **made, **keywords)

    def __repr__(self) -> str:
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs: Any) -> _PartialWrapper:
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs: Any) -> _PartialWrapper:
        out = _PartialWrapper(p=self.p)
        out.callable_args = {**self.callable_args, **kwargs}
        return out


def _with_args(cls_or_self: Any, **kwargs: Any) -> _PartialWrapper:
    return _PartialWrapper(partial(cls_or_self, **kwargs))


def _with_callable_args(cls_or_self: Any, **kwargs: Any) -> _PartialWrapper:
    return _PartialWrapper(partial(cls_or_self)).with_callable_args(**kwargs)


def _factory(factory_kwargs: Any) -> dict:
    return {k: v for k, v in (factory_kwargs or {}).items() if k in ("device", "dtype")}


def is_per_tensor(qscheme: Any) -> bool:
    return qscheme in (torch.per_tensor_affine, torch.per_tensor_symmetric)


def is_per_channel(qscheme: Any) -> bool:
    return qscheme in (
        torch.per_channel_affine,
        torch.per_channel_affine_float_qparams,
        torch.per_channel_symmetric,
    )


def validate_qmin_qmax(quant_min: int, quant_max: int) -> None:
    """A user's quantization range must hold 0 and be non-empty."""
    if not quant_min <= 0 <= quant_max:
        raise AssertionError("Used-specified quantization range must include 0.")
    if quant_min >= quant_max:
        raise AssertionError(
            "qmin must be strictly less than qmax for user-specified quantization range."
        )


def calculate_qmin_qmax(
    quant_min: Any, quant_max: Any, has_customized_qrange: bool, dtype: Any, reduce_range: bool
) -> tuple[int, int]:
    """The quantization range: the user's (halved by ``reduce_range``), or the dtype's."""
    if has_customized_qrange:
        width = quant_max - quant_min + 1
        if dtype in (torch.qint8, torch.int8) and not 0 < width <= 256:
            raise AssertionError(
                "quantization range should be positive and not exceed the maximum bit range (=256)."
            )
        if dtype in (torch.qint32, torch.int32) and not 0 < width <= 2**32:
            raise AssertionError(
                "quantization range should be positive and not exceed the maximum bit range "
                "(=4294967296)."
            )
        if reduce_range:
            return quant_min // 2, quant_max // 2
        return quant_min, quant_max
    if dtype in (torch.qint8, torch.int8):
        return (-64, 63) if reduce_range else (-128, 127)
    if dtype in (torch.quint8, torch.uint8):
        return (0, 127) if reduce_range else (0, 255)
    if dtype in (torch.qint32, torch.int32):
        return -(2**31), 2**31 - 1
    if dtype == torch.uint16:
        return 0, 2**16 - 1
    if dtype == torch.int16:
        return -(2**15), 2**15 - 1
    return 0, 15


def check_min_max_valid(min_val: Any, max_val: Any) -> bool:
    """Whether the observer has seen values (else a warning); min above max is an error."""
    unrun = "must run observer before calling calculate_qparams. Returning default values."
    if min_val.numel() == 0 or max_val.numel() == 0:
        warnings.warn(unrun, stacklevel=2)
        return False
    if min_val.dim() == 0 or max_val.dim() == 0:
        if min_val == float("inf") and max_val == float("-inf"):
            warnings.warn(unrun, stacklevel=2)
            return False
        if min_val > max_val:
            raise AssertionError(f"min {min_val} should be less than max {max_val}")
    elif torch.any(min_val > max_val):
        raise AssertionError(f"min {min_val} should be less than max {max_val}")
    return True


class ObserverBase(nn.Module):
    """The base of observers: ``forward`` records statistics, ``calculate_qparams`` gives
    the scale and zero point."""

    def __init__(self, dtype: Any, is_dynamic: bool = False) -> None:
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    def forward(self, x: Any) -> Any:
        raise NotImplementedError

    def calculate_qparams(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


_SCHEMES_ALLOWED = "per_tensor_affine per_tensor_symmetric per_channel_affine "
_SCHEMES_ALLOWED += "per_channel_symmetric per_channel_affine_float_qparams"


class UniformQuantizationObserverBase(ObserverBase):
    """Observers of a uniform (affine or symmetric) quantization: the range, the scheme,
    ``eps``, and the scale/zero point from a min and a max."""

    _version = 3

    def __init__(
        self,
        dtype: Any = None,
        qscheme: Any = None,
        reduce_range: bool = False,
        quant_min: int | None = None,
        quant_max: int | None = None,
        factory_kwargs: Any = None,
        eps: float = _EPS,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        dtype = torch.quint8 if dtype is None else dtype
        qscheme = torch.per_tensor_affine if qscheme is None else qscheme
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.qscheme = qscheme
        if reduce_range:
            warnings.warn(
                "Please use quant_min and quant_max to specify the range for observers.      "
                "               reduce_range will be deprecated in a future release of PyTorch.",
                stacklevel=2,
            )
        self.reduce_range = reduce_range
        self.register_buffer("eps", torch.tensor([eps], **_factory(factory_kwargs)))
        names = [getattr(torch, n) for n in _SCHEMES_ALLOWED.split()]
        if qscheme not in names:
            raise AssertionError(
                "Default Observer only works for per_tensor_affine, per_tensor_symmetric, "
                "per_channel_affine, per_channel_symmetric and per_channel_float_qparams "
                "quantization scheme"
            )
        allowed = (torch.qint8, torch.quint8, torch.quint4x2, torch.qint32, torch.int8)
        allowed += (torch.uint8, torch.int16, torch.int32, torch.float8_e5m2)
        allowed += (torch.float8_e4m3fn, torch.uint16)
        if dtype not in allowed:
            raise AssertionError(f"Default Observer only works for {allowed} data type")
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            validate_qmin_qmax(quant_min, quant_max)  # type: ignore[arg-type]
        self.quant_min, self.quant_max = calculate_qmin_qmax(
            quant_min, quant_max, self.has_customized_qrange, dtype, reduce_range
        )

    def _calculate_qparams(self, min_val: Any, max_val: Any) -> tuple:
        """The scale (float32) and zero point (int64; float for float qparams) of the range
        ``[min_val, max_val]`` (per tensor, or one entry per channel)."""
        if not check_min_max_valid(min_val, max_val):
            return torch.tensor([1.0]), torch.tensor([0])
        qmin, qmax = self.quant_min, self.quant_max
        lo = torch.min(min_val, torch.zeros_like(min_val))
        hi = torch.max(max_val, torch.zeros_like(max_val))
        zero_point = torch.zeros(lo.size(), dtype=torch.int64)
        scheme = self.qscheme
        if scheme in (torch.per_tensor_symmetric, torch.per_channel_symmetric):
            hi = torch.max(-lo, hi)
            scale = torch.max(hi / (float(qmax - qmin) / 2), self.eps)
            if self.dtype in (torch.quint8, torch.uint8):
                middle = (qmin + qmax) // 2 if self.has_customized_qrange else 128
                zero_point = torch.full(lo.size(), middle, dtype=torch.int64)
            elif self.dtype == torch.uint16:
                zero_point = torch.full(lo.size(), 2**15, dtype=torch.int64)
        elif scheme is torch.per_channel_affine_float_qparams:
            scale = (max_val - min_val) / float(qmax - qmin)
            scale = torch.where(scale > self.eps, scale, torch.ones_like(scale))
            zero_point = -1 * min_val / scale
        else:
            scale = torch.max((hi - lo) / float(qmax - qmin), self.eps)
            zero_point = qmin - torch.round(lo / scale).to(torch.int)
            zero_point = torch.clamp(zero_point, qmin, qmax)
        if scale.dim() == 0:
            scale = torch.tensor([float(scale)], dtype=scale.dtype)
        if zero_point.dim() == 0:
            if scheme is torch.per_channel_affine_float_qparams:
                zero_point = torch.tensor([float(zero_point)], dtype=zero_point.dtype)
            else:
                zero_point = torch.tensor([int(zero_point)], dtype=zero_point.dtype)
        return scale, zero_point

    def reset_min_max_vals(self) -> None:
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


class MinMaxObserver(UniformQuantizationObserverBase):
    """The running minimum and maximum of every tensor seen (per tensor)."""

    def __init__(
        self,
        dtype: Any = None,
        qscheme: Any = None,
        reduce_range: bool = False,
        quant_min: int | None = None,
        quant_max: int | None = None,
        factory_kwargs: Any = None,
        eps: float = _EPS,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        qscheme = torch.per_tensor_affine if qscheme is None else qscheme
        if not is_per_tensor(qscheme):
            raise NotImplementedError(
                "MinMaxObserver's qscheme only support torch.per_tensor_symmetric "
                "                    and torch.per_tensor_affine."
            )
        super().__init__(
            dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps, is_dynamic,
            **kwargs,
        )  # fmt: skip
        fk = _factory(factory_kwargs)
        self.register_buffer("min_val", torch.tensor(float("inf"), **fk))
        self.register_buffer("max_val", torch.tensor(float("-inf"), **fk))
        if qscheme is torch.per_tensor_symmetric and reduce_range and self.dtype == torch.quint8:
            raise NotImplementedError(
                "Cannot reduce range for symmetric                                        "
                "quantization for quint8"
            )

    def forward(self, x_orig: Any) -> Any:
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        lo, hi = torch.aminmax(x)
        self.min_val.copy_(torch.min(lo, self.min_val))
        self.max_val.copy_(torch.max(hi, self.max_val))
        return x_orig

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self) -> None:
        self.min_val.copy_(torch.tensor(float("inf")))
        self.max_val.copy_(torch.tensor(float("-inf")))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """The minimum and maximum as moving averages: ``m += c * (new - m)`` after the first."""

    def __init__(
        self,
        averaging_constant: float = 0.01,
        dtype: Any = None,
        qscheme: Any = None,
        reduce_range: bool = False,
        quant_min: int | None = None,
        quant_max: int | None = None,
        eps: float = _EPS,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        qscheme = torch.per_tensor_affine if qscheme is None else qscheme
        if not is_per_tensor(qscheme):
            raise NotImplementedError(
                "MovingAverageMinMaxObserver's qscheme only support                 "
                "torch.per_tensor_symmetric and torch.per_tensor_affine.                 "
                f"but got: {qscheme}"
            )
        self.averaging_constant = averaging_constant
        if is_dynamic and averaging_constant != 1:
            raise NotImplementedError(
                "MovingAverageMinMaxObserver doesn't support dynamic quantization for "
                f"averaging constant of {averaging_constant}"
            )
        super().__init__(
            dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
            quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs,
        )  # fmt: skip

    def forward(self, x_orig: Any) -> Any:
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        lo, hi = self.min_val, self.max_val
        if lo == float("inf") and hi == float("-inf"):
            lo, hi = torch.aminmax(x)
        else:
            cur_lo, cur_hi = torch.aminmax(x)
            lo = lo + self.averaging_constant * (cur_lo - lo)
            hi = hi + self.averaging_constant * (cur_hi - hi)
        self.min_val.copy_(lo)
        self.max_val.copy_(hi)
        return x_orig


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """The running minimum and maximum of each slice along ``ch_axis``."""

    def __init__(
        self,
        ch_axis: int = 0,
        dtype: Any = None,
        qscheme: Any = None,
        reduce_range: bool = False,
        quant_min: int | None = None,
        quant_max: int | None = None,
        factory_kwargs: Any = None,
        eps: float = _EPS,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        qscheme = torch.per_channel_affine if qscheme is None else qscheme
        if not is_per_channel(qscheme):
            raise NotImplementedError(
                "PerChannelMinMaxObserver's qscheme only support                     "
                "torch.per_channel_symmetric, torch.per_channel_affine and "
                "torch.per_channel_affine_float_qparams."
            )
        if is_dynamic:
            raise NotImplementedError(
                "PerChannelMinMaxObserver doesn't support dynamic quantization"
            )
        super().__init__(
            dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps, is_dynamic,
            **kwargs,
        )  # fmt: skip
        self.ch_axis = ch_axis
        fk = _factory(factory_kwargs)
        self.register_buffer("min_val", torch.tensor([], **fk))
        self.register_buffer("max_val", torch.tensor([], **fk))
        if qscheme is torch.per_channel_symmetric and reduce_range and self.dtype == torch.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def _rows(self, x_orig: Any) -> Any:
        """The values as one row per channel."""
        x = x_orig.detach()
        order = list(range(x.dim()))
        order[self.ch_axis], order[0] = 0, self.ch_axis
        return torch.flatten(x.permute(order).to(self.min_val.dtype), start_dim=1)

    def _store(self, lo: Any, hi: Any) -> None:
        self.min_val.resize_(lo.shape)
        self.max_val.resize_(hi.shape)
        self.min_val.copy_(lo)
        self.max_val.copy_(hi)

    def forward(self, x_orig: Any) -> Any:
        if x_orig.numel() == 0:
            return x_orig
        lo, hi = torch.aminmax(self._rows(x_orig), dim=1)
        if self.min_val.numel() and self.max_val.numel():
            lo, hi = torch.min(lo, self.min_val), torch.max(hi, self.max_val)
        self._store(lo, hi)
        return x_orig

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"

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
        # (the buffers take the saved shapes before they are copied)
        for name in ("min_val", "max_val"):
            key = prefix + name
            if key in state_dict:
                getattr(self, name).resize_(state_dict[key].shape)
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys, error_msgs
        )

    def reset_min_max_vals(self) -> None:
        self.min_val = torch.rand(0)
        self.max_val = torch.rand(0)


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel minima and maxima as moving averages."""

    def __init__(
        self,
        averaging_constant: float = 0.01,
        ch_axis: int = 0,
        dtype: Any = None,
        qscheme: Any = None,
        reduce_range: bool = False,
        quant_min: int | None = None,
        quant_max: int | None = None,
        eps: float = _EPS,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        qscheme = torch.per_channel_affine if qscheme is None else qscheme
        super().__init__(
            ch_axis=ch_axis, dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
            quant_min=quant_min, quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs,
        )  # fmt: skip
        self.averaging_constant = averaging_constant

    def forward(self, x_orig: Any) -> Any:
        if x_orig.numel() == 0:
            return x_orig
        cur_lo, cur_hi = torch.aminmax(self._rows(x_orig), dim=1)
        lo, hi = self.min_val, self.max_val
        if lo.numel() == 0 or hi.numel() == 0:
            lo, hi = cur_lo, cur_hi
        else:
            lo = lo + self.averaging_constant * (cur_lo - lo)
            hi = hi + self.averaging_constant * (cur_hi - hi)
        self._store(lo, hi)
        return x_orig


class HistogramObserver(UniformQuantizationObserverBase):
    """A histogram of the values seen (``bins`` bins over the running range, rebinned when
    the range grows); ``calculate_qparams`` searches for the sub-range whose quantization
    to ``2**bits`` levels loses least (an L2 error over the histogram), as PyTorch's."""

    def __init__(
        self,
        bins: int = 2048,
        dtype: Any = None,
        qscheme: Any = None,
        reduce_range: bool = False,
        quant_min: int | None = None,
        quant_max: int | None = None,
        factory_kwargs: Any = None,
        eps: float = _EPS,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        qscheme = torch.per_tensor_affine if qscheme is None else qscheme
        if not is_per_tensor(qscheme):
            raise NotImplementedError(
                "HistogramObserver's qscheme only support torch.per_tensor_symmetric "
                "                    and torch.per_tensor_affine."
            )
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(
            dtype, qscheme, reduce_range, quant_min, quant_max, factory_kwargs, eps, is_dynamic,
            **kwargs,
        )  # fmt: skip
        fk = _factory(factory_kwargs)
        self.bins = bins
        self.register_buffer("histogram", torch.zeros(bins, **fk))
        self.register_buffer("min_val", torch.tensor(float("inf"), **fk))
        self.register_buffer("max_val", torch.tensor(float("-inf"), **fk))
        self.dst_nbins = 2 ** (32 if self.dtype in (torch.qint32, torch.int32) else 8)
        self.upsample_rate = 16  # (a finer histogram when rebinning, for less error)

    @staticmethod
    def _get_norm(delta_begin: Any, delta_end: Any, density: Any) -> Any:
        """The integral of x**2 over [delta_begin, delta_end], times the density."""
        cubes = delta_end * delta_end * delta_end - delta_begin * delta_begin * delta_begin
        return density * (cubes / 3)

    def _compute_quantization_error(self, next_start_bin: int, next_end_bin: int) -> float:
        """The L2 error of quantizing the histogram's bins [next_start_bin, next_end_bin]."""
        bin_width = (self.max_val.item() - self.min_val.item()) / self.bins
        dst_width = bin_width * (next_end_bin - next_start_bin + 1) / self.dst_nbins
        if dst_width == 0.0:
            return 0.0
        src_bin = torch.arange(self.bins)
        begin = (src_bin - next_start_bin) * bin_width
        end = begin + bin_width
        last = self.dst_nbins - 1
        dst_of_begin = torch.clamp(torch.div(begin, dst_width, rounding_mode="floor"), 0, last)
        dst_of_end = torch.clamp(torch.div(end, dst_width, rounding_mode="floor"), 0, last)
        density = self.histogram / bin_width
        norm = torch.zeros(self.bins)
        begin_center = (dst_of_begin + 0.5) * dst_width
        norm += self._get_norm(
            begin - begin_center, torch.ones(self.bins) * (dst_width / 2), density
        )
        half = torch.tensor(dst_width / 2)
        norm += (dst_of_end - dst_of_begin - 1) * self._get_norm(-half, half, density)
        end_center = dst_of_end * dst_width + dst_width / 2
        norm += self._get_norm(torch.tensor(-dst_width / 2), end - end_center, density)
        return norm.sum().item()

    def _non_linear_param_search(self) -> tuple:
        """The range [new_min, new_max] of least quantization error, narrowed from both ends
        of the histogram in steps of 1e-5 of its mass."""
        if self.histogram.size()[0] != self.bins:
            raise AssertionError("bins mismatch")
        bin_width = (self.max_val - self.min_val) / self.bins
        total = torch.sum(self.histogram).item()
        csum = torch.cumsum(self.histogram, dim=0).numpy()
        stepsize = 1e-5
        alpha, beta = 0.0, 1.0
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + stepsize, beta - stepsize
            low, high = np.float32(next_alpha * total), np.float32(next_beta * total)
            left, right = start_bin, end_bin
            while left < end_bin and csum[left] < low:
                left += 1
            while right > start_bin and csum[right] > high:
                right -= 1
            next_start, next_end = start_bin, end_bin
            if (left - start_bin) > (end_bin - right):
                next_start, alpha = left, next_alpha
            else:
                next_end, beta = right, next_beta
            if next_start == start_bin and next_end == end_bin:
                continue
            norm = self._compute_quantization_error(next_start, next_end)
            if norm > norm_min:
                break
            norm_min, start_bin, end_bin = norm, next_start, next_end
        return self.min_val + bin_width * start_bin, self.min_val + bin_width * (end_bin + 1)

    def _upscale_histogram(
        self, histogram: Any, orig_min: Any, orig_max: Any, update_min: Any, update_max: Any
    ) -> Any:
        """The histogram over [orig_min, orig_max] rebinned onto [update_min, update_max]
        (each bin split in ``upsample_rate`` parts placed by their midpoints)."""
        rate = self.upsample_rate
        histogram = histogram.repeat_interleave(rate) / rate
        bin_size = (orig_max - orig_min) / (self.bins * rate)
        mids = torch.linspace(orig_min, orig_max, self.bins * rate + 1)[:-1] + 0.5 * bin_size
        edges = torch.linspace(update_min, update_max, self.bins + 1)
        buckets = torch.bucketize(mids, edges, right=True) - 1
        buckets[buckets >= self.bins] = self.bins - 1
        buckets[buckets < 0] = 0
        return torch.bincount(buckets, weights=histogram, minlength=self.bins)

    def _combine_histograms(
        self,
        orig_hist: Any,
        orig_min: Any,
        orig_max: Any,
        update_hist: Any,
        update_min: Any,
        update_max: Any,
    ) -> Any:
        if update_min == orig_min and update_max == orig_max:
            return orig_hist + update_hist
        if orig_min == orig_max:
            mass = torch.sum(orig_hist)
            moved = torch.histc(orig_min, bins=self.bins, min=update_min, max=update_max)
            return moved * mass + update_hist
        if update_min > orig_min:
            raise AssertionError("update_min must be <= orig_min")
        if update_max < orig_max:
            raise AssertionError("update_max must be >= orig_max")
        moved = self._upscale_histogram(orig_hist, orig_min, orig_max, update_min, update_max)
        return update_hist + moved

    def _set(self, name: str, value: Any) -> None:
        buffer = getattr(self, name)
        buffer.detach_().resize_(value.shape)
        buffer.copy_(value)

    def reset_histogram(self, x: Any, min_val: Any, max_val: Any) -> None:
        self._set("min_val", min_val)
        self._set("max_val", max_val)
        if min_val.numel() != 1 or max_val.numel() != 1:
            raise AssertionError("histogram min/max values must be scalar.")
        self._set("histogram", torch.histc(x, self.bins, min=min_val, max=max_val))

    def forward(self, x_orig: Any) -> Any:
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        x_min, x_max = torch.aminmax(x)
        if x_min == -torch.inf or x_max == torch.inf:
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[x.abs() != torch.inf]
            if x.numel() == 0:
                return x_orig
            x_min, x_max = torch.aminmax(x)
        current_min, current_max = self.min_val, self.max_val
        if self.min_val == float("inf") or self.max_val == float("-inf"):
            self.reset_histogram(x, x_min, x_max)
            return x_orig
        new_min = torch.min(current_min, x_min).detach()
        new_max = torch.max(current_max, x_max).detach()
        update = torch.histc(x, self.bins, min=new_min, max=new_max)
        if new_min == current_min and new_max == current_max:
            self._set("histogram", self.histogram + update)
            return x_orig
        combined = self._combine_histograms(
            self.histogram, current_min, current_max, update, new_min, new_max
        )
        self._set("histogram", combined)
        self._set("min_val", new_min)
        self._set("max_val", new_max)
        return x_orig

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        if self.min_val == float("inf") and self.max_val == float("-inf"):
            warnings.warn(
                "must run observer before calling calculate_qparams.                         "
                "           Returning default scale and zero point ",
                stacklevel=2,
            )
            return torch.tensor([1.0]), torch.tensor([0])
        if self.bins != len(self.histogram):
            raise AssertionError(
                "The number of bins in histogram should be equal to the number of bins "
                "supplied while making this observer"
            )
        new_min, new_max = self._non_linear_param_search()
        return self._calculate_qparams(new_min, new_max)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "min_val"] = self.min_val
        destination[prefix + "max_val"] = self.max_val

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class FixedQParamsObserver(ObserverBase):
    """An observer of fixed scale and zero point (it records nothing)."""

    def __init__(
        self,
        scale: float,
        zero_point: int,
        dtype: Any = None,
        qscheme: Any = None,
        quant_min: int = 0,
        quant_max: int = 255,
        is_dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        if is_dynamic:
            raise NotImplementedError("FixedQParamsObserver doesn't support dynamic quantization")
        dtype = torch.quint8 if dtype is None else dtype
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.quant_min, self.quant_max = quant_min, quant_max
        self.register_buffer("scale", torch.tensor([scale], dtype=torch.float))
        self.register_buffer("zero_point", torch.tensor([zero_point], dtype=torch.int))
        self.qscheme = torch.per_tensor_affine if qscheme is None else qscheme

    def forward(self, X: Any) -> Any:  # noqa: N803
        return X

    def calculate_qparams(self) -> tuple:  # type: ignore[override]
        return self.scale, self.zero_point


class PlaceholderObserver(ObserverBase):
    """An observer that records nothing: it carries a dtype (and range) to ``convert``."""

    def __init__(
        self,
        dtype: Any = None,
        custom_op_name: str = "",
        compute_dtype: Any = None,
        quant_min: int | None = None,
        quant_max: int | None = None,
        qscheme: Any = None,
        eps: float | None = None,
        is_dynamic: bool = False,
    ) -> None:
        super().__init__(dtype=torch.float32 if dtype is None else dtype, is_dynamic=is_dynamic)
        self.qscheme = torch.per_tensor_affine if qscheme is None else qscheme
        self.eps = _EPS if eps is None else eps
        self.quant_min, self.quant_max = quant_min, quant_max
        self.custom_op = custom_op_name
        if compute_dtype:
            warnings.warn(
                "Please use `is_dynamic` instead of `compute_dtype`.                     "
                "`compute_dtype` will be deprecated in a future release                     "
                "of PyTorch.",
                stacklevel=2,
            )

    def forward(self, x: Any) -> Any:
        return x

    def extra_repr(self) -> str:
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self) -> Any:  # type: ignore[override]
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002


class NoopObserver(ObserverBase):
    """An observer that does nothing (for float16 quantization)."""

    def __init__(self, dtype: Any = None, custom_op_name: str = "") -> None:
        super().__init__(dtype=torch.float16 if dtype is None else dtype)
        self.custom_op = custom_op_name

    def forward(self, x: Any) -> Any:
        return x

    def calculate_qparams(self) -> Any:  # type: ignore[override]
        raise Exception("calculate_qparams should not be called for NoopObserver")  # noqa: TRY002


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_weight_observer = MinMaxObserver.with_args(
    dtype=torch.qint8, qscheme=torch.per_tensor_symmetric
)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(
    dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric,
    quant_min=-127,
    quant_max=127,
    eps=2**-12,
)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=torch.qint8, qscheme=torch.per_channel_symmetric
)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=torch.qint8,
    qscheme=torch.per_channel_symmetric,
    quant_min=-127,
    quant_max=127,
    eps=2**-12,
)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=torch.quint8, quant_min=0, quant_max=255, is_dynamic=True
)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=torch.quint8, qscheme=torch.per_channel_affine_float_qparams, ch_axis=0
)
default_fixed_qparams_range_neg1to1_observer = FixedQParamsObserver.with_args(
    scale=2.0 / 256.0, zero_point=128, dtype=torch.quint8, quant_min=0, quant_max=255
)
default_fixed_qparams_range_0to1_observer = FixedQParamsObserver.with_args(
    scale=1.0 / 256.0, zero_point=0, dtype=torch.quint8, quant_min=0, quant_max=255
)
