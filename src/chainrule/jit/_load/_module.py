"""The module ``torch.jit.load`` gives: a chainrule ``nn.Module`` per object of the
archive's module tree, holding the saved parameters (as Parameters), buffers, submodules and
plain attributes, whose ``forward`` runs the class's TorchScript code with the
interpreter."""

from __future__ import annotations

from typing import Any

from ... import nn
from ..._tensor import Tensor
from ...nn.parameter import Parameter
from .. import ScriptModule
from ._archive import ScriptArchive
from ._interpret import ClassInfo, Interpreter, _unsupported, parse_classes
from ._unpickle import ObjectRecord


class RecursiveScriptModule(ScriptModule):
    """A TorchScript module loaded from an archive: its parameters, buffers, submodules and
    attributes are the saved ones, its methods run the saved code (interpreted, never
    executed as Python)."""

    def __init__(self, info: ClassInfo, interpreter: Interpreter) -> None:
        nn.Module.__init__(self)  # (ScriptModule's own __init__ refuses to compile)
        object.__setattr__(self, "_script_class", info)
        object.__setattr__(self, "_script_interpreter", interpreter)

    @property
    def original_name(self) -> str:
        """The name of the class the module was made from (``Linear``)."""
        return self._script_class.name

    @property
    def code(self) -> str:
        """The source of ``forward``, as PyTorch's ``.code`` shows it."""
        return self._script_class.method_source("forward")

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run the saved ``forward`` code on the arguments."""
        return self._script_interpreter.call_method(
            self._script_class, self, "forward", args, kwargs
        )

    def save(self, f: Any, _extra_files: Any = None) -> None:
        """Write the module again as a TorchScript archive: its current parameters,
        buffers and attributes with the code it was loaded with (the top module only)."""
        from .._trace._resave import save_loaded

        save_loaded(self, f, _extra_files)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            constants = self.__dict__["_script_class"].constants
            if name in constants:  # (a class constant of the code: ``in_features``)
                return constants[name]
            raise

    def __getitem__(self, index: int | str) -> Any:
        """A submodule of a container module (``ModuleList``, ``Sequential``) by position."""
        names = list(self._modules)
        if isinstance(index, int) and not isinstance(index, bool):
            if not -len(names) <= index < len(names):
                raise IndexError(f"index {index} is out of range")
            return self._modules[names[index]]
        return self._modules[str(index)]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Any:
        return iter(self._modules.values())

    def __bool__(self) -> bool:
        return True

    def _get_name(self) -> str:
        return "RecursiveScriptModule"

    def extra_repr(self) -> str:
        return f"original_name={self.original_name}"


class ScriptObject:
    """A saved object of a TorchScript class that is not a module: its attributes."""

    def __init__(self, info: ClassInfo | None, qualname: str, attrs: dict[str, Any]) -> None:
        self._script_class, self.qualname, self.attrs = info, qualname, attrs

    def __repr__(self) -> str:
        return f"<ScriptObject {self.qualname}>"


class Objects:
    """How interpreted code reads attributes of, and calls methods on, loaded objects."""

    def __init__(self) -> None:
        self.interpreter: Interpreter | None = None

    def get_attr(self, obj: Any, name: str) -> Any:
        """``obj.name`` for a loaded module (a parameter, buffer, submodule, saved attribute or
        class constant) or script object; any other read is refused."""
        if isinstance(obj, RecursiveScriptModule):
            if name in obj._parameters or name in obj._buffers or name in obj._modules:
                return getattr(obj, name)
            if name == "training":
                return obj.training
            if name in obj._script_attrs:
                return obj.__dict__[name]
            if name in obj._script_class.constants:
                return obj._script_class.constants[name]
            raise _unsupported(f"the attribute {name!r} of {obj._script_class.qualname}")
        if isinstance(obj, ScriptObject):
            if name in obj.attrs:
                return obj.attrs[name]
            if obj._script_class is not None and name in obj._script_class.constants:
                return obj._script_class.constants[name]
        raise _unsupported(f"reading the attribute {name!r} of {type(obj).__name__}")

    def set_attr(self, obj: Any, name: str, value: Any) -> None:
        """``obj.name = value`` in code (a module's saved attribute or buffer)."""
        if isinstance(obj, RecursiveScriptModule) and (
            name in obj._script_attrs or name in obj._buffers or name == "training"
        ):
            setattr(obj, name, value)
        elif isinstance(obj, ScriptObject) and name in obj.attrs:
            obj.attrs[name] = value
        else:
            raise _unsupported(f"setting the attribute {name!r} of {type(obj).__name__}")

    def call_method(self, obj: Any, name: str, args: list, kwargs: dict) -> Any:
        """``obj.name(*args)`` for a loaded module or script object of the archive."""
        info = getattr(obj, "_script_class", None)
        if not isinstance(obj, (RecursiveScriptModule, ScriptObject)) or info is None:
            raise _unsupported(f"calling the method {name}() of {type(obj).__name__}")
        assert self.interpreter is not None
        return self.interpreter.call_method(info, obj, name, tuple(args), kwargs)


def build_module(archive: ScriptArchive) -> RecursiveScriptModule:
    """The loaded module tree of an archive, ready to run."""
    classes, functions = parse_classes(archive.sources)
    objects = Objects()
    interpreter = Interpreter(archive.constants, objects, functions)
    objects.interpreter = interpreter
    swaps: dict[int, Parameter] = {}
    root = _build(archive.tree, classes, interpreter, swaps)
    if not isinstance(root, RecursiveScriptModule):
        raise RuntimeError("torch.jit.load: the archive's data.pkl holds no module")
    # attributes that held a parameter's saved tensor (an LSTM's ``_flat_weights``) hold
    # the Parameter, so gradients reach it
    for module in root.modules():
        for name in getattr(module, "_script_attrs", ()):
            module.__dict__[name] = _swap(module.__dict__[name], swaps)
    return root


def _swap(value: Any, swaps: dict[int, Any]) -> Any:
    if isinstance(value, list):
        return [_swap(v, swaps) for v in value]
    if isinstance(value, tuple):
        return tuple(_swap(v, swaps) for v in value)
    if isinstance(value, dict):
        return {k: _swap(v, swaps) for k, v in value.items()}
    return swaps.get(id(value), value)


def _may_hold(module: RecursiveScriptModule, name: str) -> bool:
    """Whether a saved attribute may take this name: not a dunder, not one of the module's
    methods, properties or internal tables (a plain flag such as ``training`` is fine)."""
    if name.startswith("__") or name.startswith("_script"):
        return False
    current = getattr(module, name, None) if name in vars(module) else None
    if isinstance(current, (dict, set, list)) or callable(current):
        return False
    return not callable(getattr(RecursiveScriptModule, name, None)) and not isinstance(
        getattr(RecursiveScriptModule, name, None), property
    )


def _build(
    value: Any, classes: dict[str, ClassInfo], interpreter: Interpreter, swaps: dict[int, Any]
) -> Any:
    """A loaded value: records become modules or script objects, containers are rebuilt."""
    if isinstance(value, list):
        return [_build(v, classes, interpreter, swaps) for v in value]
    if isinstance(value, tuple):
        return tuple(_build(v, classes, interpreter, swaps) for v in value)
    if isinstance(value, dict):
        return {k: _build(v, classes, interpreter, swaps) for k, v in value.items()}
    if not isinstance(value, ObjectRecord):
        return value
    attrs = getattr(value, "attrs", {})
    info = classes.get(value.qualname)
    if info is None or not info.is_module:
        built = {k: _build(v, classes, interpreter, swaps) for k, v in attrs.items()}
        return ScriptObject(info, value.qualname, built)
    module = RecursiveScriptModule(info, interpreter)
    plain: set[str] = set()
    for name, item in attrs.items():
        if not _may_hold(module, name):  # (a saved name must not shadow the module's own)
            raise RuntimeError(
                f"torch.jit.load: {value.qualname} saves an attribute named {name!r}, "
                "which a loaded module cannot hold"
            )
        if name == "training":
            module.training = bool(item)
        elif name in info.parameters:
            if item is not None and not isinstance(item, Tensor):
                raise RuntimeError(f"torch.jit.load: parameter {name} is no tensor")
            param = None if item is None else Parameter(item.detach(), item.requires_grad)
            if param is not None:
                swaps[id(item)] = param
            module.register_parameter(name, param)
        elif name in info.buffers:
            module.register_buffer(name, item)
        else:
            built = _build(item, classes, interpreter, swaps)
            if isinstance(built, RecursiveScriptModule):
                module.add_module(name, built)
            else:
                object.__setattr__(module, name, built)
                plain.add(name)
    object.__setattr__(module, "_script_attrs", frozenset(plain))
    return module
