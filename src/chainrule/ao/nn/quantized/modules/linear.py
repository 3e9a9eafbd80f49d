"""``torch.ao.nn.quantized.modules.linear``: the statically quantized ``Linear``
(``QuantizedLinear``) and ``LinearPackedParams``, the holder of a quantized linear layer's
weight and bias.

PyTorch keeps them in an opaque packed object; here they are a plain pair, saved in the
state dict as PyTorch saves them (``dtype``, then ``_packed_params``: the tuple of the
quantized weight and the float bias).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule as torch
from chainrule import nn

__all__ = ["Linear", "LinearPackedParams", "linear_static", "requantize"]


class LinearPackedParams(nn.Module):
    """A quantized linear layer's (weight, bias)."""

    _version = 3

    def __init__(self, dtype: Any = None) -> None:
        super().__init__()
        self.dtype = torch.qint8 if dtype is None else dtype
        if self.dtype is not torch.qint8:
            raise NotImplementedError(
                "chainrule's quantized linear layers hold qint8 weights only "
                f"(got {self.dtype}; PyTorch also packs float16 ones)"
            )
        weight = torch.quantize_per_tensor(torch.zeros(1, 1), 1.0, 0, torch.qint8)
        self._packed_params: tuple = (weight, None)

    def set_weight_bias(self, weight: Any, bias: Any) -> None:
        self._packed_params = (weight, bias)

    def _weight_bias(self) -> tuple:
        return self._packed_params

    def forward(self, x: Any) -> Any:
        return x

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

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
        for name in ("dtype", "_packed_params"):
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict.pop(key)
            if name == "dtype":
                self.dtype = value
            else:
                self.set_weight_bias(*value)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys, error_msgs
        )

    def __repr__(self) -> str:
        return self._weight_bias().__repr__()


def requantize(
    acc: np.ndarray, x: Any, weight: Any, bias: Any, scale: float, zero_point: int
) -> Any:
    """The quint8 tensor of the integer sums ``acc`` (output channels last) of the quantized
    input ``x`` and ``weight``, as PyTorch's x86/fbgemm kernels requantize them: plus
    ``bias / (input_scale * weight_scale)`` in float32, times ``input_scale * weight_scale /
    scale``, rounded to even, plus the zero point, clamped to 0..255."""
    from chainrule._quantized import QTensor
    from chainrule.backends.quantized import check_engine

    check_engine("quantized::linear / conv2d")
    if weight._axis is None:
        w_scale = np.float32(weight._scale)
    else:
        w_scale = weight._scale.astype(np.float32)
    act_w = (np.float32(x._scale) * w_scale).astype(np.float32)
    total = acc.astype(np.float32)
    if bias is not None:
        b = bias.detach().numpy().astype(np.float32)
        total = (total + (b / act_w).astype(np.float32)).astype(np.float32)
    multiplier = (act_w / np.float32(scale)).astype(np.float32)
    out = np.rint((total * multiplier).astype(np.float32)) + zero_point
    out = np.clip(out, 0, 255).astype(np.uint8)
    return QTensor._new(out, torch.quint8, torch.per_tensor_affine, float(scale), zero_point, None)


def linear_static(x: Any, weight: Any, bias: Any, scale: float, zero_point: int) -> Any:
    """``quantized::linear``: a quint8 tensor times qint8 weights, requantized to quint8 with
    ``scale`` and ``zero_point`` (``requantize``)."""
    from chainrule._quantized import QTensor

    if not isinstance(x, QTensor) or x._dtype is not torch.quint8 or x._axis is not None:
        raise RuntimeError(
            "quantized::linear (chainrule) expects a per-tensor quantized quint8 input"
        )
    ints = x._ints
    xq = ints.astype(np.int64).reshape(-1, ints.shape[-1]) - x._zp
    w = weight._ints.astype(np.int64)
    w = w - (weight._zp if weight._axis is None else weight._zp[:, None])
    acc = (xq @ w.T).reshape(*ints.shape[:-1], w.shape[0])
    return requantize(acc, x, weight, bias, scale, zero_point)


class Linear(nn.Module):
    """A statically quantized linear layer (``QuantizedLinear``): quint8 in, quint8 out
    (with its own ``scale`` and ``zero_point``), qint8 weights."""

    _version = 3

    def __init__(
        self, in_features: int, out_features: int, bias_: bool = True, dtype: Any = None
    ) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bias = torch.zeros(out_features, dtype=torch.float) if bias_ else None
        weight = torch.quantize_per_tensor(
            torch.zeros(out_features, in_features), 1.0, 0, torch.qint8
        )
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(weight, bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self) -> str:
        return "QuantizedLinear"

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"scale={self.scale}, zero_point={self.zero_point}, "
            f"qscheme={self.weight().qscheme()}"
        )

    def __repr__(self) -> str:
        return f"{self._get_name()}({self.extra_repr()})"

    def forward(self, x: Any) -> Any:
        weight, bias = self._packed_params._weight_bias()
        return linear_static(x, weight, bias, self.scale, self.zero_point)

    def weight(self) -> Any:
        return self._packed_params._weight_bias()[0]

    def bias(self) -> Any:
        return self._packed_params._weight_bias()[1]

    def set_weight_bias(self, w: Any, b: Any) -> None:
        self._packed_params.set_weight_bias(w, b)

    def _weight_bias(self) -> tuple:
        return self._packed_params._weight_bias()

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

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
        for name in ("scale", "zero_point"):
            key = prefix + name
            if key in state_dict:
                value = state_dict.pop(key)
                setattr(self, name, float(value) if name == "scale" else int(value))
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys, error_msgs
        )

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> Linear:
        """The statically quantized copy of an observed ``nn.Linear`` (or QAT Linear): the
        weight quantized with its weight observer (the QAT one's fake quantizer), the output
        scale and zero point from its ``activation_post_process``."""
        from chainrule.ao.nn.qat import Linear as QATLinear
        from chainrule.ao.nn.quantized.dynamic.modules.linear import quantize_weight

        if isinstance(mod, QATLinear):
            weight_observer = mod.weight_fake_quant
        elif type(mod) is nn.Linear:
            weight_observer = mod.qconfig.weight()
        else:
            raise AssertionError(
                "nnq.Linear.from_float only works for nn.Linear and nn.qat.Linear, got "
                f"{type(mod).__name__}"
            )
        if not hasattr(mod, "activation_post_process"):
            raise AssertionError("Input float module must have observer attached")
        if not use_precomputed_fake_quant:
            weight_observer(mod.weight)
        if weight_observer.dtype is not torch.qint8:
            raise AssertionError("Weight observer must have dtype torch.qint8")
        act_scale, act_zp = mod.activation_post_process.calculate_qparams()
        qweight = quantize_weight(mod.weight.float(), weight_observer)
        made = cls(mod.in_features, mod.out_features, dtype=weight_observer.dtype)
        made.set_weight_bias(qweight, mod.bias)
        made.scale = float(act_scale)
        made.zero_point = int(act_zp)
        return made
