"""Quantized tensors: ``torch.quantize_per_tensor``, ``torch.quantize_per_channel``, the
quantization schemes (``torch.per_tensor_affine`` ...) and the tensor they make.

A quantized tensor holds integers (``int_repr()``: int8 for qint8, uint8 for quint8, int32
for qint32) and the affine map back to floats: ``(q - zero_point) * scale``, one scale and
zero point for the whole tensor or one per slice along ``axis``. It is a ``Tensor`` (a
subclass that opts out of ``__torch_function__``, so making one costs the plain tensors
nothing); its integers live outside ``_data``, so an op chainrule has no quantized kernel
for raises NotImplementedError, as PyTorch's QuantizedCPU backend does, instead of
computing on the integers. What it supports: its metadata, ``dequantize``, ``int_repr``,
the ``q_*`` queries, ``clone``/``detach``/``contiguous``/``cpu``, indexing, ``reshape``/
``view`` (per-tensor), printing, deepcopy and pickling.

Rounding is PyTorch's CPU kernels' (compared bit for bit in tests/ao): per tensor, qint8
and quint8 round ``zero_point + x * (1/scale)`` computed with one rounding (the fused
multiply-add of the vectorised kernel), qint32 the same sum rounded twice in float32;
per channel, ``x * (1/scale)`` and the zero point are added in float32. Ties go to even;
then the values are clamped to the dtype's range.
"""

from __future__ import annotations

import builtins
import copy as _copy
import warnings
from typing import Any

import numpy as np

from . import _dtypes, overrides
from ._dtypes import dtype as DType
from ._tensor import Size, Tensor, _make, _wrap_dim

__all__ = [
    "QTensor",
    "dequantize",
    "per_channel_affine",
    "per_channel_affine_float_qparams",
    "per_channel_symmetric",
    "per_tensor_affine",
    "per_tensor_symmetric",
    "qscheme",
    "quantize_per_channel",
    "quantize_per_tensor",
]


class qscheme:  # noqa: N801 - PyTorch's spelling
    """A quantization scheme (``torch.per_tensor_affine`` ...)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> tuple:
        return (_scheme, (self.name,))


per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")
SCHEMES = {
    s.name: s
    for s in (
        per_tensor_affine,
        per_channel_affine,
        per_tensor_symmetric,
        per_channel_symmetric,
        per_channel_affine_float_qparams,
    )
}


def _scheme(name: str) -> qscheme:
    return SCHEMES[name]


# dtype -> (its integers' NumPy dtype, least, greatest)
RANGES = {
    _dtypes.qint8: (np.int8, -128, 127),
    _dtypes.quint8: (np.uint8, 0, 255),
    _dtypes.qint32: (np.int32, -(2**31), 2**31 - 1),
}
# the plain dtype of each one's integers (int_repr)
INT_DTYPES = {_dtypes.qint8: _dtypes.int8, _dtypes.quint8: _dtypes.uint8}
INT_DTYPES[_dtypes.qint32] = _dtypes.int32

_NO_KERNEL = (
    "Could not run this operator with arguments from the 'QuantizedCPU' backend: chainrule's "
    "quantized tensors have dequantize(), int_repr(), the q_* queries, clone, detach, "
    "indexing, reshape, flatten and relu; dequantize() first to compute on the values"
)


_WARNED: list = []
DEPRECATED = (
    "torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation "
    "functions that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are "
    "deprecated and will be removed in a future PyTorch release. Please see "
    "https://github.com/pytorch/pytorch/issues/184982 for more information."
)


class _NoData:
    """QTensor's ``_data``: ops that read a tensor's array refuse a quantized one."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        raise NotImplementedError(_NO_KERNEL)

    def __set__(self, obj: Any, value: Any) -> None:
        raise NotImplementedError(_NO_KERNEL)


class QTensor(Tensor):
    """A quantized tensor (``x.is_quantized``): integers and their scale and zero point."""

    _dispatch_when_made = True  # (dispatch turns on with the first quantized tensor)
    _data = _NoData()  # type: ignore[assignment]

    @classmethod
    def __torch_function__(
        cls, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        """The functions and methods quantized tensors have (``HANDLERS``): relu, flatten,
        reshape ...; a Tensor property runs as it is; anything else raises PyTorch's
        NotImplementedError of the QuantizedCPU backend."""
        name = getattr(func, "__name__", "")
        kwargs = kwargs or {}
        if name == "__get__":  # a Tensor property this class does not define
            with overrides.DisableTorchFunctionSubclass():
                return func(*args, **kwargs)
        handler = HANDLERS.get(name)
        if handler is None:
            called = overrides.resolve_name(func) or name
            raise NotImplementedError(
                f"Could not run {called} with arguments from the 'QuantizedCPU' backend. "
                f"(chainrule: {_NO_KERNEL})"
            )
        return handler(*args, **kwargs)

    # ----- making one ------------------------------------------------------------------

    @staticmethod
    def _new(
        ints: np.ndarray, dtype: DType, scheme: qscheme, scale: Any, zero_point: Any, axis: int
    ) -> QTensor:
        if not _WARNED:  # (PyTorch warns once per process, where the first one is made)
            _WARNED.append(True)
            warnings.warn(DEPRECATED, UserWarning, stacklevel=3)
        if not overrides._state.classes:  # (the first one: turn __torch_function__ on)
            overrides._class_defined(QTensor)
        q = object.__new__(QTensor)
        for name, value in (
            ("_dtype", dtype),
            ("_requires_grad", False),
            ("_grad_fn", None),
            ("_output_nr", 0),
            ("_grad", None),
            ("_vc", None),
            ("_acc", None),
            ("_retains_grad", False),
            ("_hooks", None),
            ("_post_hooks", None),
            ("_view", None),
        ):
            object.__setattr__(q, name, value)
        d = q.__dict__
        d["_ints"], d["_scheme"], d["_scale"], d["_zp"], d["_axis"] = (
            ints,
            scheme,
            scale,
            zero_point,
            axis,
        )
        return q

    def _like(self, ints: np.ndarray) -> QTensor:
        return QTensor._new(ints, self._dtype, self._scheme, self._scale, self._zp, self._axis)

    # ----- the quantization ------------------------------------------------------------

    @property
    def is_quantized(self) -> bool:  # type: ignore[override]
        return True

    def qscheme(self) -> qscheme:
        return self._scheme

    def _per_tensor(self, what: str) -> None:
        if self._axis is not None:
            raise RuntimeError(
                f"Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  "
                f"({what} of a per-channel quantized tensor)"
            )

    def _per_channel(self) -> None:
        if self._axis is None:
            raise RuntimeError(
                "Expected quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() "
                "== kPerChannelAffineFloatQParams to be true, but got false.  "
            )

    def q_scale(self) -> float:
        self._per_tensor("q_scale")
        return self._scale

    def q_zero_point(self) -> int:
        self._per_tensor("q_zero_point")
        return self._zp

    def q_per_channel_scales(self) -> Tensor:
        self._per_channel()
        return _make(self._scale.copy(), _dtypes.from_numpy_dtype(self._scale.dtype))

    def q_per_channel_zero_points(self) -> Tensor:
        self._per_channel()
        return _make(self._zp.copy(), _dtypes.from_numpy_dtype(self._zp.dtype))

    def q_per_channel_axis(self) -> int:
        self._per_channel()
        return self._axis

    def int_repr(self) -> Tensor:
        """The integers, as a plain tensor (a copy)."""
        return _make(self._ints.copy(), INT_DTYPES[self._dtype])

    def dequantize(self) -> Tensor:
        """The float32 values ``(q - zero_point) * scale``."""
        ints = self._ints
        if self._axis is None:
            diff = (ints.astype(np.int64) - self._zp).astype(np.float32)
            return _make(diff * np.float32(self._scale), _dtypes.float32)
        shape = [1] * ints.ndim
        shape[self._axis] = -1
        z, s = self._zp.reshape(shape), self._scale.reshape(shape)
        if self._scheme is per_channel_affine_float_qparams:  # (all in float32)
            return _make((ints.astype(np.float32) - z) * s, _dtypes.float32)
        return _make(((ints.astype(np.int64) - z) * s).astype(np.float32), _dtypes.float32)

    # ----- metadata ----------------------------------------------------------------------

    @property
    def shape(self) -> Size:  # type: ignore[override]
        return Size(self._ints.shape)

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return Size(self._ints.shape)
        return self._ints.shape[_wrap_dim(dim, self._ints.ndim)]

    @property
    def device(self) -> Any:  # type: ignore[override]
        from ._tensor import _CPU

        return _CPU

    @property
    def is_meta(self) -> bool:  # type: ignore[override]
        return False

    @property
    def is_cuda(self) -> bool:  # type: ignore[override]
        return False

    def dim(self) -> int:
        return self._ints.ndim

    @property
    def ndim(self) -> int:  # type: ignore[override]
        return self._ints.ndim

    def ndimension(self) -> int:
        return self._ints.ndim

    def numel(self) -> int:
        return self._ints.size

    nelement = numel

    def element_size(self) -> int:
        return self._ints.itemsize

    @property
    def nbytes(self) -> int:
        return self._ints.nbytes

    @property
    def itemsize(self) -> int:
        return self._ints.itemsize

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        strides = tuple(s // self._ints.itemsize for s in self._ints.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._ints.ndim)]

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return bool(self._ints.flags.c_contiguous)

    def data_ptr(self) -> int:
        return int(self._ints.__array_interface__["data"][0])

    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:  # type: ignore[override]
        if dtype is None:
            return f"torch.quantized.{self._dtype.scalar_name}Tensor"
        raise NotImplementedError(_NO_KERNEL)

    def __len__(self) -> int:
        if self._ints.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._ints.shape[0]

    @property
    def data(self) -> QTensor:  # type: ignore[override]
        return self._like(self._ints)

    @property
    def requires_grad(self) -> bool:  # type: ignore[override]
        return False

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> QTensor:
        if requires_grad:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        return self

    # ----- the ops it has ----------------------------------------------------------------

    def clone(self, *, memory_format: Any = None) -> QTensor:
        return self._like(self._ints.copy())

    def detach(self) -> QTensor:
        return self._like(self._ints)

    def contiguous(self, memory_format: Any = None) -> QTensor:
        if self._ints.flags.c_contiguous:
            return self
        return self._like(np.ascontiguousarray(self._ints))

    def cpu(self, memory_format: Any = None) -> QTensor:
        return self

    def _reshaped(self, shape: tuple) -> QTensor:
        if self._axis is not None:
            raise NotImplementedError(_NO_KERNEL + " (reshape of a per-channel quantized tensor)")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
            shape = tuple(shape[0])
        return self._like(self._ints.reshape(shape))

    def reshape(self, *shape: Any) -> QTensor:
        return self._reshaped(shape)

    def view(self, *shape: Any) -> QTensor:
        return self._reshaped(shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> QTensor:
        shape = self._ints.shape
        if not shape:
            return self._reshaped((1,))
        a, b = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
        middle = int(np.prod(shape[a : b + 1], dtype=np.int64))
        return self._reshaped((*shape[:a], middle, *shape[b + 1 :]))

    def __getitem__(self, key: Any) -> QTensor:
        if self._axis is not None:
            raise NotImplementedError(_NO_KERNEL + " (indexing a per-channel quantized tensor)")
        if isinstance(key, Tensor):
            key = key.numpy()
        elif isinstance(key, tuple):
            key = tuple(k.numpy() if isinstance(k, Tensor) else k for k in key)
        return self._like(np.asarray(self._ints[key]))

    def __iter__(self) -> Any:
        if self._ints.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._ints.shape[0]))

    def numpy(self, *, force: bool = False) -> Any:
        raise TypeError(f"Got unsupported ScalarType {self._dtype.scalar_name}")

    def tolist(self) -> Any:
        raise RuntimeError("load_scalar: invalid type")

    # ----- copying, pickling, printing ---------------------------------------------------

    def __deepcopy__(self, memo: dict) -> QTensor:
        q = QTensor._new(
            self._ints.copy(),
            self._dtype,
            self._scheme,
            _copy.deepcopy(self._scale),
            _copy.deepcopy(self._zp),
            self._axis,
        )
        memo[id(self)] = q
        return q

    def __reduce_ex__(self, protocol: Any) -> tuple:
        args = (self._ints, self._dtype.name, self._scheme.name, self._scale, self._zp, self._axis)
        return (_rebuild_quantized, args)

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        from ._printing import format_tensor

        suffixes = [f"size={tuple(self._ints.shape)}", f"dtype={self._dtype!r}"]
        suffixes.append(f"quantization_scheme={self._scheme!r}")
        if self._axis is None:
            suffixes += [f"scale={self._scale}", f"zero_point={self._zp}"]
        else:
            suffixes.append(f"scale={self.q_per_channel_scales()}")
            suffixes.append(f"zero_point={self.q_per_channel_zero_points()}")
            suffixes.append(f"axis={self._axis}")
        return format_tensor(self.dequantize()._data, suffixes)

    __str__ = __repr__


def _relu(input: QTensor, inplace: bool = False) -> QTensor:  # noqa: A002
    """Quantized relu: the integers below the zero point raised to it (same scale and zero
    point, as PyTorch's kernel)."""
    if not isinstance(input, QTensor):
        raise TypeError("relu: expected a quantized tensor")
    ints = input._ints
    floor = input._zp if input._axis is None else _channel_view(input._zp, input)
    out = np.maximum(ints, np.asarray(floor).astype(ints.dtype))
    if inplace:
        ints[...] = out
        return input
    return input._like(out)


def _channel_view(values: np.ndarray, q: QTensor) -> np.ndarray:
    shape = [1] * q._ints.ndim
    shape[q._axis] = -1
    return values.reshape(shape)


def _method(name: str) -> Any:
    def call(input: QTensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        return getattr(input, name)(*args, **kwargs)

    return call


def _false(input: QTensor) -> bool:  # noqa: A002
    return False


def _max_pool2d(input: QTensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
    """Quantized max pooling: the max of the integers (same scale and zero point)."""
    from .nn import functional

    if kwargs.get("return_indices") or (len(args) > 5 and args[5]):
        raise NotImplementedError("quantized max_pool2d with return_indices")
    values = _make(input._ints.astype(np.float32), _dtypes.float32)
    pooled = functional.max_pool2d(values, *args, **kwargs).numpy()
    return input._like(pooled.astype(input._ints.dtype))


def _dropout(input: QTensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:  # noqa: A002
    """Dropout of a quantized tensor: only in eval mode (the identity), as nnq.Dropout."""
    if training:
        raise NotImplementedError(
            "Could not run dropout with arguments from the 'QuantizedCPU' backend (training)"
        )
    return input


def _mean(input: QTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    """Quantized mean: the integers' mean, rounded to even (same scale and zero point)."""
    if input._axis is not None or dtype is not None:
        raise NotImplementedError("quantized mean of a per-channel tensor, or with a dtype")
    ints = input._ints
    axes = tuple(range(ints.ndim)) if dim is None else dim
    axes = (axes,) if isinstance(axes, builtins.int) else tuple(axes)
    axes = tuple(_wrap_dim(a, ints.ndim) for a in axes)
    count = builtins.int(np.prod([ints.shape[a] for a in axes], dtype=np.int64))
    total = ints.astype(np.int64).sum(axis=axes, keepdims=keepdim)
    _, lo, hi = RANGES[input._dtype]
    out = np.clip(np.rint(total.astype(np.float32) / np.float32(count)), lo, hi)
    return input._like(np.asarray(out.astype(ints.dtype)))


def _adaptive_avg_pool2d(input: QTensor, output_size: Any) -> Any:  # noqa: A002
    """Quantized global average pooling (output size 1): each plane's integer sum times
    1/count in float32, rounded to even."""
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if size != (1, 1) or input._axis is not None:
        raise NotImplementedError(
            "chainrule's quantized adaptive_avg_pool2d pools to output size 1 only"
        )
    ints = input._ints
    count = ints.shape[-1] * ints.shape[-2]
    total = ints.astype(np.int64).sum(axis=(-2, -1), keepdims=True).astype(np.float32)
    _, lo, hi = RANGES[input._dtype]
    out = np.clip(np.rint(total * (np.float32(1.0) / np.float32(count))), lo, hi)
    return input._like(out.astype(ints.dtype))


# what __torch_function__ runs for a quantized tensor, by function name
HANDLERS: dict = {
    "mean": _mean,
    "adaptive_avg_pool2d": _adaptive_avg_pool2d,
    "max_pool2d": _max_pool2d,
    "dropout": _dropout,
    "relu": _relu,
    "relu_": lambda input: _relu(input, inplace=True),
    "is_floating_point": _false,
    "is_complex": _false,
}
for _name in "flatten reshape clone detach contiguous dequantize int_repr view".split():
    HANDLERS[_name] = _method(_name)
for _name in "q_scale q_zero_point q_per_channel_scales q_per_channel_zero_points".split():
    HANDLERS[_name] = _method(_name)
HANDLERS["q_per_channel_axis"] = _method("q_per_channel_axis")


def _rebuild_quantized(
    ints: np.ndarray, dtype_name: str, scheme: str, scale: Any, zero_point: Any, axis: Any
) -> QTensor:
    """A pickled quantized tensor."""
    dt = getattr(_dtypes, dtype_name)
    return QTensor._new(ints, dt, SCHEMES[scheme], scale, zero_point, axis)


# ----- making quantized tensors ------------------------------------------------------------


def _float_input(x: Any) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"quantize: expected a Tensor as input, got {type(x).__name__}")
    if x._dtype is not _dtypes.float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {x._dtype.scalar_name}")
    return np.asarray(x.detach().numpy(), dtype=np.float32)


def _check_dtype(dtype: Any) -> tuple:
    if dtype not in RANGES:
        name = getattr(dtype, "scalar_name", dtype)
        raise RuntimeError(f"ScalarType {name} is not supported in new_qtensor.")
    return RANGES[dtype]


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, Tensor) else value


def quantize_array(x: np.ndarray, scale: float, zero_point: int, dtype: DType) -> np.ndarray:
    """The integers of ``x`` (float32) quantized per tensor, as PyTorch's CPU kernel rounds."""
    inv = np.float32(1.0) / np.float32(scale)
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype is _dtypes.qint32:
            t = np.rint((x * inv).astype(np.float32) + np.float32(zero_point))
        else:  # (the product is exact in float64; the sum rounded once, as a fused multiply-add)
            t = np.rint((x.astype(np.float64) * np.float64(inv) + zero_point).astype(np.float32))
    return _clamp(t, dtype)


def _clamp(t: np.ndarray, dtype: DType) -> np.ndarray:
    """Rounded values clamped to ``dtype``'s integers (in float64, where 2**31 - 1 is
    exact); a NaN becomes the greatest 8-bit integer or the least 32-bit one, as PyTorch's
    vectorised kernels give."""
    np_dtype, lo, hi = RANGES[dtype]
    t = np.clip(np.asarray(t, dtype=np.float64), lo, hi)
    t[np.isnan(t)] = lo if dtype is _dtypes.qint32 else hi
    return t.astype(np_dtype)


def quantize_per_tensor(input: Any, scale: Any, zero_point: Any, dtype: DType) -> Any:  # noqa: A002
    """``torch.quantize_per_tensor``: ``clamp(round(x / scale) + zero_point)`` as integers of
    ``dtype``; a list of tensors takes tensors of scales and zero points (a list back)."""
    if isinstance(input, (list, tuple)):
        scales, zps = np.asarray(scale.numpy()), np.asarray(zero_point.numpy())
        return [
            quantize_per_tensor(t, float(s), int(z), dtype)
            for t, s, z in zip(input, scales, zps, strict=False)
        ]
    x = _float_input(input)
    _, lo, hi = _check_dtype(dtype)
    scale, zero_point = _scalar(scale), _scalar(zero_point)
    if isinstance(zero_point, builtins.float) or isinstance(scale, builtins.bool):
        raise TypeError(
            "quantize_per_tensor() received an invalid combination of arguments - got "
            f"(Tensor, {type(scale).__name__}, {type(zero_point).__name__}, torch.dtype)"
        )
    zero_point = builtins.int(zero_point)
    if zero_point > hi:
        raise RuntimeError(
            f"quantize_tensor_per_tensor_affine zero_point {zero_point} is above upper bound."
        )
    if zero_point < lo:
        raise RuntimeError(
            f"quantize_tensor_per_tensor_affine zero_point {zero_point} is below lower bound."
        )
    ints = quantize_array(x, builtins.float(scale), zero_point, dtype)
    return QTensor._new(ints, dtype, per_tensor_affine, builtins.float(scale), zero_point, None)


def quantize_per_channel(
    input: Tensor,  # noqa: A002
    scales: Tensor,
    zero_points: Tensor,
    axis: int,
    dtype: DType,
) -> QTensor:
    """``torch.quantize_per_channel``: each slice along ``axis`` quantized with its own scale
    and zero point. Integer zero points give ``per_channel_affine`` (scales kept as float64,
    zero points as int64); floating ones ``per_channel_affine_float_qparams`` (both kept as
    float32, ``round(x / scale + zero_point)``)."""
    if not isinstance(input, Tensor) or input._dtype is not _dtypes.float32:
        got = input._dtype.scalar_name if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"quantize_tensor_per_channel_affine expects a Float Tensor, got {got}")
    x = _float_input(input)
    _check_dtype(dtype)
    if scales.dim() != 1:
        raise RuntimeError("scale tensor must have dimension 1")
    if zero_points.dim() != 1:
        raise RuntimeError("zero_points tensor must have dimension 1")
    if scales.numel() != zero_points.numel():
        raise RuntimeError("number of elements in scales and zero_points must match")
    floating = zero_points._dtype.is_floating_point
    shape = [1] * x.ndim
    if floating:
        s = np.asarray(scales.detach().numpy(), dtype=np.float32).copy()
        z = np.asarray(zero_points.detach().numpy(), dtype=np.float32).copy()
        _check_axis(axis, x.ndim, "float qparams")
        _check_channels(s, x.shape[axis])
        shape[axis] = -1
        s_, z_ = s.reshape(shape), z.reshape(shape)
        inv = np.where(s_ == 0, np.float32(1.0), np.float32(1.0) / np.where(s_ == 0, 1, s_))
        with np.errstate(invalid="ignore", over="ignore"):
            t = np.rint((x * inv.astype(np.float32)).astype(np.float32) + z_)
        return QTensor._new(_clamp(t, dtype), dtype, per_channel_affine_float_qparams, s, z, axis)
    s = np.asarray(scales.detach().numpy(), dtype=np.float64).copy()
    z = np.asarray(zero_points.detach().numpy()).astype(np.int64).copy()
    _, lo, hi = RANGES[dtype]
    for zp in z.tolist():
        if zp > hi:
            raise RuntimeError(
                f"quantize_tensor_per_channel_affine zero_point {zp} is above upper bound."
            )
        if zp < lo:
            raise RuntimeError(
                f"quantize_tensor_per_channel_affine zero_point {zp} is below lower bound."
            )
    _check_axis(axis, x.ndim, "affine")
    _check_channels(s, x.shape[axis])
    shape[axis] = -1
    inv = (np.float32(1.0) / s.astype(np.float32)).reshape(shape)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        t = np.rint((x * inv).astype(np.float32) + z.astype(np.float32).reshape(shape))
    return QTensor._new(_clamp(t, dtype), dtype, per_channel_affine, s, z, axis)


def _check_axis(axis: int, ndim: int, kind: str) -> None:
    if not 0 <= axis < ndim:
        raise RuntimeError(
            f"Channel axis out of range in per channel {kind} quantization. Got: {axis}"
            f"Expected: [0, {ndim})"
        )


def _check_channels(scales: np.ndarray, channels: int) -> None:
    if scales.shape[0] != channels:
        raise RuntimeError(
            f"length of scales must equal to channel, expected {channels} got, {scales.shape[0]}"
        )


def dequantize(tensor: Any) -> Any:
    """``torch.dequantize``: a quantized tensor's float values (a list for a list); a float
    tensor is returned as it is."""
    if isinstance(tensor, (list, tuple)):
        return [dequantize(t) for t in tensor]
    if isinstance(tensor, QTensor):
        return tensor.dequantize()
    return tensor


def int_repr(input: QTensor) -> Tensor:  # noqa: A002
    """``torch.int_repr``."""
    if not isinstance(input, QTensor):
        raise NotImplementedError(
            "Could not run 'aten::int_repr' with arguments from the 'CPU' backend."
        )
    return input.int_repr()


def q_scale(input: QTensor) -> float:  # noqa: A002
    return input.q_scale()


def q_zero_point(input: QTensor) -> int:  # noqa: A002
    return input.q_zero_point()


def q_per_channel_scales(input: QTensor) -> Tensor:  # noqa: A002
    return input.q_per_channel_scales()


def q_per_channel_zero_points(input: QTensor) -> Tensor:  # noqa: A002
    return input.q_per_channel_zero_points()


def q_per_channel_axis(input: QTensor) -> int:  # noqa: A002
    return input.q_per_channel_axis()


def choose_qparams(
    lo: float, hi: float, qmin: int, qmax: int, reduce_range: bool, symmetric: bool = False
) -> tuple:
    """The scale (a double) and zero point PyTorch's CPU kernels choose for values in
    ``[lo, hi]`` (widened to hold 0): the range spread over ``[qmin, qmax]`` (halved by
    ``reduce_range``), the zero point from whichever end loses less, rounded and clamped;
    ``symmetric`` (preserving sparsity) widens the range to be symmetric about the middle
    of the integers and puts the zero point there."""
    lo, hi = min(builtins.float(lo), 0.0), max(builtins.float(hi), 0.0)
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    middle = symmetric and lo < 0 < hi
    if middle:
        below, above = -((qmax - qmin) // 2 + 1), (qmax - qmin) // 2
        step = max(abs(lo / below), abs(hi / above))
        lo, hi = step * below, step * above
    scale = (hi - lo) / (qmax - qmin)
    s32 = np.float32(scale)
    if s32 == 0 or not np.isfinite(np.float32(1.0) / s32 if s32 else np.inf):
        scale = 0.1
    from_min, from_max = qmin - lo / scale, qmax - hi / scale
    start = from_min if abs(qmin) - abs(lo / scale) < abs(qmax) - abs(hi / scale) else from_max
    if middle:
        start = (qmin + qmax) / 2
    zero_point = qmin if start < qmin else qmax if start > qmax else builtins.int(np.rint(start))
    return scale, zero_point


def _choose_qparams_per_tensor(input: Tensor, reduce_range: bool = False) -> tuple:  # noqa: A002
    """``torch._choose_qparams_per_tensor``: the (scale, zero point) for quint8."""
    x = input.detach().numpy()
    lo, hi = (builtins.float(x.min()), builtins.float(x.max())) if x.size else (0.0, 0.0)
    return choose_qparams(lo, hi, 0, 255, reduce_range)


def quantize_per_tensor_dynamic(
    input: Tensor,  # noqa: A002
    dtype: DType,
    reduce_range: bool,
) -> QTensor:
    """``torch.quantize_per_tensor_dynamic``: quantized with the scale and zero point
    chosen from the tensor's own range (quint8 or qint8)."""
    x = _float_input(input)
    if dtype not in (_dtypes.quint8, _dtypes.qint8):
        raise RuntimeError(
            f"dtype {dtype} not supported; quantize_per_tensor_dynamic supports quint8 and qint8"
        )
    _, lo, hi = RANGES[dtype]
    xmin, xmax = (builtins.float(x.min()), builtins.float(x.max())) if x.size else (0.0, 0.0)
    scale, zero_point = choose_qparams(xmin, xmax, lo, hi, reduce_range)
    ints = quantize_array(x, scale, zero_point, dtype)
    return QTensor._new(ints, dtype, per_tensor_affine, scale, zero_point, None)


# ----- torch.save and torch.load (serialization/_pickler.py, _unpickler.py) ----------------


def save_args(q: QTensor, ref: Any, offset: int, stride: tuple) -> tuple:
    """The arguments of ``torch._utils._rebuild_qtensor`` for ``q``, as PyTorch writes them:
    the storage, offset, size and strides of its integers, then its quantizer parameters
    ((scheme, scale, zero point), or (scheme, scales, zero points, axis) per channel)."""
    from collections import OrderedDict

    if q._axis is None:
        params: tuple = (q._scheme, q._scale, q._zp)
    else:
        params = (q._scheme, q.q_per_channel_scales(), q.q_per_channel_zero_points(), q._axis)
    return (ref, offset, tuple(q._ints.shape), stride, params, False, OrderedDict())


def _rebuild_qtensor(
    storage: Any,
    storage_offset: int,
    size: tuple,
    stride: tuple,
    quantizer_params: tuple,
    requires_grad: bool,
    backward_hooks: Any,
) -> QTensor:
    """``torch._utils._rebuild_qtensor``: a quantized tensor read from a file."""
    import pickle

    from .serialization._storages import view_of
    from .serialization._unpickler import _storage

    flat, dt = _storage(storage)
    if dt not in RANGES:
        raise pickle.UnpicklingError(f"a quantized tensor over a storage of {dt}")
    ints = np.array(view_of(flat, storage_offset, tuple(size), tuple(stride)))
    scheme = quantizer_params[0]
    if scheme in (per_tensor_affine, per_tensor_symmetric):
        _, scale, zero_point = quantizer_params
        return QTensor._new(ints, dt, per_tensor_affine, builtins.float(scale), zero_point, None)
    if scheme in (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams):
        _, scales, zero_points, axis = quantizer_params
        floating = scheme is per_channel_affine_float_qparams
        s = np.asarray(scales.numpy(), dtype=np.float32 if floating else np.float64).copy()
        z = np.asarray(zero_points.numpy()).copy()
        if not floating:
            scheme, z = per_channel_affine, z.astype(np.int64)
        return QTensor._new(ints, dt, scheme, s, z, builtins.int(axis))
    raise pickle.UnpicklingError(f"unknown quantization scheme in the archive: {scheme!r}")


def load_names(storage_type: Any) -> dict:
    """What ``torch.load`` admits for quantized tensors: their rebuild function, dtypes,
    storage classes (``storage_type``, a blank StorageType, is the pattern) and schemes."""
    names: dict = {"torch._utils._rebuild_qtensor": _rebuild_qtensor}
    for dt in RANGES:
        names[f"torch.{dt.name}"] = dt
        kind = _copy.copy(storage_type)
        kind.name, kind.dtype = f"{dt.scalar_name}Storage", dt
        names[f"torch.{kind.name}"] = kind
    for name, scheme in SCHEMES.items():
        names[f"torch.{name}"] = scheme
    return names


def _register_pickling() -> None:
    """``torch.save`` writes a scheme as PyTorch's global (``torch.per_tensor_affine``)."""
    from .serialization._pickler import TorchPickler

    TorchPickler.dispatch[qscheme] = TorchPickler.save_qscheme


_register_pickling()
