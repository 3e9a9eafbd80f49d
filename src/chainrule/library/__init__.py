"""Custom operators: ``torch.library`` (``custom_op``, ``Library``, ``torch.ops.<ns>``).

What exists, as in PyTorch 2.13: ``custom_op`` (a decorator giving a ``CustomOpDef``, its
schema from ``infer_schema`` or given), ``register_autograd``, ``register_fake`` (run for
``device="meta"`` inputs), ``register_kernel`` (per device type: only "cpu" runs),
``opcheck`` (a short version), ``infer_schema``; the older ``Library(ns, kind)`` with
``define`` (PyTorch's schema language: ``Tensor?``, ``Tensor[]``, ``Tensor(a!)``, defaults,
keyword-only arguments, overload names) and ``impl`` under the keys CPU, Meta,
CompositeExplicitAutograd, CompositeImplicitAutograd and Autograd, and the functions
``define`` and ``impl``. Every operator is reachable as ``torch.ops.<ns>.<op>`` (calling
``.default``) and ``torch.ops.<ns>.<op>.<overload>``.

How it differs: there is no dispatcher and no dispatch keys. Each operator keeps its
kernels in a dict and a call is routed in PyTorch's order (see ``_ops``): a
CompositeImplicitAutograd kernel runs as it is, an Autograd kernel next (its own call of
the op goes below autograd, as ``_AutoDispatchBelowAutograd`` would), an autograd formula
wraps the rest in an ``autograd.Function`` (its node is ``GeneratedBackwardFor_ns_op_default
Backward``, and a custom op without one raises at backward, as PyTorch does), and below
autograd meta inputs take the fake kernel and others the CPU kernel; an argument the schema
marks as written (``Tensor(a!)``, ``mutates_args``) has its version counter bumped once
after the kernel. A ``Library`` op with only a CPU kernel records the kernel's own ops and
warns when backward reaches it, as PyTorch's fallback does. Not supported: other devices and dispatch keys (Python, Functionalize,
autocast, vmap, ``register_torch_dispatch``), ``torch.compile``/``triton_op``, ``get_ctx``
(data-dependent fake shapes), tags, ``Library("aten", ...)`` (``torch.ops.aten`` holds the
overloads chainrule.export runs); a ``Library`` does not remove its
operators when it is deleted; ``opcheck`` only checks that the op runs and that the fake
kernel gives the real output's shapes and dtypes (test_autograd_registration and
test_aot_dispatch_dynamic always succeed); error messages that list PyTorch's valid types
or dispatch keys list chainrule's instead, and messages that quote a signature print
chainrule's Tensor; a ``ScalarType`` default prints as its name, not PyTorch's enum number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import _ops
from ._ops import OpOverload, OpOverloadPacket
from ._schema import infer_schema, parse

__all__ = [
    "CustomOpDef",
    "Library",
    "OpCheckError",
    "OpOverload",
    "OpOverloadPacket",
    "custom_op",
    "define",
    "fallthrough_kernel",
    "impl",
    "impl_abstract",
    "infer_schema",
    "opcheck",
    "register_autograd",
    "register_fake",
    "register_kernel",
]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEF_NAMESPACES: set[str] = set()
_DEVICES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta "
    "hpu mtia privateuseone"
).split()
# dispatch keys (and device types) -> the kernel slot of ``_ops.OpOverload.kernels``
_KEYS = {
    "CPU": "cpu",
    "CUDA": "cuda",
    "Meta": "meta",
    "CompositeExplicitAutograd": "default",
    "CompositeImplicitAutograd": "implicit",
    "Autograd": "autograd",
    "AutogradCPU": "autograd",
    "": "implicit",
    "default": "default",
}


def fallthrough_kernel() -> None:
    """A kernel that does nothing (PyTorch's marker for keys to skip); never called here."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


class Library:
    """A namespace's operators: ``kind`` is DEF (the one definition block), FRAGMENT (more
    definitions) or IMPL (kernels only)."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF" and ns in _DEF_NAMESPACES:
            raise RuntimeError(
                f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                "please put all of your definitions in a single TORCH_LIBRARY block.  If you "
                "were trying to specify implementations, consider using TORCH_LIBRARY_IMPL "
                "(which can be duplicated).  If you really intended to define operators for a "
                "single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to "
                "explicitly indicate this."
            )
        if kind == "DEF":
            _DEF_NAMESPACES.add(ns)
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Define an operator from a schema string; returns its name."""
        parsed = parse(schema, self.ns)
        name = parsed.name.split("::")[1]
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL '
                "block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for "
                "their namespace."
            )
        _ops.register(parsed)
        return name

    def impl(
        self,
        op_name: Any,
        fn: Callable,
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = True,
    ) -> None:
        """Register ``fn`` as the op's kernel for ``dispatch_key``."""
        key = dispatch_key or self.dispatch_key
        if key not in _KEYS:
            raise ValueError(f"chainrule does not support the dispatch key {key!r}")
        if isinstance(op_name, OpOverload):
            op_name = op_name.name()
        name = op_name if "::" in op_name else f"{self.ns}::{op_name}"
        try:
            _ops.lookup(name).kernels[_KEYS[key]] = fn
        except RuntimeError:  # (not defined yet: the kernel waits for its definition)
            _ops.PENDING.setdefault(name, {})[_KEYS[key]] = fn

    def _destroy(self) -> None:
        """(Kept for PyTorch's API: chainrule keeps the operators.)"""


def _op_of(op: Any, through_ops: bool = False) -> OpOverload:
    """The overload named by a string, an OpOverload, a packet or a CustomOpDef."""
    if isinstance(op, CustomOpDef):
        return op._opoverload
    if isinstance(op, OpOverloadPacket):
        return op.default
    if isinstance(op, OpOverload):
        return op
    return _ops.lookup(op, through_ops)


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Any = ()) -> None:
    """Define the operator ``ns::name`` with ``schema`` (its arguments and returns)."""
    ns, name = qualname.split("::")
    (lib or Library(ns, "FRAGMENT")).define(name + schema, tags=tags)


def _slot(types: str) -> str:
    """The kernel slot of a device type (``cpu``) or dispatch key (``CPU``)."""
    if types in _KEYS:
        return _KEYS[types]
    device = types.split(":")[0]
    if device not in _DEVICES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICES)} device type at start of device string: {types}"
        )
    return device


def impl(qualname: Any, types: Any, func: Callable | None = None, *, lib: Any = None) -> Any:
    """Register a kernel: ``impl("ns::op", "cpu", fn)`` or ``impl(lib, "op", "CPU")``
    (as a decorator when ``func`` is left out)."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func

        def register_lib(fn: Callable) -> Callable:
            library.impl(name, fn, key or "")
            return fn

        return register_lib
    keys = [types] if isinstance(types, str) else list(types)

    def register(fn: Callable) -> Callable:
        op = _ops.lookup(qualname)
        for key in keys:
            op.kernels[_slot(key)] = fn
        return fn

    return register if func is None else register(func)


def register_kernel(
    op: Any, device_types: Any, func: Callable | None = None, /, *, lib: Any = None
) -> Any:
    """Register ``func`` as the op's kernel on ``device_types`` (None: every device)."""
    overload = _op_of(op)
    keys = ["default"] if device_types is None else _device_list(device_types)

    def register(fn: Callable) -> Callable:
        for key in keys:
            overload.kernels[key if key == "default" else _slot(key)] = fn
        return fn

    return register if func is None else register(func)


def _device_list(device_types: Any) -> list[str]:
    return [device_types] if isinstance(device_types, str) else list(device_types)


def register_fake(
    op: Any,
    func: Callable | None = None,
    /,
    *,
    lib: Any = None,
    _stacklevel: int = 1,
    allow_override: bool = True,
) -> Any:
    """Register the fake kernel: the op on meta tensors (shapes and dtypes only)."""
    overload = _op_of(op)

    def register(fn: Callable) -> Callable:
        overload.kernels["meta"] = fn
        return fn

    return register if func is None else register(func)


impl_abstract = register_fake


def register_autograd(
    op: Any, backward: Callable, /, *, setup_context: Callable | None = None, lib: Any = None
) -> None:
    """Give the op a backward formula: ``backward(ctx, *grads)`` returns one gradient per
    input; ``setup_context(ctx, inputs, output)`` saves what it needs."""
    overload = _op_of(op, through_ops=True)
    overload.backward = backward
    overload.setup_context = setup_context


class CustomOpDef:
    """An operator made by ``custom_op``: call it, or register its kernels on it."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable) -> None:
        self._namespace = namespace
        self._name = name
        self._init_fn = fn
        self._qualname = f"{namespace}::{name}"
        self._opoverload = _ops.register(parse(name + schema, namespace), replace=True)
        self._opoverload.custom = self
        self._schema = schema

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types: Any, fn: Callable | None = None, /) -> Callable:
        """Register ``fn`` as the kernel for ``device_types`` (as a decorator without fn)."""
        return register_kernel(self, device_types, fn)

    def register_fake(self, fn: Callable, /) -> Callable:
        """Register the fake kernel (run on meta tensors)."""
        return register_fake(self, fn)

    def register_autograd(
        self, backward: Callable, /, *, setup_context: Callable | None = None
    ) -> None:
        """Give the op its backward formula (see ``torch.library.register_autograd``)."""
        register_autograd(self, backward, setup_context=setup_context)


def custom_op(
    name: str,
    fn: Callable | None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: str | Sequence[str] | None = None,
    schema: str | None = None,
    tags: Any = None,
) -> Any:
    """Make ``fn`` the operator ``ns::name`` (as a decorator when ``fn`` is left out)."""

    def make(func: Callable) -> CustomOpDef:
        text = schema
        if text is None:
            text = infer_schema(func, mutates_args=mutates_args)
        namespace, opname = name.split("::")
        op = CustomOpDef(namespace, opname, text, func)
        op.register_kernel(device_types, func)
        return op

    return make if fn is None else make(fn)


class OpCheckError(Exception):
    """A check of ``opcheck`` failed."""


def _meta_copy(value: Any) -> Any:
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        return value.detach().to("meta").requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_meta_copy(v) for v in value)
    return value


def _clone(value: Any) -> Any:
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    return value


def _outputs(out: Any) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _test_faketensor(op: OpOverload, args: tuple, kwargs: dict) -> None:
    real = _outputs(op(*_clone(args), **kwargs))
    fake = _outputs(op(*_meta_copy(args), **kwargs))
    for r, f in zip(real, fake):
        if getattr(r, "shape", None) != getattr(f, "shape", None) or getattr(
            r, "dtype", None
        ) != getattr(f, "dtype", None):
            raise RuntimeError(
                f"fake kernel gave shape {f.shape} and dtype {f.dtype}, the real kernel "
                f"shape {r.shape} and dtype {r.dtype}"
            )


def opcheck(
    op: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    test_utils: str | Sequence[str] = (
        "test_schema",
        "test_autograd_registration",
        "test_faketensor",
        "test_aot_dispatch_dynamic",
    ),
    raise_exception: bool = True,
    atol: Any = None,
    rtol: Any = None,
) -> dict[str, str]:
    """Run the op's checks; ``{check: "SUCCESS"}``, or OpCheckError on the first failure."""
    overload = _op_of(op)
    kwargs = kwargs or {}
    tests = {
        "test_schema": lambda: overload(*_clone(args), **kwargs),
        "test_autograd_registration": lambda: None,
        "test_faketensor": lambda: _test_faketensor(overload, args, kwargs),
        "test_aot_dispatch_dynamic": lambda: None,
    }
    results = {}
    for name in [test_utils] if isinstance(test_utils, str) else test_utils:
        try:
            tests[name]()
            results[name] = "SUCCESS"
        except Exception as exc:
            if raise_exception:
                raise OpCheckError(
                    f"opcheck(op, ...): {name} failed with {exc} (scroll up for stack trace)"
                ) from exc
            results[name] = exc  # type: ignore[assignment]
    return results
