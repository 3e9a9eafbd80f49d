"""``AdaptiveLogSoftmaxWithLoss``: the adaptive softmax of Grave et al. (2016), a softmax
over many classes factored into a head and a few smaller clusters.

The classes ``0 .. n_classes-1`` (sorted by frequency, the most frequent first) are cut at
``c_0 < c_1 < ... < c_K = n_classes``: the head scores the shortlist ``[0, c_0)`` and one
entry per cluster ``k = 0 .. K-1``, which holds the classes ``[c_k, c_{k+1})`` and is
scored by a low-rank projection of its own. There is no ``nn.functional`` op for it (nor
in PyTorch); the module composes ``linear``, ``log_softmax``, ``gather`` and indexing.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

# PyTorch's name and fields for what ``forward`` returns
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_CUTOFFS_MESSAGE = (
    "cutoffs should be a sequence of unique, positive integers sorted in an increasing "
    "order, where each value is between 1 and n_classes-1"
)


def _checked_cutoffs(cutoffs: Sequence[int], n_classes: int) -> list[int]:
    """``cutoffs`` as a list: nonempty, strictly increasing integers in ``[1, n_classes-1]``
    (a ValueError otherwise, with PyTorch's messages)."""
    cutoffs = list(cutoffs)
    if not cutoffs:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    # checked in PyTorch's order, so that odd items (None, strings) fail as there
    if (
        cutoffs != sorted(cutoffs)
        or min(cutoffs) <= 0
        or max(cutoffs) > n_classes - 1
        or len(set(cutoffs)) != len(cutoffs)
        or any(int(c) != c for c in cutoffs)
    ):
        raise ValueError(_CUTOFFS_MESSAGE)
    return cutoffs


def _check_shapes(input: Tensor, target: Tensor) -> None:
    """A 1-d target of ``N`` labels goes with an ``(N, in_features)`` input, a 0-d target
    with an ``(in_features,)`` input (RuntimeErrors with PyTorch's messages otherwise)."""
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.dim() != 2:
            raise RuntimeError(
                "1D target tensor expects 2D input tensors, "
                f"but found inputs with size {input.size()}"
            )
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(
                "0D target tensor expects 1D input tensors, "
                f"but found inputs with size {input.size()}"
            )
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


class AdaptiveLogSoftmaxWithLoss(Module):
    """The adaptive softmax: ``log p(y | x)`` for classes cut into a head and clusters.

    With ``cutoffs + [n_classes] = [c_0, ..., c_K]``, the head is ``Linear(in_features,
    c_0 + K)`` (a bias only with ``head_bias``) and cluster ``k`` is ``Sequential(
    Linear(in_features, h_k), Linear(h_k, c_{k+1} - c_k))`` without biases, where
    ``h_k = floor(in_features / div_value^(k+1))``. With ``H = log_softmax(head(x))``::

        log p(y | x) = H[y]                                        y < c_0
        log p(y | x) = H[c_0 + k] + log_softmax(tail_k(x))[y - c_k]  c_k <= y < c_{k+1}

    ``forward(input, target)`` returns ``_ASMoutput(output, loss)``: ``output[n] =
    log p(target[n] | input[n])`` and ``loss = -mean(output)``; a cluster runs only on the
    rows whose target falls in it. ``log_prob`` gives all ``n_classes`` log-probabilities,
    ``predict`` the most probable class. The gradients are those of the composed ops:
    ``d loss / d output[n] = -1/N`` through ``gather`` and ``log_softmax``.
    """

    in_features: int
    n_classes: int
    cutoffs: list[int]
    div_value: float
    head_bias: bool
    head: Linear
    tail: ModuleList

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = _checked_cutoffs(cutoffs, n_classes)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory_kwargs)
        self.tail = ModuleList()
        for k, (low, high) in enumerate(pairwise(self.cutoffs)):
            hidden = int(in_features // (div_value ** (k + 1)))
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **factory_kwargs),
                    Linear(hidden, high - low, bias=False, **factory_kwargs),
                )
            )

    def reset_parameters(self) -> None:
        """Draw the head's and then each cluster's two weights anew (``Linear``'s init)."""
        self.head.reset_parameters()
        for projection in self.tail:
            for linear in projection:
                linear.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> _ASMoutput:
        """``output[n] = log p(target[n] | input[n])`` and ``loss = -mean(output)``."""
        _check_shapes(input, target)
        batched = target.dim() == 1
        x = input if batched else input.unsqueeze(0)
        y = target if batched else target.unsqueeze(0)
        # the cluster part of each row's log-probability, and the head column it reads
        output = x.new_zeros(y.size(0))
        head_column = y.clone()
        covered = int(((y >= 0) & (y < self.shortlist_size)).sum().item())
        for k, (low, high) in enumerate(pairwise(self.cutoffs)):
            rows = ((y >= low) & (y < high)).nonzero().flatten()
            if rows.numel() == 0:
                continue
            cluster_logprob = F.log_softmax(self.tail[k](x.index_select(0, rows)), dim=1)
            local = cluster_logprob.gather(1, (y.index_select(0, rows) - low).unsqueeze(1))
            output = output.index_copy(0, rows, local.squeeze(1))
            head_column = head_column.index_fill(0, rows, self.shortlist_size + k)
            covered += rows.numel()
        if covered != y.size(0):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], "
                f"but values in range [{y.min().item()}, {y.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(x), dim=1)
        output = output + head_logprob.gather(1, head_column.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """``(N, n_classes)`` log-probabilities from the input and the head's output."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for k, (low, high) in enumerate(pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[k](input), dim=1)
            column = self.shortlist_size + k
            out[:, low:high] = cluster_logprob + head_logprob[:, column : column + 1]
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """``log p(c | input[n])`` for every class ``c``: ``(N, in_features) -> (N, n_classes)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """``argmax_c log p(c | input[n])``: ``(N, in_features) -> (N,)``.

        A row whose head argmax is a shortlist class needs no cluster: that class's
        probability is at least its cluster's total, hence at least any class in it.
        """
        head_output = self.head(input)
        best = head_output.argmax(dim=1)
        in_a_cluster = best >= self.shortlist_size
        if not in_a_cluster.any():
            return best
        if in_a_cluster.all():
            return self._full_log_prob(input, head_output).argmax(dim=1)
        log_prob = self._full_log_prob(input[in_a_cluster], head_output[in_a_cluster])
        best[in_a_cluster] = log_prob.argmax(dim=1)
        return best
