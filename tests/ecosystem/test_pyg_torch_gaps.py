"""The PyTorch pieces torch_geometric reaches for, each against the real PyTorch:
``torch._segment_reduce`` (offsets), ``torch._convert_indices_from_*``,
``torch.sparse.mm`` with a reduction, ``Tensor.new(storage)`` and ``resize_`` over it,
advanced indexing's contiguous results, ``torch._tensor_str``, the ATen overloads PyG
registers, and ``torch.fx``'s Tracer internals a custom tracer uses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrule as cr
from oracle import assert_same_error, check, compare

torch = pytest.importorskip("torch")


def _csr(lib, values=None):
    index = lib.tensor([[0, 0, 2, 2, 3], [1, 2, 0, 2, 1]])
    vals = lib.tensor([1.0, 2.0, 3.0, -1.0, 0.5]) if values is None else values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's beta warning for CSR tensors)
        return lib.sparse_coo_tensor(index, vals, (4, 3)).to_sparse_csr()


# ----- torch._segment_reduce ----------------------------------------------------------


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "max", "prod"])
@pytest.mark.parametrize("offsets", [[0, 2, 2, 6], [1, 3, 6], [0, 2, 5]])
def test_segment_reduce_offsets(reduce: str, offsets: list) -> None:
    data = np.random.default_rng(0).standard_normal((6, 3))

    def fn(lib, x):
        return lib._segment_reduce(x, reduce, offsets=lib.tensor(offsets), initial=None)

    check(fn, data, forward=False)  # (PyTorch has no forward-mode formula for segment_reduce)


def test_segment_reduce_offsets_win_over_lengths() -> None:
    compare(
        lambda lib: lib._segment_reduce(
            lib.arange(12.0).reshape(6, 2),
            "sum",
            offsets=lib.tensor([0, 2, 6]),
            lengths=lib.tensor([1, 5]),
        )
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"offsets": [0, 3, 2]},
        {"lengths": [2, 5, -1]},
        {"lengths": [2, 2]},
    ],
)
def test_segment_reduce_errors(kwargs: dict) -> None:
    def fn(lib):
        args = {k: lib.tensor(v) for k, v in kwargs.items()}
        return lib._segment_reduce(lib.arange(12.0).reshape(6, 2), "sum", **args)

    assert_same_error(fn, phrase="" if "offsets" in kwargs else None)


# ----- index conversions ----------------------------------------------------------------


@pytest.mark.parametrize("out_int32", [False, True])
def test_convert_indices(out_int32: bool) -> None:
    compare(
        lambda lib: [
            lib._convert_indices_from_coo_to_csr(
                lib.tensor([0, 0, 2, 2, 2]), 4, out_int32=out_int32
            ),
            lib._convert_indices_from_coo_to_csr(lib.tensor([], dtype=lib.long), 3),
            lib._convert_indices_from_coo_to_csr(lib.tensor([0, 1, 1], dtype=lib.int32), 2),
            lib._convert_indices_from_csr_to_coo(
                lib.tensor([0, 2, 2, 5]), lib.tensor([1, 0, 1, 2, 0]), out_int32=out_int32
            ),
            lib._convert_indices_from_csr_to_coo(
                lib.tensor([0, 2, 2, 5]), lib.tensor([1, 0, 1, 2, 0]), transpose=True
            ),
            lib._convert_indices_from_csr_to_coo(
                lib.tensor([[0, 2, 3], [0, 1, 3]]), lib.tensor([[1, 0, 1], [2, 0, 1]])
            ),
        ]
    )


def test_convert_indices_errors() -> None:
    assert_same_error(lambda lib: lib._convert_indices_from_coo_to_csr(lib.tensor([0.0, 1.0]), 3))
    assert_same_error(lambda lib: lib._convert_indices_from_coo_to_csr(lib.zeros(2, 2).long(), 3))


# ----- torch.sparse.mm with a reduction -------------------------------------------------


@pytest.mark.parametrize("reduce", ["mean", "amax", "amin", "max", "min"])
def test_sparse_mm_reduce(reduce: str) -> None:
    values = np.array([1.0, 2.0, 3.0, -1.0, 0.5])
    dense = np.random.default_rng(1).standard_normal((3, 2))

    def fn(lib, v, d):
        return lib.sparse.mm(_csr(lib, v), d, reduce)

    check(fn, values, dense, forward=False)  # (nor for _sparse_mm_reduce_impl)


@pytest.mark.parametrize("case", ["prod", "foo", "coo", "dense"])
def test_sparse_mm_reduce_errors(case: str) -> None:
    """(chainrule's message for a missing kernel is the first sentence of PyTorch's.)"""

    def fn(lib):
        a = _csr(lib)
        if case == "coo":
            a = a.to_sparse_coo()
        elif case == "dense":
            a = a.to_dense()
        return lib.sparse.mm(a, lib.ones(3, 2), "mean" if case in ("coo", "dense") else case)

    assert_same_error(fn, phrase="_sparse_mm_reduce_impl" if case in ("coo", "dense") else None)


# ----- storages, resize_, advanced indexing ------------------------------------------------


def test_new_over_storage_and_resize() -> None:
    def fn(lib):
        elem = lib.arange(6.0).reshape(3, 2)
        storage = lib.UntypedStorage(4 * 10 + 2)
        out = elem.new(storage)
        shape = list(out.shape)
        out = out.resize_(5, 2)
        got = lib.cat([elem, elem[:2] * 2], dim=0, out=out)
        shares = out.untyped_storage().data_ptr() == storage.data_ptr()
        return shape, got, got is out, shares, lib.arange(3).new(lib.arange(3).storage())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (TypedStorage is deprecated)
        compare(fn)
        assert_same_error(lambda lib: lib.zeros(2).new(lib.arange(3).storage()))


@pytest.mark.parametrize(
    "key", ["col_mask", "col_index", "row_index", "inner", "mixed"], ids=lambda k: k
)
def test_advanced_indexing_is_contiguous(key: str) -> None:
    def fn(lib):
        a = lib.arange(24).reshape(2, 3, 4)
        keys = {
            "col_mask": (slice(None), lib.tensor([True, False, True])),
            "col_index": (slice(None), lib.tensor([2, 0])),
            "row_index": (lib.tensor([1, 0]),),
            "inner": (slice(None), slice(None), [0, 2]),
            "mixed": (slice(None), [0, 2], slice(1, None)),
        }
        out = a[keys[key]]
        return out, out.stride(), out.is_contiguous(), out.view(-1)

    compare(fn)


# ----- torch._tensor_str, ATen overloads, fx internals -----------------------------------


def test_tensor_str() -> None:
    compare(
        lambda lib: [
            lib._tensor_str._tensor_str(lib.arange(6.0).reshape(2, 3) / 3, indent=0),
            lib._tensor_str._tensor_str(lib.arange(4).reshape(2, 2), indent=3),
            lib._tensor_str._tensor_str(lib.zeros(0), indent=0),
            lib._tensor_str.PRINT_OPTS.threshold,
        ]
    )


def test_aten_overloads_pyg_registers() -> None:
    def fn(lib):
        aten = lib.ops.aten
        x = lib.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        return [
            aten.index_select.default(x, 1, lib.tensor([2, 0])),
            list(aten.sort.default(x, 1, True)),
            list(aten.sort.stable(x, stable=True, dim=0, descending=False)),
            aten._sparse_addmm.default(
                lib.ones(4, 2), _csr(lib), lib.ones(3, 2), beta=2, alpha=0.5
            ),
            hasattr(aten, "_sparse_mm_reduce_impl") or "absent",
        ]

    ours = fn(cr)
    theirs = fn(torch)
    from oracle import assert_close

    assert_close(ours[:4], theirs[:4], 1e-6, 1e-7)
    assert_same_error(lambda lib: lib.ops.aten._pin_memory.default(lib.zeros(2)))


def test_fx_tracer_internals_for_custom_tracers() -> None:
    """A tracer that writes its own ``trace`` from _symbolic_trace's pieces (as PyG's
    ``to_hetero`` does) records the same graph."""

    def trace_with(lib):
        st = lib.fx._symbolic_trace

        class Tracer(lib.fx.Tracer):
            @st.compatibility(is_backward_compatible=True)
            def trace(self, root, concrete_args=None):
                self.root = root
                fn = type(root).forward
                self.submodule_paths = {m: n for n, m in root.named_modules()}
                self.graph = lib.fx.Graph(tracer_cls=type(self))
                self.tensor_attrs = {}
                assert isinstance(fn, st.FunctionType)
                fn_globals = fn.__globals__
                fn, args = self.create_args_for_root(fn, True, concrete_args)
                cache = {}

                @st.functools.wraps(st._orig_module_getattr)
                def module_getattr_wrapper(mod, attr):
                    return self.getattr(attr, st._orig_module_getattr(mod, attr), cache)

                @st.functools.wraps(st._orig_module_call)
                def module_call_wrapper(mod, *args, **kwargs):
                    def forward(*args, **kwargs):
                        return st._orig_module_call(mod, *args, **kwargs)

                    return self.call_module(mod, forward, args, kwargs)

                with st._Patcher() as patcher:
                    patcher.patch_method(
                        lib.nn.Module, "__getattr__", module_getattr_wrapper, deduplicate=False
                    )
                    patcher.patch_method(
                        lib.nn.Module, "__call__", module_call_wrapper, deduplicate=False
                    )
                    st._patch_wrapped_functions(patcher)
                    st._autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                    out = fn(*args)
                    self.create_node("output", "output", (self.create_arg(out),), {})
                self.submodule_paths = None
                return self.graph

        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(3, 2)

            def forward(self, x, *, scale=2.0):
                return self.lin(x).relu() * scale

        lib.manual_seed(0)
        net = Net()
        graph = Tracer().trace(net)
        ops = [(n.op, str(n.target)) for n in graph.nodes]
        still = lib.nn.Module.__call__ is st._orig_module_call
        return ops, still

    ours, theirs = trace_with(cr), trace_with(torch)
    assert ours == theirs
