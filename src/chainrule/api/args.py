"""Argument parsing shared by the public functions: PyTorch's conversions and type errors,
and the signatures most ops share (``unary``: ``f(input, *, out=None)``, ``tensors_only``,
``predicate``, ``bitwise``, ``compare``) as function builders for the name table."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from .._promotion import _NP_SCALAR, as_number
from .._tensor import Tensor
from ..autograd.entries import unary_entry

if TYPE_CHECKING:
    from ..autograd.recording import Op

    # The named tuples PyTorch returns (torch.return_types.*), as the type checker sees them:
    # at run time ``return_type`` makes them, one class per function.

    class ValuesIndices(NamedTuple):  # max, min, sort, topk, kthvalue, mode, median, cummax, ...
        values: Tensor
        indices: Tensor

    class MinMax(NamedTuple):  # aminmax
        min: Tensor
        max: Tensor

    class SignLogAbsDet(NamedTuple):  # slogdet, linalg.slogdet
        sign: Tensor
        logabsdet: Tensor

    class Eigh(NamedTuple):  # linalg.eigh
        eigenvalues: Tensor
        eigenvectors: Tensor

    class SVDh(NamedTuple):  # linalg.svd
        U: Tensor
        S: Tensor
        Vh: Tensor

    class SVD(NamedTuple):  # svd
        U: Tensor
        S: Tensor
        V: Tensor

    class QR(NamedTuple):  # qr, linalg.qr
        Q: Tensor
        R: Tensor

    class Lstsq(NamedTuple):  # linalg.lstsq
        solution: Tensor
        residuals: Tensor
        rank: Tensor
        singular_values: Tensor

    class InverseInfo(NamedTuple):  # linalg.inv_ex
        inverse: Tensor
        info: Tensor

    class LInfo(NamedTuple):  # linalg.cholesky_ex
        L: Tensor
        info: Tensor

    class ResultInfo(NamedTuple):  # linalg.solve_ex
        result: Tensor
        info: Tensor

    class PLU(NamedTuple):  # linalg.lu, lu_unpack
        P: Tensor
        L: Tensor
        U: Tensor

    class LUPivots(NamedTuple):  # linalg.lu_factor
        LU: Tensor
        pivots: Tensor

    class LUPivotsInfo(NamedTuple):  # linalg.lu_factor_ex
        LU: Tensor
        pivots: Tensor
        info: Tensor

    class HouseholderTau(NamedTuple):  # geqrf
        a: Tensor
        tau: Tensor


def tensor_arg(x: Any) -> Any:
    """Python numbers stay numbers, NumPy scalars become them (PyTorch reads them as
    numbers); anything else array-like becomes a tensor."""
    if isinstance(x, _NP_SCALAR):
        return as_number(x)
    if isinstance(x, (Tensor, int, float, bool, complex)):
        return x
    from .._creation import as_tensor

    return as_tensor(x)


def op_function(op: Op, name: str | None = None) -> Callable[..., Any]:
    """An op as a public function: its arguments passed through to the op."""

    def function(*args: Any, **kwargs: Any) -> Any:
        return op(*args, **kwargs)

    doc = (op.doc or f"The op {op.name}.") + (f" {op.conventions}" if op.conventions else "")
    return named(function, name or op.name, doc)


def compare(op: Op) -> Callable[..., Tensor]:
    def compare(input: Tensor, other: Tensor | float, *, out: Tensor | None = None) -> Tensor:
        return op(input, tensor_arg(other))

    compare.__name__ = op.name
    compare.__doc__ = f"Elementwise {op.name}; a bool tensor (no gradient)."
    return compare


def dim_arg(dim: Any) -> Any:
    if isinstance(dim, list):
        return tuple(dim)
    return dim


def shape_args(shape: tuple) -> tuple:
    """Sizes given as ints or as one sequence of them; a 0-d integer tensor or NumPy
    integer is an int."""
    if len(shape) == 1 and not _int_like(shape[0]):
        return tuple(shape[0])
    return shape


def _int_like(x: Any) -> bool:
    return isinstance(x, int) or hasattr(x, "__index__") and getattr(x, "ndim", 0) == 0


def require_tensor(fn: str, value: Any, position: int = 1, name: str = "input") -> Tensor:
    """PyTorch's TypeError for a Python number (or anything else) where a tensor must be."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )
    return value


def return_type(name: str, fields: tuple[str, ...] = ("values", "indices")) -> type:
    """A named tuple that prints as PyTorch's ``torch.return_types.<name>``."""
    cls = NamedTuple(name, [(f, Tensor) for f in fields])

    def __repr__(self) -> str:  # noqa: N807
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    cls.__module__ = "torch.return_types"
    return cls


def named(function: Callable[..., Any], name: str, doc: str) -> Callable[..., Any]:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


_NO_PARAMS: dict = {}


def unary(op: Op) -> Callable[..., Tensor]:
    apply = op._apply
    fast = op._fast
    keep = op._keep  # (a KEEP op: the dtypes its fast path takes, Op.__init__)

    def function(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
        if input.__class__ is Tensor and (keep >= input._dtype._keep_lane or input._dtype._native):
            # what op(input) does (Op._apply), two calls less: a float tensor needs no cast
            return fast((input,), (input._data,), _NO_PARAMS)
        if isinstance(input, Tensor):
            return apply((input,), _NO_PARAMS)
        return op(input)

    doc = f"Elementwise {op.name}." + (f" {op.conventions}" if op.conventions else "")
    return named(unary_entry(op, function) or function, op.name, doc)


def tensors_only(op: Op, name: str | None = None) -> Callable[..., Tensor]:
    """``f(input, other, *params, out=None)``: both operands must be tensors; further
    arguments are the op's parameters, by position or by name (``dist(a, b, 3)``)."""
    name = name or op.name

    def function(
        input: Tensor, other: Tensor, *args: Any, out: Tensor | None = None, **params: Any
    ) -> Tensor:  # noqa: A002
        require_tensor(name, input, 1, "input")
        require_tensor(name, other, 2, "other")
        if args:
            if len(args) > len(op.params):
                raise TypeError(
                    f"{name}() takes {2 + len(op.params)} positional arguments but "
                    f"{2 + len(args)} were given"
                )
            params = {**dict(zip(op.params, args)), **params}
        return op(input, other, **params)

    doc = (op.doc or f"{name} of two tensors, broadcasting.") + (
        f" {op.conventions}" if op.conventions else ""
    )
    return named(function, name, doc)


def predicate(op: Op, doc: str | None = None) -> Callable[..., Tensor]:
    """``f(input)``: a row's ``out`` variant adds out= where PyTorch has it (isnan has none)."""

    def function(input: Tensor) -> Tensor:  # noqa: A002
        return op(require_tensor(op.name, input, 1, "input"))

    return named(function, op.name, doc or f"{op.name}: a bool tensor.")


def functional_unary(op: Op) -> Callable[..., Tensor]:
    """``nn.functional``'s form of an elementwise op: ``f(input)``, without out= (F.sigmoid,
    F.tanh: Python functions in PyTorch)."""

    def function(input: Tensor) -> Tensor:  # noqa: A002
        return op(input)

    return named(function, op.name, f"Elementwise {op.name}.")


def bitwise(op: Op) -> Callable[..., Tensor]:
    def function(
        input: Tensor | int | bool, other: Tensor | int | bool, *, out: Tensor | None = None
    ) -> Tensor:  # noqa: A002
        return op(tensor_arg(input), tensor_arg(other))

    return named(function, op.name, f"{op.name}: logical on bools, bitwise on integers.")
