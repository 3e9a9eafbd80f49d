"""``chainrule.utils.benchmark``: PyTorch's ``torch.utils.benchmark`` (wall-clock timing).

``Timer`` runs a statement many times and returns a ``Measurement`` (median, IQR,
replicates); ``Compare`` lays many measurements out as one table per label; ``Fuzzer``
draws random sizes and tensors to time over. As in PyTorch, it is not loaded by
``import chainrule``: ``import chainrule.utils.benchmark`` (or ``torch.utils.benchmark``
under ``chainrule run``).

Not here: Callgrind instruction counts (``Timer.collect_callgrind``, ``CallgrindStats``),
C++ statements (``language="c++"``), the sparse fuzzer and ``op_fuzzers``.
"""

from .utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from .utils.compare import Colorize, Compare
from .utils.fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias
from .utils.timer import Language, Timer, timer

__all__ = [
    "Colorize",
    "Compare",
    "FuzzedParameter",
    "FuzzedTensor",
    "Fuzzer",
    "Language",
    "Measurement",
    "ParameterAlias",
    "TaskSpec",
    "Timer",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "timer",
    "trim_sigfig",
    "unit_to_english",
]
