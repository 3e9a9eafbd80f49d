"""``torch.backends.quantized``: the engine quantized ops run on (``engine``, settable to one
of ``supported_engines``). chainrule computes quantized ops as PyTorch's x86/fbgemm kernels
do; with the ``qnnpack`` or ``onednn`` engine chosen, its quantized kernels raise (their
rounding is not implemented)."""

from __future__ import annotations

import sys
import types

__all__ = ["check_engine"]  # (and the properties engine, supported_engines)

SUPPORTED = ["qnnpack", "onednn", "x86", "fbgemm"]
COMPUTED = ("x86", "fbgemm")  # (the engines whose results chainrule reproduces)
_state = ["x86"]


class _QuantizedBackend(types.ModuleType):
    """The module, with ``engine`` a property (as PyTorch's module object has)."""

    @property
    def engine(self) -> str:
        return _state[0]

    @engine.setter
    def engine(self, value: str) -> None:
        if value not in SUPPORTED:
            raise RuntimeError(f"{value} is not a valid value for quantized engine")
        _state[0] = value

    @property
    def supported_engines(self) -> list:
        return list(SUPPORTED)


def check_engine(op: str) -> None:
    """Raise unless the engine's results are the ones chainrule computes (x86, fbgemm)."""
    if _state[0] not in COMPUTED:
        from .._missing import NotImplementedInChainrule

        raise NotImplementedInChainrule(
            f"{op} with torch.backends.quantized.engine = {_state[0]!r}: chainrule computes "
            "quantized ops as PyTorch's x86/fbgemm kernels (set the engine to 'x86')"
        )


sys.modules[__name__].__class__ = _QuantizedBackend
