"""An import hook that makes ``import torch`` give chainrule.

While the hook is installed, ``import torch`` binds chainrule itself and ``torch.X.Y``
binds ``chainrule.X.Y`` (so ``sys.modules['torch'] is chainrule``), ``torchvision.X``
binds ``chainrule.vision.X`` and ``torchaudio.X`` binds ``chainrule.audio.X`` (and
``functorch`` binds ``chainrule.functorch``); a submodule chainrule lacks raises
:class:`ModuleNotInChainrule`. Meanwhile chainrule reads as PyTorch: its top module's
``__name__`` is "torch" and its classes carry PyTorch's module paths
(``torch.nn.modules.linear``), both put back by :func:`uninstall`. It is a
``sys.meta_path`` finder: scripts are never rewritten. ``chainrule run script.py``
uses it::

    from chainrule import _import_hook

    with _import_hook.installed():
        import torch  # chainrule

:func:`uninstall` puts back the ``torch`` entries of ``sys.modules`` that
:func:`install` set aside, so a real PyTorch imported before or after is unaffected.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import os
import pathlib
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType

__all__ = [
    "ModuleNotInChainrule",
    "install",
    "installed",
    "is_chainrule_module",
    "is_installed",
    "missing_message",
    "uninstall",
]

_TARGET = "chainrule"
# the names the hook answers for, each with the chainrule package it gives
_ALIASES = {
    "torch": _TARGET,
    "torchvision": _TARGET + ".vision",
    "torchaudio": _TARGET + ".audio",
    "functorch": _TARGET + ".functorch",  # (shipped with PyTorch, beside torch)
}


class ModuleNotInChainrule(ModuleNotFoundError):
    """A ``torch`` submodule that chainrule does not implement."""


def _alias_of(name: str) -> str | None:
    """The alias (``torch``, ``torchvision``, ``torchaudio``) that ``name`` is or is a submodule of."""
    top = name.partition(".")[0]
    return top if top in _ALIASES else None


def _is_alias(name: str) -> bool:
    """Whether ``name`` is ``torch``, ``torchvision``, ``torchaudio`` or one of their submodules."""
    return _alias_of(name) is not None


def _target_name(name: str) -> str:
    """``torch.nn.functional`` -> ``chainrule.nn.functional``; ``torchvision.models`` ->
    ``chainrule.vision.models``."""
    alias = _alias_of(name)
    assert alias is not None
    return _ALIASES[alias] + name[len(alias) :]


def missing_message(name: str) -> str:
    """The message for ``name``, a ``torch`` module (or name) chainrule lacks."""
    return (
        f"chainrule does not implement {name} yet "
        "(chainrule covers PyTorch's autograd core; see README.md)"
    )


class _AliasLoader(importlib.abc.Loader):
    """Loads ``torch.X`` as the already imported module ``chainrule.X``."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self._own_spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self._module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set ``module.__spec__`` to the alias spec;
        # chainrule's module keeps its own (its name stays ``chainrule.X``).
        module.__spec__ = self._own_spec


class _AliasDistribution(importlib.metadata.Distribution):
    """The installed-package metadata of ``torch`` (``torchvision``, ``torchaudio``) while
    the hook is installed: chainrule's, with the version the module reports
    (``torch.__version__``), whether or not a real PyTorch is installed, so programs that
    ask ``importlib.metadata.version("torch")`` see the torch they import."""

    def __init__(self, alias: str) -> None:
        self._alias = alias

    def read_text(self, filename: str) -> str | None:
        if filename not in ("METADATA", "PKG-INFO"):
            return None
        version = importlib.import_module(_ALIASES[self._alias]).__version__
        return (
            f"Metadata-Version: 2.1\nName: {self._alias}\nVersion: {version}\n"
            f"Summary: {self._alias} as provided by chainrule (chainrule run)\n"
        )

    def locate_file(self, path: str | os.PathLike[str]) -> pathlib.Path:
        return pathlib.Path(__file__).resolve().parent.parent / path


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Finds ``torch``, ``torchvision`` and their submodules as chainrule's modules."""

    def find_distributions(
        self, context: importlib.metadata.DistributionFinder.Context | None = None
    ) -> Iterator[importlib.metadata.Distribution]:
        """``torch``'s (``torchvision``'s, ``torchaudio``'s) metadata as chainrule's."""
        name = None if context is None else context.name
        if name is not None:
            alias = re.sub(r"[-_.]+", "_", name).lower()
            if alias in _ALIASES and alias != "functorch":  # (ships inside torch's)
                yield _AliasDistribution(alias)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not _is_alias(fullname):
            return None
        # what chainrule loaded since, but not ``fullname`` itself: the import system,
        # finding a module it asked a finder for already in sys.modules, would load that
        # module's own spec (chainrule's file) again, as a second module object
        _alias_loaded(but=fullname)
        real = _target_name(fullname)
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as exc:
            # Only the module asked for (or a parent of it) being absent means
            # chainrule lacks it; any other failure is a bug to report as it is.
            if exc.name is None or not (real == exc.name or real.startswith(exc.name + ".")):
                raise
            raise ModuleNotInChainrule(missing_message(fullname), name=fullname) from None
        _alias_loaded(but=fullname)  # (the submodules that import loaded)
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(module), is_package=hasattr(module, "__path__")
        )


def _alias_loaded(but: str | None = None) -> None:
    """Enter every chainrule module already imported under its ``torch`` name (``but``
    that name).

    An import of ``torch.X.Y`` that the finder answers makes the import system set the
    attribute ``Y`` of ``torch.X`` to the module; where chainrule's package has a function
    of that name (``autograd.gradcheck``, ``autograd.variable``, as in PyTorch) it would be
    hidden. A module already in ``sys.modules`` under the ``torch`` name is not loaded
    again, so its parent's attribute stays what chainrule set."""
    for name, module in list(sys.modules.items()):
        if module is None:
            continue
        if name not in _named_modules and (name == _TARGET or name.startswith(_TARGET + ".")):
            _name_classes(name, module)
        for alias, target in _ALIASES.items():
            if name == target or name.startswith(target + "."):
                aliased = alias + name[len(target) :]
                if aliased != but:
                    sys.modules.setdefault(aliased, module)


_renamed: dict[type, str] = {}  # class -> its chainrule module, while it carries PyTorch's
_named_modules: set[str] = set()  # chainrule's modules whose classes were renamed


def _name_classes(name: str, module: ModuleType) -> None:
    """Give the classes defined in chainrule's module ``name`` PyTorch's module path
    (``chainrule.nn.modules.linear`` -> ``torch.nn.modules.linear``; a class of a private
    top module that ``torch`` exports, ``Tensor``, ``Size``, ``dtype``: ``torch``, or
    ``torch._C`` for one ``torch._C`` has too, ``Generator``), as
    PyTorch's classes have: what a library writes of a class (a config's class path,
    ``repr(type(m))``, a pickle) names the class PyTorch has there, and under the hook that
    name imports chainrule's class."""
    from .serialization._torch_names import torch_module

    _named_modules.add(name)
    theirs = torch_module(name)
    if theirs is None:
        return
    top, c = sys.modules.get(_TARGET), importlib.import_module(_TARGET + "._C")
    private_top = name.count(".") == 1 and name.split(".")[1].startswith("_")
    for value in list(vars(module).values()):
        if isinstance(value, type) and vars(value).get("__module__") == name:
            _renamed[value] = name
            value.__module__ = theirs
            if private_top and getattr(top, value.__name__, None) is value:
                in_c = getattr(c, value.__name__, None) is value  # (torch._C.Generator)
                value.__module__ = "torch._C" if in_c else "torch"


def _name_classes_back() -> None:
    """chainrule's own module paths on its classes again (the hook is gone)."""
    for cls, name in _renamed.items():
        cls.__module__ = name
    _renamed.clear()
    _named_modules.clear()


def is_chainrule_module(name: str) -> bool:
    """Whether the module path ``name`` (a class's ``__module__``) is chainrule's: a
    ``chainrule`` one, or while the hook is installed a ``torch``, ``torchvision`` or
    ``torchaudio`` one (the paths chainrule's classes then carry)."""
    if name == _TARGET or name.startswith(_TARGET + "."):
        return True
    return _finder is not None and _is_alias(name)


_finder: _TorchFinder | None = None
_set_aside: dict[str, ModuleType] = {}
_command_line: list = []  # multiprocessing.spawn's own get_command_line, while replaced


def _spawn_with_hook() -> None:
    """Make processes started by the spawn method install the hook before they re-import
    the main script (as ``__mp_main__``): its ``import torch`` then gives chainrule there
    too, as in the parent (a forked process inherits the hook)."""
    import multiprocessing.spawn as spawn
    import os

    original = spawn.get_command_line
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    prologue = (
        f"import sys; sys.path.insert(0, {home!r}); "
        "import chainrule._import_hook as hook; hook.install(); "
    )

    def get_command_line(**kwds: object) -> list:
        command = original(**kwds)
        if "-c" in command:
            i = command.index("-c") + 1
            command[i] = prologue + command[i]
        return command

    _command_line.append(original)
    spawn.get_command_line = get_command_line


def _spawn_without_hook() -> None:
    import multiprocessing.spawn as spawn

    if _command_line:
        spawn.get_command_line = _command_line.pop()


def _name_as_torch() -> None:
    """Name chainrule's top module ``torch`` while the hook is installed, PyTorch's value,
    which libraries check (pyro's ``patch_dependency`` asserts it); the submodules keep
    their names, and ``torch.__spec__.name`` (``"chainrule"``) and ``torch.__version__``
    (``...+chainrule...``) still say which torch a script imported."""
    importlib.import_module(_TARGET).__name__ = "torch"


def is_installed() -> bool:
    """Whether the hook is installed."""
    return _finder is not None


def install() -> None:
    """Resolve ``import torch`` and ``torch.*`` to chainrule (``torchvision.*`` to
    ``chainrule.vision``, ``torchaudio.*`` to ``chainrule.audio``) until :func:`uninstall`.

    ``torch``, ``torchvision`` and ``torchaudio`` modules already in ``sys.modules`` (a real PyTorch) are
    set aside, to be
    put back by :func:`uninstall`. Installing twice is a no-op.
    """
    global _finder
    if _finder is not None:
        return
    _set_aside.clear()
    for name in [n for n in sys.modules if _is_alias(n)]:
        _set_aside[name] = sys.modules.pop(name)
    _finder = _TorchFinder()
    sys.meta_path.insert(0, _finder)
    _alias_loaded()
    _spawn_with_hook()
    _name_as_torch()


def uninstall() -> None:
    """Remove the hook, forget the ``torch``, ``torchvision`` and ``torchaudio``
    aliases, and restore what
    was set aside."""
    global _finder
    if _finder is None:
        return
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    _finder = None
    _spawn_without_hook()
    _name_classes_back()
    top = sys.modules.get(_TARGET)
    if top is not None and top.__name__ != _TARGET:
        top.__name__ = _TARGET
    for name in [n for n in sys.modules if _is_alias(n)]:
        del sys.modules[name]
    sys.modules.update(_set_aside)
    _set_aside.clear()


@contextmanager
def installed() -> Iterator[None]:
    """Context manager: the hook is installed inside the block (and left as found after)."""
    already = is_installed()
    install()
    try:
        yield
    finally:
        if not already:
            uninstall()
