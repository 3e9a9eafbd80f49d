"""torch.library against PyTorch: custom_op (values, torch.ops, autograd, fake kernels on
meta tensors, kernels per device, mutation and version counters, errors), infer_schema's
strings, the older Library API (define's schema parsing, impl under CPU, Meta,
CompositeImplicitAutograd and Autograd), opcheck, and a script run under ``chainrule run``.

PyTorch's operator registry is global: every test defines its ops in its own namespace.
(No ``from __future__ import annotations`` here: custom ops read their type hints.)
"""

import subprocess
import sys
import textwrap
import typing
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import chainrule as cr
import chainrule.library  # noqa: F401 - (sets cr.library)
from oracle import assert_close, assert_same_error, both, compare, error_of, randn

ROOT = Path(__file__).resolve().parents[1]


def ns_of(request, lib) -> str:
    """A namespace for this test (the same name in both libraries: separate registries)."""
    return "t_" + request.node.name.replace("[", "_").replace("]", "").replace("-", "_")


def tensor(lib, arr, requires_grad=False):
    return lib.tensor(arr, requires_grad=requires_grad)


# ---- infer_schema


def test_infer_schema_strings():
    def strings(lib):
        T = lib.Tensor

        def f(
            x: T,
            sizes: list[int],
            y: int,
            z: float,
            b: bool,
            o: T | None,
            ts: list[T],
            s: str = "a",
            k: float = 2.0,
            n: int | None = None,
        ) -> T: ...

        def g(x: T, y: T) -> tuple[T, T]: ...

        def opt(x: typing.Optional[T], n: typing.Optional[float]) -> T: ...  # noqa: UP045

        def h(x: T | None, ys: list[T], w: list[T | None], m: int) -> None: ...

        def kw(x: T, *, y: int, eps: float = 1e-5, d: lib.dtype = lib.float64) -> list[T]: ...

        def num(x: T, s: int | float | bool, f: list[float], q: list[int] | None) -> int: ...

        infer = lib.library.infer_schema
        return [
            infer(f, mutates_args=()),
            infer(g, mutates_args={"x"}),
            infer(g, mutates_args={"y"}),  # (the alias set is the position: a1)
            infer(h, mutates_args=("w",)),
            infer(opt, mutates_args=()),
            infer(g, mutates_args="unknown"),
            infer(h, mutates_args=("x", "ys", "w")),
            infer(h, mutates_args="unknown", op_name="foo"),
            infer(kw, mutates_args=()),
            infer(num, mutates_args=[]),
        ]

    got, want = both(strings)
    assert got == want


def test_infer_schema_errors():
    def no_annotation(lib):
        return lib.library.infer_schema(lambda x: x, mutates_args=())

    def varargs(lib):
        def f(*args: int) -> int: ...

        return lib.library.infer_schema(f, mutates_args=())

    def no_return(lib):
        def f(x: int): ...

        return lib.library.infer_schema(f, mutates_args=())

    def unknown_mutated(lib):
        def f(x: int) -> int: ...

        return lib.library.infer_schema(f, mutates_args=("y",))

    def mutated_int(lib):
        def f(x: int) -> int: ...

        return lib.library.infer_schema(f, mutates_args=("x",))

    def string_mutates(lib):
        def f(x: int) -> int: ...

        return lib.library.infer_schema(f, mutates_args="x")

    for fn in (no_annotation, varargs, no_return, unknown_mutated, mutated_int, string_mutates):
        assert_same_error(fn)
    assert_same_error(
        lambda lib: lib.library.infer_schema(lambda x: x, mutates_args=()),
        "infer_schema(func): Parameter x must have a type annotation.",
    )


def test_infer_schema_unsupported_type():
    def f(lib):
        def g(x: dict) -> int: ...

        return lib.library.infer_schema(g, mutates_args=())

    assert_same_error(f, "infer_schema(func): Parameter x has unsupported type <class 'dict'>.")


# ---- custom_op


def define_numpy_sin(lib, ns):
    @lib.library.custom_op(f"{ns}::numpy_sin", mutates_args=())
    def numpy_sin(x: lib.Tensor) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.detach().numpy()))

    return numpy_sin


def test_custom_op_values_and_torch_ops(request):
    def run(lib):
        ns = ns_of(request, lib)
        op = define_numpy_sin(lib, ns)
        x = tensor(lib, randn((3, 2)))
        packet = getattr(lib.ops, ns).numpy_sin
        names = [
            type(op).__name__,
            repr(op),
            repr(packet),
            repr(packet.default),
            str(packet.default._schema),
            packet.default.name(),
            packet.overloads(),
        ]
        return [op(x), packet(x), packet.default(x)], names

    (got, got_names), (want, want_names) = both(run)
    assert_close(got, want)
    assert got_names == want_names


def test_custom_op_without_autograd_raises_at_backward(request):
    def run(lib):
        ns = ns_of(request, lib)
        op = define_numpy_sin(lib, ns)
        y = op(tensor(lib, randn((3,)), requires_grad=True))
        assert y.requires_grad
        assert type(y.grad_fn).__name__ == f"GeneratedBackwardFor_{ns}_numpy_sin_defaultBackward"
        y.sum().backward()

    assert_same_error(run)
    got = error_of(run, cr)
    assert "but no autograd formula was registered" in str(got)


def define_scaled_sin(lib, ns):
    @lib.library.custom_op(f"{ns}::scaled_sin", mutates_args=())
    def scaled_sin(x: lib.Tensor, alpha: float) -> lib.Tensor:
        return lib.sin(x) * alpha

    def setup_context(ctx, inputs, output):
        x, alpha = inputs
        ctx.save_for_backward(x)
        ctx.alpha = alpha

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * lib.cos(x) * ctx.alpha, None

    scaled_sin.register_autograd(backward, setup_context=setup_context)
    return scaled_sin


def test_register_autograd_gradients_and_double_backward(request):
    def run(lib):
        op = define_scaled_sin(lib, ns_of(request, lib))
        x = lib.tensor(randn((4,)), dtype=lib.float64, requires_grad=True)
        y = op(x, 2.0)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return y, g, gg, g.requires_grad, type(y.grad_fn).__name__

    compare(run)


def test_register_autograd_by_name_and_none_gradient(request):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::mul", mutates_args=())
        def mul(x: lib.Tensor, y: lib.Tensor) -> lib.Tensor:
            return x * y

        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, None

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        lib.library.register_autograd(f"{ns}::mul", backward, setup_context=setup_context)
        a = tensor(lib, randn((3,)), requires_grad=True)
        b = tensor(lib, randn((3,), seed=1), requires_grad=True)
        getattr(lib.ops, ns).mul(a, b).sum().backward()
        return a.grad, b.grad

    compare(run)


@pytest.mark.parametrize("grads", ["one", "three_extra", "single_tensor"])
def test_backward_with_wrong_gradients(request, grads):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::f", mutates_args=())
        def f(x: lib.Tensor, y: lib.Tensor) -> lib.Tensor:
            return x * y

        backward = {
            "one": lambda ctx, g: (g,),
            "three_extra": lambda ctx, g: (g, g, g),
            "single_tensor": lambda ctx, g: g * 2,
        }[grads]
        f.register_autograd(backward)
        f(lib.ones(2, requires_grad=True), lib.ones(2)).sum().backward()

    assert_same_error(run)


def test_register_fake_runs_on_meta(request):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::repeat", mutates_args=())
        def repeat(x: lib.Tensor, n: int) -> lib.Tensor:
            return x.repeat(n)

        @lib.library.register_fake(f"{ns}::repeat")
        def _(x, n):
            return x.new_empty(x.shape[0] * n)

        out = []
        for dtype in (lib.float32, lib.float64):
            r = repeat(lib.ones(3, dtype=dtype, device="meta"), 4)
            out.append((tuple(r.shape), str(r.device), str(r.dtype)))
        r = getattr(lib.ops, ns).repeat.default(lib.ones(2, device="meta"), n=5)
        out.append((tuple(r.shape), str(r.device)))
        return out, repeat(lib.arange(3.0), 2)

    (got_meta, got), (want_meta, want) = both(run)
    assert got_meta == want_meta
    assert_close(got, want)


def test_custom_op_on_meta_without_fake(request):
    def run(lib):
        op = define_numpy_sin(lib, ns_of(request, lib))
        op(lib.empty(3, device="meta"))

    assert_same_error(run)


def test_fake_gets_gradients_through_register_autograd(request):
    def run(lib):
        op = define_scaled_sin(lib, ns_of(request, lib))
        op.register_fake(lambda x, alpha: lib.empty_like(x))
        y = op(lib.ones(2, 3, device="meta", requires_grad=True), 3.0)
        return tuple(y.shape), y.requires_grad, str(y.device)

    got, want = both(run)
    assert got == want


def test_register_kernel_per_device(request):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::k", mutates_args=(), device_types="cpu")
        def k(x: lib.Tensor) -> lib.Tensor:
            return x + 1

        before = k(lib.zeros(2))

        @k.register_kernel("cpu")
        def _(x):
            return x + 100

        return before, k(lib.zeros(2))

    compare(run)


def test_kernel_for_another_device_only(request):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::k", mutates_args=(), device_types="cuda")
        def k(x: lib.Tensor) -> lib.Tensor:
            return x + 1

        k(lib.zeros(2))

    assert_same_error(run, "with arguments from the 'CPU' backend.")


def test_register_kernel_bad_device(request):
    def run(lib):
        op = define_numpy_sin(lib, ns_of(request, lib))
        op.register_kernel("foo")(lambda x: x)

    assert_same_error(run)


@pytest.mark.parametrize("inplace", [True, False])
def test_mutates_args_bumps_the_version(request, inplace):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::add_", mutates_args=("x",))
        def add_(x: lib.Tensor, y: lib.Tensor) -> None:
            if inplace:
                x.add_(y)
            else:
                x.numpy()[:] += y.numpy()

        a = lib.zeros(3)
        b = lib.ones(3)
        versions = [a._version, b._version]
        result = add_(a, b)
        versions += [a._version, b._version]
        schema = str(getattr(lib.ops, ns).add_.default._schema)
        return a, versions, result, schema

    (got, *got_rest), (want, *want_rest) = both(run)
    assert_close(got, want)
    assert got_rest == want_rest


def test_output_aliasing_an_input(request):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::same", mutates_args=())
        def same(x: lib.Tensor) -> lib.Tensor:
            return x

        same(lib.ones(2))

    assert_same_error(run, "The output of this custom operator (1) must not also be an input")


@pytest.mark.parametrize("name", ["nonamespace", "a::b::c"])
def test_custom_op_bad_names(name):
    def run(lib):
        def f(x: lib.Tensor) -> lib.Tensor:
            return x.clone()

        lib.library.custom_op(name, f, mutates_args=())

    assert_same_error(run)


def test_custom_op_needs_mutates_args():
    assert_same_error(lambda lib: lib.library.custom_op("ns::f", lambda x: x))


def test_custom_op_with_schema_and_keyword_only(request):
    def run(lib):
        ns = ns_of(request, lib)

        def f(x, *, scale=2.0):
            return x * scale

        lib.library.custom_op(
            f"{ns}::f", f, mutates_args=(), schema="(Tensor x, *, float scale=2.0) -> Tensor"
        )
        ops = getattr(lib.ops, ns)
        x = tensor(lib, randn((3,)))
        return ops.f(x), ops.f(x, scale=-1.0), str(ops.f.default._schema)

    compare(run)


def test_opcheck(request):
    def run(lib):
        ns = ns_of(request, lib)
        op = define_scaled_sin(lib, ns)
        op.register_fake(lambda x, alpha: lib.empty_like(x))
        return lib.library.opcheck(op, (tensor(lib, randn((3,)), requires_grad=True), 2.0))

    got, want = both(run)
    assert got == want


def test_opcheck_without_fake(request):
    def run(lib):
        op = define_numpy_sin(lib, ns_of(request, lib))
        lib.library.opcheck(op, (tensor(lib, randn((3,))),))

    got, want = error_of(run, cr), error_of(run, torch)
    assert type(got).__name__ == type(want).__name__ == "OpCheckError"
    assert str(got) == str(want)


def test_a_mutating_op_that_returns_nothing_needs_no_fake(request):
    def run(lib):
        @lib.library.custom_op(f"{ns_of(request, lib)}::sin_into", mutates_args={"out"})
        def sin_into(x: lib.Tensor, out: lib.Tensor) -> None:
            out.copy_(x.sin())

        x, out = tensor(lib, randn((2, 3))), lib.empty(2, 3)
        checks = lib.library.opcheck(sin_into, (x, out))
        meta = sin_into(lib.empty(2, 3, device="meta"), lib.empty(2, 3, device="meta"))
        sin_into(x, out)
        return [sorted(checks.items()), meta, out, str(sin_into._opoverload._schema)]

    compare(run)


# ---- the Library API


SCHEMAS = [
    "a1(Tensor? x, Tensor[] xs, int n, SymInt m, Scalar s, str name, bool flag=False, "
    "int[] dims=[0, 1], float eps=1e-05) -> Tensor",
    "a2(Tensor(a!) x, Tensor y) -> Tensor(a!)",
    "a3(Tensor x, *, int k=2) -> (Tensor, Tensor)",
    "a4.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
    'a5(Tensor x, str mode="mean", ScalarType? dtype=None, Device? device=None) -> Tensor[]',
    "a6(Tensor x) -> ()",
    "a7(Tensor x) -> (Tensor values, Tensor indices)",
    "a8(Tensor x, int[2] size, SymInt[] s, Scalar? v=None, float[]? w=None) -> int",
    "a9(Tensor x, float a=0.1, float b=2.5, float c=1e10, float d=-3.0, int e=-2, "
    "bool f=True, str g='hi', Scalar h=1, float[] i=[1.0, 0.5], Tensor?[] j) -> Tensor",
]


def test_define_parses_schemas(request):
    def run(lib):
        ns = ns_of(request, lib)
        library = lib.library.Library(ns, "DEF")
        names = [library.define(s) for s in SCHEMAS]
        ops = getattr(lib.ops, ns)
        printed = [str(getattr(ops, n).overloads()) for n in names]
        for n in names:
            for overload in getattr(ops, n).overloads():
                printed.append(str(getattr(getattr(ops, n), overload)._schema))
        return names, printed, repr(library)

    got, want = both(run)
    assert got == want


def test_define_errors(request):
    def duplicate(lib):
        library = lib.library.Library(ns_of(request, lib) + "_dup", "DEF")
        library.define("foo(Tensor x) -> Tensor")
        library.define("foo(Tensor x) -> Tensor")

    def unknown_type(lib):
        lib.library.Library(ns_of(request, lib) + "_unk", "FRAGMENT").define(
            "bad2(Tensr x) -> Tensor"
        )

    def in_impl_block(lib):
        lib.library.Library(ns_of(request, lib) + "_impl", "IMPL").define("q(Tensor x) -> Tensor")

    libs = []

    def two_defs(lib):
        libs.append(lib.library.Library(ns_of(request, lib) + "_two", "DEF"))
        libs.append(lib.library.Library(ns_of(request, lib) + "_two", "DEF"))

    assert_same_error(duplicate, "Each overload's schema should only be registered with a single")
    assert_same_error(unknown_type)
    assert_same_error(in_impl_block, "Cannot define an operator inside of a TORCH_LIBRARY_IMPL")
    assert_same_error(two_defs, "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.")
    assert_same_error(lambda lib: lib.library.Library("x", "BLAH"))


def foo_library(lib, ns):
    library = lib.library.Library(ns, "DEF")
    library.define("foo(Tensor x, float alpha=1.0) -> Tensor")

    def foo_cpu(x, alpha=1.0):
        return x * alpha

    library.impl("foo", foo_cpu, "CPU")
    return library


def test_library_cpu_kernel_and_arguments(request):
    def run(lib):
        ns = ns_of(request, lib)
        library = foo_library(lib, ns)
        foo = getattr(lib.ops, ns).foo
        x = tensor(lib, randn((3,)))
        result = [foo(x), foo(x, 3.0), foo(x, alpha=-2.0), foo.default(x, 0.5)]
        del library
        return result

    compare(run)


@pytest.mark.parametrize("call", ["too_many", "unknown_keyword", "missing"])
def test_library_call_errors(request, call):
    def run(lib):
        ns = ns_of(request, lib)
        library = foo_library(lib, ns)
        foo = getattr(lib.ops, ns).foo
        x = lib.ones(2)
        try:
            {
                "too_many": lambda: foo(x, 2.0, 3.0),
                "unknown_keyword": lambda: foo(x, beta=2.0),
                "missing": lambda: foo(),
            }[call]()
        finally:
            del library

    assert_same_error(run)


def test_library_cpu_kernel_records_its_ops_and_warns_at_backward(request):
    def run(lib):
        library = foo_library(lib, ns_of(request, lib))
        x = tensor(lib, randn((3,)), requires_grad=True)
        y = getattr(lib.ops, ns_of(request, lib)).foo(x, 3.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y.sum().backward()
        del library
        messages = [str(w.message) for w in caught]
        return x.grad, [m.split(". ")[0] for m in messages if "autograd kernel" in m]

    (got, got_msgs), (want, want_msgs) = both(run)
    assert_close(got, want)
    assert got_msgs == want_msgs and len(got_msgs) == 1


def test_library_meta_without_kernel(request):
    def run(lib):
        library = foo_library(lib, ns_of(request, lib))
        try:
            getattr(lib.ops, ns_of(request, lib)).foo(lib.ones(2, device="meta"))
        finally:
            del library

    assert_same_error(run)


def test_library_meta_kernel(request):
    def run(lib):
        library = foo_library(lib, ns_of(request, lib))
        library.impl("foo", lambda x, alpha=1.0: lib.empty_like(x), "Meta")
        r = getattr(lib.ops, ns_of(request, lib)).foo(lib.ones(2, 5, device="meta"), 2.0)
        return tuple(r.shape), str(r.device), str(r.dtype)

    got, want = both(run)
    assert got == want


def test_composite_implicit_autograd(request):
    def run(lib):
        ns = ns_of(request, lib)
        library = lib.library.Library(ns, "DEF")
        library.define("bar(Tensor x) -> Tensor")
        library.impl("bar", lambda x: lib.sin(x) * 2, "CompositeImplicitAutograd")
        x = tensor(lib, randn((3,)), requires_grad=True)
        y = getattr(lib.ops, ns).bar(x)
        y.sum().backward()
        m = getattr(lib.ops, ns).bar(lib.ones(4, device="meta"))
        return y, x.grad, type(y.grad_fn).__name__, tuple(m.shape), str(m.device)

    compare(run)


def test_autograd_key_with_a_function(request):
    def run(lib):
        ns = ns_of(request, lib)

        def triple(x):
            return x * 3

        class Triple(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return triple(x)

            @staticmethod
            def backward(ctx, g):
                return g * 3

        library = lib.library.Library(ns, "DEF")
        library.define("baz(Tensor x) -> Tensor")
        library.impl("baz", triple, "CPU")
        library.impl("baz", Triple.apply, "Autograd")
        x = tensor(lib, randn((3,)), requires_grad=True)
        y = getattr(lib.ops, ns).baz(x)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__

    compare(run)


def test_define_and_impl_functions(request):
    def run(lib):
        ns = ns_of(request, lib)
        library = lib.library.Library(ns, "DEF")
        lib.library.define(f"{ns}::qq", "(Tensor x, int n=2) -> Tensor", lib=library)

        @lib.library.impl(f"{ns}::qq", "cpu")
        def _(x, n=2):
            return x + n

        library.define("rr(Tensor x) -> Tensor")

        @lib.library.impl(library, "rr", "CPU")
        def _(x):
            return x * 10

        ops = getattr(lib.ops, ns)
        x = lib.ones(2)
        return ops.qq(x), ops.qq(x, 5), ops.rr(x), str(ops.qq.default._schema)

    compare(run)


def test_unknown_names(request):
    def packet(lib):
        define_numpy_sin(lib, ns_of(request, lib))
        return getattr(lib.ops, ns_of(request, lib)).nonexist

    def overload(lib):
        return getattr(lib.ops, ns_of(request, lib)).numpy_sin.nope

    def register(lib):
        lib.library.register_fake(f"{ns_of(request, lib)}::nonexist")(lambda x: x)

    assert_same_error(packet)
    assert_same_error(overload, "has no overload name 'nope'")
    assert_same_error(register)


def test_script_under_chainrule_run(tmp_path):
    script = tmp_path / "custom_ops.py"
    script.write_text(
        textwrap.dedent(
            """
            import numpy as np
            import torch
            import torch.library
            from torch import Tensor

            @torch.library.custom_op("scriptlib::numpy_sin", mutates_args=())
            def numpy_sin(x: Tensor) -> Tensor:
                return torch.from_numpy(np.sin(x.detach().numpy()))

            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x.cos()

            numpy_sin.register_autograd(backward, setup_context=setup_context)
            numpy_sin.register_fake(lambda x: torch.empty_like(x))
            x = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
            y = torch.ops.scriptlib.numpy_sin(x)
            y.sum().backward()
            print(y.detach().numpy().round(6).tolist(), x.grad.numpy().round(6).tolist())
            print(numpy_sin(torch.empty(2, 3, device="meta")).shape)
            """
        )
    )
    outputs = []
    for command in ([sys.executable], [sys.executable, "-m", "chainrule", "run"]):
        env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
        done = subprocess.run(
            [*command, str(script)], capture_output=True, text=True, env=env, check=True
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert "torch.Size([2, 3])" in outputs[0]


def test_tuple_and_list_outputs_and_list_inputs(request):
    def run(lib):
        ns = ns_of(request, lib)

        @lib.library.custom_op(f"{ns}::split2", mutates_args=())
        def split2(x: lib.Tensor) -> tuple[lib.Tensor, lib.Tensor]:
            return x * 2, x * 3

        @lib.library.custom_op(f"{ns}::parts", mutates_args=())
        def parts(x: lib.Tensor) -> list[lib.Tensor]:
            return [x * 2, x.sin()]

        @lib.library.custom_op(f"{ns}::weighted", mutates_args=())
        def weighted(xs: list[lib.Tensor], w: lib.Tensor) -> lib.Tensor:
            return (xs[0] + xs[1]) * w

        def parts_backward(ctx, grads):
            (x,) = ctx.saved_tensors
            return grads[0] * 2 + grads[1] * x.cos()

        split2.register_autograd(lambda ctx, g1, g2: g1 * 2 + g2 * 3)
        parts.register_autograd(
            parts_backward, setup_context=lambda ctx, inputs, output: ctx.save_for_backward(*inputs)
        )
        weighted.register_autograd(lambda ctx, g: ([g, g * 2], None))
        x = tensor(lib, randn((3,)), requires_grad=True)
        a, b = split2(x)
        p = parts(x)
        (a.sum() + b.sum() + (p[0] * p[1]).sum()).backward()
        x1 = tensor(lib, randn((3,), seed=1), requires_grad=True)
        w = tensor(lib, randn((3,), seed=2), requires_grad=True)
        y = weighted([x1, x1 * 2], w)
        y.sum().backward()
        return type(p).__name__, a, b, p, x.grad, y, x1.grad, w.grad

    compare(run)


def test_impl_before_define(request):
    def run(lib):
        ns = ns_of(request, lib)
        impls = lib.library.Library(ns, "IMPL")
        impls.impl("late", lambda x: x - 1, "CPU")
        library = lib.library.Library(ns, "FRAGMENT")
        library.define("late(Tensor x) -> Tensor")
        return getattr(lib.ops, ns).late(lib.ones(2)), impls is not library

    compare(run)
