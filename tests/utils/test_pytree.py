"""``chainrule.utils._pytree`` against ``torch.utils._pytree``: the same calls on both, the
same leaves, specs (as printed), rebuilt trees, JSON and errors (type and message)."""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import NamedTuple

import pytest
import torch
import torch.utils._pytree as torch_pytree

import chainrule as cr
from chainrule.utils import _pytree as cr_pytree

# (the pytree module, the library its tensors come from)
PAIRS = {"chainrule": (cr_pytree, cr), "torch": (torch_pytree, torch)}

Point = namedtuple("Point", ["x", "y"])
Other = namedtuple("Other", ["x", "y"])


class Typed(NamedTuple):
    a: int
    b: object = None


class Box:
    """A class each library registers as a node: its items are the children, its tag the
    context."""

    def __init__(self, items: list, tag: object) -> None:
        self.items, self.tag = list(items), tag

    def __getitem__(self, i: int) -> object:
        return self.items[i]

    def __repr__(self) -> str:
        return f"Box({self.items!r}, {self.tag!r})"


class Plain:
    """Registered without keys or a serialized name."""

    def __init__(self, a: object, b: object) -> None:
        self.a, self.b = a, b

    def __repr__(self) -> str:
        return f"Plain({self.a!r}, {self.b!r})"


def _register(pt) -> None:
    pt.register_pytree_node(
        Box,
        lambda b: (b.items, b.tag),
        lambda values, tag: Box(values, tag),
        serialized_type_name="test_pytree.Box",
        flatten_with_keys_fn=lambda b: (
            [(pt.SequenceKey(i), v) for i, v in enumerate(b.items)],
            b.tag,
        ),
    )
    pt.register_pytree_node(Plain, lambda p: ([p.a, p.b], None), lambda v, _: Plain(*v))
    pt._register_namedtuple(Typed, serialized_type_name="test_pytree.Typed")


for _pt, _ in PAIRS.values():
    _register(_pt)


def _normal(text: str) -> str:
    """``text`` without object addresses."""
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _outcome(fn, pair):
    try:
        return "ok", _normal(repr(fn(*pair)))
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, _normal(str(e))


def same(fn, expect: str = "ok") -> None:
    """``fn(pytree, lib)`` on chainrule and on torch: the same result (its repr) or the same
    error (type and message); ``expect`` is "ok" or the error's type name."""
    ours, theirs = (_outcome(fn, pair) for pair in PAIRS.values())
    assert ours == theirs
    assert ours[0] == expect, ours


TREES = {
    "int": 1,
    "none": None,
    "str": "leaf",
    "empty_tuple": (),
    "empty_list": [],
    "empty_dict": {},
    "one_tuple": (1,),
    "nested_list": [1, [2, 3]],
    "dict_order": {"b": 1, "a": (2, 3)},
    "int_keys": {2: "x", 1: "y", "z": 3},
    "namedtuple": Point(1, [2]),
    "typed_namedtuple": Typed(1, (2, None)),
    "ordereddict": OrderedDict(b=1, a=2),
    "defaultdict": defaultdict(list, {"k": [1, 2]}),
    "deque": deque([1, 2], maxlen=3),
    "deque_unbounded": deque([1]),
    "none_inside": (None, 1, {"a": None}),
    "empties_inside": [[], {}, (), [[]]],
    "custom": Box([1, (2, 3)], "tag"),
    "custom_no_children": Box([], None),
    "plain": Plain([1], {"q": 2}),
    "deep": {"a": [1, (2, Point(3, {"b": [4, OrderedDict(c=5)]}))], "d": deque([6])},
}


@pytest.mark.parametrize("tree", TREES.values(), ids=TREES.keys())
def test_flatten(tree):
    """Leaves, the spec as printed, its counts and context, the tree rebuilt."""

    def fn(pt, lib):
        leaves, spec = pt.tree_flatten(tree)
        rebuilt = pt.tree_unflatten(leaves, spec)
        counts = (spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf())
        assert pt.tree_leaves(tree) == leaves and pt.tree_structure(tree) == spec
        assert list(pt.tree_iter(tree)) == leaves
        kind = getattr(spec.type, "__name__", None)
        return leaves, repr(spec), str(spec), counts, spec.context, kind, rebuilt, spec.children()

    same(fn)


@pytest.mark.parametrize("tree", TREES.values(), ids=TREES.keys())
def test_flatten_up_to_itself(tree):
    same(lambda pt, lib: pt.tree_structure(tree).flatten_up_to(tree))


def test_rebuilt_trees_have_the_types_flattened():
    def fn(pt, lib):
        trees = [pt.tree_map(lambda x: x, t) for t in TREES.values()]
        return [type(t).__name__ for t in trees], trees

    same(fn)


def test_spec_equality_and_hash():
    trees = list(TREES.values()) + [{"a": 1, "b": 2}, {"b": 1, "a": 2}, Other(1, [2]), [None]]

    def fn(pt, lib):
        specs = [pt.tree_structure(t) for t in trees]
        equal = [[a == b for b in specs] for a in specs]
        for a in specs:
            for b in specs:
                assert a != b or hash(a) == hash(b)
        return equal, specs[0] == 1, pt.tree_structure([1]).__eq__(5)

    same(fn)


def test_leaf_spec():
    def fn(pt, lib):
        leaf = pt.treespec_leaf()
        with pytest.warns(
            FutureWarning, match="`isinstance\\(treespec, LeafSpec\\)` is deprecated"
        ):
            made = pt.LeafSpec()
        return (
            leaf is pt.tree_structure(1),
            made == leaf,
            isinstance(leaf, pt.LeafSpec),
            isinstance(pt.tree_structure([1]), pt.LeafSpec),
            leaf,
            pt.TreeSpec(list, None, [leaf, leaf]) == pt.tree_structure([1, 2]),
            pt.treespec_tuple([leaf, leaf]) == pt.tree_structure((1, 2)),
            pt.treespec_dict({"a": leaf}, b=leaf) == pt.tree_structure({"a": 1, "b": 2}),
        )

    same(fn)


def test_spec_children_and_frozen_fields():
    def fn(pt, lib):
        spec = pt.tree_structure({"a": 1, "b": [2]})
        with pytest.warns(FutureWarning, match="`treespec.children_specs` is deprecated"):
            children = spec.children_specs
        try:
            spec.type = tuple
        except Exception as e:  # noqa: BLE001
            frozen = (type(e).__name__, str(e))
        return children, spec.child(1), frozen, pt.tree_structure(1).children()

    same(fn)
    same(lambda pt, lib: pt.tree_structure([1]).child(3), "IndexError")


def test_is_leaf_argument():
    tree = [1, [2], (3, [4, 5])]
    short = lambda x: isinstance(x, list) and len(x) == 1  # noqa: E731

    def fn(pt, lib):
        return (
            pt.tree_flatten(tree, is_leaf=short),
            pt.tree_leaves(tree, short),
            pt.tree_map(lambda x: [x] if short(x) else -x, tree, is_leaf=short),
            pt.tree_is_leaf(tree, is_leaf=lambda x: True),
            pt.tree_flatten_with_path(tree, is_leaf=short),
        )

    same(fn)


def test_tree_is_leaf_and_arg_leaves():
    def fn(pt, lib):
        return (
            [pt.tree_is_leaf(t) for t in TREES.values()],
            pt.arg_tree_leaves(1, [2, (3,)], a={"c": 4}, b=None),
            pt.arg_tree_leaves(),
        )

    same(fn)


def test_tree_map_several_trees():
    def fn(pt, lib):
        return (
            pt.tree_map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]),
            pt.tree_map(lambda a, b: (a, b), {"a": 1, "b": 2}, {"b": 5, "a": 6}),
            pt.tree_map(lambda a, b: (a, b), [1, 2], [[3], {"k": 4}]),
            pt.tree_map(lambda a, b: (a, b), {"a": 1}, OrderedDict(a=2)),
            pt.tree_map(lambda a, b: (a, b), deque([1]), deque([2], maxlen=5)),
            pt.tree_map(lambda a, b: (a, b), 1, [5]),
        )

    same(fn)


def test_tree_map_in_place():
    def fn(pt, lib):
        seen = []
        tree = {"a": [1, 2], "b": (3,)}
        back = pt.tree_map_(lambda x, y: seen.append((x, y)), tree, {"a": [4, 5], "b": (6,)})
        only = pt.tree_map_only_(int, lambda x: seen.append(x), [1, "s", 2.0])
        return back is tree, seen, only

    same(fn)


@pytest.mark.parametrize(
    "which", [int, (int, str), int | float, "pred"], ids=["type", "tuple", "union", "pred"]
)
def test_tree_map_only(which):
    which = (lambda x: x == "x") if which == "pred" else which
    same(lambda pt, lib: pt.tree_map_only(which, lambda a: a * 2, [1, 2.0, "x", None, (True,)]))


@pytest.mark.parametrize("bad", [5, None, [int]], ids=["int", "none", "list"])
def test_tree_map_only_rejects(bad):
    same(lambda pt, lib: pt.tree_map_only(bad, lambda a: a, [1]), "TypeError")


def test_all_any():
    tree = [1, (0, "x"), {"a": -2.0}]

    def fn(pt, lib):
        return (
            pt.tree_all(bool, tree),
            pt.tree_any(bool, tree),
            pt.tree_all(bool, []),
            pt.tree_any(bool, []),
            pt.tree_all_only(int, lambda a: a >= 0, tree),
            pt.tree_any_only(float, lambda a: a < 0, tree),
            pt.tree_all_only((int, float), lambda a: a > -3, tree),
            pt.tree_any_only(str, lambda a: a == "y", tree),
        )

    same(fn)
    same(lambda pt, lib: pt.tree_any_only(lambda x: True, bool, [1]), "TypeError")


# (tree, other, outcome): ValueError where ``other`` has another structure above the leaves
# of ``tree``; the dict kinds stand in for one another, and a deque's maxlen is not compared
MISMATCHES = {
    "arity": ([1, (2, 3)], [1, (2,)], "ValueError"),
    "list_for_tuple": ([1, (2, 3)], [1, [2, 3]], "ValueError"),
    "tuple_for_list": ([1, 2], (1, 2), "ValueError"),
    "leaf_for_node": ([1, 2], 5, "ValueError"),
    "none_for_dict": ({"a": 1}, None, "ValueError"),
    "dict_keys": ({"a": 1, "b": 2}, {"b": 5, "c": 6}, "ValueError"),
    "dict_size": ({"a": 1, "b": 2}, {"a": 1}, "ValueError"),
    "namedtuple_for_tuple": ((1, 2), Point(1, 2), "ValueError"),
    "tuple_for_namedtuple": (Point(1, 2), (1, 2), "ValueError"),
    "namedtuple_class": (Point(1, 2), Other(1, 2), "ValueError"),
    "namedtuple_arity": (Point(1, 2), Typed(1), "ValueError"),
    "deque_for_list": ([1], deque([1]), "ValueError"),
    "custom_for_dict": ({"a": 1}, Box([1], "t"), "ValueError"),
    "dict_for_custom": (Box([1], "t"), {"a": 1}, "ValueError"),
    "custom_context": (Box([1], "t"), Box([1], "u"), "ValueError"),
    "custom_arity": (Box([1, 2], "t"), Box([1], "u"), "ValueError"),
    "namedtuple_for_custom": (Plain(1, 2), Point(1, 2), "ValueError"),
    "defaultdict_for_dict": ({"a": 1, "b": 2}, defaultdict(int, b=1, a=2), "ok"),
    "dict_for_ordereddict": (OrderedDict(a=1, b=2), {"b": 1, "a": 2}, "ok"),
    "deque_maxlen": (deque([1, 2]), deque([3, 4], maxlen=2), "ok"),
    "deeper": ([1, (2, 3)], [[1], ([2], {"k": 3})], "ok"),
}


@pytest.mark.parametrize("tree, other, outcome", MISMATCHES.values(), ids=MISMATCHES.keys())
def test_flatten_up_to_and_tree_map_across_structures(tree, other, outcome):
    same(lambda pt, lib: pt.tree_structure(tree).flatten_up_to(other), outcome)
    same(lambda pt, lib: pt.tree_map(lambda a, b: (a, b), tree, other), outcome)


def test_unflatten_errors():
    spec = lambda pt: pt.tree_structure([1, (2, 3)])  # noqa: E731
    same(lambda pt, lib: spec(pt).unflatten([1, 2]), "ValueError")
    same(lambda pt, lib: pt.tree_unflatten([1, 2, 3, 4], spec(pt)), "ValueError")
    same(lambda pt, lib: pt.tree_unflatten([], pt.tree_structure(1)), "ValueError")
    same(lambda pt, lib: pt.tree_unflatten([1, 2], [1]), "TypeError")
    same(lambda pt, lib: pt.tree_unflatten(iter([4, 5, 6]), spec(pt)))


def test_paths():
    tree = {
        "a": [1, (2, Point(3, 4))],
        "b": OrderedDict(z=5),
        "c": defaultdict(int, q=6),
        "d": deque([7]),
        "e": None,
        "f": Box([8], "t"),
        7: Typed(9),
    }

    def fn(pt, lib):
        keyed, spec = pt.tree_flatten_with_path(tree)
        paths = [pt.keystr(kp) for kp, _ in keyed]
        steps = [(str(k), repr(k)) for kp, _ in keyed for k in kp]
        found = [pt.key_get(tree, kp) == leaf for kp, leaf in keyed]
        mapped = pt.tree_map_with_path(lambda kp, x: (pt.keystr(kp), x), tree)
        return keyed, spec, paths, steps, found, mapped, pt.tree_leaves_with_path(tree) == keyed

    same(fn)
    same(lambda pt, lib: pt.tree_leaves_with_path(1))
    same(lambda pt, lib: pt.tree_map_with_path(lambda kp, a, b: (kp, a + b), [1, 2], [3, 4]))
    same(lambda pt, lib: pt.tree_leaves_with_path([Plain(1, 2)]), "ValueError")


def test_keys():
    def fn(pt, lib):
        keys = [pt.SequenceKey(1), pt.MappingKey("a"), pt.MappingKey((1, "b")), pt.GetAttrKey("x")]
        return (
            [(str(k), repr(k)) for k in keys],
            pt.keystr(keys),
            pt.SequenceKey(1) == pt.SequenceKey(1),
            pt.SequenceKey(1) == pt.MappingKey(1),
            hash(pt.MappingKey("a")) == hash(pt.MappingKey("a")),
            pt.SequenceKey(1).get([5, 6]),
            pt.MappingKey("a").get({"a": 3}),
            pt.GetAttrKey("y").get(Point(1, 2)),
            pt.keystr(()),
        )

    same(fn)


def test_registration():
    class Fresh:
        def __init__(self, v: object) -> None:
            self.v = v

        def __repr__(self) -> str:
            return f"Fresh({self.v!r})"

    def fn(pt, lib):
        flatten, unflatten = (lambda f: ([f.v], None)), (lambda v, _: Fresh(*v))
        pt.register_pytree_node(Fresh, flatten, unflatten)
        mapped = pt.tree_map(lambda x: x * 10, [Fresh((1, 2))])
        try:
            pt.register_pytree_node(Fresh, flatten, unflatten)
        except ValueError as e:
            again = str(e)
        with pytest.warns(FutureWarning, match="_register_pytree_node` is deprecated"):
            with pytest.warns(UserWarning, match="Overwriting the previous registration"):
                pt._register_pytree_node(Fresh, flatten, unflatten)
        registered = Fresh in pt.SUPPORTED_NODES
        return mapped, again, registered, pt.tree_structure(Fresh([]))

    same(fn)
    same(
        lambda pt, lib: pt.register_pytree_node(list, lambda x: ([], None), lambda v, c: []),
        "ValueError",
    )


def test_registration_needs_both_context_converters():
    class Half:
        pass

    def fn(pt, lib):
        pt.register_pytree_node(
            Half, lambda h: ([], None), lambda v, c: Half(), to_dumpable_context=str
        )

    same(fn, "ValueError")


DUMPED = {
    "leaf": 1,
    "none": None,
    "nested": [1, (2, 3)],
    "dict": {"b": 1, "a": 2},
    "odd_keys": {None: 1, 1.5: 2, True: 3, "s": 4},
    "ordereddict": OrderedDict(b=1),
    "defaultdict": defaultdict(list, k=[1]),
    "deque": deque([1, 2], maxlen=3),
    "deque_unbounded": deque([1]),
    "registered_namedtuple": Typed(1, [2]),
    "custom": Box([1, [2]], "tag"),
    "empties": [[], (), {}],
}


@pytest.mark.parametrize("tree", DUMPED.values(), ids=DUMPED.keys())
def test_dumps_loads(tree):
    def fn(pt, lib):
        spec = pt.tree_structure(tree)
        text = pt.treespec_dumps(spec)
        back = pt.treespec_loads(text)
        return text, back, back == spec, back.unflatten(range(spec.num_leaves))

    same(fn, "ok")


def test_loaded_tuple_key_is_a_list():
    """JSON has no tuples: a dict's tuple key comes back as a list, which cannot key a
    rebuilt dict."""

    def fn(pt, lib):
        back = pt.treespec_loads(pt.treespec_dumps(pt.tree_structure({(1, 2): 3})))
        return back, back.unflatten([3])

    same(fn, "TypeError")


DUMPS_ERRORS = {
    "unnamed_namedtuple": (
        lambda pt: pt.treespec_dumps(pt.tree_structure(Point(1, 2))),
        "NotImplementedError",
    ),
    "unnamed_custom": (
        lambda pt: pt.treespec_dumps(pt.tree_structure(Plain(1, 2))),
        "NotImplementedError",
    ),
    "context_not_json": (
        lambda pt: pt.treespec_dumps(pt.tree_structure({object(): 1})),
        "TypeError",
    ),
    "protocol": (lambda pt: pt.treespec_dumps(pt.tree_structure([1]), protocol=2), "ValueError"),
    "protocol_given": (lambda pt: pt.treespec_dumps(pt.tree_structure([1]), 1), "ok"),
    "not_spec": (lambda pt: pt.treespec_dumps([1]), "TypeError"),
    "load_protocol": (lambda pt: pt.treespec_loads("[0, {}]"), "ValueError"),
    "unknown_type": (
        lambda pt: pt.treespec_loads(
            '[1, {"type": "no.Such", "context": "null", "children_spec": []}]'
        ),
        "NotImplementedError",
    ),
    "unknown_namedtuple": (
        lambda pt: pt.treespec_loads(
            '[1, {"type": "collections.namedtuple", "context": "no.Such", "children_spec": []}]'
        ),
        "NotImplementedError",
    ),
}


@pytest.mark.parametrize("call, outcome", DUMPS_ERRORS.values(), ids=DUMPS_ERRORS.keys())
def test_dumps_loads_errors(call, outcome):
    same(lambda pt, lib: call(pt), outcome)


def test_pprint():
    def fn(pt, lib):
        trees = [1, {"a": 1, "b": [2]}, [Box([1], "t"), Point(1, 2), (1,), OrderedDict(a=1)]]
        return [pt.treespec_pprint(pt.tree_structure(t)) for t in trees]

    same(fn)


def test_namedtuple_and_structseq_queries():
    def fn(pt, lib):
        result = lib.max(lib.tensor([[1.0, 2.0], [4.0, 3.0]]), 1)
        cases = [Point(1, 2), Point, Typed, (1, 2), tuple, result, type(result)]
        return [(pt.is_namedtuple(c), pt.is_structseq(c)) for c in cases]

    same(fn)


def test_tensors_are_leaves():
    def fn(pt, lib):
        params = {"w": lib.ones(2, 3), "b": [lib.zeros(3)], "n": None}
        leaves, spec = pt.tree_flatten(params)
        doubled = pt.tree_map_only(lib.Tensor, lambda t: (t * 2).tolist(), params)
        shapes = pt.tree_map(lambda t: list(t.shape), leaves[:2])
        return (
            len(leaves),
            spec,
            doubled,
            shapes,
            pt.tree_all_only(lib.Tensor, lambda t: t.sum() >= 0, params),
        )

    same(fn)


def test_return_types_and_size_are_nodes():
    def fn(pt, lib):
        result = lib.max(lib.tensor([[1.0, 2.0], [4.0, 3.0]]), 1)
        size = lib.zeros(2, 3).shape
        as_lists = pt.tree_map(lambda t: t.tolist(), result)
        return (
            pt.tree_structure(result),
            as_lists,
            type(as_lists).__name__,
            pt.tree_leaves_with_path(pt.tree_map(lambda t: t.tolist(), result)),
            pt.tree_structure(size),
            pt.tree_map(lambda n: n * 2, size),
            pt.treespec_dumps(pt.tree_structure(size)),
            pt.tree_structure(result) == pt.tree_structure(lib.min(lib.ones(2, 2), 1)),
        )

    same(fn)


def test_reachable_as_attribute():
    """``torch.utils._pytree`` after ``import torch`` alone, as in PyTorch."""
    assert cr.utils._pytree is cr_pytree
    assert torch.utils._pytree is torch_pytree


def test_supported_nodes_in_torch_order():
    """The node types PyTorch registers first, that chainrule has (not ``torch.fx``'s)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = [t.__name__ for t in torch_pytree.SUPPORTED_NODES][:7]
    assert [t.__name__ for t in cr_pytree.SUPPORTED_NODES][:7] == theirs


def test_public_names_as_torch():
    assert sorted(cr_pytree.__all__) == sorted(torch_pytree.__all__)
    assert all(hasattr(cr_pytree, name) for name in cr_pytree.__all__)
