"""``save`` of a module that ``torch.jit.load`` gave (a ``RecursiveScriptModule``): the
archive written again with the module's current state (weights trained on chainrule) and
the code it was loaded with, unchanged, so PyTorch's ``torch.jit.load`` reads it back."""

from __future__ import annotations

from typing import Any

from ..._missing import NotImplementedInChainrule
from ._save import TypedContainer, _Classes, _ScriptObject, _write


def _state_of(value: Any) -> Any:
    """An attribute value with loaded modules and script objects as archive objects."""
    from .._load._module import RecursiveScriptModule, ScriptObject

    if isinstance(value, RecursiveScriptModule):
        return _module_state(value)
    if isinstance(value, ScriptObject):
        _refuse_custom_state(value._script_class, value.qualname)
        return _ScriptObject(value.qualname, {k: _state_of(v) for k, v in value.attrs.items()})
    if isinstance(value, list):
        return [_state_of(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_state_of(v) for v in value)
    if isinstance(value, dict):
        return {k: _state_of(v) for k, v in value.items()}
    return value


def _refuse_custom_state(info: Any, qualname: str) -> None:
    if info is not None and ({"__getstate__", "__setstate__"} & set(info.methods)):
        raise NotImplementedInChainrule(
            f"torch.jit.save: {qualname} saves its state with __getstate__, which chainrule "
            "does not run; such a loaded module cannot be saved again"
        )


_ELEMENT = ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"))


def _guessed_type(value: Any) -> str | None:
    """``List[...]`` of a non-empty list of one plain element type (tensors, numbers,
    strings); None when the elements do not say."""
    from ..._tensor import Tensor

    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, Tensor) for v in value):
        return "List[Tensor]"
    for kind, name in _ELEMENT:
        if all(type(v) is kind for v in value):
            return f"List[{name}]"
    return None


def _annotations(info: Any) -> dict[str, str]:
    """The attribute types the class declares (``_flat_weights : List[Tensor]``)."""
    import ast

    for node in ast.parse(info.source).body:
        if isinstance(node, ast.ClassDef) and node.name == info.name:
            return {
                stmt.target.id: ast.unparse(stmt.annotation)
                for stmt in node.body
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            }
    return {}


def _typed(value: Any, declared: str | None) -> Any:
    if isinstance(value, (list, dict)):
        kind = declared if declared and declared.startswith(("List[", "Dict[")) else None
        kind = kind or _guessed_type(value)
        if kind is None:
            raise NotImplementedInChainrule(
                "torch.jit.save: a list or dict attribute whose TorchScript type chainrule "
                "cannot tell (an empty or mixed container the class does not declare)"
            )
        return TypedContainer(value, kind)
    return value


def _module_state(module: Any) -> _ScriptObject:
    info = module._script_class
    _refuse_custom_state(info, info.qualname)
    declared = _annotations(info)
    state: dict[str, Any] = {}
    for name in info.parameters:
        if name in module._parameters:
            state[name] = module._parameters[name]
    for name in info.buffers:
        if name in module._buffers:
            state[name] = module._buffers[name]
    state["training"] = bool(module.training)
    for name, value in module.__dict__.items():
        if name in module._script_attrs:
            state[name] = _typed(_state_of(value), declared.get(name))
    for name, child in module._modules.items():
        state[name] = _state_of(child)
    return _ScriptObject(info.qualname, state)


def save_loaded(module: Any, f: Any, extra: Any = None) -> None:
    """Write a loaded TorchScript module with its current state and its saved code."""
    sources = module.__dict__.get("_script_sources")
    if sources is None:
        raise NotImplementedInChainrule(
            "torch.jit.save: only the top module that torch.jit.load gave can be saved "
            "(a submodule of it has no archive of its own)"
        )
    classes = _Classes()
    for name, text in sources.items():
        classes.sources[name] = [text]
    constants = list(module.__dict__.get("_script_constants", ()))
    _write(f, _module_state(module), classes, constants, extra)
