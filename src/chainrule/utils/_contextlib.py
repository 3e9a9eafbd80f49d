"""``torch.utils._contextlib``: context managers that are also decorators, the base classes
libraries build their own modes on (``_DecoratorContextManager``)."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Generator
from typing import Any

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager", "context_decorator"]


def _wrap_generator(ctx_factory: Callable[[], Any], func: Callable[..., Any]) -> Callable:
    """``func``, a generator function, whose every step (first send, each send, throw and
    close) runs inside a fresh context from ``ctx_factory``."""

    @functools.wraps(func)
    def generator_context(*args: Any, **kwargs: Any) -> Generator:
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException as exc:
                    with ctx_factory():
                        response = gen.throw(exc)
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator_context


def context_decorator(ctx: Any, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` run inside ``ctx``: a reusable context manager, or a callable making one per
    call. Generator functions get the context around each step; classes are refused."""
    if callable(ctx) and hasattr(ctx, "__enter__"):
        raise AssertionError(
            f"Passed in {ctx} is both callable and also a valid context manager (has "
            "__enter__), making it ambiguous which interface to use.  If you intended to "
            "pass a context manager factory, rewrite your call as context_decorator(lambda: "
            "ctx()); if you intended to pass a context manager directly, rewrite your call "
            "as context_decorator(lambda: ctx)"
        )
    factory = ctx if callable(ctx) else (lambda: ctx)
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor "
            "or all methods should have the context manager applied; additionally, "
            "decorating a class at definition-site will prevent use of the identifier as a "
            "conventional type.  To specify which methods to decorate, decorate each of "
            "them individually."
        )
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(factory, func)

    @functools.wraps(func)
    def decorate_context(*args: Any, **kwargs: Any) -> Any:
        with factory():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """A context manager usable as a decorator: each decorated call enters a fresh
    ``clone()`` of it (subclasses define ``__enter__``/``__exit__``)."""

    def __call__(self, orig_func: Callable[..., Any]) -> Callable[..., Any]:
        func = orig_func
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. "
                "You should only decorate functions or methods. To preserve the current "
                "behavior of class decoration, you can directly decorate the `__init__` "
                "method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )

            def func(*args: Any, **kwargs: Any) -> Any:
                return orig_func(*args, **kwargs)

        return context_decorator(self.clone, func)

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        raise NotImplementedError

    def clone(self) -> _DecoratorContextManager:
        """A fresh instance (made with no arguments), entered by each decorated call."""
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A ``_DecoratorContextManager`` also usable bare, without parentheses (``@mode``)."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)
