"""Anomaly detection: remember where each node was made; fail loudly on nan gradients.

Off by default, so recording costs nothing extra. Inside ``detect_anomaly()`` each
node keeps the stack of the forward call that created it, and backward raises a
RuntimeError naming the node (``Function 'SqrtBackward0' returned nan values in
its 0th output.``) and the user's line that created it.
"""

from __future__ import annotations

import os
import traceback
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import _modes

if TYPE_CHECKING:
    Node = Any  # a graph.Node (not imported: graph's version error reads _anomaly here)

    _F = TypeVar("_F", bound=Callable[..., Any])


class _AnomalyState:
    enabled = False  # anomaly detection
    check_nan = True
    explaining = 0  # depth of chainrule.explain.record() blocks
    record = False  # enabled or explaining: nodes keep where they were created
    # A value anything may set while ``record`` is on (``nn`` sets the module call whose
    # forward is running); each node made keeps it. The core never looks inside it.
    scope: Any = None

    def update(self) -> None:
        self.record = self.enabled or self.explaining > 0
        _modes.mark("anomaly", self.record)


_anomaly = _AnomalyState()
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_anomaly_enabled() -> bool:
    return _anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _anomaly.check_nan


class detect_anomaly:  # noqa: N801 - PyTorch's spelling
    """Context manager (and decorator) turning anomaly detection on."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._prev = (_anomaly.enabled, _anomaly.check_nan)
        _anomaly.enabled, _anomaly.check_nan = True, self.check_nan
        _anomaly.update()

    def __exit__(self, *exc: Any) -> None:
        _anomaly.enabled, _anomaly.check_nan = self._prev
        _anomaly.update()

    def __call__(self, func: _F) -> _F:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:  # noqa: N801
    """Turn anomaly detection on or off now; as a context manager, restore on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (_anomaly.enabled, _anomaly.check_nan)
        _anomaly.enabled, _anomaly.check_nan = bool(mode), check_nan
        _anomaly.update()

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _anomaly.enabled, _anomaly.check_nan = self._prev
        _anomaly.update()


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    _anomaly.enabled, _anomaly.check_nan = bool(enabled), check_nan
    _anomaly.update()


def record_creation(node: Node) -> None:
    """Keep the forward call's stack (without chainrule's own frames) on the node, and
    the current scope (``_anomaly.scope``) when one is set."""
    stack = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_PACKAGE)]
    node.metadata["traceback_"] = stack
    if _anomaly.scope is not None:
        node._extra.scope = _anomaly.scope


def creation_text(node: Node) -> str:
    stack = node.metadata.get("traceback_") if node._extra is not None else None
    if not stack:
        return ""
    return "".join(traceback.format_list(stack))


def check_gradients(node: Node, grads: list) -> None:
    """Raise if a backward step produced nan, naming the node and where it was made."""
    from .._backend import xp
    from .._tensor import Tensor

    if not _anomaly.check_nan:
        return
    for i, g in enumerate(grads):
        if g is None:
            continue
        arr = g._data if isinstance(g, Tensor) else g
        if arr.dtype.kind == "f" and xp.isnan(arr).any():
            where = creation_text(node)
            if where:
                warnings.warn(
                    f"Error detected in {node.name()}. Traceback of forward call that caused "
                    f"the error:\n{where}",
                    UserWarning,
                    stacklevel=2,
                )
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output."
                + (f"\nThe forward call that created it:\n{where}" if where else "")
            )
