"""``torch.jit.save`` of a traced module or function: a TorchScript archive that PyTorch's
``torch.jit.load`` reads. The zip (stored, storages aligned to 64 bytes, under one top
folder) holds ``data.pkl`` (the module tree: each module an object of its TorchScript class
``__torch__.<module path>.<Class>`` whose state is its parameters, buffers, ``training`` and
submodules, tensors as ``_rebuild_tensor_v2`` calls on ``data/<key>`` storages),
``constants.pkl`` (the tuple ``CONSTANTS.c<i>`` names, storages in ``constants/``), one
``code/__torch__/....py`` file per module path with the classes' source, ``.data/version``
(10, PyTorch 2.13's operator version, so no upgrader rewrites the code) and ``byteorder``.
Two modules of one class whose attributes or code differ get two classes, the second
named ``___torch_mangle_<n>`` as PyTorch names it."""

from __future__ import annotations

import io
import keyword
import pickle
import secrets
from typing import Any

from ... import nn
from ..._tensor import Tensor
from ...serialization import _opened
from ...serialization._archive import ArchiveWriter, archive_name
from ...serialization._pickler import Global, TorchPickler, _plain
from ...serialization._storages import StorageTable, storage_bytes
from ._code import ForwardSource
from ._record import dispatch_kept

_VERSION = b"10\n"
_RESTORE_TYPE_TAG = Global("torch.jit._pickle", "restore_type_tag")
# chainrule's packages under PyTorch's names (TorchScript classes are named by module path)
_RENAMES = (("chainrule.vision", "torchvision"), ("chainrule.audio", "torchaudio"),
            ("chainrule", "torch"))  # fmt: skip


def qualified_name(cls: type) -> str:
    """The TorchScript name of a module class: ``__torch__.`` and its module path
    (``chainrule.`` read as ``torch.``; ``__main__`` left out) and class name (a class
    defined in a function is named as if at its module's top, as PyTorch names it)."""
    module = cls.__module__
    for ours, theirs in _RENAMES:
        if module == ours or module.startswith(ours + "."):
            module = theirs + module[len(ours) :]
            break
    parts = [] if module == "__main__" else module.split(".")
    parts.append(cls.__name__)
    return ".".join(["__torch__", *(_identifier(p) for p in parts)])


def _identifier(part: str) -> str:
    """A name part as an identifier (other characters as ``_``)."""
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in part) or "_"
    return "_" + text if text[0].isdigit() or keyword.iskeyword(text) else text


class _ScriptObject:
    """A module of the archive's tree, pickled as ``GLOBAL <class>; NEWOBJ; BUILD state``."""

    def __init__(self, qualname: str, state: dict[str, Any]) -> None:
        self.qualname, self.state = qualname, state


class TypedContainer:
    """A list or dict attribute written with its TorchScript type
    (``torch.jit._pickle.restore_type_tag(value, "List[str]")``), as PyTorch writes them:
    without it PyTorch's loader reads a generic list where code wants ``List[Tensor]``."""

    def __init__(self, value: Any, type_name: str) -> None:
        self.value, self.type_name = value, type_name


class _ArchivePickler(TorchPickler):
    """The pickler of ``data.pkl``/``constants.pkl``: tensors as plain tensors (a
    TorchScript archive has no Parameter objects), modules as objects of their class."""

    dispatch = TorchPickler.dispatch.copy()

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor) and type(obj) is not Tensor and not obj.is_sparse:
            return self._rebuild(_plain(obj, obj.requires_grad))
        if isinstance(obj, TypedContainer):
            return (_RESTORE_TYPE_TAG, (obj.value, obj.type_name))
        return super().reducer_override(obj)

    def save_script_object(self, obj: _ScriptObject) -> None:
        module, _, name = obj.qualname.rpartition(".")
        self.save(Global(module, name))
        self.write(pickle.EMPTY_TUPLE + pickle.NEWOBJ)
        self.memoize(obj)
        self.save(obj.state)
        self.write(pickle.BUILD)

    dispatch[_ScriptObject] = save_script_object


class _Classes:
    """The TorchScript classes of an archive: one per distinct (name, source) pair."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str], str] = {}
        self.taken: set[str] = set()
        self.sources: dict[str, list[str]] = {}  # code file module -> class sources
        self.mangles = 0

    def add(self, base: str, body: Any) -> str:
        """The name of the class ``base`` with the source ``body(name)`` (a function of
        the class's final name, which the ``self`` annotation repeats)."""
        key = (base, body("@"))
        if key in self.by_key:
            return self.by_key[key]
        name = base
        if name in self.taken:
            prefix, _, short = base.rpartition(".")
            name = f"{prefix}.___torch_mangle_{self.mangles}.{short}"
            self.mangles += 1
        self.taken.add(name)
        self.by_key[key] = name
        prefix, _, short = name.rpartition(".")
        self.sources.setdefault(prefix, []).append(f"class {short}(Module):\n" + body(name))
        return name


def _attr_line(name: str, kind: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"  {name} : {kind}\n"
    return f'  __annotations__["{name}"] = {kind}\n'


def _names_list(names: list[str]) -> str:
    return "[" + "".join(f'"{n}", ' for n in names) + "]"


def _module_object(module: Any, classes: _Classes, constants: list[Tensor]) -> _ScriptObject:
    """The archive object of a traced module (its submodules first, for their class
    names), its class added to ``classes``."""
    children = {n: _module_object(c, classes, constants) for n, c in module._modules.items()}
    params = [(n, p) for n, p in module._parameters.items() if p is not None]
    buffers = [(n, b) for n, b in module._buffers.items() if b is not None]
    source = None
    program = module.traced_program()
    if program is not None:
        source = ForwardSource(program, _constants_of(program, constants))

    def body(name: str) -> str:
        text = f"  __parameters__ = {_names_list([n for n, _ in params])}\n"
        text += f"  __buffers__ = {_names_list([n for n, _ in buffers])}\n"
        for n, _ in params + buffers:
            text += _attr_line(n, "Tensor")
        text += "  training : bool\n"
        for n, child in children.items():
            text += _attr_line(n, child.qualname)
        if source is not None:
            text += "  " + source.method(name, indent="    ")
        return text

    qualname = classes.add(qualified_name(module._original_class), body)
    state: dict[str, Any] = {n: p for n, p in params + buffers}
    state["training"] = bool(module.training)
    state.update(children)
    return _ScriptObject(qualname, state)


def _constants_of(program: Any, constants: list[Tensor]) -> dict[str, int]:
    """Places the program's lifted tensors in the archive's CONSTANTS (one place per
    tensor) and gives each target its index."""
    from ...export.graph_signature import InputKind

    index = {}
    for spec in program.graph_signature.input_specs:
        if spec.kind == InputKind.CONSTANT_TENSOR:
            t = program.constants[spec.target]
            found = next((i for i, c in enumerate(constants) if c is t), None)
            if found is None:
                constants.append(t)
                found = len(constants) - 1
            index[spec.target] = found
    return index


def _write(f: Any, root: _ScriptObject, classes: _Classes, constants: list, extra: Any) -> None:
    data, data_storages = io.BytesIO(), StorageTable()
    _ArchivePickler(data, data_storages, 2).dump(root)
    consts, const_storages = io.BytesIO(), StorageTable()
    _ArchivePickler(consts, const_storages, 2).dump(tuple(c.detach() for c in constants))
    with _opened(f, "wb") as stream:
        writer = ArchiveWriter(stream, archive_name(f))
        for ref in data_storages.refs:
            writer.write(f"data/{ref.key}", storage_bytes(ref), aligned=True)
        writer.write("data.pkl", data.getvalue())
        for prefix, sources in classes.sources.items():
            path = prefix.replace(".", "/")
            writer.write(f"code/{path}.py", "".join(sources).encode())
        for ref in const_storages.refs:
            writer.write(f"constants/{ref.key}", storage_bytes(ref), aligned=True)
        writer.write("constants.pkl", consts.getvalue())
        for name, content in (extra or {}).items():
            raw = content.encode() if isinstance(content, str) else bytes(content)
            writer.write(f"extra/{name}", raw)
        writer.write(".data/version", _VERSION)
        writer.write("byteorder", b"little")
        writer.write(".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())
        writer.zip.close()


def save_module(module: nn.Module, f: Any, extra: Any = None) -> None:
    """Write a traced module tree as a TorchScript archive."""
    classes, constants = _Classes(), []
    with dispatch_kept():  # (the submodules not yet recorded are recorded now)
        root = _module_object(module, classes, constants)
    _write(f, root, classes, constants, extra)


def save_function(fn: Any, f: Any, extra: Any = None) -> None:
    """Write a traced function as an archive whose module's forward is the function."""
    classes, constants = _Classes(), []
    source = ForwardSource(fn._program, _constants_of(fn._program, constants))

    def body(name: str) -> str:
        text = "  __parameters__ = []\n  __buffers__ = []\n  training : bool\n"
        return text + "  " + source.method(name, indent="    ")

    qualname = classes.add("__torch__.PlaceholderModule", body)
    _write(f, _ScriptObject(qualname, {"training": True}), classes, constants, extra)
