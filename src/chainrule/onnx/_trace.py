"""Recording a model's forward as an ONNX graph: the model runs once on the example inputs
under a ``TorchFunctionMode`` that sees every public function, Tensor method, property and
operator call; each call on a value of the graph is translated by ``_ops.TABLE`` (its
arguments and its result are concrete, so every shape and dtype is known).

The calls a translated function makes inside itself are not seen (``F.linear`` is one
``Gemm``, not what chainrule computes it with). A call whose arguments are all outside the
graph (factories, arithmetic on constants) is not recorded: its result enters the graph as a
constant when an op on graph values reads it.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import itertools
from collections.abc import Iterator
from typing import Any

from .. import overrides
from .._tensor import Tensor
from ._export import _exporting
from ._graph import Graph
from ._modules import modules_exported_whole
from ._ops import TABLE
from ._symint import has_symbolic, symbolic_sizes
from .errors import OnnxExporterError, UnsupportedOperatorError

_PREFIXES = ("torch.nn.functional.", "torch.Tensor.", "torch.linalg.", "torch.special.", "torch.")


def _short(func: Any) -> str:
    """The name a translation is registered under: ``torch.nn.functional.relu`` -> ``relu``,
    ``torch.Tensor.T.__get__`` -> ``T.__get__``."""
    full = overrides.resolve_name(func) or getattr(func, "__name__", repr(func))
    for prefix in _PREFIXES:
        if full.startswith(prefix):
            return full[len(prefix) :]
    return full


def tensors_in(obj: Any) -> list[Tensor]:
    """The tensors in ``obj`` (nested in tuples, lists and dicts), in order."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in tensors_in(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in tensors_in(item)]
    return []


# what writes into a tensor without returning a new one: not translatable (it would change a
# value the graph has already read)
_WRITES = {"__setitem__", "copy_", "index_put_", "masked_scatter_", "scatter_", "fill_", "zero_"}


class _Recorder(overrides.TorchFunctionMode):
    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def __torch_function__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        kwargs = kwargs or {}
        g = self.graph
        name = _short(func)
        tracked = any(g.tracked(t) for t in tensors_in((args, kwargs)))
        if not tracked and g.dynamic and name in TABLE:
            tracked = has_symbolic((args, kwargs))  # a factory given a symbolic size
        if not tracked:
            out = func(*args, **kwargs)
            if all(g.known(t) for t in tensors_in((args, kwargs))):
                g.see(tensors_in(out))  # a constant (else made from an unseen computation)
            return out
        g.current = name
        if name in _WRITES:
            raise UnsupportedOperatorError(f"aten::{name.strip('_')}", g.opset, None)
        out = func(*args, **kwargs)
        if g.dynamic and name in ("size", "shape.__get__"):
            return _symbolic(g, args, kwargs, out)
        outs = tensors_in(out)
        if not outs:
            return out  # sizes, dtypes, Python numbers: constants of this trace
        translate = TABLE.get(name)
        if translate is None and name.endswith("_") and not name.endswith("__"):
            translate = TABLE.get(name[:-1])  # x.exp_() as exp: the result rebinds x
        if translate is None:
            raise UnsupportedOperatorError(f"aten::{name}", g.opset, None)
        names = translate(g, args, kwargs, out)
        if isinstance(names, str):
            names = [names]
        names = [n for n in names if n is not None]
        if len(names) != len(outs):
            raise OnnxExporterError(f"the translation of {name} gave {len(names)} values")
        for t, n in zip(outs, names):
            g.bind(t, n)
        return out


def _symbolic(g: Graph, args: tuple, kwargs: dict, out: Any) -> Any:
    """``x.size()``/``x.shape`` (a Size) or ``x.size(dim)`` (an int) as symbolic sizes."""
    x = args[0]
    sizes = symbolic_sizes(g.value(x), tuple(int(s) for s in x.shape))
    if isinstance(out, tuple):
        return type(out)(sizes)
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    return sizes[int(dim)]


def _input_names(model: Any, args: tuple, kwargs: dict) -> list[tuple[str, Tensor]]:
    """Each tensor of the inputs with the name PyTorch gives it: the forward's parameter
    name (``x``), ``name_i`` for the tensors inside a list or tuple argument."""
    forward = getattr(model, "forward", model)
    try:
        bound = inspect.signature(forward).bind(*args, **kwargs)
        items = list(bound.arguments.items())
    except (TypeError, ValueError):
        items = [(f"args_{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    named: list[tuple[str, Tensor]] = []
    for pname, value in items:
        found = tensors_in(value)
        if isinstance(value, Tensor):
            named.append((pname, value))
        else:
            named += [(f"{pname}_{i}", t) for i, t in enumerate(found)]
    return named


@contextlib.contextmanager
def _public_functions_in(model: Any) -> Iterator[None]:
    """Code that captured a public function before the recording mode put its dispatching
    wrapper in place (``TransformerEncoderLayer.activation = F.relu``; ``from torch import
    flatten`` in a model's file) would call it unseen: while the model runs, hand the wrapper
    to its modules' attributes and to the globals of their classes' methods."""
    public = {id(plain): getattr(space, name) for space, name, plain in overrides._saved}
    namespaces: dict[int, dict] = {}
    modules = list(model.modules()) if hasattr(model, "modules") else []
    for module in modules:
        namespaces[id(vars(module))] = vars(module)
        for cls in type(module).__mro__:
            for value in vars(cls).values():
                code_globals = getattr(value, "__globals__", None)
                if code_globals is not None:
                    namespaces[id(code_globals)] = code_globals
    forward = getattr(model, "forward", None)
    if getattr(forward, "__globals__", None) is not None:
        namespaces[id(forward.__globals__)] = forward.__globals__
    swapped = []
    for space in namespaces.values():
        for key, value in list(space.items()):
            wrapper = public.get(id(value)) if callable(value) else None
            if wrapper is not None and wrapper is not value:
                swapped.append((space, key, value))
                space[key] = wrapper
    try:
        yield
    finally:
        for space, key, value in swapped:
            space[key] = value


# the Tensor methods that make a tensor without dispatching (PyTorch's ignore them too)
_NEW = ("new_tensor", "new_zeros", "new_ones", "new_full", "new_empty", "new_empty_strided")


@contextlib.contextmanager
def _factories_seen(g: Graph) -> Iterator[None]:
    """Note the tensors ``x.new_zeros(...)`` and the like make (constants of the trace)."""
    saved = {name: vars(Tensor)[name] for name in _NEW if name in vars(Tensor)}

    def seeing(plain: Any) -> Any:
        def method(*args: Any, **kwargs: Any) -> Any:
            out = plain(*args, **kwargs)
            g.see(tensors_in(out))
            return out

        return method

    for name, plain in saved.items():
        setattr(Tensor, name, seeing(plain))
    try:
        yield
    finally:
        for name, plain in saved.items():
            setattr(Tensor, name, plain)


def trace(
    model: Any, args: tuple, kwargs: dict, opset: int, dynamic: bool = False
) -> tuple[Graph, list[str], Any]:
    """Run ``model(*args, **kwargs)`` recording it; the graph, the names of the outputs and
    the model's result."""
    import chainrule

    g = Graph(opset)
    g.dynamic = dynamic
    alive = [o for o in gc.get_objects() if issubclass(type(o), Tensor)]  # (kept: ids stay)
    g.preexisting = {id(o) for o in alive}
    if hasattr(model, "named_parameters"):
        tensors = itertools.chain(
            model.named_parameters(remove_duplicate=True), model.named_buffers()
        )
        for pname, t in tensors:
            g.params.setdefault(id(t), (pname, t))
    seen: set[int] = set()
    for name, t in _input_names(model, args, kwargs):
        if id(t) not in seen:
            seen.add(id(t))
            g.add_input(t, name)
    _exporting[0] = True
    try:
        with (
            chainrule.no_grad(),
            _Recorder(g),
            _public_functions_in(model),
            _factories_seen(g),
            modules_exported_whole(g, model),
        ):
            result = model(*args, **kwargs)
    finally:
        _exporting[0] = False
    outputs = []
    g.current = "output"
    for t in tensors_in(result):
        outputs.append(g.value(t))
    del alive
    return g, outputs, result
