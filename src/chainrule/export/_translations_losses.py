"""Losses in an export, as PyTorch's export writes them: ``mse_loss``, ``l1_loss``,
``smooth_l1_loss`` and ``huber_loss`` after a ``broadcast_tensors`` of input and target
(which, of equal sizes, gives the tensors themselves: later reads of them read its
items); ``binary_cross_entropy`` (its weight expanded to the input's size),
``binary_cross_entropy_with_logits``, ``nll_loss_nd`` and ``kl_div`` as one node; the
reduction as its number (none 0, mean 1, sum 2). Also their ATen overloads, for a
loaded program."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainrule.nn.functional as F

from ._translations_margin_losses import MARGIN_LOSSES, MARGIN_LOSSES_ARGS, MARGIN_LOSSES_TABLE
from ._translations_more import PREV, Chain, Step, trim
from ._translations_now import WriteNow

Call = tuple[str, list, dict]
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}
_MODES = ("none", "mean", "sum")


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> int:
    """The reduction's number; the legacy ``size_average``/``reduce`` flags, where given,
    decide it as PyTorch's do (``reduce=False``: none; ``size_average=False``: sum)."""
    if size_average is not None or reduce is not None:
        if reduce is False:
            return 0
        return 2 if size_average is False else 1
    if reduction not in _REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTION[reduction]


def _expanded(op: str, input: Any, target: Any) -> list:
    """Input and target after their ``broadcast_tensors`` (written now: the loss reads its
    items; of equal sizes they are the tensors themselves, whose later reads read them)."""
    return list(WriteNow(op)("broadcast_tensors.default", [[input, target]]))


def _pointwise(op: str, input: Any, target: Any, extra: list) -> Call:
    """``broadcast_tensors`` of input and target, then ``op`` on them."""
    args = trim([*_expanded(op, input, target), *extra], [1, 1.0][: len(extra)])
    return f"{op}.default", args, {}


def _weighted(errors: list, weight: Any, reduction: int, mean: list) -> Chain:
    """The pointwise ``errors`` (calls) times ``weight``, summed or averaged (``mean``:
    the calls of the average from the weighted sum, ``PREV``)."""
    calls = [*errors, ("mul.Tensor", [PREV, weight], {})]
    if reduction == 2:
        calls.append(("sum.default", [PREV], {}))
    elif reduction == 1:
        calls += mean
    return Chain(calls)


def _mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
              reduction: str = "mean", weight: Any = None) -> Any:  # fmt: skip
    code = _reduction(reduction, size_average, reduce)
    if weight is None:
        return _pointwise("mse_loss", input, target, [code])
    x, y = _expanded("mse_loss", input, target)
    errors = [("sub.Tensor", [x, y], {}), ("pow.Tensor_Scalar", [PREV, 2], {})]
    # the mean is the weighted sum over the weights' sum
    mean = [("sum.default", [PREV], {}), ("sum.default", [weight], {})]
    mean.append(("div.Tensor", [Step(3), PREV], {}))
    return _weighted(errors, weight, code, mean)


def _l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Any = None) -> Call:  # fmt: skip
    if weight is not None:
        raise NotImplementedError(
            "chainrule.export cannot export l1_loss with a weight: PyTorch 2.13's export "
            "leaves the weight out (its l1_loss passes it on to the export's trace), so its "
            "program would compute the unweighted loss. Weigh the loss yourself: "
            "(input - target).abs() * weight, then sum or mean it"
        )
    return _pointwise("l1_loss", input, target, [_reduction(reduction, size_average, reduce)])


def _smooth_l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                    reduction: str = "mean", beta: float = 1.0) -> Call:  # fmt: skip
    code = _reduction(reduction, size_average, reduce)
    if beta == 0.0:  # (PyTorch's smooth_l1_loss is then l1_loss)
        return _pointwise("l1_loss", input, target, [code])
    return _pointwise("smooth_l1_loss", input, target, [code, beta])


def _huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0,
                weight: Any = None) -> Any:  # fmt: skip
    code = _reduction(reduction)
    if weight is None:
        return _pointwise("huber_loss", input, target, [code, delta])
    errors = [_pointwise("huber_loss", input, target, [0, delta])]
    return _weighted(errors, weight, code, [("mean.default", [PREV], {})])


def _binary_cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,
                          reduce: Any = None, reduction: str = "mean") -> Any:  # fmt: skip
    code = _reduction(reduction, size_average, reduce)
    if weight is None:
        return "binary_cross_entropy.default", trim([input, target, None, code], [None, 1]), {}
    return Chain(
        [
            ("expand.default", [weight, list(input.shape)], {}),
            ("binary_cross_entropy.default", trim([input, target, Step(0), code], [1]), {}),
        ]
    )


def _binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,
                                      size_average: Any = None, reduce: Any = None,
                                      reduction: str = "mean", pos_weight: Any = None) -> Call:  # fmt: skip
    args = [input, target, weight, pos_weight, _reduction(reduction, size_average, reduce)]
    return "binary_cross_entropy_with_logits.default", trim(args, [None, None, 1]), {}


def _nll_loss(input: Any, target: Any, weight: Any = None, size_average: Any = None,
              ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Call:  # fmt: skip
    args = [input, target, weight, _reduction(reduction, size_average, reduce), ignore_index]
    return "nll_loss_nd.default", trim(args, [None, 1, -100]), {}


def _kl_div(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", log_target: bool = False) -> Any:  # fmt: skip
    kwargs = {"log_target": True} if log_target else {}
    if reduction == "batchmean" and size_average is None and reduce is None:
        # the sum over the batch size (the first size, 1 for a 0-d input)
        batch = input.shape[0] if input.dim() else 1
        return Chain(
            [("kl_div.default", [input, target, 2], kwargs), ("div.Tensor", [Step(0), batch], {})]
        )
    code = _reduction(reduction, size_average, reduce)
    return "kl_div.default", trim([input, target, code], [1]), kwargs


LOSSES: dict[str, Callable[..., Any]] = {
    "mse_loss": _mse_loss,
    "l1_loss": _l1_loss,
    "smooth_l1_loss": _smooth_l1_loss,
    "huber_loss": _huber_loss,
    "binary_cross_entropy": _binary_cross_entropy,
    "binary_cross_entropy_with_logits": _binary_cross_entropy_with_logits,
    "nll_loss": _nll_loss,
    "kl_div": _kl_div,
}

LOSSES_ARGS: dict[str, str] = {
    "mse_loss.default": "self target reduction",
    "l1_loss.default": "self target reduction",
    "smooth_l1_loss.default": "self target reduction beta",
    "huber_loss.default": "self target reduction delta",
    "binary_cross_entropy.default": "self target weight reduction",
    "binary_cross_entropy_with_logits.default": "self target weight pos_weight reduction",
    "nll_loss_nd.default": "self target weight reduction ignore_index",
    "nll_loss.default": "self target weight reduction ignore_index",
    "kl_div.default": "self target reduction",
}


def _nll(
    self: Any, target: Any, weight: Any = None, reduction: int = 1, ignore_index: int = -100
) -> Any:
    return F.nll_loss(self, target, weight, ignore_index=ignore_index, reduction=_MODES[reduction])


def _bce_with_logits(
    self: Any, target: Any, weight: Any = None, pos_weight: Any = None, reduction: int = 1
) -> Any:
    return F.binary_cross_entropy_with_logits(
        self, target, weight, reduction=_MODES[reduction], pos_weight=pos_weight
    )


LOSSES_TABLE: dict[str, Callable[..., Any]] = {
    "mse_loss.default": lambda self, target, reduction=1: F.mse_loss(
        self, target, reduction=_MODES[reduction]
    ),
    "l1_loss.default": lambda self, target, reduction=1: F.l1_loss(
        self, target, reduction=_MODES[reduction]
    ),
    "smooth_l1_loss.default": lambda self, target, reduction=1, beta=1.0: F.smooth_l1_loss(
        self, target, reduction=_MODES[reduction], beta=beta
    ),
    "huber_loss.default": lambda self, target, reduction=1, delta=1.0: F.huber_loss(
        self, target, reduction=_MODES[reduction], delta=delta
    ),
    "binary_cross_entropy.default": lambda self, target, weight=None, reduction=1: (
        F.binary_cross_entropy(self, target, weight, reduction=_MODES[reduction])
    ),
    "binary_cross_entropy_with_logits.default": _bce_with_logits,
    "nll_loss_nd.default": _nll,
    "nll_loss.default": _nll,
    "kl_div.default": lambda self, target, reduction=1, *, log_target=False: F.kl_div(
        self, target, reduction=_MODES[reduction], log_target=log_target
    ),
}

LOSSES.update(MARGIN_LOSSES)
LOSSES_ARGS.update(MARGIN_LOSSES_ARGS)
LOSSES_TABLE.update(MARGIN_LOSSES_TABLE)
