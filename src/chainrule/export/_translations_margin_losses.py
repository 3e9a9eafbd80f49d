"""More losses in an export, as PyTorch's export writes them: the margin and embedding
losses (``cosine_embedding_loss``, ``margin_ranking_loss``, ``hinge_embedding_loss``,
``soft_margin_loss``, ``triplet_margin_loss``, ``multi_margin_loss``,
``multilabel_margin_loss``) and ``poisson_nll_loss`` as one node each, their float
arguments as floats; ``multilabel_soft_margin_loss`` and ``gaussian_nll_loss`` (of a
number as variance) as the chain of their pointwise calls. ``gaussian_nll_loss`` of a
tensor variance and ``ctc_loss`` PyTorch's export refuses (a value read, an output size
that depends on values), and so does chainrule's. Also their ATen overloads, for a
loaded program."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import chainrule
import chainrule.nn.functional as F

from ._translations_more import PREV, Chain, Step, trim

Call = tuple[str, list, dict]
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}
_MODES = ("none", "mean", "sum")


def _code(reduction: str, size_average: Any = None, reduce: Any = None) -> int:
    """The reduction's number (the legacy flags, where given, decide it)."""
    if size_average is not None or reduce is not None:
        return 0 if reduce is False else (2 if size_average is False else 1)
    return _REDUCTION[reduction]


def _pair_loss(op: str) -> Callable[..., Call]:
    """``cosine_embedding_loss``/``margin_ranking_loss``: two inputs, a target, a margin."""

    def call(input1: Any, input2: Any, target: Any, margin: float = 0.0, size_average: Any = None,
             reduce: Any = None, reduction: str = "mean") -> Call:  # fmt: skip
        args = [input1, input2, target, float(margin), _code(reduction, size_average, reduce)]
        return f"{op}.default", trim(args, [0.0, 1]), {}

    return call


def _hinge_embedding_loss(input: Any, target: Any, margin: float = 1.0, size_average: Any = None,
                          reduce: Any = None, reduction: str = "mean") -> Call:  # fmt: skip
    args = [input, target, float(margin), _code(reduction, size_average, reduce)]
    return "hinge_embedding_loss.default", trim(args, [1.0, 1]), {}


def _soft_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                      reduction: str = "mean") -> Call:  # fmt: skip
    args = [input, target, _code(reduction, size_average, reduce)]
    return "soft_margin_loss.default", trim(args, [1]), {}


def _triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0,
                         p: float = 2, eps: float = 1e-6, swap: bool = False,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Call:  # fmt: skip
    code = _code(reduction, size_average, reduce)
    args = [anchor, positive, negative, float(margin), float(p), float(eps), swap, code]
    return "triplet_margin_loss.default", trim(args, [1.0, 2.0, 1e-6, False, 1]), {}


def _multi_margin_loss(input: Any, target: Any, p: int = 1, margin: float = 1.0,
                       weight: Any = None, size_average: Any = None, reduce: Any = None,
                       reduction: str = "mean") -> Call:  # fmt: skip
    # (p and margin are Scalars: written as given, never left out)
    args = [input, target, p, margin, weight, _code(reduction, size_average, reduce)]
    return "multi_margin_loss.default", trim(args, [None, 1]), {}


def _multilabel_margin_loss(input: Any, target: Any, size_average: Any = None,
                            reduce: Any = None, reduction: str = "mean") -> Call:  # fmt: skip
    args = [input, target, _code(reduction, size_average, reduce)]
    return "multilabel_margin_loss.default", trim(args, [1]), {}


def _poisson_nll_loss(input: Any, target: Any, log_input: bool = True, full: bool = False,
                      size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                      reduction: str = "mean") -> Call:  # fmt: skip
    code = _code(reduction, size_average, reduce)
    return "poisson_nll_loss.default", [input, target, log_input, full, eps, code], {}


def _reduced(calls: list, code: int) -> Chain:
    """``calls`` then their mean (1) or sum (2)."""
    if code:
        calls.append(("mean.default" if code == 1 else "sum.default", [PREV], {}))
    return Chain(calls)


def _multilabel_soft_margin_loss(input: Any, target: Any, weight: Any = None,
                                 size_average: Any = None, reduce: Any = None,
                                 reduction: str = "mean") -> Chain:  # fmt: skip
    """-(target·log σ(x) + (1 - target)·log σ(-x)) [· weight], summed over the classes
    (the last dim) and divided by their number, then reduced."""
    classes = input.dim() - 1
    calls: list = [
        ("log_sigmoid.default", [input], {}),
        ("mul.Tensor", [target, PREV], {}),
        ("rsub.Scalar", [target, 1], {}),
        ("neg.default", [input], {}),
        ("log_sigmoid.default", [PREV], {}),
        ("mul.Tensor", [Step(2), PREV], {}),
        ("add.Tensor", [Step(1), PREV], {}),
        ("neg.default", [PREV], {}),
    ]
    if weight is not None:
        calls.append(("mul.Tensor", [PREV, weight], {}))
    calls.append(("sum.dim_IntList", [PREV, [classes]], {}))
    calls.append(("div.Tensor", [PREV, input.shape[classes]], {}))
    return _reduced(calls, _code(reduction, size_average, reduce))


def _gaussian_nll_loss(input: Any, target: Any, var: Any, full: bool = False, eps: float = 1e-6,
                       reduction: str = "mean") -> Chain:  # fmt: skip
    """(log v + (input - target)²/v)/2 with v = var·ones clamped at eps [+ log(2π)/2]."""
    if isinstance(var, chainrule.Tensor):
        from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

        raise GuardOnDataDependentSymNode(
            "any(var < 0)",
            "Could not guard on data-dependent expression: gaussian_nll_loss checks that a "
            "tensor var has no negative entry, reading its values into Python (PyTorch's "
            "export refuses it too). Give var as a number, or compute the loss in tensors: "
            "0.5 * (var.clamp(min=eps).log() + (input - target) ** 2 / var.clamp(min=eps))",
        )
    calls: list = [
        ("ones_like.default", [input], {"pin_memory": False}),
        ("mul.Tensor", [PREV, var], {}),
        ("clone.default", [PREV], {}),
        ("clamp_.default", [PREV, eps], {}),
        ("log.default", [PREV], {}),
        ("sub.Tensor", [input, target], {}),
        ("pow.Tensor_Scalar", [PREV, 2], {}),
        ("div.Tensor", [PREV, Step(3)], {}),
        ("add.Tensor", [Step(4), PREV], {}),
        ("mul.Tensor", [PREV, 0.5], {}),
    ]
    if full:
        calls.append(("add_.Tensor", [PREV, 0.5 * math.log(2 * math.pi)], {}))
    return _reduced(calls, _REDUCTION[reduction])


def _ctc_loss(*_: Any, **__: Any) -> None:
    raise NotImplementedError(
        "chainrule.export cannot export ctc_loss: its output's size depends on the input "
        "lengths' values, which PyTorch's export refuses too (DynamicOutputShapeException "
        "for aten._ctc_loss). Export the model without its loss"
    )


MARGIN_LOSSES: dict[str, Callable[..., Any]] = {
    "cosine_embedding_loss": _pair_loss("cosine_embedding_loss"),
    "margin_ranking_loss": _pair_loss("margin_ranking_loss"),
    "hinge_embedding_loss": _hinge_embedding_loss,
    "soft_margin_loss": _soft_margin_loss,
    "triplet_margin_loss": _triplet_margin_loss,
    "multi_margin_loss": _multi_margin_loss,
    "multilabel_margin_loss": _multilabel_margin_loss,
    "poisson_nll_loss": _poisson_nll_loss,
    "multilabel_soft_margin_loss": _multilabel_soft_margin_loss,
    "gaussian_nll_loss": _gaussian_nll_loss,
    "ctc_loss": _ctc_loss,
}

MARGIN_LOSSES_ARGS: dict[str, str] = {
    "cosine_embedding_loss.default": "input1 input2 target margin reduction",
    "margin_ranking_loss.default": "input1 input2 target margin reduction",
    "hinge_embedding_loss.default": "self target margin reduction",
    "soft_margin_loss.default": "self target reduction",
    "triplet_margin_loss.default": "anchor positive negative margin p eps swap reduction",
    "multi_margin_loss.default": "self target p margin weight reduction",
    "multilabel_margin_loss.default": "self target reduction",
    "poisson_nll_loss.default": "input target log_input full eps reduction",
    "log_sigmoid.default": "self",
    "clamp_.default": "self min max",
}

MARGIN_LOSSES_TABLE: dict[str, Callable[..., Any]] = {
    "cosine_embedding_loss.default": lambda input1, input2, target, margin=0.0, reduction=1: (
        chainrule.cosine_embedding_loss(input1, input2, target, margin, reduction)
    ),
    "margin_ranking_loss.default": lambda input1, input2, target, margin=0.0, reduction=1: (
        chainrule.margin_ranking_loss(input1, input2, target, margin, reduction)
    ),
    "hinge_embedding_loss.default": lambda self, target, margin=1.0, reduction=1: (
        chainrule.hinge_embedding_loss(self, target, margin, reduction)
    ),
    "soft_margin_loss.default": lambda self, target, reduction=1: F.soft_margin_loss(
        self, target, reduction=_MODES[reduction]
    ),
    "triplet_margin_loss.default": lambda anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1: (
        chainrule.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)
    ),
    "multi_margin_loss.default": lambda self, target, p=1, margin=1, weight=None, reduction=1: (
        F.multi_margin_loss(self, target, p, margin, weight, reduction=_MODES[reduction])
    ),
    "multilabel_margin_loss.default": lambda self, target, reduction=1: F.multilabel_margin_loss(
        self, target, reduction=_MODES[reduction]
    ),
    "poisson_nll_loss.default": chainrule.poisson_nll_loss,
    "log_sigmoid.default": F.logsigmoid,
    "clamp_.default": lambda self, min=None, max=None: self.clamp_(min, max),
}
