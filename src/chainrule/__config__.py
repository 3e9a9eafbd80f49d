"""``torch.__config__``: what this build is made of, as text (``show``) and its threads
(``parallel_info``): for chainrule, NumPy and the BLAS under it."""

from __future__ import annotations

__all__ = ["parallel_info", "show"]


def show() -> str:
    """The build: chainrule's version, Python's, NumPy's and the BLAS NumPy calls."""
    import platform

    import numpy

    from . import _RELEASE as __version__

    blas = _blas()
    return (
        f"chainrule {__version__} (PyTorch's API on NumPy) built with:\n"
        f"  - Python {platform.python_version()}\n"
        f"  - NumPy {numpy.__version__}\n"
        f"  - BLAS: {blas}\n"
        "  - no C++ extension, no CUDA build (CuPy is used where installed)\n"
    )


def parallel_info() -> str:
    """The threads: chainrule's intra-op setting and the BLAS's."""
    from . import get_num_interop_threads, get_num_threads

    return (
        "chainrule/Parallel:\n"
        f"\tget_num_threads() : {get_num_threads()}\n"
        f"\tget_num_interop_threads() : {get_num_interop_threads()}\n"
        f"\tBLAS: {_blas()}\n"
    )


def _blas() -> str:
    try:
        from numpy import show_config

        info = show_config(mode="dicts")
        lib = info.get("Build Dependencies", {}).get("blas", {})
        return f"{lib.get('name', 'unknown')} {lib.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 - older NumPy: no dict form
        return "unknown"
