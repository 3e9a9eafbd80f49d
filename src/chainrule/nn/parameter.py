"""``nn.Parameter`` and ``nn.Buffer``: tensors that a Module registers when they are assigned.

A Parameter is a Tensor subclass that shares its data (and version counter) with the
tensor it was made from, is a leaf, and requires grad unless told otherwise. Ops on it
give plain Tensors, as PyTorch's do: only construction, ``deepcopy`` and pickling make
Parameters. A Buffer is a tensor that a Module takes as a buffer when it is assigned
(``persistent`` says whether ``state_dict`` saves it).

``UninitializedParameter`` (for the lazy modules) is not implemented yet.
"""

from __future__ import annotations

import copy
from typing import Any

from .._backend import xp
from .._dtypes import get_default_dtype
from .._tensor import Tensor, _counter, _make

__all__ = ["Parameter", "Buffer"]


def _alias(cls: type, data: Tensor, requires_grad: bool) -> Any:
    """A new leaf of class ``cls`` sharing ``data``'s array and version counter."""
    t = object.__new__(cls)
    t._data = data._data
    t._dtype = data._dtype
    t._requires_grad = bool(requires_grad)
    t._grad_fn = None
    t._output_nr = 0
    t._grad = None
    t._vc = _counter(data)
    t._acc = None
    t._retains_grad = False
    t._hooks = None
    t._view = None
    return t


def _check_data(data: Any) -> Tensor:
    """The data of a new Parameter or Buffer: a tensor, or an empty one for None."""
    if data is None:
        dt = get_default_dtype()
        return _make(xp.zeros((0,), dtype=dt.np), dt)
    if not isinstance(data, Tensor):
        data.detach()  # PyTorch detaches the data: Python's own AttributeError for a non-tensor
        raise TypeError(f"expected a Tensor as data, got {type(data).__name__}")
    return data


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    ``Parameter(data, requires_grad=True)`` shares ``data``'s memory; it is a leaf even
    when ``data`` is not, and requires grad by default (also under ``no_grad``).
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        data = _check_data(data)
        if requires_grad and not data._dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        return _alias(cls, data, requires_grad)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        """A Parameter holding a copy of the data (without the ``.grad``, as PyTorch's)."""
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_make(self._data.copy(), self._dtype), self._requires_grad)
        state = getattr(self, "__dict__", None)
        if state:
            result.__dict__.update(copy.deepcopy(state, memo))
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> tuple:
        state = dict(getattr(self, "__dict__", {}))
        return (_rebuild_parameter, (self.data, self._requires_grad, state))


def _rebuild_parameter(data: Tensor, requires_grad: bool, state: dict) -> Parameter:
    p = Parameter(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class Buffer(Tensor):
    """A tensor that a Module registers as a buffer when it is assigned to an attribute.

    ``Buffer(data, persistent=True)`` shares ``data``'s memory; ``persistent=False`` keeps
    it out of the module's ``state_dict``.
    """

    __slots__ = ("persistent",)

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        data = _check_data(data)
        t = _alias(cls, data, data._requires_grad)
        t.persistent = persistent
        return t

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (_rebuild_buffer, (self.detach(), self.persistent))


def _rebuild_buffer(data: Tensor, persistent: bool) -> Buffer:
    return Buffer(data, persistent=persistent)
