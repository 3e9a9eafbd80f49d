"""Calls that make tensors as ATen overload calls (see ``_translations``): the factories of
no tensor (``arange``, ``zeros``, ``ones``, ``full``, ``empty``), those shaped like a
tensor (``zeros_like``, ``empty_like`` ...), a tensor's ``new_*`` methods, and the fills
(``fill_``, ``zero_``) that usually follow an ``empty``; with the ATen rows that run the
ones ``_aten_table`` lacks and their argument names."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

Call = tuple[str, list, dict]


def factory_kwargs(dtype: Any) -> dict:
    import chainrule

    kwargs = {} if dtype is None else {"dtype": dtype}
    return {**kwargs, "device": chainrule.device("cpu"), "pin_memory": False}


def size_list(size: tuple) -> list:
    """A size given as ints or as one sequence, as a list (symbolic sizes kept)."""
    from ._unbacked import ItemValue  # (a Tensor.item value: PyTorch's u0)

    if len(size) == 1 and not isinstance(size[0], (int, ItemValue)):
        size = tuple(size[0])
    return [s if isinstance(s, (int, ItemValue)) else int(s) for s in size]


def _arange(
    *args: Any, start: Any = None, end: Any = None, step: Any = None, dtype: Any = None, **_: Any
) -> Call:
    if end is not None:  # (the bounds given as keywords: arange(start=0, end=n))
        args = (args[0] if args else (0 if start is None else start), end, *args[1:2])
    if step is not None:
        args = (*args[:2], step)
    if len(args) == 1:
        return "arange.default", list(args), factory_kwargs(dtype)
    if len(args) == 2 or args[2] == 1:
        return "arange.start", list(args[:2]), factory_kwargs(dtype)
    return "arange.start_step", list(args), factory_kwargs(dtype)


def _filled(op: str) -> Callable[..., Call]:
    def call(*size: Any, dtype: Any = None, **_: Any) -> Call:
        return op, [size_list(size)], factory_kwargs(dtype)

    return call


def _full(size: Any, fill_value: Any, *, dtype: Any = None, **_: Any) -> Call:
    return "full.default", [size_list((size,)), fill_value], factory_kwargs(dtype)


def _like(op: str) -> Callable[..., Call]:
    def call(input: Any, *, dtype: Any = None, **_: Any) -> Call:
        kwargs = {} if dtype is None else {"dtype": dtype}
        return f"{op}.default", [input], {**kwargs, "pin_memory": False}

    return call


def _new(op: str) -> Callable[..., Call]:
    """``x.new_ones(2, 3)``: ``new_ones.default(x, [2, 3])``."""

    def call(input: Any, *size: Any, dtype: Any = None, **_: Any) -> Call:
        kwargs = {} if dtype is None else {"dtype": dtype}
        return f"{op}.default", [input, size_list(size)], {**kwargs, "pin_memory": False}

    return call


def _new_full(input: Any, size: Any, fill_value: Any, *, dtype: Any = None, **_: Any) -> Call:
    kwargs = {} if dtype is None else {"dtype": dtype}
    args = [input, size_list((size,)), fill_value]
    return "new_full.default", args, {**kwargs, "pin_memory": False}


def _fill_(input: Any, value: Any) -> Call:
    from chainrule import Tensor

    return f"fill_.{'Tensor' if isinstance(value, Tensor) else 'Scalar'}", [input, value], {}


# calls that make a tensor from no traced one: written as nodes, not lifted constants
FACTORIES: dict[str, Callable[..., Any]] = {
    "arange": _arange,
    "zeros": _filled("zeros.default"),
    "ones": _filled("ones.default"),
    "empty": _filled("empty.memory_format"),
    "full": _full,
}

FACTORY_CALLS: dict[str, Callable[..., Any]] = {
    **FACTORIES,
    **{op: _like(op) for op in ("zeros_like", "ones_like", "empty_like")},
    **{op: _new(op) for op in ("new_zeros", "new_ones", "new_empty")},
    "new_full": _new_full,
    "fill_": _fill_,
    "zero_": lambda input: ("zero_.default", [input], {}),
}


def _run(method: str) -> Callable[..., Any]:
    """An ATen row: ``self.<method>(size, ...)`` with ATen's placement arguments dropped."""

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        for key in ("device", "layout", "pin_memory", "memory_format"):
            kwargs.pop(key, None)
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        if method.startswith("new_"):  # (the size as a list)
            args = (list(args[0]), *args[1:])
        return getattr(self, method)(*args, **kwargs)

    return run


# the rows a loaded program runs (an empty one is zeros: its values are unspecified)
FACTORIES_TABLE: dict[str, Callable[..., Any]] = {
    "empty_like.default": lambda self, **kw: _run("new_zeros")(self, self.shape, **kw),
    "new_empty.default": lambda self, size, **kw: _run("new_zeros")(self, size, **kw),
    "new_full.default": _run("new_full"),
    "fill_.Scalar": _run("fill_"),
    "fill_.Tensor": _run("fill_"),
    "zero_.default": _run("zero_"),
}

FACTORIES_ARGS: dict[str, str] = {
    "empty_like.default": "self",
    "new_empty.default": "self size",
    "new_full.default": "self size fill_value",
    "fill_.Scalar": "self value",
    "fill_.Tensor": "self value",
    "zero_.default": "self",
}


# Tensor methods that make a tensor without dispatching to modes (PyTorch's ignore them
# too; its export sees them below, at the dispatcher): the trace wraps them so a traced
# tensor's ``x.new_ones(2, 3)`` is written as ``new_ones`` rather than as the factory the
# method calls
_NEW = ("new_zeros", "new_ones", "new_full", "new_empty")


@contextlib.contextmanager
def new_methods_seen() -> Iterator[None]:
    """While a trace runs: ``x.new_*`` handed to the recording mode as its own call."""
    from chainrule import Tensor, overrides

    saved = {name: vars(Tensor)[name] for name in _NEW}

    def seen(plain: Callable) -> Callable:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            mode = overrides._get_current_function_mode()
            if id(self) not in getattr(mode, "nodes", ()):
                return plain(self, *args, **kwargs)  # (not a traced tensor of this trace)
            with overrides._pop_mode_temporarily():
                return mode.__torch_function__(plain, (), (self, *args), kwargs)

        return functools.wraps(plain)(method)

    for name, plain in saved.items():
        setattr(Tensor, name, seen(plain))
    try:
        yield
    finally:
        for name, plain in saved.items():
            setattr(Tensor, name, plain)
