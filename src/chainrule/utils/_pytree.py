"""``torch.utils._pytree``: nested containers (pytrees) taken apart into a flat list of leaves
and a :class:`TreeSpec` that puts them back together.

A pytree is a node of a registered type (tuple, list, dict, namedtuple, OrderedDict,
defaultdict, deque, ``torch.Size``, ``torch.return_types.*``, or a class given to
:func:`register_pytree_node`) whose children are pytrees; anything else (a tensor, a number,
None) is a leaf. Leaves come out depth first, children in the order of their container: a
dict's insertion order. ``treespec_dumps``/``treespec_loads`` write and read PyTorch's JSON
format (protocol 1).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .._tensor import Size

__all__ = [
    "PyTree",
    "Context",
    "FlattenFn",
    "UnflattenFn",
    "PyTreeSpec",
    "DumpableContext",
    "ToDumpableContextFn",
    "FromDumpableContextFn",
    "TreeSpec",
    "LeafSpec",
    "keystr",
    "key_get",
    "register_pytree_node",
    "tree_is_leaf",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_unflatten",
    "tree_iter",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_structure",
    "tree_map",
    "tree_map_with_path",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_all",
    "tree_any",
    "tree_all_only",
    "tree_any_only",
    "treespec_dumps",
    "treespec_loads",
    "treespec_pprint",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
    "is_structseq",
    "is_structseq_class",
    "is_structseq_instance",
]

PyTree = Any
Context = Any
KeyEntry = Any
KeyPath = tuple[KeyEntry, ...]
FlattenFunc = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFunc = Callable[[Iterable[Any], Context], PyTree]
FlattenFn, UnflattenFn = FlattenFunc, UnflattenFunc
FlattenWithKeysFunc = Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Context]]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
IsLeaf = Callable[[PyTree], bool] | None

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
_SUPPORTED_PROTOCOLS = {1}
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class NodeDef(NamedTuple):
    """How a registered node type comes apart (``flatten_fn``) and goes back together."""

    type: type
    flatten_fn: FlattenFunc
    unflatten_fn: UnflattenFunc
    flatten_with_keys_fn: FlattenWithKeysFunc | None


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


SUPPORTED_NODES: dict[Any, NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[Any, _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, Any] = {}
_NODE_REGISTRY_LOCK = threading.Lock()

# the node types whose mismatches flatten_up_to reports as "Node type mismatch"; the dict
# kinds stand in for one another there
BUILTIN_TYPES = {tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque}
STANDARD_DICT_TYPES = {dict, OrderedDict, defaultdict}


# ----- keys: one step of a path from the root to a leaf ----------------------------------


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The position ``idx`` in a sequence: prints as ``[idx]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Any) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """The key ``key`` of a mapping: prints as ``[key]`` (the key's repr)."""

    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The attribute ``name``: prints as ``.name``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def keystr(kp: KeyPath) -> str:
    """The path ``kp`` as Python source would write it after the root: ``['a'][0].x``."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: KeyPath) -> Any:
    """The value at the end of path ``kp`` from ``obj``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ----- namedtuples and structseqs ----------------------------------------------------------


def is_structseq_class(cls: type) -> bool:
    """A struct sequence class: C's PyStructSequence, or a ``torch.return_types`` tuple."""
    if not (isinstance(cls, type) and issubclass(cls, tuple)):
        return False
    if cls.__module__ == "torch.return_types" and hasattr(cls, "_fields"):
        return True  # (chainrule makes torch.return_types.* as named tuples)
    return all(
        isinstance(getattr(cls, f, None), int)
        for f in ("n_sequence_fields", "n_fields", "n_unnamed_fields")
    )


def is_structseq_instance(obj: object) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj: object | type) -> bool:
    """Whether ``obj`` is a struct sequence class or instance."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls: type) -> bool:
    """A class made by ``collections.namedtuple`` (or ``typing.NamedTuple``)."""
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(isinstance(f, str) for f in cls._fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
        and not is_structseq_class(cls)
    )


def is_namedtuple_instance(obj: object) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj: object | type) -> bool:
    """Whether ``obj`` is a namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


# ----- registration ------------------------------------------------------------------------


def _private_register_pytree_node(
    cls: Any,
    flatten_fn: FlattenFunc,
    unflatten_fn: UnflattenFunc,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFunc | None = None,
) -> None:
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(
                f"{cls} is already registered as pytree node. "
                "Overwriting the previous registration.",
                stacklevel=3,
            )
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        # (checked once the node is in: PyTorch keeps it registered when this fails)
        if (to_dumpable_context is None) != (from_dumpable_context is None):
            raise ValueError(
                f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                "be None or registered."
            )
        name = serialized_type_name or NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, name, to_dumpable_context, from_dumpable_context
        )
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def register_pytree_node(
    cls: type,
    flatten_fn: FlattenFunc,
    unflatten_fn: UnflattenFunc,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFunc | None = None,
) -> None:
    """Make ``cls`` a node: ``flatten_fn(x)`` gives ``(children, context)`` and
    ``unflatten_fn(children, context)`` rebuilds x. ``serialized_type_name`` names the type
    in :func:`treespec_dumps`; ``flatten_with_keys_fn(x)`` gives ``([(key, child)],
    context)`` for the ``*_with_path`` functions."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _register_pytree_node(
    cls: type,
    flatten_fn: FlattenFunc,
    unflatten_fn: UnflattenFunc,
    to_str_fn: Callable[..., str] | None = None,
    maybe_from_str_fn: Callable[[str], Any] | None = None,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFunc | None = None,
) -> None:
    """:func:`register_pytree_node` that overwrites an earlier registration (deprecated)."""
    warnings.warn(
        "`torch.utils._pytree._register_pytree_node` is deprecated. "
        "Please use `torch.utils._pytree.register_pytree_node` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn(
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. "
            "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
            FutureWarning,
            stacklevel=2,
        )
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _register_namedtuple(cls: type, *, serialized_type_name: str) -> None:
    """Give the namedtuple class ``cls`` a name, so that specs holding it can be dumped."""
    _private_register_pytree_node(
        cls,
        _namedtuple_flatten,
        _namedtuple_unflatten,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys,
    )


def _deregister_pytree_node(cls: type) -> None:
    with _NODE_REGISTRY_LOCK:
        SUPPORTED_NODES.pop(cls, None)
        serialized = SUPPORTED_SERIALIZED_TYPES.pop(cls, None)
        if serialized is not None:
            SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(serialized.serialized_type_name, None)


# ----- the node types PyTorch registers ----------------------------------------------------


def _sequence_keys(children: list[Any]) -> list[tuple[KeyEntry, Any]]:
    return [(SequenceKey(i), v) for i, v in enumerate(children)]


def _tuple_flatten(d: tuple) -> tuple[list[Any], Context]:
    return list(d), None


def _tuple_flatten_with_keys(d: tuple) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return _sequence_keys(list(d)), None


def _tuple_unflatten(values: Iterable[Any], context: Context) -> tuple:
    return tuple(values)


def _list_flatten(d: list) -> tuple[list[Any], Context]:
    return list(d), None


def _list_flatten_with_keys(d: list) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return _sequence_keys(list(d)), None


def _list_unflatten(values: Iterable[Any], context: Context) -> list:
    return list(values)


def _dict_flatten(d: dict) -> tuple[list[Any], Context]:
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d: dict) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _dict_unflatten(values: Iterable[Any], context: Context) -> dict:
    return dict(zip(context, values))


def _namedtuple_flatten(d: tuple) -> tuple[list[Any], Context]:
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d: tuple) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return [(GetAttrKey(f), v) for f, v in zip(d._fields, d)], type(d)


def _namedtuple_unflatten(values: Iterable[Any], context: Context) -> tuple:
    return context(*values)


def _namedtuple_serialize(context: Context) -> DumpableContext:
    serialized = SUPPORTED_SERIALIZED_TYPES.get(context)
    if serialized is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "didn't register a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    return serialized.serialized_type_name


def _namedtuple_deserialize(dumpable_context: DumpableContext) -> Context:
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} because we "
            "couldn't find a serializated name."
        )
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _ordereddict_unflatten(values: Iterable[Any], context: Context) -> OrderedDict:
    return OrderedDict(zip(context, values))


def _defaultdict_flatten(d: defaultdict) -> tuple[list[Any], Context]:
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_flatten_with_keys(d: defaultdict) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    children, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], children)], context


def _defaultdict_unflatten(values: Iterable[Any], context: Context) -> defaultdict:
    default_factory, keys = context
    return defaultdict(default_factory, zip(keys, values))


def _defaultdict_serialize(context: Context) -> DumpableContext:
    default_factory, keys = context
    return {
        "default_factory_module": default_factory.__module__,
        "default_factory_name": default_factory.__qualname__,
        "dict_context": keys,
    }


def _defaultdict_deserialize(dumpable_context: DumpableContext) -> Context:
    module = importlib.import_module(dumpable_context["default_factory_module"])
    default_factory = getattr(module, dumpable_context["default_factory_name"])
    return [default_factory, dumpable_context["dict_context"]]


def _deque_flatten(d: deque) -> tuple[list[Any], Context]:
    return list(d), d.maxlen


def _deque_flatten_with_keys(d: deque) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return _sequence_keys(list(d)), d.maxlen


def _deque_unflatten(values: Iterable[Any], context: Context) -> deque:
    return deque(values, maxlen=context)


def _structseq_unflatten_for(cls: type) -> UnflattenFunc:
    return lambda values, context: cls(*values)


def _register_structseq(cls: type) -> NodeDef:
    """A ``torch.return_types`` class as a node of its own (PyTorch registers each one)."""
    with _NODE_REGISTRY_LOCK:
        if cls not in SUPPORTED_NODES:
            SUPPORTED_NODES[cls] = NodeDef(
                cls, _tuple_flatten, _structseq_unflatten_for(cls), _tuple_flatten_with_keys
            )
        return SUPPORTED_NODES[cls]


def _register_builtins() -> None:
    builtins: list[tuple[Any, str, tuple, dict]] = [
        (tuple, "builtins.tuple", (_tuple_flatten, _tuple_unflatten, _tuple_flatten_with_keys), {}),
        (list, "builtins.list", (_list_flatten, _list_unflatten, _list_flatten_with_keys), {}),
        (dict, "builtins.dict", (_dict_flatten, _dict_unflatten, _dict_flatten_with_keys), {}),
        (
            namedtuple,
            "collections.namedtuple",
            (_namedtuple_flatten, _namedtuple_unflatten, _namedtuple_flatten_with_keys),
            {
                "to_dumpable_context": _namedtuple_serialize,
                "from_dumpable_context": _namedtuple_deserialize,
            },
        ),
        (
            OrderedDict,
            "collections.OrderedDict",
            (_dict_flatten, _ordereddict_unflatten, _dict_flatten_with_keys),
            {},
        ),
        (
            defaultdict,
            "collections.defaultdict",
            (_defaultdict_flatten, _defaultdict_unflatten, _defaultdict_flatten_with_keys),
            {
                "to_dumpable_context": _defaultdict_serialize,
                "from_dumpable_context": _defaultdict_deserialize,
            },
        ),
        (
            deque,
            "collections.deque",
            (_deque_flatten, _deque_unflatten, _deque_flatten_with_keys),
            {},
        ),
        # a Size rebuilds as a plain tuple, as in PyTorch
        (Size, "torch.Size", (_tuple_flatten, _tuple_unflatten, _tuple_flatten_with_keys), {}),
    ]
    for cls, name, (flatten_fn, unflatten_fn, with_keys), dumpable in builtins:
        _private_register_pytree_node(
            cls,
            flatten_fn,
            unflatten_fn,
            serialized_type_name=name,
            flatten_with_keys_fn=with_keys,
            **dumpable,
        )


_register_builtins()


def _get_node_type(tree: Any) -> Any:
    """The registry key of ``tree``: ``collections.namedtuple`` for every namedtuple."""
    if is_namedtuple_instance(tree):
        return namedtuple
    return type(tree)


def _node_def(node_type: Any) -> NodeDef | None:
    node = SUPPORTED_NODES.get(node_type)
    if (
        node is None
        and is_structseq_class(node_type)
        and node_type.__module__ == "torch.return_types"
    ):
        node = _register_structseq(node_type)
    return node


def _is_leaf(tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _node_def(_get_node_type(tree)) is None


# ----- TreeSpec ----------------------------------------------------------------------------


def _hashable(context: Any) -> Any:
    """``context`` with its lists, dicts and sets made hashable (a dict's keys are a list)."""
    if isinstance(context, (list, tuple)):
        return tuple(_hashable(c) for c in context)
    if isinstance(context, dict):
        return tuple((k, _hashable(v)) for k, v in context.items())
    if isinstance(context, set):
        return frozenset(context)
    return context


class TreeSpec:
    """The shape of a pytree without its leaves: the node's ``type``, its ``context`` (what
    the flatten function kept: a dict's keys, a namedtuple's class) and one spec per child.
    A leaf's spec prints as ``*``."""

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:  # noqa: A002
        children = list(children_specs)
        nodes = 1 + sum(c.num_nodes for c in children)
        leaves = 1 if type is None else sum(c.num_leaves for c in children)
        fields = {
            "type": type,
            "_context": context,
            "_children": children,
            "num_nodes": nodes,
            "num_leaves": leaves,
            "num_children": len(children),
        }
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    @property
    def context(self) -> Context:
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        warnings.warn(
            "`treespec.children_specs` is deprecated. Use `treespec.child(index)` to access "
            "a single child, or `treespec.children()` to get all children.",
            FutureWarning,
            stacklevel=2,
        )
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list[TreeSpec]:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        sep = ",\n" + " " * (indent + 2)
        children = sep.join(c.__repr__(indent + 2) for c in self._children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.type, self._context, self._children) == (
            other.type,
            other._context,
            other._children,
        )

    def __hash__(self) -> int:
        return hash((self.type, _hashable(self._context), tuple(self._children)))

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` at this spec's leaves (ValueError where ``tree`` has
        another structure above them)."""
        subtrees: list[PyTree] = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, tree: PyTree, subtrees: list[PyTree]) -> None:
        if self.is_leaf():
            subtrees.append(tree)
            return
        for spec, child in zip(self._children, self._children_of(tree)):
            spec._flatten_up_to(child, subtrees)

    def _children_of(self, tree: PyTree) -> list[PyTree]:
        """``tree``'s children in this spec's order, once its node matches this one."""
        node_type = _get_node_type(tree)
        if self.type not in BUILTIN_TYPES:
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
            children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
            self._check_arity(children)
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
            return children
        dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
        if node_type != self.type and not dicts:
            raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {node_type!r}.")
        if dicts:
            return self._dict_children(tree)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
        self._check_arity(children)
        if node_type is namedtuple and context != self._context:
            raise ValueError(
                f"Node context mismatch for node type {self.type!r}; "
                f"expected {self._context!r}, but got {context!r}."
            )
        return children

    def _check_arity(self, children: list[PyTree]) -> None:
        if len(children) != self.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {self.num_children}, but got {len(children)}."
            )

    def _dict_children(self, tree: Mapping) -> list[PyTree]:
        keys = self._context[1] if self.type is defaultdict else self._context
        self._check_arity(list(tree))
        if set(keys) != set(tree):
            missing, extra = set(keys) - set(tree), set(tree) - set(keys)
            raise ValueError(
                f"Node keys mismatch; missing key(s): {missing}; extra key(s): {extra}."
            )
        return [tree[k] for k in keys]

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """The pytree of this structure holding ``leaves`` (in flatten order)."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self})."
            )
        return self._build(iter(leaves))

    def _build(self, leaves: Iterator[Any]) -> PyTree:
        if self.is_leaf():
            return next(leaves)
        values = [c._build(leaves) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(values, self._context)


class LeafSpec(TreeSpec):
    """The spec of a leaf (deprecated: :func:`treespec_leaf` gives the one leaf spec)."""

    def __init__(self) -> None:
        warnings.warn(
            "`isinstance(treespec, LeafSpec)` is deprecated, use "
            "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(None, None, [])


PyTreeSpec = TreeSpec
_LEAF_SPEC = LeafSpec.__new__(LeafSpec)
TreeSpec.__init__(_LEAF_SPEC, None, None, [])


def treespec_leaf() -> LeafSpec:
    """The spec of a leaf."""
    return _LEAF_SPEC


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    """The spec of a tuple whose children have the specs ``iterable``."""
    return TreeSpec(tuple, None, list(iterable))


def treespec_dict(
    mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (), /, **kwargs: TreeSpec
) -> TreeSpec:
    """The spec of a dict whose values have the specs of ``mapping`` (and ``kwargs``)."""
    specs = dict(mapping, **kwargs)
    return TreeSpec(dict, list(specs), list(specs.values()))


def _require_treespec(treespec: Any) -> None:
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            "Expected `treespec` to be an instance of PyTreeSpec but got item of type "
            f"{type(treespec)}."
        )


# ----- flattening and mapping --------------------------------------------------------------


def tree_is_leaf(tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf(tree)``, or not a registered node."""
    return _is_leaf(tree, is_leaf)


def _flatten(tree: PyTree, is_leaf: IsLeaf, leaves: list[Any]) -> TreeSpec:
    if _is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF_SPEC
    node_type = _get_node_type(tree)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    specs = [_flatten(c, is_leaf, leaves) for c in children]
    return TreeSpec(node_type, context, specs)


def tree_flatten(tree: PyTree, is_leaf: IsLeaf = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` (depth first) and its structure."""
    leaves: list[Any] = []
    spec = _flatten(tree, is_leaf, leaves)
    return leaves, spec


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The pytree of structure ``treespec`` holding ``leaves``."""
    _require_treespec(treespec)
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: IsLeaf = None) -> Iterator[Any]:
    """The leaves of ``tree``, one at a time."""
    if _is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of ``tree`` (depth first)."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: IsLeaf = None) -> TreeSpec:
    """The structure of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """The leaves of every positional argument, then of every keyword argument."""
    leaves: list[Any] = []
    for tree in (*args, *kwargs.values()):
        leaves.extend(tree_iter(tree))
    return leaves


def tree_map(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """``tree`` with each leaf ``x`` replaced by ``func(x, *ys)``, the ``ys`` being the
    subtrees of ``rests`` at the same place (each rest has ``tree``'s structure above them)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """Call ``func`` on the leaves as :func:`tree_map` does, for its side effects; ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat):
        func(*args)
    return tree


TypeOrPred = type | tuple[type, ...] | types.UnionType | Callable[[Any], bool]


def map_only(type_or_types_or_pred: TypeOrPred, /) -> Callable[[Callable], Callable]:
    """A decorator: ``func`` applied to the values of the given type(s), or for which the
    predicate is true; other values go through unchanged."""
    t = type_or_types_or_pred
    if isinstance(t, (type, tuple, types.UnionType)):
        pred: Callable[[Any], bool] = lambda x: isinstance(x, t)
    elif callable(t):
        pred = t
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrap(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda x: func(x) if pred(x) else x

    return wrap


def tree_map_only(
    type_or_types_or_pred: TypeOrPred,
    /,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: IsLeaf = None,
) -> PyTree:
    """:func:`tree_map` of ``func`` on the leaves of the given type(s) (or predicate)."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(
    type_or_types_or_pred: TypeOrPred,
    /,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: IsLeaf = None,
) -> PyTree:
    """:func:`tree_map_` of ``func`` on the leaves of the given type(s) (or predicate)."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(
    type_or_types: type | tuple[type, ...] | types.UnionType,
    /,
    pred: Callable[[Any], bool],
    tree: PyTree,
    is_leaf: IsLeaf = None,
) -> bool:
    """Whether ``pred`` holds for every leaf of the given type(s)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(
    type_or_types: type | tuple[type, ...] | types.UnionType,
    /,
    pred: Callable[[Any], bool],
    tree: PyTree,
    is_leaf: IsLeaf = None,
) -> bool:
    """Whether ``pred`` holds for some leaf of the given type(s)."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


# ----- paths -------------------------------------------------------------------------------


def _flatten_with_keys(
    tree: PyTree, is_leaf: IsLeaf, path: KeyPath, out: list[tuple[KeyPath, Any]]
) -> TreeSpec:
    if _is_leaf(tree, is_leaf):
        out.append((path, tree))
        return _LEAF_SPEC
    node_type = _get_node_type(tree)
    node = SUPPORTED_NODES[node_type]
    if node.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    keyed, context = node.flatten_with_keys_fn(tree)
    specs = [_flatten_with_keys(c, is_leaf, (*path, k), out) for k, c in keyed]
    return TreeSpec(node_type, context, specs)


def tree_flatten_with_path(
    tree: PyTree, is_leaf: IsLeaf = None
) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    """``(path, leaf)`` for every leaf, a path being the tuple of keys from the root; and
    the structure of ``tree``."""
    out: list[tuple[KeyPath, Any]] = []
    spec = _flatten_with_keys(tree, is_leaf, (), out)
    return out, spec


def tree_leaves_with_path(tree: PyTree, is_leaf: IsLeaf = None) -> list[tuple[KeyPath, Any]]:
    """``(path, leaf)`` for every leaf of ``tree``."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """:func:`tree_map` with ``func(path, x, *ys)``: each leaf's path comes first."""
    keyed, spec = tree_flatten_with_path(tree, is_leaf)
    paths = [path for path, _ in keyed]
    flat = [[x for _, x in keyed]] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, paths, *flat))


# ----- serialization -----------------------------------------------------------------------


def _treespec_to_json(treespec: TreeSpec) -> dict[str, Any]:
    if treespec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    serialized = SUPPORTED_SERIALIZED_TYPES.get(treespec.type)
    if serialized is None or serialized.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {treespec.type} found. Please update "
            "your _register_pytree_node call with a `serialized_type_name` kwarg."
        )
    if serialized.to_dumpable_context is not None:
        context = serialized.to_dumpable_context(treespec.context)
    else:
        try:
            context = json.dumps(treespec.context)
        except TypeError as e:
            raise TypeError(
                "Unable to serialize context. Please make the context json dump-able, or "
                "register a custom serializer using _register_pytree_node."
            ) from e
    return {
        "type": serialized.serialized_type_name,
        "context": context,
        "children_spec": [_treespec_to_json(c) for c in treespec.children()],
    }


def _json_to_treespec(json_schema: dict[str, Any]) -> TreeSpec:
    name = json_schema["type"]
    if name is None and json_schema["context"] is None and not json_schema["children_spec"]:
        return _LEAF_SPEC
    if name not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {name} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[name]
    serialized = SUPPORTED_SERIALIZED_TYPES[typ]
    if serialized.from_dumpable_context is not None:
        context = serialized.from_dumpable_context(json_schema["context"])
    else:
        context = json.loads(json_schema["context"])
    children = [_json_to_treespec(c) for c in json_schema["children_spec"]]
    return TreeSpec(typ, context, children)


def _check_protocol(protocol: int) -> None:
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(
            f"Unknown protocol {protocol}. Available protocols: {sorted(_SUPPORTED_PROTOCOLS)}"
        )


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """``treespec`` as PyTorch's JSON: ``[protocol, {"type", "context", "children_spec"}]``."""
    _require_treespec(treespec)
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    _check_protocol(protocol)
    return json.dumps([protocol, _treespec_to_json(treespec)])


def treespec_loads(serialized: str) -> TreeSpec:
    """The TreeSpec that :func:`treespec_dumps` wrote as ``serialized``."""
    protocol, json_schema = json.loads(serialized)
    _check_protocol(protocol)
    return _json_to_treespec(json_schema)


class _Star:
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The pytree of ``treespec`` printed with ``*`` for each leaf."""
    return str(treespec.unflatten([_Star()] * treespec.num_leaves))
