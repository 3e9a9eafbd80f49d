"""PyTorch's export schema enums (``torch/_export/serde/schema.py``'s numbering) as
chainrule objects: scalar types as dtypes, memory formats, layouts."""

from __future__ import annotations

from typing import Any

import chainrule

# ScalarType number -> dtype name
_SCALAR_TYPES = {
    1: "uint8",
    2: "int8",
    3: "int16",
    4: "int32",
    5: "int64",
    6: "float16",
    7: "float32",
    8: "float64",
    9: "complex32",
    10: "complex64",
    11: "complex128",
    12: "bool",
    13: "bfloat16",
    28: "uint16",
    29: "float8_e4m3fn",
    30: "float8_e5m2",
    31: "float8_e4m3fnuz",
    32: "float8_e5m2fnuz",
    33: "float8_e8m0fnu",
    34: "uint32",
    35: "uint64",
}
_MEMORY_FORMATS = {
    1: "contiguous_format",
    2: "channels_last",
    3: "channels_last_3d",
    4: "preserve_format",
}
_LAYOUTS = {
    1: "sparse_coo",
    2: "sparse_csr",
    3: "sparse_csc",
    4: "sparse_bsr",
    5: "sparse_bsc",
    7: "strided",
}


def dtype_of(number: int) -> Any:
    """The dtype of a ``ScalarType`` number."""
    name = _SCALAR_TYPES.get(number)
    if name is None or not hasattr(chainrule, name):
        raise NotImplementedError(f"chainrule has no dtype for the serialized ScalarType {number}")
    return getattr(chainrule, name)


def scalar_type_of(dtype: Any) -> int:
    """The ``ScalarType`` number of a dtype."""
    for number, name in _SCALAR_TYPES.items():
        if getattr(chainrule, name, None) == dtype:
            return number
    raise NotImplementedError(f"no serialized ScalarType for {dtype}")


def memory_format_of(number: int) -> Any:
    """The memory format of a ``MemoryFormat`` number (None for Unknown)."""
    return getattr(chainrule, _MEMORY_FORMATS[number]) if number in _MEMORY_FORMATS else None


def layout_of(number: int) -> Any:
    """The layout of a ``Layout`` number."""
    return getattr(chainrule, _LAYOUTS.get(number, "strided"))


def device_of(device: dict) -> Any:
    """A ``Device`` record as a chainrule device."""
    if device.get("index") is None:
        return chainrule.device(device["type"])
    return chainrule.device(device["type"], device["index"])


# dtype -> PyTorch's short name in printed graphs ("f64[2, 4]")
SHORT_DTYPE = {
    "float64": "f64",
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "int64": "i64",
    "int32": "i32",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "bool": "b8",
    "complex64": "c64",
    "complex128": "c128",
    "float8_e4m3fn": "f8e4m3fn",
    "float8_e5m2": "f8e5m2",
    "float8_e4m3fnuz": "f8e4m3fnuz",
    "float8_e5m2fnuz": "f8e5m2fnuz",
}
