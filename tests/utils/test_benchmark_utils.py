"""``utils.benchmark`` against ``torch.utils.benchmark``: a Measurement's statistics, its
repr and Compare's tables for the same raw times; select_unit and trim_sigfig; the
Fuzzer's draws for one seed; the argument errors; the structure of what Timer returns
(never its times: the machines are noisy); and the steps of the recipe "PyTorch
Benchmark" run unchanged under ``chainrule run``."""

from __future__ import annotations

import pickle
import random
import re
import textwrap

import numpy as np
import pytest
import torch
import torch.utils.benchmark  # noqa: F401 - torch loads it only on request, as chainrule does

import chainrule as cr
import chainrule.utils.benchmark  # noqa: F401
from chainrule import _threads, cli
from oracle import compare, error_of


def bench(lib):
    return lib.utils.benchmark


def spec(lib, stmt="x + y", setup="pass", **kw):
    return bench(lib).TaskSpec(stmt=stmt, setup=setup, **kw)


def masked(text: str) -> str:
    """A repr without its object line's module path and address."""
    return re.sub(r"<[\w.]+\.Measurement object at 0x[0-9a-f]+>", "<Measurement>", text)


# raw times (seconds per block) chosen to hit each branch: one replicate, two, the IQR line
# from four, a spread that warns mildly and one that warns grossly, each time unit
RAW = {
    "one": ([3.2e-3], 100),
    "two": ([1.0e-3, 2.0e-3], 1),
    "four_ns": ([4.1e-6, 4.0e-6, 4.3e-6, 4.05e-6], 100),
    "steady_us": ([2.50e-4, 2.51e-4, 2.49e-4, 2.52e-4, 2.50e-4, 2.53e-4, 2.48e-4], 10),
    "mild_ms": ([1.0, 1.05, 1.12, 1.18, 1.02, 1.2, 1.1, 1.15], 1000),
    "gross_s": ([2.0, 3.5, 1.0, 5.0, 2.2], 1),
    "tiny": ([3e-10, 4e-10, 5e-10, 3.5e-10], 1),
}


@pytest.mark.parametrize("case", sorted(RAW))
def test_measurement_statistics_match_torch(case):
    raw, number = RAW[case]

    def stats(lib):
        m = bench(lib).Measurement(number, list(raw), spec(lib))
        return {
            "median": m.median,
            "iqr": m.iqr,
            "times": m.times,
            "number_per_run": m.number_per_run,
            "raw_times": m.raw_times,
            "significant_figures": m.significant_figures,
            "has_warnings": m.has_warnings,
            "meets_confidence": m.meets_confidence(0.05),
            "title": m.title,
            "env": m.env,
            "stmt": m.stmt,
            "num_threads": m.num_threads,
        }

    compare(stats, rtol=1e-12, atol=0)
    # the mean sums in another order than PyTorch's: equal to rounding
    means = [bench(L).Measurement(number, list(raw), spec(L)).mean for L in (cr, torch)]
    assert means[0] == pytest.approx(means[1], rel=1e-14)


def test_significant_figures_and_warnings_over_many_random_spreads():
    rng = random.Random(0)
    for _ in range(300):
        n = rng.choice([1, 2, 3, 4, 9, 40])
        base = 10 ** rng.uniform(-9, 0)
        raw = [base * (1 + rng.uniform(0, rng.choice([1e-3, 0.1, 1]))) for _ in range(n)]
        ours = cr.utils.benchmark.Measurement(7, raw, spec(cr))
        theirs = torch.utils.benchmark.Measurement(7, raw, spec(torch))
        assert ours.significant_figures == theirs.significant_figures, raw
        assert ours.has_warnings == theirs.has_warnings, raw
        assert masked(repr(ours)) == masked(repr(theirs)), raw


SPECS = {
    "stmt": {},
    "label_sub_label": {"label": "ReLU(x + 1)", "sub_label": "float"},
    "description_setup": {"description": "n=64", "setup": "x = torch.ones(3)"},
    "multiline": {"stmt": "y = x * 2\ny.sum()", "setup": "import math\nx = 1", "sub_label": "s"},
    "threads_env": {"num_threads": 4, "env": "A", "label": "L"},
}


@pytest.mark.parametrize("case", sorted(RAW))
@pytest.mark.parametrize("kind", sorted(SPECS))
def test_measurement_repr_matches_torch(case, kind):
    raw, number = RAW[case]
    kw = dict(SPECS[kind])
    ours = cr.utils.benchmark.Measurement(number, list(raw), spec(cr, **kw))
    theirs = torch.utils.benchmark.Measurement(number, list(raw), spec(torch, **kw))
    assert masked(repr(ours)) == masked(repr(theirs))
    assert repr(ours).startswith("<chainrule.utils.benchmark.utils.common.Measurement object")


def test_measurement_reads_task_spec_fields_and_rejects_others():
    m = cr.utils.benchmark.Measurement(1, [1.0], spec(cr, label="L", description="d"))
    assert (m.label, m.description, m.sub_label, m.setup) == ("L", "d", None, "pass")
    assert type(error_of(lambda L: bench(L).Measurement(1, [1.0], spec(L)).nope, cr)) is (
        type(error_of(lambda L: bench(L).Measurement(1, [1.0], spec(L)).nope, torch))
    )


def test_merge_pools_per_call_times_by_task_spec():
    def merged(lib):
        b = bench(lib)
        a, c = spec(lib, label="a"), spec(lib, label="c")
        ms = [
            b.Measurement(10, [1.0, 2.0], a),
            b.Measurement(2, [0.5], c),
            b.Measurement(4, [4.0, 8.0], a),
        ]
        out = b.Measurement.merge(ms)
        return [(m.label, m.number_per_run, m.raw_times, m.metadata) for m in out]

    compare(merged, rtol=0, atol=0)


def test_measurement_survives_pickle():
    m = cr.utils.benchmark.Measurement(10, [1.0, 1.1, 0.9, 1.2], spec(cr, label="L", env="A"))
    assert m.median == pytest.approx(0.105)
    back = pickle.loads(pickle.dumps(m))
    assert (
        back == m
        and back.median == m.median
        and repr(back).split("\n")[1:] == (repr(m).split("\n")[1:])
    )


@pytest.mark.parametrize(
    "t", [3e-10, 1e-9, 2.5e-9, 9.99e-7, 1e-6, 1.5e-5, 1e-3, 0.5, 1.0, 12.0, 1234.5]
)
def test_select_unit_matches_torch(t):
    compare(lambda L: bench(L).select_unit(t), rtol=0, atol=0)


@pytest.mark.parametrize("x", [3.14159, 0.000123456, 98765.4321, 1.0, 0.5, 999.95, 12.5])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_trim_sigfig_matches_torch(x, n):
    compare(lambda L: bench(L).trim_sigfig(x, n), rtol=0, atol=0)


def test_small_helpers_match_torch():
    compare(
        lambda L: (
            bench(L).ordered_unique([3, 1, 3, 2, 1]),
            [bench(L).unit_to_english(u) for u in ("ns", "us", "ms", "s")],
            [c.value for c in bench(L).Colorize],
            [(lang.name, lang.value) for lang in bench(L).Language],
        )
    )


# ----- Compare --------------------------------------------------------------------------


def measurements(lib, seed, envs=(None,)):
    """Measurements over labels, thread counts, envs, sub-labels (one a multi-line stmt)
    and descriptions, some cells missing and some replicated."""
    b = bench(lib)
    rng = random.Random(seed)
    out = []
    for label in ("add", "mul"):
        for threads in (1, 4):
            for env in envs:
                for sub in ("float", "int", None):
                    for desc in ("n=1", "n=64", "n=1024"):
                        if rng.random() < 0.15:
                            continue
                        base = 10 ** rng.uniform(-7, -2)
                        n = rng.choice([1, 3, 8])
                        spread = rng.choice([0.01, 0.5])
                        raw = [base * (1 + rng.uniform(0, spread)) * 100 for _ in range(n)]
                        task = b.TaskSpec(
                            stmt="x + y" if sub else "a\nb",
                            setup="pass",
                            label=label,
                            sub_label=sub,
                            description=desc,
                            env=env,
                            num_threads=threads,
                        )
                        out.append(b.Measurement(100, raw, task))
                        if rng.random() < 0.3:
                            out.append(b.Measurement(10, [r / 10 for r in raw], task))
    return out


OPTIONS = {
    "plain": (),
    "trim": ("trim",),
    "colorize": ("colorize",),
    "colorize_rowwise": ("rowwise",),
    "highlight": ("highlight",),
    "all": ("trim", "colorize", "highlight"),
}


def table(lib, seed, options, envs=(None,)):
    c = bench(lib).Compare(measurements(lib, seed, envs))
    if "trim" in options:
        c.trim_significant_figures()
    if "colorize" in options:
        c.colorize()
    if "rowwise" in options:
        c.colorize(rowwise=True)
    if "highlight" in options:
        c.highlight_warnings()
    return str(c)


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("envs", [(None,), ("A", "env B")], ids=["one_env", "two_envs"])
def test_compare_tables_match_torch(options, envs):
    for seed in range(4):
        ours = table(cr, seed, OPTIONS[options], envs)
        assert ours == table(torch, seed, OPTIONS[options], envs)
    assert "Times are in " in ours and "1 threads: " in ours and "4 threads: " in ours


def test_compare_print_writes_the_table(capsys):
    c = cr.utils.benchmark.Compare(measurements(cr, 0))
    c.print()
    assert capsys.readouterr().out == str(c) + "\n"


def test_compare_extend_results_adds_rows():
    def text(lib):
        ms = measurements(lib, 1)
        c = bench(lib).Compare(ms[:5])
        c.extend_results(ms[5:])
        return str(c)

    assert text(cr) == text(torch)


# ----- Fuzzer ---------------------------------------------------------------------------


def fuzzed(lib):
    b = bench(lib)
    fuzzer = b.Fuzzer(
        parameters=[
            b.FuzzedParameter("k0", minval=1, maxval=10000, distribution="loguniform"),
            b.FuzzedParameter("k1", minval=1, maxval=10000, distribution="loguniform"),
            [
                b.FuzzedParameter("u", minval=2, maxval=9, distribution="uniform"),
                b.FuzzedParameter("f", minval=0.0, maxval=1.0, distribution="uniform"),
            ],
            b.FuzzedParameter("s", minval=1, maxval=4, distribution="uniform", strict=True),
        ],
        tensors=[
            b.FuzzedTensor(
                "x",
                size=("k0", "k1"),
                min_elements=128,
                max_elements=200000,
                probability_contiguous=0.6,
            ),
            b.FuzzedTensor(
                "y",
                size=("u", "u", 3),
                steps=(1, "s", 2),
                probability_contiguous=0.3,
                dtype=lib.int32,
            ),
        ],
        constraints=[lambda params: params["u"] != 5],
        seed=0,
    )
    steps = []
    for tensors, properties, params in fuzzer.take(12):
        steps.append(
            (
                params,
                {k: {**p, "order": list(p["order"])} for k, p in properties.items()},
                {k: (tuple(t.shape), t.stride(), str(t.dtype)) for k, t in tensors.items()},
            )
        )
    return steps, fuzzer.rejection_rate


def test_fuzzer_draws_the_same_parameters_and_layouts_as_torch():
    ours, theirs = fuzzed(cr), fuzzed(torch)
    assert ours == theirs
    assert ours[1] > 0  # the constraint and the element limits rejected some draws


def test_fuzzed_tensor_values_are_in_range():
    b = cr.utils.benchmark
    fuzzer = b.Fuzzer(
        parameters=[b.FuzzedParameter("n", minval=4, maxval=64, distribution="uniform")],
        tensors=[
            b.FuzzedTensor("x", size=("n", 3)),
            b.FuzzedTensor("i", size=(5,), dtype=cr.int64),
        ],
        seed=3,
    )
    for tensors, _, _ in fuzzer.take(3):
        x, i = tensors["x"].numpy(), tensors["i"].numpy()
        assert x.dtype == np.float32 and ((0 <= x) & (x < 1)).all()
        assert i.dtype == np.int64 and ((1 <= i) & (i < 127)).all()


def test_parameter_alias_and_custom_distribution():
    b = cr.utils.benchmark
    fuzzer = b.Fuzzer(
        parameters=[
            b.FuzzedParameter("n", minval=4, maxval=8, distribution="uniform"),
            b.FuzzedParameter("m", distribution={b.ParameterAlias("n"): 0.5, 1: 0.5}),
        ],
        tensors=[b.FuzzedTensor("x", size=("n",)), b.FuzzedTensor("y", size=("m",))],
        seed=1,
    )
    ms = set()
    for tensors, _, params in fuzzer.take(20):
        assert params["m"] in (1, params["n"])
        assert tuple(tensors["y"].shape) == (params["m"],)
        ms.add(params["m"] == 1)
    assert ms == {True, False}
    assert repr(b.ParameterAlias("n")) == repr(torch.utils.benchmark.ParameterAlias("n"))


# ----- errors ---------------------------------------------------------------------------


def same_error(fn):
    ours, theirs = error_of(fn, cr), error_of(fn, torch)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


ERRORS = {
    "stmt_not_str": lambda L: bench(L).Timer(stmt=lambda: None),
    "global_setup_python": lambda L: bench(L).Timer(global_setup="#include <x>"),
    "language": lambda L: bench(L).Timer(language="rust"),
    "repeat": lambda L: bench(L).Timer().repeat(),
    "autorange": lambda L: bench(L).Timer().autorange(),
    "compare_not_measurement": lambda L: bench(L).Compare([1.0]),
    "trim_sigfig_not_int": lambda L: bench(L).trim_sigfig(3.14, 1.5),
    "unknown_distribution": lambda L: bench(L).FuzzedParameter("k", 1, 2, distribution="x"),
    "negative_probability": lambda L: bench(L).FuzzedParameter("k", distribution={1: -0.5}),
    "duplicate_names": lambda L: bench(L).Fuzzer(
        [bench(L).FuzzedParameter("x", 1, 2, distribution="uniform")],
        [bench(L).FuzzedTensor("x", size=(2,))],
    ),
    "no_valid_parameters": lambda L: next(
        bench(L)
        .Fuzzer(
            [bench(L).FuzzedParameter("n", 1, 4, distribution="uniform")],
            [bench(L).FuzzedTensor("x", size=("n",), min_elements=10)],
            seed=0,
        )
        .take(1)
    ),
    "alias_cycle": lambda L: bench(L).Fuzzer._resolve_aliases(
        {"a": bench(L).ParameterAlias("b"), "b": bench(L).ParameterAlias("a")}
    ),
    "set_num_threads_zero": lambda L: (
        L.set_num_threads if L is torch else _threads.set_num_threads
    )(0),
    "set_num_threads_float": lambda L: (
        L.set_num_threads if L is torch else _threads.set_num_threads
    )(2.5),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_argument_errors_match_torch(case):
    same_error(ERRORS[case])


def test_dict_distribution_summing_to_one_is_accepted_unlike_torch_2_13():
    # PyTorch 2.13's check is inverted: it rejects exactly the normalized dicts
    fn = lambda L: bench(L).FuzzedParameter("k", distribution={1: 0.5, 2: 0.5})  # noqa: E731
    assert str(error_of(fn, torch)) == "Distribution is not normalized"
    assert fn(cr).sample(np.random.RandomState(0)) in (1, 2)
    assert str(error_of(lambda L: bench(L).FuzzedParameter("k", distribution={1: 0.2}), cr)) == (
        "Distribution is not normalized"
    )
    with_minval = error_of(lambda L: bench(L).FuzzedParameter("k", 1, distribution={1: 1.0}), cr)
    assert str(with_minval) == "When passing a custom distribution, 'minval' must be None"


def test_unsupported_features_say_so():
    with pytest.raises(NotImplementedError, match="Python statements only"):
        cr.utils.benchmark.Timer("pass", language="c++")
    with pytest.raises(NotImplementedError, match="Callgrind"):
        cr.utils.benchmark.Timer().collect_callgrind()


# ----- Timer (structure only) ------------------------------------------------------------


def test_timeit_returns_one_replicate_of_number_runs():
    calls = []
    t = cr.utils.benchmark.Timer(
        "f()", setup="x = 1", globals={"f": lambda: calls.append(1)}, label="L", sub_label="s"
    )
    m = t.timeit(500)
    assert (m.number_per_run, len(m.raw_times)) == (500, 1)
    assert len(calls) == 500 + 5  # and a warmup of number // 100
    assert m.raw_times[0] > 0 and m.median == m.times[0] == m.raw_times[0] / 500
    assert (m.stmt, m.setup, m.label, m.sub_label, m.num_threads) == ("f()", "x = 1", "L", "s", 1)


def test_statement_sees_torch_as_chainrule_and_dedents():
    seen = []
    t = cr.utils.benchmark.Timer(
        """
        y = torch.ones(2) + x
        """,
        setup="""
            x = 1
        """,
        globals={"record": seen},
    )
    m = t.timeit(3)
    assert m.stmt == "y = torch.ones(2) + x" and m.setup == "x = 1"
    assert t._globals["torch"] is cr and "record" in t._globals


def test_blocked_autorange_reports_each_block_to_the_callback():
    blocks = []
    t = cr.utils.benchmark.Timer("sum(range(50))", num_threads=2)
    m = t.blocked_autorange(callback=lambda n, s: blocks.append((n, s)), min_run_time=0.02)
    assert blocks and [n for n, _ in blocks] == [m.number_per_run] * len(m.raw_times)
    assert [s for _, s in blocks] == m.raw_times
    assert sum(m.raw_times) >= 0.02 and m.num_threads == 2
    assert m.number_per_run in [10**k for k in range(10)]


def test_adaptive_autorange_stops_at_max_run_time_or_with_four_replicates():
    t = cr.utils.benchmark.Timer("sum(range(50))")
    m = t.adaptive_autorange(threshold=0.5, min_run_time=0.005, max_run_time=0.3)
    assert len(m.raw_times) >= 4 or sum(m.raw_times) > 0.3
    assert m.number_per_run in [10**k for k in range(10)]


def test_threads_are_set_while_timing_and_restored_after():
    before = _threads.get_num_threads()
    seen = []
    t = cr.utils.benchmark.Timer(
        "f()", globals={"f": lambda: seen.append(_threads.get_num_threads())}, num_threads=3
    )
    t.timeit(2)
    assert set(seen) == {3}
    assert _threads.get_num_threads() == before


def test_num_threads_limits_numpys_blas_pool_when_threadpoolctl_is_there():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads():
        return {
            p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"
        }

    before = blas_threads()
    seen = []
    cr.utils.benchmark.Timer("f()", globals={"f": lambda: seen.append(blas_threads())}).timeit(2)
    assert seen and all(s == {1} for s in seen if s)  # num_threads=1 by default
    assert blas_threads() == before


# ----- the recipe -----------------------------------------------------------------------

RECIPE = """
import torch

def batched_dot_mul_sum(a, b):
    '''Computes batched dot by multiplying and summing'''
    return a.mul(b).sum(-1)

def batched_dot_bmm(a, b):
    '''Computes batched dot by reducing to ``bmm``'''
    a = a.reshape(-1, 1, a.shape[-1])
    b = b.reshape(-1, b.shape[-1], 1)
    return torch.bmm(a, b).flatten(-3)

x = torch.randn(1000, 64)
assert batched_dot_mul_sum(x, x).allclose(batched_dot_bmm(x, x))

import timeit
t0 = timeit.Timer(
    stmt='batched_dot_mul_sum(x, x)',
    setup='from __main__ import batched_dot_mul_sum',
    globals={'x': x})
print(f'mul_sum(x, x):  {t0.timeit(10) / 10 * 1e6:>5.1f} us')

import torch.utils.benchmark as benchmark
t0 = benchmark.Timer(
    stmt='batched_dot_mul_sum(x, x)',
    setup='from __main__ import batched_dot_mul_sum',
    globals={'x': x})
t1 = benchmark.Timer(
    stmt='batched_dot_bmm(x, x)',
    setup='from __main__ import batched_dot_bmm',
    globals={'x': x})
print(t0.timeit(10))
print(t1.timeit(10))

num_threads = torch.get_num_threads()
print(f'Benchmarking on {num_threads} threads')
t0 = benchmark.Timer(
    stmt='batched_dot_mul_sum(x, x)',
    setup='from __main__ import batched_dot_mul_sum',
    globals={'x': x},
    num_threads=num_threads,
    label='Multithreaded batch dot',
    sub_label='Implemented using mul and sum')
print(t0.timeit(10))

m0 = t0.blocked_autorange(min_run_time=0.02)
print(m0)
print(f"Mean:   {m0.mean * 1e6:6.2f} us")
print(f"Median: {m0.median * 1e6:6.2f} us")

from itertools import product
results = []
sizes = [1, 64]
for b, n in product(sizes, sizes):
    label = 'Batched dot'
    sub_label = f'[{b}, {n}]'
    x = torch.ones((b, n))
    for num_threads in [1, 4]:
        results.append(benchmark.Timer(
            stmt='batched_dot_mul_sum(x, x)',
            setup='from __main__ import batched_dot_mul_sum',
            globals={'x': x},
            num_threads=num_threads,
            label=label,
            sub_label=sub_label,
            description='mul/sum',
        ).blocked_autorange(min_run_time=0.002))
        results.append(benchmark.Timer(
            stmt='batched_dot_bmm(x, x)',
            setup='from __main__ import batched_dot_bmm',
            globals={'x': x},
            num_threads=num_threads,
            label=label,
            sub_label=sub_label,
            description='bmm',
        ).blocked_autorange(min_run_time=0.002))
compare = benchmark.Compare(results)
compare.print()

import pickle
ab_test_results = []
for env in ('environment A: mul/sum', 'environment B: bmm'):
    for b, n in ((1, 1), (64, 100), (100, 1)):
        x = torch.ones((b, n))
        dot_fn = (batched_dot_mul_sum if env == 'environment A: mul/sum' else batched_dot_bmm)
        m = benchmark.Timer(
            stmt='batched_dot(x, x)',
            globals={'x': x, 'batched_dot': dot_fn},
            num_threads=1,
            label='Batched dot',
            description=f'[{b}, {n}]',
            env=env,
        ).blocked_autorange(min_run_time=0.002)
        ab_test_results.append(pickle.dumps(m))
ab_results = [pickle.loads(i) for i in ab_test_results]
compare = benchmark.Compare(ab_results)
compare.trim_significant_figures()
compare.colorize()
compare.print()

from torch.utils.benchmark import Fuzzer, FuzzedParameter, FuzzedTensor, ParameterAlias
example_fuzzer = Fuzzer(
    parameters = [
        FuzzedParameter('k0', minval=1, maxval=10000, distribution='loguniform'),
        FuzzedParameter('k1', minval=1, maxval=10000, distribution='loguniform'),
    ],
    tensors = [
        FuzzedTensor('x', size=('k0', 'k1'), min_elements=128, max_elements=100000,
                     probability_contiguous=0.6)
    ],
    seed=0,
)
results = []
for tensors, tensor_params, params in example_fuzzer.take(3):
    sub_label=f"{params['k0']:<6} x {params['k1']:<4} {'' if tensor_params['x']['is_contiguous'] else '(discontiguous)'}"
    results.append(benchmark.Timer(
        stmt='batched_dot_mul_sum(x, x)',
        setup='from __main__ import batched_dot_mul_sum',
        globals=tensors,
        label='Batched dot',
        sub_label=sub_label,
        description='mul/sum',
    ).blocked_autorange(min_run_time=0.002))
    results.append(benchmark.Timer(
        stmt='batched_dot_bmm(x, x)',
        setup='from __main__ import batched_dot_bmm',
        globals=tensors,
        label='Batched dot',
        sub_label=sub_label,
        description='bmm',
    ).blocked_autorange(min_run_time=0.002))
compare = benchmark.Compare(results)
compare.trim_significant_figures()
compare.print()
"""


def test_the_recipes_steps_run_unchanged_under_chainrule_run(tmp_path, capsys):
    # The recipe's CUDA, op_fuzzers and Callgrind sections are left out; sizes and run
    # times are smaller.
    assert cr.get_num_threads is _threads.get_num_threads
    script = tmp_path / "recipe.py"
    script.write_text(textwrap.dedent(RECIPE))
    assert cli.run_script(str(script)) == 0
    out = capsys.readouterr().out
    # (under the hook chainrule's classes carry PyTorch's module paths, as PyTorch prints)
    assert out.count("<torch.utils.benchmark.utils.common.Measurement object at") == 4
    assert "  1 measurement, 10 runs , 1 thread" in out
    assert "Multithreaded batch dot: Implemented using mul and sum" in out
    assert out.count("[---") == 3 and out.count("Times are in ") == 3
    assert "1 threads: " in out and "4 threads: " in out
    assert "(environment A: mul/sum)" in out and "(environment B: bmm)" in out
    assert "\033[92m" in out  # colorize marks the best of each column
    assert re.search(r"\|\s+mul/sum\s+\|\s+bmm", out)
    assert re.search(r"(\d+)\s+x (\d+)", out)
