"""The grad modes' thread-local switches (PyTorch's are thread-local too).

``autograd/grad_mode.py`` sets them (``no_grad``, ``inference_mode``, ...); the recording
reads ``enabled``, and the tensor's constructor reads ``inference`` to mark the tensors
made under ``inference_mode`` (``_tensor._make``). A module of its own so that both can
import it without an import circle.
"""

from __future__ import annotations

import threading


class _State(threading.local):
    enabled = True  # ops on tensors that require grad record a graph
    inference = False  # inside inference_mode: new tensors are inference tensors


state = _State()
