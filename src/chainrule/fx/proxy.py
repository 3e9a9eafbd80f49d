"""``torch.fx.proxy``: Proxy, the stand-in for a value while a program is traced.

Every operation on a Proxy adds a Node to the tracer's Graph and gives a Proxy of the
result: Python operators record ``operator.add`` and the like, attribute reads
``getattr`` and method calls ``call_method``; chainrule's public functions (``torch.*``,
``torch.nn.functional.*``) hand their calls to ``Proxy.__torch_function__``
(``chainrule.overrides``), which records them as ``call_function``.
"""

from __future__ import annotations

import dis
import inspect
import operator
import sys
from collections.abc import Callable, Iterator
from typing import Any

from .. import overrides
from .graph import Graph
from .node import Node, map_aggregate

__all__ = ["Attribute", "GraphAppendingTracer", "Proxy", "TraceError", "TracerBase"]


class TraceError(ValueError):
    """A traced program did what tracing cannot record (control flow on a traced value)."""


# the nn.functional functions that PyTorch writes in Python: traced, their arguments without
# a default are positional and all others keywords, with their defaults filled in
_PYTHON_FUNCTIONAL = frozenset(
    """adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d
    adaptive_max_pool3d affine_grid alpha_dropout batch_norm binary_cross_entropy
    binary_cross_entropy_with_logits celu cosine_embedding_loss cross_entropy ctc_loss dropout
    dropout1d dropout2d dropout3d elu embedding embedding_bag feature_alpha_dropout fold
    fractional_max_pool2d fractional_max_pool3d gaussian_nll_loss glu grid_sample group_norm
    gumbel_softmax hardsigmoid hardswish hardtanh hinge_embedding_loss huber_loss
    instance_norm interpolate kl_div l1_loss layer_norm leaky_relu local_response_norm
    log_softmax lp_pool1d lp_pool2d lp_pool3d margin_ranking_loss max_pool1d max_pool2d
    max_pool3d max_unpool1d max_unpool2d max_unpool3d mish mse_loss
    multi_head_attention_forward multi_margin_loss multilabel_margin_loss
    multilabel_soft_margin_loss nll_loss normalize pad poisson_nll_loss relu relu6 rms_norm
    rrelu selu silu smooth_l1_loss soft_margin_loss softmax softmin softsign tanhshrink
    threshold triplet_margin_loss triplet_margin_with_distance_loss unfold""".split()
)
# nn.functional functions that PyTorch writes as a method call on their input
_METHOD_FUNCTIONAL = frozenset({"sigmoid", "tanh"})

_CONTROL_FLOW = "symbolically traced variables cannot be used as inputs to control flow"
_ITERATION = (
    "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop "
    "or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
    "more detailed explanation of what types of control flow can be traced, and check out "
    "the Proxy docstring for help troubleshooting Proxy iteration errors"
)
_LEN = (
    "'len' is not supported in symbolic tracing by default. If you want this call to be "
    "recorded, please call torch.fx.wrap('len') at module scope"
)


class TracerBase:
    """What a Proxy needs of a tracer: a Graph to add Nodes to, and ``create_arg``."""

    graph: Graph

    def create_node(
        self,
        kind: str,
        target: Any,
        args: tuple,
        kwargs: dict,
        name: str | None = None,
        type_expr: Any | None = None,
    ) -> Node:
        """A Node of the Graph (overridable: every recorded operation passes here)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        """The Proxy of ``node``."""
        return Proxy(node, self)

    def create_proxy(
        self,
        kind: str,
        target: Any,
        args: tuple,
        kwargs: dict,
        name: str | None = None,
        type_expr: Any | None = None,
        proxy_factory_fn: Callable[[Node], Proxy] | None = None,
    ) -> Proxy:
        """Record an operation (its arguments through ``create_arg``) and give its Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any) -> Any:
        """``a`` as a Node argument: Proxies become their Nodes."""
        return map_aggregate(a, lambda x: x.node if isinstance(x, Proxy) else x)

    def to_bool(self, obj: Proxy) -> bool:
        """A Proxy used as a condition: not traceable."""
        raise TraceError(_CONTROL_FLOW)

    def iter(self, obj: Proxy) -> Iterator:
        """A Proxy iterated: not traceable."""
        raise TraceError(_ITERATION)

    def keys(self, obj: Proxy) -> Any:
        """A Proxy unpacked with ``**``: records ``keys()``."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to ``graph`` (for Proxies made from a Graph's Nodes)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph


def _find_tracer(values: Any) -> TracerBase | None:
    found: list[TracerBase] = []

    def look(x: Any) -> Any:
        if isinstance(x, Proxy) and not found:
            found.append(x.tracer)
        return x

    map_aggregate(values, look)
    return found[0] if found else None


_dispatch_was_on = overrides._state.classes or overrides._state.enabled


class Proxy:
    """A traced value: operations on it are recorded as Nodes of its tracer's Graph."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        self.tracer = tracer if tracer is not None else GraphAppendingTracer(node.graph)
        self.node = node
        if not overrides._state.classes:  # (dispatch was reset since Proxy was defined)
            overrides._class_defined(Proxy)

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self) -> Iterator:
        frame = sys._getframe(1)
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self) -> int:
        raise RuntimeError(_LEN)

    def keys(self) -> Any:
        """``**proxy``: recorded as ``keys()``."""
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(
        cls, orig_method: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        """A chainrule function called on Proxies: recorded as PyTorch records it."""
        args = tuple(args)
        kwargs = dict(kwargs or {})
        tracer = _find_tracer((args, kwargs))
        if tracer is None:
            return NotImplemented
        name = overrides.resolve_name(orig_method) or ""
        if name.startswith("torch.Tensor."):
            method = name[len("torch.Tensor.") :]
            if method.endswith(".__get__"):
                return tracer.create_proxy(
                    "call_function", getattr, (args[0], method[: -len(".__get__")]), {}
                )
            return tracer.create_proxy("call_method", method, args, kwargs)
        short = name.rsplit(".", 1)[-1]
        if name.startswith("torch.nn.functional."):
            if short in _METHOD_FUNCTIONAL:
                return tracer.create_proxy("call_method", short, args, kwargs)
            if short in _PYTHON_FUNCTIONAL:
                args, kwargs = _as_pytorch_calls(orig_method, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs)


def _as_pytorch_calls(fn: Callable, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments of a Python nn.functional call as PyTorch passes them on: those
    without a default positional, then every other one by keyword."""
    sig = inspect.signature(getattr(fn, "_plain", fn))
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return args, kwargs
    bound.apply_defaults()
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    for p in sig.parameters.values():
        value = bound.arguments[p.name]
        if p.kind is p.VAR_POSITIONAL:
            positional.extend(value)
        elif p.kind is p.VAR_KEYWORD:
            keywords.update(value)
        elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
            positional.append(value)
        else:
            keywords[p.name] = value
    return tuple(positional), keywords


if not _dispatch_was_on:  # importing torch.fx costs nothing: tracing turns dispatch on
    overrides._state.classes = False
    overrides._restore()


class Attribute(Proxy):
    """``proxy.name``: a method when called (``call_method``), else ``getattr``, recorded
    when first used."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:  # type: ignore[override]
        """The ``getattr`` Node (recorded on first use)."""
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


# ----- the operators ---------------------------------------------------------------------------

_MAGIC = (
    "add sub mul floordiv truediv mod pow lshift rshift and_ or_ xor getitem matmul "
    "eq ne lt gt le ge"
).split()
_REFLECTABLE = "add sub mul floordiv truediv mod pow lshift rshift and_ or_ xor matmul".split()
_UNARY = ("neg", "pos", "invert", "abs")


def _dunder(name: str) -> str:
    return f"__{name.rstrip('_')}__"


def _binary(fn: Callable) -> Callable:
    def magic(self: Proxy, other: Any) -> Proxy:
        return self.tracer.create_proxy("call_function", fn, (self, other), {})

    return magic


def _reflected(fn: Callable) -> Callable:
    def magic(self: Proxy, other: Any) -> Proxy:
        return self.tracer.create_proxy("call_function", fn, (other, self), {})

    return magic


def _unary(fn: Callable) -> Callable:
    def magic(self: Proxy) -> Proxy:
        return self.tracer.create_proxy("call_function", fn, (self,), {})

    return magic


for _name in _MAGIC:
    setattr(Proxy, _dunder(_name), _binary(getattr(operator, _name)))
for _name in _REFLECTABLE:
    setattr(Proxy, "__r" + _dunder(_name)[2:], _reflected(getattr(operator, _name)))
for _name in _UNARY:
    setattr(Proxy, _dunder(_name), _unary(getattr(operator, _name)))
