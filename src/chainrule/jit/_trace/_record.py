"""Recording a trace: the callable run once on its example inputs under chainrule's
export recorder (``chainrule.export``), which writes every tensor operation as an ATen
overload node; Python control flow and sizes read on the way are frozen into the graph,
and a tensor turned into a Python value gives PyTorch's ``TracerWarning``."""

from __future__ import annotations

import operator
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ... import overrides
from ..._missing import NotImplementedInChainrule
from ..._tensor import Tensor
from ...autograd.grad_mode import enable_grad
from ...nn import Module

_STATE = {"depth": 0}

# Tensor methods that hand a value to Python, and what PyTorch's warning calls the value
_CONVERSIONS = {
    "__bool__": "a Python boolean",
    "__int__": "a Python integer",
    "__float__": "a Python float",
    "__index__": "a Python index",
    "item": "a Python number",
    "tolist": "a Python list",
    "numpy": "a NumPy array",
}


_PLUMBING = ("chainrule.overrides", "chainrule.export._tracer")


def is_tracing() -> bool:
    """Whether a ``torch.jit.trace`` is recording now."""
    return _STATE["depth"] > 0


def _user_level() -> int | None:
    """The ``stacklevel`` (from the conversion method) of the traced code that asked for
    the conversion; None when chainrule's own machinery asked for it."""
    frame: Any = sys._getframe(2)
    level = 2
    while frame is not None and (
        frame.f_globals.get("__name__") in _PLUMBING
        or frame.f_code is _Passthrough.__torch_function__.__code__
    ):
        frame, level = frame.f_back, level + 1  # (the dispatch and the recorder pass it on)
    name = "" if frame is None else frame.f_globals.get("__name__", "")
    return None if name == "chainrule" or name.startswith("chainrule.") else level


def _warning_method(method: str, what: str, original: Callable) -> Callable:
    def run(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        level = _user_level()
        if level is not None:
            from .. import TracerWarning

            warnings.warn(
                f"Converting a tensor to {what} might cause the trace to be incorrect. We "
                "can't record the data flow of Python values, so this value will be treated "
                "as a constant in the future. This means that the trace might not generalize "
                "to other inputs!",
                TracerWarning,
                stacklevel=level,
            )
        return original(self, *args, **kwargs)

    run.__name__ = method
    return run


@contextmanager
def tracing() -> Iterator[None]:
    """While the trace records: ``is_tracing()`` is True and converting a tensor to a
    Python value warns (Tensor's conversion methods are wrapped for the duration)."""
    saved = {name: Tensor.__dict__[name] for name in _CONVERSIONS if name in Tensor.__dict__}
    if _STATE["depth"] == 0:
        for name, original in saved.items():
            setattr(Tensor, name, _warning_method(name, _CONVERSIONS[name], original))
    _STATE["depth"] += 1
    try:
        yield
    finally:
        _STATE["depth"] -= 1
        if _STATE["depth"] == 0:
            for name, original in saved.items():
                setattr(Tensor, name, original)


class _Passthrough(overrides.TorchFunctionMode):
    """A mode that hands every call on: while it is active, the dispatching wrappers stay
    installed between the many recordings of one trace or save (installing them is the
    costly part of each)."""

    def __torch_function__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        return func(*args, **(kwargs or {}))


def dispatch_kept() -> _Passthrough:
    """A context that keeps torch-function dispatch on across recordings."""
    return _Passthrough()


class FunctionHolder(Module):
    """A module whose forward is a traced function (so it is recorded like a module)."""

    def __init__(self, fn: Callable) -> None:
        super().__init__()
        object.__setattr__(self, "forward", fn)


def flat_tensors(value: Any, where: str) -> list[Tensor]:
    """The tensors of a trace's inputs or outputs (tensors, tuples, lists, dicts of
    them); anything else is refused as PyTorch's trace refuses it."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in flat_tensors(item, where)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in flat_tensors(item, where)]
    if where == "output":
        raise RuntimeError(
            "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output "
            f"from traced functions (got {type(value).__name__})"
        )
    raise RuntimeError(
        f"Type '{type(value).__name__}' cannot be traced. Only Tensors and (possibly nested) "
        "Lists, Dicts, and Tuples of Tensors can be traced"
    )


def record(mod: Module, args: tuple, kwargs: dict) -> Any:
    """The ExportedProgram of one run of ``mod(*args, **kwargs)``, the calls chainrule's
    export cannot write named in a NotImplementedInChainrule; sizes that follow the
    first input's leading sizes are SizeExprs (``_sizes``), their dims in
    ``program.size_dims``."""
    from ._sizes import follow_sizes

    for a in (*args, *kwargs.values()):
        flat_tensors(a, "input")
        if not isinstance(a, Tensor) and not all(isinstance(x, Tensor) for x in a):
            raise NotImplementedInChainrule(
                "torch.jit.trace: chainrule traces inputs that are tensors or tuples and "
                f"lists of tensors (an input is a {type(a).__name__} holding containers or "
                "dicts; PyTorch also takes those)"
            )
    program = _record_once(mod, args, kwargs)
    program.size_dims = []
    if not kwargs:

        def again(inputs: tuple) -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the first recording said it all)
                return _record_once(mod, inputs, {})

        program.size_dims = follow_sizes(program, again, tuple(args))
    return program


def _record_once(mod: Module, args: tuple, kwargs: dict) -> Any:
    from ...export import export

    # floating inputs are traced as copies that require grad (and grad mode is on), so
    # that a tensor computed by a call the recorder cannot see carries a grad_fn and is
    # refused, not frozen into the graph as a constant
    with enable_grad():
        args = tuple(_watched(a) for a in args)
        kwargs = {k: _watched(v) for k, v in kwargs.items()}
        try:
            with tracing():
                program = export(mod, args, kwargs)
        except NotImplementedError as exc:
            if isinstance(exc, NotImplementedInChainrule):
                raise
            raise NotImplementedInChainrule(
                f"torch.jit.trace: {exc} (chainrule's trace records the calls its export can "
                "write as ATen operators)"
            ) from exc
    drop_checks(program.graph)
    return program


# the export's runtime checks of sizes it could not know (an unbacked size's range, a
# tensor's dtype): PyTorch's trace records none, and they hold only for the example
_CHECKS = frozenset({
    "_assert_scalar", "_assert_async", "_assert_tensor_metadata", "sym_constrain_range",
    "sym_constrain_range_for_size", "_functional_assert_scalar",
    "_functional_sym_constrain_range", "_functional_sym_constrain_range_for_size",
})  # fmt: skip
# the calls on sizes that feed those checks (erased when nothing else reads them)
_SIZE_CALLS = frozenset({"sym_size", "sym_numel", "sym_stride", "sym_storage_offset"})


def _aten_name(target: Any) -> str | None:
    full = str(target)
    return full.split(".")[1] if full.startswith("aten.") else None


def drop_checks(graph: Any) -> None:
    """Erases the graph's check nodes and the size arithmetic that only they read
    (``sym_size``, ``operator.ge``), so the trace runs on inputs of other counts."""
    for node in reversed(list(graph.nodes)):
        if node.op != "call_function":
            continue
        name = _aten_name(node.target)
        if name in _CHECKS:
            graph.erase_node(node)
        elif not node.users and (name in _SIZE_CALLS or _is_python_operator(node.target)):
            graph.erase_node(node)


def _is_python_operator(target: Any) -> bool:
    return getattr(target, "__module__", None) in ("_operator", "operator") and (
        target is not operator.getitem
    )


def _watched(t: Any) -> Any:
    if isinstance(t, (tuple, list)):
        return type(t)(_watched(x) for x in t)
    if t.is_leaf and t.requires_grad:
        return t  # (watched already; the function sees the very tensor, as in PyTorch)
    if t.is_floating_point() or t.is_complex():
        return t.detach().requires_grad_().clone()
    return t
