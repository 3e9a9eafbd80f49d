"""The operators defined through ``torch.library`` and how a call is routed.

There is no dispatcher: each operator overload keeps its kernels in a dict keyed by what
PyTorch would key them by (``cpu``, ``meta``, ``default`` for CompositeExplicitAutograd,
``implicit`` for CompositeImplicitAutograd, ``autograd``), and ``call`` picks one in
PyTorch's order: a CompositeImplicitAutograd kernel runs as it is (differentiable through
its own ops); an ``Autograd`` kernel runs next (a call of the same op from inside it goes
below autograd); an autograd formula (``register_autograd``, and every ``custom_op``) wraps
the rest in an ``autograd.Function``; below autograd, meta inputs run the fake kernel and
others the device kernel, then mutated arguments get their version bumped.
"""

from __future__ import annotations

import sys
import threading
import types
import warnings
from collections.abc import Callable
from typing import Any

from ._schema import FunctionSchema

__all__ = ["OpOverload", "OpOverloadPacket", "namespace", "register"]

# namespace -> op name -> overload name -> OpOverload
_REGISTRY: dict[str, dict[str, dict[str, OpOverload]]] = {}
_NAMESPACES: dict[str, _OpNamespace] = {}
# kernels given (``Library.impl``) before their op was defined: qualname -> slot -> kernel
PENDING: dict[str, dict[str, Callable]] = {}
_below = threading.local()  # the ops whose Autograd kernel is running (re-entry goes below)

_NO_AUTOGRAD_WARNING = (
    "{name}: an autograd kernel was not registered to the Autograd key(s) but we are trying "
    "to backprop through it. This may lead to silently incorrect behavior. This behavior is "
    "deprecated and will be removed in a future version of PyTorch. If your operator is "
    "differentiable, please ensure you have registered an autograd kernel to the correct "
    "Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If "
    "your operator is not differentiable, or to squash this warning and use the previous "
    "behavior, please register torch::CppFunction::makeFallthrough() to "
    "DispatchKey::Autograd."
)
_ALIAS_ERROR = (
    "{name} (with implementation in {module!r}): The output of this custom operator (1) must "
    "not also be an input to this custom operator and (2) may not alias any inputs to this "
    "custom operator or other returns. The most common way to trigger this error is if we "
    "have y = custom_op(x) and y and x are the same Tensor. Please instead return a clone of "
    "the offending output tensor(s) (e.g. return x.clone()) or refactor the custom operator "
    "to not return y."
)


class OpOverload:
    """One overload of an operator (``torch.ops.ns.op.default``): its schema and kernels."""

    def __init__(self, schema: FunctionSchema) -> None:
        self._schema = schema
        self.namespace, self._opname = schema.name.split("::")
        self._overloadname = schema.overload_name or "default"
        self.kernels: dict[str, Callable] = {}
        self.backward: Callable | None = None
        self.setup_context: Callable | None = None
        self.custom: Any = None  # the CustomOpDef that defined it, if any
        self._function: type | None = None

    def name(self) -> str:
        """``ns::op`` (``ns::op.overload`` for a named overload)."""
        suffix = f".{self._schema.overload_name}" if self._schema.overload_name else ""
        return self._schema.name + suffix

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        """The packet holding every overload of the op."""
        return getattr(namespace(self.namespace), self._opname)

    def __repr__(self) -> str:
        return (
            f"<OpOverload(op='{self.namespace}.{self._opname}', overload='{self._overloadname}')>"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call(self, bind(self, args, kwargs))


class OpOverloadPacket:
    """Every overload of one operator (``torch.ops.ns.op``); calling it calls ``default``."""

    def __init__(self, ns: str, name: str) -> None:
        self._ns = ns
        self._name = name
        self._qualified_op_name = f"{ns}::{name}"

    def overloads(self) -> list[str]:
        """The overload names (``default`` for the unnamed one)."""
        return list(_REGISTRY[self._ns][self._name])

    def __getattr__(self, name: str) -> OpOverload:
        if name.startswith("__"):
            raise AttributeError(name)
        overloads = _REGISTRY[self._ns][self._name]
        if name not in overloads:
            raise AttributeError(
                f"The underlying op of '{self._ns}.{self._name}' has no overload name '{name}'"
            )
        return overloads[name]

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        overloads = _REGISTRY[self._ns][self._name]
        op = overloads.get("default") or next(iter(overloads.values()))
        return op(*args, **kwargs)


class _OpNamespace(types.ModuleType):
    """``torch.ops.ns``: the operators of one library namespace."""

    def __init__(self, ns: str) -> None:
        super().__init__(f"torch.ops.{ns}")
        self.__file__ = "torch.ops"
        self._ns = ns

    def __getattr__(self, name: str) -> OpOverloadPacket:
        if name.startswith("__") or name not in _REGISTRY.get(self._ns, {}):
            raise AttributeError(f"'_OpNamespace' '{self._ns}' object has no attribute '{name}'")
        return OpOverloadPacket(self._ns, name)


def namespace(ns: str) -> _OpNamespace:
    """The ``torch.ops.<ns>`` object of a namespace that has operators."""
    if ns not in _REGISTRY:
        raise AttributeError(f"module 'torch.ops' has no attribute '{ns}'")
    if ns not in _NAMESPACES:
        _NAMESPACES[ns] = _OpNamespace(ns)
    return _NAMESPACES[ns]


def register(schema: FunctionSchema, replace: bool = False) -> OpOverload:
    """Define the operator of ``schema``; PyTorch's error for a second definition."""
    ns, name = schema.name.split("::")
    overloads = _REGISTRY.setdefault(ns, {}).setdefault(name, {})
    key = schema.overload_name or "default"
    if key in overloads and not replace:
        raise RuntimeError(
            f"Tried to register an operator ({schema}) with the same name and overload name "
            "multiple times. Each overload's schema should only be registered with a single "
            "call to def()."
        )
    op = overloads[key] = OpOverload(schema)
    op.kernels.update(PENDING.pop(op.name(), {}))
    return op


def lookup(qualname: str, through_ops: bool = False) -> OpOverload:
    """The overload named ``ns::op`` or ``ns::op.overload``; PyTorch's error if none (an
    AttributeError where PyTorch looks it up ``through_ops``, as ``torch.ops.ns.op``)."""
    ns, _, rest = qualname.partition("::")
    name, _, overload = rest.partition(".")
    found = _REGISTRY.get(ns, {}).get(name, {}).get(overload or "default")
    if found is None and through_ops:
        raise AttributeError(f"'_OpNamespace' '{ns}' object has no attribute '{name}'")
    if found is None:
        raise RuntimeError(f"operator {qualname} does not exist")
    return found


# ---- binding the arguments of a call


def bind(op: OpOverload, args: tuple, kwargs: dict) -> list:
    """The values of every schema argument, in order (defaults filled in)."""
    schema = op._schema
    positional = [a for a in schema.arguments if not a.kwarg_only]
    if len(args) > len(positional):
        raise RuntimeError(
            f"{op.name()}() expected at most {len(positional)} argument(s) but received "
            f"{len(args)} argument(s). Declaration: {schema}"
        )
    names = {a.name for a in schema.arguments}
    for key in kwargs:
        if key not in names:
            raise RuntimeError(
                f"Unknown keyword argument '{key}' for operator '{op.name()}'. Schema: {schema}"
            )
    values = list(args)
    for a in schema.arguments[len(args) :]:
        if a.name in kwargs:
            values.append(kwargs[a.name])
        elif a.has_default:
            values.append(a.default)
        else:
            raise RuntimeError(
                f"{op.name()}() is missing value for argument '{a.name}'. Declaration: {schema}"
            )
    return values


def _split_call(op: OpOverload, values: list) -> tuple[tuple, dict]:
    """The positional and keyword-only arguments a kernel is called with."""
    args, kwargs = [], {}
    for a, v in zip(op._schema.arguments, values):
        if a.kwarg_only:
            kwargs[a.name] = v
        else:
            args.append(v)
    return tuple(args), kwargs


def _tensors(values: list) -> list:
    from .._tensor import Tensor

    found = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(t for t in v if isinstance(t, Tensor))
    return found


# ---- routing a call


def call(op: OpOverload, values: list) -> Any:
    """Run ``op`` on the bound ``values`` as PyTorch's dispatcher would."""
    from ..autograd import grad_mode

    if "implicit" in op.kernels and "autograd" not in op.kernels and op.backward is None:
        args, kwargs = _split_call(op, values)
        return op.kernels["implicit"](*args, **kwargs)
    running = getattr(_below, "ops", set())
    if "autograd" in op.kernels and op not in running:
        _below.ops = running | {op}
        try:
            args, kwargs = _split_call(op, values)
            return op.kernels["autograd"](*args, **kwargs)
        finally:
            _below.ops = running
    needs_grad = grad_mode.is_grad_enabled() and any(t.requires_grad for t in _tensors(values))
    if needs_grad and (op.backward is not None or op.custom is not None) and op._schema.returns:
        return apply_function(op, values)
    if needs_grad and (op.custom is not None or op.backward is not None):
        from ..autograd.grad_mode import no_grad

        with no_grad():
            return below_autograd(op, values)
    out = below_autograd(op, values)
    if needs_grad:
        _warn_at_backward(op, out)
    return out


def _warn_at_backward(op: OpOverload, out: Any) -> None:
    """PyTorch's warning when backward goes through an op with no autograd kernel."""
    from .._tensor import Tensor

    message = _NO_AUTOGRAD_WARNING.format(name=op._schema.name)

    def hook(grad: Any) -> None:
        warnings.warn(message, UserWarning, stacklevel=2)

    for t in out if isinstance(out, (tuple, list)) else (out,):
        if isinstance(t, Tensor) and t.requires_grad:
            t.register_hook(hook)
            return


def below_autograd(op: OpOverload, values: list) -> Any:
    """The device kernel's (or on meta inputs the fake kernel's) result; versions bumped."""
    tensors = _tensors(values)
    meta = any(t.is_meta for t in tensors)
    kernel = _fake_kernel(op) if meta else _device_kernel(op)
    args, kwargs = _split_call(op, values)
    out = kernel(*args, **kwargs)
    if not meta and op.custom is not None:
        _check_aliases(op, kernel, tensors, out)
    if not meta:
        _bump_mutated(op, values)
    return out


def _fake_kernel(op: OpOverload) -> Callable:
    for key in ("meta", "default"):
        if key == "default" and op.custom is not None:
            break  # (a custom op's own function is not run on meta tensors)
        if key in op.kernels:
            return op.kernels[key]
    if op.custom is not None:
        schema = op._schema
        if not schema.returns and any(a.is_write for a in schema.arguments):
            return _no_result  # (it only writes into its inputs: PyTorch's trivial fake impl)
        fn = op.custom._init_fn.__name__
        raise RuntimeError(
            f"There was no fake impl registered for {op.custom!r}. This is necessary for "
            f"torch.compile/export/fx tracing to work. Please use `{fn}.register_fake` to add "
            "an fake impl."
        )
    raise NotImplementedError(
        f"{op._schema.name}: attempted to run this operator with Meta tensors, but there was "
        "no fake impl or Meta kernel registered. You may have run into this message while "
        "using an operator with PT2 compilation APIs (torch.compile/torch.export); in order "
        "to use this operator with those APIs you'll need to add a fake impl. Please see the "
        "following for next steps:  "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


def _no_result(*args: Any, **kwargs: Any) -> None:
    """The fake kernel of a custom op that returns nothing and writes into its inputs:
    on meta tensors there is nothing to compute."""
    return None


def _device_kernel(op: OpOverload) -> Callable:
    for key in ("cpu", "default"):
        if key in op.kernels:
            return op.kernels[key]
    have = sorted(k.upper() if k in ("cpu", "cuda", "meta") else k for k in op.kernels)
    raise NotImplementedError(
        f"Could not run '{op._schema.name}' with arguments from the 'CPU' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        f"selective/custom build process (if using custom build). '{op._schema.name}' is only "
        f"available for these kernels: {have}."
    )


def _check_aliases(op: OpOverload, kernel: Callable, inputs: list, out: Any) -> None:
    outs = _tensors(list(out) if isinstance(out, (tuple, list)) else [out])
    seen = {id(t._data) for t in inputs}
    for t in outs:
        if id(t._data) in seen or any(t._data is s._data for s in inputs):
            module = sys.modules.get(kernel.__module__)
            name = getattr(kernel, "__name__", op._opname)
            raise RuntimeError(_ALIAS_ERROR.format(name=name, module=module))
        seen.add(id(t._data))


def _bump_mutated(op: OpOverload, values: list) -> None:
    """Count one write on each argument the schema says the op mutates."""
    for a, v in zip(op._schema.arguments, values):
        if a.is_write:
            for t in _tensors([v]):
                t._bump()


# ---- the autograd.Function of an op with an autograd formula
#
# The Function's inputs are the op's arguments with each list of tensors spread out (one
# gradient slot per tensor), after a first one naming which arguments were lists; its outputs
# are the op's, a returned list spread out too. Backward gathers the gradients back.


def _spread(values: list) -> tuple[tuple, list]:
    """The flat inputs, and each argument's length where it is a list (else None)."""
    lengths, flat = [], []
    for v in values:
        if isinstance(v, (list, tuple)):
            lengths.append(len(v))
            flat.extend(v)
        else:
            lengths.append(None)
            flat.append(v)
    return tuple(flat), lengths


def _gather(flat: tuple, lengths: list) -> list:
    """The arguments back from ``_spread``'s flat inputs."""
    values, i = [], 0
    for n in lengths:
        if n is None:
            values.append(flat[i])
            i += 1
        else:
            values.append(list(flat[i : i + n]))
            i += n
    return values


def apply_function(op: OpOverload, values: list) -> Any:
    """Run ``op`` through its Function (recording one node for its outputs)."""
    flat, lengths = _spread(values)
    out = _function_of(op).apply(lengths, *flat)
    return list(out) if op._schema.returns[0].type == "Tensor[]" else out


def _function_of(op: OpOverload) -> type:
    """The Function subclass whose node PyTorch names ``GeneratedBackwardFor_ns_op_default``."""
    if op._function is None:
        from ..autograd.function import Function

        def forward(ctx: Any, lengths: list, *flat: Any) -> Any:
            values = _gather(flat, lengths)
            out = below_autograd(op, values)
            if op.setup_context is not None:
                op.setup_context(ctx, tuple(values), out)
            ctx._lib_lengths = lengths
            ctx._lib_list_out = isinstance(out, list)
            return tuple(out) if isinstance(out, list) else out

        def backward(ctx: Any, *grads: Any) -> Any:
            if ctx._lib_list_out:
                grads = (list(grads),)
            result = _run_backward(op, ctx, grads)
            spread = [
                g if n is None else (list(g) if g is not None else [None] * n)
                for g, n in zip(result, ctx._lib_lengths)
            ]
            return (None, *_spread(spread)[0])

        name = f"GeneratedBackwardFor_{op.namespace}_{op._opname}_{op._overloadname}"
        members = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
        op._function = type(name, (Function,), members)
    return op._function


def _run_backward(op: OpOverload, ctx: Any, grads: tuple) -> tuple:
    if op.backward is None:
        raise RuntimeError(
            f"Trying to backward through {op.namespace}.{op._opname}.{op._overloadname} but no "
            "autograd formula was registered. Please use register_autograd to add one."
        )
    result = op.backward(ctx, *grads)
    if not isinstance(result, tuple):
        result = (result,)
    n = len(op._schema.arguments)
    if len(result) == n + 1 and result[n] is not None:  # (PyTorch's hidden last input)
        raise RuntimeError(
            f"function {ctx.name()} returned a gradient different than None at position "
            f"{n + 1}, but the corresponding forward input was not a Variable"
        )
    result = result[:n] if len(result) == n + 1 else result
    if len(result) != n:
        raise RuntimeError(
            f"function {ctx.name()} returned an incorrect number of gradients "
            f"(expected {n + 1}, got {len(result) + 1})"
        )
    return result
