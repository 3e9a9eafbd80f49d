"""List PyTorch's public names that chainrule lacks: ``python tools/missing_names.py``.

Walks ``dir()`` of torch, torch.Tensor, torch.linalg, torch.special and torch.nn.functional
and prints each name chainrule does not have, grouped by kind, after dropping private
names, deprecated aliases and what concerns devices, quantization, sparse and complex
layouts, compilation and serialization internals (see SKIP). docs/missing.md is written
from this output.
"""

from __future__ import annotations

import inspect
import re
import sys

import torch

sys.path.insert(0, "src")
import chainrule as cr  # noqa: E402

# names no CPU-only NumPy library has: devices, quantization, sparse and other layouts,
# compilation, tracing, serialization and C++ internals
SKIP = re.compile(
    r"cuda|cudnn|mps|xpu|mkl|mtia|hpu|ipu|xla|vulkan|metal|quantiz|q_|^q|_q_|qint|quint|"
    r"sparse|csr|csc|bsr|bsc|coo|mkldnn|nested|fbgemm|miopen|compile|jit|onnx|export|fx|"
    r"_C|dynamo|inductor|package|hub|profiler|backends|distributed|multiprocessing|"
    r"storage|Storage|DispatchKey|Tag|fake|functorch|library|overrides|amp|autocast|"
    r"complex|conj|imag|real|angle|polar|view_as_|chalf|cfloat|cdouble|is_neg|resolve_|"
    r"float8|bfloat|bits|uint16|uint32|uint64|int1|int2|int3|int4|int5|int6|int7|uint1|"
    r"uint2|uint3|uint4|uint5|uint6|uint7|fp8|e4m3|e5m2|e8m0|float4|"
    r"pin_memory|share_memory|ipc|untyped|data_ptr|device_|set_flush|vmap_|"
    r"sym_|Sym|_assert|typename|deterministic|warn_always|"
    r"set_default_tensor_type|testing|utils|serialization|load|save|version|config|"
    r"classes|ops$|types|random$|return_types|futures|monitor|signal|masked|"
    r"accelerator|cpu$|memory_format|channels_last|layout|Size$|"
    r"from_dlpack|to_dlpack|dlpack|frombuffer|from_file|get_file_path|"
    r"is_nonzero|is_same_size|is_signed|is_inference|is_vulkan|is_meta|is_ort|"
    r"^[A-Z_]+$|^(fork|wait|parse_|import_ir|merge_type|unify_type|classproperty|cond$|"
    r"while_loop|has_|get_float32|set_float32|thread_safe|hash_tensor|jagged|bit$)|"
    r"align_to|rename|refine_names|names|unflatten_dense|coalesce|indices$|values$|"
    r"crow|col_indices|ccol|row_indices|to_padded|dense_dim|_nnz|nnz"
)

SPACES = {
    "torch": (torch, cr),
    "Tensor": (torch.Tensor, cr.Tensor),
    "torch.linalg": (torch.linalg, cr.linalg),
    "torch.special": (torch.special, cr.special),
    "torch.nn.functional": (torch.nn.functional, cr.nn.functional),
}


def _internal(obj: object) -> bool:
    """A module, a typing name, a docstring fragment, or a class of PyTorch's C++ or JIT
    internals."""
    if inspect.ismodule(obj) or isinstance(obj, str) or obj is None:
        return True
    module = getattr(obj, "__module__", "") or ""
    if module.startswith(("typing", "collections")):
        return True
    return isinstance(obj, type) and not module.startswith("torch.nn")


def missing(space: str) -> list[str]:
    theirs, ours = SPACES[space]
    out = []
    for name in sorted(dir(theirs)):
        if name.startswith("_") or SKIP.search(name) or name.endswith("_notes") or "common" in name:
            continue
        if _internal(getattr(theirs, name, None)):
            continue
        try:
            getattr(ours, name)
        except Exception:  # noqa: BLE001 - chainrule's NotImplemented AttributeError too
            out.append(name)
    return out


if __name__ == "__main__":
    for space in SPACES:
        names = missing(space)
        print(f"## {space} ({len(names)})")
        print(", ".join(names))
        print()
