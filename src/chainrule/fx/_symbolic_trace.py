"""``torch.fx._symbolic_trace``: Tracer, ``symbolic_trace`` and ``wrap``.

Tracing runs the module's ``forward`` on Proxies. While it runs, ``nn.Module.__call__``
goes through :meth:`Tracer.call_module` (a leaf module is recorded as one ``call_module``,
another is traced through), ``nn.Module.__getattr__`` gives a ``get_attr`` Proxy for a
parameter, and each function named by :func:`wrap` is recorded as one ``call_function``.
"""

from __future__ import annotations

import builtins
import contextlib
import functools  # noqa: F401  (read as ``_symbolic_trace.functools`` by custom tracers)
import inspect
import math
import operator
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from types import FunctionType  # noqa: F401  (as in PyTorch's module, for custom tracers)
from typing import Any

from .._C import ScriptObject  # noqa: F401  (as in PyTorch's module, for custom tracers)
from .._tensor import Tensor
from ..nn import Module, Parameter, Sequential
from ._compatibility import compatibility  # noqa: F401  (as in PyTorch's module)
from .graph import Graph, _assert
from .graph_module import GraphModule
from .proxy import Proxy, TracerBase

__all__ = ["PH", "Tracer", "symbolic_trace", "wrap"]


class _PH:
    """``concrete_args`` value for an argument to trace as a placeholder."""

    def __repr__(self) -> str:
        return "PH"


PH = _PH()

# (globals of the module that called wrap, name) for each wrapped function
_wrapped_fns_to_patch: dict[tuple[int, str], dict[str, Any]] = {}

_BASE_TYPES = (str, int, float, bool, complex, type(None), range, type(...), slice)


def wrap(fn_or_name: str | Callable) -> str | Callable:
    """Make a global function of the calling module a leaf of tracing: its calls on
    Proxies are recorded as one ``call_function`` (called at module level)."""
    if callable(fn_or_name):
        fn_name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        fn_name = fn_or_name
    else:
        raise AssertionError("wrap must be called with the name of a function or a function")
    if fn_name.startswith("<"):
        raise AssertionError("wrap must be called on a function with a name (not a lambda)")
    frame = sys._getframe(1)
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(frame.f_globals), fn_name)] = frame.f_globals
    return fn_or_name


def _find_proxy(args: tuple, kwargs: dict) -> Proxy | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Proxy):
            return a
    return None


def _wrapped(orig: Callable) -> Callable:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return orig(*args, **kwargs)
        result = proxy.tracer.create_proxy("call_function", orig, args, kwargs)
        result.node.meta["is_wrapped"] = True
        return result

    return wrapper


class _Patcher:
    """Attributes replaced while tracing, put back after (also a context manager, as
    PyTorch's, whose ``patch_method``/``patch`` custom tracers call)."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []
        self._visited: set[int] = set()

    def __enter__(self) -> _Patcher:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.undo()

    def patch_method(
        self, cls: type, name: str, new_fn: Callable, deduplicate: bool = True
    ) -> None:
        """Replace ``cls.name`` by ``new_fn`` (kept marked, so ``deduplicate`` skips a
        method patched already)."""
        setattr(new_fn, "__fx_already_patched", deduplicate)  # noqa: B010 (no name mangling)
        orig = getattr(cls, name)
        if getattr(orig, "__fx_already_patched", False):
            return
        self.patch_attr(cls, name, new_fn)

    def patch(
        self, frame_dict: dict[str, Any], name: str, new_fn: Callable, deduplicate: bool = True
    ) -> None:
        """Replace the global ``name`` of ``frame_dict`` (a builtin if absent) by ``new_fn``."""
        setattr(new_fn, "__fx_already_patched", deduplicate)  # noqa: B010 (no name mangling)
        if name in frame_dict and getattr(frame_dict[name], "__fx_already_patched", False):
            return
        self.patch_global(frame_dict, name, new_fn)

    def visit_once(self, thing: Any) -> bool:
        """True the first time ``thing`` is seen by this patcher."""
        if id(thing) in self._visited:
            return False
        self._visited.add(id(thing))
        return True

    def patch_attr(self, obj: Any, name: str, value: Any) -> None:
        if name in vars(obj):
            orig = vars(obj)[name]
            self._undo.append(lambda: setattr(obj, name, orig))
        else:  # (inherited: deleting the patch shows the base class's again)
            self._undo.append(lambda: delattr(obj, name))
        setattr(obj, name, value)

    def patch_global(self, frame_globals: dict[str, Any], name: str, value: Any) -> None:
        if name in frame_globals:
            orig = frame_globals[name]
            self._undo.append(lambda: frame_globals.__setitem__(name, orig))
        else:
            self._undo.append(lambda: frame_globals.pop(name, None))
        frame_globals[name] = value

    def undo(self) -> None:
        while self._undo:
            self._undo.pop()()


class Tracer(TracerBase):
    """Records a module's ``forward`` as a Graph (subclass it to change what is a leaf
    module or how operations are recorded)."""

    def __init__(
        self,
        autowrap_modules: tuple = (math,),
        autowrap_functions: tuple[Callable, ...] = (),
        param_shapes_constant: bool = False,
    ) -> None:
        self._autowrap_modules = autowrap_modules
        self._autowrap_functions = autowrap_functions
        # (PyTorch's names, which custom tracers read: the ids of the functions recorded as
        # leaves, and the modules searched for them)
        self._autowrap_function_ids = set(_autowrap_targets(autowrap_modules, autowrap_functions))
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[Module, str] | None = None
        self.tensor_attrs: dict[Tensor, str] = {}  # (keyed by the tensor itself, as PyTorch)
        self.root: Module = Module()
        self.module_stack: OrderedDict[str, tuple[str, type]] = OrderedDict()

    # ----- what is recorded ----------------------------------------------------------

    def create_arg(self, a: Any) -> Any:
        """``a`` as a Node argument: a Proxy its Node, a parameter, buffer or tensor
        attribute a ``get_attr`` Node, another tensor a new ``_tensor_constant`` attribute."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            return self.create_node("get_attr", self._tensor_name(a), (), {})
        if isinstance(a, tuple):
            items = tuple(self.create_arg(x) for x in a)
            return type(a)(*items) if hasattr(a, "_fields") else items
        if isinstance(a, list):
            return [self.create_arg(x) for x in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot be {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, _BASE_TYPES) or _is_torch_value(a) or callable(a):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def _tensor_name(self, a: Tensor) -> str:
        """The attribute of the root that holds ``a`` (a buffer, a tensor attribute, or a new
        constant)."""
        for n, b in self.root.named_buffers():
            if a is b:
                return n
        known = self.tensor_attrs.get(a)  # (tensors hash by identity)
        if known is not None:
            return known
        i = 0
        while hasattr(self.root, f"_tensor_constant{i}"):
            i += 1
        name = f"_tensor_constant{i}"
        object.__setattr__(self.root, name, a)
        self.tensor_attrs[a] = name
        return name

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Whether ``m`` is recorded as one ``call_module`` (chainrule's nn modules but
        Sequential) rather than traced through."""
        from .._import_hook import is_chainrule_module

        module = type(m).__module__ or ""
        nn = module.startswith(("chainrule.nn", "torch.nn")) and is_chainrule_module(module)
        return nn and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The dotted name of ``mod`` in the root module."""
        assert self.submodule_paths is not None
        path = self.submodule_paths.get(mod)
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m: Module, forward: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """A submodule called while tracing: one ``call_module`` if a leaf, else its
        ``forward`` traced."""
        module_qualified_name = self.path_of_module(m)
        stack = self.module_stack
        outer = stack.get(module_qualified_name)
        stack[module_qualified_name] = (module_qualified_name, type(m))
        try:
            if not self.is_leaf_module(m, module_qualified_name):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", module_qualified_name, args, kwargs)
        finally:
            if outer is None:
                stack.pop(module_qualified_name, None)

    def create_node(
        self,
        kind: str,
        target: Any,
        args: tuple,
        kwargs: dict,
        name: str | None = None,
        type_expr: Any | None = None,
    ) -> Any:
        """A Node of the Graph, its ``meta['nn_module_stack']`` the modules being called
        (path -> (path, type)) when there are some."""
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        if self.module_stack and kind not in ("placeholder", "output"):
            node.meta["nn_module_stack"] = OrderedDict(self.module_stack)
        return node

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict[str, Proxy]) -> Any:
        """A module attribute read while tracing: a parameter gives its ``get_attr`` Proxy."""
        if not isinstance(attr_val, Parameter):
            return attr_val
        for n, p in self.root.named_parameters():
            if attr_val is p:
                if n not in parameter_proxy_cache:
                    parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {})
                return parameter_proxy_cache[n]
        return attr_val

    # ----- tracing --------------------------------------------------------------------

    def create_args_for_root(
        self, root_fn: Callable, is_module: bool, concrete_args: dict[str, Any] | None = None
    ) -> tuple[Callable, list[Any]]:
        """PyTorch's form: ``(fn, args)`` with ``fn(*args)`` running ``root_fn`` on the
        placeholders (the root module first for a module; keyword-only parameters passed
        positionally too, in order)."""
        args = self._placeholder_args(root_fn, is_module, concrete_args)
        kwonly = self._kwonly_args(root_fn, is_module)
        names = list(kwonly)
        n_pos = len(args)

        @functools.wraps(root_fn)
        def fn(*all_args: Any) -> Any:
            pos = all_args[: n_pos + is_module]
            return root_fn(*pos, **dict(zip(names, all_args[n_pos + is_module :])))

        return fn, [*([self.root] if is_module else []), *args, *kwonly.values()]

    def _placeholder_args(
        self, root_fn: Callable, is_module: bool, concrete_args: dict[str, Any] | None
    ) -> list[Any]:
        """The arguments ``forward`` is traced with: a placeholder Proxy for each, or the
        concrete value (checked by an assertion in the graph)."""
        concrete_args = dict(concrete_args or {})
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())[1 if is_module else 0 :]
        hints = _type_hints(root_fn)
        ordered = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        ordered += [p for p in params if p.kind is p.KEYWORD_ONLY]
        ordered += [p for p in params if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        values: dict[str, Any] = {}
        for p in ordered:
            if p.name in concrete_args and concrete_args[p.name] is not PH:
                values[p.name] = self._concrete(p, concrete_args[p.name])
                continue
            if p.kind is p.VAR_POSITIONAL:
                self.create_proxy("placeholder", f"*{p.name}", (), {})
                continue
            if p.kind is p.VAR_KEYWORD:
                self.create_proxy("placeholder", f"**{p.name}", (), {})
                continue
            default = () if p.default is p.empty else (p.default,)
            values[p.name] = self.create_proxy(
                "placeholder", p.name, default, {}, type_expr=hints.get(p.name)
            )
        return [values[p.name] for p in params if p.name in values and p.kind is not p.KEYWORD_ONLY]

    def _concrete(self, p: inspect.Parameter, value: Any) -> Any:
        """A placeholder for a specialized argument, asserted to equal ``value``."""
        default = () if p.default is p.empty else (p.default,)
        ph = self.create_proxy("placeholder", f"{p.name}_1", default, {})
        eq = self.create_proxy("call_function", operator.eq, (ph, value), {})
        message = f"{p.name} has been specialized to have value {value} but got another value"
        self.create_proxy("call_function", _assert, (eq, message), {})
        return value

    def trace(self, root: Module | Callable, concrete_args: dict[str, Any] | None = None) -> Graph:
        """The Graph of ``root`` (a module's ``forward``, or a function)."""
        from .. import overrides
        from .proxy import Proxy as _Proxy

        overrides._class_defined(_Proxy)  # dispatch on (a test set-up may have reset it)
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
        else:
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        self.submodule_paths = {mod: name for name, mod in self.root.named_modules()}
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        run, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        with self._patched(fn):
            result = run(*args)
        hints = _type_hints(fn)
        self.create_node(
            "output", "output", (self.create_arg(result),), {}, type_expr=hints.get("return")
        )
        self.submodule_paths = None
        return self.graph

    def _kwonly_args(self, fn: Callable, is_module: bool) -> dict[str, Any]:
        kwonly: dict[str, Any] = {}
        for node in self.graph.nodes:
            if node.op != "placeholder" or node.target.startswith("*"):
                continue
            p = inspect.signature(fn).parameters.get(node.target)
            if p is not None and p.kind is p.KEYWORD_ONLY:
                kwonly[p.name] = self.proxy(node)
        return kwonly

    def _collect_tensor_attrs(self, m: Module, prefix: list[str]) -> None:
        for k, v in vars(m).items():
            if isinstance(v, Tensor) and not isinstance(v, Parameter):
                self.tensor_attrs[v] = ".".join([*prefix, k])
        for name, child in m.named_children():
            self._collect_tensor_attrs(child, [*prefix, name])

    def _autowrap(self, patcher: _Patcher, fn_globals: dict[str, Any]) -> None:
        """Record the autowrapped functions as leaves, both as module attributes
        (``math.sqrt``) and as globals of the traced function (``sqrt``)."""
        targets = _autowrap_targets(self._autowrap_modules, self._autowrap_functions)
        for m in self._autowrap_modules:
            for name, value in list(vars(m).items()):
                if id(value) in targets:
                    patcher.patch_attr(m, name, _wrapped(value))
        for name, value in list(fn_globals.items()):
            if id(value) in targets:
                patcher.patch_global(fn_globals, name, _wrapped(value))

    @contextlib.contextmanager
    def _patched(self, fn: Callable) -> Iterator[None]:
        """Module calls and attribute reads through the tracer, wrapped functions recorded,
        while ``fn`` runs."""
        patcher = _Patcher()
        orig_call = Module.__call__
        orig_getattr = Module.__getattr__
        cache: dict[str, Proxy] = {}
        tracer = self

        def module_call_wrapper(mod: Module, *args: Any, **kwargs: Any) -> Any:
            def forward(*a: Any, **k: Any) -> Any:
                return orig_call(mod, *a, **k)

            return tracer.call_module(mod, forward, args, kwargs)

        def module_getattr_wrapper(mod: Module, attr: str) -> Any:
            return tracer.getattr(attr, orig_getattr(mod, attr), cache)

        patcher.patch_attr(Module, "__call__", module_call_wrapper)
        patcher.patch_attr(Module, "__getattr__", module_getattr_wrapper)
        fn_globals = getattr(fn, "__globals__", {})
        for (_, name), frame_globals in list(_wrapped_fns_to_patch.items()):
            orig = frame_globals.get(name, getattr(builtins, name, None))
            if orig is not None:
                patcher.patch_global(frame_globals, name, _wrapped(orig))
        self._autowrap(patcher, fn_globals)
        try:
            yield
        finally:
            patcher.undo()


# Module's own call and attribute read, before any tracer patches them (custom tracers
# call them from their patches, as PyTorch's names)
_orig_module_call = Module.__call__
_orig_module_getattr = Module.__getattr__


def _autowrap_check(patcher: _Patcher, frame_dict: dict[str, Any], function_ids: set) -> None:
    """Record the globals of ``frame_dict`` whose ids are in ``function_ids`` as leaves
    (each dict visited once per patcher)."""
    if not patcher.visit_once(frame_dict):
        return
    for name, value in list(frame_dict.items()):
        if not name.startswith("_") and callable(value) and id(value) in function_ids:
            patcher.patch(frame_dict, name, _wrapped(value))


def _patch_wrapped_functions(patcher: _Patcher) -> None:
    """Record the functions named by :func:`wrap` as leaves, in the modules that named
    them."""
    for (_, name), frame_globals in list(_wrapped_fns_to_patch.items()):
        orig = frame_globals.get(name, getattr(builtins, name, None))
        if orig is not None:
            patcher.patch(frame_globals, name, _wrapped(orig))


def _autowrap_targets(modules: tuple, functions: tuple) -> dict[int, Callable]:
    """The functions recorded as leaves without ``wrap``: the public functions of
    ``modules`` (``math``) and ``functions``."""
    found = {id(f): f for f in functions}
    for m in modules:
        for name, value in vars(m).items():
            if not name.startswith("_") and callable(value) and not isinstance(value, type):
                found[id(value)] = value
    return found


def _type_hints(fn: Callable) -> dict[str, Any]:
    """The annotations of ``fn`` as written (strings stay strings, as in PyTorch; ``Any``
    says nothing), by parameter name and ``return``; none for chainrule's modules."""
    if (getattr(fn, "__module__", None) or "").startswith("chainrule."):
        return {}  # (chainrule's own annotations are not PyTorch's)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    hints = {p.name: p.annotation for p in sig.parameters.values()}
    hints["return"] = sig.return_annotation
    return {k: v for k, v in hints.items() if v is not inspect.Parameter.empty and v is not Any}


def _is_torch_value(a: Any) -> bool:
    import chainrule

    return isinstance(
        a, (chainrule.dtype, chainrule.device, chainrule.memory_format, chainrule.layout)
    )


def symbolic_trace(
    root: Module | Callable[..., Any], concrete_args: dict[str, Any] | None = None
) -> GraphModule:
    """The GraphModule of ``root`` traced on Proxies (``concrete_args``: arguments
    specialized to a value)."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
