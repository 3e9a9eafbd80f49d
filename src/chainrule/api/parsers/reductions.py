"""PyTorch's signatures for the reductions, scans and sorts: dims as ints,
lists or None, ``keepdim``, ``dtype``, ``correction``, and results as named tuples
(``torch.return_types.max`` and its kin)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ... import _dtypes, _modes
from ..._backend import (
    add_reduce,
    asanyarray,
    in_use,
    ndarray,
    on_device_of,
    quiet_call,
    quietly,
    run_quietly,
    whole_sum,
    xp,
)
from ..._dtypes import dtype as DType
from ..._tensor import Tensor, _make, wrap
from ...autograd.entries import unary_recorder
from ...autograd.recorders import recorder
from ...ops import binary, reductions, scans, sorting
from ..args import dim_arg, named, require_tensor, return_type, tensors_only
from .linalg import matrix_norm, torch_norm_into, vector_norm_input

if TYPE_CHECKING:
    from ...autograd.recording import Op
    from ..args import MinMax, ValuesIndices

# ----- reductions ---------------------------------------------------------------------


def _all_dims(name: str, dim: Any, keepdim: Any) -> Any:
    """``dim`` as the op takes it: None when not given (PyTorch's overload without dims,
    whose node is SumBackward0 or MeanBackward0), () for every dim when given as None (the
    overload with dims: SumBackward1). keepdim without dims raises, as in PyTorch."""
    if dim is not _NOT_GIVEN:
        return () if dim is None else dim
    if keepdim is not False:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, "
            "keepdim=bool), but expected one of:\n * (Tensor input, *, torch.dtype dtype = "
            "None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, *, "
            "torch.dtype dtype = None, Tensor out = None)\n"
        )
    return None


_NOT_GIVEN: Any = type("NotGiven", (), {"__repr__": lambda self: "None"})()


def _numpy_spelled(name: str, dim: Any, keepdim: Any, axis: Any, keepdims: Any) -> tuple:
    """``dim``/``keepdim`` given as NumPy's ``axis``/``keepdims`` (PyTorch's parser takes
    both spellings; ``dim`` and ``axis`` together are its TypeError)."""
    if axis is not _NOT_GIVEN:
        if dim is not _NOT_GIVEN:
            raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
        dim = axis
    return dim, keepdim if keepdims is _NOT_GIVEN else keepdims


def sum(
    input: Tensor,
    dim: int | Sequence[int] | None = _NOT_GIVEN,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
    axis: int | Sequence[int] | None = _NOT_GIVEN,
    keepdims: bool = _NOT_GIVEN,
) -> Tensor:  # noqa: A001
    """Σ input over dim (all dims when not given or None)."""
    if axis is not _NOT_GIVEN or keepdims is not _NOT_GIVEN:  # (NumPy's spellings)
        dim, keepdim = _numpy_spelled("sum", dim, keepdim, axis, keepdims)
    if dim is _NOT_GIVEN and dtype is None and keepdim is False and input.__class__ is Tensor:
        data = input._data
        dt = data.dtype if data.__class__ is ndarray else None
        if dt is _FLOAT32 or dt is _FLOAT64:  # (summed as they are: no widening)
            # x.sum(): the op's sum straight away (BLAS's dot with ones, else add.reduce),
            # into the op's own output step (the same values, node and errors as the
            # general path: tests/autograd/test_recording_cost.py)
            try:  # (floating-point errors ignored: quietly)
                total = quietly(whole_sum, data)
                if total is None:  # (axis None: all of them)
                    total = quietly(_add_reduce, data, None, out=_ARRAY)
            except RuntimeError as exc:
                if not in_use(exc):
                    raise
                total = quiet_call(_sum_all, data)
            return _record_sum(input, data, total)
    dim = _all_dims("sum", dim, keepdim)
    if dim.__class__ is int and dtype is None and input.__class__ is Tensor:
        data = input._data
        dt = data.dtype if data.__class__ is ndarray else None
        if (dt is _FLOAT32 or dt is _FLOAT64) and (keepdim is False or keepdim is True):
            n = data.ndim
            if -n <= dim < n:
                # x.sum(1): NumPy's add.reduce along the one dim, into the op's output step
                # (tests/autograd/test_reduce_cost.py pins it to the general path)
                return _record_sum_dim(
                    input, data, _along(_sum_reduce, data, dim, keepdim), _dim_params(dim, keepdim)
                )
    if dtype is not None:
        _differentiable_dtype(input, dtype)
    return reductions.sum(input, dim=dim_arg(dim), keepdim=keepdim, dtype=dtype)


def _differentiable_dtype(input: Tensor, dtype: DType) -> None:
    """PyTorch's error for a ``dtype=`` that is not floating (or complex) on an input that
    requires grad while grad mode is on: autograd has no integer results."""
    if dtype._category < 2 and input.requires_grad and _modes.state.enabled:
        raise RuntimeError(f"Autograd not support dtype: {dtype.scalar_name}")


_FLOAT32, _FLOAT64 = xp.dtype(xp.float32), xp.dtype(xp.float64)
# its output and node over all dims, as Op._fast makes them
_record_sum = unary_recorder(reductions.sum, reductions.sum._class("SumBackward0"))
_add_reduce = xp.add.reduce
_record_sum_dim = recorder(reductions.sum, reductions.sum._class("SumBackward1"))


def _sum_all(data: Any) -> Any:
    """Σ data over every element, as the op sums it: by BLAS where ``whole_sum`` takes it,
    else add.reduce (axis None)."""
    total = whole_sum(data)
    return _add_reduce(data, None, out=_ARRAY) if total is None else total


def _along(reduce: Any, data: Any, dim: int, keepdim: bool) -> Any:
    """``reduce`` (a ufunc's reduce) of ``data`` along ``dim``, with floating-point errors
    ignored, laid out contiguously (as ``recording.contiguous`` lays the op's result out)."""
    try:  # (out=...: a 0-d array rather than a NumPy scalar)
        out = quietly(reduce, data, dim, None, keepdims=keepdim, out=_ARRAY)
    except RuntimeError as exc:
        if not in_use(exc):
            raise
        out = quiet_call(reduce, data, dim, None, keepdims=keepdim, out=_ARRAY)
    if out.__class__ is ndarray and out.ndim > 1 and not out.flags.c_contiguous:
        return xp.ascontiguousarray(out)
    return out


def _sum_reduce(x: Any, axis: int, dtype: Any = None, keepdims: bool = False, out: Any = None):
    """add.reduce with its arguments as ``_along`` gives them, for one axis: by
    ``_backend.add_reduce`` (BLAS where faster, as the ops sum) for a matrix or more."""
    if x.ndim > 1:
        return add_reduce(x, axis, keepdims)
    return _add_reduce(x, axis, dtype, keepdims=keepdims, out=out)


def _dim_params(dim: int, keepdim: bool) -> dict:
    """The parameters the general path gives the op for an int dim and no dtype."""
    return {"dim": dim, "keepdim": keepdim, "dtype": None}


try:  # NumPy 2's out=...: a 0-d array rather than a NumPy scalar, made as the result is
    _ARRAY: Any = ... if _add_reduce(xp.ones(2), None, out=...).__class__ is ndarray else None
except TypeError:  # (older NumPy: the scalar, made an array by the recorder)
    _ARRAY = None


def mean(
    input: Tensor,
    dim: int | Sequence[int] | None = _NOT_GIVEN,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
    axis: int | Sequence[int] | None = _NOT_GIVEN,
    keepdims: bool = _NOT_GIVEN,
) -> Tensor:
    """The mean over dim (all dims when not given or None); integer inputs raise, as in
    PyTorch."""
    if axis is not _NOT_GIVEN or keepdims is not _NOT_GIVEN:  # (NumPy's spellings)
        dim, keepdim = _numpy_spelled("mean", dim, keepdim, axis, keepdims)
    dim = _all_dims("mean", dim, keepdim)
    if dtype is None and input.__class__ is Tensor and _ARRAY is not None:
        data = input._data
        dt = data.dtype if data.__class__ is ndarray else None
        if (dt is _FLOAT32 or dt is _FLOAT64) and 0 < data.size < _EXACT_COUNT:
            # x.mean(), x.mean(1): NumPy's add.reduce and one division in place, into the
            # op's output step (tests/autograd/test_reduce_cost.py pins it to the general
            # path; the count, exact in float32, is what the general path divides by; an
            # empty input, 0/0, goes there)
            if dim is None:
                if keepdim is False:
                    total = _along(_add_reduce, data, None, False)
                    _divide(total, data.size, out=total)
                    return _record_mean(input, data, total, _MEAN_ALL)
            elif dim.__class__ is int and (keepdim is False or keepdim is True):
                n = data.ndim
                if -n <= dim < n:
                    total = _along(_sum_reduce, data, dim, keepdim)
                    _divide(total, data.shape[dim], out=total)
                    return _record_mean_dim(input, data, total, _dim_params(dim, keepdim))
    if dtype is not None and dtype._category < 2:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {dtype.scalar_name}"
        )
    return reductions.mean(input, dim=dim_arg(dim), keepdim=keepdim, dtype=dtype)


_record_mean = recorder(reductions.mean, reductions.mean._class("MeanBackward0"))
_record_mean_dim = recorder(reductions.mean, reductions.mean._class("MeanBackward1"))
_MEAN_ALL = {"dim": None, "keepdim": False, "dtype": None}
_divide = xp.true_divide
_EXACT_COUNT = 1 << 24  # (counts up to this are exact in float32)


# ----- results as torch.return_types ----------------------------------------------------------


_MAX, _MIN, _SORT, _TOPK, _KTHVALUE, _MODE = (
    return_type(n) for n in ("max", "min", "sort", "topk", "kthvalue", "mode")
)


_NO_PARAMS: dict = {}
_INT64 = xp.dtype(xp.int64)
_LONG = _dtypes.int64
_new_tuple = tuple.__new__


def _index_tensor(index: Any, dim: int, keepdim: bool, ndim: int) -> Tensor:
    out = index if keepdim or ndim == 0 else xp.squeeze(index, axis=dim)
    return wrap(asanyarray(out, dtype=xp.int64))


# ----- the reductions ----------------------------------------------------------------------------


def prod(
    input: Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """Π input (over one dim when given). Exact gradient with zeros in the input."""
    require_tensor("prod", input)
    if dim is not None and not isinstance(dim, int):
        raise TypeError(
            f"prod(): argument 'dim' (position 2) must be int, not {type(dim).__name__}"
        )
    if dim is not None:
        reductions._axis(dim, input.ndim)
    if dtype is not None:
        _differentiable_dtype(input, dtype)
    return reductions.prod(input, dim=dim, keepdim=keepdim, dtype=dtype)


def _arg_extreme(
    input: Tensor, dim: int | None, keepdim: bool, largest: bool, name: str = ""
) -> Any:
    """Index of the max (min) along dim: the first one; a nan counts as the extreme."""
    data = input._data
    name = name or ("argmax" if largest else "argmin")
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        flat = data.reshape(-1)
        i = xp.argmax(flat) if largest else xp.argmin(flat)
        return asanyarray(i, dtype=xp.int64).reshape((1,) * data.ndim if keepdim else ())
    axis = reductions._axis(dim, data.ndim)
    a = reductions._as_1d(data)
    if a.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    i = (
        xp.argmax(a, axis=axis, keepdims=True)
        if largest
        else xp.argmin(a, axis=axis, keepdims=True)
    )
    if data.ndim == 0:
        return i.reshape(())
    return i if keepdim else xp.squeeze(i, axis=axis)


def _no_complex(input: Tensor, kernel: str = "", message: str = "") -> None:
    """PyTorch's refusal to order complex numbers: RuntimeError(message), or the
    NotImplementedError of a kernel without a complex version."""
    if input._dtype._category == 3:
        if message:
            raise RuntimeError(message)
        raise _dtypes.not_implemented(kernel, input._dtype)


def _no_bool(fn: str, input: Tensor, message: str | None = None) -> None:
    if input._dtype.name == "bool":
        raise (RuntimeError if message else NotImplementedError)(
            message or f"\"{fn}\" not implemented for 'Bool'"
        )


def argmax(
    input: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """The index of the largest entry (of the flattened input when dim is None); the first
    on ties; a nan counts as largest."""
    index = _arg_along(input, dim, keepdim, True)
    if index is not None:
        return index
    _no_complex(input, message="argmax(): does not support complex input")
    _no_bool("argmax", input, "argmax(): does not support bool input")
    return wrap(asanyarray(_arg_extreme(input, dim, keepdim, True), dtype=xp.int64))


def argmin(
    input: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:  # noqa: A002
    """The index of the smallest entry; the first on ties; a nan counts as smallest."""
    index = _arg_along(input, dim, keepdim, False)
    if index is not None:
        return index
    _no_complex(input, message="argmin(): does not support complex input")
    _no_bool("argmin", input, "argmin(): does not support bool input")
    return wrap(asanyarray(_arg_extreme(input, dim, keepdim, False), dtype=xp.int64))


def _arg_along(input: Any, dim: Any, keepdim: Any, largest: bool) -> Tensor | None:
    """argmax (argmin) along an int dim in range of a tensor of numbers, the dim not empty:
    NumPy's argmax on the array straight away (what ``_arg_extreme`` computes, its checks
    passed); None for any other call. Pinned by tests/autograd/test_reduce_cost.py."""
    if dim.__class__ is not int or (keepdim is not False and keepdim is not True):
        return None
    if input.__class__ is not Tensor or input._dtype is _dtypes.bool:
        return None
    if input._dtype._category == 3:
        return None  # (refused in argmax and argmin)
    data = input._data
    n = data.ndim if data.__class__ is ndarray else 0
    if not n or not -n <= dim < n or not data.shape[dim]:
        return None
    index = data.argmax(dim, keepdims=keepdim) if largest else data.argmin(dim, keepdims=keepdim)
    if index.__class__ is not ndarray:  # (NumPy's scalar for a 1-D input: a 0-d array here)
        index = xp.asarray(index)
    return _make(index if index.dtype is _INT64 else index.astype(_INT64), _LONG)


def _max_min(
    name: str, all_op: Op, dim_op: Op, pair: type, binary: Callable[..., Tensor], largest: bool
) -> Callable[..., Tensor | ValuesIndices]:
    def function(
        input: Tensor,
        dim: int | Tensor | None = None,
        keepdim: bool = False,
        *,
        out: Tensor | None = None,
    ) -> Tensor | ValuesIndices:  # noqa: A002
        if dim.__class__ is int and (keepdim is False or keepdim is True):
            data = input._data if input.__class__ is Tensor else None
            n = data.ndim if data.__class__ is ndarray else 0
            if n and input._dtype._native and -n <= dim < n and data.shape[dim]:
                # x.max(1) of a float tensor: NumPy's argmax and the values read there
                # straight away, into the op's output step (tests/autograd/
                # test_reduce_cost.py pins it to the general path)
                axis = dim % n
                index = (
                    data.argmax(axis, keepdims=True)
                    if largest
                    else data.argmin(axis, keepdims=True)
                )
                values = forward(data, index, axis, keepdim)
                params = {"index": index, "dim": axis, "keepdim": keepdim}
                if not keepdim:
                    index = index.squeeze(axis)
                if index.dtype is not _INT64:
                    index = index.astype(_INT64)
                return _new_tuple(pair, (record(input, data, values, params), _make(index, _LONG)))
        elif dim is None and keepdim is False and input.__class__ is Tensor:
            data = input._data
            if data.__class__ is ndarray and input._dtype._native and data.size:
                # x.max() of a float tensor: the op's forward straight away, into its output
                # step (tests/autograd/test_reduce_cost.py pins it to the general path)
                out = run_quietly(forward_all, data)
                return record_all(input, data, out, _NO_PARAMS)
        require_tensor(name, input)
        if isinstance(dim, Tensor):  # max(input, other): the elementwise maximum
            return binary(input, dim)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            return all_op(input)
        axis = reductions._axis(dim, input.ndim)
        if reductions._as_1d(input._data).shape[axis]:  # (an empty dim: _arg_extreme's error)
            _no_complex(input, message=f"{name}(): does not support complex input")
        index = _arg_extreme(input, dim, True, largest, name)
        values = dim_op(input, index=index, dim=axis, keepdim=keepdim)
        return pair(values, _index_tensor(index, axis, keepdim, input.ndim))

    forward = dim_op.forward
    record = recorder(dim_op, dim_op.node_class)
    forward_all = all_op.forward
    record_all = recorder(all_op, all_op.node_class)
    return named(
        function,
        name,
        (
            f"{name}(input): the {name} of all entries (ties share the gradient equally); "
            f"{name}(input, dim, keepdim=False): a named tuple (values, indices), the first "
            f"index on ties, the gradient to that index; {name}(input, other): the elementwise "
            f"{'maximum' if largest else 'minimum'}."
        ),
    )


max = _max_min("max", reductions.max_all, sorting.max_dim, _MAX, tensors_only(binary.maximum), True)  # noqa: A001

min = _max_min(
    "min", reductions.min_all, sorting.min_dim, _MIN, tensors_only(binary.minimum), False
)  # noqa: A001


def _amax_amin(name: str, op: Op) -> Callable[..., Tensor]:
    def function(
        input: Tensor,
        dim: int | Sequence[int] = (),
        keepdim: bool = False,
        *,
        out: Tensor | None = None,
    ) -> Tensor:  # noqa: A002
        if dim.__class__ is int and (keepdim is False or keepdim is True):
            data = input._data if input.__class__ is Tensor else None
            n = data.ndim if data.__class__ is ndarray else 0
            if n and input._dtype._native and -n <= dim < n and data.shape[dim]:
                # x.amax(1) of a float tensor: the op's forward straight away, into its
                # output step (tests/autograd/test_reduce_cost.py pins it to the general path)
                out = run_quietly(forward, data, dim, keepdim)
                return record(input, data, out, {"dim": dim, "keepdim": keepdim})
        require_tensor(name, input)
        dim = _dims_arg(dim)
        reductions.dims_of(dim, input.ndim)
        if not input._data.size and dim.__class__ is not int and dim:
            for d in dim:  # (PyTorch names the first empty dim as it was given)
                if input.shape[d] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        elif not input._data.size and dim.__class__ is int and input.ndim and not input.shape[dim]:
            raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
        return op(input, dim=dim, keepdim=keepdim)

    forward = op.forward
    record = recorder(op, op.node_class)

    return named(
        function,
        name,
        (
            f"The {name[1:]} over dim (an int or a tuple; every dim by default). Entries tying "
            "for it share the gradient equally."
        ),
    )


amax = _amax_amin("amax", reductions.amax)

amin = _amax_amin("amin", reductions.amin)


def _parse_correction(
    fn: str, dim: Any, unbiased: bool | None, correction: float | None
) -> tuple[Any, float]:
    """(dim, correction) from PyTorch's var/std overloads: var(x, unbiased), var(x, dim,
    unbiased, keepdim), var(x, dim, *, correction, keepdim)."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{fn}() received an invalid combination of arguments")
        unbiased, dim = dim, None
    if isinstance(dim, list):
        dim = tuple(dim)
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{fn}() received an invalid combination of arguments: unbiased and correction "
            "cannot both be given"
        )
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _warn_dof(fn: str, input: Tensor, dim: Any, correction: float) -> None:
    # PyTorch's reduction factor is numel / output numel: 0 for an empty input, whatever dim
    data = input._data
    factor = reductions._count(data.shape, dim) if data.size else 0
    if factor - correction <= 0:
        warnings.warn(
            f"{fn}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )


def _var_std(fn: str, op: Op) -> Callable[..., Tensor]:
    def function(
        input: Tensor,
        dim: int | Sequence[int] | bool | None = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
        out: Tensor | None = None,
    ) -> Tensor:  # noqa: A002
        if unbiased is None and (keepdim is False or keepdim is True) and input.__class__ is Tensor:
            c = 1 if correction is None else correction
            data = input._data
            n = data.ndim
            if (
                (c.__class__ is int or c.__class__ is float)
                and data.__class__ is ndarray
                and input._dtype._native
                and data.size
                and (
                    dim is None
                    and data.size > c
                    or dim.__class__ is int
                    and -n <= dim < n
                    and data.shape[dim] > c
                )
            ):
                # x.std(1) of a float tensor, with more entries than the correction (no
                # warning): the op's forward straight away, into its output step
                # (tests/autograd/test_reduce_cost.py pins it to the general path)
                out = run_quietly(forward, data, dim, c, keepdim)
                params = {"dim": dim, "correction": c, "keepdim": keepdim}
                return record(input, data, out, params)
        require_tensor(fn, input)
        dim, correction = _parse_correction(fn, dim, unbiased, correction)
        if input._dtype._category < 2:
            raise RuntimeError("std and var only support floating point and complex dtypes")
        dim = _dims_arg(dim)
        reductions.dims_of(dim, input.ndim)
        _warn_dof(fn, input, dim, correction)
        return op(input, dim=dim, correction=correction, keepdim=keepdim)

    forward = op.forward
    record = recorder(op, op.node_class)
    return named(
        function,
        fn,
        (
            f"The {'variance' if fn == 'var' else 'standard deviation'} over dim, dividing by "
            "N - correction (correction=1, Bessel's, by default; unbiased=False means 0)."
        ),
    )


var = _var_std("var", reductions.var)

std = _var_std("std", reductions.std)


def _floating_moments(fn: str, input: Tensor, dim: Any, unbiased: Any, correction: Any) -> None:  # noqa: A002
    """var_mean's and std_mean's own refusal of integer and bool input (their name in it)."""
    require_tensor(fn, input)
    _parse_correction(fn, dim, unbiased, correction)
    if input._dtype._category < 2:
        raise RuntimeError(f"{fn} only support floating point and complex dtypes")


def var_mean(
    input: Tensor,
    dim: int | Sequence[int] | bool | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
    out: Tensor | None = None,
) -> tuple[Tensor, Tensor]:  # noqa: A002
    """(var, mean) over dim, as two tensors (each with its own gradient node)."""
    _floating_moments("var_mean", input, dim, unbiased, correction)
    v = var(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, bool) or dim == () else dim
    return v, reductions.mean(
        input, dim=reductions.dims_of(d, input.ndim) if d is not None else None, keepdim=keepdim
    )


def std_mean(
    input: Tensor,
    dim: int | Sequence[int] | bool | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
    out: Tensor | None = None,
) -> tuple[Tensor, Tensor]:  # noqa: A002
    """(std, mean) over dim, as two tensors."""
    _floating_moments("std_mean", input, dim, unbiased, correction)
    s = std(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, bool) or dim == () else dim
    return s, reductions.mean(
        input, dim=reductions.dims_of(d, input.ndim) if d is not None else None, keepdim=keepdim
    )


def _cumulative(name: str, op: Op) -> Callable[..., Tensor]:
    def function(
        input: Tensor, dim: int, *, dtype: DType | None = None, out: Tensor | None = None
    ) -> Tensor:  # noqa: A002
        require_tensor(name, input)
        axis = reductions._axis(dim, input.ndim)
        if dtype is not None:
            _differentiable_dtype(input, dtype)
        return op(input, dim=axis, dtype=dtype)

    return named(
        function,
        name,
        (
            f"The cumulative {'sum' if name == 'cumsum' else 'product'} along dim; integers "
            "and bools accumulate in int64."
        ),
    )


cumsum = _cumulative("cumsum", scans.cumsum)

cumprod = _cumulative("cumprod", scans.cumprod)


def _stable_order(data: Any, axis: int, descending: bool) -> Any:
    """Indices that sort ``data`` along axis, equal entries in their original order; nan is
    the largest value."""
    if data.dtype.kind == "b":
        data = data.astype(xp.int8)
    if not descending:
        return data.argsort(axis=axis, kind="stable")
    n = data.shape[axis]
    flip = (slice(None),) * axis + (slice(None, None, -1),)  # (xp.flip's view, its wrapper
    rev = data[flip].argsort(axis=axis, kind="stable")  # skipped: 2 µs a call)
    return (n - 1) - rev[flip]


def sort(
    input: Tensor,
    dim: int = -1,
    descending: bool = False,
    stable: bool = False,
    *,
    out: Tensor | None = None,
) -> ValuesIndices:  # noqa: A002
    """(values, indices) sorted along dim; always stable, nan sorted as the largest."""
    require_tensor("sort", input)
    if isinstance(dim, bool):  # sort(input, stable, dim, descending) is not supported
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    axis = reductions._axis(dim, input.ndim)
    _no_complex(input, message=" Sort does not support complex dtypes on CPU")
    data = reductions._as_1d(input._data)
    index = _stable_order(data, axis, descending)
    if input.ndim == 0:
        index = index.reshape(())
    values = sorting.sort(input, index=index, dim=axis, keepdim=True)
    return _SORT(values, wrap(asanyarray(index, dtype=xp.int64)))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:  # noqa: A002
    """The indices that sort input along dim (stable, nan as the largest)."""
    return sort(input, dim, descending, stable).indices


def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input sorted along its first dim."""
    return sort(input, 0).values


def topk(
    input: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    out: Tensor | None = None,
) -> ValuesIndices:  # noqa: A002
    """(values, indices) of the k largest (smallest) entries along dim, largest first
    (smallest first); among ties the lowest indices first. Always sorted."""
    require_tensor("topk", input)
    axis = reductions._axis(dim, input.ndim)
    data = reductions._as_1d(input._data)
    k = int(k)
    if not 0 <= k <= data.shape[axis]:
        raise RuntimeError("selected index k out of range")
    _no_bool("topk", input, "topk does not support bool dtypes on CPU")  # (after k, as PyTorch)
    _no_complex(input, message=" topk does not support complex dtypes on CPU")
    with on_device_of(data):  # the index arrays are made where the input is
        order = _stable_order(data, axis, largest)
        index = order[(slice(None),) * axis + (slice(0, k),)]  # (the first k along axis)
    if input.ndim == 0:
        index = order.reshape(())  # (k=0 too: PyTorch gives the one entry)
    values = sorting.topk(input, index=index, dim=axis, keepdim=True)
    return _TOPK(values, wrap(asanyarray(index, dtype=xp.int64)))


def _median(
    name: str, all_op: Op, dim_op: Op, skip_nan: bool
) -> Callable[..., Tensor | ValuesIndices]:
    def function(
        input: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None
    ) -> Tensor | ValuesIndices:  # noqa: A002
        require_tensor(name, input)
        if dim is None:
            if input._dtype.name == "bool":
                if not input._data.size:  # (PyTorch's nan as a bool, as for the integers)
                    return _make(xp.asarray(True), input._dtype)
                _no_bool("median_cpu", input)  # (nanmedian's error names median too)
            return all_op(input)
        axis = reductions._axis(dim, input.ndim)
        data = reductions._as_1d(input._data)
        n = data.shape[axis]
        if n == 0:
            raise IndexError(f"median(): Expected reduction dim {axis} to have non-zero size.")
        _no_bool("median_out", input)
        _no_complex(input, "median_out")
        with on_device_of(data):  # the index arrays are made where the input is
            order = _stable_order(data, axis, False)  # nan last
            middle = (n - 1) // 2
            if data.dtype.kind == "f":
                finite = (data == data).sum(axis=axis, keepdims=True)  # (the non-nan entries)
                if skip_nan:  # the median of the non-nan entries (all nan: the middle one)
                    pos = xp.where(finite > 0, (finite - 1) // 2, middle)
                else:  # a nan in the slice: the result is its first nan
                    pos = xp.where(finite < n, finite, middle)
            else:
                pos = xp.full(data.shape[:axis] + (1,) + data.shape[axis + 1 :], middle)
            index = sorting._take_along(order, pos, dim=axis)  # (take_along_axis's values)
        if input.ndim == 0:
            index = index.reshape(())
        values = dim_op(input, index=index, dim=axis, keepdim=keepdim)
        return pair(values, _index_tensor(index, axis, keepdim, input.ndim))

    pair = return_type(name)
    return named(
        function,
        name,
        (
            f"{name}(input): the lower median of all {'non-nan ' if skip_nan else ''}entries "
            f"(ties share the gradient); {name}(input, dim, keepdim=False): (values, indices), "
            "the gradient to that index."
        ),
    )


median = _median("median", reductions.median_all, sorting.median_dim, False)

nanmedian = _median("nanmedian", reductions.nanmedian_all, sorting.nanmedian_dim, True)


def kthvalue(
    input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out: Tensor | None = None
) -> ValuesIndices:  # noqa: A002
    """(values, indices): the k-th smallest entry along dim (k from 1); the gradient goes
    to that index."""
    require_tensor("kthvalue", input)
    axis = reductions._axis(dim, input.ndim)
    data = reductions._as_1d(input._data)
    n = data.shape[axis]
    k = int(k)
    if not 1 <= k <= n:
        if n == 0:
            raise IndexError(f"kthvalue(): Expected reduction dim {axis} to have non-zero size.")
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    if input.ndim:  # (PyTorch gives a 0-d input back whatever its dtype)
        _no_bool("kthvalue_cpu", input)
        _no_complex(input, "kthvalue_cpu")
    order = _stable_order(data, axis, False)
    index = xp.take(order, [k - 1], axis=axis)
    if input.ndim == 0:
        index = index.reshape(())
    values = sorting.kthvalue(input, index=index, dim=axis, keepdim=keepdim)
    return _KTHVALUE(values, _index_tensor(index, axis, keepdim, input.ndim))


def _mode_index(data: Any, axis: int) -> Any:
    """Per slice along axis: the index of the last occurrence of the most frequent value
    (the smallest such value; nan, all nans one value, the largest). Every slice at once:
    each sorted (stably), split into runs of equal values; the first of the longest runs
    gives the value, and its last entry in sorted order its last index in the slice."""
    moved = xp.moveaxis(data, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    if rows.dtype.kind == "b":
        rows = rows.astype(xp.int8)
    r, n = rows.shape
    out = _last_of_longest_runs(rows) if r else xp.zeros(0, dtype=xp.int64)
    index = out.reshape(moved.shape[:-1] + (1,))
    return xp.moveaxis(index, -1, axis)


def _last_of_longest_runs(rows: Any) -> Any:
    """``_mode_index`` of each of r > 0 rows of n > 0 entries."""
    r, n = rows.shape
    order = rows.argsort(axis=1, kind="stable")  # (nan last)
    ranked = xp.take_along_axis(rows, order, axis=1)
    new = xp.ones((r, n), dtype=bool)  # where a run starts: each row's first entry, a change
    before, after = ranked[:, :-1], ranked[:, 1:]
    same = before == after
    if ranked.dtype.kind == "f":
        same |= xp.isnan(before) & xp.isnan(after)
    xp.logical_not(same, out=new[:, 1:])
    starts = xp.flatnonzero(new)  # (in the rows laid end to end: runs end within their row)
    lengths = xp.diff(starts, append=r * n)
    first = xp.searchsorted(starts, xp.arange(r) * n)  # each row's first run
    longest = xp.maximum.reduceat(lengths, first)
    runs = xp.arange(len(starts))
    candidates = xp.where(lengths == longest[starts // n], runs, len(starts))
    pick = xp.minimum.reduceat(candidates, first)  # the first longest run of each row
    return order.reshape(-1)[starts[pick] + lengths[pick] - 1]  # its last entry's index


def mode(
    input: Tensor, dim: int = -1, keepdim: bool = False, *, out: Tensor | None = None
) -> ValuesIndices:  # noqa: A002
    """(values, indices): the most frequent entry along dim (the smallest of equally frequent
    ones) and its last index; the gradient goes to that index."""
    require_tensor("mode", input)
    axis = reductions._axis(dim, input.ndim)
    data = reductions._as_1d(input._data)
    if data.shape[axis] == 0:
        raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    if data.size and input.ndim:  # (nothing to compare: a copy, as in PyTorch)
        _no_complex(input, "mode_cpu")
    with on_device_of(data):  # the indices where the input is
        index = _mode_index(data, axis)
    if input.ndim == 0:
        index = index.reshape(())
    values = sorting.mode(input, index=index, dim=axis, keepdim=keepdim)
    return _MODE(values, _index_tensor(index, axis, keepdim, input.ndim))


def _running_index(data: Any, axis: int, largest: bool) -> Any:
    """For cummax (cummin): the index each running extreme was read from, the latest among
    ties, the latest nan once a nan has been seen."""
    if data.dtype.kind == "b":
        data = data.astype(xp.int8)
    acc = (xp.maximum if largest else xp.minimum).accumulate(data, axis=axis)
    hit = data == acc
    if data.dtype.kind == "f":
        hit |= xp.isnan(data)
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    positions = xp.arange(data.shape[axis]).reshape(shape)
    return xp.maximum.accumulate(xp.where(hit, positions, 0), axis=axis)


def _cum_extreme(name: str, op: Op, largest: bool, pair: type) -> Callable[..., ValuesIndices]:
    def function(input: Tensor, dim: int, *, out: Tensor | None = None) -> ValuesIndices:  # noqa: A002
        require_tensor(name, input)
        if input.ndim == 0 and dim not in (0, -1):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        axis = reductions._axis(dim, input.ndim)
        data = reductions._as_1d(input._data)
        if data.size and input.ndim:  # (nothing to compare: a copy, as in PyTorch)
            _no_complex(input, f"{name}_cpu")
        with on_device_of(data):  # the index arrays are made where the input is
            index = (
                _running_index(data, axis, largest) if data.size else xp.zeros(data.shape, xp.int64)
            )
        if input.ndim == 0:
            index = index.reshape(())
        values = op(input, index=index, dim=axis)
        return pair(values, wrap(asanyarray(index, dtype=xp.int64)))

    return named(
        function,
        name,
        (
            f"(values, indices): the running {name[3:]} along dim and where each was read (the "
            "latest among ties); the gradient adds up at those indices."
        ),
    )


_CUMMAX, _CUMMIN = return_type("cummax"), return_type("cummin")

cummax = _cum_extreme("cummax", scans.cummax, True, _CUMMAX)

cummin = _cum_extreme("cummin", scans.cummin, False, _CUMMIN)


def logcumsumexp(input: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """log Σ_(j≤i) e^(x_j) along dim, stable for large |x|."""
    require_tensor("logcumsumexp", input)
    if input._dtype._category < 2:
        reductions._axis(dim, input.ndim)  # (PyTorch checks dim first)
        name = input._dtype.scalar_name
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{name}'")
    return scans.logcumsumexp(input, dim=reductions._axis(dim, input.ndim))


def _dims_arg(dim: Any) -> Any:
    if isinstance(dim, list):
        dim = tuple(dim)
    return None if dim == () else dim


_NANSUM_COMPLEX = "nansum on CPU does not support complex inputs"


def nansum(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """Σ input over dim, nan counted as 0 (nan entries get no gradient)."""
    require_tensor("nansum", input)
    dim = _dims_arg(dim)
    if input._dtype._category == 3:
        reductions.dims_of(dim, input.ndim)  # (PyTorch checks dim first)
        _no_complex(input, message=_NANSUM_COMPLEX)
    reductions.dims_of(dim, input.ndim)
    if dtype is not None:
        if dtype._category == 3 and input._dtype._category == 2 and input.numel():
            # (PyTorch has no complex nansum kernel; an empty input never reaches one)
            raise _dtypes.not_implemented("nansum_cpu", dtype)
        _differentiable_dtype(input, dtype)
    return reductions.nansum(input, dim=dim, keepdim=keepdim, dtype=dtype)


def nanmean(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: DType | None = None,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """The mean over dim of the entries that are not nan: nansum / their count."""
    require_tensor("nanmean", input)
    # (PyTorch's order: the input's dtype, dtype=, then nansum's refusal of complex input)
    if input._dtype._category < 2:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{input._dtype.scalar_name}"
        )
    if dtype is not None and dtype._category < 2:
        raise RuntimeError(
            "nanmean(): could not infer output dtype. Optional dtype must be either a "
            f"floating point or complex dtype. Got: {dtype.scalar_name}"
        )
    if input._dtype._category == 3:  # (PyTorch's nanmean is nansum / count)
        reductions.dims_of(_dims_arg(dim), input.ndim)
        _no_complex(input, message=_NANSUM_COMPLEX)
    dim = _dims_arg(dim)
    axes = reductions.dims_of(dim, input.ndim)
    count = xp.sum(~xp.isnan(input._data), axis=axes, keepdims=keepdim)
    total = nansum(input, dim, keepdim, dtype=dtype)
    return total / wrap(asanyarray(count, dtype=total._data.dtype))


def count_nonzero(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """The number of nonzero entries over dim (an int or a tuple), as int64."""
    require_tensor("count_nonzero", input)
    dim = _dims_arg(dim)
    axes = reductions.dims_of(dim, input.ndim)
    return wrap(asanyarray(xp.count_nonzero(input._data, axis=axes), dtype=xp.int64))


def norm(
    input: Tensor,
    p: float | str | None = "fro",
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    out: Tensor | None = None,
    dtype: DType | None = None,
) -> Tensor:  # noqa: A002
    """torch.norm: the vector p-norm over dim (every entry when None) for a number p or
    'fro'; p='nuc' is the nuclear norm of the matrices over dim (the last two by default)."""
    if out is not None:
        return torch_norm_into(input, p, dim, keepdim, dtype, out)
    if dim is None and dtype is None and keepdim is False and input.__class__ is Tensor:
        data = input._data
        dt = data.dtype if data.__class__ is ndarray else None
        if dt is _FLOAT32 or dt is _FLOAT64:
            c = p.__class__
            if c is str and p == "fro" or p is None:
                order = 2
            elif (c is int or c is float) and p == 2:
                order = p
            else:
                order = None
            if order is not None:
                # x.norm(): the 2-norm's forward straight away, into the op's output step
                # (tests/autograd/test_reduce_cost.py pins it to the general path)
                total = run_quietly(_two_norm, data, None, False, dt)
                return _record_norm(
                    input, data, total, {"ord": order, "dim": None, "keepdim": False}
                )
    require_tensor("norm", input)
    if isinstance(dim, list):
        dim = tuple(dim)
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(p, str):
        if p != "fro" or dim is not None and len(dim) > 2:
            # the nuclear norm, or matrix_norm's error for what it cannot take (PyTorch's)
            dims = tuple(range(input.ndim)) if dim is None else dim
            return matrix_norm(input, p, dims, keepdim, dtype=dtype)
        p = 2
    elif p is None:
        p = 2
    x = input if dtype is None else vector_norm_input(input, dtype)
    return reductions.vector_norm(x, ord=p, dim=dim, keepdim=keepdim)


_two_norm = reductions.two_norm
_record_norm = recorder(
    reductions.vector_norm, reductions.vector_norm._class("LinalgVectorNormBackward0")
)


def _norm_method(
    self: Tensor,
    p: float | str | None = "fro",
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    dtype: DType | None = None,
) -> Tensor:
    return norm(self, p, dim, keepdim, dtype=dtype)


def _logical_reduction(name: str, np_fn: Callable[..., Any]) -> Callable[..., Tensor]:
    def function(
        input: Tensor,
        dim: int | Sequence[int] | None = None,
        keepdim: bool = False,
        *,
        out: Tensor | None = None,
    ) -> Tensor:  # noqa: A002
        require_tensor(name, input)
        if isinstance(dim, list):
            dim = tuple(dim)
        axes = reductions.dims_of(dim, input.ndim)
        if axes is None and dim is not None:
            axes = ()  # dim=() reduces nothing: each entry's truth (sum's dim=() sums all)
        data = input._data
        result = np_fn(data, axis=axes, keepdims=keepdim)
        if dim is None and keepdim:
            result = asanyarray(result).reshape((1,) * data.ndim)
        # PyTorch keeps uint8 for uint8 inputs; every other dtype gives bool (contiguous)
        dtype = xp.uint8 if data.dtype == xp.uint8 else xp.bool_
        return wrap(asanyarray(result, dtype=dtype, order="C"))

    return named(
        function,
        name,
        (
            f"True where {'every' if name == 'all' else 'some'} entry over dim (an int or a "
            "tuple; every dim by default) is nonzero. bool, or uint8 for a uint8 input."
        ),
    )


all = _logical_reduction("all", xp.all)  # noqa: A001

any = _logical_reduction("any", xp.any)  # noqa: A001


def _cumulative_method(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def method(self: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
        return fn(self, dim, dtype=dtype)

    method.__name__ = fn.__name__
    return method


_AMINMAX = return_type("aminmax", ("min", "max"))


def aminmax(
    input: Tensor, *, dim: int | None = None, keepdim: bool = False, out: Tensor | None = None
) -> MinMax:  # noqa: A002
    """(min, max) over dim (every dim when None); ties share each gradient equally."""
    require_tensor("aminmax", input)
    complex_input = input._dtype._category == 3
    if dim is not None:
        dim = reductions._axis(dim, input.ndim)
        if complex_input and input.ndim == 0:
            raise RuntimeError(f"aminmax not implemented for {input._dtype.scalar_name}")
        if input.ndim and not input.shape[dim]:
            raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
        if complex_input:
            raise _dtypes.not_implemented("aminmax_cpu", input._dtype)
    elif not input._data.size:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
            "no identity."
        )
    return _AMINMAX(
        reductions.aminmax_min(input, dim=dim, keepdim=keepdim),
        reductions.aminmax_max(input, dim=dim, keepdim=keepdim),
    )
