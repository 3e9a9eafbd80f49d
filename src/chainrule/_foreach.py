"""``torch._foreach_*``: an op applied to every tensor of a list (what PyTorch's optimizers
and timm's call in their multi-tensor paths).

PyTorch fuses the loop into few kernels; here each op is the per-tensor op, applied in
turn, so values, in-place updates and autograd are those of the single-tensor ops. The
out-of-place form returns a tuple of new tensors, the in-place form (``_foreach_add_``)
updates the tensors and returns the list it was given. The second operand is a number,
a list of numbers, a list of tensors, or a tensor used for every element, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Number
from typing import Any

import chainrule

from ._missing import missing

# unary ops: the Tensor method of the same name
_UNARY = (
    "abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 "
    "log1p log2 neg reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc"
).split()
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow")


def _check(self: Sequence, name: str) -> None:
    if not isinstance(self, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'self' must be tuple of Tensors, not {type(self).__name__}"
        )
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def _per_tensor(self: Sequence, other: Any, scalars: bool = False) -> list:
    """``other`` spread over the tensors of ``self``: each element's own operand (with
    ``scalars``, a 1-D tensor holds one number per element, as addcdiv's ``scalars``)."""
    if isinstance(other, (list, tuple)):
        if other and isinstance(other[0], chainrule.Tensor):
            if len(other) != len(self):
                raise RuntimeError(
                    "Tensor lists must have the same number of tensors, got "
                    f"{len(self)} and {len(other)}"
                )
        elif len(other) != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(other)
    if scalars and isinstance(other, chainrule.Tensor):
        if other.dim() != 1 or other.numel() != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return other.tolist()
    return [other] * len(self)


def _binary_value(op: str, t: Any, o: Any, alpha: Any) -> Any:
    if op in ("add", "sub"):
        fn = getattr(chainrule, op)
        return fn(t, o) if alpha is None else fn(t, o, alpha=alpha)
    if op in ("maximum", "minimum") and isinstance(o, Number):
        return (t.clamp_min if op == "maximum" else t.clamp_max)(o)
    if op in ("clamp_min", "clamp_max") and isinstance(o, chainrule.Tensor):
        return (chainrule.maximum if op == "clamp_min" else chainrule.minimum)(t, o)
    if op == "pow" and isinstance(t, Number):
        return chainrule.pow(t, o)
    return getattr(chainrule, op)(t, o)


def _binary(op: str, inplace: bool) -> Callable:
    name = f"_foreach_{op}{'_' if inplace else ''}"

    def fn(self: Any, other: Any, *, alpha: Any = None) -> Any:
        if op == "pow" and isinstance(self, Number):  # _foreach_pow(scalar, exponents)
            _check(other, name)
            return tuple(chainrule.pow(self, e) for e in other)
        _check(self, name)
        if alpha is not None and (op not in ("add", "sub") or isinstance(other, Number)):
            raise TypeError(f"{name}() got an unexpected keyword argument 'alpha'")
        others = _per_tensor(self, other)
        if not inplace:
            return tuple(_binary_value(op, t, o, alpha) for t, o in zip(self, others))
        for t, o in zip(self, others):
            if op in ("add", "sub", "mul", "div", "pow"):
                method = getattr(t, op + "_")
                method(o) if alpha is None else method(o, alpha=alpha)
            else:
                t.copy_(_binary_value(op, t, o, None))
        return self

    fn.__name__ = name
    fn.__doc__ = f"``torch.{op}`` on every tensor of a list{' (in place)' if inplace else ''}."
    return fn


def _unary(op: str, inplace: bool) -> Callable:
    name = f"_foreach_{op}{'_' if inplace else ''}"

    def fn(self: Any) -> Any:
        _check(self, name)
        if inplace:
            for t in self:
                getattr(t, op + "_")()
            return self
        return tuple(getattr(t, op)() for t in self)

    fn.__name__ = name
    fn.__doc__ = f"``Tensor.{op}`` on every tensor of a list{' (in place)' if inplace else ''}."
    return fn


def _pointwise(op: str, inplace: bool) -> Callable:
    """``addcmul``/``addcdiv``: ``self + value * t1 (*|/) t2`` per element."""
    name = f"_foreach_{op}{'_' if inplace else ''}"

    def fn(self: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
        _check(self, name)
        t1s = _per_tensor(self, tensor1)
        t2s = _per_tensor(self, tensor2)
        values = _per_tensor(self, value, scalars=True)
        if inplace:
            for t, a, b, v in zip(self, t1s, t2s, values):
                getattr(t, op + "_")(a, b, value=v)
            return self
        return tuple(
            getattr(chainrule, op)(t, a, b, value=v) for t, a, b, v in zip(self, t1s, t2s, values)
        )

    fn.__name__ = name
    fn.__doc__ = f"``torch.{op}`` on every tensor of a list{' (in place)' if inplace else ''}."
    return fn


def _lerp(inplace: bool) -> Callable:
    name = f"_foreach_lerp{'_' if inplace else ''}"

    def fn(self: Any, tensors1: Any, weight: Any) -> Any:
        _check(self, name)
        ends = _per_tensor(self, tensors1)
        weights = _per_tensor(self, weight)
        if inplace:
            for t, e, w in zip(self, ends, weights):
                t.lerp_(e, w)
            return self
        return tuple(chainrule.lerp(t, e, w) for t, e, w in zip(self, ends, weights))

    fn.__name__ = name
    fn.__doc__ = f"``torch.lerp`` on every tensor of a list{' (in place)' if inplace else ''}."
    return fn


def _foreach_norm(self: Any, ord: Any = 2, dtype: Any = None) -> tuple:
    """The vector norm of every tensor of a list (0-d tensors)."""
    _check(self, "_foreach_norm")
    return tuple(chainrule.linalg.vector_norm(t, ord, dtype=dtype) for t in self)


def _foreach_max(self: Any) -> tuple:
    """The largest element of every tensor of a list (0-d tensors)."""
    _check(self, "_foreach_max")
    return tuple(t.max() for t in self)


def _foreach_zero_(self: Any) -> Any:
    """Zero every tensor of a list in place."""
    _check(self, "_foreach_zero_")
    for t in self:
        t.zero_()
    return self


def _foreach_copy_(self: Any, src: Any, non_blocking: bool = False) -> Any:
    """Copy ``src[i]`` into ``self[i]`` for every i."""
    _check(self, "_foreach_copy_")
    for t, s in zip(self, _per_tensor(self, src)):
        t.copy_(s)
    return self


def _foreach_clone(self: Any) -> tuple:
    """A copy of every tensor of a list."""
    _check(self, "_foreach_clone")
    return tuple(t.clone() for t in self)


def _build() -> dict:
    table: dict = {
        "_foreach_norm": _foreach_norm,
        "_foreach_max": _foreach_max,
        "_foreach_zero_": _foreach_zero_,
        "_foreach_copy_": _foreach_copy_,
        "_foreach_clone": _foreach_clone,
    }
    for inplace in (False, True):
        suffix = "_" if inplace else ""
        for op in _UNARY:
            table[f"_foreach_{op}{suffix}"] = _unary(op, inplace)
        for op in _BINARY:
            table[f"_foreach_{op}{suffix}"] = _binary(op, inplace)
        for op in ("addcmul", "addcdiv"):
            table[f"_foreach_{op}{suffix}"] = _pointwise(op, inplace)
        table[f"_foreach_lerp{suffix}"] = _lerp(inplace)
    return table


FUNCTIONS = _build()


def get(name: str) -> Callable:
    """``torch._foreach_<op>`` by name (NotImplementedInChainrule for one chainrule lacks)."""
    try:
        return FUNCTIONS[name]
    except KeyError:
        raise missing("torch", name) from None
