"""What the model builders share: torchvision's legacy ``pretrained=`` interface, the
checks of keyword arguments against the chosen weights, channel rounding, and the
lazily imported preprocessing preset that ``Weights.transforms`` builds."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ... import nn
from ..._tensor import Tensor
from ._api import WeightsEnum

__all__ = [
    "ImageClassification",
    "handle_legacy_interface",
    "kwonly_to_pos_or_kw",
]

D = TypeVar("D")


def ImageClassification(*args: Any, **kwargs: Any) -> Any:
    """``transforms._presets.ImageClassification(*args, **kwargs)``, imported only when
    called so the models load without the transforms (``interpolation`` may be given by
    its name, e.g. ``'bicubic'``)."""
    from ..transforms import _presets

    if isinstance(kwargs.get("interpolation"), str):
        from ..transforms import InterpolationMode

        kwargs["interpolation"] = InterpolationMode(kwargs["interpolation"])
    return _presets.ImageClassification(*args, **kwargs)


def sequence_to_str(seq: Sequence, separate_last: str = "") -> str:
    """``'a'``, ``'a' and 'b'`` or ``'a', 'b', and 'c'`` (with ``separate_last='and '``)."""
    if not seq:
        return ""
    if len(seq) == 1:
        return f"'{seq[0]}'"
    head = "'" + "', '".join([str(item) for item in seq[:-1]]) + "'"
    comma = "" if separate_last and len(seq) == 2 else ","
    return f"{head}{comma} {separate_last}'{seq[-1]}'"


def kwonly_to_pos_or_kw(fn: Callable[..., D]) -> Callable[..., D]:
    """Let the keyword-only parameters of ``fn`` be passed by position too, with
    torchvision's deprecation warning."""
    params = inspect.signature(fn).parameters
    try:
        first = next(i for i, p in enumerate(params.values()) if p.kind == p.KEYWORD_ONLY)
    except StopIteration:
        raise TypeError(f"Found no keyword-only parameter on function '{fn.__name__}'") from None
    keyword_only = tuple(params)[first:]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> D:
        args, extra = args[:first], args[first:]
        if extra:
            named = dict(zip(keyword_only, extra))
            warnings.warn(
                f"Using {sequence_to_str(tuple(named), separate_last='and ')} as positional "
                f"parameter(s) is deprecated since 0.13 and may be removed in the future. Please use "
                f"keyword parameter(s) instead.",
                stacklevel=2,
            )
            kwargs.update(named)
        return fn(*args, **kwargs)

    return wrapper


def handle_legacy_interface(
    **weights: tuple[str, Any],
) -> Callable[[Callable[..., D]], Callable[..., D]]:
    """Map the old ``pretrained=True/False`` keyword (and a bool passed as ``weights``) onto
    ``weights=``: each entry is ``weights_param=(pretrained_param, default)``, the default
    a member or a function of the keyword arguments giving one."""

    def outer(builder: Callable[..., D]) -> Callable[..., D]:
        @kwonly_to_pos_or_kw
        @functools.wraps(builder)
        def inner(*args: Any, **kwargs: Any) -> D:
            for weights_param, (pretrained_param, default) in weights.items():
                weights_arg = kwargs.get(weights_param)
                if pretrained_param in kwargs:
                    positional = False
                    pretrained = kwargs.pop(pretrained_param)
                elif weights_param in kwargs and not (
                    weights_arg is None or isinstance(weights_arg, (WeightsEnum, str))
                ):
                    # a bool given as ``weights`` (e.g. positionally) stands for ``pretrained``
                    positional = True
                    pretrained = weights_arg
                else:
                    continue
                if pretrained:
                    default_arg = default(kwargs) if callable(default) else default
                    if not isinstance(default_arg, WeightsEnum):
                        raise ValueError(f"No weights available for model {builder.__name__}")
                else:
                    default_arg = None
                if not positional:
                    warnings.warn(
                        f"The parameter '{pretrained_param}' is deprecated since 0.13 and may be "
                        f"removed in the future, please use '{weights_param}' instead.",
                        stacklevel=2,
                    )
                warnings.warn(
                    f"Arguments other than a weight enum or `None` for '{weights_param}' are "
                    f"deprecated since 0.13 and may be removed in the future. "
                    f"The current behavior is equivalent to passing `{weights_param}={default_arg}`."
                    + (
                        f" You can also use `{weights_param}={type(default_arg).__name__}.DEFAULT` "
                        f"to get the most up-to-date weights."
                        if default_arg is not None
                        else ""
                    ),
                    stacklevel=2,
                )
                kwargs[weights_param] = default_arg
            return builder(*args, **kwargs)

        return inner

    return outer


def _ovewrite_named_param(kwargs: dict[str, Any], param: str, new_value: Any) -> None:
    # a keyword the weights fix: it must agree when given, and is set otherwise
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(
                f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead."
            )
    else:
        kwargs[param] = new_value


def _ovewrite_value_param(param: str, actual: Any, expected: Any) -> Any:
    if actual is not None and actual != expected:
        raise ValueError(
            f"The parameter '{param}' expected value {expected} but got {actual} instead."
        )
    return expected


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """``v`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``), never
    more than 10% below ``v``."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


# IntermediateLayerGetter, used by the segmentation and detection models, needs ``nn``


class IntermediateLayerGetter(nn.ModuleDict):
    """The children of ``model`` in order, up to the last one named in ``return_layers``;
    called, it runs them one after another and returns the outputs of the named children
    in an ``OrderedDict`` under the names ``return_layers`` maps them to. Only
    ``model``'s direct children are seen: its ``forward`` is not used."""

    _version = 2
    __annotations__ = {"return_layers": dict[str, str]}

    def __init__(self, model: nn.Module, return_layers: dict[str, str]) -> None:
        children = [name for name, _ in model.named_children()]
        if not set(return_layers).issubset(children):
            raise ValueError("return_layers are not present in model")
        pending = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            pending.pop(name, None)
            if not pending:
                break
        super().__init__(layers)
        self.return_layers = return_layers

    def forward(self, x: Tensor) -> dict[str, Tensor]:
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
