"""Which rows of the name table (api/table.py) ran on 'cuda': a pytest plugin for the
stand-in runs of tests/test_cuda_standin.py (``-p cuda_coverage``).

Each public function, Tensor method and property the table builds is wrapped, for the
session, in a recorder that notes the row it belongs to when a call takes or gives a
tensor on 'cuda'; at the end the rows are written, one a line with the first passing test
that ran each, to the file named by ``CUDA_COVERAGE`` (``.gw0``, ``.gw1`` ... appended under xdist). A row
(``torch.add``, ``linalg.solve``, ``functional.conv2d``, ``Tensor.view``,
``Tensor.__add__``) counts once any of its names ran: ``add``, ``Tensor.add``, ``add_``,
an alias.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

import chainrule as cr
from chainrule import api
from chainrule.api import table

COVERAGE_ENV = "CUDA_COVERAGE"

_SPACES = {
    "torch": cr,
    "linalg": cr.linalg,
    "special": cr.special,
    "functional": cr.nn.functional,
    "Tensor": cr.Tensor,
}


def rows() -> dict[tuple[str, str], str]:
    """(namespace, public name) -> the table row it comes from (``space.name``)."""
    out: dict[tuple[str, str], str] = {}
    for name, _, where, *aliases in table.TORCH:
        row = f"torch.{name}"
        flags = where.split()
        for n in (name, *(aliases[0].split() if aliases else ())):
            if "f" in flags:
                out["torch", n] = row
            if "f_" in flags:
                out["torch", n + "_"] = row
            if "m" in flags:
                out["Tensor", n] = row
            if "m_" in flags:
                out["Tensor", n + "_"] = row
    for space, entries in (
        ("Tensor", table.TENSOR + table.OPERATORS),
        ("linalg", table.LINALG),
        ("special", table.SPECIAL),
        ("functional", table.FUNCTIONAL),
    ):
        for entry in entries:
            out.setdefault((space, entry[0]), f"{space}.{entry[0]}")
    return out


def _tensors(value: Any, depth: int = 0) -> Iterator[Any]:
    if isinstance(value, cr.Tensor):
        yield value
    elif depth < 2 and isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors(v, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v, depth + 1)


def _on_cuda(*values: Any) -> bool:
    return any(t.is_cuda for v in values for t in _tensors(v))


def _recorder(fn: Callable, row: str, seen: dict[str, str]) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if row not in seen and _on_cuda(out, args, kwargs):
            _pending.add(row)
        return out

    return call


_seen: dict[str, str] = {}  # row -> the first passing test that ran it on 'cuda'
_pending: set[str] = set()  # the rows the test running ran there so far
_undo: list[tuple[Any, str, Any]] = []


def pytest_runtest_logreport(report: Any) -> None:
    if report.when == "call":
        if report.passed:
            for row in _pending:
                _seen.setdefault(row, report.nodeid)
        _pending.clear()


def _recording(value: Any, row: str) -> Any:
    """``value`` (a function, a property, a static method) recording ``row``; None for
    what does not run (a constant, a class)."""
    if isinstance(value, property):  # (T, mT, nbytes ...: the getter runs)
        return property(_recorder(value.fget, row, _seen), value.fset, value.fdel, value.__doc__)
    if isinstance(value, staticmethod):  # (Tensor.__new__, the legacy constructor)
        return staticmethod(_recorder(value.__func__, row, _seen))
    if value is None or not callable(value) or isinstance(value, type):
        return None
    return _recorder(value, row, _seen)


def pytest_configure(config: Any) -> None:
    built = api.build()
    for (space, name), row in rows().items():
        home = _SPACES[space]
        value = vars(home).get(name)
        if space == "Tensor" and name not in built["Tensor"]:
            continue
        recording = _recording(value, row)
        if recording is not None:
            _undo.append((home, name, value))
            setattr(home, name, recording)


def pytest_unconfigure(config: Any) -> None:
    for home, name, value in reversed(_undo):
        setattr(home, name, value)
    path = os.environ.get(COVERAGE_ENV)
    worker = getattr(config, "workerinput", {}).get("workerid")  # (an xdist worker)
    if path and worker:  # one file per worker
        path = f"{path}.{worker}"
    if path:
        with open(path, "w") as f:
            f.write("".join(f"{row} {test}\n" for row, test in sorted(_seen.items())))


# ``CUDA_DEFAULT_DEVICE=1``: every test runs with chainrule's default device 'cuda' (the
# oracle makes chainrule's inputs there, PyTorch's stay on the CPU): test files written for
# the CPU, run on the device as they are
DEFAULT_DEVICE_ENV = "CUDA_DEFAULT_DEVICE"

if os.environ.get(DEFAULT_DEVICE_ENV) == "1":
    import pytest

    @pytest.fixture(autouse=True)
    def _chainrule_on_cuda() -> Iterator[None]:
        import oracle

        cr.set_default_device("cuda")
        oracle.DEVICE = "cuda"
        try:
            yield
        finally:
            cr.set_default_device(None)
            oracle.DEVICE = "cpu"
