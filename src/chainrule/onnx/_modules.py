"""Modules exported whole: ``RNN``, ``LSTM`` and ``GRU`` compute below chainrule's public
functions, so while the model is traced their ``forward`` runs unseen and is written as
ONNX's ``RNN``/``LSTM``/``GRU`` nodes, one per layer (both directions in one node).

PyTorch stacks the gates of ``weight_ih``/``weight_hh`` as (input, forget, cell, output) for
the LSTM and (reset, update, new) for the GRU; ONNX wants (input, output, forget, cell) and
(update, reset, hidden): the weights are split and concatenated in the graph, so the
initializers keep their state_dict names. The GRU is written with ``linear_before_reset=1``,
PyTorch's form of the new gate.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .. import overrides
from ._graph import Graph
from .errors import UnsupportedOperatorError

# new gate order, as indices into PyTorch's
_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _reordered(g: Graph, param: Any, mode: str) -> str:
    """A weight or bias with its gates in ONNX's order."""
    name = g.value(param)
    order = _ORDER[mode]
    if order == [0]:
        return name
    size = int(param.shape[0]) // _GATES[mode]
    parts = g.node("Split", [name, g.ints([size] * _GATES[mode])], n_out=_GATES[mode], axis=0)
    return g.op("Concat", *[parts[i] for i in order], axis=0)


def _stacked(g: Graph, names: list[str]) -> str:
    """Per-direction tensors stacked on a new leading axis (ONNX's num_directions)."""
    parts = [g.op("Unsqueeze", n, g.ints([0])) for n in names]
    return parts[0] if len(parts) == 1 else g.op("Concat", *parts, axis=0)


def _rnn(g: Graph, module: Any, input: Any, hx: Any) -> list[str]:
    """The nodes of ``module(input, hx)``: the names of output, h_n (and c_n)."""
    mode = module.mode
    if getattr(module, "proj_size", 0):
        raise UnsupportedOperatorError("aten::lstm (proj_size)", g.opset, None)
    op_type = {"LSTM": "LSTM", "GRU": "GRU"}.get(mode, "RNN")
    dirs = 2 if module.bidirectional else 1
    hidden = module.hidden_size
    batched = input.dim() == 3
    x = g.value(input)
    if not batched:
        x = g.op("Unsqueeze", x, g.ints([1 if not module.batch_first else 0]))
    if module.batch_first:
        x = g.op("Transpose", x, perm=[1, 0, 2])
    states: list[Any] = []
    if hx is not None:
        states = list(hx) if isinstance(hx, (tuple, list)) else [hx]
        states = [g.value(s) for s in states]
        if not batched:
            states = [g.op("Unsqueeze", s, g.ints([1])) for s in states]
    finals: list[list[str]] = [[] for _ in range(2 if mode == "LSTM" else 1)]
    for layer in range(module.num_layers):
        w, r, b = [], [], []
        for k in range(layer * dirs, (layer + 1) * dirs):
            names = module._all_weights[k]
            params = [getattr(module, n) for n in names]
            w.append(_reordered(g, params[0], mode))
            r.append(_reordered(g, params[1], mode))
            if module.bias:
                b.append(
                    g.op(
                        "Concat",
                        _reordered(g, params[2], mode),
                        _reordered(g, params[3], mode),
                        axis=0,
                    )
                )
        inputs = [x, _stacked(g, w), _stacked(g, r), _stacked(g, b) if b else "", ""]
        for s in states:
            inputs.append(
                g.op("Slice", s, g.ints([layer * dirs]), g.ints([(layer + 1) * dirs]), g.ints([0]))
            )
        attrs: dict[str, Any] = dict(
            hidden_size=hidden, direction="bidirectional" if dirs == 2 else "forward"
        )
        if op_type == "GRU":
            attrs["linear_before_reset"] = 1
        if op_type == "RNN":
            act = "Relu" if mode == "RNN_RELU" else "Tanh"
            attrs["activations"] = [act] * dirs
        outs = g.node(
            op_type, inputs, n_out=3 if op_type == "LSTM" else 2, hint=mode.lower(), **attrs
        )
        # Y (seq, dirs, batch, hidden) -> (seq, batch, dirs * hidden)
        y = g.op("Transpose", outs[0], perm=[0, 2, 1, 3])
        x = g.op("Reshape", y, g.ints([0, 0, -1]))
        for i in range(len(finals)):
            finals[i].append(outs[1 + i])
        if module.dropout and module.training and layer < module.num_layers - 1:
            raise UnsupportedOperatorError("aten::dropout (between RNN layers)", g.opset, None)
    output = x
    if module.batch_first:
        output = g.op("Transpose", output, perm=[1, 0, 2])
    if not batched:
        output = g.op("Squeeze", output, g.ints([1 if not module.batch_first else 0]))
    results = [g.op("Identity", output, hint=mode.lower())]
    for parts in finals:
        h = parts[0] if len(parts) == 1 else g.op("Concat", *parts, axis=0)
        if not batched:
            h = g.op("Squeeze", h, g.ints([1]))
        results.append(g.op("Identity", h, hint="h_n"))
    return results


@contextlib.contextmanager
def modules_exported_whole(g: Graph, model: Any) -> Iterator[None]:
    """While the model runs, the recurrent layers' forward writes their nodes."""
    from ..nn.modules.rnn import RNNBase
    from ._trace import tensors_in

    patched = []
    modules = list(model.modules()) if hasattr(model, "modules") else []
    for module in modules:
        if not isinstance(module, RNNBase):
            continue
        original = module.forward

        def forward(input: Any, hx: Any = None, _m: Any = module, _f: Any = original) -> Any:
            if not g.tracked(input):
                return _f(input, hx)
            with overrides.DisableTorchFunction():
                out = _f(input, hx)
            names = _rnn(g, _m, input, hx)
            for t, n in zip(tensors_in(out), names):
                g.bind(t, n)
            return out

        patched.append(module)
        module.__dict__["forward"] = forward
    try:
        yield
    finally:
        for module in patched:
            module.__dict__.pop("forward", None)
