"""``chainrule.utils``: PyTorch's ``torch.utils`` (hooks, data, checkpoint, dlpack ...)."""

from __future__ import annotations

from typing import Any


def swap_tensors(t1: Any, t2: Any) -> None:
    """``torch.utils.swap_tensors``: t1 and t2 exchange everything they are (data, dtype,
    autograd fields, class and attributes), each Python object keeping its identity."""
    from .._tensor import Tensor

    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(
            f"Expected t1 and t2 to be Tensors, got {type(t1).__name__} and {type(t2).__name__}"
        )
    if t1 is t2:
        return
    slots = [n for c in type(t1).__mro__ for n in getattr(c, "__slots__", ()) if n != "__weakref__"]
    slots += [
        n for c in type(t2).__mro__ for n in getattr(c, "__slots__", ()) if n != "__weakref__"
    ]
    missing = object()
    for name in dict.fromkeys(slots):
        a, b = getattr(t1, name, missing), getattr(t2, name, missing)
        for t, v in ((t1, b), (t2, a)):
            if v is missing:
                try:
                    delattr(t, name)
                except AttributeError:
                    pass
            else:
                object.__setattr__(t, name, v)
    d1, d2 = getattr(t1, "__dict__", None), getattr(t2, "__dict__", None)
    if d1 is not None and d2 is not None:
        d1_items, d2_items = dict(d1), dict(d2)
        d1.clear()
        d1.update(d2_items)
        d2.clear()
        d2.update(d1_items)
    if type(t1) is not type(t2):
        t1.__class__, t2.__class__ = t2.__class__, t1.__class__


def __getattr__(name: str) -> Any:
    if name in ("checkpoint", "_pytree", "dlpack"):  # (torch.utils.<name>: loaded on use)
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
