"""``torch._C``'s names that Python code written for PyTorch reaches for: the switches of
``__torch_function__`` (chainrule.overrides) and ``_AutoDispatchBelowAutograd`` (which
custom-op autograd kernels wrap their call of the op in: chainrule.library calls the
kernel below autograd already, so it does nothing), ``_nn._parse_to``, ``_TensorMeta``,
``_log_api_usage_once``, ``_get_accelerator``, ``PyTorchFileReader``, the ``ScriptObject``/``ScriptModule``
classes (no TorchScript objects are made), ``_are_functorch_transforms_active`` and
``_functorch``'s queries (chainrule/_c_functorch.py), ``_distributed_rpc``'s classes
(chainrule/_c_distributed_rpc.py). chainrule has no C extension;
nothing else of PyTorch's ``torch._C`` exists."""

from __future__ import annotations

import sys

from . import _c_functorch
from . import _c_nn as _nn  # noqa: F401 - torch._C._nn
from ._random import Generator  # noqa: F401 - torch._C.Generator is torch.Generator
from .overrides import (  # noqa: F401 - torch._C's names for them
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)
from .serialization._file_reader import PyTorchFileReader  # noqa: F401

# ``import torch._C._functorch`` (a submodule of this module in PyTorch's extension)
sys.modules.setdefault(__name__ + "._functorch", _c_functorch)


class _AutoDispatchBelowAutograd:
    """A context manager that does nothing here (see the module's docstring)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


# ``torch._C._TensorMeta``: the metaclass of ``torch.Tensor``; chainrule's Tensor is a plain
# Python class, whose metaclass is ``type``.
_TensorMeta = type


_logged_events: set[str] = set()


def _log_api_usage_once(event: str) -> None:
    """Record that an API was used, as PyTorch's default logger does: nothing, unless the
    environment sets ``PYTORCH_API_USAGE_STDERR``, then ``PYTORCH_API_USAGE <event>`` on
    stderr, once per event."""
    import os
    import sys

    if os.environ.get("PYTORCH_API_USAGE_STDERR") and event not in _logged_events:
        _logged_events.add(event)
        print(f"PYTORCH_API_USAGE {event}", file=sys.stderr)


class ScriptObject:
    """``torch._C.ScriptObject`` (``torch.ScriptObject``): TorchScript's C++ objects.
    chainrule has no TorchScript runtime, so none is ever made (``torch.jit.load`` gives
    Python modules); the class exists for ``isinstance`` checks and annotations."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError(
            f"chainrule has no TorchScript runtime: torch._C.{type(self).__name__} objects "
            "cannot be made"
        )


class ScriptModule(ScriptObject):
    """``torch._C.ScriptModule`` (``torch.ScriptModule``): see :class:`ScriptObject`."""


def _are_functorch_transforms_active() -> bool:
    """Whether a ``torch.func`` transform (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap)
    is running: chainrule's run the function on plain tensors, but libraries ask this to
    choose a transform-safe path, as they do on PyTorch."""
    from .func import _transforms_active

    return _transforms_active()


class TracingState:
    """``torch._C.TracingState``: what ``_get_tracing_state`` gives while a
    ``torch.jit.trace`` records (chainrule's trace keeps its graph elsewhere)."""


def _get_tracing_state() -> TracingState | None:
    """The state of the ``torch.jit.trace`` recording now, None when none is (libraries
    skip Python-value checks while tracing, as they do on PyTorch)."""
    from .jit._trace._record import is_tracing

    return TracingState() if is_tracing() else None


def _get_accelerator(check: bool = False) -> object:
    """The device of the current accelerator, ``device(type='cpu')`` when there is none
    (as on PyTorch's CPU build)."""
    from . import accelerator
    from ._tensor import device

    current = accelerator.current_accelerator()
    return device("cpu") if current is None else current


def __getattr__(name: str) -> object:
    if name == "_functorch":  # (torch._C._functorch: chainrule/_c_functorch.py)
        from . import _c_functorch

        return _c_functorch
    if name == "_distributed_rpc":  # (only its classes, for isinstance checks)
        from . import _c_distributed_rpc

        return _c_distributed_rpc
    from ._missing import missing

    raise missing("torch._C", name)
