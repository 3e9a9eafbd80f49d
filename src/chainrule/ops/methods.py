"""Tensor methods and operators, each the public function of the same name."""

from __future__ import annotations

import warnings

from .._creation import tensor_new
from .._tensor import Tensor
from ..autograd import tensor_backward
from . import activations as A
from . import copies as C
from . import elementwise as ew
from . import functions as F
from . import indexing as I
from . import linalg_fns as L
from . import pointwise as P
from . import reduction_fns as R
from . import shape as sh

_NUMBER = (int, float, bool)


_NO_PARAMS: dict = {}


def _operator(op):
    """``self <op> other`` straight to the op (the hot path of every tutorial loop)."""
    apply = op._apply

    def method(self, other):
        c = other.__class__
        if c is not float and c is not int and not isinstance(other, Tensor):
            if other is None:
                return NotImplemented
            other = F._tensor_arg(other)
        return apply((self, other), _NO_PARAMS)

    method.__name__ = op.name
    return method


def _binary(fn, reflected=False):
    if reflected:

        def op(self, other):
            return fn(self, other)

    else:

        def op(self, other):
            if not isinstance(other, (Tensor, int, float, bool)):
                if other is None:
                    return NotImplemented
                other = F._tensor_arg(other)
            return fn(self, other)

    return op


def _eq(self, other):
    if (
        other is None
        or not isinstance(other, (Tensor, int, float, bool))
        and not hasattr(other, "__array__")
        and not isinstance(other, (list, tuple))
    ):
        return False
    return F.eq(self, other)


def _ne(self, other):
    if (
        other is None
        or not isinstance(other, (Tensor, int, float, bool))
        and not hasattr(other, "__array__")
        and not isinstance(other, (list, tuple))
    ):
        return True
    return F.ne(self, other)


def _T(self):  # noqa: N802
    if self.ndim == 0:
        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
    elif self.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return sh.permute(self, dims=tuple(range(self.ndim - 1, -1, -1)))


def _mT(self):  # noqa: N802
    return F.transpose(self, -2, -1)


def _size_args(self, *shape):
    return F._shape_args(shape)


def _reshape(self, *shape):
    return sh.reshape(self, F._shape_args(shape))


def _permute(self, *dims):
    return F.permute(self, F._shape_args(dims))


def _norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return F.norm(self, p, dim, keepdim, dtype=dtype)


METHODS = {
    # the legacy constructor, autograd and conversions
    "__new__": staticmethod(tensor_new),
    "backward": tensor_backward,
    "to": C.to,
    "type": C.type,
    "type_as": C.type_as,
    **C.CAST_METHODS,
    "zero_": C.zero_,
    "copy_": C.copy_,
    # operators
    "__add__": _operator(ew.add),
    "__radd__": _operator(ew.add),
    "__sub__": _operator(ew.sub),
    "__rsub__": _binary(F.rsub, reflected=True),
    "__mul__": _operator(ew.mul),
    "__rmul__": _operator(ew.mul),
    "__truediv__": _operator(ew.div),
    "__rtruediv__": _binary(F.rdiv, reflected=True),
    "__pow__": _binary(F.pow),
    "__rpow__": _binary(F.rpow, reflected=True),
    "__matmul__": _binary(F.matmul),
    "__rmatmul__": lambda self, other: F.matmul(F._tensor_arg(other), self),
    "__neg__": F.neg,
    "__pos__": lambda self: self,
    "__abs__": F.abs,
    "__eq__": _eq,
    "__ne__": _ne,
    "__lt__": _binary(F.lt),
    "__le__": _binary(F.le),
    "__gt__": _binary(F.gt),
    "__ge__": _binary(F.ge),
    "__iadd__": F.inplace(F.add),
    "__isub__": F.inplace(F.sub),
    "__imul__": F.inplace(F.mul),
    "__itruediv__": F.inplace(F.div),
    # arithmetic
    "add": F.add,
    "sub": F.sub,
    "subtract": F.sub,
    "mul": F.mul,
    "multiply": F.mul,
    "div": F.div,
    "divide": F.div,
    "true_divide": F.div,
    "pow": F.pow,
    "neg": F.neg,
    "negative": F.neg,
    "reciprocal": F.reciprocal,
    "exp": F.exp,
    "log": F.log,
    "sin": F.sin,
    "cos": F.cos,
    "tanh": F.tanh,
    "sigmoid": F.sigmoid,
    "relu": F.relu,
    "sqrt": F.sqrt,
    "abs": F.abs,
    "absolute": F.abs,
    "sign": F.sign,
    "clone": F.clone,
    "where": lambda self, condition, other: F.where(condition, self, other),
    # in place
    "add_": F.inplace(F.add),
    "sub_": F.inplace(F.sub),
    "mul_": F.inplace(F.mul),
    "div_": F.inplace(F.div),
    # comparisons
    "eq": F.eq,
    "ne": F.ne,
    "lt": F.lt,
    "le": F.le,
    "gt": F.gt,
    "ge": F.ge,
    # reductions and predicates
    "all": F.all,
    "any": F.any,
    "allclose": F.allclose,
    "equal": F.equal,
    "sum": F.sum,
    "mean": F.mean,
    "norm": _norm,
    # linear algebra and shapes
    "matmul": F.matmul,
    "mm": F.mm,
    "t": F.t,
    "T": property(_T),
    "mT": property(_mT),
    "transpose": F.transpose,
    "swapaxes": F.transpose,
    "permute": _permute,
    "reshape": _reshape,
    "view": F.view,
    "view_as": lambda self, other: F.view(self, *other.shape),
    "reshape_as": lambda self, other: sh.reshape(self, tuple(other.shape)),
    "expand": F.expand,
    "expand_as": lambda self, other: F.expand(self, *other.shape),
    "flatten": F.flatten,
    # activations (ops/activations.py)
    "softmax": A.softmax,
    "log_softmax": A.log_softmax,
    "logsumexp": A.logsumexp,
    "relu_": A.relu_,
    # pointwise ops, their in-place variants and operators (ops/pointwise.py)
    **P.TENSOR_METHODS,
    # the operator library's families (ops/reduction_fns.py, linalg_fns.py, indexing.py)
    **R.TENSOR_METHODS,
    **L.TENSOR_METHODS,
    **I.TENSOR_METHODS,
}

for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.__array_priority__ = 1000  # NumPy defers to our reflected operators
