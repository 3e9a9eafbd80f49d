"""The names PyTorch gives chainrule's classes and functions in a pickle.

chainrule's packages mirror PyTorch's (``chainrule.nn.modules.linear`` is
``torch.nn.modules.linear``, ``chainrule.vision`` is ``torchvision``), so a class is written
under its module's PyTorch spelling; a function under the public namespace that holds it
(``torch.nn.functional.relu``), since chainrule defines its functions in other modules than
PyTorch's. A whole model chainrule saves then names what PyTorch imports to load it.
"""

from __future__ import annotations

import sys
from types import FunctionType
from typing import Any

__all__ = ["chainrule_modules", "torch_module", "torch_name"]

# chainrule's packages and PyTorch's for them, the longest first
_PACKAGES = (
    ("chainrule.vision", "torchvision"),
    ("chainrule.audio", "torchaudio"),
    ("chainrule", "torch"),
)
# chainrule modules whose classes PyTorch keeps in another module
_MOVED_MODULES = {
    "chainrule.nn.modules.activation_attention": "torch.nn.modules.activation",
    "chainrule.nn.modules.deprecated_container": "torch.nn.modules.container",
    "chainrule.nn.modules.linear_cross_entropy": "torch.nn.modules.loss",
    "chainrule.optim._plateau_cyclic": "torch.optim.lr_scheduler",
    "chainrule.optim.adafactor": "torch.optim",
    "chainrule.optim.muon": "torch.optim",
    "chainrule.distributions.transforms.base": "torch.distributions.transforms",
    "chainrule.distributions.transforms.constrained": "torch.distributions.transforms",
    "chainrule.distributions.transforms.elementwise": "torch.distributions.transforms",
    "chainrule.distributions.transforms.structural": "torch.distributions.transforms",
    "chainrule.utils.data._worker": "torch.utils.data._utils.worker",
}
# single classes that PyTorch keeps in a module of their own
_DISTRIBUTIONS = "chainrule.distributions"
_MOVED_CLASSES = {
    ("chainrule.optim.adam", "AdamW"): "torch.optim.adamw",
    (_DISTRIBUTIONS + ".transformed_distribution", "LogNormal"): "torch.distributions.log_normal",
}
# the public namespaces a function is looked up in, in order, with PyTorch's names
_NAMESPACES = (
    ("chainrule.nn.functional", "torch.nn.functional"),
    ("chainrule.nn.init", "torch.nn.init"),
    ("chainrule", "torch"),
    ("chainrule.linalg", "torch.linalg"),
    ("chainrule.special", "torch.special"),
    ("chainrule.fft", "torch.fft"),
)


def torch_module(module: str) -> str | None:
    """``chainrule.nn.modules.linear`` -> ``torch.nn.modules.linear`` (``chainrule.vision``
    -> ``torchvision``, ``chainrule.audio`` -> ``torchaudio``); None for other modules."""
    for ours, theirs in _PACKAGES:
        if module == ours or module.startswith(ours + "."):
            return theirs + module[len(ours) :]
    return None


def torch_name(obj: Any) -> tuple[str, str] | None:
    """(module, name) under which PyTorch knows the chainrule class or function ``obj``;
    None for anything else (pickle's own lookup then names it)."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or "." in name:
        return None  # (a nested or local name: pickle's own rules apply)
    if module == "torch" or module.startswith("torch."):
        return module, name  # (a chainrule class already named as PyTorch's)
    theirs = torch_module(module)
    if theirs is None:
        return None
    if isinstance(obj, FunctionType):
        for space, prefix in _NAMESPACES:
            namespace = sys.modules.get(space)
            if namespace is not None and vars(namespace).get(obj.__name__) is obj:
                return prefix, obj.__name__
    moved = _MOVED_CLASSES.get((module, name)) or _MOVED_MODULES.get(module)
    return (moved or theirs), name


def chainrule_modules(module: str, name: str) -> list[str]:
    """The chainrule modules in which PyTorch's ``module.name`` may be found (the mirror of
    ``module`` first); none for a module outside PyTorch's packages."""
    places = []
    for ours, theirs in reversed(_PACKAGES):  # (``torchvision`` before ``torch``)
        if module == theirs or module.startswith(theirs + "."):
            places.append(ours + module[len(theirs) :])
            break
    else:
        return []
    places += [ours for ours, theirs in _MOVED_MODULES.items() if theirs == module]
    places += [
        ours for (ours, n), theirs in _MOVED_CLASSES.items() if (n, theirs) == (name, module)
    ]
    return places
