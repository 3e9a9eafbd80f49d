"""``nn.Parameter`` and ``nn.Buffer``: tensors that a Module registers when they are assigned.

A Parameter is a Tensor subclass that shares its data (and version counter) with the
tensor it was made from, is a leaf, and requires grad unless told otherwise. Ops on it
give plain Tensors, as PyTorch's do: only construction, ``deepcopy`` and pickling make
Parameters. A Buffer is a tensor that a Module takes as a buffer when it is assigned
(``persistent`` says whether ``state_dict`` saves it).

``UninitializedParameter`` and ``UninitializedBuffer`` are the placeholders of the lazy
modules (``LazyLinear`` ...): they hold no data and no shape until ``materialize(shape)``
gives them both, when they become a ``Parameter`` and a plain ``Tensor``.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import _tensor
from .._backend import xp
from .._dtypes import get_default_dtype
from .._layout import strided as _strided
from .._tensor import Tensor, _counter, _make
from ..overrides import _disabled_torch_function_impl

__all__ = [
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "UninitializedTensorMixin",
    "is_lazy",
]


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
    t._post_hooks = None
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


class _ParameterMeta(type):
    """Parameter's metaclass (PyTorch's): ``isinstance(t, Parameter)`` (not of a subclass)
    is also True for a tensor whose ``_is_param`` attribute is true (custom tensor classes
    standing for parameters)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if type.__instancecheck__(cls, instance):
            return True
        if cls is not Parameter or not isinstance(instance, Tensor):
            return False
        # (the instance's own attributes and its class's, read without Tensor.__getattr__,
        # which makes a missing attribute cost a raised exception: this check runs on
        # every Module attribute assignment)
        own = vars(instance)
        if "_is_param" in own:
            return bool(own["_is_param"])
        return bool(getattr(type(instance), "_is_param", False))


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    ``Parameter(data, requires_grad=True)`` shares ``data``'s memory; it is a leaf even
    when ``data`` is not, and requires grad by default (also under ``no_grad``).
    """

    __torch_function__ = _disabled_torch_function_impl  # ops on it give plain tensors

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        data = _check_data(data)
        if data.layout is not _strided:  # (a sparse tensor: chainrule/sparse)
            from ..sparse._tensor import as_parameter

            return as_parameter(data, requires_grad)
        if requires_grad and data._dtype._category < 2:
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


_tensor.PARAMETER[0] = Parameter  # (entries take it as a plain tensor)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is also true of a tensor that ``Buffer(...)`` made (a plain
    Tensor flagged ``_is_buffer``)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer and isinstance(instance, Tensor):
            if getattr(instance, "_is_buffer", False):
                return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a Module registers as a buffer when it is assigned to an attribute.

    ``Buffer(data, persistent=True)`` is, as in PyTorch, a plain Tensor (``data`` detached,
    sharing its memory) flagged as a buffer; ``persistent=False`` keeps it out of the
    module's ``state_dict``.
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Any:
        data = _check_data(data)
        t = data.detach().requires_grad_(data._requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


# ----- the lazy modules' placeholders ------------------------------------------------------


class UninitializedTensorMixin:
    """A tensor without data or shape yet: ``materialize(shape)`` gives it both and turns it
    into ``cls_to_become``."""

    __slots__ = ()
    cls_to_become: type = Tensor

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor uninitialised data of ``shape`` (and ``dtype``, by default its
        own) and turn it into ``cls_to_become``."""
        from .. import _dtypes
        from .._creation import empty

        dt = self._dtype if dtype is None else _dtypes.to_dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        where = self.device if device is None else device  # (the placeholder's, by default)
        self._data = empty(shape, dtype=dt, device=where)._data
        self._dtype = dt
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes."
        )

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """A placeholder of the new dtype or on the new device (there is no data to convert):
        ``Module.to`` and ``double()`` keep a lazy module lazy, and its first forward makes its
        data there."""
        from .._dtypes import dtype as DType
        from .._tensor import device as Device

        dt = kwargs.get("dtype") or next((a for a in args if isinstance(a, DType)), None)
        where = kwargs.get("device") or next(
            (a for a in args if isinstance(a, (str, Device)) or type(a) is int), None
        )
        where = None if where is None else Device(where)
        if (dt is None or dt == self._dtype) and (where is None or where == self.device):
            return self
        dt = self._dtype if dt is None else dt
        return type(self)(self._requires_grad, device=where or self.device, dtype=dt)

    def float(self) -> Any:
        from .._dtypes import float32

        return self.to(float32)

    def double(self) -> Any:
        from .._dtypes import float64

        return self.to(float64)

    def half(self) -> Any:
        from .._dtypes import float16

        return self.to(float16)

    def share_memory_(self) -> Any:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`."
        )

    def __repr__(self, *args: Any, **kwargs: Any) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (self.__class__, (self._requires_grad,))


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is a lazy module's placeholder, not materialised yet."""
    return isinstance(param, UninitializedTensorMixin)


def _empty(dtype: Any, device: Any = None) -> Tensor:
    """No data, on ``device`` (the default device when None): where materialize puts it."""
    from .. import _dtypes
    from .._creation import empty

    dt = get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    return _make(empty((0,), dtype=dt, device=device)._data, dt)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape a lazy module infers from its first input; it becomes a
    ``Parameter`` when materialised."""

    cls_to_become = Parameter

    def __new__(
        cls, requires_grad: bool = True, device: Any = None, dtype: Any = None
    ) -> UninitializedParameter:
        return _alias(cls, _empty(dtype, device), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, self.device, self._dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module infers from its first input; it becomes a plain
    ``Tensor`` when materialised."""

    __slots__ = ()
    cls_to_become = Tensor
    __torch_function__ = _disabled_torch_function_impl  # (PyTorch's refuses ops: not here)

    def __new__(
        cls,
        requires_grad: bool = False,
        device: Any = None,
        dtype: Any = None,
        persistent: bool = True,
    ) -> UninitializedBuffer:
        t = _alias(cls, _empty(dtype, device), requires_grad)
        t._vc = None
        return t

    def __init__(
        self,
        requires_grad: bool = False,
        device: Any = None,
        dtype: Any = None,
        persistent: bool = True,
    ) -> None:
        pass
