"""``torch.compile`` and ``torch.compiler``: compiled code runs eagerly in chainrule (as
PyTorch's backend="eager"), with PyTorch's wrappers (an ``OptimizedModule`` whose state
dict carries the ``_orig_mod.`` prefix), argument checks and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of

X = np.linspace(-1.0, 1.0, 8).reshape(4, 2)


def _model(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
    return model


# (PyTorch's own runs use backend="eager": its default, inductor, needs a C++ toolchain and
# warns of deprecated TorchScript names on import, which the test run turns into errors)
@pytest.mark.parametrize(
    "kwargs",
    [{"backend": "eager"}, {"backend": "aot_eager", "fullgraph": True, "dynamic": False}],
    ids=str,
)
def test_a_compiled_module_computes_and_trains_as_torchs(kwargs):
    def run(lib):
        model = _model(lib)
        compiled = lib.compile(model, **kwargs)
        x = lib.tensor(X, dtype=lib.float32)
        out = compiled(x)
        out.sum().backward()
        sd = compiled.state_dict()
        other = lib.compile(_model(lib), backend="eager")
        other.load_state_dict(sd)
        compiled.eval()
        return (
            type(compiled).__name__,
            repr(compiled),
            list(sd.keys()),
            compiled._orig_mod is model,
            model.training,
            out,
            [p.grad for p in model.parameters()],
            other(x),
        )

    compare(run)


def test_compiled_functions_and_the_decorator_as_torchs():
    def run(lib):
        x = lib.tensor(X)
        f = lib.compile(lambda t: t * 2, backend="eager", dynamic=True)

        @lib.compile(backend="eager")
        def g(t):
            return t.sin()

        model = _model(lib)
        return f(x), g(x), model.compile(backend="eager"), list(model.state_dict().keys())

    compare(run)


ERRORS = {
    "mode": lambda L: L.compile(L.nn.Linear(2, 3), mode="fast"),
    "mode and options": lambda L: L.compile(L.nn.Linear(2, 3), mode="default", options={"a": 1}),
    "not callable": lambda L: L.compile(3, backend="eager"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    want, got = error_of(ERRORS[name], torch), error_of(ERRORS[name], cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_an_unknown_backend_raises_as_torch():
    want = error_of(lambda L: L.compile(L.nn.Linear(2, 3), backend="nope"), torch)
    got = error_of(lambda L: L.compile(L.nn.Linear(2, 3), backend="nope"), cr)
    assert type(got).__name__ == type(want).__name__ == "InvalidBackend"
    assert isinstance(got, RuntimeError) and str(got) == str(want)


def test_the_compiler_namespace_as_torchs():
    for lib in (cr, torch):
        model = lib.nn.Linear(2, 3)
        assert lib.compile(model, backend="eager", disable=True) is model
        assert lib.compiler.is_compiling() is False and lib.compiler.is_exporting() is False
        assert lib.compiler.disable(len)([1, 2]) == 2
        with lib.compiler.set_stance("force_eager"):
            pass
    for mode in (
        "default",
        "lite",
        "reduce-overhead",
        "max-autotune-no-cudagraphs",
        "max-autotune",
    ):
        assert cr.compile(cr.nn.Linear(2, 3), mode=mode)(cr.ones(1, 2)).shape == (1, 3)
    assert cr.compiler.list_backends() == torch.compiler.list_backends()
    assert set(cr.compiler.list_backends(exclude_tags=())) <= set(
        torch.compiler.list_backends(exclude_tags=())
    )


def test_a_backend_function_is_not_called_and_a_warning_says_so():
    calls = []
    with pytest.warns(UserWarning, match="not called"):
        f = cr.compile(lambda t: t + 1, backend=lambda gm, example: calls.append(gm) or gm)
    assert f(cr.ones(2)).tolist() == [2.0, 2.0] and calls == []
