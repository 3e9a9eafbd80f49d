"""``torch.backends.cuda``: not built; ``matmul.allow_tf32`` is a plain flag. The switches
of scaled dot-product attention's kernels are real (chainrule/backends/_sdp.py): turning
off both the math and the flash kernels stops attention, as on PyTorch's CPU build."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from types import SimpleNamespace

matmul = SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True)


def is_built() -> bool:
    return False


# ----- the kernels of scaled dot-product attention (chainrule/backends/_sdp.py) ----------


def flash_sdp_enabled() -> bool:
    """Whether the flash kernel of scaled dot-product attention is enabled."""
    from ._sdp import FLAGS

    return FLAGS["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    """Enable or disable the flash kernel of scaled dot-product attention."""
    from ._sdp import set_flag

    set_flag("flash", enabled)


def math_sdp_enabled() -> bool:
    """Whether the math kernel of scaled dot-product attention is enabled."""
    from ._sdp import FLAGS

    return FLAGS["math"]


def enable_math_sdp(enabled: bool) -> None:
    """Enable or disable the math kernel of scaled dot-product attention."""
    from ._sdp import set_flag

    set_flag("math", enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient kernel (CUDA's) of attention is enabled."""
    from ._sdp import FLAGS

    return FLAGS["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Enable or disable the memory-efficient kernel (CUDA's) of attention."""
    from ._sdp import set_flag

    set_flag("mem_efficient", enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN kernel (CUDA's) of attention is enabled."""
    from ._sdp import FLAGS

    return FLAGS["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Enable or disable the cuDNN kernel (CUDA's) of attention."""
    from ._sdp import set_flag

    set_flag("cudnn", enabled, "set_sdp_use_cudnn")


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    """Whether the math kernel may reduce in float16/bfloat16 (off by default)."""
    from ._sdp import FP16_BF16_REDUCTION_MATH

    return FP16_BF16_REDUCTION_MATH[0]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    """Allow the math kernel to reduce in float16/bfloat16. chainrule's kernel reduces such
    inputs in float32 either way; the switch is kept for the scripts that ask."""
    from ._sdp import FP16_BF16_REDUCTION_MATH

    if not isinstance(enabled, bool):
        raise RuntimeError(f"set_sdp_use_math expects a bool, but got {type(enabled).__name__}")
    FP16_BF16_REDUCTION_MATH[0] = enabled


def is_flash_attention_available() -> bool:
    """Whether PyTorch was built with CUDA's flash attention: not here (no CUDA)."""
    return False


@contextlib.contextmanager
def _sdp_kernel(
    enable_flash: bool = True,
    enable_math: bool = True,
    enable_mem_efficient: bool = True,
    enable_cudnn: bool = True,
) -> Iterator[dict]:
    from ..nn.attention import SDPBackend, sdpa_kernel

    chosen = [
        backend
        for backend, on in (
            (SDPBackend.FLASH_ATTENTION, enable_flash),
            (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
            (SDPBackend.MATH, enable_math),
            (SDPBackend.CUDNN_ATTENTION, enable_cudnn),
        )
        if on
    ]
    with sdpa_kernel(chosen) as context:
        yield context


def sdp_kernel(
    enable_flash: bool = True,
    enable_math: bool = True,
    enable_mem_efficient: bool = True,
    enable_cudnn: bool = True,
) -> contextlib.AbstractContextManager:
    """Deprecated (``torch.nn.attention.sdpa_kernel`` replaces it): within the block,
    attention may use only the kernels enabled here; the switches come back on leaving."""
    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
        "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
        "manager, with updated signature",
        FutureWarning,
        stacklevel=2,
    )
    return _sdp_kernel(enable_flash, enable_math, enable_mem_efficient, enable_cudnn)
