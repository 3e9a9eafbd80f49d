"""``torch.overrides``: the ``__torch_function__`` protocol.

A type that defines ``__torch_function__(cls, func, types, args, kwargs)`` (a Tensor
subclass, or a Tensor-like class that is not a Tensor) takes over every public function
it is passed to: ``chainrule.<fn>``, ``chainrule.linalg``/``special``/``nn.functional``
functions, Tensor methods, properties and operators call
``type(arg).__torch_function__(func, types, args, kwargs)`` instead of running, where
``func`` is the public function called. The argument types are tried subclasses before
their superclasses, then left to right; the first result that is not ``NotImplemented``
is the call's result, and when all give ``NotImplemented`` the call raises PyTorch's
TypeError. A ``TorchFunctionMode`` sees every such call while it is active (innermost
first; it is set aside while its own handler runs, so the handler calling ``func`` goes
on to the next mode, then to the arguments' types).

``Tensor.__torch_function__`` (the default, which every Tensor subclass inherits) runs
``func`` with subclass dispatch off and returns its tensors as the subclass
(``as_subclass``); ``_disabled_torch_function_impl`` opts a subclass out (``nn.Parameter``:
ops on it give plain tensors).

Cost: none while unused. The public functions are installed plain (api/__init__.py); only
when the first class with its own ``__torch_function__`` is defined (a Tensor subclass,
seen by ``Tensor.__init_subclass__``; a Tensor-like class, seen when its ``class``
statement runs, through a wrapper of ``builtins.__build_class__``) or a mode is entered
does ``enable()`` put dispatching wrappers in their place, and the calls on plain tensors
start to pay for one check of their arguments' types.

Differences from PyTorch:

- the state (modes, the disabling context managers) is global, not per thread;
- ``func`` is the public function (``torch.add``; ``Tensor.mul`` for ``x * y``, as PyTorch
  names it), but ``args``/``kwargs`` are those the caller gave, where PyTorch's Python
  functions pass every keyword with its default (``F.relu`` gets ``{'inplace': False}``,
  ``Tensor.backward`` its four keywords);
- a Tensor-like class defined before chainrule was imported, made by calling
  ``type(...)``, or given ``__torch_function__`` after its ``class`` statement, is not
  seen, so it takes over nothing until some other override or a mode turns dispatch on;
- once dispatch is on, ``chainrule.<fn>`` is the dispatching wrapper: it equals (``==``,
  same hash) the plain function a module captured before, but is not it (``is``);
- the namespaces that dispatch are ``chainrule``, ``Tensor``, ``linalg``, ``special`` and
  ``nn.functional`` (the name table's, plus the factories and ``*_like`` functions):
  ``torch.fft``, ``torch.signal`` and the other modules loaded on first use do not;
- ``get_testing_overrides`` gives ``lambda *args, **kwargs: -1`` for each function, not
  one with its signature; the lists of ``get_overridable_functions`` are chainrule's
  names (the name table's, and the factories and ``*_like`` functions);
- ``copy.deepcopy`` of a subclass instance copies it (PyTorch asks for ``new_empty``);
  ``UninitializedParameter``/``UninitializedBuffer`` opt out (PyTorch's raise on use);
- ``torch._C`` does not exist: ``DisableTorchFunction``, ``DisableTorchFunctionSubclass``
  and ``_disabled_torch_function_impl`` are here.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from types import MethodType
from typing import Any

from ._tensor import Tensor

__all__ = [
    "BaseTorchFunctionMode",
    "TorchFunctionMode",
    "enable_reentrant_dispatch",
    "get_default_nowrap_functions",
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "resolve_name",
    "wrap_torch_function",
]


# ----- the state ---------------------------------------------------------------------------


class _State:
    __slots__ = ("enabled", "subclass_off", "all_off", "classes")

    def __init__(self) -> None:
        self.enabled = False  # the dispatching wrappers are installed
        self.subclass_off = 0  # open DisableTorchFunctionSubclass blocks
        self.all_off = 0  # open DisableTorchFunction blocks
        self.classes = False  # a class with its own __torch_function__ has been defined


_state = _State()
_modes: list[Any] = []  # the TorchFunctionMode stack, innermost last


def _disabled_torch_function_impl(
    func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
) -> Any:
    """The opt-out: ``__torch_function__ = _disabled_torch_function_impl`` makes a Tensor
    subclass's arguments plain tensors to dispatch (``func`` runs, its results are not
    converted)."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass``: inside, the arguments' own
    ``__torch_function__`` are not called (modes still are)."""

    def __enter__(self) -> None:
        _state.subclass_off += 1

    def __exit__(self, *exc: Any) -> None:
        _state.subclass_off -= 1


class DisableTorchFunction:
    """``torch._C.DisableTorchFunction``: inside, neither the arguments' ``__torch_function__``
    nor the modes are called."""

    def __enter__(self) -> None:
        _state.all_off += 1

    def __exit__(self, *exc: Any) -> None:
        _state.all_off -= 1


# ----- which arguments override ------------------------------------------------------------

# type -> whether its instances override (a __torch_function__ that is neither Tensor's
# default on a plain Tensor nor the opt-out); plain Tensors never do, as in PyTorch's C++ path
_OVERRIDES: dict[type, bool] = {Tensor: False, int: False, float: False, bool: False}


def _type_overrides(c: type) -> bool:
    known = _OVERRIDES.get(c)
    if known is None:
        tf = getattr(c, "__torch_function__", None)
        known = tf is not None and getattr(tf, "__func__", tf) is not _disabled_torch_function_impl
        if c is Tensor:
            known = False
        _OVERRIDES[c] = known
    return known


def _add_type(types: list[type], c: type) -> None:
    """Put ``c`` in the dispatch order: before the first of its superclasses, else last."""
    if c in types:
        return
    for i, t in enumerate(types):
        if issubclass(c, t):
            types.insert(i, c)
            return
    types.append(c)


def _overloaded(values: Iterable[Any]) -> list[type]:
    """The types among ``values`` (and the items of the lists and tuples among them) whose
    ``__torch_function__`` is to be called, in dispatch order."""
    types: list[type] = []
    for v in values:
        c = v.__class__
        if c is list or c is tuple:
            for item in v:
                if _type_overrides(item.__class__):
                    _add_type(types, item.__class__)
        elif _type_overrides(c):
            _add_type(types, c)
    return types


def _relevant(args: tuple, kwargs: dict) -> list[type]:
    if _state.subclass_off or _state.all_off:
        return []
    types = _overloaded(args)
    if kwargs:
        for c in _overloaded(kwargs.values()):
            _add_type(types, c)
    return types


# ----- dispatch ----------------------------------------------------------------------------


def _no_implementation(name: str, types: list[type], python: bool) -> TypeError:
    if python:
        return TypeError(
            f"no implementation found for '{name}' on types that implement "
            f"__torch_function__: {types}"
        )
    lines = "".join(f"  - tensor subclass {t}\n" for t in types)
    error = TypeError(
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n{lines}\nFor more information, try re-running with "
        "TORCH_LOGS=not_implemented"
    )
    error.not_handled = True  # type: ignore[attr-defined]  (what the operators look for)
    return error


def _dispatch(
    func: Callable, types: list[type], args: tuple, kwargs: Any, name: str | None, python: bool
) -> Any:
    """``func(*args, **kwargs)`` handed to the innermost mode, then to ``types`` in order."""
    as_tuple = tuple(types)
    if _modes and not _state.all_off:
        mode = _modes.pop()  # set aside while it runs: func called inside goes further in
        try:
            result = mode.__torch_function__(func, as_tuple, args, kwargs)
        finally:
            _modes.append(mode)
        if result is not NotImplemented:
            return result
    for t in types:
        result = t.__torch_function__(func, as_tuple, args, kwargs)
        if result is not NotImplemented:
            return result
    if name is None:  # a function of the user's (handle_torch_function)
        name = resolve_name(func) or f"{func.__module__}.{func.__name__}"
    raise _no_implementation(name, types, python)


class _Overridable:
    """A public function that hands its call to the overrides there are (``name``: the one
    PyTorch's errors give; ``python``: PyTorch's is a Python function, so its handlers get
    a dict of keywords, never None, and its error is the Python one).

    It equals (and hashes as) the plain function it wraps, so a table of handlers keyed
    by ``torch.mean`` before dispatch was on still finds it (the note's ``implements``)."""

    def __init__(self, plain: Callable, name: str, python: bool) -> None:
        functools.update_wrapper(self, plain)
        self._plain = plain
        self._name = name
        self._python = python

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        types = _relevant(args, kwargs)
        if not types and not (_modes and not _state.all_off):
            return self._plain(*args, **kwargs)
        python = self._python
        return _dispatch(
            self, types, args, kwargs if python or kwargs else None, self._name, python
        )

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        return self if obj is None else MethodType(self, obj)

    def __eq__(self, other: object) -> bool:
        return other is self or other is self._plain

    def __hash__(self) -> int:
        return hash(self._plain)

    def __repr__(self) -> str:
        return repr(self._plain)


def _overridable_operator(raw: Callable, name: str, as_func: Callable | None) -> Callable:
    """A binary operator: handled as ``as_func`` (``x * y`` as ``Tensor.mul``, as PyTorch
    does) where given; when no override takes it, NotImplemented, so Python tries the other
    operand's reflected operator (and raises its own TypeError)."""

    def public(self: Any, other: Any) -> Any:
        args = (self, other)
        types = _relevant(args, {})
        if not types and not (_modes and not _state.all_off):
            return raw(self, other)
        try:
            return _dispatch(as_func or public, types, args, None, name, False)
        except TypeError as e:
            if getattr(e, "not_handled", False):
                return NotImplemented
            raise

    functools.update_wrapper(public, raw)
    return public


def _overridable_property(prop: property, name: str) -> property:
    """A property whose reads and writes hand their call to the overrides (``func`` is
    ``Tensor.<name>.__get__`` or ``.__set__``, as in PyTorch)."""
    cell: list[property] = []

    def fget(self: Any) -> Any:
        types = _relevant((self,), {})
        if not types and not (_modes and not _state.all_off):
            return prop.fget(self)  # type: ignore[misc]
        return _dispatch(cell[0].__get__, types, (self,), None, name + ".__get__", False)

    fset = None
    if prop.fset is not None:

        def fset(self: Any, value: Any) -> None:
            types = _relevant((self, value), {})
            if not types and not (_modes and not _state.all_off):
                prop.fset(self, value)  # type: ignore[misc]
                return
            _dispatch(cell[0].__set__, types, (self, value), None, name + ".__set__", False)

    wrapped = property(fget, fset, prop.fdel, prop.__doc__)
    cell.append(wrapped)
    return wrapped


# ----- the public helpers --------------------------------------------------------------------


def _tensor_like_types(relevant_args: Iterable[Any]) -> list[type]:
    if _state.subclass_off or _state.all_off:
        return []
    return _overloaded(relevant_args)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any of ``relevant_args`` (or an item of a list or tuple among them) has a
    ``__torch_function__`` to call, or a mode is active."""
    return bool(_modes and not _state.all_off) or bool(_tensor_like_types(relevant_args))


def has_torch_function_unary(arg: Any) -> bool:
    """``has_torch_function((arg,))``."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)``."""
    return has_torch_function(args)


def handle_torch_function(
    public_api: Callable, relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Call the overrides of ``public_api(*args, **kwargs)`` found among ``relevant_args``
    (the active mode first), as a Python function of PyTorch's does when
    ``has_torch_function`` says there are some."""
    return _dispatch(public_api, _tensor_like_types(relevant_args), args, kwargs, None, True)


def wrap_torch_function(dispatcher: Callable) -> Callable[[Callable], Callable]:
    """A decorator: the function hands its call to the overrides of the Tensor-likes that
    ``dispatcher(*args, **kwargs)`` returns."""

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = tuple(dispatcher(*args, **kwargs))
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return decorate


def is_tensor_like(inp: Any) -> bool:
    """Whether ``inp`` is a plain Tensor or has a ``__torch_function__`` (a Tensor subclass or
    a Tensor-like; also such a class itself, as in PyTorch)."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


# ----- the default of Tensor subclasses --------------------------------------------------------


def get_default_nowrap_functions() -> set[Callable]:
    """The functions whose results ``Tensor.__torch_function__`` does not make the subclass:
    reading ``.grad``."""
    return {vars(Tensor)["grad"].__get__}


def _convert(ret: Any, cls: type) -> Any:
    """``ret`` with its tensors made ``cls`` (in lists and tuples too, named tuples kept)."""
    if isinstance(ret, Tensor):
        return ret if isinstance(ret, cls) else ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        if hasattr(type(ret), "_fields"):  # a named tuple (torch.return_types.max, ...)
            return type(ret)(*items)
        return type(ret)(items)
    return ret


def default_torch_function(
    cls: type, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
) -> Any:
    """``Tensor.__torch_function__``: ``func`` run with subclass dispatch off, its tensors
    returned as ``cls`` (NotImplemented when some type of ``types`` is not a superclass of
    ``cls``: that type's own handler is the one to run)."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **(kwargs or {}))
        if cls is Tensor or func in get_default_nowrap_functions():
            return ret
        return _convert(ret, cls)


# ----- modes -------------------------------------------------------------------------------


class TorchFunctionMode:
    """A context manager whose ``__torch_function__(func, types, args, kwargs)`` is called
    for every call of a public function while it is active (modes nest: the innermost is
    called first, and the ones outside it when it calls ``func``)."""

    def __torch_function__(
        self, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        _push_mode(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _pop_mode()


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs each call as it is (a base to override some functions only)."""

    def __torch_function__(
        self, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        return func(*args, **(kwargs or {}))


def _push_mode(mode: TorchFunctionMode) -> None:
    enable()
    _modes.append(mode)


def _pop_mode() -> TorchFunctionMode:
    mode = _modes.pop()
    if not _modes and not _state.classes:
        _restore()  # back to zero cost
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator[TorchFunctionMode]:
    mode = _modes.pop()
    try:
        yield mode
    finally:
        _modes.append(mode)


def _get_current_function_mode() -> TorchFunctionMode | None:
    return _modes[-1] if _modes else None


def _get_current_function_mode_stack() -> list[TorchFunctionMode]:
    return list(_modes)


def _len_torch_function_stack() -> int:
    return len(_modes)


def _is_torch_function_mode_enabled() -> bool:
    return bool(_modes) and not _state.all_off


@contextlib.contextmanager
def enable_reentrant_dispatch() -> Iterator[None]:
    """PyTorch's re-entry into its dispatcher from Python: chainrule has no dispatcher below
    its Python functions, so there is nothing to enable."""
    yield


# ----- installing the dispatching wrappers ---------------------------------------------------

# Tensor attributes that never dispatch (PyTorch ignores them too, or they are the machinery)
_TENSOR_IGNORED = {
    "__new__",
    "__init__",
    "__init_subclass__",
    "__torch_function__",
    "__getattr__",
    "__hash__",
    "__iter__",
    "__class__",
    "as_subclass",
    "stride",
    "new_tensor",
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_empty_strided",
}
_TENSOR_DUNDERS = {
    "__repr__",
    "__format__",
    "__len__",
    "__contains__",
    "__bool__",
    "__float__",
    "__int__",
    "__index__",
    "__complex__",
    "__array__",
    "__deepcopy__",
    "__reduce_ex__",
    "__getitem__",
    "__setitem__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
}
# x op y handled as the method PyTorch names for it
_OPERATOR_METHODS = {
    "__add__": "add",
    "__radd__": "add",
    "__sub__": "sub",
    "__mul__": "mul",
    "__rmul__": "mul",
    "__truediv__": "div",
    "__matmul__": "matmul",
    "__pow__": "pow",
}
# the chainrule.* functions outside the name table that modes see (factories) or that take
# tensors
_TORCH_EXTRA = (
    "tensor as_tensor zeros ones empty full arange linspace eye rand randn randint randperm "
    "zeros_like ones_like empty_like full_like rand_like randn_like randint_like numel "
    "is_floating_point"
).split()
_TORCH_IGNORED = (
    "tensor as_tensor zeros ones empty full arange linspace eye rand randn randint randperm "
    "rand_like randn_like randint_like"
).split()

_saved: list[tuple[Any, str, Any]] = []  # (namespace, name, plain value) while enabled
_names: dict[Any, str] = {}  # overridable function -> PyTorch's name for it


def _namespaces() -> list[tuple[Any, str, list[str], bool]]:
    """(namespace, PyTorch's prefix, names to wrap, Python-function style)."""
    import chainrule
    from chainrule import api, linalg, special
    from chainrule.nn import functional

    spaces = api.INSTALLED
    return [
        (chainrule, "torch", [*spaces["torch"], *_TORCH_EXTRA], False),
        (linalg, "torch.linalg", spaces["linalg"], False),
        (special, "torch.special", spaces["special"], False),
        (functional, "torch.nn.functional", spaces["functional"], True),
    ]


def _rebind_imported(swaps: dict[int, tuple[Any, Any]]) -> None:
    """Names bound to a public function by ``from chainrule import flatten`` (chainrule's
    own modules do it: ``chainrule.vision``'s models) name the wrapper too while dispatch
    is on, so modes see those calls as PyTorch's, made in C, always are."""
    if _bound_places[0] != len(sys.modules):  # (new modules since the last scan)
        places = []
        for module in list(sys.modules.values()):
            space = getattr(module, "__dict__", None)
            if not isinstance(space, dict) or module is sys.modules[__name__]:
                continue
            for name, value in list(space.items()):
                if id(value) in swaps and swaps[id(value)][0] is value:
                    places.append((module, name))
        _bound_places[:] = [len(sys.modules), places]
    for module, name in _bound_places[1]:
        value = vars(module).get(name)
        found = swaps.get(id(value))
        if found is not None and found[0] is value and not name.startswith("__"):
            _saved.append((module, name, value))
            vars(module)[name] = found[1]


_bound_places: list[Any] = [-1, []]  # (len(sys.modules) when scanned, [(module, name)])


def _wrappable(value: Any) -> bool:
    return callable(value) and not isinstance(value, type)


def enable() -> None:
    """Put dispatching wrappers in place of the public functions, methods, properties and
    operators (once: the first class with a ``__torch_function__``, or the first mode)."""
    if _state.enabled:
        return
    _state.enabled = True
    swaps: dict[int, tuple[Any, Any]] = {}  # id(plain function) -> (it, its wrapper)
    for space, prefix, names, python in _namespaces():
        for name in names:
            value = vars(space).get(name)
            if value is None or not _wrappable(value):
                continue
            _saved.append((space, name, value))
            wrapped = _Overridable(value, f"{prefix}.{name}", python)
            setattr(space, name, wrapped)
            _names[wrapped] = f"{prefix}.{name}"
            swaps[id(value)] = (value, wrapped)
    _rebind_imported(swaps)
    for name, value in list(vars(Tensor).items()):
        if name in _TENSOR_IGNORED or name in _OPERATOR_METHODS:
            continue
        if name.startswith("_") and name not in _TENSOR_DUNDERS and not _is_operator(name):
            continue
        full = f"torch.Tensor.{name}"
        if isinstance(value, property):
            wrapped = _overridable_property(value, full)
            _names[wrapped.__get__] = full + ".__get__"
            if value.fset is not None:
                _names[wrapped.__set__] = full + ".__set__"
        elif _is_operator(name):
            wrapped = _overridable_operator(value, full, None)
            _names[wrapped] = full
        elif isinstance(value, (staticmethod, classmethod)) or not _wrappable(value):
            continue
        else:
            wrapped = _Overridable(value, full, False)
            _names[wrapped] = full
        _saved.append((Tensor, name, value))
        setattr(Tensor, name, wrapped)
    for name, method in _OPERATOR_METHODS.items():
        value = vars(Tensor)[name]
        wrapped = _overridable_operator(value, f"torch.Tensor.{name}", vars(Tensor)[method])
        _names[wrapped] = f"torch.Tensor.{name}"
        _saved.append((Tensor, name, value))
        setattr(Tensor, name, wrapped)


_OPERATORS = frozenset(
    "__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __pow__ "
    "__rpow__ __matmul__ __rmatmul__ __mod__ __rmod__ __floordiv__ __rfloordiv__ __and__ "
    "__rand__ __or__ __ror__ __xor__ __rxor__ __lshift__ __rlshift__ __rshift__ __rrshift__ "
    "__eq__ __ne__ __lt__ __le__ __gt__ __ge__ __iadd__ __isub__ __imul__ __itruediv__ "
    "__ipow__ __imod__ __ifloordiv__ __iand__ __ior__ __ixor__ __ilshift__ __irshift__".split()
)


def _is_operator(name: str) -> bool:
    return name in _OPERATORS


def _restore() -> None:
    """Put the plain functions back (the last mode exited and no class overrides)."""
    if not _state.enabled:
        return
    for space, name, value in reversed(_saved):
        setattr(space, name, value)
    _saved.clear()
    _names.clear()
    _state.enabled = False
    _watch_classes()


def _reset() -> None:
    """Forget every override seen, and go back to plain functions (for tests)."""
    _modes.clear()
    for c in [c for c in _OVERRIDES if c not in (Tensor, int, float, bool)]:
        del _OVERRIDES[c]
    _state.classes = False
    _state.subclass_off = _state.all_off = 0
    _restore()


def _class_defined(cls: type) -> None:
    """A class with its own ``__torch_function__`` now exists: dispatch from now on."""
    _OVERRIDES.pop(cls, None)
    if _type_overrides(cls):
        _state.classes = True  # (for good: the class can be used at any time from now on)
        _unwatch_classes()
        enable()


# ----- seeing Tensor-like classes as they are defined ----------------------------------------

_plain_build_class = builtins.__build_class__


def _build_class(func: Callable, name: str, *bases: Any, **kwargs: Any) -> Any:
    """Python's ``class`` statement, then a look at the class: one with its own
    ``__torch_function__`` turns dispatch on (until one does, this is the only cost of
    Tensor-like types, paid once per class statement, never per call)."""
    cls = _plain_build_class(func, name, *bases, **kwargs)
    try:
        own = isinstance(cls, type) and "__torch_function__" in vars(cls)
    except TypeError:
        own = False
    if own and not _is_machinery(cls):
        _class_defined(cls)
    return cls


def _is_machinery(cls: type) -> bool:
    """Classes with a ``__torch_function__`` that are not overrides: modes, Tensor subclasses
    (``Tensor.__init_subclass__`` sees those), and PyTorch's own when it is imported too."""
    module = getattr(cls, "__module__", "") or ""
    return (
        issubclass(cls, (TorchFunctionMode, Tensor))
        or module == "torch"
        or module.startswith("torch.")
    )


def _watch_classes() -> None:
    if builtins.__build_class__ is _plain_build_class:
        builtins.__build_class__ = _build_class


def _unwatch_classes() -> None:
    if builtins.__build_class__ is _build_class:
        builtins.__build_class__ = _plain_build_class


# ----- listing the overridable functions -----------------------------------------------------


def _all_names() -> list[tuple[Any, str]]:
    """Every overridable function (as it is now: plain, or wrapped) and PyTorch's name for
    it (a plain function in two namespaces, ``torch.inverse`` and ``torch.linalg.inv``, is
    listed under both)."""
    if _state.enabled:
        return list(_names.items())
    names: list[tuple[Any, str]] = []
    for space, prefix, wanted, _ in _namespaces():
        for name in wanted:
            value = vars(space).get(name)
            if value is not None and _wrappable(value):
                names.append((value, f"{prefix}.{name}"))
    for name, value in vars(Tensor).items():
        if name in _TENSOR_IGNORED:
            continue
        if name.startswith("_") and name not in _TENSOR_DUNDERS and not _is_operator(name):
            continue
        if isinstance(value, property):
            names.append((value.__get__, f"torch.Tensor.{name}.__get__"))
            if value.fset is not None:
                names.append((value.__set__, f"torch.Tensor.{name}.__set__"))
        elif _wrappable(value) and not isinstance(value, (staticmethod, classmethod)):
            names.append((value, f"torch.Tensor.{name}"))
    return names


def resolve_name(f: Any) -> str | None:
    """PyTorch's name of an overridable function (``torch.add``, ``torch.Tensor.grad.__get__``),
    None for anything else."""
    if _state.enabled:
        names = _names
    else:
        names = {}
        for g, name in _all_names():
            names.setdefault(g, name)
    try:
        return names.get(f)
    except TypeError:  # unhashable
        return None


def get_ignored_functions() -> set[Callable]:
    """The public functions that take no part in dispatch by their arguments (the factories,
    which only modes see, and the Tensor methods PyTorch ignores)."""
    import chainrule

    ignored = {getattr(chainrule, n) for n in _TORCH_IGNORED}
    ignored |= {getattr(chainrule, n) for n in ("is_tensor", "from_numpy", "is_grad_enabled")}
    ignored |= {vars(Tensor)[n] for n in _TENSOR_IGNORED if n in vars(Tensor)}
    return ignored


def get_overridable_functions() -> dict[Any, list[Callable]]:
    """The overridable functions by namespace (chainrule, Tensor, linalg, special,
    nn.functional)."""
    import chainrule

    ignored = get_ignored_functions()
    spaces: dict[Any, list[Callable]] = {}
    for f, name in _all_names():
        if f in ignored:
            continue
        if name.startswith("torch.Tensor."):
            key: Any = Tensor
        else:
            key = {
                "torch": chainrule,
                "torch.linalg": chainrule.linalg,
                "torch.special": chainrule.special,
                "torch.nn.functional": chainrule.nn.functional,
            }[name.rsplit(".", 1)[0]]
        spaces.setdefault(key, []).append(f)
    return spaces


def get_testing_overrides() -> dict[Callable, Callable]:
    """A dummy override for each overridable function, returning -1 (PyTorch's have each
    function's signature; these take any arguments)."""

    def dummy(*args: Any, **kwargs: Any) -> int:
        return -1

    return {f: dummy for fs in get_overridable_functions().values() for f in fs}


def is_tensor_method_or_property(func: Callable) -> bool:
    """Whether ``func`` is a Tensor method or a Tensor property's ``__get__``."""
    name = resolve_name(func)
    return name is not None and name.startswith("torch.Tensor.")


_watch_classes()
