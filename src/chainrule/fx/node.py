"""``torch.fx.node``: a Node, one operation of a Graph, and the helpers that walk arguments.

A Node has an ``op`` (placeholder, get_attr, call_function, call_method, call_module,
output), a ``target`` (a name or a callable), ``args``/``kwargs`` that may hold other
Nodes (its inputs), and ``users`` (the Nodes that take it as an input). Nodes are kept in
a doubly linked list owned by their Graph.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

Argument = Any
Target = Any

# functions whose calls are kept by eliminate_dead_code though nothing uses their result
_side_effectful_functions: set[Callable] = set()


def has_side_effect(fn: Callable) -> Callable:
    """Mark ``fn`` as having a side effect: its nodes are never dead code."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a: Argument, fn: Callable[[Argument], Argument]) -> Argument:
    """``fn`` applied to every leaf of ``a`` (through tuples, lists, dicts and slices)."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(x, fn) for x in a)
        return type(a)(*mapped) if hasattr(a, "_fields") else mapped
    if isinstance(a, list):
        return [map_aggregate(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(
            map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn)
        )
    return fn(a)


def map_arg(a: Argument, fn: Callable[[Node], Argument]) -> Argument:
    """``fn`` applied to every Node in ``a``."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _type_repr(t: Any) -> str:
    """How a type annotation is written in code and graphs (``float``, ``torch.Tensor``)."""
    if isinstance(t, type):
        if t.__module__ == "builtins":
            return t.__qualname__
        return f"{_torch_module(t.__module__)}.{t.__qualname__}"
    return repr(t).replace("chainrule._tensor.", "torch.").replace("chainrule.", "torch.")


def _torch_module(module: str) -> str:
    """chainrule's modules under PyTorch's names."""
    if module == "chainrule._tensor":
        return "torch"
    if module == "chainrule" or module.startswith("chainrule."):
        return "torch" + module[len("chainrule") :]
    return module


def _get_qualified_name(func: Callable) -> str:
    """PyTorch's dotted name of a function: ``torch.relu``, ``operator.add``,
    ``builtins.getattr``, ``__main__.my_func``."""
    if getattr(builtins, getattr(func, "__name__", ""), None) is func:
        return f"builtins.{func.__name__}"
    if getattr(operator, getattr(func, "__name__", ""), None) is func:
        return f"operator.{func.__name__}"
    from .. import overrides

    name = overrides.resolve_name(func)
    if name is not None:
        return _functional_home(name)
    if func is _assert_fn():
        return "torch._assert"
    module = _torch_module(getattr(func, "__module__", None) or "")
    return f"{module}.{func.__qualname__}"


# nn.functional functions that are PyTorch's C++ functions, by where PyTorch keeps them
_F_IN_TORCH = frozenset(
    """adaptive_avg_pool1d avg_pool1d bilinear celu_ channel_shuffle conv1d conv2d conv3d
    conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d cosine_similarity hardshrink
    native_channel_shuffle pairwise_distance pdist pixel_shuffle pixel_unshuffle prelu relu_
    rrelu_ selu_ threshold_""".split()
)
_F_IN_C_NN = {
    **{
        n: n
        for n in """avg_pool2d avg_pool3d elu_ gelu hardtanh_ leaky_relu_ linear one_hot
        scaled_dot_product_attention softplus softshrink""".split()
    },
    "logsigmoid": "log_sigmoid",
}


def _functional_home(name: str) -> str:
    """``torch.nn.functional.gelu`` under PyTorch's name for it (``torch._C._nn.gelu``)."""
    space, _, short = name.rpartition(".")
    if space != "torch.nn.functional":
        return name
    if short in _F_IN_TORCH:
        return f"torch.{short}"
    if short in _F_IN_C_NN:
        return f"torch._C._nn.{_F_IN_C_NN[short]}"
    return name


def _assert_fn() -> Callable:
    from .graph import _assert

    return _assert


def _pretty_target(target: Target) -> str:
    return target if isinstance(target, str) else _get_qualified_name(target)


def _format_arg(arg: Argument) -> str:
    """An argument as a graph prints it (``%x`` for a Node, strings bare)."""
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation of a :class:`~chainrule.fx.Graph`."""

    def __init__(
        self,
        graph: Any,
        name: str,
        op: str,
        target: Target,
        args: tuple,
        kwargs: dict,
        return_type: Any | None = None,
    ) -> None:
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._update_args_kwargs(args, kwargs)

    # ----- the list ------------------------------------------------------------------

    @property
    def next(self) -> Node:
        """The Node after this one."""
        return self._next

    @property
    def prev(self) -> Node:
        """The Node before this one."""
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move ``x`` to just before this Node."""
        if self == x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move ``x`` to just after this Node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # ----- arguments and uses -----------------------------------------------------------

    @property
    def args(self) -> tuple:
        """The positional arguments (Nodes among them are inputs)."""
        return self._args

    @args.setter
    def args(self, a: tuple) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments (Nodes among them are inputs)."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list[Node]:
        """The Nodes among ``args`` and ``kwargs``, in order, each once."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args: tuple, new_kwargs: dict) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = map_arg(tuple(new_args), self._note_input)
        self._kwargs = map_arg(dict(new_kwargs), self._note_input)
        for n in self._input_nodes:
            n.users.setdefault(self, None)

    def _note_input(self, n: Node) -> Node:
        self._input_nodes.setdefault(n, None)
        return n

    def update_arg(self, idx: int, arg: Argument) -> None:
        """Set ``args[idx]``."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg: Argument) -> None:
        """Set ``kwargs[key]``."""
        self.kwargs = {**self.kwargs, key: arg}

    def replace_all_uses_with(
        self,
        replace_with: Node,
        delete_user_cb: Callable[[Node], bool] | None = None,
        *,
        propagate_meta: bool = False,
    ) -> list[Node]:
        """Make every user (those ``delete_user_cb`` accepts) take ``replace_with`` in place
        of this Node; the users changed."""
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        changed = [u for u in list(self.users) if delete_user_cb is None or delete_user_cb(u)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Put ``new_input`` wherever ``old_input`` is among the arguments."""

        def swap(n: Node) -> Node:
            return new_input if n is old_input else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ----- purity ---------------------------------------------------------------------

    def is_impure(self) -> bool:
        """Whether removing this Node could change what the program does (placeholders,
        the output, calls of side-effectful functions, impure modules)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        if self.op == "call_module" and self.graph.owning_module is not None:
            module = self.graph.owning_module.get_submodule(self.target)
            return bool(getattr(module, "_is_impure", False))
        return False

    # ----- printing --------------------------------------------------------------------

    def format_node(self) -> str:
        """This Node as a line of the printed Graph."""
        if self.op == "output":
            return f"return {self.args[0]}"
        type_str = f"{_type_repr(self.type)} " if self.type is not None else ""
        head = f"%{self.name} : {type_str}[num_users={len(self.users)}] = "
        head += f"{self.op}[target={_pretty_target(self.target)}]"
        if self.op == "placeholder":
            return head + (f"(default={self.args[0]})" if self.args else "")
        if self.op == "get_attr":
            return head
        return head + f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"

    def __repr__(self) -> str:
        return self.name
