"""The grad modes' thread-local switches (PyTorch's are thread-local too), and the one flag
the recording's hot paths read first.

``autograd/grad_mode.py`` sets the switches (``no_grad``, ``inference_mode``, ...) through
``set_enabled``; the recording reads ``enabled``, and the tensor's constructor reads
``inference`` to mark the tensors made under ``inference_mode`` (``_tensor._make``). A
module of its own so that both can import it without an import circle.

``usual[0]`` is True while nothing out of the ordinary is on anywhere: grad mode on in every
thread, no forward-mode level, no anomaly detection or explain recording, no open
``inference_mode``, no meta array alive and no device array ever made. An op's hot path
reads this one flag (one load instead of five checks, one of them a thread-local read) and
checks each condition itself only when it is False; whatever turns a condition on or off
says so here (``mark``, ``set_enabled``).
"""

from __future__ import annotations

import threading

_get_ident = threading.get_ident


class _State(threading.local):
    enabled = True  # ops on tensors that require grad record a graph
    inference = False  # inside inference_mode: new tensors are inference tensors
    # while the engine's plain loop runs VJPs, which may lend (ops/_scratch.py): its gradients
    # waiting to be consumed, (ready, buffers); else None
    lending = None
    lent_out = False  # a VJP has lent since user code last ran (_backend.unlend_waiting)


state = _State()

usual = [True]
_reasons: set = set()  # what is on now, process-wide ("forward", "anomaly", ...)
_off: set = set()  # the threads whose grad mode is off (thread idents)
# Each writer changes a set and the flag under this lock: two threads writing at once would
# otherwise leave the flag True from a set read before the other thread's change.
_lock = threading.Lock()


def _switch(items: set, item: object, on: bool) -> None:
    """Put ``item`` in ``items`` (or take it out), and the flag after both sets."""
    with _lock:
        if on:
            items.add(item)
        else:
            items.discard(item)
        usual[0] = not _reasons and not _off


def mark(reason: str, on: bool) -> None:
    """Record that the process-wide condition ``reason`` is now on (or off)."""
    _switch(_reasons, reason, on)


def set_enabled(enabled: bool) -> None:
    """Turn grad mode on or off in this thread (the one way ``state.enabled`` is written)."""
    state.enabled = enabled
    _switch(_off, _get_ident(), not enabled)


def set_modes(enabled: bool, inference: bool) -> None:
    """Set this thread's grad mode and inference mode (a context's exit restores both)."""
    state.inference = inference
    set_enabled(enabled)
