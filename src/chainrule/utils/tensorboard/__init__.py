"""``chainrule.utils.tensorboard``: PyTorch's ``torch.utils.tensorboard`` (``SummaryWriter``).

Writes TensorBoard event files with the ``tensorboard`` package's protocol buffers and
event-file writer, as PyTorch does, so TensorBoard reads what chainrule logs. The package
is optional (``pip install chainrule[tensorboard]``): ``import chainrule`` never loads it,
and importing this module without it raises PyTorch's ImportError.

Differences from PyTorch: ``add_graph`` draws chainrule's autograd graph of one forward
call instead of a TorchScript trace (see ``_graph.py``); images are PNG-encoded by Pillow where it is
installed, as in PyTorch, and otherwise by a small zlib encoder (the same pixels, other
bytes; boxes and ``rescale`` then need Pillow); ``add_tensor`` also takes NumPy arrays and
numbers.
"""

from __future__ import annotations

import re


def _tensorboard_version_ok() -> bool:
    """Whether ``tensorboard`` imports and is version 1.15 or above."""
    try:
        import tensorboard
    except ImportError:
        return False
    version = getattr(tensorboard, "__version__", None)
    if not isinstance(version, str):
        return False
    leading = [re.match(r"\d*", part).group() for part in version.split(".")[:2]]
    return tuple(int(n or 0) for n in leading) >= (1, 15)


if not _tensorboard_version_ok():
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
