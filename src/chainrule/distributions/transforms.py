"""Bijective transforms for ``TransformedDistribution`` (PyTorch's
``torch.distributions.transforms``), the elementwise ones: ``ExpTransform``,
``AffineTransform``, ``TanhTransform``, ``SigmoidTransform`` and ``ComposeTransform`` of
them. Each maps x -> y, inverts y -> x (``inv``), and gives log |dy/dx|."""

from __future__ import annotations

import math
from typing import Any

from . import constraints

__all__ = [
    "AffineTransform",
    "ComposeTransform",
    "ExpTransform",
    "SigmoidTransform",
    "TanhTransform",
    "Transform",
]


class Transform:
    """An invertible map y = f(x) with log |det J| (elementwise here: ``event_dim`` 0).
    ``cache_size=1`` keeps the last (x, y) pair, so inverting a sample it made returns
    its x exactly (PyTorch's advice for tanh near ±1)."""

    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real
    bijective = True
    sign: int = 1

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple = (None, None)
        self._inv: Transform | None = None

    @property
    def event_dim(self) -> int:
        return self.domain.event_dim

    @property
    def inv(self) -> Transform:
        """The inverse transform (``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    def __call__(self, x: Any) -> Any:
        return self._through_cache(x, self._call, 0)

    def _inv_call(self, y: Any) -> Any:
        return self._through_cache(y, self._inverse, 1)

    def _through_cache(self, value: Any, compute: Any, side: int) -> Any:
        """``compute(value)``, or the other half of the cached (x, y) pair when ``value`` is
        its half ``side`` (0: x, the forward; 1: y, the inverse)."""
        if self._cache_size == 0:
            return compute(value)
        pair = self._cached_x_y
        if value is pair[side]:
            return pair[1 - side]
        out = compute(value)
        self._cached_x_y = (value, out) if side == 0 else (out, value)
        return out

    def _call(self, x: Any) -> Any:
        raise NotImplementedError

    def _inverse(self, y: Any) -> Any:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: its call is the transform's inverse."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain

    @property
    def inv(self) -> Transform:
        return self._inv

    def __call__(self, x: Any) -> Any:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return -self._inv.log_abs_det_jacobian(y, x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"


class ExpTransform(Transform):
    """y = e^x; log |dy/dx| = x."""

    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    def _call(self, x: Any) -> Any:
        return x.exp()

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return x


class AffineTransform(Transform):
    """y = loc + scale·x (elementwise); log |dy/dx| = log |scale|."""

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0):
        if event_dim != 0:
            raise NotImplementedError("chainrule's AffineTransform is elementwise (event_dim=0)")
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale

    @property
    def sign(self) -> Any:  # type: ignore[override]
        s = self.scale
        return (1 if s > 0 else -1 if s < 0 else 0) if isinstance(s, (int, float)) else s.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False

        def same(a: Any, b: Any) -> bool:
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                return a == b
            return bool((a == b).all())

        return same(self.loc, other.loc) and same(self.scale, other.scale)

    def _call(self, x: Any) -> Any:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Any:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from .. import full_like

        if isinstance(self.scale, (int, float)):
            return full_like(x, math.log(abs(self.scale)))
        return self.scale.abs().log().expand(x.shape)


class TanhTransform(Transform):
    """y = tanh x; log |dy/dx| = 2 (log 2 - x - softplus(-2x)) (stable for large |x|)."""

    codomain = constraints.interval(-1.0, 1.0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    def _call(self, x: Any) -> Any:
        return x.tanh()

    def _inverse(self, y: Any) -> Any:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ..nn.functional import softplus

        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class SigmoidTransform(Transform):
    """y = σ(x) (kept inside (0, 1)); log |dy/dx| = -softplus(-x) - softplus(x)."""

    codomain = constraints.unit_interval

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    def _call(self, x: Any) -> Any:
        from .. import finfo

        f = finfo(x.dtype)
        return x.sigmoid().clamp(min=f.tiny, max=1.0 - f.eps)

    def _inverse(self, y: Any) -> Any:
        from .. import finfo

        f = finfo(y.dtype)
        y = y.clamp(min=f.tiny, max=1.0 - f.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from ..nn.functional import softplus

        return -softplus(-x) - softplus(x)


class ComposeTransform(Transform):
    """The transforms applied in order (``parts[0]`` first)."""

    def __init__(self, parts: list, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.parts[0].domain if self.parts else constraints.real

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.parts[-1].codomain if self.parts else constraints.real

    def _call(self, x: Any) -> Any:
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y: Any) -> Any:
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        from .. import zeros_like

        total = zeros_like(x)
        for part in self.parts:
            y_part = part(x)
            total = total + part.log_abs_det_jacobian(x, y_part)
            x = y_part
        return total
