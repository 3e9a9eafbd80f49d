"""``torch.utils.data._utils``: the DataLoader's internals that libraries import by name
(collation, fetchers, the worker protocol, worker-failure signals, memory pinning) and
its constants."""

import atexit
import sys

IS_WINDOWS = sys.platform == "win32"
# seconds between a worker's (and the main process's) checks of the other side's status
MP_STATUS_CHECK_INTERVAL = 5.0
# set True when the interpreter begins to exit: iterators then skip joining their workers
python_exit_status = False

try:
    import numpy  # noqa: F401

    HAS_NUMPY = True
except ModuleNotFoundError:
    HAS_NUMPY = False


def _set_python_exit_flag() -> None:
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)

from . import collate, fetch, pin_memory, signal_handling, worker  # noqa: E402

__all__ = [
    "HAS_NUMPY",
    "IS_WINDOWS",
    "MP_STATUS_CHECK_INTERVAL",
    "collate",
    "fetch",
    "pin_memory",
    "signal_handling",
    "worker",
]
