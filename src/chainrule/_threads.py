"""``torch.get_num_threads``/``set_num_threads`` and the inter-op pair, as chainrule has
them.

chainrule computes with NumPy, whose only thread pool is its BLAS library (matrix
products). The count set here limits that pool through ``threadpoolctl`` when it is
installed; without it the count is only recorded (and reported in measurements), and
NumPy keeps its own setting. Elementwise NumPy kernels are single-threaded either way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_limiter: Any = None  # the active threadpoolctl limit, when one is set
_num_threads: int | None = None


def _default_threads() -> int:
    try:
        from threadpoolctl import threadpool_info

        counts = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
        if counts:
            return int(max(counts))
    except ImportError:
        pass
    return os.cpu_count() or 1


def get_num_threads() -> int:
    """The number of threads NumPy's BLAS may use (as last set, else its own count)."""
    return _num_threads if _num_threads is not None else _default_threads()


def set_num_threads(n: int) -> None:
    """Limit NumPy's BLAS pool to ``n`` threads (recorded only without threadpoolctl)."""
    global _limiter, _num_threads
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        if _limiter is not None:
            _limiter.restore_original_limits()
        _limiter = threadpool_limits(limits=n, user_api="blas")
    _num_threads = n


@contextmanager
def limited(n: int) -> Iterator[None]:
    """Run the body with ``n`` threads, then put back the count set before."""
    global _limiter, _num_threads
    prior_limiter, prior_count = _limiter, _num_threads
    _limiter = None  # keep the outer limit; this one is undone on its own
    try:
        set_num_threads(n)
        yield
    finally:
        if _limiter is not None:
            _limiter.restore_original_limits()
        _limiter, _num_threads = prior_limiter, prior_count


_interop: list = [None]


def init_num_threads() -> None:
    """Set up this thread's intra-op threads (NumPy's BLAS starts its own: nothing to do)."""


def get_num_interop_threads() -> int:
    """The threads for running independent ops side by side: chainrule runs ops one after
    another, so this is only the count last set (else the machine's)."""
    return _interop[0] if _interop[0] is not None else (os.cpu_count() or 1)


def set_num_interop_threads(n: int) -> None:
    """Record the inter-op thread count (nothing runs side by side here)."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _interop[0] = n
