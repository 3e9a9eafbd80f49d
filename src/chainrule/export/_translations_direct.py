"""Torch-level calls that PyTorch's export writes as one ATen call with the call's own
arguments (``torch.addmm``, ``F.selu``, ``torch.gather``, ...), translated from their
schemas (``_translations_schemas``): the arguments bound to the schema's, the overload
the first whose argument types fit (``remainder.Scalar`` for a number, ``.Tensor`` for a
tensor), trailing positional arguments equal to their defaults left out and keyword-only
ones written only when not their defaults, as PyTorch writes them. With the ATen
functions that run them on chainrule (``DIRECT_TABLE``) and their positional argument
names (``DIRECT_ARGS``)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import chainrule as torch
import chainrule.nn.functional as F

from ._translations_layers import LAYERS, LAYERS_RUN
from ._translations_schemas import SCHEMAS

Call = tuple[str, list, dict]
Tensor = torch.Tensor
_UNSET = object()


def _param(token: str) -> tuple[str, str, Any]:
    """``name:type=default`` as (name, type, default or ``_UNSET``)."""
    head, eq, default = token.partition("=")
    name, _, kind = head.partition(":")
    return name, kind, ast.literal_eval(default) if eq else _UNSET


def _parse(spec: str) -> tuple[list, list]:
    """A schema spec as its positional and keyword-only parameters."""
    positional, keyword = spec.split(" * ") if " * " in spec else (spec, "")
    return [_param(t) for t in positional.split()], [_param(t) for t in keyword.split()]


_PARSED = {overload: _parse(spec) for overload, spec in SCHEMAS.items()}


def _fits(kind: str, default: Any, value: Any) -> bool:
    if value is None:
        return default is None or kind == ""
    if kind == "T":
        return isinstance(value, Tensor)
    if isinstance(value, Tensor):
        return kind == ""
    if kind == "L":
        return isinstance(value, (int, list, tuple))
    if kind == "i":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "S":
        return isinstance(value, (int, float))
    if kind == "s":
        return isinstance(value, str)
    return True


def _same(value: Any, default: Any) -> bool:
    """Whether PyTorch leaves ``value`` out as its default (same type and value)."""
    if isinstance(value, Tensor) or default is _UNSET:
        return False
    if isinstance(value, (list, tuple)) and isinstance(default, list):
        return list(value) == default
    return type(value) is type(default) and value == default


def _value(kind: str, value: Any) -> Any:
    if kind == "L" and isinstance(value, int):
        return [value]
    if isinstance(value, tuple):
        return list(value)
    return value


# torch-level keyword names that are another name in the schema
_RENAMES = {"input": 0, "tensor": 0, "training": "train"}


def bind(overload: str, args: tuple, kwargs: dict) -> Call | None:
    """``overload`` called as PyTorch writes it with the torch-level ``args`` and
    ``kwargs``, or None where they do not fit its schema."""
    positional, keyword = _PARSED[overload]
    params = positional + keyword
    if len(args) > len(positional):
        return None
    values: dict[str, Any] = {p[0]: a for p, a in zip(positional, args)}
    names = {p[0] for p in params}
    for key, value in kwargs.items():
        rename = key if key in names else _RENAMES.get(key, key)
        name = params[rename][0] if isinstance(rename, int) else rename
        if name not in names or name in values:
            return None
        values[name] = value
    for name, kind, default in params:
        given = values.get(name, _UNSET)
        if given is _UNSET and default is _UNSET:
            return None
        if given is not _UNSET and not _fits(kind, default, given):
            return None
    out = [_value(kind, values.get(name, default)) for name, kind, default in positional]
    while out and _same(out[-1], positional[len(out) - 1][2]):
        out.pop()
    kw = {
        name: _value(kind, values[name])
        for name, kind, default in keyword
        if name in values and not _same(values[name], default)
    }
    return overload, out, kw


def direct(*overloads: str, drop: tuple = ()) -> Callable[..., Call]:
    """The translation of a call written as the first of ``overloads`` that fits
    (``drop``: torch-level arguments PyTorch does not pass on, as ``inplace``)."""

    def translate(*args: Any, **kwargs: Any) -> Call:
        for name in drop:
            kwargs.pop(name, None)
        for overload in overloads:
            call = bind(overload, args, kwargs)
            if call is not None:
                return call
        raise NotImplementedError(
            f"chainrule.export cannot export {overloads[0].partition('.')[0]} with these "
            "arguments; pass them as PyTorch's documentation spells them"
        )

    return translate


def _names(ops: str, overload: str = "default") -> dict[str, Callable[..., Call]]:
    return {op: direct(f"{op}.{overload}") for op in ops.split()}


def _scalar_or_tensor(ops: str) -> dict[str, Callable[..., Call]]:
    return {op: direct(f"{op}.Tensor", f"{op}.Scalar") for op in ops.split()}


_UNARY = """absolute acos arccos acosh asin arcsin asinh atan arctan atanh ceil cosh deg2rad
rad2deg digamma erfc erfinv exp2 fix floor frac lgamma log10 log2 logit i0 isnan isinf
isfinite isneginf isposinf isreal nan_to_num negative positive sgn signbit sinc sinh square
tan trunc logical_not angle"""
_BINARY = """atan2 arctan2 fmax fmin hypot logaddexp logaddexp2 nextafter heaviside logical_and
logical_or logical_xor addcmul addcdiv masked_scatter nansum nanmean logsumexp aminmax
cumprod cummax cummin logcumsumexp diff kthvalue msort mode baddbmm addmm addmv addbmm mv
dot vdot inner outer ger kron cross trace cdist view_as broadcast_to ravel swapaxes
swapdims adjoint fliplr flipud rot90 diag diag_embed diagflat tile atleast_1d atleast_2d
atleast_3d hstack vstack dstack column_stack row_stack gather take_along_dim take
scatter_add index_add index_copy index_put histc isclose selu celu softshrink hardshrink
glu rrelu pixel_shuffle pixel_unshuffle channel_shuffle one_hot cosine_similarity
pairwise_distance pdist"""


def _tensordot(a: Any, b: Any, dims: Any = 2, out: Any = None) -> Call:
    """``tensordot`` with its contracted dims as two lists (``dims=k``: the last ``k`` of
    ``a`` with the first ``k`` of ``b``)."""
    if isinstance(dims, int):
        first, second = list(range(-dims, 0)), list(range(dims))
    else:
        first, second = ([d] if isinstance(d, int) else list(d) for d in dims)
    return "tensordot.default", [a, b, first, second], {}


def _varargs(op: str) -> Callable[..., Call]:
    """``torch.block_diag(a, b)``: the tensors as one list."""
    return lambda *tensors: (f"{op}.default", [list(tensors)], {})


def _meshgrid(*tensors: Any, indexing: str | None = None) -> Call:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        return "meshgrid.default", [list(tensors)], {}
    return "meshgrid.indexing", [list(tensors)], {"indexing": indexing}


def _spread_mean(op: str) -> Callable[..., Call]:
    """``std_mean``/``var_mean``: ``.dim`` with a dim and ``unbiased``, else
    ``.correction``."""

    def call(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> Call:  # fmt: skip
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        dims = [dim] if isinstance(dim, int) else None if dim is None else list(dim)
        if dims is not None and correction is None:
            args = [input, dims, True if unbiased is None else unbiased, keepdim]
            while len(args) > 2 and args[-1] is (True if len(args) == 3 else False):
                args.pop()
            return f"{op}.dim", args, {}
        if unbiased is not None:
            correction = 1 if unbiased else 0
        kw = {} if correction is None else {"correction": correction}
        if keepdim:
            kw["keepdim"] = True
        return f"{op}.correction", [input] + ([] if dims is None else [dims]), kw

    return call


DIRECT: dict[str, Callable[..., Any]] = {
    **LAYERS,
    "tensordot": _tensordot,
    **_names(_UNARY),
    **_names(_BINARY),
    "round": direct("round.default", "round.decimals"),
    **_scalar_or_tensor("remainder fmod greater less greater_equal less_equal not_equal"),
    **_scalar_or_tensor("copysign __xor__"),
    "__mod__": direct("remainder.Tensor", "remainder.Scalar"),
    "multiply": direct("multiply.Tensor"),
    "divide": direct("divide.Tensor", "divide.Tensor_mode"),
    "true_divide": direct("true_divide.Tensor"),
    "floor_divide": direct("floor_divide.default"),
    "__floordiv__": direct("floor_divide.default"),
    "float_power": direct("float_power.Tensor_Tensor", "float_power.Tensor_Scalar"),
    "xlogy": direct("xlogy.Tensor", "xlogy.Scalar_Other"),
    "__abs__": lambda input: ("abs.default", [input], {}),
    "lerp": direct("lerp.Scalar", "lerp.Tensor"),
    "clamp_min": direct("clamp_min.default", "clamp_min.Tensor"),
    "clamp_max": direct("clamp_max.default", "clamp_max.Tensor"),
    "clip": direct("clip.default", "clip.Tensor"),
    "clamp_": direct("clamp_.default"),
    "clamp_min_": direct("clamp_min_.default"),
    "concat": direct("concat.default"),
    "concatenate": direct("concatenate.default"),
    "count_nonzero": direct("count_nonzero.default", "count_nonzero.dim_IntList"),
    "median": direct("median.default", "median.dim"),
    "nanmedian": direct("nanmedian.default", "nanmedian.dim"),
    "quantile": direct("quantile.scalar"),
    "nanquantile": direct("nanquantile.scalar"),
    "std_mean": _spread_mean("std_mean"),
    "var_mean": _spread_mean("var_mean"),
    "linalg.vector_norm": direct("linalg_vector_norm.default"),
    "expand_as": direct("expand_as.default"),
    "searchsorted": direct("searchsorted.Tensor"),
    "bucketize": direct("bucketize.Tensor"),
    "linalg.multi_dot": direct("linalg_multi_dot.default"),
    "linalg.norm": direct("linalg_norm.default", "linalg_norm.ord_str"),
    "linalg.matrix_norm": direct("linalg_matrix_norm.str_ord", "linalg_matrix_norm.default"),
    "unflatten": direct("unflatten.int"),
    "moveaxis": direct("moveaxis.int", "moveaxis.intlist"),
    "repeat_interleave": direct("repeat_interleave.self_int"),
    "block_diag": _varargs("block_diag"),
    "cartesian_prod": _varargs("cartesian_prod"),
    "meshgrid": _meshgrid,
    "tensor_split": direct("tensor_split.sections", "tensor_split.indices"),
    "hsplit": direct("hsplit.int", "hsplit.array"),
    "vsplit": direct("vsplit.int", "vsplit.array"),
    "scatter": direct("scatter.src", "scatter.value", "scatter.reduce"),
    "scatter_reduce": direct("scatter_reduce.two"),
    "index_fill": direct("index_fill.int_Scalar", "index_fill.int_Tensor"),
    "isin": direct("isin.Tensor_Tensor", "isin.Tensor_Scalar"),
    "where": direct("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar"),
    "celu": direct("celu.default", drop=("inplace",)),
    "selu": direct("selu.default", drop=("inplace",)),
    "rrelu": direct("rrelu.default", drop=("inplace",)),
    "logsigmoid": lambda input: ("log_sigmoid.default", [input], {}),
}

# names translated elsewhere too, where PyTorch 2.13 writes these calls as here
OVERRIDES = frozenset("where clip concat concatenate floor_divide __floordiv__ unfold".split())


def _unpacked(fn: Callable) -> Callable:
    """``fn(*tensors)`` of a ``Tensor[]`` argument."""
    return lambda tensors, **kwargs: fn(*tensors, **kwargs)


def _listed(fn: Callable) -> Callable:
    return lambda *args, **kwargs: list(fn(*args, **kwargs))


# the ATen functions whose chainrule function is not ``torch.<op>`` (or ``F.<op>``, or
# the Tensor method) with the schema's arguments
_RUN: dict[str, Callable] = {
    "__xor__": torch.bitwise_xor,
    "concatenate": lambda tensors, dim=0: torch.cat(list(tensors), dim),
    "concat": lambda tensors, dim=0: torch.cat(list(tensors), dim),
    "view_as": lambda self, other: self.view_as(other),
    "expand_as": lambda self, other: self.expand_as(other),
    "mT": lambda self: self.mT,
    "unfold": lambda self, dimension, size, step: self.unfold(dimension, size, step),
    "tensordot": lambda self, other, dims_self, dims_other: torch.tensordot(
        self, other, (list(dims_self), list(dims_other))
    ),
    "log_sigmoid": lambda self: F.logsigmoid(self),
    **LAYERS_RUN,
    "index_put": lambda self, indices, values, accumulate=False: self.index_put(
        tuple(indices), values, accumulate
    ),
    "block_diag": _unpacked(torch.block_diag),
    "cartesian_prod": _unpacked(torch.cartesian_prod),
    "meshgrid": _unpacked(torch.meshgrid),
    **{op: _listed(getattr(torch, op)) for op in ("tensor_split", "hsplit", "vsplit")},
}


def _runner(overload: str) -> Callable:
    op = overload.partition(".")[0]
    if op in _RUN:
        return _RUN[op]
    if op.startswith("linalg_"):
        return getattr(torch.linalg, op[len("linalg_") :])
    if op.endswith("_"):
        return lambda self, *args, **kwargs: getattr(self, op)(*args, **kwargs)
    fn = getattr(torch, op, None) or getattr(F, op)
    return lambda *args, **kwargs: fn(*args, **kwargs)


DIRECT_TABLE: dict[str, Callable] = {overload: _runner(overload) for overload in SCHEMAS}
DIRECT_ARGS: dict[str, str] = {
    overload: " ".join(name for name, _, _ in _PARSED[overload][0]) for overload in SCHEMAS
}
# the overloads returning ``Tensor[]``
DIRECT_LISTS = frozenset(
    f"{op}.{kind}"
    for op in ("tensor_split", "hsplit", "vsplit")
    for kind in ("sections", "indices", "int", "array")
    if f"{op}.{kind}" in SCHEMAS
) | {"meshgrid.indexing"}
