"""The public functions (``chainrule.add``, ``chainrule.sum``, ...): PyTorch's signatures
parsed into calls of the ops. Tensor methods are the same functions (see methods.py).
"""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..autograd.inplace import inplace as _inplace
from . import elementwise as ew
from . import linalg as la
from . import reductions as red
from . import shape as sh


def _tensor_arg(x: Any) -> Any:
    """Python numbers stay numbers; anything else array-like becomes a tensor."""
    if isinstance(x, (Tensor, int, float, bool)):
        return x
    from .._creation import as_tensor

    return as_tensor(x)


# ----- arithmetic ------------------------------------------------------------------


def add(input, other, *, alpha=1, out=None):
    """input + alpha * other, broadcasting."""
    return ew.add(input, _tensor_arg(other), alpha=alpha)


def sub(input, other, *, alpha=1, out=None):
    """input - alpha * other, broadcasting."""
    return ew.sub(input, _tensor_arg(other), alpha=alpha)


subtract = sub


def rsub(input, other, *, alpha=1):
    """other - alpha * input."""
    if isinstance(other, Tensor):
        return ew.sub(other, input, alpha=alpha)
    return ew.rsub(input, other=other, alpha=alpha)


def mul(input, other, *, out=None):
    """input * other, broadcasting."""
    return ew.mul(input, _tensor_arg(other))


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """input / other (true division: integers give the default float dtype)."""
    if rounding_mode is not None:
        from .pointwise import rounded_div

        return rounded_div(input, other, rounding_mode)
    return ew.div(input, _tensor_arg(other))


divide = true_divide = div


def rdiv(input, other):
    """other / input, as PyTorch computes it: other * input.reciprocal()."""
    if isinstance(other, Tensor):
        return ew.div(other, input)
    return ew.mul(ew.reciprocal(input), other)


def pow(input, exponent, *, out=None):  # noqa: A001
    """input ** exponent; a Python number on either side."""
    if not isinstance(input, Tensor):
        return ew.pow_scalar_base(exponent, base=input)
    if isinstance(exponent, Tensor):
        return ew.pow_tensor(input, exponent)
    if not isinstance(exponent, (int, float)):
        return ew.pow_tensor(input, _tensor_arg(exponent))
    return ew.pow_scalar(input, exponent=exponent)


def rpow(input, base):
    if isinstance(base, Tensor):
        return ew.pow_tensor(base, input)
    return ew.pow_scalar_base(input, base=base)


def neg(input, *, out=None):
    return ew.neg(input)


negative = neg


def reciprocal(input, *, out=None):
    return ew.reciprocal(input)


def exp(input, *, out=None):
    return ew.exp(input)


def log(input, *, out=None):
    return ew.log(input)


def sin(input, *, out=None):
    return ew.sin(input)


def cos(input, *, out=None):
    return ew.cos(input)


def tanh(input, *, out=None):
    return ew.tanh(input)


def sigmoid(input, *, out=None):
    return ew.sigmoid(input)


def relu(input):
    return ew.relu(input)


def sqrt(input, *, out=None):
    return ew.sqrt(input)


def abs(input, *, out=None):  # noqa: A001
    return ew.abs(input)


absolute = abs


def sign(input, *, out=None):
    return ew.sign(input)


def where(condition, input=None, other=None):
    if input is None and other is None:
        raise NotImplementedError("where(condition) with one argument is not implemented yet")
    return ew.where(_tensor_arg(condition), _tensor_arg(input), _tensor_arg(other))


def clone(input, *, memory_format=None):
    return ew.clone(input)


# ----- comparisons ----------------------------------------------------------------


def _compare(op):
    def compare(input, other, *, out=None):
        return op(input, _tensor_arg(other))

    compare.__name__ = op.name
    compare.__doc__ = f"Elementwise {op.name}; a bool tensor (no gradient)."
    return compare


eq = _compare(ew.eq)
ne = not_equal = _compare(ew.ne)
lt = less = _compare(ew.lt)
le = less_equal = _compare(ew.le)
gt = greater = _compare(ew.gt)
ge = greater_equal = _compare(ew.ge)

# ----- reductions ---------------------------------------------------------------------


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001
    """Σ input over dim (all dims when None)."""
    return red.sum(input, dim=_dim_arg(dim), keepdim=keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """The mean over dim (all dims when None); integer inputs raise, as in PyTorch."""
    return red.mean(input, dim=_dim_arg(dim), keepdim=keepdim, dtype=dtype)


def _dim_arg(dim):
    if isinstance(dim, list):
        return tuple(dim)
    return dim


def _norm_ord(p) -> float:
    if p == "fro" or p is None:
        return 2
    if p == "nuc":
        raise NotImplementedError("norm(p='nuc') is not implemented in chainrule yet")
    return p


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The p-norm of input over dim (2-norm of all entries by default)."""
    if isinstance(p, str) and p == "fro" and isinstance(dim, (tuple, list)) and len(dim) == 2:
        p = 2
    x = input if dtype is None else input.to(dtype)
    return red.vector_norm(x, ord=_norm_ord(p), dim=_dim_arg(dim), keepdim=keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """linalg.vector_norm: (Σ |x|^ord)^(1/ord)."""
    if dtype is not None:
        x = x.to(dtype)
    return red.vector_norm(x, ord=ord, dim=_dim_arg(dim), keepdim=keepdim)


# ----- linear algebra ------------------------------------------------------------------


def matmul(input, other, *, out=None):
    """The matrix product with PyTorch's rules for 1-D and batched operands."""
    return la.matmul(input, _tensor_arg(other))


def mm(input, mat2, *, out=None):
    """The product of two 2-D tensors."""
    return la.mm(input, mat2)


def t(input):
    """The transpose of a tensor of at most 2 dims."""
    return sh.t(input)


def transpose(input, dim0, dim1):
    from .reductions import dims_of

    nd = input.ndim
    d0, d1 = dims_of(dim0, nd), dims_of(dim1, nd)
    if d0 is None:  # 0-d
        return sh.view(input, shape=())
    return sh.transpose(input, dim0=d0[0], dim1=d1[0])


swapaxes = swapdims = transpose


def permute(input, dims):
    from .reductions import dims_of

    dims = tuple(dims)
    if len(dims) != input.ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is "
            f"not equal to len(dims) = {len(dims)}"
        )
    wrapped = tuple(dims_of(d, input.ndim)[0] for d in dims) if input.ndim else ()
    return sh.permute(input, dims=wrapped)


# ----- shapes ------------------------------------------------------------------------


def _shape_args(shape: tuple) -> tuple:
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return shape


def reshape(input, shape):
    """input with a new shape (one dim may be -1): a view when possible, else a copy."""
    return sh.reshape(input, _shape_args((shape,)) if isinstance(shape, int) else tuple(shape))


def view(input, *shape):
    """input with a new shape, sharing memory (one dim may be -1)."""
    shape = _shape_args(shape)
    from .._dtypes import dtype as DType

    if len(shape) == 1 and isinstance(shape[0], DType):
        raise NotImplementedError("view(dtype) is not implemented in chainrule yet")
    return sh.view(input, shape=sh.infer_shape(shape, input._data.size))


def expand(input, *sizes):
    return sh.expand(input, shape=tuple(int(s) for s in _shape_args(sizes)))


def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:
        return sh.reshape(input, (1,))
    s, e = start_dim % nd, end_dim % nd
    shape = input.shape
    return sh.reshape(
        input, tuple(shape[:s]) + (math.prod(shape[s : e + 1]),) + tuple(shape[e + 1 :])
    )


def inplace(op_function):
    """The in-place variant of ``op_function``: ``x.add_(y)`` is ``x = x + y`` written into x."""

    def method(self, *args, **kwargs):
        return _inplace(self, op_function, (self, *args), kwargs)

    method.__name__ = op_function.__name__ + "_"
    method.__doc__ = f"In-place {op_function.__name__}: writes the result into self."
    return method


# ----- predicates (no gradient) ----------------------------------------------------------


def all(input, dim=None, keepdim=False):  # noqa: A001
    """True where every element (over dim) is nonzero."""
    from .._tensor import wrap

    return wrap(input._data.all(axis=dim, keepdims=keepdim))


def any(input, dim=None, keepdim=False):  # noqa: A001
    """True where some element (over dim) is nonzero."""
    from .._tensor import wrap

    return wrap(input._data.any(axis=dim, keepdims=keepdim))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """|input - other| <= atol + rtol |other| everywhere."""
    import numpy

    return builtins_bool(numpy.allclose(input._data, other._data, rtol, atol, equal_nan))


def equal(input, other) -> bool:
    """Same shape and same values."""
    return input.shape == other.shape and builtins_bool((input._data == other._data).all())


builtins_bool = True.__class__
