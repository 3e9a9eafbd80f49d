"""``nn.LSTM``, ``nn.GRU`` and ``nn.RNN`` in an export: PyTorch's export keeps each as one
``aten.lstm.input`` / ``aten.gru.input`` / ``aten.rnn_tanh.input`` (``rnn_relu``) node (after a ``zeros`` node per default initial
state), so while tracing, each such module's forward writes those nodes and runs its
real forward untraced for the values."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import chainrule

from .. import overrides
from ..nn import Module
from ._reader import ATEN
from ._translations_more import recording


def _weights(rnn: Module) -> list:
    names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if rnn.bias else [])
    suffixes = ["", "_reverse"] if rnn.bidirectional else [""]
    return [
        getattr(rnn, f"{name}_l{layer}{suffix}")
        for layer in range(rnn.num_layers)
        for suffix in suffixes
        for name in names
    ]


def _forward(rnn: Module, recorder: Any) -> Any:
    original = rnn.forward

    def forward(input: Any, hx: Any = None) -> Any:
        if not isinstance(input, chainrule.Tensor):
            raise NotImplementedError(
                f"chainrule.export cannot export nn.{rnn.mode} of a packed sequence: PyTorch "
                "2.13's export refuses it too (the initial state's size is read from the "
                "traced batch sizes). Give the padded batch, masking the padded steps"
            )
        if input.dim() != 3 or rnn.proj_size:
            raise NotImplementedError(
                f"chainrule.export exports nn.{rnn.mode} on batched tensors only (no "
                "unbatched inputs or proj_size)"
            )
        if hx is None:
            batch = input.shape[0 if rnn.batch_first else 1]
            size = [rnn.num_layers * (2 if rnn.bidirectional else 1), batch, rnn.hidden_size]
            kwargs = {"dtype": input.dtype, "device": chainrule.device("cpu"), "pin_memory": False}
            count = 2 if rnn.mode == "LSTM" else 1
            states = []
            for _ in range(count):
                with overrides.DisableTorchFunction():
                    zero = chainrule.zeros(size, dtype=input.dtype)
                recorder._write(
                    ATEN.overload("aten.zeros.default"), "zeros.default", [size], kwargs, [], zero
                )
                states.append(zero)
            hx = tuple(states) if count == 2 else states[0]
        with overrides.DisableTorchFunction():
            output, hidden = original(input, hx)
        overload = f"{rnn.mode.lower()}.input"
        args = [
            input,
            list(hx) if rnn.mode == "LSTM" else hx,
            _weights(rnn),
            rnn.bias,
            rnn.num_layers,
            float(rnn.dropout),
            rnn.training,
            rnn.bidirectional,
            rnn.batch_first,
        ]
        outs = (output, *hidden) if rnn.mode == "LSTM" else (output, hidden)
        recorder._write(ATEN.overload(f"aten.{overload}"), overload, args, {}, [], outs)
        return output, hidden

    return forward


def _by_name(namespace: Any, name: str) -> Any:
    return lambda input: getattr(namespace, name)(input)


@contextlib.contextmanager
def rnns_as_nodes(mod: Module, recorder: Any) -> Iterator[None]:
    """While open, each LSTM, GRU and RNN inside ``mod`` writes itself as one ATen node, a
    translation may write nodes of its own (``current_recorder``: a cast's metadata check),
    and a transformer layer's ``activation`` given by name calls the public
    ``F.relu``/``F.gelu`` (the layer holds the function itself, which a trace does not
    see: the public name, read while the trace runs, is what records the call)."""
    from ..nn import GRU, LSTM, RNN
    from ..nn import functional as F

    patched = [m for m in mod.modules() if isinstance(m, (LSTM, GRU, RNN))]
    for m in patched:
        m.forward = _forward(m, recorder)
    swapped = []
    for m in mod.modules():
        activation = m.__dict__.get("activation")
        if activation is not None and not isinstance(activation, Module):
            name = getattr(activation, "__name__", None)
            if name in ("relu", "gelu") and activation is getattr(F, name):
                swapped.append((m, activation))
                m.__dict__["activation"] = _by_name(F, name)
    try:
        with recording(recorder):
            yield
    finally:
        for m in patched:
            del m.forward
        for m, activation in swapped:
            m.__dict__["activation"] = activation
