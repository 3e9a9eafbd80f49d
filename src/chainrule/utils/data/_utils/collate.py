"""``torch.utils.data._utils.collate``: the DataLoader's default collate functions, and the
``collate``/``default_collate_fn_map`` pair users extend with their own per-type rules."""

from .._collate import _ERR as default_collate_err_msg_format
from .._collate import _STR_OR_OBJECT as np_str_obj_array_pattern
from .._collate import (
    collate,
    collate_float_fn,
    collate_int_fn,
    collate_numpy_array_fn,
    collate_numpy_scalar_fn,
    collate_str_fn,
    collate_tensor_fn,
    default_collate,
    default_collate_fn_map,
    default_convert,
)

__all__ = [
    "collate",
    "collate_float_fn",
    "collate_int_fn",
    "collate_numpy_array_fn",
    "collate_numpy_scalar_fn",
    "collate_str_fn",
    "collate_tensor_fn",
    "default_collate",
    "default_collate_err_msg_format",
    "default_collate_fn_map",
    "default_convert",
    "np_str_obj_array_pattern",
]
