"""Recurrent layers: ``RNN`` (tanh or relu), ``LSTM`` (with projections) and ``GRU`` over whole
sequences, and the one-step cells ``RNNCell``, ``LSTMCell`` and ``GRUCell``.

Each direction of each layer of a padded sequence is one op (``ops/recurrent.py``:
``lstm_layer``, ``gru_layer``, ``rnn_layer``): the input's part of every gate for all time
steps in one matrix product, then one product ``h W_hhᵀ`` per step for all gates together
(the gate weights are stacked as PyTorch stacks them: W_ih is (4·hidden, input) for the
LSTM, in the order i, f, g, o; (3·hidden, input) for the GRU, r, z, n). Packed sequences and
the projected LSTM run step by step (an LSTM step is the fused cell op), the state shrinking
(forward) or growing (reverse) as sequences end.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, NamedTuple

import chainrule

from ..._backend import ndarray, xp
from ..._tensor import Tensor, _make
from ...ops.recurrent import gru_layer, last_state, lstm_cell, lstm_layer, rnn_layer
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


def _zeros(x: Tensor, *size: int) -> Tensor:
    """Zeros of x's dtype, on its device: a default initial state. On the host the array is
    wrapped as it is (a tenth of chainrule.zeros' time, which parses and checks its
    arguments)."""
    data = x._data
    if data.__class__ is ndarray:
        return _make(xp.zeros(size, dtype=data.dtype), x._dtype)
    return chainrule.zeros(*size, dtype=x.dtype, device=x.device)


class _LastStep(NamedTuple):
    """A final state of a whole-layer op: the step of ``states`` (T, B, H) the recurrence ran
    last, selected only when h_n (c_n) is made of it (_stack_finals)."""

    states: Tensor
    reverse: bool

    def select(self) -> Tensor:
        return self.states[0 if self.reverse else -1]


def _stack_finals(finals: list) -> Tensor:
    """The final states of every layer and direction stacked, (L·D, B, H); one layer's and
    direction's, of a whole-layer op, in one op (last_state: PyTorch's stack of one)."""
    if len(finals) == 1 and isinstance(finals[0], _LastStep):
        return last_state(finals[0].states, reverse=finals[0].reverse)
    return chainrule.stack([f.select() if isinstance(f, _LastStep) else f for f in finals], 0)


def _autocast_on() -> bool:
    """Whether this thread is in an autocast region (which casts the input and weights)."""
    from ...amp.autocast_mode import switches

    return any(switches.enabled.values())


class RNNBase(Module):
    """What the three recurrent layers share: the parameters per layer and direction, the
    checks of the input and the initial state, and the loop over layers and directions."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        for name, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int):
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {
                    "weight_ih": (gate_size, layer_input),
                    "weight_hh": (gate_size, real_hidden_size),
                }
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for stem, shape in shapes.items():
                    name = stem + suffix
                    setattr(
                        self, name, Parameter(chainrule.empty(shape, dtype=dtype, device=device))
                    )
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    # ----- parameters ---------------------------------------------------------------

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    def __getstate__(self) -> dict:
        """The module's state with the list of its weights that PyTorch's layer keeps as an
        attribute (and reads when it loads a whole model chainrule saved)."""
        return {**super().__getstate__(), "_flat_weights": self._flat_weights}

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        state.pop("_flat_weights", None)  # (read from the parameters here)
        state.pop("_flat_weight_refs", None)
        super().__setstate__(state)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters per layer and direction, in PyTorch's order."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: the weights already lie where the layer reads them (cuDNN's contiguous
        weight buffer has no NumPy counterpart)."""

    def reset_parameters(self) -> None:
        """Every parameter uniform in ±1/√hidden_size."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ----- checks, as PyTorch's ---------------------------------------------------------

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != weight_dtype and not _autocast_on():
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def _mini_batch(self, input: Tensor, batch_sizes: Tensor | None) -> int:
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(
        self, input: Tensor, batch_sizes: Tensor | None
    ) -> tuple[int, int, int]:
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, self._mini_batch(input, batch_sizes), size)

    def check_hidden_size(
        self,
        hx: Tensor,
        expected_hidden_size: tuple[int, int, int],
        msg: str = "Expected hidden size {}, got {}",
    ) -> None:
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None) -> Tensor:
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    # ----- the forward ---------------------------------------------------------------

    def _zeros(self, input: Tensor, batch: int, size: int) -> Tensor:
        num_directions = 2 if self.bidirectional else 1
        return chainrule.zeros(
            self.num_layers * num_directions, batch, size, dtype=input.dtype, device=input.device
        )

    def _default_hidden(self, input: Tensor, batch: int) -> Any:
        return self._zeros(input, batch, self.hidden_size)

    def _check_hidden_dims(self, hx: Any, is_batched: bool) -> Any:
        """hx of an unbatched input gets its batch dim; its dims are checked first."""
        if is_batched:
            if hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                )
            return hx
        if hx.dim() != 2:
            raise RuntimeError(
                f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
            )
        return hx.unsqueeze(1)

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._default_hidden(data, int(batch_sizes[0]))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self._check_packed(data, hx, batch_sizes)
            output, hidden = self._run(data, hx, batch_sizes._data.tolist())
            packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return packed, self.permute_hidden(hidden, unsorted_indices)
        if input.dim() not in (2, 3):
            raise ValueError(self._dims_message(input))
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:  # zeros, made in _run (the sizes the default state has are right)
            self.check_input(input, None)
        else:
            hx = self._check_hidden_dims(hx, is_batched)
            self.check_forward_args(input, hx, None)
            for state in self._states(hx):  # (no promotion: PyTorch's product refuses)
                if state.dtype != input.dtype and not _autocast_on():
                    raise RuntimeError(
                        "mat1 and mat2 must have the same dtype, but got "
                        f"{state._dtype.scalar_name} and {input._dtype.scalar_name}"
                    )
        x = input.transpose(0, 1) if self.batch_first else input
        if not x.shape[0]:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, hidden = self._run(x, hx, None)
        if self.batch_first:  # PyTorch transposes the RNN's and GRU's result in place
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = self._squeeze_hidden(hidden)
        return output, hidden

    def _check_packed(self, data: Tensor, hx: Any, batch_sizes: Tensor) -> None:
        self.check_forward_args(data, hx, batch_sizes)

    def _dims_message(self, input: Tensor) -> str:
        if self.mode == "GRU":
            return f"GRU: Expected input to be 2D or 3D, got {input.dim()}D instead"
        return f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead"

    def _squeeze_hidden(self, hidden: Any) -> Any:
        return hidden.squeeze(1)

    def _states(self, hx: Any) -> tuple:
        """The initial states as a tuple: (h0,) or, for the LSTM, (h0, c0)."""
        return (hx,)

    def _zero_state(self, x: Tensor) -> tuple:
        """The initial state of every layer and direction when none is given: zeros (B, H),
        one tensor for all (the layers only read it)."""
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (_zeros(x, x.shape[1], size),)

    def _hidden(self, finals: list) -> Any:
        """h_n (and c_n) from the final states of every layer and direction."""
        return _stack_finals([f[0] for f in finals])

    def _run(self, x: Tensor, hx: Any, batch_sizes: list | None) -> tuple[Tensor, Any]:
        """Every layer and direction over the time-major input (or the packed rows)."""
        num_directions = 2 if self.bidirectional else 1
        zeros = self._zero_state(x) if hx is None else None
        states = () if hx is None else self._states(hx)
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                weights = [getattr(self, name) for name in self._all_weights[k]]
                initial = zeros if zeros is not None else tuple(s[k] for s in states)
                out, final = self._direction(x, weights, initial, batch_sizes, direction == 1)
                outputs.append(out)
                finals.append(final)
            x = outputs[0] if num_directions == 1 else chainrule.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, self._hidden(finals)

    def _direction(
        self, x: Tensor, weights: list, initial: tuple, batch_sizes: list | None, reverse: bool
    ) -> tuple[Tensor, tuple]:
        """One direction of one layer: the outputs in time order and the final states.

        With packed rows, the state keeps the rows of the sequences still running: going
        forward, a step with fewer rows sets the ended ones aside as their final state;
        going backward, a step with more rows takes in their initial state.
        """
        x_gates, step = self._gates_and_step(x, weights)
        if batch_sizes is None:
            pieces = x_gates.unbind(0)
            sizes = [x.shape[1]] * x.shape[0]
        else:
            pieces = x_gates.split(batch_sizes)
            sizes = batch_sizes
        order = range(len(pieces) - 1, -1, -1) if reverse else range(len(pieces))
        rows = sizes[order[0]] if len(pieces) else initial[0].shape[0]
        state = initial if rows == initial[0].shape[0] else tuple(s[:rows] for s in initial)
        outs: list = [None] * len(pieces)
        ended: list = []
        for t in order:
            bs = sizes[t]
            if bs < rows:  # forward, packed: sequences end
                ended.append(self._final(state, bs, None))
                state = tuple(s[:bs] for s in state)
            elif bs > rows:  # reverse, packed: sequences start
                state = tuple(
                    chainrule.cat([f, i[rows:bs]])
                    for f, i in zip(self._final(state, 0, None), initial)
                )
            rows = bs
            outs[t], state = step(pieces[t], state)
        ended.append(self._final(state, 0, None))
        if len(ended) == 1:
            final = ended[0]
        else:
            final = tuple(chainrule.cat(parts[::-1]) for parts in zip(*ended))
        out = chainrule.stack(outs) if batch_sizes is None else chainrule.cat(outs)
        return out, final

    def _final(self, state: tuple, start: int, stop: int | None) -> tuple:
        """The rows start:stop of the state as it is returned: (h,) or (h, c)."""
        return tuple(s[start:stop] for s in state)

    def _gates_and_step(self, x: Tensor, weights: list) -> tuple:
        raise NotImplementedError


class RNN(RNNBase):
    """h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh) (or relu), layer after layer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def _direction(
        self, x: Tensor, weights: list, initial: tuple, batch_sizes: list | None, reverse: bool
    ) -> tuple[Tensor, tuple]:
        """A padded sequence is one op for the whole layer; packed ones run step by step."""
        if batch_sizes is not None or x.shape[0] == 0:
            return super()._direction(x, weights, initial, batch_sizes, reverse)
        if self.bias:
            b_ih, b_hh = weights[2], weights[3]
        else:
            b_ih = b_hh = chainrule.zeros(self.hidden_size, dtype=x.dtype, device=x.device)
        out = rnn_layer(
            x,
            weights[0],
            weights[1],
            b_ih,
            b_hh,
            initial[0],
            nonlinearity=self.nonlinearity,
            reverse=reverse,
        )[0]
        return out, (_LastStep(out, reverse),)

    def _gates_and_step(self, x: Tensor, weights: list) -> tuple:
        w_ih, w_hh = weights[0], weights[1]
        bias = weights[2] + weights[3] if self.bias else None
        w_hh_t = w_hh.t()
        act = chainrule.tanh if self.mode == "RNN_TANH" else chainrule.relu

        def step(x_t: Tensor, state: tuple) -> tuple:
            h = act(chainrule.addmm(x_t, state[0], w_hh_t))
            return h, (h,)

        return F.linear(x, w_ih, bias), step


class GRU(RNNBase):
    """r, z = σ(x W_i{r,z}ᵀ + b_i{r,z} + h W_h{r,z}ᵀ + b_h{r,z}),
    n = tanh(x W_inᵀ + b_in + r (h W_hnᵀ + b_hn)), h' = (1 - z) n + z h."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def _direction(
        self, x: Tensor, weights: list, initial: tuple, batch_sizes: list | None, reverse: bool
    ) -> tuple[Tensor, tuple]:
        """A padded sequence is one op for the whole layer (its outputs are h_t for every
        step, and the gates and h W_hnᵀ + b_hn backward reads); packed ones run step by step."""
        if batch_sizes is not None or x.shape[0] == 0:
            return super()._direction(x, weights, initial, batch_sizes, reverse)
        if self.bias:
            b_ih, b_hh = weights[2], weights[3]
        else:
            b_ih = b_hh = chainrule.zeros(3 * self.hidden_size, dtype=x.dtype, device=x.device)
        out = gru_layer(x, weights[0], weights[1], b_ih, b_hh, initial[0], reverse=reverse)[0]
        return out, (_LastStep(out, reverse),)

    def _gates_and_step(self, x: Tensor, weights: list) -> tuple:
        w_ih, w_hh = weights[0], weights[1]
        b_ih, b_hh = (weights[2], weights[3]) if self.bias else (None, None)
        n = self.hidden_size

        def step(x_t: Tensor, state: tuple) -> tuple:
            h = state[0]
            h_gates = F.linear(h, w_hh, b_hh)
            rz = (x_t[:, : 2 * n] + h_gates[:, : 2 * n]).sigmoid()
            r, z = rz[:, :n], rz[:, n:]
            cand = (x_t[:, 2 * n :] + r * h_gates[:, 2 * n :]).tanh()
            h = (1 - z) * cand + z * h
            return h, (h,)

        return F.linear(x, w_ih, b_ih), step


class LSTM(RNNBase):
    """i, f, o = σ(·), g = tanh(·) of x W_ihᵀ + b_ih + h W_hhᵀ + b_hh; c' = f c + i g,
    h' = o tanh(c') (projected by W_hr when proj_size > 0)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(
        self, input: Tensor, batch_sizes: Tensor | None
    ) -> tuple[int, int, int]:
        num_directions = 2 if self.bidirectional else 1
        return (
            self.num_layers * num_directions,
            self._mini_batch(input, batch_sizes),
            self.hidden_size,
        )

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def _default_hidden(self, input: Tensor, batch: int) -> Any:
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return self._zeros(input, batch, size), self._zeros(input, batch, self.hidden_size)

    def _check_hidden_dims(self, hx: Any, is_batched: bool) -> Any:
        h, c = hx
        if is_batched:
            if h.dim() != 3 or c.dim() != 3:
                raise RuntimeError(
                    "For batched 3-D input, hx and cx should also be 3-D but got "
                    f"({h.dim()}-D, {c.dim()}-D) tensors"
                )
            return hx
        if h.dim() != 2 or c.dim() != 2:
            raise RuntimeError(
                "For unbatched 2-D input, hx and cx should also be 2-D but got "
                f"({h.dim()}-D, {c.dim()}-D) tensors"
            )
        return h.unsqueeze(1), c.unsqueeze(1)

    def _check_packed(self, data: Tensor, hx: Any, batch_sizes: Tensor) -> None:
        """PyTorch checks no size of a packed LSTM input (a bad one fails in its product, or
        crashes it); the sizes that would otherwise give a result from the wrong states
        raise here: h's number of layers (PyTorch's error), c's hidden size."""
        h, c = hx
        if h.dim() < 3:  # (PyTorch reads h's size 2)
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{h.dim()}, "
                f"{h.dim() - 1}], but got 2)"
            )
        if h.size(0) != self.num_layers * (2 if self.bidirectional else 1):
            raise RuntimeError("Expected more hidden states in stacked_rnn")
        h_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if h.size(-1) == h_size and c.dim() == 3 and c.size(-1) != self.hidden_size:
            self.check_hidden_size(
                c,
                self.get_expected_cell_size(data, batch_sizes),
                "Expected hidden[1] size {}, got {}",
            )

    def _dims_message(self, input: Tensor) -> str:
        return f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead"

    def _squeeze_hidden(self, hidden: Any) -> Any:
        return hidden[0].squeeze(1), hidden[1].squeeze(1)

    def _states(self, hx: Any) -> tuple:
        return tuple(hx)

    def _zero_state(self, x: Tensor) -> tuple:
        # one zeros tensor for h0 and c0 where their sizes agree (no projection)
        batch, n = x.shape[1], self.hidden_size
        c = _zeros(x, batch, n)
        if self.proj_size == 0:
            return c, c
        return _zeros(x, batch, self.proj_size), c

    def _hidden(self, finals: list) -> Any:
        return _stack_finals([f[0] for f in finals]), _stack_finals([f[1] for f in finals])

    def _final(self, state: tuple, start: int, stop: int | None) -> tuple:
        # the running cell state is the cell op's [h, c]: c is its last hidden_size columns
        n = self.hidden_size
        return state[0][start:stop], state[1][start:stop, -n:]

    def _direction(
        self, x: Tensor, weights: list, initial: tuple, batch_sizes: list | None, reverse: bool
    ) -> tuple[Tensor, tuple]:
        """A padded sequence without projections is one op for the whole layer (its outputs
        are h_t and c_t for every step, and the gates and tanh(c_t) backward reads); packed
        or projected ones run step by step."""
        if batch_sizes is not None or self.proj_size > 0 or x.shape[0] == 0:
            return super()._direction(x, weights, initial, batch_sizes, reverse)
        if self.bias:
            b_ih, b_hh = weights[2], weights[3]
        else:
            b_ih = b_hh = chainrule.zeros(4 * self.hidden_size, dtype=x.dtype, device=x.device)
        out, c, _, _ = lstm_layer(
            x, weights[0], weights[1], b_ih, b_hh, initial[0], initial[1], reverse=reverse
        )
        return out, (_LastStep(out, reverse), _LastStep(c, reverse))

    def _gates_and_step(self, x: Tensor, weights: list) -> tuple:
        w_ih, w_hh = weights[0], weights[1]
        bias = weights[2] + weights[3] if self.bias else None
        w_hr_t = weights[-1].t() if self.proj_size > 0 else None
        w_hh_t = w_hh.t()
        n = self.hidden_size

        def step(x_t: Tensor, state: tuple) -> tuple:
            hc = lstm_cell(chainrule.addmm(x_t, state[0], w_hh_t), state[1])
            h = hc[:, :n]
            if w_hr_t is not None:
                h = h.matmul(w_hr_t)
            return h, (h, hc)

        return F.linear(x, w_ih, bias), step


class RNNCellBase(Module):
    """What the cells share: weight_ih, weight_hh (and biases) for ``num_chunks`` gates."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        size = num_chunks * hidden_size
        self.weight_ih = Parameter(chainrule.empty((size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(chainrule.empty((size, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(chainrule.empty(size, dtype=dtype, device=device))
            self.bias_hh = Parameter(chainrule.empty(size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Every parameter uniform in ±1/√hidden_size."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _gates(self, input: Tensor, hx: Tensor) -> tuple[Tensor, Tensor]:
        """x W_ihᵀ + b_ih and h W_hhᵀ + b_hh, every gate at once."""
        _check_cell(input, hx, self.input_size, self.hidden_size)
        return (
            F.linear(input, self.weight_ih, self.bias_ih),
            F.linear(hx, self.weight_hh, self.bias_hh),
        )


def _check_cell(input: Tensor, hx: Tensor, input_size: int, hidden_size: int) -> None:
    """PyTorch's checks of a cell's input and state sizes."""
    if input.size(1) != input_size:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.size(1)} expected {input_size}"
        )
    _check_state(input, hx, hidden_size, "hidden0")


def _check_state(input: Tensor, state: Tensor, hidden_size: int, label: str) -> None:
    """PyTorch's checks of one state (hidden0 = h, hidden1 = the LSTM's c): (batch, hidden)."""
    if input.size(0) != state.size(0):
        raise RuntimeError(
            f"Input batch size {input.size(0)} doesn't match {label} batch size {state.size(0)}"
        )
    if state.size(1) != hidden_size:
        raise RuntimeError(
            f"{label} has inconsistent hidden_size: got {state.size(1)}, expected {hidden_size}"
        )


def _batched(name: str, input: Tensor, states: tuple, what: list[str]) -> bool:
    """Checks the dims of a cell's input and states; whether the input is batched."""
    if input.dim() not in (1, 2):
        raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
    for label, s in zip(what, states):
        if s is not None and s.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {s.dim()}D instead")
    return input.dim() == 2


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh) (or relu)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        is_batched = _batched("RNNCell", input, (hx,), ["hidden"])
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = chainrule.zeros(
                input.size(0), self.hidden_size, dtype=input.dtype, device=input.device
            )
        elif not is_batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x_part, h_part = self._gates(input, hx)
        pre = x_part + h_part
        ret = pre.tanh() if self.nonlinearity == "tanh" else pre.relu()
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """i, f, o = σ(·), g = tanh(·) of x W_ihᵀ + b_ih + h W_hhᵀ + b_hh;
    c' = f c + i g, h' = o tanh(c')."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        states = tuple(hx) if hx is not None else ()
        is_batched = _batched("LSTMCell", input, states, ["hx[0]", "hx[1]"])
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = chainrule.zeros(
                input.size(0), self.hidden_size, dtype=input.dtype, device=input.device
            )
            h, c = zeros, zeros
        else:
            h, c = (hx[0], hx[1]) if is_batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        x_part, h_part = self._gates(input, h)
        _check_state(input, c, self.hidden_size, "hidden1")
        i, f, g, o = (x_part + h_part).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """r, z = σ(·) of x W_i{r,z}ᵀ + b_i{r,z} + h W_h{r,z}ᵀ + b_h{r,z},
    n = tanh(x W_inᵀ + b_in + r (h W_hnᵀ + b_hn)), h' = (1 - z) n + z h."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        is_batched = _batched("GRUCell", input, (hx,), ["hidden"])
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = chainrule.zeros(
                input.size(0), self.hidden_size, dtype=input.dtype, device=input.device
            )
        elif not is_batched:
            hx = hx.unsqueeze(0)
        x_part, h_part = self._gates(input, hx)
        x_r, x_z, x_n = x_part.chunk(3, 1)
        h_r, h_z, h_n = h_part.chunk(3, 1)
        r = (x_r + h_r).sigmoid()
        z = (x_z + h_z).sigmoid()
        n = (x_n + r * h_n).tanh()
        ret = (1 - z) * n + z * hx
        return ret if is_batched else ret.squeeze(0)
