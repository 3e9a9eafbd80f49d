"""``torch.ao.nn.quantized.FloatFunctional`` and ``QFunctional``: the additions (and other
binary ops) of a model written as module calls, so that ``prepare`` can observe them and
``convert`` can quantize them. chainrule's ``QFunctional`` has ``add`` and ``add_relu``
(PyTorch's kernels' rounding: each input dequantized with a fused multiply-add, the sum
requantized as ``quantize_per_tensor`` does); its ``mul``, ``cat``, scalar ops and
``matmul`` raise."""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule as torch
from chainrule import nn
from chainrule._missing import NotImplementedInChainrule

__all__ = ["FloatFunctional", "QFunctional"]


class FloatFunctional(nn.Module):
    """Float ops as a module: ``add``, ``mul``, ``cat`` ... (their results observed)."""

    def __init__(self) -> None:
        super().__init__()
        self.activation_post_process = nn.Identity()

    def forward(self, x: Any) -> Any:
        raise RuntimeError(
            "FloatFunctional is not intended to use the 'forward'. Please use the underlying "
            "operation"
        )

    def add(self, x: Any, y: Any) -> Any:
        return self.activation_post_process(torch.add(x, y))

    def add_scalar(self, x: Any, y: float) -> Any:
        return torch.add(x, y)

    def mul(self, x: Any, y: Any) -> Any:
        return self.activation_post_process(torch.mul(x, y))

    def mul_scalar(self, x: Any, y: float) -> Any:
        return torch.mul(x, y)

    def cat(self, x: list, dim: int = 0) -> Any:
        return self.activation_post_process(torch.cat(x, dim=dim))

    def add_relu(self, x: Any, y: Any) -> Any:
        return self.activation_post_process(nn.functional.relu(torch.add(x, y)))

    def matmul(self, x: Any, y: Any) -> Any:
        return self.activation_post_process(torch.matmul(x, y))


def _dequantized(q: Any) -> np.ndarray:
    """The float32 values as PyTorch's vectorized add reads them: q * scale + (-zp * scale)
    rounded once."""
    scale = np.float32(q._scale)
    shift = np.float32(-q._zp * scale)
    return (q._ints.astype(np.float64) * np.float64(scale) + np.float64(shift)).astype(np.float32)


def quantized_add(x: Any, y: Any, scale: float, zero_point: int, relu: bool = False) -> Any:
    """``quantized::add`` (``add_relu``): two per-tensor quint8 tensors summed and
    requantized with ``scale`` and ``zero_point``."""
    from chainrule._quantized import QTensor, quantize_array
    from chainrule.backends.quantized import check_engine

    check_engine("quantized::add")
    for t in (x, y):
        if not isinstance(t, QTensor) or t._axis is not None:
            raise RuntimeError("quantized::add (chainrule) expects per-tensor quantized tensors")
    if x._dtype is not y._dtype:
        raise RuntimeError("quantized::add: both inputs must have the same dtype")
    total = np.add(_dequantized(x), _dequantized(y), dtype=np.float32)
    ints = quantize_array(total, scale, zero_point, x._dtype)
    if relu:
        ints = np.maximum(ints, np.asarray(zero_point).astype(ints.dtype))
    return QTensor._new(ints, x._dtype, torch.per_tensor_affine, float(scale), zero_point, None)


def _missing(name: str) -> NotImplementedInChainrule:
    return NotImplementedInChainrule(
        f"QFunctional.{name} (quantized::{name}) is not implemented in chainrule; "
        "QFunctional has add and add_relu"
    )


class QFunctional(nn.Module):
    """The quantized ``FloatFunctional`` (``convert`` makes it): ops on quantized tensors
    whose results have this module's ``scale`` and ``zero_point``."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = 1.0
        self.zero_point = 0
        self.activation_post_process = nn.Identity()

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
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys, error_msgs
        )

    def _get_name(self) -> str:
        return "QFunctional"

    def extra_repr(self) -> str:
        return f"scale={self.scale}, zero_point={self.zero_point}"

    def forward(self, x: Any) -> Any:
        raise RuntimeError(
            "Functional is not intended to use the 'forward'. Please use the underlying operation"
        )

    def add(self, x: Any, y: Any) -> Any:
        return self.activation_post_process(quantized_add(x, y, self.scale, self.zero_point))

    def add_relu(self, x: Any, y: Any) -> Any:
        out = quantized_add(x, y, self.scale, self.zero_point, relu=True)
        return self.activation_post_process(out)

    def add_scalar(self, x: Any, y: float) -> Any:
        raise _missing("add_scalar")

    def mul(self, x: Any, y: Any) -> Any:
        raise _missing("mul")

    def mul_scalar(self, x: Any, y: float) -> Any:
        raise _missing("mul_scalar")

    def cat(self, x: list, dim: int = 0) -> Any:
        raise _missing("cat")

    def matmul(self, x: Any, y: Any) -> Any:
        raise _missing("matmul")

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> QFunctional:
        """The QFunctional of an observed FloatFunctional: its observer's scale and zero
        point."""
        if type(mod) is not FloatFunctional:
            raise AssertionError(
                "QFunctional.from_float expects an instance of FloatFunctional, got "
                f"{type(mod).__name__}"
            )
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        made = QFunctional()
        made.scale = float(scale)
        made.zero_point = int(zero_point)
        return made
