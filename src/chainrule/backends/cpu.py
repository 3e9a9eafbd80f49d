"""``torch.backends.cpu``: the SIMD level of this CPU, as PyTorch names it.

PyTorch compiles its CPU kernels once per instruction set and picks one at start-up;
``get_cpu_capability()`` names the one it picked. chainrule has no kernels of its own: its
arithmetic runs in NumPy, which makes the same kind of choice among its own builds of each
loop. The answer here is the level PyTorch would pick on this machine, read from the CPU
features NumPy detected (``numpy._core._multiarray_umath.__cpu_features__``): it says what
the hardware offers, not which of NumPy's loops run (NumPy's choices are its own, per loop).

Where chainrule differs from PyTorch: "SVE256" (Arm SVE with 256-bit vectors) is never
reported, since NumPy does not tell the vector length (an SVE machine answers "DEFAULT"),
and ``ATEN_CPU_CAPABILITY`` can only lower the answer, never raise it above the hardware's.
"""

from __future__ import annotations

import functools
import os
import platform
import warnings

__all__ = ["get_cpu_capability"]

# the levels ATEN_CPU_CAPABILITY may name (lower case), as get_cpu_capability spells them
_LEVELS = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512", "vsx": "VSX",
           "zvector": "Z VECTOR"}  # fmt: skip
_X86_ORDER = ("DEFAULT", "AVX2", "AVX512")


def _cpu_features() -> dict:
    """NumPy's runtime CPU feature table: feature name -> whether this CPU has it."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__
    return dict(__cpu_features__)


def _hardware_level(features: dict) -> str:
    """The level PyTorch's dispatch picks for these features: AVX512 with AVX-512 F, VL, BW
    and DQ (and FMA3), AVX2 with AVX2 and FMA3, VSX on POWER, Z VECTOR on s390x, else
    DEFAULT."""
    machine = platform.machine().lower()
    if machine.startswith(("ppc", "powerpc")):
        return "VSX" if features.get("VSX") else "DEFAULT"
    if machine == "s390x":
        return "Z VECTOR" if features.get("VX") else "DEFAULT"
    avx512 = ("AVX512F", "AVX512VL", "AVX512BW", "AVX512DQ", "FMA3")
    if all(features.get(name) for name in avx512):
        return "AVX512"
    if features.get("AVX2") and features.get("FMA3"):
        return "AVX2"
    return "DEFAULT"


@functools.cache
def _capability(requested: str | None) -> str:
    level = _hardware_level(_cpu_features())
    if requested is None:
        return level
    asked = _LEVELS.get(requested)
    if asked is None:
        warnings.warn(f"ignoring invalid value for ATEN_CPU_CAPABILITY: {requested}", stacklevel=3)
        return level
    if asked in _X86_ORDER and level in _X86_ORDER:  # lowered, never raised
        return _X86_ORDER[min(_X86_ORDER.index(asked), _X86_ORDER.index(level))]
    return asked if asked == "DEFAULT" else level


def get_cpu_capability() -> str:
    """The CPU's SIMD level as PyTorch names it: "DEFAULT", "VSX", "Z VECTOR", "AVX2" or
    "AVX512" (``ATEN_CPU_CAPABILITY``, when set, lowers it)."""
    return _capability(os.environ.get("ATEN_CPU_CAPABILITY"))
