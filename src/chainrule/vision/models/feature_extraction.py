"""``torchvision.models.feature_extraction``: the intermediate values of a model, by name.

A model is traced with :mod:`chainrule.fx` twice, in train and in eval mode. Each node of
the graph gets a name from where it was made: a leaf module's call is the module's dotted
path (``layer1.0.conv1``), an operation inside a module's ``forward`` the module's path
and the operation (``layer1.0.add``), and a name made twice gets ``_1``, ``_2``, ... (a
trailing ``_<digits>`` of a name is read as such a count: a module ``fc_1`` is named
``fc``, as torchvision does). :func:`create_feature_extractor` returns a GraphModule
whose output is a dict of the nodes asked for; a name that is a module's path asks for
the last node made inside it (the module's output).
"""

from __future__ import annotations

import math
import re
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ... import fx, nn
from ...fx.graph_module import _copy_attr

__all__ = ["create_feature_extractor", "get_graph_node_names"]

_COUNT = re.compile(r"_\d+$")


class LeafModuleAwareTracer(fx.Tracer):
    """An FX tracer that also records the modules of ``leaf_modules`` (classes) as one
    ``call_module`` each."""

    def __init__(self, *args: Any, leaf_modules: list[type] | None = None, **kwargs: Any) -> None:
        self.leaf_modules = list(leaf_modules or [])
        super().__init__(*args, **kwargs)

    def is_leaf_module(self, m: nn.Module, module_qualname: str) -> bool:
        if isinstance(m, tuple(self.leaf_modules)):
            return True
        return super().is_leaf_module(m, module_qualname)


class NodePathTracer(LeafModuleAwareTracer):
    """Names each node by the module it was made in (``node_to_qualname``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.current_module_qualname = ""
        self.node_to_qualname: OrderedDict[fx.Node, str] = OrderedDict()
        self._counts: dict[str, int] = {}

    def call_module(
        self, m: nn.Module, forward: Callable[..., Any], args: tuple, kwargs: dict
    ) -> Any:
        outer = self.current_module_qualname
        try:
            self.current_module_qualname = self.path_of_module(m)
            if not self.is_leaf_module(m, self.current_module_qualname):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", self.current_module_qualname, args, kwargs)
        finally:
            self.current_module_qualname = outer

    def create_proxy(
        self, kind: str, target: Any, args: tuple, kwargs: dict, *rest: Any, **more: Any
    ) -> Any:
        proxy = super().create_proxy(kind, target, args, kwargs, *rest, **more)
        self.node_to_qualname[proxy.node] = self._qualname(proxy.node)
        return proxy

    def _qualname(self, node: fx.Node) -> str:
        """The node's name: its module's path, with the operation's name unless the node
        is that module's call; ``_k`` added for the k-th repeat."""
        name = self.current_module_qualname
        if node.op != "call_module":
            name = f"{name}.{node.name}" if name else node.name
        base = _COUNT.sub("", name)
        seen = self._counts.get(base)
        self._counts[base] = 0 if seen is None else seen + 1
        return base if seen is None else f"{base}_{seen + 1}"


def _ops_leaf_modules() -> list[type]:
    """torchvision.ops' module classes, which torchvision keeps whole when tracing."""
    from .. import ops

    found = []
    for name in ops.__all__:
        try:
            value = getattr(ops, name)
        except NotImplementedError:
            continue
        if isinstance(value, type) and issubclass(value, nn.Module):
            found.append(value)
    return found


def _tracer_kwargs(given: dict[str, Any] | None) -> dict[str, Any]:
    """``tracer_kwargs`` with torchvision's defaults added: ``math`` and ``torchvision.ops``
    autowrapped, torchvision.ops' modules as leaves."""
    from .. import ops

    kwargs = dict(given or {})
    wrap = (math, ops)
    kwargs["autowrap_modules"] = (
        tuple(set(kwargs.get("autowrap_modules", ()) + wrap))
        if "autowrap_modules" in kwargs
        else wrap
    )
    leaves = _ops_leaf_modules()
    kwargs["leaf_modules"] = (
        list(set(kwargs["leaf_modules"] + leaves)) if "leaf_modules" in kwargs else leaves
    )
    return kwargs


def _trace(
    model: nn.Module, training: bool, tracer_kwargs: dict[str, Any], concrete_args: Any
) -> tuple[NodePathTracer, fx.Graph]:
    model.train(training)
    tracer = NodePathTracer(**tracer_kwargs)
    return tracer, tracer.trace(model, concrete_args=concrete_args)


def _is_subsequence(longer: list[str], shorter: list[str]) -> bool:
    rest = iter(longer)
    return all(any(item == other for other in rest) for item in shorter)


def _warn_differences(train: list[str], eval_: list[str]) -> None:
    if train == eval_:
        return
    if _is_subsequence(train, eval_):
        note = "NOTE: The nodes obtained by tracing the model in eval mode are a subsequence of those obtained in train mode. "
    elif _is_subsequence(eval_, train):
        note = "NOTE: The nodes obtained by tracing the model in train mode are a subsequence of those obtained in eval mode. "
    else:
        note = "The nodes obtained by tracing the model in train mode are different to those obtained in eval mode. "
    warnings.warn(
        note
        + "When choosing nodes for feature extraction, you may need to specify output nodes for train and eval mode separately.",
        stacklevel=3,
    )


def get_graph_node_names(
    model: nn.Module,
    tracer_kwargs: dict[str, Any] | None = None,
    suppress_diff_warning: bool = False,
    concrete_args: dict[str, Any] | None = None,
) -> tuple[list[str], list[str]]:
    """The node names of ``model``'s graph in train mode and in eval mode (the names
    :func:`create_feature_extractor` takes)."""
    kwargs = _tracer_kwargs(tracer_kwargs)
    training = model.training
    try:
        train_tracer, _ = _trace(model, True, kwargs, concrete_args)
        eval_tracer, _ = _trace(model, False, kwargs, concrete_args)
    finally:
        model.train(training)
    train = list(train_tracer.node_to_qualname.values())
    eval_ = list(eval_tracer.node_to_qualname.values())
    if not suppress_diff_warning:
        _warn_differences(train, eval_)
    return train, eval_


class DualGraphModule(fx.GraphModule):
    """A GraphModule with one graph for train mode and one for eval mode: ``train()`` and
    ``eval()`` switch between them."""

    def __init__(
        self,
        root: nn.Module,
        train_graph: fx.Graph,
        eval_graph: fx.Graph,
        class_name: str = "GraphModule",
    ) -> None:
        nn.Module.__init__(self)
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        for graph in (train_graph, eval_graph):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if not isinstance(node.target, str):
                        raise TypeError(
                            f"node.target should be of type str instead of {type(node.target)}"
                        )
                    _copy_attr(root, self, node.target)
        self.train_graph = train_graph
        self.eval_graph = eval_graph
        self.graph = train_graph

    def train(self, mode: bool = True) -> DualGraphModule:
        """Train mode runs the train graph, eval mode the eval graph."""
        if mode != self.training or self.graph is not (
            self.train_graph if mode else self.eval_graph
        ):
            self.graph = self.train_graph if mode else self.eval_graph
        return super().train(mode)


def _as_names(nodes: list[str] | dict[str, str]) -> dict[str, str]:
    if isinstance(nodes, list):
        return {str(n): str(n) for n in nodes}
    return {str(k): str(v) for k, v in nodes.items()}


def _check_present(queries: dict[str, str], available: list[str]) -> None:
    for query in queries:
        if not any(n == query or n.startswith(query + ".") for n in available):
            raise ValueError(
                f"node: '{query}' is not present in model. Hint: use `get_graph_node_names` to make "
                "sure the `return_nodes` you specified are present. It may even be that you need to "
                "specify `train_return_nodes` and `eval_return_nodes` separately."
            )


def _with_outputs(graph: fx.Graph, tracer: NodePathTracer, queries: dict[str, str]) -> None:
    """Replace ``graph``'s output by a dict of the nodes asked for (the last node under
    each name), and drop what nothing then uses."""
    for node in [n for n in graph.nodes if n.op == "output"]:
        graph.erase_node(node)
    nodes = list(graph.nodes)
    pending = dict(queries)
    found: list[tuple[str, fx.Node]] = []
    for node in reversed(nodes):
        qualname = tracer.node_to_qualname.get(node)
        if qualname is None:
            continue
        for query, out_name in pending.items():
            if qualname == query or qualname.startswith(query + "."):
                found.append((out_name, node))
                del pending[query]
                break
    with graph.inserting_after(nodes[-1]):
        graph.output(dict(reversed(found)))
    graph.eliminate_dead_code()


def create_feature_extractor(
    model: nn.Module,
    return_nodes: list[str] | dict[str, str] | None = None,
    train_return_nodes: list[str] | dict[str, str] | None = None,
    eval_return_nodes: list[str] | dict[str, str] | None = None,
    tracer_kwargs: dict[str, Any] | None = None,
    suppress_diff_warning: bool = False,
    concrete_args: dict[str, Any] | None = None,
) -> fx.GraphModule:
    """A GraphModule computing ``model`` up to the nodes named (``{name: output key}`` or a
    list of names), returning them as a dict."""
    if return_nodes is None and train_return_nodes is None and eval_return_nodes is None:
        raise ValueError(
            "Either `return_nodes` or `train_return_nodes` and `eval_return_nodes` together, should be specified"
        )
    if (train_return_nodes is None) != (eval_return_nodes is None):
        raise ValueError(
            "If any of `train_return_nodes` and `eval_return_nodes` are specified, then both should be specified"
        )
    if (return_nodes is None) == (train_return_nodes is None):
        raise ValueError(
            "If `train_return_nodes` and `eval_return_nodes` are specified, then both should be specified"
        )
    if return_nodes is not None:
        queries = {"train": _as_names(return_nodes), "eval": _as_names(return_nodes)}
    else:
        assert train_return_nodes is not None and eval_return_nodes is not None
        queries = {"train": _as_names(train_return_nodes), "eval": _as_names(eval_return_nodes)}
    kwargs = _tracer_kwargs(tracer_kwargs)
    training = model.training
    name = type(model).__name__
    tracers: dict[str, NodePathTracer] = {}
    graphs: dict[str, fx.Graph] = {}
    try:
        for mode in ("train", "eval"):
            tracer, graph = _trace(model, mode == "train", kwargs, concrete_args)
            available = list(tracer.node_to_qualname.values())
            _check_present(queries[mode], available)
            _with_outputs(graph, tracer, queries[mode])
            tracers[mode], graphs[mode] = tracer, graph
    finally:
        model.train(training)
    if not suppress_diff_warning:
        _warn_differences(
            list(tracers["train"].node_to_qualname.values()),
            list(tracers["eval"].node_to_qualname.values()),
        )
    module = DualGraphModule(model, graphs["train"], graphs["eval"], class_name=name)
    module.train(training)
    return module
