"""Which modules are running: in forward, those whose ``forward`` has begun and not ended;
in backward, those whose outputs' gradients have been computed and their inputs' not yet.

As PyTorch's ``torch.utils.module_tracker.ModuleTracker`` tracks them: the global module
hooks add a module's name to ``parents`` before its forward and take it out after; they
also register multi-grad hooks that add it back when its outputs' gradients are computed
and take it out when its inputs' are. A module is named by its class when first called
outside any named module, and its submodules by their paths below it (``MLP.layer1``).
``Global`` is always there. When a backward ends, ``parents`` is ``{"Global"}`` again.

chainrule's engine has no callback at the end of a backward: the reset happens when the
next backward begins, or at the next forward op or module call (``sync``).
"""

from __future__ import annotations

import weakref
from typing import Any

from ..._tensor import Tensor
from ...autograd import engine
from ...autograd.multi_grad_hook import register_multi_grad_hook
from ...nn.modules._hooks import register_module_forward_hook, register_module_forward_pre_hook


def _tensors(tree: Any) -> list[Tensor]:
    """The tensors in nested tuples, lists and dicts that require grad."""
    if isinstance(tree, Tensor):
        return [tree] if tree.requires_grad else []
    if isinstance(tree, (tuple, list)):
        return [t for x in tree for t in _tensors(x)]
    if isinstance(tree, dict):
        return [t for x in tree.values() for t in _tensors(x)]
    return []


class ModuleTracker:
    """The names of the modules running now (``parents``) and whether in backward
    (``is_bw``), while entered."""

    def __init__(self) -> None:
        self.parents: dict[str, None] = {"Global": None}  # (a set, in the order entered)
        self.is_bw = False
        self._names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._handles: list = []
        self._task: Any = None  # the backward seen last (engine.current_task().id)

    def __enter__(self) -> ModuleTracker:
        self._handles = [
            register_module_forward_pre_hook(self._fw_pre_hook),
            register_module_forward_hook(self._fw_post_hook, always_call=True),
        ]
        return self

    def __exit__(self, *args: Any) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def sync(self) -> None:
        """``parents`` as {"Global"} again if the backward seen last has ended."""
        task = engine.current_task()
        current = None if task is None else task.id
        if current != self._task:
            if self._task is not None or current is not None:
                self.parents = {"Global": None}
                self.is_bw = False
            self._task = current

    def _name_of(self, mod: Any) -> str:
        """The module's name: its class's, or its path below the first named module that
        holds it."""
        name = self._names.get(mod)
        if name is None:
            name = self._names[mod] = type(mod).__name__
        for path, sub in mod.named_modules():
            if path and sub not in self._names:
                self._names[sub] = f"{name}.{path}"
        return name

    def _enter(self, name: str, is_bw: bool) -> Any:
        def enter(*args: Any) -> None:
            if is_bw:
                self.sync()
            self.is_bw = is_bw
            self.parents[name] = None

        return enter

    def _leave(self, name: str, is_bw: bool) -> Any:
        def leave(*args: Any) -> None:
            if is_bw:
                self.sync()
            self.is_bw = is_bw
            self.parents.pop(name, None)

        return leave

    def _fw_pre_hook(self, mod: Any, input: Any) -> None:
        self.sync()
        name = self._name_of(mod)
        self._enter(name, False)()
        tensors = _tensors(input)
        if tensors:
            register_multi_grad_hook(tensors, self._leave(name, True))

    def _fw_post_hook(self, mod: Any, input: Any, output: Any) -> None:
        self.sync()
        name = self._name_of(mod)
        self._leave(name, False)()
        tensors = _tensors(output)
        if tensors:
            register_multi_grad_hook(tensors, self._enter(name, True))
