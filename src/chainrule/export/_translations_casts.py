"""Dtype casts in an export, as PyTorch's export writes them: ``Tensor.to`` (and
``float()``, ``double()``, ``type(dtype)``, ...) as one of ``to.dtype`` / ``to.device`` /
``to.dtype_layout`` after an ``_assert_tensor_metadata`` node checking the input's dtype,
device and layout; ``type_as`` as ``type_as.default``. A cast to the tensor's own dtype
returns the tensor itself, so (as in PyTorch) the node is still written and later reads
of the tensor read that node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._translations_more import current_recorder, trim

Call = tuple[str, list, dict]


def _check(input: Any) -> None:
    """The ``_assert_tensor_metadata`` node PyTorch's export writes before a ``to``
    (named by fx's default, op and overload, as PyTorch inserts it outside its trace)."""
    import chainrule

    from ._reader import ATEN

    recorder = current_recorder()
    if recorder is None:
        return
    kwargs = {"dtype": input.dtype, "device": chainrule.device("cpu"), "layout": chainrule.strided}
    node = recorder.graph.create_node(
        "call_function",
        ATEN.overload("aten._assert_tensor_metadata.default"),
        (recorder.node_of(input),),
        kwargs,
        name="_assert_tensor_metadata_default",
    )
    node.meta["arg_names"] = ["a"]


def _is_device(value: Any) -> bool:
    import chainrule

    return isinstance(value, (str, chainrule.device))


def _parse(args: tuple, kwargs: dict) -> tuple[Any, Any, bool, bool, Any]:
    """``Tensor.to``'s arguments as (device, dtype, non_blocking, copy, memory_format), as
    PyTorch's three signatures read them: ``to(dtype, ...)``, ``to(device, dtype, ...)``,
    ``to(other, ...)`` (the other tensor's device and dtype)."""
    import chainrule

    rest = list(args)
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    other = kwargs.get("other")
    if rest and isinstance(rest[0], chainrule.Tensor):
        other = rest.pop(0)
    elif rest and isinstance(rest[0], chainrule.dtype):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or _is_device(rest[0])):
        device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], chainrule.dtype)):
            dtype = rest.pop(0)
    if other is not None:
        device, dtype = other.device, other.dtype
    non_blocking = bool(rest[0]) if rest else bool(kwargs.get("non_blocking", False))
    copy = bool(rest[1]) if len(rest) > 1 else bool(kwargs.get("copy", False))
    if device is not None and chainrule.device(device).type != "cpu":
        raise NotImplementedError(f"chainrule.export cannot export a move to {device}")
    return device, dtype, non_blocking, copy, kwargs.get("memory_format")


def _to(input: Any, *args: Any, **kwargs: Any) -> Any:
    """``Tensor.to``: ``to.dtype`` for a dtype alone, ``to.dtype_layout`` for a device
    alone (or a copy or memory format alone), ``to.device`` for both (or another
    tensor); nothing for no argument."""
    import chainrule

    device, dtype, non_blocking, copy, memory_format = _parse(args, kwargs)
    flags = [non_blocking, copy, memory_format]
    if device is None and dtype is None and not copy and memory_format is None:
        return []  # (the tensor itself: nothing written)
    if device is None and dtype is not None:
        call = "to.dtype", trim([input, dtype, *flags], [False, False, None]), {}
    elif dtype is not None:
        args = [input, chainrule.device("cpu"), dtype, *flags]
        call = "to.device", trim(args, [False, False, None]), {}
    else:
        options = {"dtype": input.dtype, "layout": chainrule.strided}
        options["device"] = chainrule.device("cpu")
        named = {"non_blocking": non_blocking, "copy": copy, "memory_format": memory_format}
        options.update({k: v for k, v in named.items() if v})
        call = "to.dtype_layout", [input], options
    _check(input)
    return call


def _type(input: Any, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """``Tensor.type``: a dtype as ``to(dtype)``; a tensor type's name
    (``"torch.FloatTensor"``) names a device too, so ``to(device, dtype)``."""
    import chainrule

    if isinstance(dtype, str):
        target = chainrule.empty(0, dtype=input.dtype).type(dtype).dtype  # (the name, parsed)
        return _to(input, "cpu", target, non_blocking)
    return _to(input, dtype, non_blocking)


def _cast(name: str) -> Callable[..., Any]:
    """``x.float()``, ``x.long()``, ...: ``to.dtype``."""

    def call(input: Any, memory_format: Any = None) -> Any:
        import chainrule

        return _to(input, getattr(chainrule, name))

    return call


CASTS: dict[str, Callable[..., Any]] = {
    "to": _to,
    "type": _type,
    "type_as": lambda input, other: ("type_as.default", [input, other], {}),
    **{
        method: _cast(dtype)
        for method, dtype in [
            ("float", "float32"),
            ("double", "float64"),
            ("half", "float16"),
            ("bfloat16", "bfloat16"),
            ("long", "int64"),
            ("int", "int32"),
            ("short", "int16"),
            ("char", "int8"),
            ("byte", "uint8"),
            ("bool", "bool"),
        ]
    },
}
CASTS["as_tensor"] = lambda data, dtype=None, device=None: _to(
    data, device or "cpu", dtype or data.dtype
)
