"""v2 containers: Compose, RandomApply, RandomChoice and RandomOrder (all inputs of a
call go through each chosen transform together)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import chainrule
from chainrule import nn

from ._transform import Transform


def _run(transforms: Sequence[Callable], inputs: tuple) -> Any:
    unpack = len(inputs) > 1
    outputs = inputs if unpack else inputs[0]
    for t in transforms:
        outputs = t(*inputs)
        inputs = outputs if unpack else (outputs,)
    return outputs


class Compose(Transform):
    """The transforms one after another."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        if not transforms:
            raise ValueError("Pass at least one transform")
        self.transforms = transforms

    def forward(self, *inputs: Any) -> Any:
        return _run(self.transforms, inputs)

    def extra_repr(self) -> str:
        return "\n".join(f"    {t}" for t in self.transforms)


class RandomApply(Transform):
    """All the transforms with probability ``p``."""

    def __init__(self, transforms: Sequence[Callable] | nn.ModuleList, p: float = 0.5) -> None:
        super().__init__()
        if not isinstance(transforms, (Sequence, nn.ModuleList)):
            raise TypeError(
                "Argument transforms should be a sequence of callables or a `nn.ModuleList`"
            )
        self.transforms = transforms
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def forward(self, *inputs: Any) -> Any:
        if chainrule.rand(1).item() >= self.p:
            return inputs if len(inputs) > 1 else inputs[0]
        return _run(self.transforms, inputs)

    def extra_repr(self) -> str:
        return "\n".join(f"    {t}" for t in self.transforms)


class RandomChoice(Transform):
    """One of the transforms, drawn with probabilities ``p`` (normalized)."""

    def __init__(self, transforms: Sequence[Callable], p: list[float] | None = None) -> None:
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(
                f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}"
            )
        super().__init__()
        self.transforms = transforms
        total = sum(p)
        self.p = [prob / total for prob in p]

    def forward(self, *inputs: Any) -> Any:
        idx = int(chainrule.multinomial(chainrule.tensor(self.p), 1).item())
        return self.transforms[idx](*inputs)


class RandomOrder(Transform):
    """The transforms in a random order."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        super().__init__()
        self.transforms = transforms

    def forward(self, *inputs: Any) -> Any:
        order = chainrule.randperm(len(self.transforms)).tolist()
        return _run([self.transforms[i] for i in order], inputs)
