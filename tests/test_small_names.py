"""Small PyTorch names users meet, against PyTorch: ``nn.DataParallel`` on a CPU-only build
(and ``nn.parallel``'s helpers there, ``nn.parallel.scatter_gather``), ``nn.UninitializedParameter``/``UninitializedBuffer``,
``torch.func.functionalize``, ``replace_all_batch_norm_modules_`` and ``debug_unwrap``,
``nn.Container`` and ``torch.autograd.variable``.
"""

from __future__ import annotations

import pickle
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import assert_same_error, compare, error_of, to_numpy

W = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4]])
B = np.array([0.25, -0.5])
X = np.array([[1.0, 2.0, -1.0], [0.5, -0.3, 0.7], [-1.2, 0.4, 0.9], [0.1, 0.2, 0.3]])


def _linear(lib):
    """Linear(3, 2) in float64 with the weights W, B."""
    m = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        m.weight.copy_(lib.tensor(W))
        m.bias.copy_(lib.tensor(B))
    return m


# ----- nn.DataParallel (no CUDA: the module called directly) ------------------------------


def test_data_parallel_calls_the_module_and_differentiates():
    def fn(lib):
        m = _linear(lib)
        dp = lib.nn.DataParallel(m)
        out = dp(lib.tensor(X))
        out.pow(2).sum().backward()
        return out, m.weight.grad, m.bias.grad, dp.device_ids, dp.module is m

    compare(fn, rtol=1e-12, atol=1e-12)


def test_data_parallel_state_dict_prefix_and_checkpoint_round_trip():
    def fn(lib):
        dp = lib.nn.DataParallel(_linear(lib))
        sd = dp.state_dict()
        keys = list(sd)
        fresh = lib.nn.DataParallel(lib.nn.Linear(3, 2).double())
        fresh.load_state_dict(sd)
        bare = lib.nn.Linear(3, 2).double()
        sd = dict(sd)
        lib.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
        bare.load_state_dict(sd)
        x = lib.tensor(X)
        return keys, list(sd), fresh(x), bare(x)

    compare(fn, rtol=1e-12, atol=1e-12)


def test_data_parallel_repr_and_parallel_namespace():
    def fn(lib):
        dp = lib.nn.DataParallel(lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU()))
        return (
            repr(dp),
            lib.nn.DataParallel is lib.nn.parallel.DataParallel,
            callable(lib.nn.parallel.data_parallel),
            isinstance(dp, lib.nn.Module),
        )

    got, want = fn(cr), fn(torch)
    assert got == want
    assert got[0].startswith("DataParallel(\n  (module): Sequential(")


def test_data_parallel_kwargs_reach_the_module():
    def fn(lib):
        class Scaled(lib.nn.Module):
            def forward(self, x, *, scale=1.0):
                return x * scale

        return lib.nn.DataParallel(Scaled(), device_ids=[0], dim=1)(lib.tensor(X), scale=3.0)

    compare(fn, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, m, x: lib.nn.parallel.data_parallel(m, x),
        lambda lib, m, x: lib.nn.parallel.scatter(x, [lib.device("cpu")]),
        lambda lib, m, x: lib.nn.parallel.replicate(m, ["cpu"]),
        lambda lib, m, x: lib.nn.parallel.gather([x, x], -1),
        lambda lib, m, x: lib.nn.parallel.gather([(x, 1), (x, 2)], "cpu", dim=1),
        lambda lib, m, x: lib.nn.parallel.parallel_apply([m], [(x,)]),
    ],
    ids=["data_parallel", "scatter", "replicate", "gather", "gather_tuples", "parallel_apply"],
)
def test_parallel_helpers_refuse_a_cpu_only_build(call):
    assert_same_error(lambda lib: call(lib, _linear(lib), lib.tensor(X)))


def test_scatter_gather_module():
    """``nn.parallel.scatter_gather`` (captum imports ``scatter`` from it): the helpers of
    ``nn.parallel``, ``scatter_kwargs`` splitting positional and keyword arguments, and the
    deprecated ``is_namedtuple``."""
    import collections
    import importlib

    pair = collections.namedtuple("pair", "a b")

    def fn(lib):
        sg = importlib.import_module(f"{lib.__name__}.nn.parallel.scatter_gather")
        with pytest.warns(FutureWarning, match="is_namedtuple. is deprecated"):
            named = (sg.is_namedtuple(pair(1, 2)), sg.is_namedtuple((1, 2)))
        same = (sg.scatter is lib.nn.parallel.scatter, sg.gather is lib.nn.parallel.gather)
        return (
            named,
            same,
            sg.scatter_kwargs((), None, [0]),
            sg.scatter_kwargs((1, "a"), {"k": 3}, [0, 1]),
        )

    got, want = fn(cr), fn(torch)
    assert got == want
    assert_same_error(
        lambda lib: importlib.import_module(
            f"{lib.__name__}.nn.parallel.scatter_gather"
        ).scatter_kwargs((lib.ones(2),), {}, ["cpu"])
    )


# ----- nn.UninitializedParameter / UninitializedBuffer ----------------------------------


def test_lazy_modules_hold_the_uninitialized_classes():
    def fn(lib):
        nn = lib.nn
        lin, bn = nn.LazyLinear(2), nn.LazyBatchNorm1d()
        before = (
            isinstance(lin.weight, nn.UninitializedParameter),
            isinstance(lin.weight, nn.Parameter),
            isinstance(bn.running_mean, nn.UninitializedBuffer),
            nn.parameter.is_lazy(lin.weight),
            nn.parameter.is_lazy(lib.ones(1)),
            nn.UninitializedParameter is nn.parameter.UninitializedParameter,
            repr(lin.weight),
            repr(bn.running_var),
        )
        lin(lib.ones(4, 3))
        after = (type(lin.weight).__name__, tuple(lin.weight.shape), type(lin).__name__)
        return before, after

    got, want = fn(cr), fn(torch)
    assert got == want
    assert got[0][:5] == (True, True, True, True, False)


def test_materialize_gives_data_shape_and_class():
    def fn(lib):
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer()
        before = (p.requires_grad, str(p.dtype), b.requires_grad)
        p.materialize((2, 3))
        b.materialize(4, dtype=lib.float64)
        return (
            before,
            (type(p).__name__, tuple(p.shape), p.requires_grad),
            (
                type(b).__name__,
                tuple(b.shape),
                str(b.dtype),
            ),
        )

    got, want = fn(cr), fn(torch)
    assert got == want
    assert got[1] == ("Parameter", (2, 3), True)


def test_shape_of_an_uninitialized_parameter_raises():
    assert_same_error(lambda lib: lib.nn.LazyLinear(2).weight.shape)


# ----- torch.func.functionalize --------------------------------------------------------


def _mutating(x, y):
    """Mutates its input x, an intermediate z and its input y through a view."""
    x.add_(1)
    z = x * 2
    z.mul_(3)
    v = y[0]
    v.add_(10)
    return z, x, v


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_keeps_outputs_and_input_mutations(remove):
    def fn(lib):
        x, y = lib.ones(3, dtype=lib.float64), lib.zeros(2, 2, dtype=lib.float64)
        out = lib.func.functionalize(_mutating, remove=remove)(x, y)
        return out, x, y, out[1] is x

    compare(fn, rtol=0, atol=0)
    assert fn(cr)[-1] is False


def test_functionalize_passes_arguments_and_wraps():
    def fn(lib):
        f = lib.func.functionalize(lambda a, d, n=2: (a * n + d["b"]).sum())
        x = lib.ones(2, dtype=lib.float64)
        same = lib.func.functionalize(lambda a: a)(x) is x
        return f(x, {"b": lib.tensor([1.0, 2.0], dtype=lib.float64)}, n=3), same

    compare(fn, rtol=0, atol=0)
    g = cr.func.functionalize(_mutating)
    assert g.__name__ == "_mutating" and g.__wrapped__ is _mutating


def test_functionalize_differentiates():
    def fn(lib):
        def f(a):
            b = a * 1
            b.mul_(a)
            return b.sum()

        grad = lib.func.grad(lib.func.functionalize(f))(lib.tensor([1.0, 2.0], dtype=lib.float64))
        w = lib.ones(2, dtype=lib.float64, requires_grad=True)
        a = w * 1
        lib.func.functionalize(lambda t: t.mul_(3))(a)
        a.sum().backward()
        return grad, w.grad

    compare(fn, rtol=1e-12, atol=1e-12)


def test_functionalize_refuses_an_unknown_remove():
    assert_same_error(lambda lib: lib.func.functionalize(_mutating, remove="views"))


# ----- replace_all_batch_norm_modules_, debug_unwrap ----------------------------------


def test_replace_all_batch_norm_modules_stops_tracking():
    def fn(lib):
        nn = lib.nn
        lib.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.BatchNorm1d(4)))
        model = model.double()
        with lib.no_grad():
            model[0].weight.copy_(lib.tensor(np.arange(12.0).reshape(4, 3) / 10 - 0.5))
            model[0].bias.zero_()
        root = lib.func.replace_all_batch_norm_modules_(model)
        bns = [model[1], model[2][0]]
        state = [
            (b.running_mean, b.running_var, b.num_batches_tracked, b.track_running_stats)
            for b in bns
        ]
        out = model(lib.tensor(X))
        model.eval()
        return root is model, state, out, model(lib.tensor(X)), list(model.state_dict())

    compare(fn, rtol=1e-10, atol=1e-12)
    assert fn(cr)[1][0] == (None, None, None, False)


def test_replace_all_batch_norm_modules_on_a_batch_norm_root_and_vmap():
    def fn(lib):
        bn = lib.nn.BatchNorm1d(3).double()
        lib.func.replace_all_batch_norm_modules_(bn)
        batches = lib.tensor(np.stack([X, X[::-1] * 2]))
        return bn.track_running_stats, lib.func.vmap(bn)(batches)

    compare(fn, rtol=1e-10, atol=1e-12)


def test_debug_unwrap_returns_the_plain_tensor():
    x = cr.ones(2)
    assert cr.func.debug_unwrap(x) is x
    assert cr.func.debug_unwrap(x, recurse=False) is x
    inside = cr.func.vmap(lambda r: cr.func.debug_unwrap(r) * 2)(cr.tensor(X))
    np.testing.assert_array_equal(to_numpy(inside), X * 2)


# ----- nn.Container, torch.autograd.variable -----------------------------------------


def _container_warnings(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        class Sub(lib.nn.Container):
            pass

        c = lib.nn.Container(a=lib.nn.Linear(2, 3), b=lib.nn.ReLU())
    return [(w.category, str(w.message)) for w in caught], repr(c), list(c.state_dict())


def test_container_warns_and_holds_its_modules():
    got, want = _container_warnings(cr), _container_warnings(torch)
    assert got == want
    assert [cat for cat, _ in got[0]] == [FutureWarning, FutureWarning]
    assert cr.nn.Container is cr.nn.modules.Container


def test_autograd_variable_function_and_module():
    assert_same_error(lambda lib: lib.autograd.variable(lib.ones(1)))
    from chainrule.autograd.variable import Variable

    v = Variable(cr.ones(2), requires_grad=True)
    assert isinstance(v, cr.Tensor) and v.requires_grad


def test_data_parallel_pickles():
    dp = cr.nn.DataParallel(_linear(cr))
    back = pickle.loads(pickle.dumps(dp))
    np.testing.assert_array_equal(to_numpy(back(cr.tensor(X))), to_numpy(dp(cr.tensor(X))))


def test_data_parallel_over_two_devices_matches_the_module(monkeypatch):
    """The multi-device path (scatter, replicate, apply, gather) with two stand-in devices
    that are both the CPU: the output and the gradients are those of the module itself."""
    dp_mod = sys.modules["chainrule.nn.parallel.data_parallel"]  # (the function hides it)

    class TwoDevices:
        is_available = staticmethod(lambda: True)
        device_count = staticmethod(lambda: 2)
        current_device = staticmethod(lambda: 0)

    monkeypatch.setattr(dp_mod, "cuda", TwoDevices)
    monkeypatch.setattr(dp_mod, "_cuda", lambda index: cr.device("cpu"))
    monkeypatch.setattr(dp_mod, "_accelerated", lambda t: True)

    def run(lib, wrap):
        m = lib.nn.Sequential(_linear(lib), lib.nn.Tanh())
        model = wrap(m)
        out = model(lib.tensor(X))
        out.pow(2).sum().backward()
        return out, m[0].weight.grad, m[0].bias.grad

    got = run(cr, cr.nn.DataParallel)
    want = run(torch, lambda m: m)
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w.detach().numpy(), rtol=1e-12, atol=1e-12)
    fn_out = cr.nn.parallel.data_parallel(_linear(cr), cr.tensor(X), dim=0)
    np.testing.assert_allclose(to_numpy(fn_out), X @ W.T + B, rtol=1e-12)
    parts = cr.nn.parallel.scatter((cr.tensor(X), 7), [0, 1])
    assert [p[1] for p in parts] == [7, 7]
    assert [tuple(p[0].shape) for p in parts] == [(2, 3), (2, 3)]


def test_factories_take_size_as_a_keyword_as_torch():
    def run(lib):
        made = [
            getattr(lib, f)(size=(2, 3)).shape for f in ("zeros", "ones", "empty", "rand", "randn")
        ]
        made += [lib.randint(0, 3, size=(2, 3)).shape, lib.randint(3, size=(2,)).shape]
        return [tuple(s) for s in made]

    compare(run)
    with pytest.raises(TypeError, match="size"):
        cr.rand(2, size=(3,))


def test_thread_counts_as_torch():
    for lib in (cr, torch):
        before = lib.get_num_threads()
        assert isinstance(before, int) and isinstance(lib.get_num_interop_threads(), int)
        lib.set_num_threads(1)
        assert lib.get_num_threads() == 1
        lib.set_num_threads(before)
    for bad in (lambda L: L.set_num_threads(0), lambda L: L.set_num_threads(1.5)):
        want, got = error_of(bad, torch), error_of(bad, cr)
        assert (type(got), str(got)) == (type(want), str(want))
