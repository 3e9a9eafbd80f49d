"""``nn.utils.prune``: zero out entries (or whole channels) of a module's tensor with a mask.

Pruning reparameterizes ``module.<name>`` as ``<name>_orig ⊙ <name>_mask``: the parameter
is renamed ``<name>_orig``, the 0/1 mask is the buffer ``<name>_mask``, and the method,
registered as a forward pre-hook, recomputes the plain attribute ``<name>`` before every
forward. The gradient reaches ``<name>_orig`` through the product:
d<name>/d<name>_orig = <name>_mask. Pruning the same tensor again combines the masks in a
:class:`PruningContainer` (a new method acts only on what is still unpruned); :func:`remove`
makes the pruning permanent. State-dict keys, hooks, arguments and errors are PyTorch's
(``torch/nn/utils/prune.py``).

Which entries tie-broken selections prune is PyTorch's too: where equal scores straddle the
cut, PyTorch's CPU ``topk`` picks among them by the order its selection algorithm
(libstdc++'s ``nth_element``, or ``partial_sort`` when ``k * 64 <= n``) leaves them in, and
:func:`_topk_indices` replays that algorithm on the ranks of the scores.

:class:`RandomUnstructured` and :class:`RandomStructured` draw PyTorch's numbers (chainrule's
generator is PyTorch's), so under the same seed they prune PyTorch's entries (channels).
Differences from PyTorch: messages that print a module, a method or a
class name the chainrule object (``chainrule.nn.utils.prune.L1Unstructured`` ...).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

import chainrule

from ..._tensor import Tensor
from ..modules.module import Module

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


# ----- the methods ---------------------------------------------------------------------------


class BasePruningMethod(ABC):
    """A pruning rule: ``compute_mask(t, default_mask)`` gives the 0/1 mask m (of t's
    shape, zero wherever ``default_mask`` is); the pruned tensor is m ⊙ t."""

    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        """The forward pre-hook: ``module.<name> = <name>_mask ⊙ <name>_orig``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for scores ``t``, on top of ``default_mask`` (the earlier pruning)."""

    def apply_mask(self, module: Module) -> Tensor:
        """m ⊙ orig, m cast to orig's dtype: d/d orig = m."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(
        cls,
        module: Module,
        name: str,
        *args: Any,
        importance_scores: Tensor | None = None,
        **kwargs: Any,
    ) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (scored by
        ``importance_scores``, else by the tensor itself): rename the parameter
        ``<name>_orig`` (first pruning only), store the mask as ``<name>_mask``, set
        ``<name>`` to the pruned tensor and register the method as a forward pre-hook.
        Returns the hook: the method, or the container holding it with the earlier ones."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = chainrule.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # undo the renaming (as PyTorch, the earlier hook stays dropped)
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(
        self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None
    ) -> Tensor:
        """m ⊙ t, m the mask for ``importance_scores`` (else t) on top of ``default_mask``
        (else ones)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, "
                    f"got {importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else chainrule.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: the parameter ``<name>`` (the ``<name>_orig``
        Parameter object) holds m ⊙ orig; ``<name>_orig`` and ``<name>_mask`` go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(
    cls: type[BasePruningMethod], module: Module, name: str, *args: Any, **kwargs: Any
) -> BasePruningMethod:
    """The hook for pruning ``name`` with ``cls(*args, **kwargs)``: the new method alone,
    or, when ``name`` is already pruned, the earlier hook's container with it appended
    (the earlier hook is unregistered first)."""
    found = [
        (key, hook)
        for key, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(found) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    for key, _ in found:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not found:
        return method
    old = found[0][1]
    if isinstance(old, PruningContainer):
        old.add_pruning_method(method)
        return old
    container = PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor (iterative pruning). The mask of
    the latest method is computed on what the earlier mask d left: the entries with d = 1
    (``"unstructured"``), the channels along ``dim`` with some d ≠ 0 (``"structured"``),
    or everything (``"global"``), and written into d there."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod | None) -> None:
        """Append ``method`` (one acting on this container's tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. "
                f"Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)  # type: ignore[operator]

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Iterator[BasePruningMethod]:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """d with the latest method's mask written over the part of t it may prune."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            region: Any = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            n_dims = t.dim()
            dim = method.dim if method.dim >= 0 else n_dims + method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            others = [d for d in range(n_dims) if d != dim]
            region = [slice(None)] * n_dims
            region[dim] = default_mask.sum(dim=others) != 0
            region = tuple(region)
        elif kind == "global":
            region = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[region], default_mask=default_mask[region])
        new_mask[region] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: m = d (the reparameterization with a mask of ones)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> Identity:  # type: ignore[override]
        return super().apply(module, name)  # type: ignore[return-value]


class _Unstructured(BasePruningMethod):
    """Zeroes ``amount`` entries (an int, or a fraction of t's entries): the k with the
    largest (or smallest) ``_scores`` (ties: as PyTorch's topk)."""

    PRUNING_TYPE = "unstructured"
    _largest = True

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def _scores(self, t: Tensor) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        size = t.nelement()
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        mask = default_mask.clone()
        if k != 0:
            chosen = _topk_indices(self._scores(t), k, largest=self._largest)
            mask.view(-1)[_index(chosen, mask)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Zeroes ``amount`` entries (an int, or a fraction of t's entries) chosen uniformly at
    random: those with the largest of iid U(0, 1) draws (PyTorch's, under the same seed)."""

    def _scores(self, t: Tensor) -> Tensor:
        return chainrule.rand_like(t)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float) -> RandomUnstructured:  # type: ignore[override]
        return super().apply(module, name, amount=amount)  # type: ignore[return-value]


class L1Unstructured(_Unstructured):
    """Zeroes the ``amount`` entries of smallest |t| (ties: as PyTorch's topk)."""

    _largest = False

    def _scores(self, t: Tensor) -> Tensor:
        return chainrule.abs(t)

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Module, name: str, amount: int | float, importance_scores: Tensor | None = None
    ) -> L1Unstructured:
        return super().apply(  # type: ignore[return-value]
            module, name, amount=amount, importance_scores=importance_scores
        )


class RandomStructured(BasePruningMethod):
    """Zeroes ``amount`` whole channels along ``dim`` chosen uniformly at random (those
    whose U(0, 1) draw is at most the ``amount``-th smallest draw; PyTorch's draws)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, channels)
        _validate_pruning_amount(k, channels)
        if k == 0:
            return default_mask
        prob = chainrule.rand(channels)
        threshold = chainrule.kthvalue(prob, k=k).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Module, name: str, amount: int | float, dim: int = -1
    ) -> RandomStructured:
        return super().apply(module, name, amount=amount, dim=dim)  # type: ignore[return-value]


class LnStructured(BasePruningMethod):
    """Zeroes the ``amount`` channels along ``dim`` of smallest L``n`` norm, the norm
    ``torch.norm(t, p=n)`` over every other dim (ties: as PyTorch's topk)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, channels)
        _validate_pruning_amount(k, channels)
        norm = _compute_norm(t, self.n, self.dim)
        kept = _topk_indices(norm, channels - k, largest=True)
        if k == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, _index(kept, t))
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module: Module,
        name: str,
        amount: int | float,
        n: Any,
        dim: int,
        importance_scores: Tensor | None = None,
    ) -> LnStructured:
        return super().apply(  # type: ignore[return-value]
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """The given ``mask`` on top of d: m = d ⊙ mask."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match "
                f"self.mask shape {self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> CustomFromMask:  # type: ignore[override]
        return super().apply(module, name, mask=mask)  # type: ignore[return-value]


# ----- the functions -------------------------------------------------------------------------


def identity(module: Module, name: str) -> Module:
    """Reparameterize ``module.<name>`` with a mask of ones; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: int | float) -> Module:
    """Prune ``amount`` random unpruned entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Module, name: str, amount: int | float, importance_scores: Tensor | None = None
) -> Module:
    """Prune the ``amount`` unpruned entries of ``module.<name>`` of smallest |score|
    (the score: ``importance_scores``, else the tensor); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: int | float, dim: int) -> Module:
    """Prune ``amount`` random unpruned channels along ``dim``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Module,
    name: str,
    amount: int | float,
    n: Any,
    dim: int,
    importance_scores: Tensor | None = None,
) -> Module:
    """Prune the ``amount`` unpruned channels along ``dim`` of smallest L``n`` norm;
    returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(
    parameters: Iterable[tuple[Module, str]],
    pruning_method: type[BasePruningMethod],
    importance_scores: dict | None = None,
    **kwargs: Any,
) -> None:
    """Prune the (module, name) tensors as one: the scores (``importance_scores[(module,
    name)]``, else the tensors) and masks flattened into one vector, pruned by
    ``pruning_method(**kwargs)`` (an ``"unstructured"`` method), and each tensor given its
    slice of the mask by :func:`custom_from_mask`."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    flat = chainrule.nn.utils.parameters_to_vector
    scores = flat(
        [
            importance_scores.get((module, name), getattr(module, name))
            for module, name in parameters
        ]
    )
    default_mask = flat(
        [
            getattr(module, name + "_mask", chainrule.ones_like(getattr(module, name)))
            for module, name in parameters
        ]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + size].view_as(param))
        start += size


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent and drop its hook; returns ``module``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or a submodule has a pruning method among its forward pre-hooks."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, submodule in module.named_modules()
        for hook in submodule._forward_pre_hooks.values()
    )


# ----- amounts, dims, norms --------------------------------------------------------------------


def _validate_pruning_amount_init(amount: Any) -> None:
    """An amount is a real: an int ≥ 0 (a count) or a float in [0, 1] (a fraction)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    """A count can be at most the number of entries (channels) there are."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _validate_structured_pruning(t: Tensor) -> None:
    """Channels need a tensor of two or more dims."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )


def _compute_nparams_toprune(amount: int | float, tensor_size: int) -> int:
    """A count as it is; a fraction f of n as round(f·n) (half to even, as Python)."""
    if isinstance(amount, numbers.Integral):
        return amount  # type: ignore[return-value]
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: Any, dim: int) -> Tensor:
    """Each channel's ``torch.norm(p=n)`` over all dims but ``dim``."""
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return chainrule.norm(t, p=n, dim=dims)


def _channel_mask(t: Tensor, dim: int, channels: Tensor) -> Tensor:
    """Zeros of t's shape with ones on the given channels (a bool or index tensor) of dim."""
    mask = chainrule.zeros_like(t)
    index: list[Any] = [slice(None)] * len(t.shape)
    index[dim] = channels
    mask[tuple(index)] = 1
    return mask


def _index(indices: np.ndarray, like: Tensor) -> Tensor:
    """An int64 index tensor on ``like``'s device."""
    return chainrule.as_tensor(indices, dtype=chainrule.int64, device=like.device)


# ----- PyTorch's CPU topk: which of equal scores it selects ------------------------------------
# PyTorch selects the k smallest (largest) of n scores with libstdc++'s std::partial_sort when
# k * 64 <= n, else std::nth_element, on (score, index) pairs compared by score alone; among equal
# scores the ones selected are those these algorithms leave in front. The set is all that matters
# for a mask, so only the selection is replayed (not the sort of the first k that follows).


def _topk_indices(scores: Tensor, k: int, largest: bool) -> np.ndarray:
    """The indices of the flattened ``scores`` that PyTorch's CPU ``topk(k, largest)`` returns
    (as a set, ascending); nan ranks above every number, as in PyTorch."""
    values = scores.detach().cpu()
    if values.dtype is chainrule.bfloat16:  # (no NumPy view; float32 holds it exactly)
        values = values.float()
    key = _ranks(values.numpy().ravel(), largest)
    n = key.size
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    kth = np.partition(key, k - 1)[k - 1]
    if np.count_nonzero(key <= kth) == k:  # no tie straddles the cut: the set is plain
        return np.flatnonzero(key <= kth)
    pairs = list(zip(key.tolist(), range(n), strict=True))
    if k * 64 <= n:
        _heap_select(pairs, 0, k, n)
    else:
        _introselect(pairs, 0, k - 1, n)
    return np.sort(np.array([i for _, i in pairs[:k]], dtype=np.int64))


def _ranks(values: np.ndarray, largest: bool) -> np.ndarray:
    """Integer keys whose order is topk's comparison: ascending with nan last, or (largest)
    descending with nan first; equal scores get equal keys."""
    nan = np.isnan(values) if values.dtype.kind in "fc" else np.zeros(values.shape, dtype=bool)
    _, rank = np.unique(np.where(nan, 0, values), return_inverse=True)
    rank = rank.astype(np.int64).ravel()
    rank = np.where(nan, rank.max(initial=0) + 1, rank)
    return -rank if largest else rank


def _sift(a: list, base: int, hole: int, length: int, value: tuple) -> None:
    """libstdc++'s __adjust_heap then __push_heap: a max-heap of ``length`` pairs from
    ``a[base]``, ``value`` put in at ``hole``."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if a[base + child][0] < a[base + child - 1][0]:
            child -= 1
        a[base + hole] = a[base + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[base + hole] = a[base + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[base + parent][0] < value[0]:
        a[base + hole] = a[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[base + hole] = value


def _heap_select(a: list, first: int, middle: int, last: int) -> None:
    """libstdc++'s __heap_select: the ``middle - first`` smallest of a[first:last] end up in
    a[first:middle] (a max-heap, each smaller later pair replacing its top)."""
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _sift(a, first, parent, length, a[first + parent])
    for i in range(middle, last):
        if a[i][0] < a[first][0]:
            value = a[i]
            a[i] = a[first]
            _sift(a, first, 0, length, value)


def _introselect(a: list, first: int, nth: int, last: int) -> None:
    """libstdc++'s std::nth_element: median-of-three quickselect with Hoare partitions, a
    heap select past 2·log2(n) rounds, an insertion sort of the last ≤ 3 pairs."""
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        lo = _partition_around_median(a, first, last)
        if lo <= nth:
            first = lo
        else:
            last = lo
    _insertion_sort(a, first, last)


def _partition_around_median(a: list, first: int, last: int) -> int:
    """The median of a[first + 1], a[middle], a[last - 1] swapped to a[first], then an
    unguarded Hoare partition of a[first + 1:last] around it; returns the cut."""
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    kx, ky, kz = a[x][0], a[y][0], a[z][0]
    if kx < ky:
        median = y if ky < kz else (z if kx < kz else x)
    elif kx < kz:
        median = x
    elif ky < kz:
        median = z
    else:
        median = y
    a[first], a[median] = a[median], a[first]
    pivot = a[first][0]
    lo, hi = first + 1, last
    while True:
        while a[lo][0] < pivot:
            lo += 1
        hi -= 1
        while pivot < a[hi][0]:
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _insertion_sort(a: list, first: int, last: int) -> None:
    """libstdc++'s __insertion_sort of a[first:last] (stable)."""
    for i in range(first + 1, last):
        value = a[i]
        if value[0] < a[first][0]:
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            j = i
            while value[0] < a[j - 1][0]:
                a[j] = a[j - 1]
                j -= 1
            a[j] = value
