"""``torch._convert_indices_from_coo_to_csr`` and ``torch._convert_indices_from_csr_to_coo``:
row indices to compressed row pointers and back (integer tensors, no gradient)."""

from __future__ import annotations

import chainrule as cr

Tensor = cr.Tensor

__all__: list[str] = []

_INTEGERS = {cr.int8, cr.int16, cr.int32, cr.int64, cr.uint8}


def _check_integer(t: Tensor, kernel: str) -> None:
    if t.dtype not in _INTEGERS:
        name = str(t.dtype).removeprefix("torch.").capitalize()
        name = {"Float32": "Float", "Float64": "Double", "Int64": "Long", "Int32": "Int"}.get(
            name, name
        )
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _convert_indices_from_coo_to_csr(
    input: Tensor, size: int, *, out_int32: bool = False
) -> Tensor:
    """The ``size + 1`` row pointers of the sorted row indices ``input``: entry ``r`` is the
    number of indices below ``r`` (int64, or int32 with ``out_int32``)."""
    if input.dim() != 1:
        raise RuntimeError(
            f"Input is supposed to be a vector, but got {input.dim()} dimensional tensor."
        )
    _check_integer(input, "convert_indices_from_coo_to_csr_cpu")
    rows = input.detach().to(cr.int64)
    bounds = cr.arange(size + 1, dtype=cr.int64)
    return cr.searchsorted(rows, bounds, out_int32=out_int32)


def _convert_indices_from_csr_to_coo(
    crow_indices: Tensor,
    col_indices: Tensor,
    *,
    out_int32: bool = False,
    transpose: bool = False,
) -> Tensor:
    """The COO indices ``[rows, cols]`` (``[cols, rows]`` with ``transpose``) of compressed
    row pointers and column indices; batched pointers (``[*, rows + 1]``) put the flat batch
    index first."""
    if crow_indices.dim() != col_indices.dim():
        raise RuntimeError(
            "crow_indices and col_indices are supposed to have the same dimensionality, but "
            f"got {crow_indices.dim()} and {col_indices.dim()} dimensional tensors, "
            "respectively."
        )
    _check_integer(crow_indices, "convert_indices_from_csr_to_coo_cpu")
    _check_integer(col_indices, "convert_indices_from_csr_to_coo_cpu")
    dtype = cr.int32 if out_int32 else cr.int64
    crow = crow_indices.detach().to(cr.int64).reshape(-1, crow_indices.shape[-1])
    cols = col_indices.detach().to(dtype).reshape(-1)
    counts = (crow[:, 1:] - crow[:, :-1]).reshape(-1)
    n_rows = crow.shape[1] - 1
    rows = cr.repeat_interleave(cr.arange(n_rows, dtype=dtype).repeat(crow.shape[0]), counts)
    pair = [cols, rows] if transpose else [rows, cols]
    if crow_indices.dim() > 1:
        per_batch = counts.reshape(crow.shape[0], -1).sum(1)
        batch = cr.repeat_interleave(cr.arange(crow.shape[0], dtype=dtype), per_batch)
        pair = [batch, *pair]
    return cr.stack(pair)
