"""PyTorch's signatures for the special functions of two arguments where either may be a
Python number (``special.zeta``, the orthogonal polynomials), the incomplete gamma
functions (both tensors) and ``mvlgamma``/``special.multigammaln`` (the order p checked)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...autograd.recording import Op
from ...ops import polynomials, zeta_gamma
from ..args import require_tensor, tensor_arg


def _type_name(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _number_or_tensor(name: str, op: Op, first: str, second: str) -> Callable[..., Tensor]:
    """``f(first, second, *, out=None)``: tensors, or one of them a Python number."""

    def function(a: Any, b: Any, *, out: Tensor | None = None) -> Tensor:
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got "
                f"({_type_name(a)}, {_type_name(b)}), but expected one of:\n"
                f" * (Tensor {first}, Tensor {second}, *, Tensor out = None)\n"
                f" * (Number {'self' if first == 'input' else first}, Tensor {second}, *, "
                "Tensor out = None)\n"
                f" * (Tensor {first}, Number {second}, *, Tensor out = None)\n"
            )
        return op(tensor_arg(a), tensor_arg(b))

    function.__name__ = name.removeprefix("special_")
    function.__qualname__ = function.__name__
    function.__doc__ = (op.doc or name) + (f" {op.conventions}" if op.conventions else "")
    return function


zeta = _number_or_tensor("special_zeta", zeta_gamma.zeta, "input", "other")

chebyshev_polynomial_t = _number_or_tensor(
    "special_chebyshev_polynomial_t", polynomials.chebyshev_polynomial_t, "x", "n"
)
chebyshev_polynomial_u = _number_or_tensor(
    "special_chebyshev_polynomial_u", polynomials.chebyshev_polynomial_u, "x", "n"
)
chebyshev_polynomial_v = _number_or_tensor(
    "special_chebyshev_polynomial_v", polynomials.chebyshev_polynomial_v, "x", "n"
)
chebyshev_polynomial_w = _number_or_tensor(
    "special_chebyshev_polynomial_w", polynomials.chebyshev_polynomial_w, "x", "n"
)
shifted_chebyshev_polynomial_t = _number_or_tensor(
    "special_shifted_chebyshev_polynomial_t", polynomials.shifted_chebyshev_polynomial_t, "x", "n"
)
shifted_chebyshev_polynomial_u = _number_or_tensor(
    "special_shifted_chebyshev_polynomial_u", polynomials.shifted_chebyshev_polynomial_u, "x", "n"
)
shifted_chebyshev_polynomial_v = _number_or_tensor(
    "special_shifted_chebyshev_polynomial_v", polynomials.shifted_chebyshev_polynomial_v, "x", "n"
)
shifted_chebyshev_polynomial_w = _number_or_tensor(
    "special_shifted_chebyshev_polynomial_w", polynomials.shifted_chebyshev_polynomial_w, "x", "n"
)
hermite_polynomial_h = _number_or_tensor(
    "special_hermite_polynomial_h", polynomials.hermite_polynomial_h, "x", "n"
)
hermite_polynomial_he = _number_or_tensor(
    "special_hermite_polynomial_he", polynomials.hermite_polynomial_he, "x", "n"
)
laguerre_polynomial_l = _number_or_tensor(
    "special_laguerre_polynomial_l", polynomials.laguerre_polynomial_l, "x", "n"
)
legendre_polynomial_p = _number_or_tensor(
    "special_legendre_polynomial_p", polynomials.legendre_polynomial_p, "x", "n"
)


def _incomplete_gamma(name: str, op: Op) -> Callable[..., Tensor]:
    def function(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
        require_tensor(name, input, 1, "input")
        require_tensor(name, other, 2, "other")
        return op(input, other)

    function.__name__ = name.removeprefix("special_")
    function.__qualname__ = function.__name__
    function.__doc__ = op.doc + f" {op.conventions}"
    return function


igamma = _incomplete_gamma("igamma", zeta_gamma.igamma)
igammac = _incomplete_gamma("igammac", zeta_gamma.igammac)
gammainc = _incomplete_gamma("special_gammainc", zeta_gamma.igamma)
gammaincc = _incomplete_gamma("special_gammaincc", zeta_gamma.igammac)


def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """ln Γ_p(input) = p(p - 1)/4 ln π + Σ_{j<p} ln Γ(input - j/2), the multivariate
    log-gamma function of order p >= 1."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return zeta_gamma.mvlgamma(input, p=int(p))
