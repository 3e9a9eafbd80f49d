"""What the ecosystem cases scripts build the same on both sides: tensors of NumPy normal
values from a seed (``arr``), modules holding the weights the oracle drew (``Weights``:
saved by the oracle to a file that chainrule's side loads), and models the oracle builds
and saves with ``save_pretrained`` (``pretrained``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch


def arr(shape: tuple, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A tensor of ``shape`` of NumPy normal values from ``seed``."""
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


def pretrained(cls: type, cfg: dict, path: str, build: bool) -> torch.nn.Module:
    """``cls.from_pretrained(path)`` in eval mode; where ``build`` (the oracle), first
    ``cls(**cfg)`` drawn from seed 0 is saved there."""
    if build:
        torch.manual_seed(0)
        built = cls(**cfg)
        with torch.no_grad():  # (zero-initialised output layers would hide gradients)
            for p in built.parameters():
                if not p.abs().sum():
                    p.normal_(0.0, 0.1)
        built.save_pretrained(path)
    return cls.from_pretrained(path).eval()


class Weights(dict):
    """The oracle's module states by key: ``draw`` (the oracle) records them, to ``save``
    to ``path``; otherwise, where ``load`` (by default), they come from ``path``.
    ``seeded`` seeds torch's stream before each draw (with how many there are)."""

    def __init__(self, path: str, draw: bool, load: bool | None = None, seeded: bool = True):
        super().__init__()
        self.path, self.draw, self.seeded = path, draw, seeded
        if load is None:
            load = not draw
        if load:
            self.update(torch.load(path))

    def module(
        self,
        key: str,
        make: Callable[[], torch.nn.Module],
        warm: Callable[[torch.nn.Module], object] | None = None,
    ) -> torch.nn.Module:
        """``make()`` with the oracle's weights for ``key`` (drawn once: a key asked for
        again gets the same weights); ``warm(m)`` first runs it once, to give lazy
        parameters their shapes."""
        drawing = self.draw and key not in self
        if drawing and self.seeded:
            torch.manual_seed(len(self))
        m = make()
        if warm is not None:
            with torch.no_grad():
                warm(m)
        if drawing:
            self[key] = {k: v.clone() for k, v in m.state_dict().items()}
        else:
            m.load_state_dict(self[key])
        return m

    def save(self) -> None:
        """Write the drawn states to ``path`` (on the oracle's side)."""
        if self.draw:
            torch.save(dict(self), self.path)
