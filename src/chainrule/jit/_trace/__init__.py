"""``torch.jit.trace`` and ``trace_module``: the callable run once on example inputs,
its tensor operations recorded (by ``chainrule.export``'s recorder) as a graph of ATen
operators that the result replays on new inputs, with its TorchScript ``.code`` and
``.graph``; ``save`` writes it as a TorchScript archive PyTorch's ``torch.jit.load``
reads. Python control flow and sizes read while tracing are frozen, as in PyTorch's
trace (which still records a size read with ``x.size(0)``; here it is a constant)."""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any

from ... import nn
from ..._missing import NotImplementedInChainrule
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...export.graph_signature import ConstantArgument
from ._code import dict_like
from ._record import FunctionHolder, dispatch_kept, flat_tensors, is_tracing, record
from ._save import qualified_name, save_function, save_module
from ._traced import TopLevelTracedModule, TracedFunction, TracedModule

__all__ = [
    "TopLevelTracedModule",
    "TracedFunction",
    "TracedModule",
    "is_tracing",
    "qualified_name",
    "save_function",
    "save_module",
    "trace",
    "trace_module",
]


def _tracer_warning(message: str) -> None:
    from .. import TracerWarning

    warnings.warn(message, TracerWarning, stacklevel=4)


def _as_tuple(inputs: Any) -> tuple:
    """The positional example inputs: a tuple or list as its items, else one input."""
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def _check_outputs(program: Any, strict: bool) -> None:
    """Refuses outputs that are not tensors or containers of them; with ``strict``, warns
    about a list or dict output as PyTorch does."""
    spec = program.call_spec.out_spec
    outputs = program.graph_signature.output_specs
    if any(isinstance(o.arg, ConstantArgument) for o in outputs):  # (None, numbers)
        raise RuntimeError(
            "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output "
            "from traced functions"
        )
    if strict and (spec.type == "builtins.list" or dict_like(spec.type)):
        kind = "list" if spec.type == "builtins.list" else "dict"
        instead = "a `tuple`" if kind == "list" else "a `NamedTuple`"
        _tracer_warning(
            f"Encountering a {kind} at the output of the tracer might cause the trace to be "
            "incorrect, this is only valid if the container structure does not change based "
            "on the module's inputs. Consider using a constant container instead (e.g. for "
            f"`{kind}`, use {instead} instead. for `dict`, use a `NamedTuple` instead). If you "
            "absolutely need this and know the side effects, pass strict=False to trace() "
            "to allow this behavior."
        )


def _record_calls(mod: nn.Module) -> tuple[list, dict[int, tuple]]:
    """Forward pre-hooks that keep the first tensor inputs each submodule is called with."""
    seen: dict[int, tuple] = {}
    handles = []
    for _, sub in mod.named_modules():
        if sub is mod:
            continue

        def hook(module: nn.Module, args: tuple) -> None:
            if id(module) not in seen and all(isinstance(a, Tensor) for a in args):
                seen[id(module)] = (module, args)

        handles.append(sub.register_forward_pre_hook(hook))
    return handles, seen


def _record_quietly(mod: nn.Module, args: tuple) -> Any:
    """A submodule's own recording (its warnings were given by the whole trace)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return record(mod, args, {})


def _compare(traced: Any, eager: Any, tolerance: float) -> None:
    """Warns (TracerWarning) where the replayed trace's outputs differ from the eager ones."""
    got, want = flat_tensors(traced, "output"), flat_tensors(eager, "output")
    for i, (a, b) in enumerate(zip(got, want)):
        same = a.shape == b.shape and a.dtype == b.dtype
        if same and a.numel():
            x, y = a.detach().double(), b.detach().double()
            same = bool(((x - y).abs() <= 1e-5 + tolerance * y.abs()).all().item())
        if not same:
            _tracer_warning(
                f"Output nr {i + 1}. of the traced function does not match the corresponding "
                "output of the Python function. Detailed error:\nThe values are not close "
                f"(rtol={tolerance}, atol=1e-05)."
            )


def _check(run: Any, fn: Any, module: Any, inputs: list[tuple], tolerance: float) -> None:
    buffers = [] if module is None else [(b, b.detach().clone()) for b in module.buffers()]
    try:
        for args in inputs:
            with no_grad():
                _compare(run(*args), fn(*args), tolerance)
    finally:
        with no_grad():
            for b, value in buffers:
                b.copy_(value)


def trace_module(
    mod: nn.Module,
    inputs: dict[str, Any],
    optimize: Any = None,
    check_trace: bool = True,
    check_inputs: list[dict[str, Any]] | None = None,
    check_tolerance: float = 1e-5,
    strict: bool = True,
    _force_outplace: bool = False,
    _module_class: Any = None,
    _compilation_unit: Any = None,
    example_inputs_is_kwarg: bool = False,
    _store_inputs: bool = True,
) -> TopLevelTracedModule:
    """A traced module: ``inputs`` maps a method name to its example inputs (chainrule
    traces ``forward``)."""
    if not isinstance(mod, nn.Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    others = [name for name in inputs if name != "forward"]
    if others:
        raise NotImplementedInChainrule(
            f"torch.jit.trace_module: chainrule traces a module's forward only (asked for {others})"
        )
    example = inputs["forward"]
    args, kwargs = ((), dict(example)) if example_inputs_is_kwarg else (_as_tuple(example), {})
    handles, seen = _record_calls(mod)
    try:
        with dispatch_kept():
            program = record(mod, args, kwargs)
    finally:
        for handle in handles:
            handle.remove()
    _check_outputs(program, strict)
    # each submodule called while tracing gets a forward of its own, recorded from the
    # inputs it had when first needed (its code, its call, a save)
    pending = {
        key: functools.partial(_record_quietly, sub, args) for key, (sub, args) in seen.items()
    }
    traced = TopLevelTracedModule(mod, {id(mod): program}, "", pending)
    if check_trace:
        checks = [_as_tuple(c["forward"]) for c in check_inputs or []]
        if not kwargs:
            checks = checks or [args]
        _check(traced, mod, mod, checks, check_tolerance)
    return traced


def trace(
    func: Any,
    example_inputs: Any = None,
    optimize: Any = None,
    check_trace: bool = True,
    check_inputs: list[Any] | None = None,
    check_tolerance: float = 1e-5,
    strict: bool = True,
    _force_outplace: bool = False,
    _module_class: Any = None,
    _compilation_unit: Any = None,
    example_kwarg_inputs: dict[str, Any] | None = None,
    _store_inputs: bool = True,
) -> Any:
    """A traced module (for a module) or ScriptFunction (for a function): ``func`` run
    once on ``example_inputs`` with its tensor operations recorded."""
    from .. import ScriptFunction, ScriptModule

    warnings.warn(
        "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        DeprecationWarning,
        stacklevel=2,
    )
    if isinstance(func, (ScriptModule, ScriptFunction)):
        warnings.warn(
            "The input to trace is already a ScriptModule, tracing it is a no-op. Returning "
            "the object as is.",
            stacklevel=2,
        )
        return func
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be provided")
    kw = example_kwarg_inputs is not None
    if isinstance(func, nn.Module) or (
        inspect.ismethod(func)
        and isinstance(func.__self__, nn.Module)
        and func.__name__ == "forward"
    ):
        mod = func if isinstance(func, nn.Module) else func.__self__
        example = example_kwarg_inputs if kw else example_inputs
        return trace_module(
            mod, {"forward": example}, None, check_trace,
            [{"forward": c} for c in check_inputs] if check_inputs else None,
            check_tolerance, strict, example_inputs_is_kwarg=kw,
        )  # fmt: skip
    if not callable(func):
        raise TypeError(
            f"torch.jit.trace expects a module or a function, got {type(func).__name__}"
        )
    args, kwargs = ((), dict(example_kwarg_inputs)) if kw else (_as_tuple(example_inputs), {})
    holder = FunctionHolder(func)
    with dispatch_kept():
        program = record(holder, args, kwargs)
    _check_outputs(program, strict)
    traced = TracedFunction(func, program)
    if check_trace and not kwargs:
        checks = [_as_tuple(c) for c in check_inputs or []] or [args]
        _check(traced, func, None, checks, check_tolerance)
    return traced
