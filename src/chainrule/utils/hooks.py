"""``torch.utils.hooks``: the handle that ``register_hook`` and its kin return."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook.

    ``RemovableHandle(hooks, hook)`` puts ``hook`` into ``hooks`` under the handle's id;
    ``RemovableHandle(hooks)`` only takes an id (the caller stores the hook, as PyTorch's
    modules do). ``extra_dict``: dicts (one, or a list) whose entry under the same id
    goes when the hook does (a module's with_kwargs and always_call flags).
    """

    __slots__ = ("_hooks", "_extra", "id")

    def __init__(
        self,
        hooks: dict,
        hook: Callable | None = None,
        *,
        extra_dict: dict | list[dict] | None = None,
    ) -> None:
        self._hooks = hooks
        self._extra: tuple = (
            (extra_dict,) if isinstance(extra_dict, dict) else tuple(extra_dict or ())
        )
        self.id = next(_handle_ids)
        if hook is not None:
            hooks[self.id] = hook

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for extra in self._extra:
            extra.pop(self.id, None)

    def __getstate__(self) -> tuple:
        return (self._hooks, self.id, self._extra)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self._hooks, self.id, self._extra = state

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
