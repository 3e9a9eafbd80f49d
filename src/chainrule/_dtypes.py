"""Dtypes as PyTorch names them, mapped onto backend dtypes, and type promotion.

A ``dtype`` prints as ``torch.float32`` (not ``chainrule.float32``) on purpose:
scripts written for PyTorch print the same text under chainrule.
"""

from __future__ import annotations

import builtins
from typing import Any

from ._backend import xp


class dtype:  # noqa: N801 - PyTorch's spelling
    """A tensor element type: a name, its backend dtype and its category."""

    __slots__ = (
        "name",
        "np",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "_category",
        "scalar_name",
        "legacy_type",
        "c_name",
        "_native",
        "_keep_lane",
        "_reduced",
        "_restricted",
    )

    def __init__(
        self,
        name: str,
        np_dtype: Any,
        category: builtins.int,
        scalar_name: str,
        c_name: str,
        itemsize: builtins.int = 0,
    ) -> None:
        self.name = name
        # PyTorch's names of the type: in its errors ("not implemented for 'Long'"), the
        # legacy constructor ("torch.LongTensor") and C++ messages ("int64_t")
        self.scalar_name = scalar_name
        self.legacy_type = f"torch.{scalar_name}Tensor"
        self.c_name = c_name
        if np_dtype is not None:  # (a reduced float's comes from ml_dtypes on first use: _Reduced)
            self.np = xp.dtype(np_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = category == 2
        self.is_signed = not name.startswith("uint") and name != "bool"
        self.itemsize = itemsize or self.np.itemsize
        # which promotions PyTorch refuses: 0 none; 1 a float8 format's with any other dtype;
        # 2 uint16/32/64's with any dtype but a floating one
        self._restricted = (
            1 if name.startswith("float8") else 2 if name in ("uint16", "uint32", "uint64") else 0
        )
        # which fast paths the recording may take for this dtype's tensors: ``_native``, a
        # floating dtype NumPy computes in (float16/32/64: an op's forward runs on the arrays
        # as they are); ``_keep_lane``, the least ``Op._keep`` whose fast path takes it (1 real
        # dtypes, 2 complex; bfloat16's, 4, is beyond every op's: its ops take the general
        # path, whose nodes run their VJPs in float32, autograd/bfloat16.py)
        self._native = category == 2 and np_dtype is not None
        self._keep_lane = 4 if np_dtype is None else 2 if category == 3 else 1
        # a dtype NumPy has no type for (ml_dtypes' bfloat16 and float8: _Reduced)
        self._reduced = np_dtype is None

    @property
    def is_complex(self) -> builtins.bool:
        return self._category == 3

    def to_real(self) -> dtype:
        """The real dtype of this complex dtype's parts (a real dtype: itself)."""
        return _REAL_OF.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype whose parts are this floating dtype (a complex one: itself)."""
        if self._category == 3:
            return self
        if self._category != 2:
            raise RuntimeError(f"to_complex is only supported for floating types, got {self!r}")
        return _COMPLEX_OF[self]

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


class _Reduced(dtype):
    """A reduced-precision float NumPy has no dtype for: bfloat16 (float32's 8 exponent
    bits, 8 significand bits) and the float8 formats. Its NumPy dtype is ml_dtypes', an
    optional extra (``pip install chainrule[bfloat16]``) imported on first use: importing
    ml_dtypes takes a third of a second. Each op computes such values in float32 and rounds
    its result once (autograd/bfloat16.py)."""

    __slots__ = ()

    @property
    def np(self) -> Any:  # type: ignore[override]
        return _REDUCED_NP.get(self.name) or _load_reduced(self)


_REDUCED_NP: dict = {}  # a reduced float's name -> its NumPy dtype, once loaded
_bfloat16_np: list = [None]  # bfloat16's, once loaded (read by the ops' boundary)


def _load_reduced(d: dtype) -> Any:
    """ml_dtypes' dtype of ``d``, made known (``from_numpy_dtype``, the ops' boundary) on
    first use."""
    try:
        import ml_dtypes
    except ImportError:
        from ._missing import NotImplementedInChainrule

        raise NotImplementedInChainrule(
            f"torch.{d.name} needs the optional package ml_dtypes (NumPy has no {d.name} "
            "dtype): pip install 'chainrule[bfloat16]'"
        ) from None
    np_dtype = xp.dtype(getattr(ml_dtypes, d.name))
    _FROM_NP[np_dtype] = d
    _FROM_NP_TYPE[np_dtype.type] = d
    _REDUCED_NP[d.name] = np_dtype
    from ._backend import REDUCED

    REDUCED.add(np_dtype)
    if d.name == "bfloat16":
        _bfloat16_np[0] = np_dtype
    BFLOAT16_LIVE[0] = True
    return np_dtype


# Whether the ops' general path widens float16 and reduced-float inputs to float32
# (autograd/bfloat16.py): always, float16 being NumPy's own
BFLOAT16_LIVE = [True]

bool = dtype("bool", xp.bool_, 0, "Bool", "bool")  # noqa: A001 - PyTorch's public name
uint8 = dtype("uint8", xp.uint8, 1, "Byte", "uint8_t")
# the wide unsigned integers (PyTorch's CPU kernels cover some ops; NumPy computes all)
uint16 = dtype("uint16", xp.uint16, 1, "UInt16", "uint16_t")
uint32 = dtype("uint32", xp.uint32, 1, "UInt32", "uint32_t")
uint64 = dtype("uint64", xp.uint64, 1, "UInt64", "uint64_t")
int8 = dtype("int8", xp.int8, 1, "Char", "int8_t")
int16 = dtype("int16", xp.int16, 1, "Short", "int16_t")
int32 = dtype("int32", xp.int32, 1, "Int", "int")  # c10's name: Scalar.toInt()
int64 = dtype("int64", xp.int64, 1, "Long", "int64_t")
float16 = dtype("float16", xp.float16, 2, "Half", "c10::Half")
# float16 computes as bfloat16 does (autograd/bfloat16.py): in float32, each op's result
# rounded once, as PyTorch's CPU kernels (NumPy's float16 arithmetic would round a Python
# number operand to float16 first, and every step of a composite op: sigmoid, softmax)
float16._native = False
float16._keep_lane = 4
float32 = dtype("float32", xp.float32, 2, "Float", "float")
float64 = dtype("float64", xp.float64, 2, "Double", "double")
complex64 = dtype("complex64", xp.complex64, 3, "ComplexFloat", "c10::complex<float>")
complex128 = dtype("complex128", xp.complex128, 3, "ComplexDouble", "c10::complex<double>")
bfloat16 = _Reduced("bfloat16", None, 2, "BFloat16", "c10::BFloat16", 2)


class _Unbacked(dtype):
    """A dtype chainrule names but cannot hold: complex32 (``chalf``, complex numbers of two
    float16 parts), which NumPy lacks. It compares, prints and pickles as PyTorch's; making
    a tensor of it raises a clear error."""

    __slots__ = ()

    @property
    def np(self) -> Any:  # type: ignore[override]
        from ._missing import NotImplementedInChainrule

        raise NotImplementedInChainrule(
            f"chainrule has no torch.{self.name} tensors (NumPy has no complex dtype of "
            "float16 parts); use torch.complex64"
        )


complex32 = _Unbacked("complex32", None, 3, "ComplexHalf", "c10::complex<c10::Half>", 4)
chalf = complex32


class _Quantized(dtype):
    """A quantized dtype (qint8, quint8, qint32, quint4x2, quint2x4): chainrule names it,
    as libraries list PyTorch's dtypes, but has no quantized tensors; making one raises a
    clear error. It compares, prints and pickles as PyTorch's."""

    __slots__ = ()

    @property  # type: ignore[override]
    def is_signed(self) -> builtins.bool:
        raise RuntimeError("isSignedType not supported for quantized types")

    @is_signed.setter
    def is_signed(self, value: builtins.bool) -> None:
        pass  # (dtype.__init__ sets it; PyTorch's quantized dtypes have none)

    @property
    def np(self) -> Any:  # type: ignore[override]
        from ._missing import NotImplementedInChainrule

        raise NotImplementedInChainrule(
            f"chainrule has no quantized tensors (torch.{self.name}); torch.ao.quantization "
            "is not implemented"
        )

    def to_complex(self) -> dtype:
        """PyTorch's error: a quantized dtype has no complex counterpart."""
        raise RuntimeError(f"Unknown Complex ScalarType for {self.scalar_name}")


qint8 = _Quantized("qint8", None, 1, "QInt8", "c10::qint8", 1)
quint8 = _Quantized("quint8", None, 1, "QUInt8", "c10::quint8", 1)
qint32 = _Quantized("qint32", None, 1, "QInt32", "c10::qint32", 4)
quint4x2 = _Quantized("quint4x2", None, 1, "QUInt4x2", "c10::quint4x2", 1)
quint2x4 = _Quantized("quint2x4", None, 1, "QUInt2x4", "c10::quint2x4", 1)
# the float8 formats (PyTorch's CPU kernels move and cast them, and compute almost nothing
# in them; chainrule computes in float32 and rounds, as for bfloat16)
float8_e4m3fn = _Reduced("float8_e4m3fn", None, 2, "Float8_e4m3fn", "c10::Float8_e4m3fn", 1)
float8_e5m2 = _Reduced("float8_e5m2", None, 2, "Float8_e5m2", "c10::Float8_e5m2", 1)
float8_e4m3fnuz = _Reduced("float8_e4m3fnuz", None, 2, "Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", 1)
float8_e5m2fnuz = _Reduced("float8_e5m2fnuz", None, 2, "Float8_e5m2fnuz", "c10::Float8_e5m2fnuz", 1)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)

half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

ALL = (
    bool,
    uint8,
    uint16,
    uint32,
    uint64,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
    *FLOAT8,
)
# (a reduced float's NumPy dtype comes on first use)
_NUMPY = tuple(d for d in ALL if not isinstance(d, _Reduced))
# a complex dtype's parts, and the complex dtype of a floating one (float16's is complex32,
# which chainrule names but cannot hold: complex64 holds it exactly)
_REAL_OF = {complex32: float16, complex64: float32, complex128: float64}
_COMPLEX_OF = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}
_FROM_NP = {d.np: d for d in _NUMPY}
_FROM_NP_TYPE = {d.np.type: d for d in _NUMPY}

_default = [float32]


def get_default_dtype() -> dtype:
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only float32 and float64 are allowed, as in PyTorch."""
    if d not in (float32, float64, float16, bfloat16):
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    _default[0] = d


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The chainrule dtype of a backend dtype; TypeError for one chainrule lacks."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        pass
    try:
        return _FROM_NP[xp.dtype(np_dtype)]
    except (KeyError, TypeError):
        name = str(np_dtype)
        for d in ALL:  # (an ml_dtypes array given before chainrule used its dtype)
            if d.name == name and isinstance(d, _Reduced) and d.name not in _REDUCED_NP:
                if "ml_dtypes" in str(getattr(np_dtype, "type", "")):
                    _load_reduced(d)
                    return from_numpy_dtype(np_dtype)
        kind = getattr(np_dtype, "type", None)  # (PyTorch names NumPy's scalar type)
        named = f"numpy.{kind.__name__}" if isinstance(kind, type) else np_dtype
        raise TypeError(
            f"can't convert np.ndarray of type {named}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool."
        ) from None


def to_dtype(d: Any) -> dtype:
    """Accept a chainrule dtype, a backend dtype or a Python type (float, int, bool)."""
    if isinstance(d, dtype):
        return d
    if d is _py_float:  # PyTorch maps the Python type float to float64
        return float64
    if d is _py_int:
        return int64
    if d is _py_bool:
        return bool
    if d is _py_complex:  # and complex to complex128
        return complex128
    return from_numpy_dtype(d)


_py_float = (0.0).__class__
_py_int = (0).__class__
_py_bool = True.__class__
_py_complex = (0j).__class__

# PyTorch's promotion lattice for the types chainrule has.
_ORDER = ALL


def scalar_name(d: Any) -> str:
    """PyTorch's name of a dtype or of a backend dtype, as its errors print it ('Long')."""
    return (d if isinstance(d, dtype) else from_numpy_dtype(d)).scalar_name


# the C++ names of the element types (GCC's, as PyTorch's TypeMeta prints them in messages
# such as "expected m1 and m2 to have the same dtype, but got: long int != float")
_TYPE_META_NAMES = {
    "bool": "bool",
    "uint8": "unsigned char",
    "uint16": "unsigned short",
    "uint32": "unsigned int",
    "uint64": "unsigned long",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    **{d.name: d.c_name for d in FLOAT8},
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def type_meta_name(d: Any) -> str:
    """The C++ name PyTorch's messages give a dtype ('long int', 'float', 'c10::Half')."""
    name = (d if isinstance(d, dtype) else from_numpy_dtype(d)).name
    return _TYPE_META_NAMES.get(name, name)


def not_implemented(kernel: str, d: Any) -> NotImplementedError:
    """PyTorch's error of a kernel that has no version for ``d``."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(d)}'")


def complex_error(name: str) -> RuntimeError:
    """The error of differentiating an op chainrule has no complex derivative for."""
    return RuntimeError(
        f"{name} does not support automatic differentiation for complex inputs or outputs "
        "in chainrule yet (its VJPs are written for real values). Compute it on the real "
        "and imaginary parts (torch.view_as_real), or detach the input."
    )


def from_legacy_type(name: str) -> dtype:
    """The dtype of a legacy type name (``"torch.FloatTensor"``)."""
    for d in ALL:
        if d.legacy_type == name:
            return d
    raise ValueError(f"invalid type: '{name}'")


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without loss (PyTorch's table)."""
    if a is b:
        return a
    if a._restricted or b._restricted:
        restricted = max(a._restricted, b._restricted)
        if restricted == 1:
            raise RuntimeError(
                "Promotion for Float8 Types is not supported, attempted to promote "
                f"{a.scalar_name} and {b.scalar_name}"
            )
        other = b if a._restricted == 2 else a
        if other._category != 2:
            raise RuntimeError(
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                f"promote {a.scalar_name} and {b.scalar_name}"
            )
        return other
    if a._category == 3 or b._category == 3:  # complex: its parts as wide as either's
        if a._category < 2 or b._category < 2:
            return a if a._category == 3 else b
        return complex128 if complex128 in (a, b) or float64 in (a, b) else complex64
    if a._category == 2 or b._category == 2:
        if a._category != 2:
            return b
        if b._category != 2:
            return a
        if a.itemsize == b.itemsize:  # float16 and bfloat16: neither holds the other
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a is bool:
        return b
    if b is bool:
        return a
    # uint8 with a signed type: int16 unless the signed type is wider.
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


def scalar_dtype(value: Any) -> dtype:
    """The dtype PyTorch gives a Python scalar standing alone (``torch.tensor(value)``)."""
    if isinstance(value, _py_bool):
        return bool
    if isinstance(value, _py_int):
        return int64
    if isinstance(value, _py_complex):
        return default_complex()
    return get_default_dtype()


def default_complex() -> dtype:
    """The dtype of tensors made from Python complex numbers: the default float's complex
    (none for bfloat16, PyTorch's error)."""
    if _default[0] is bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return _COMPLEX_OF[_default[0]]


_INT64 = (-(2**63), 2**63 - 1)
_FLOAT32_MAX = xp.finfo(xp.float32).max.item()


def checked_fill(value: Any, d: dtype) -> Any:
    """A Python number as PyTorch converts it to fill a tensor of dtype ``d`` (``full``,
    ``fill_``): c10's checked conversion, with its error where the value overflows.

    Integer dtypes take ints in their range (an unsigned one also negatives down to -max,
    which wrap: ``full(.., -1, dtype=uint8)`` is 255) and floats in it (nan does not fit);
    float32 refuses a finite value beyond its largest, float16 and float64 take any (inf);
    bool takes anything. An int beyond int64 is read as a uint64 (PyTorch's errors). A
    complex dtype takes what its parts' dtype takes (complex64 refuses a finite part beyond
    float32's largest); a complex number fills a real dtype with its real part
    where its imaginary part is 0 (bool: whether it is nonzero), else the overflow error.
    """
    if d._category == 3:  # a complex dtype: each part as its real dtype takes it
        if isinstance(value, _py_int) and not _INT64[0] <= value <= _INT64[1]:
            if value < 0:  # (read as a uint64, as for the real dtypes below)
                raise OverflowError("can't convert negative int to unsigned")
            if value >= 2**64:
                raise OverflowError("int too big to convert")
        if d is complex64 and isinstance(value, (_py_int, _py_float, _py_complex)):
            for part in (value.real, value.imag):
                if abs(part) > _FLOAT32_MAX and part not in (_INF, -_INF) and part == part:
                    raise _overflow(d)
        return value
    if isinstance(value, _py_complex):  # a real dtype: the real part, if the imaginary is 0
        if d is bool:
            return value != 0
        if value.imag != 0:
            raise _overflow(d)
        value = value.real
    if isinstance(value, _py_bool) or not isinstance(value, (_py_int, _py_float)):
        return value
    if isinstance(value, _py_int) and not _INT64[0] <= value <= _INT64[1]:
        # PyTorch reads it as a uint64, then converts that
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value >= 2**64:
            raise OverflowError("int too big to convert")
        if d._category == 1:
            raise _overflow(d)
        value = _py_float(value)
    if d is bool:
        return value != 0
    if d._category == 2:
        if (
            (d is float32 or d is bfloat16)  # (bfloat16 as PyTorch checks it: float32's range)
            and abs(value) > _FLOAT32_MAX
            and value not in (_INF, -_INF)
        ):
            raise _overflow(d)
        if d in _FLOAT8_INFO and _FLOAT8_INFO[d][1] < abs(value) < _INF:  # (a float8's range)
            raise _overflow(d)
        if d is float16 and value.__class__ is _py_float and abs(value) <= _FLOAT32_MAX:
            return _py_float(xp.float32(value))  # (PyTorch's cast: through float32)
        return value
    info = xp.iinfo(d.np)
    if isinstance(value, _py_int):
        low = -info.max if info.min == 0 else info.min  # unsigned: negatives wrap
        if not low <= value <= info.max:
            raise _overflow(d)
        return value % (info.max + 1) if value < 0 and info.min == 0 else value
    if not info.min <= value <= info.max:  # (nan compares false)
        raise _overflow(d)
    return value


_INF = _py_float("inf")


def _overflow(d: dtype) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {d.c_name} without overflow")


def category(d: dtype) -> builtins.int:
    return d._category


# ----- conf-names: finfo and iinfo -------------------------------------------------------


def _g(v: Any) -> str:
    """A number as PyTorch's finfo repr prints it (C's %g)."""
    return f"{builtins.float(v):g}"


class finfo:  # noqa: N801 - PyTorch's spelling
    """The numerical properties of a floating dtype (the default dtype if none)."""

    def __init__(self, type: dtype | None = None) -> None:  # noqa: A002 - PyTorch's name
        d = get_default_dtype() if type is None else to_dtype(type)
        d = d.to_real()  # (a complex dtype's: its parts')
        if not d.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                "handle 'torch.finfo'"
            )
        if d is bfloat16:  # (float32's exponent, 8 significand bits; no ml_dtypes needed)
            self.bits, self.eps, self.max = 16, 2.0**-7, (2 - 2.0**-7) * 2.0**127
            self.min, self.tiny = -self.max, 2.0**-126
            self.smallest_normal, self.resolution = self.tiny, 0.01
        elif d in _FLOAT8_INFO:  # (PyTorch's values: no ml_dtypes needed)
            self.bits = 8
            self.eps, self.max, self.tiny = _FLOAT8_INFO[d]
            self.min, self.smallest_normal, self.resolution = -self.max, self.tiny, 1.0
        else:
            info = xp.finfo(d.np)
            self.bits = builtins.int(info.bits)
            self.eps = builtins.float(info.eps)
            self.max = builtins.float(info.max)
            self.min = builtins.float(info.min)
            self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
            self.resolution = 10.0 ** -builtins.int(info.precision)
        self.dtype = d.name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
            f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, "
            f"tiny={_g(self.tiny)}, dtype={self.dtype})"
        )


# the float8 formats' (eps, max, smallest normal), as PyTorch's finfo gives them
_FLOAT8_INFO = {
    float8_e4m3fn: (2.0**-3, 448.0, 2.0**-6),
    float8_e5m2: (2.0**-2, 57344.0, 2.0**-14),
    float8_e4m3fnuz: (2.0**-3, 240.0, 2.0**-7),
    float8_e5m2fnuz: (2.0**-3, 57344.0, 2.0**-15),
}


class iinfo:  # noqa: N801 - PyTorch's spelling
    """The numerical properties of an integer dtype."""

    def __init__(self, type: dtype) -> None:  # noqa: A002 - PyTorch's name
        d = to_dtype(type)
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.is_floating_point:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        info = xp.iinfo(d.np)
        self.bits = builtins.int(info.bits)
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)
        self.dtype = d.name

    def __repr__(self) -> str:
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to``: not floating to integral,
    not a non-bool to bool."""
    if from_._category > to._category >= 1:  # (complex to floating, floating to integral)
        return False
    return not (from_ is not bool and to is bool)
