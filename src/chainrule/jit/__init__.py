"""``torch.jit`` as eager code meets it: the decorators and queries that library code calls
whether or not it is ever compiled, with TorchScript's own eager meaning.

- ``is_scripting()`` and ``is_tracing()`` are False: code always runs as Python here.
- ``ignore``, ``unused``, ``export``, ``interface``, ``_overload``, ``_overload_method``,
  ``script_if_tracing`` give back what they decorate; ``annotate(T, v)`` is v; ``Final`` is
  ``typing.Final``; ``isinstance`` checks a value against a (container) type annotation.
- ``fork(f, *args)`` runs f at once and returns a completed Future; ``wait(fut)`` its value.
- ``load`` reads a TorchScript archive written by PyTorch's ``torch.jit.save`` (traced or
  scripted) as a module whose code runs in an interpreter of TorchScript's statements and
  operators (``_load``): nothing from the file is executed or imported.
- ``trace`` and ``trace_module`` run a module or function once on example inputs and
  record its tensor operations (``_trace``): the result replays the recording, shows it as
  TorchScript ``.code``/``.graph``, and ``save`` writes a TorchScript archive that PyTorch's
  ``torch.jit.load`` reads.
- ``script`` gives back what it is given (a function, module or class), as PyTorch's own
  ``torch.jit.script`` does with ``PYTORCH_JIT=0``: the code runs eagerly, computing what
  the compiled code computes, with PyTorch 2.13's deprecation warning; chainrule has no
  TorchScript compiler, so there is no ``.code``/``.graph`` and no file to save from it
  (trace the model to write one). ``freeze`` and ``optimize_for_inference`` work on
  compiled TorchScript: they raise NotImplementedInChainrule, saying so.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import typing
import warnings
from collections.abc import Callable
from typing import Any, Final, TypeVar

from .. import nn
from .._missing import NotImplementedInChainrule, missing
from ._future import Future, deprecated, fork, wait

__all__ = [
    "Error",
    "Final",
    "Future",
    "ScriptFunction",
    "ScriptModule",
    "TracerWarning",
    "annotate",
    "export",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "isinstance",
    "load",
    "optimize_for_inference",
    "save",
    "script",
    "script_if_tracing",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

_F = TypeVar("_F")
_builtin_isinstance = isinstance


def is_scripting() -> bool:
    """Whether the code runs compiled by TorchScript: never in chainrule."""
    return False


def is_tracing() -> bool:
    """Whether the code runs under ``torch.jit.trace`` (while it records)."""
    from ._trace._record import is_tracing as tracing_now

    return tracing_now()


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """A function TorchScript leaves to Python: the function itself. ``@ignore`` and
    ``@ignore(drop=...)`` both work; ``drop=True`` is PyTorch's deprecated spelling of
    ``unused`` (with its FutureWarning)."""
    if callable(drop):
        return drop
    if not _builtin_isinstance(drop, bool):
        raise RuntimeError(
            f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}"
        )
    if kwargs.get("drop_on_export") or drop:
        warnings.warn(
            "ignore(True) has been deprecated. TorchScript will now drop the function "
            "call on compilation. Use torch.jit.unused now. {}",
            category=FutureWarning,
            stacklevel=2,
        )
    return lambda fn: fn


def unused(fn: _F) -> _F:
    """A method TorchScript replaces by a raise: the method itself."""
    return fn


def export(fn: _F) -> _F:
    """A method TorchScript compiles though nothing calls it: the method itself."""
    return fn


def interface(obj: _F) -> _F:
    """A class TorchScript takes as an interface type: the class itself (deprecated in
    PyTorch 2.13)."""
    deprecated("interface")
    return obj


def _check_overload_body(func: Callable) -> None:
    """An overload declaration's body must be ``pass`` or ``...`` (PyTorch checks it where
    the source can be read)."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return
    body = ast.parse(source).body[0].body
    stub = len(body) == 1 and (
        _builtin_isinstance(body[0], ast.Pass)
        or (
            _builtin_isinstance(body[0], ast.Expr)
            and _builtin_isinstance(body[0].value, ast.Constant)
            and body[0].value.value is Ellipsis
        )
    )
    if not stub:
        head = "\n".join(source.split("\n")[:3])
        raise RuntimeError(
            "Only `pass` statement or `...` can be the body of overload declaration:\n"
            f"{head} <- Expecting `pass` or `...` here!\n"
            "(declare each overload with a body of `...`, then define the implementation "
            "under the same name)"
        )


def _overload(func: _F) -> _F:
    """One overload's signature (TorchScript compiles each): the function itself."""
    _check_overload_body(func)
    return func


def _overload_method(func: _F) -> _F:
    """One overload's signature of a method: the method itself."""
    _check_overload_body(func)
    return func


def script_if_tracing(fn: _F) -> _F:
    """A function TorchScript compiles when it is met while tracing: the function itself."""
    return fn


def annotate(the_type: Any, the_value: Any) -> Any:
    """A value with a type for TorchScript (annotate(List[int], [])): the value."""
    return the_value


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001 (torch.jit.isinstance)
    """Whether obj is of target_type, a class or a typing annotation (List[int],
    Dict[str, Tensor], Optional[T], Tuple[...], Union[...]): a container matches when every
    element does; an empty container matches any element type."""
    origin = typing.get_origin(target_type)
    args = typing.get_args(target_type)
    if origin in (list, dict, tuple) and _builtin_isinstance(obj, origin) and not obj:
        warnings.warn(
            "The inner type of a container is lost when calling torch.jit.isinstance in eager "
            "mode. For example, List[int] would become list and therefore falsely return True "
            "for List[float] or List[str].",
            stacklevel=2,
        )
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        return any(isinstance(obj, t) for t in args)
    if origin is list:
        return _builtin_isinstance(obj, list) and all(isinstance(v, args[0]) for v in obj)
    if origin is dict:
        return _builtin_isinstance(obj, dict) and all(
            isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items()
        )
    if origin is tuple:
        return (
            _builtin_isinstance(obj, tuple)
            and len(obj) == len(args)
            and all(isinstance(v, t) for v, t in zip(obj, args))
        )
    return _builtin_isinstance(obj, origin)


class Error(Exception):
    """An error TorchScript raises while running compiled code."""


class TracerWarning(Warning):
    """A warning ``torch.jit.trace`` gives about code it cannot trace faithfully."""


def _no_torchscript(name: str) -> NotImplementedInChainrule:
    return NotImplementedInChainrule(
        f"torch.jit.{name}: chainrule has no TorchScript (no compiler, no interpreter, no "
        "TorchScript files). Run the model or function eagerly instead: call it directly, "
        "or wrap it in torch.compile, which exists in chainrule and runs it eagerly (PyTorch "
        "2.13 itself deprecates torch.jit.script in favour of torch.compile)."
    )


def script(obj: Any, *args: Any, **kwargs: Any) -> Any:
    """``obj`` itself (a function, module or class), run eagerly: PyTorch's
    ``torch.jit.script`` with ``PYTORCH_JIT=0``, the mode in which its scripted code runs as
    the Python it was written in (chainrule has no TorchScript compiler; libraries script
    their helpers at import, ``@torch.jit.script``). Warns as PyTorch 2.13 does."""
    warnings.warn(  # (attributed here, as PyTorch's to its own file: hidden by default)
        "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        DeprecationWarning,
        stacklevel=1,
    )
    return obj


def trace(func: Any, *args: Any, **kwargs: Any) -> Any:
    """A module or function run once on example inputs, its tensor operations recorded:
    a traced module (``TopLevelTracedModule``) or ``ScriptFunction`` replaying them."""
    from ._trace import trace as trace_now

    return trace_now(func, *args, **kwargs)


def trace_module(mod: Any, *args: Any, **kwargs: Any) -> Any:
    """A module's ``forward`` traced on the inputs given as ``{"forward": inputs}``."""
    from ._trace import trace_module as trace_now

    return trace_now(mod, *args, **kwargs)


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Write a traced module or function, or a module ``load`` gave, as a TorchScript
    archive that PyTorch's ``torch.jit.load`` reads (``m.save(f)``); other modules raise,
    as in PyTorch."""
    if not callable(getattr(m, "save", None)) or not _builtin_isinstance(
        m, (ScriptModule, ScriptFunction)
    ):
        raise AttributeError(f"'{type(m).__name__}' object has no attribute 'save'")
    m.save(f, _extra_files=_extra_files)


def load(f: Any, map_location: Any = None, _extra_files: Any = None, **kwargs: Any) -> Any:
    """Load a TorchScript archive written by PyTorch's ``torch.jit.save`` as a chainrule
    module that runs its code with an interpreter (no code from the file is executed)."""
    from ._load import load as load_archive

    return load_archive(f, map_location=map_location, _extra_files=_extra_files)


def freeze(mod: Any, *args: Any, **kwargs: Any) -> Any:
    """Freeze a ScriptModule: not in chainrule."""
    raise _no_torchscript("freeze")


def optimize_for_inference(mod: Any, *args: Any, **kwargs: Any) -> Any:
    """Optimize a ScriptModule for inference: not in chainrule."""
    raise _no_torchscript("optimize_for_inference")


class ScriptModule(nn.Module):
    """A TorchScript module. chainrule compiles none: ``jit.load`` (a loaded archive's
    ``RecursiveScriptModule``) and ``jit.trace`` (a ``TopLevelTracedModule``) make them, so
    ``isinstance(m, torch.jit.ScriptModule)`` is False for every other module; subclassing
    it, the old way to write TorchScript modules, raises when the module is made."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _no_torchscript("ScriptModule")


class ScriptFunction:
    """A TorchScript function: ``jit.trace`` of a function makes one (compiling one from
    its source, as ``jit.script`` would, is not in chainrule)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _no_torchscript("ScriptFunction")


def __getattr__(name: str) -> Callable:
    raise missing("torch.jit", name)
