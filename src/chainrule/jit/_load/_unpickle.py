"""Reading a TorchScript archive's pickles (``data.pkl``, ``constants.pkl``) without running
code from them: torch.load's restricted unpickler, where a ``__torch__.<qualname>`` class
becomes an :class:`ObjectRecord` (a plain holder of the saved attributes) and the only
other globals are the tensor rebuild functions, storage types and the typed-container tags
of ``torch.jit._pickle``. Any other global (``os.system``, ``builtins.eval``, ...) is
refused before anything is called."""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any

from ...serialization._unpickler import WeightsUnpickler, _allowed


class ObjectRecord:
    """An object of a TorchScript class as the archive saved it: its qualified name
    (``__torch__.torch.nn.modules.linear.Linear``) and its attributes, nothing more."""

    qualname = ""

    def __init__(self) -> None:
        self.attrs: dict[str, Any] = {}

    def __setstate__(self, state: Any) -> None:
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise pickle.UnpicklingError(
                f"{self.qualname}: an object whose saved state is not a dict of attributes "
                "(chainrule's torch.jit.load reads attribute dicts only)"
            )
        self.attrs = dict(state)

    def __repr__(self) -> str:
        return f"<ObjectRecord {self.qualname}>"


def _restore_type_tag(value: Any, type_str: str) -> Any:
    """A typed list or dict (``List[int]``, ``Dict[str, Tensor]``): the value itself."""
    return value


def _build_list(data: Any) -> list:
    """A specialized list (``build_intlist``, ``build_tensorlist``, ...): a list."""
    return list(data)


_JIT_GLOBALS: dict[str, Any] = {
    "torch.jit._pickle.restore_type_tag": _restore_type_tag,
    "torch.jit._pickle.build_intlist": _build_list,
    "torch.jit._pickle.build_doublelist": _build_list,
    "torch.jit._pickle.build_boollist": _build_list,
    "torch.jit._pickle.build_tensorlist": _build_list,
}


class ScriptUnpickler(WeightsUnpickler):
    """torch.load's restricted unpickler, plus ``__torch__`` classes as records. The
    user's ``add_safe_globals`` do not apply here: a TorchScript archive needs none."""

    def __init__(self, file: io.BytesIO, load_storage: Callable[..., Any]) -> None:
        super().__init__(file, load_storage)
        self.allowed = {**_allowed(), **_JIT_GLOBALS}
        self.classes: dict[str, type] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module == "__torch__" or module.startswith("__torch__."):
            qualname = f"{module}.{name}"
            if qualname not in self.classes:
                self.classes[qualname] = type(name, (ObjectRecord,), {"qualname": qualname})
            return self.classes[qualname]
        return super().find_class(module, name)


def unpickle(data: bytes, load_storage: Callable[..., Any]) -> Any:
    """The object a TorchScript pickle holds, read with :class:`ScriptUnpickler`; a file
    that is no valid pickle of allowed objects raises pickle.UnpicklingError."""
    try:
        return ScriptUnpickler(io.BytesIO(data), load_storage).load()
    except pickle.UnpicklingError:
        raise
    except (EOFError, IndexError, ValueError, TypeError, AttributeError, KeyError) as exc:
        raise pickle.UnpicklingError(
            f"torch.jit.load: the archive's pickle is not valid ({type(exc).__name__}: {exc})"
        ) from exc
