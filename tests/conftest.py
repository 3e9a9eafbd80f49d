"""Shared test set-up: the PyTorch oracle is required, never optional; the forward-mode
comparisons torch itself could not run are listed at the end of the run."""

from __future__ import annotations

import warnings

import pytest

try:
    import torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - only on a broken set-up
    raise pytest.UsageError(
        "the PyTorch oracle is missing: run `make test`, which installs torch==2.13.0 "
        "(the 'test' extra)"
    ) from exc

# torch's own warnings, not chainrule's: forward mode's first make_dual imports
# torch/_decomp/decompositions_for_jvp.py, which calls torch.jit.script, deprecated in
# torch 2.13 (a DeprecationWarning). Import it once here, with that warning ignored, so that
# no test fails on it under `python -W error` or `pytest -W error`.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\.jit")
    torch.autograd.forward_ad._maybe_load_decompositions()


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests that change the default dtype or print options must not leak them."""
    import chainrule

    dtype = chainrule.get_default_dtype()
    yield
    chainrule.set_default_dtype(dtype)
    # a Tensor subclass made in the test (a sparse tensor is one: chainrule/sparse) turned
    # on __torch_function__ dispatch: off again, so no later test runs with it
    from chainrule import overrides

    if overrides._state.classes:
        overrides._reset()


def pytest_sessionfinish(session) -> None:
    """Under pytest-xdist, a worker hands its forward-mode lists to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        import dataclasses

        import oracle

        workeroutput["forward_gaps"] = [dataclasses.asdict(g) for g in oracle.TORCH_FORWARD_GAPS]
        workeroutput["forward_off"] = list(oracle.FORWARD_OFF)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """The controller gathers each worker's forward-mode lists for the summary."""
    import oracle

    out = getattr(node, "workeroutput", {})
    oracle.TORCH_FORWARD_GAPS.extend(oracle.ForwardGap(**g) for g in out.get("forward_gaps", ()))
    oracle.FORWARD_OFF.extend(out.get("forward_off", ()))


def pytest_terminal_summary(terminalreporter) -> None:
    """Count and list the forward-mode comparisons ``oracle.check`` could not make because
    torch itself has no forward-mode rule there (shown, never passed silently), and count
    the checks whose test turned the comparison off (``forward=False``)."""
    import oracle

    gaps = oracle.TORCH_FORWARD_GAPS
    by_op: dict[str, int] = {}
    for gap in gaps:
        by_op[gap.op] = by_op.get(gap.op, 0) + 1
    counts = ", ".join(f"{op} {n}" for op, n in sorted(by_op.items()))
    terminalreporter.section("forward mode")
    terminalreporter.write_line(
        f"forward-mode checks torch could not run: {len(gaps)}" + (f" ({counts})" if gaps else "")
    )
    for gap in gaps:
        terminalreporter.write_line(f"  {gap.test}: {gap.error}: {gap.message}")
    off = oracle.FORWARD_OFF
    terminalreporter.write_line(
        f"forward-mode checks turned off by the test (forward=False, reason in a comment): "
        f"{len(off)} in {len(set(off))} tests"
    )
