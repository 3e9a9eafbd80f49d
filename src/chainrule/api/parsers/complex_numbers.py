"""Complex numbers: their parts and conjugates (ops/complex_parts.py), with PyTorch's
signatures and errors.

chainrule conjugates eagerly: ``conj`` of a complex tensor is a new tensor holding the
conjugates (PyTorch returns a lazy view with its conjugate bit set), so ``is_conj()`` is
always False and ``resolve_conj`` returns its input.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...ops import arithmetic, complex_parts, unary


def _complex(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    return input._dtype._category == 3


def is_complex(input: Tensor) -> bool:  # noqa: A002
    """Whether input's dtype is complex (complex64 or complex128)."""
    return _complex(input)


def is_conj(input: Tensor) -> bool:  # noqa: A002
    """False: chainrule's conj computes the conjugates (no lazy conjugate bit)."""
    return False


def is_neg(input: Tensor) -> bool:  # noqa: A002
    """False: chainrule has no lazy negative bit."""
    return False


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    """input itself: its conjugates, if any, are already computed."""
    return input


def resolve_neg(input: Tensor) -> Tensor:  # noqa: A002
    """input itself: chainrule has no lazy negation."""
    return input


def conj(input: Tensor) -> Tensor:  # noqa: A002
    """The complex conjugate x - iy (a real tensor: input itself, as PyTorch's)."""
    return complex_parts.conj_physical(input) if _complex(input) else input


def conj_physical(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The complex conjugate, computed (a real tensor: a copy)."""
    return complex_parts.conj_physical(input)


def real(input: Tensor) -> Tensor:  # noqa: A002
    """The real parts, a view (a real tensor: input itself)."""
    return complex_parts.real(input) if _complex(input) else input


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """The imaginary parts, a view; real tensors raise, as in PyTorch."""
    return complex_parts.imag(input)


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """A complex tensor as its (real, imag) pairs, shape (..., 2), sharing its memory."""
    return complex_parts.view_as_real(input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    """Pairs (..., 2) of float32 or float64 as complex numbers, sharing their memory."""
    out = complex_parts.view_as_complex(input)
    if input._data.size and input.storage_offset() % 2:  # (a complex element is 2 of input's)
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return out


def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """real + i·imag from two float tensors of one dtype (broadcasting)."""
    if not (isinstance(real, Tensor) and isinstance(imag, Tensor)):
        raise TypeError(
            "complex(): argument 'real' (position 1) must be Tensor, not "
            f"{type(real if not isinstance(real, Tensor) else imag).__name__}"
        )
    _parts_check(real, imag, "complex")
    return complex_parts.complex_from_parts(real, imag)


def _parts_check(a: Tensor, b: Tensor, what: str) -> None:
    for t in (a, b):
        if t._dtype.name not in ("float32", "float64", "float16"):
            raise RuntimeError(
                f"Expected both inputs to be Half, Float or Double tensors but got "
                f"{a._dtype.scalar_name} and {b._dtype.scalar_name}"
            )
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"Expected object of scalar type {a._dtype.scalar_name} but got scalar type "
            f"{b._dtype.scalar_name} for second argument"
        )


def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """abs · e^(i angle) = abs cos(angle) + i abs sin(angle)."""
    _parts_check(abs, angle, "polar")
    return complex_parts.complex_from_parts(
        arithmetic.mul(abs, unary.cos(angle)), arithmetic.mul(abs, unary.sin(angle))
    )


def angle(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """arg z in (-π, π]; for real input 0 or π by its sign (integers give float32)."""
    return complex_parts.angle(input)


def real_property(self: Tensor) -> Tensor:
    """Tensor.real: the real parts, a view (a real tensor: itself)."""
    return real(self)


def imag_property(self: Tensor) -> Tensor:
    """Tensor.imag: the imaginary parts, a view (real tensors raise)."""
    return imag(self)
