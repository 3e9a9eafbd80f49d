"""``Chi2(df)``: the chi-squared distribution of ``df`` degrees of freedom, Gamma(df/2, 1/2)."""

from __future__ import annotations

from typing import Any

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """χ²(k) = Gamma(k/2, 1/2): density x^(k/2-1) e^(-x/2) / (2^(k/2) Γ(k/2)) on x >= 0;
    ``df`` is read back as 2·concentration."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: Any = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> Any:
        return self.concentration * 2
