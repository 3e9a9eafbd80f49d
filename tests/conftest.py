"""Shared test set-up: the PyTorch oracle is required, never optional."""

from __future__ import annotations

import pytest

try:
    import torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - only on a broken set-up
    raise pytest.UsageError(
        "the PyTorch oracle is missing: run `make test`, which installs torch==2.13.0 "
        "(the 'test' extra)"
    ) from exc


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests that change the default dtype or print options must not leak them."""
    import chainrule

    dtype = chainrule.get_default_dtype()
    yield
    chainrule.set_default_dtype(dtype)
