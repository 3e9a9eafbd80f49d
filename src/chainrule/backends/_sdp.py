"""The switches of scaled dot-product attention's kernels, one state that
``torch.backends.cuda``'s ``enable_*_sdp``/``*_sdp_enabled`` and
``torch.nn.attention.sdpa_kernel`` both read and set, as in PyTorch.

All are on by default. chainrule's one kernel gives the values of PyTorch's CPU math and
flash kernels, so attention runs while either is on and raises PyTorch's error when both
are off (the efficient and cuDNN kernels are CUDA's: their switches are kept and serve
nothing on the CPU, as in PyTorch's CPU build)."""

from __future__ import annotations

# kernel -> enabled, in SDPBackend's order (MATH, FLASH_ATTENTION, EFFICIENT, CUDNN)
FLAGS = {"math": True, "flash": True, "mem_efficient": True, "cudnn": True}
# whether the math kernel may reduce in float16/bfloat16 (chainrule's reduces in float32
# for those dtypes either way, as PyTorch's does with the switch off, its default)
FP16_BF16_REDUCTION_MATH = [False]


def set_flag(kernel: str, enabled: object, setter: str = "set_sdp_use_math") -> None:
    """Turn ``kernel`` on or off; a non-bool is refused with PyTorch's message (which names
    ``setter``, the C++ function PyTorch's switch calls)."""
    if not isinstance(enabled, bool):
        gap = "%s" if kernel == "cudnn" else ""  # (PyTorch's cuDNN message keeps a stray %s)
        raise RuntimeError(f"{setter} expects a bool, but got {gap}{type(enabled).__name__}")
    FLAGS[kernel] = enabled
    _sync()


def set_all(flags: dict[str, bool]) -> None:
    """Set every switch at once (``sdpa_kernel`` entering and leaving its block)."""
    FLAGS.update(flags)
    _sync()


def _sync() -> None:
    from ..api.parsers import attention

    attention.KERNEL_ENABLED[0] = FLAGS["math"] or FLAGS["flash"]
