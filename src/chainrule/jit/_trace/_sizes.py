"""Sizes that follow the inputs': PyTorch's trace records a size the code reads
(``x.view(x.size(0), -1)``, an RNN's zero initial state of the batch's size) as a value of
the graph, so the traced module runs on other batch sizes. chainrule's recorder writes
sizes as numbers; this module finds the integer arguments that change with the first
input's leading sizes by tracing again with dim 0 (and dim 1) grown by one, checks that
they are affine in those sizes (all grown by two), and replaces each by a :class:`SizeExpr`
(``a * x.size(d) + c``) that the replay computes and the TorchScript code writes as
``torch.size(x, d)`` arithmetic. Arguments that change otherwise stay the example's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

_DIMS = (0, 1)  # the leading dims tried (a batch, a sequence length)


class SizeExpr:
    """``sum(a_d * size(d)) + c`` for sizes of the first user input."""

    def __init__(self, coefficients: dict[int, int], constant: int) -> None:
        self.coefficients = {d: a for d, a in coefficients.items() if a}
        self.constant = constant

    def value(self, shape: tuple) -> int:
        """The expression at an input of this shape."""
        return sum(a * int(shape[d]) for d, a in self.coefficients.items()) + self.constant

    def source(self, sizes: dict[int, str]) -> str:
        """TorchScript text, ``sizes[d]`` naming the local that holds ``size(d)``."""
        terms = []
        for d, a in self.coefficients.items():
            terms.append(sizes[d] if a == 1 else f"torch.mul({sizes[d]}, {a})")
        text = terms[0]
        for term in terms[1:]:
            text = f"torch.add({text}, {term})"
        if self.constant:
            text = f"torch.add({text}, {self.constant})"
        return text

    def __repr__(self) -> str:
        terms = [f"{a}*s{d}" for d, a in self.coefficients.items()]
        return " + ".join(terms + ([str(self.constant)] if self.constant else []))


def _grown(t: Tensor, d: int, by: int) -> Tensor:
    """``t`` with ``by`` more slices along ``d`` (its first ones, cyclically)."""
    import chainrule

    size = int(t.shape[d])
    index = chainrule.tensor([i % size for i in range(size + by)])
    with no_grad():
        return t.detach().index_select(d, index)


def _with_growth(inputs: tuple, first: Tensor, growth: dict[int, int]) -> tuple:
    """Every input with the first input's size at dim d grown by ``growth[d]``."""
    out = []
    for t in inputs:
        if isinstance(t, (tuple, list)):
            t = type(t)(_with_growth(tuple(t), first, growth))
        else:
            for d, by in growth.items():
                if by and t.dim() > d and t.shape[d] == first.shape[d]:
                    t = _grown(t, d, by)
        out.append(t)
    return tuple(out)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _walk(a: Any, others: list[Any], make: Callable[[int, list[int]], Any]) -> Any:
    """``a`` with each int that differs in ``others`` replaced by ``make(a, others)``."""
    if _int(a):
        if all(_int(o) for o in others) and any(o != a for o in others):
            return make(a, others)
        return a
    if isinstance(a, (list, tuple)) and all(
        isinstance(o, (list, tuple)) and len(o) == len(a) for o in others
    ):
        items = [_walk(x, [o[i] for o in others], make) for i, x in enumerate(a)]
        return type(a)(items)
    return a


def _same_structure(programs: list[Any]) -> bool:
    lists = [list(p.graph.nodes) for p in programs]
    if len({len(nodes) for nodes in lists}) != 1:
        return False
    for nodes in zip(*lists):
        if len({(n.op, n.name, str(n.target)) for n in nodes}) != 1:
            return False
    return True


def follow_sizes(program: Any, record: Callable[[tuple], Any], inputs: tuple) -> list[int]:
    """Rewrites ``program``'s size arguments that follow the first input's dims 0/1 as
    SizeExprs (re-recording with ``record`` on grown inputs); the dims used."""
    flat = [x for t in inputs for x in (t if isinstance(t, (tuple, list)) else [t])]
    first = next((t for t in flat if isinstance(t, Tensor)), None)
    if first is None or first.dim() == 0:
        return []
    grown = {}
    for d in _DIMS:
        if first.dim() > d:
            try:
                other = record(_with_growth(inputs, first, {d: 1}))
            except Exception:  # noqa: BLE001 (a size the model fixes: it stays fixed)
                continue
            if _same_structure([program, other]):
                grown[d] = other
    if not grown:
        return []
    try:
        check = record(_with_growth(inputs, first, {d: 2 for d in grown}))
    except Exception:  # noqa: BLE001
        return []
    if not _same_structure([program, check, *grown.values()]):
        return []
    dims = list(grown)
    used: set[int] = set()
    shape = tuple(first.shape)

    def make(v0: int, others: list[int]) -> Any:
        *singles, combined = others
        steps = {d: s - v0 for d, s in zip(dims, singles)}
        if combined != v0 + 2 * sum(steps.values()):
            return v0  # (not affine in the sizes: the example's value)
        used.update(d for d, a in steps.items() if a)
        return SizeExpr(steps, v0 - sum(a * shape[d] for d, a in steps.items()))

    nodes = [list(p.graph.nodes) for p in [program, *grown.values(), check]]
    for node, *others in zip(*nodes):
        if node.op != "call_function":
            continue
        args = _walk(tuple(node.args), [tuple(o.args) for o in others], make)
        kwargs = {
            k: _walk(v, [o.kwargs.get(k) for o in others], make) for k, v in node.kwargs.items()
        }
        node.args, node.kwargs = args, kwargs
    return sorted(used)


def resolve(value: Any, shape: tuple) -> Any:
    """``value`` with its SizeExprs computed for a first input of ``shape``."""
    if isinstance(value, SizeExpr):
        return value.value(shape)
    if isinstance(value, (list, tuple)):
        return type(value)(resolve(v, shape) for v in value)
    return value
