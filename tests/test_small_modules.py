"""Small torch modules that PyTorch code imports, against PyTorch: ``torch.signal.windows``
(values, dtypes, errors), ``torch.version``, ``torch.types``, ``torch.jit``'s eager parts
(and its TorchScript entry points raising), ``torch.multiprocessing`` (the re-exports,
``spawn`` and its failures, sharing strategies, tensors through queues) and
``torch.backends.cpu.get_cpu_capability``.
"""

from __future__ import annotations

import multiprocessing
import operator
import os
import subprocess
import sys
import typing
import warnings
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule._missing import NotImplementedInChainrule
from chainrule.backends import cpu as cr_cpu
from oracle import assert_close, assert_same_error, compare, error_of, to_numpy

# ----- torch.signal.windows -----------------------------------------------------------------

# each window with the parameters of its own that the cases try (beyond M and sym)
WINDOWS = [
    ("bartlett", {}),
    ("blackman", {}),
    ("cosine", {}),
    ("exponential", {}),
    ("exponential", {"tau": 2.5}),
    ("gaussian", {}),
    ("gaussian", {"std": 0.7}),
    ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
    ("general_hamming", {}),
    ("general_hamming", {"alpha": 0.6}),
    ("hamming", {}),
    ("hann", {}),
    ("kaiser", {}),
    ("kaiser", {"beta": 3.0}),
    ("nuttall", {}),
]
WINDOW_IDS = [name + "".join(f"_{k}={v}" for k, v in kw.items()) for name, kw in WINDOWS]
TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


@pytest.mark.parametrize("name,kw", WINDOWS, ids=WINDOW_IDS)
@pytest.mark.parametrize("sym", [True, False], ids=["sym", "periodic"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_window_values_match_torch(name, kw, sym, dt):
    rtol, atol = TOL[dt]

    def fn(lib):
        window = getattr(lib.signal.windows, name)
        return [window(m, sym=sym, dtype=getattr(lib, dt), **kw) for m in (0, 1, 2, 5, 8, 33)]

    compare(fn, rtol=rtol, atol=atol)


@pytest.mark.parametrize("center", [0.0, 2.0, 3.7])
def test_exponential_center_of_a_periodic_window(center):
    def fn(lib):
        window = lib.signal.windows.exponential
        return [window(m, sym=False, center=center, tau=1.5) for m in (1, 2, 6)]

    compare(fn, rtol=2e-5, atol=2e-6)


def test_windows_take_the_default_dtype():
    def fn(lib):
        lib.set_default_dtype(lib.float64)
        try:
            return [lib.signal.windows.hann(4), lib.signal.windows.gaussian(5, std=2.0)]
        finally:
            lib.set_default_dtype(lib.float32)

    compare(fn, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,kw", [WINDOWS[0], WINDOWS[3], WINDOWS[7]], ids=str)
def test_window_requires_grad(name, kw):
    # PyTorch's is a non-leaf (made through its internal linspace), chainrule's a leaf; both
    # require grad (the difference is in the module's docstring)
    def fn(lib):
        return getattr(lib.signal.windows, name)(6, requires_grad=True, **kw)

    compare(fn, rtol=2e-5, atol=2e-6)
    assert cr.signal.windows.hann(3, requires_grad=True).is_leaf


WINDOW_ERRORS = {
    "negative M": lambda lib: lib.signal.windows.hann(-1),
    "negative M first": lambda lib: lib.signal.windows.kaiser(-2, dtype=lib.int32),
    "float16": lambda lib: lib.signal.windows.blackman(3, dtype=lib.float16),
    "int64": lambda lib: lib.signal.windows.bartlett(3, dtype=lib.int64),
    "int64 hamming": lambda lib: lib.signal.windows.hamming(3, dtype=lib.int64),
    "coefficients not iterable": lambda lib: lib.signal.windows.general_cosine(3, a=1),
    "coefficients empty": lambda lib: lib.signal.windows.general_cosine(3, a=[]),
    "coefficients missing": lambda lib: lib.signal.windows.general_cosine(3),
    "tau": lambda lib: lib.signal.windows.exponential(3, tau=0),
    "center of a symmetric window": lambda lib: lib.signal.windows.exponential(3, center=1.0),
    "std": lambda lib: lib.signal.windows.gaussian(3, std=-1),
    "beta": lambda lib: lib.signal.windows.kaiser(3, beta=-1),
    "sym positional": lambda lib: lib.signal.windows.hann(3, False),
    "cosine dtype": lambda lib: lib.signal.windows.cosine(2, dtype=lib.float16),
}


@pytest.mark.parametrize("case", list(WINDOW_ERRORS))
def test_window_errors_match_torch(case):
    assert_same_error(WINDOW_ERRORS[case])


def test_window_of_one_sample_ignores_its_coefficients():
    compare(lambda lib: lib.signal.windows.general_cosine(1, a=1))


def test_window_layout_must_be_strided():
    want = error_of(lambda lib: lib.signal.windows.hann(3, layout=lib.sparse_coo), torch)
    with pytest.raises(ValueError) as got:
        cr.signal.windows.hann(3, layout="torch.sparse_coo")  # chainrule has no layouts
    assert str(got.value) == str(want)
    compare(lambda lib: lib.signal.windows.hann(3, layout=getattr(lib, "strided", None)))


def test_window_on_the_meta_device():
    for lib in (cr, torch):
        w = lib.signal.windows.gaussian(7, device="meta")
        assert w.is_meta and tuple(w.shape) == (7,) and str(w.dtype) == "torch.float32"


# ----- torch.version ------------------------------------------------------------------------


def test_version_module():
    assert set(cr.version.__all__) == set(torch.version.__all__)
    for name in ("cuda", "hip", "rocm", "xpu", "debug"):
        assert getattr(cr.version, name) == getattr(torch.version, name), name
    assert cr.version.__version__ == cr.__version__
    assert isinstance(cr.version.git_version, str) and cr.version.git_version


# ----- torch.types --------------------------------------------------------------------------


def test_types_aliases():
    assert cr.types.__all__ == torch.types.__all__

    def fn(lib):
        t = lib.types
        numbers = [isinstance(v, t._Number) for v in (1, 2.5, True, 1j, "a", None)]
        devices = [isinstance(v, t.Device) for v in (lib.device("cpu"), "cpu", 0, None, 1.5)]
        size = [typing.get_origin(a) or a for a in typing.get_args(t._size)]
        return numbers, devices, size == [lib.Size, list, tuple], t.Number == (int | float | bool)

    compare(fn)
    assert typing.get_args(cr.types._TensorOrTensors)[0] is cr.Tensor
    assert cr.types._dtype is cr.dtype and cr.types._device is cr.device
    assert cr.types._int is int and cr.types._bool is bool


# ----- torch.jit ----------------------------------------------------------------------------


def test_jit_queries_and_decorators_run_eagerly():
    def fn(lib):
        jit = lib.jit

        @jit.ignore
        def ignored(x):
            return x + 1

        @jit.ignore(drop=False)
        def kept(x):
            return x * 2

        @jit.unused
        def unused(x):
            return x - 1

        @jit.export
        def exported(x):
            return x / 2

        @jit._overload_method
        def overloaded(self, x: int) -> int: ...

        @jit._overload
        def declared(x: float) -> float:
            pass

        x = lib.tensor([1.0, 2.0])
        held: list[int] = jit.annotate(list[int], [])
        return (
            jit.is_scripting(),
            jit.is_tracing(),
            ignored(x),
            kept(x),
            unused(x),
            exported(x),
            overloaded(None, 3),
            declared(2.0),
            held,
            jit.script_if_tracing(ignored)(x),
            jit.Final is typing.Final,
        )

    compare(fn)


def test_jit_overload_declarations_have_no_body():
    def fn(lib):
        def declared(x: int) -> int:
            return x

        lib.jit._overload(declared)

    assert_same_error(fn, "Only `pass` statement or `...` can be the body of overload")


def test_jit_interface_is_deprecated():
    class Runner:
        def run(self, x: int) -> int:
            return x

    with pytest.warns(DeprecationWarning, match="`torch.jit.interface` is deprecated"):
        assert cr.jit.interface(Runner) is Runner


def test_jit_ignore_drop_is_deprecated():
    for lib in (cr, torch):
        with pytest.warns(FutureWarning, match=r"ignore\(True\) has been deprecated"):
            lib.jit.ignore(drop=True)
    assert_same_error(lambda lib: lib.jit.ignore(5))


def test_jit_fork_and_wait():
    def fn(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        with pytest.warns(DeprecationWarning, match="`torch.jit.fork` is deprecated"):
            fut = lib.jit.fork(lambda a, k=1: (a * a).sum() * k, x, k=3)
        with pytest.warns(DeprecationWarning, match="`torch.jit.wait` is deprecated"):
            y = lib.jit.wait(fut)
        y.backward()
        chained = fut.then(lambda f: f.value() + 1)
        return fut.done(), y, x.grad, chained.wait()

    compare(fn)


def test_jit_fork_raises_at_once():
    def boom():
        raise ValueError("boom")

    def fn(lib):
        with pytest.warns(DeprecationWarning):
            lib.jit.fork(boom)

    assert_same_error(fn)


def test_futures_complete_once():
    def fn(lib):
        fut = lib.jit.Future()
        first = fut.done()
        fut.set_result(5)
        return first, fut.wait(), fut.done()

    compare(fn)

    def twice(lib):
        fut = lib.jit.Future()
        fut.set_result(1)
        fut.set_result(2)

    assert_same_error(twice)

    def failed(lib):
        fut = lib.jit.Future()
        fut.set_exception(KeyError("k"))
        fut.wait()

    assert_same_error(failed)


JIT_ISINSTANCE = [
    ([1, 2], list[int]),
    ([1, "a"], list[int]),
    ({"a": 1}, dict[str, int]),
    ({"a": "b"}, dict[str, int]),
    ((1, "a"), tuple[int, str]),
    ((1,), tuple[int, int]),
    (None, typing.Optional[int]),  # noqa: UP045 (the spelling TorchScript code uses)
    (3.0, typing.Optional[int]),  # noqa: UP045
    (3, int | str),
    (3, float),
]


def test_jit_isinstance():
    compare(lambda lib: [lib.jit.isinstance(v, t) for v, t in JIT_ISINSTANCE])
    compare(lambda lib: lib.jit.isinstance([lib.ones(1)], list[lib.Tensor]))
    for lib in (cr, torch):
        with pytest.warns(UserWarning, match="inner type of a container is lost"):
            assert lib.jit.isinstance([], list[int])


@pytest.mark.parametrize(
    "call",
    [
        lambda: cr.jit.freeze(None),
        lambda: cr.jit.ScriptModule(),
    ],
    ids=["freeze", "ScriptModule"],
)
def test_jit_torchscript_is_not_in_chainrule(call):
    with pytest.raises(NotImplementedInChainrule) as err:
        call()
    assert "no TorchScript" in str(err.value) and "torch.compile" in str(err.value)


def test_jit_classes_and_missing_names():
    assert issubclass(cr.jit.ScriptModule, cr.nn.Module)
    assert not isinstance(cr.nn.Linear(2, 2), cr.jit.ScriptModule)
    assert issubclass(cr.jit.TracerWarning, Warning) and issubclass(cr.jit.Error, Exception)
    assert set(torch.jit.__all__) <= set(dir(cr.jit)) | {
        "Attribute", "CompilationUnit", "enable_onednn_fusion", "export_opnames",
        "onednn_fusion_enabled", "set_fusion_strategy", "strict_fusion",
    }  # fmt: skip
    with pytest.raises(AttributeError):
        cr.jit.CompilationUnit  # noqa: B018


# ----- torch.multiprocessing ----------------------------------------------------------------


def _double_through(i, inbox, outbox):
    """A spawned child: take a tensor, send back (i, 2x) computed with the same library, and
    stay until the parent has it (a PyTorch tensor's shared memory is handed over by the
    sending process, which must still run when the receiver unpickles it)."""
    x = inbox.get(timeout=60)
    outbox.put((i, x * 2))
    inbox.get(timeout=60)


def test_multiprocessing_reexports_python_multiprocessing():
    assert set(cr.multiprocessing.__all__) == set(torch.multiprocessing.__all__)
    for name in multiprocessing.__all__:
        assert getattr(cr.multiprocessing, name) is getattr(torch.multiprocessing, name), name
    for name in ("ProcessContext", "ProcessRaisedException", "ProcessExitedException"):
        assert hasattr(cr.multiprocessing, name)
    assert cr.multiprocessing.ENV_VAR_PARALLEL_START == torch.multiprocessing.ENV_VAR_PARALLEL_START


def test_sharing_strategies():
    def fn(lib):
        mp = lib.multiprocessing
        before = mp.get_sharing_strategy()
        mp.set_sharing_strategy("file_system")
        after = mp.get_sharing_strategy()
        mp.set_sharing_strategy(before)
        return sorted(mp.get_all_sharing_strategies()), before, after

    compare(fn)
    assert_same_error(lambda lib: lib.multiprocessing.set_sharing_strategy("shm"))


def test_spawn_runs_fn_and_returns_none():
    compare(lambda lib: lib.multiprocessing.spawn(operator.add, args=(1,), nprocs=1))


def test_spawn_raises_the_childs_traceback():
    def fn(lib):
        with pytest.raises(lib.multiprocessing.ProcessRaisedException) as err:
            lib.multiprocessing.spawn(operator.truediv, args=(0,), nprocs=1)
        e = err.value
        head, _, _ = e.msg.partition("  File ")
        last = e.msg.rstrip("\n").rsplit("\n", 1)[-1]
        return head, last, e.error_index, isinstance(e.error_pid, int), str(e) == e.msg

    compare(fn)


def test_spawn_reports_an_exit_code():
    def fn(lib):
        # fn(i) = os._exit(i): process 0 ends well, process 1 with status 1
        with pytest.raises(lib.multiprocessing.ProcessExitedException) as err:
            lib.multiprocessing.spawn(os._exit, nprocs=2)
        e = err.value
        return str(e), e.error_index, e.exit_code, e.signal_name

    compare(fn)


def test_spawn_without_join_and_other_start_methods():
    def fn(lib):
        # (spawn warns about any other start method, and spawns all the same)
        with pytest.warns(FutureWarning, match="only supports start_method=spawn") as w:
            context = lib.multiprocessing.spawn(
                operator.add, args=(2,), nprocs=2, join=False, start_method="fork"
            )
        pids = context.pids()
        while not context.join():
            pass
        return type(context).__name__, len(pids), context.join(), str(w[0].message)

    compare(fn)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64"])
def test_tensors_through_a_queue_keep_their_values(dt):
    data = np.arange(-3, 9).reshape(3, 4) / (1 if dt == "int64" else 7)

    def fn(lib):
        q = lib.multiprocessing.Queue()
        x = lib.tensor(data, dtype=getattr(lib, dt))
        w = lib.tensor([0.5, 1.5], requires_grad=True)  # a leaf keeps requires_grad
        q.put((x, w))
        got = q.get(timeout=30)
        q.close()
        return got

    compare(fn, exact=True)


def test_tensors_to_a_spawned_process_and_back():
    data = np.array([[1.0, -2.5], [3.25, 0.0]])

    def fn(lib):
        ctx = lib.multiprocessing.get_context("spawn")
        inbox, outbox = ctx.Queue(), ctx.Queue()
        inbox.put(lib.tensor(data))
        child = lib.multiprocessing.spawn(
            _double_through, args=(inbox, outbox), nprocs=1, join=False
        )
        got = outbox.get(timeout=60)
        inbox.put("received")
        while not child.join():
            pass
        return got

    compare(fn, exact=True)


def test_a_non_leaf_that_requires_grad_is_refused():
    def fn(lib):
        lib.multiprocessing  # noqa: B018 (registers the tensor reduction)
        y = lib.tensor([1.0, 2.0], requires_grad=True) * 2
        ForkingPickler.dumps(y)

    assert_same_error(fn)
    back = ForkingPickler.loads(ForkingPickler.dumps(cr.tensor([1.0, 2.0]) * 2))
    assert to_numpy(back).tolist() == [2.0, 4.0]


# ----- torch.backends.cpu -------------------------------------------------------------------


def test_cpu_capability_matches_torch():
    assert cr.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
    assert cr.backends.cpu.__all__ == torch.backends.cpu.__all__


def test_cpu_capability_can_be_lowered(monkeypatch):
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert cr.backends.cpu.get_cpu_capability() == out.stdout.strip() == "DEFAULT"
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "bogus")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        level = cr.backends.cpu.get_cpu_capability()
    assert level == torch.backends.cpu.get_cpu_capability()
    assert "ignoring invalid value for ATEN_CPU_CAPABILITY: bogus" in str(w[0].message)


@pytest.mark.parametrize(
    "features,level",
    [
        ({}, "DEFAULT"),
        ({"AVX": True}, "DEFAULT"),
        ({"AVX2": True}, "DEFAULT"),  # AVX2 kernels also need FMA
        ({"AVX2": True, "FMA3": True}, "AVX2"),
        ({"AVX2": True, "FMA3": True, "AVX512F": True}, "AVX2"),
        (
            {
                "AVX2": True,
                "FMA3": True,
                "AVX512F": True,
                "AVX512VL": True,
                "AVX512BW": True,
                "AVX512DQ": True,
            },
            "AVX512",
        ),  # fmt: skip
    ],
)
def test_cpu_capability_rule_on_x86(features, level, monkeypatch):
    # PyTorch's rule (aten/src/ATen/native/DispatchStub.cpp): AVX512 needs AVX-512 F, VL,
    # BW and DQ; AVX2 needs AVX2 and FMA3
    monkeypatch.setattr(cr_cpu.platform, "machine", lambda: "x86_64")
    assert cr_cpu._hardware_level(features) == level


def test_queue_helpers_are_pythons():
    assert cr.multiprocessing.Process is multiprocessing.Process
    assert_close(cr.multiprocessing.cpu_count(), multiprocessing.cpu_count())


def test_jit_script_gives_back_what_it_is_given_as_torch_with_pytorch_jit_0():
    code = (
        "import torch\n"
        "def f(x):\n    return x * 2\n"
        "m = torch.nn.Linear(2, 2)\n"
        "class C:\n    pass\n"
        "print(torch.jit.script(f) is f, torch.jit.script(m) is m, torch.jit.script(C) is C,"
        " torch.jit.is_scripting())\n"
    )
    env = dict(os.environ, PYTORCH_JIT="0")
    theirs = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert theirs.stdout == "True True True False\n", theirs.stderr
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assert cr.jit.script(_double) is _double
        assert cr.jit.script(cr.nn.Linear, 1) is cr.nn.Linear


def _double(x):
    return x * 2
