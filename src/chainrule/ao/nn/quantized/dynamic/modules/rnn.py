"""``torch.ao.nn.quantized.dynamic.LSTM``: an LSTM of qint8 weights whose inputs and
hidden states are quantized on the fly.

PyTorch's x86/fbgemm recipe: for each layer and direction the input projection of the
whole sequence is one dynamic quantized linear (the input quantized with one scale for
all time steps), and at each step the hidden state's projection is another (the state
quantized with its own scale); their sum goes through the float gates as in ``nn.LSTM``.
The linear parts equal PyTorch's bit for bit; the float gates (sigmoid, tanh) may differ
from PyTorch's in the last bit, and a last-bit difference of a hidden state can move its
requantization by one step, so outputs agree to about a quantization step of the hidden
state (tests/ao measure it). PackedSequence inputs, GRU and float16 weights are not
implemented. The state dict holds each layer's (weight_ih, bias_ih, weight_hh, bias_hh)
under ``_all_weight_values.<i>.param`` where PyTorch holds an opaque packed object, so
the two libraries cannot load each other's LSTM state dicts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrule as torch
from chainrule import _dtypes, nn
from chainrule._missing import NotImplementedInChainrule
from chainrule._quantized import QTensor
from chainrule._tensor import _make

from .linear import linear_dynamic, quantize_weight

__all__ = ["LSTM", "PackedParameter"]


class PackedParameter(nn.Module):
    """One layer-direction's quantized weights and float biases:
    ``param = (weight_ih, bias_ih, weight_hh, bias_hh)``."""

    def __init__(self, param: tuple) -> None:
        super().__init__()
        self.param = param

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "param"] = self.param

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
        key = prefix + "param"
        if key in state_dict:
            self.param = tuple(state_dict.pop(key))
        elif strict:
            missing_keys.append(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys, error_msgs
        )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return (1 / (1 + np.exp(-x))).astype(np.float32)


def _direction(
    xs: Any, h: np.ndarray, c: np.ndarray, param: tuple, reverse: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One direction of one layer over the sequence ``xs`` (T, B, features)."""
    w_ih, b_ih, w_hh, b_hh = param
    projected = linear_dynamic(xs, w_ih, b_ih).numpy()  # (T, B, 4H), one input scale
    steps = range(projected.shape[0] - 1, -1, -1) if reverse else range(projected.shape[0])
    outs = [np.empty(0, np.float32)] * projected.shape[0]
    for t in steps:
        hidden = linear_dynamic(_make(h, _dtypes.float32), w_hh, b_hh).numpy()
        gates = hidden + projected[t]
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
        c = (f * c + i * g).astype(np.float32)
        h = (o * np.tanh(c)).astype(np.float32)
        outs[t] = h
    return np.stack(outs), h, c


class LSTM(nn.Module):
    """A dynamically quantized LSTM (``DynamicQuantizedLSTM``), for inference."""

    _version = 2

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.mode = "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.dtype = torch.qint8 if dtype is None else dtype
        if self.dtype is not torch.qint8:
            raise NotImplementedInChainrule(
                "chainrule's dynamic quantized LSTM has qint8 weights only (no float16)"
            )
        self.version = 2
        self.training = False
        directions = 2 if bidirectional else 1
        params = []
        for layer in range(num_layers):
            for _ in range(directions):
                width = input_size if layer == 0 else hidden_size * directions
                params.append(
                    PackedParameter(
                        (
                            _zeros_qweight(4 * hidden_size, width),
                            torch.zeros(4 * hidden_size),
                            _zeros_qweight(4 * hidden_size, hidden_size),
                            torch.zeros(4 * hidden_size),
                        )
                    )
                )
        self._all_weight_values = nn.ModuleList(params)

    def _get_name(self) -> str:
        return "DynamicQuantizedLSTM"

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    def __repr__(self) -> str:
        # (as PyTorch's: the packed weights are not listed as children)
        return f"{self._get_name()}({self.extra_repr()})"

    def forward(self, input: Any, hx: Any = None) -> tuple:  # noqa: A002
        if not isinstance(input, torch.Tensor):
            raise NotImplementedInChainrule(
                "chainrule's dynamic quantized LSTM takes tensors (not PackedSequence)"
            )
        if self.training and self.dropout > 0 and self.num_layers > 1:
            raise NotImplementedInChainrule(
                "dropout in a training dynamic quantized LSTM is not implemented in chainrule"
            )
        x = input.detach().numpy().astype(np.float32)
        batched = x.ndim == 3
        if not batched:
            x = x[:, None]
        elif self.batch_first:
            x = x.transpose(1, 0, 2)
        directions = 2 if self.bidirectional else 1
        shape = (self.num_layers * directions, x.shape[1], self.hidden_size)
        if hx is None:
            h0 = c0 = np.zeros(shape, np.float32)
        else:
            h0, c0 = (t.detach().numpy().reshape(shape).astype(np.float32) for t in hx)
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                param = self._all_weight_values[k].param
                seq = _make(np.ascontiguousarray(x), _dtypes.float32)
                out, h, c = _direction(seq, h0[k], c0[k], param, reverse=d == 1)
                outs.append(out)
                hs.append(h)
                cs.append(c)
            x = np.concatenate(outs, axis=2) if directions == 2 else outs[0]
        output = x if not self.batch_first or not batched else x.transpose(1, 0, 2)
        if not batched:
            output = output[:, 0]
        h_n, c_n = np.stack(hs), np.stack(cs)
        if not batched:
            h_n, c_n = h_n[:, 0], c_n[:, 0]
        made = (np.ascontiguousarray(a) for a in (output, h_n, c_n))
        out_t, h_t, c_t = (_make(a, _dtypes.float32) for a in made)
        return out_t, (h_t, c_t)

    def _weight_bias(self) -> dict:
        """{'weight': {'weight_ih_l0': ...}, 'bias': {'bias_ih_l0': ...}}, as PyTorch's."""
        found: dict = {"weight": {}, "bias": {}}
        directions = 2 if self.bidirectional else 1
        for layer in range(self.num_layers):
            for d in range(directions):
                suffix = "_reverse" if d == 1 else ""
                w_ih, b_ih, w_hh, b_hh = self._all_weight_values[layer * directions + d].param
                found["weight"][f"weight_ih_l{layer}{suffix}"] = w_ih
                found["weight"][f"weight_hh_l{layer}{suffix}"] = w_hh
                found["bias"][f"bias_ih_l{layer}{suffix}"] = b_ih
                found["bias"][f"bias_hh_l{layer}{suffix}"] = b_hh
        return found

    def get_weight(self) -> dict:
        return self._weight_bias()["weight"]

    def get_bias(self) -> dict:
        return self._weight_bias()["bias"]

    @classmethod
    def from_float(cls, mod: Any, use_precomputed_fake_quant: bool = False) -> LSTM:
        """The dynamically quantized copy of a float ``nn.LSTM``: each weight quantized with
        a fresh weight observer of its qconfig; the biases kept."""
        from chainrule.ao.quantization.qconfig import default_dynamic_qconfig

        if type(mod) is not nn.LSTM:
            raise AssertionError(
                "nn.quantized.dynamic.RNNBase.from_float only works for nn.LSTM and nn.GRU"
            )
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        make_observer = (mod.qconfig or default_dynamic_qconfig).weight
        dtype = make_observer().dtype
        if dtype is not torch.qint8:
            raise NotImplementedInChainrule(
                f"dynamic quantized LSTM with {dtype} weights is not implemented in chainrule"
            )
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        made = cls(
            mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
            mod.dropout, mod.bidirectional, dtype,
        )  # fmt: skip
        if getattr(mod, "proj_size", 0):
            raise NotImplementedInChainrule("dynamic quantized LSTM with proj_size")

        def quantized(w: Any) -> QTensor:
            observer = make_observer()
            observer(w)
            return quantize_weight(w.float(), observer)

        directions = 2 if mod.bidirectional else 1
        params = []
        for layer in range(mod.num_layers):
            for d in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                w_ih, w_hh = getattr(mod, "weight_ih" + suffix), getattr(mod, "weight_hh" + suffix)
                b_ih, b_hh = getattr(mod, "bias_ih" + suffix), getattr(mod, "bias_hh" + suffix)
                params.append(PackedParameter((quantized(w_ih), b_ih, quantized(w_hh), b_hh)))
        made._all_weight_values = nn.ModuleList(params)
        return made


def _zeros_qweight(rows: int, cols: int) -> QTensor:
    return torch.quantize_per_tensor(torch.zeros(rows, cols), 0.1, 0, torch.qint8)
