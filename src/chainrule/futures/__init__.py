"""``torch.futures``: :class:`Future` (the class ``torch.jit.Future`` names too),
``collect_all`` and ``wait_all``."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ..jit._future import Future

__all__ = ["Future", "collect_all", "wait_all"]


def _require_futures(futures: Any) -> None:
    """PyTorch's errors for what is not a sequence of futures."""
    if not isinstance(futures, Sequence) or not all(
        f is None or isinstance(f, Future) for f in futures
    ):
        raise TypeError(
            "_collect_all(): incompatible function arguments. The following argument types "
            "are supported:\n    1. (arg0: collections.abc.Sequence[torch._C.Future]) -> "
            f"torch._C.Future\n\nInvoked with: {futures!r}"
        )
    if any(f is None for f in futures):
        raise RuntimeError("Future can't be None")


def collect_all(futures: list[Future]) -> Future[list[Future]]:
    """A future of the list ``futures``, complete once every one of them is; it holds the
    exception of the first of them that holds one, if any does."""
    _require_futures(futures)
    futures = list(futures)
    collected: Future[list[Future]] = Future()
    pending = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            pending[0] -= 1
            last = pending[0] == 0
        if not last:
            return
        failed = [f._exception for f in futures if f._exception is not None]
        if failed:  # the exception of the first future (in list order) that holds one
            collected.set_exception(failed[0])
        else:
            collected.set_result(futures)

    if not futures:
        collected.set_result(futures)
    for future in futures:
        future.add_done_callback(one_done)
    return collected


def wait_all(futures: list[Future]) -> list[Any]:
    """The results of ``futures``, once all are complete (raising the first exception one
    of them holds)."""
    return [future.wait() for future in collect_all(futures).wait()]
