"""``torch.compile`` and ``torch.compiler`` as chainrule has them: compiled code runs
eagerly, the way PyTorch's ``backend="eager"`` runs it.

chainrule has no graph capture (no Dynamo, no FX, no Inductor), so compiling changes
nothing a program computes: ``compile(model)`` checks PyTorch's arguments and returns a
wrapper that calls the model (a Module is wrapped in an ``OptimizedModule`` whose
``_orig_mod`` is the model, so state dicts carry PyTorch's ``_orig_mod.`` prefix). A
backend given as a function is never called (it would need the captured graph): a
warning says so."""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "cudagraph_mark_step_begin",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "reset",
    "set_stance",
]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")

# PyTorch's registered backends: the ones list_backends() shows, and the rest (tagged
# debug or experimental there); each runs eagerly here
_LISTED = ("cudagraphs", "inductor", "openxla", "tvm")
_TAGGED = (
    "aot_eager",
    "aot_eager_decomp_partition",
    "aot_eager_default_partitioner",
    "aot_ts",
    "eager",
    "eager_debug",
    "eager_noexcept",
    "openxla_eval",
    "pre_dispatch_eager",
    "ts",
)


class InvalidBackend(RuntimeError):
    """A backend name PyTorch has not registered."""


def _check(backend: Any, mode: str | None, options: dict | None) -> None:
    """PyTorch's checks of compile's arguments."""
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _LISTED + _TAGGED:
        raise InvalidBackend(
            f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available "
            "backends."
        )
    if callable(backend):
        warnings.warn(
            "chainrule runs compiled code eagerly: the backend function given to "
            "torch.compile is not called (chainrule captures no graph to give it)",
            UserWarning,
            stacklevel=3,
        )


class _EagerContext:
    """``OptimizedModule.dynamo_ctx``: applied to a function, gives it compiled, which here
    means run eagerly (a wrapper that calls it)."""

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def compiled(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        return compiled


def _optimized_module_class() -> type:
    from .nn.modules.module import Module

    class OptimizedModule(Module):
        """A compiled module: calls ``_orig_mod``; attributes it lacks are the model's."""

        def __init__(self, mod: Module, dynamo_ctx: Callable | None = None) -> None:
            super().__init__()
            self._orig_mod = mod
            # what compiles a function as this module was compiled: here, runs it eagerly
            self.dynamo_ctx = _EagerContext() if dynamo_ctx is None else dynamo_ctx

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self._orig_mod(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(self._modules["_orig_mod"], name)

    OptimizedModule.__module__ = __name__
    return OptimizedModule


@functools.cache
def _optimized() -> type:
    return _optimized_module_class()


def compile(  # noqa: A001 - PyTorch's name
    model: Callable | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable | None = None,
    mode: str | None = None,
    options: dict | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec: Any = None,
) -> Any:
    """``model`` compiled: here, run eagerly as it is (an ``OptimizedModule`` around a
    Module, a wrapper around a function); with no model, a decorator doing the same."""
    _check(backend, mode, options)
    if model is None:
        return lambda fn: compile(fn, backend=backend, mode=mode, options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    from .nn.modules.module import Module

    if isinstance(model, Module):
        return _optimized()(model)

    @functools.wraps(model)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        return model(*args, **kwargs)

    return compiled


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    """Keep ``fn`` out of compilation: everything runs eagerly here, so ``fn`` itself."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn: Callable) -> Callable:
    """``fn``: there is no graph to put it in."""
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    """``fn``: nothing is traced, so nothing is assumed."""
    return fn


def is_compiling() -> bool:
    """False: chainrule never traces."""
    return False


is_dynamo_compiling = is_compiling


_exports_running: list[int] = [0]  # (chainrule.export's traces under way)


def is_exporting() -> bool:
    """True while ``torch.export.export`` traces a forward (as PyTorch's default, non-strict
    export says), False otherwise."""
    return _exports_running[0] > 0


@contextlib.contextmanager
def _exporting() -> Iterator[None]:
    """``is_exporting()`` True inside (chainrule.export's trace)."""
    _exports_running[0] += 1
    try:
        yield
    finally:
        _exports_running[0] -= 1


def reset() -> None:
    """Nothing cached to forget."""


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs are recorded here."""


def list_backends(exclude_tags: tuple | None = ("debug", "experimental")) -> list[str]:
    """The backend names ``compile`` accepts (each runs eagerly here), as PyTorch lists them:
    the tagged ones only when no tags are excluded."""
    return sorted(_LISTED if exclude_tags else _LISTED + _TAGGED)


@contextlib.contextmanager
def set_stance(
    stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend: Any = None
) -> Iterator[None]:
    """How compiled code should run (``"force_eager"``, ...): here it always runs eagerly."""
    yield
