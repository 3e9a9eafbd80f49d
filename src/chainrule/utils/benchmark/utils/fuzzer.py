"""``Fuzzer``: random parameter sets, and tensors shaped by them, to benchmark over.

Draws come from one ``numpy.random.RandomState(seed)`` in PyTorch's order, so a seed
gives the same parameters (sizes, strides, layouts) as PyTorch's ``Fuzzer``; tensor
values come from ``chainrule.rand``/``randint`` after ``manual_seed``, and differ from
PyTorch's values.

Deliberate difference: PyTorch 2.13 rejects every dict ``distribution`` whose
probabilities sum to one ("Distribution is not normalized": its check is inverted), so no
dict distribution can be used there; chainrule rejects the ones that do not sum to one.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["FuzzedParameter", "FuzzedTensor", "Fuzzer", "ParameterAlias"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class FuzzedParameter:
    """A named value drawn per step: ``"loguniform"`` (uniform in log2 between ``minval``
    and ``maxval``, truncated to int and clamped), ``"uniform"`` (integers in
    [minval, maxval] when both bounds are ints, else a float), or a dict of
    ``{value: probability}``. A ``strict`` parameter keeps its first draw when the fuzzer
    redraws a rejected set."""

    def __init__(
        self,
        name: str,
        minval: int | float | None = None,
        maxval: int | float | None = None,
        distribution: str | dict[Any, float] | None = None,
        strict: bool = False,
    ) -> None:
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self) -> str:
        return self._name

    def _check_distribution(self, distribution: Any) -> Any:
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None:
            raise AssertionError("When passing a custom distribution, 'minval' must be None")
        if self._maxval is not None:
            raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def sample(self, state: np.random.RandomState) -> Any:
        """One draw from ``state``."""
        if self._distribution == "loguniform":
            return self._loguniform(state)
        if self._distribution == "uniform":
            return self._uniform(state)
        return self._choice(state)

    def _loguniform(self, state: np.random.RandomState) -> int:
        low = np.log2(self._minval) if self._minval is not None else None
        high = np.log2(self._maxval) if self._maxval is not None else None
        value = int(2 ** state.uniform(low=low, high=high))
        if self._minval is not None and value < self._minval:
            return self._minval  # type: ignore[return-value]
        if self._maxval is not None and value > self._maxval:
            return self._maxval  # type: ignore[return-value]
        return value

    def _uniform(self, state: np.random.RandomState) -> int | float:
        if isinstance(self._minval, int) and isinstance(self._maxval, int):
            return int(state.randint(low=self._minval, high=self._maxval + 1))
        return state.uniform(low=self._minval, high=self._maxval)

    def _choice(self, state: np.random.RandomState) -> Any:
        values = list(self._distribution)
        index = state.choice(np.arange(len(values)), p=tuple(self._distribution.values()))
        return values[index]


class ParameterAlias:
    """A parameter value that stands for the value of parameter ``alias_to``."""

    def __init__(self, alias_to: str) -> None:
        self.alias_to = alias_to

    def __repr__(self) -> str:
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def _dtype_bytes(dtype: Any) -> int:
    """Bytes per element of ``dtype``."""
    import chainrule

    if dtype == chainrule.bool:
        return 1
    if dtype.is_floating_point or dtype.is_complex:
        return chainrule.finfo(dtype).bits // 8
    return chainrule.iinfo(dtype).bits // 8


def _product(values: Iterable[Any], start: int = 1) -> int:
    """The product in Python integers (a NumPy product of sizes can overflow)."""
    return functools.reduce(lambda a, b: int(a) * int(b), values, start)


class FuzzedTensor:
    """A tensor of shape ``size`` (names resolve to parameters), taken every ``steps``
    elements from a larger one, laid out non-contiguously with probability
    ``1 - probability_contiguous`` (permute, ``contiguous()``, permute back). A parameter
    set is rejected if the tensor has fewer than ``min_elements`` or more than
    ``max_elements`` elements, or needs more than ``max_allocation_bytes``.
    ``cuda=True`` places it with ``.cuda()`` (chainrule's CuPy device)."""

    def __init__(
        self,
        name: str,
        size: tuple[str | int, ...],
        steps: tuple[str | int, ...] | None = None,
        probability_contiguous: float = 0.5,
        min_elements: int | None = None,
        max_elements: int | None = None,
        max_allocation_bytes: int | None = None,
        dim_parameter: str | None = None,
        roll_parameter: str | None = None,
        dtype: Any = None,
        cuda: bool = False,
        tensor_constructor: Callable[..., Any] | None = None,
    ) -> None:
        import chainrule

        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = chainrule.float32 if dtype is None else dtype
        self._cuda = cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def default_tensor_constructor(size: tuple[int, ...], dtype: Any, **kwargs: Any) -> Any:
        """Uniform [0, 1) floats, or integers in [1, 127)."""
        import chainrule

        if dtype.is_floating_point or dtype.is_complex:
            return chainrule.rand(tuple(size), dtype=dtype, device="cpu")
        return chainrule.randint(1, 127, tuple(size), dtype=dtype, device="cpu")

    def _sizes(self, params: dict[str, Any]) -> tuple[tuple[int, ...], ...]:
        """(size, steps, allocation size), cut or padded with 1s to the dimension."""
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values: Iterable[Any]) -> tuple[int, ...]:
            out = tuple(params.get(v, v) for v in values)[:dim]
            return out + (1,) * (dim - len(out))

        size, steps = resolve(self._size), resolve(self._steps or ())
        return size, steps, tuple(n * s for n, s in zip(size, steps, strict=True))

    def _make_tensor(self, params: dict[str, Any], state: np.random.RandomState) -> Any:
        size, steps, allocation = self._sizes(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation, dtype=self._dtype, **params)
        if self._cuda:
            raw = raw.cuda()
        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(raw.dim())
            raw = raw.permute(tuple(order)).contiguous().permute(tuple(np.argsort(order)))
        tensor = raw[tuple(slice(0, n * s, s) for n, s in zip(size, steps, strict=True))]
        properties = {
            "numel": int(tensor.numel()),
            "order": order,
            "steps": steps,
            "is_contiguous": tensor.is_contiguous(),
            "dtype": str(self._dtype),
        }
        return tensor, properties

    def satisfies_constraints(self, params: dict[str, Any]) -> bool:
        size, _, allocation = self._sizes(params)
        numel = _product(size)
        if numel < 0:
            raise AssertionError("Computed number of elements is negative")
        nbytes = _product(allocation, _dtype_bytes(self._dtype))
        too_many = self._max_elements is not None and numel > self._max_elements
        too_few = self._min_elements is not None and self._min_elements > numel
        too_big = self._max_allocation_bytes is not None and nbytes > self._max_allocation_bytes
        return not (too_many or too_few or too_big)


def _flatten(values: Iterable[Any], cls: type) -> tuple[Any, ...]:
    """Items of ``cls`` kept, other items (lists) unpacked one level."""
    return tuple(itertools.chain.from_iterable([v] if isinstance(v, cls) else v for v in values))


class Fuzzer:
    """Yields ``(tensors, tensor_properties, params)`` steps: parameters drawn and redrawn
    (up to 1000 times) until every ``constraint(params)`` and every tensor's size limits
    hold, then the tensors made from them. ``seed`` fixes the draws (and seeds chainrule's
    generator for the tensor values)."""

    def __init__(
        self,
        parameters: list[FuzzedParameter | list[FuzzedParameter]],
        tensors: list[FuzzedTensor | list[FuzzedTensor]],
        constraints: list[Callable[..., bool]] | None = None,
        seed: int | None = None,
    ) -> None:
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2**32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = _flatten(parameters, FuzzedParameter)
        self._tensors = _flatten(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    def take(self, n: int) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
        import chainrule

        state = np.random.RandomState(self._seed)
        chainrule.manual_seed(int(state.randint(low=0, high=2**63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors, properties = {}, {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self) -> float:
        """The fraction of drawn parameter sets that were rejected."""
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state: np.random.RandomState) -> dict[str, Any]:
        strict: dict[str, Any] = {}
        for _ in range(1000):
            params: dict[str, Any] = {}
            for p in self._parameters:
                if p.strict and p.name in strict:
                    params[p.name] = strict[p.name]
                    continue
                params[p.name] = p.sample(state)
                if p.strict:
                    strict[p.name] = params[p.name]
            params = self._resolve_aliases(params)
            self._total_generated += 1
            if all(f(params) for f in self._constraints) and all(
                t.satisfies_constraints(params) for t in self._tensors
            ):
                return params
            self._rejections += 1
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params: dict[str, Any]) -> dict[str, Any]:
        """Replace each ``ParameterAlias`` by the value it names, following chains."""
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for key, value in params.items():
                if isinstance(value, ParameterAlias):
                    params[key] = params[value.alias_to]
            still = sum(isinstance(v, ParameterAlias) for v in params.values())
            if still == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = still
        return params
