"""``__torch_function__``, ``Tensor.as_subclass`` and ``torch.overrides`` (chainrule/overrides.py),
checked against PyTorch: each test runs the same code on both libraries and compares what
comes out (types by name, values, printed tensors, node names, the functions handlers see,
error messages).

The classes are defined inside the tests: defining one turns dispatch on for the process,
and the fixture turns it off again (``overrides._reset``), so no other test runs with it.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

import chainrule as cr
from chainrule import overrides

LIBS = pytest.mark.parametrize("lib", [cr, torch], ids=["chainrule", "torch"])


@pytest.fixture(autouse=True)
def _dispatch_off_after():
    yield
    overrides._reset()


def _disable_subclass(lib):
    return (
        overrides.DisableTorchFunctionSubclass()
        if lib is cr
        else torch._C.DisableTorchFunctionSubclass()
    )


def _disable_all(lib):
    return overrides.DisableTorchFunction() if lib is cr else torch._C.DisableTorchFunction()


def _opt_out(lib):
    return (
        overrides._disabled_torch_function_impl
        if lib is cr
        else (torch._C._disabled_torch_function_impl)
    )


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return None


def both(fn):
    """``fn(lib)`` on chainrule and on PyTorch: the two results."""
    return fn(cr), fn(torch)


# ----- zero cost while nothing overrides -----------------------------------------------------


def test_plain_functions_installed_until_something_overrides():
    plain_add, plain_mul = cr.add, cr.Tensor.__mul__
    assert not overrides._state.enabled
    assert "binary_entry" in cr.Tensor.__mul__.__qualname__  # the fast operator itself

    class Sub(cr.Tensor):
        pass

    assert overrides._state.enabled and cr.add is not plain_add
    assert cr.add.__wrapped__ is plain_add
    overrides._reset()
    assert cr.add is plain_add and cr.Tensor.__mul__ is plain_mul


def test_a_mode_switches_dispatch_on_only_while_active():
    plain = cr.exp
    with overrides.BaseTorchFunctionMode():
        assert cr.exp is not plain
    assert cr.exp is plain and not overrides._state.enabled


def test_opting_out_does_not_switch_dispatch_on():
    class Quiet(cr.Tensor):
        __torch_function__ = overrides._disabled_torch_function_impl

    assert not overrides._state.enabled
    assert type(cr.ones(2).as_subclass(Quiet) * 2) is cr.Tensor


# ----- Tensor subclasses -----------------------------------------------------------------------


@LIBS
def test_as_subclass_shares_memory_and_stays_in_the_graph(lib):
    class Sub(lib.Tensor):
        pass

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    s = x.as_subclass(Sub)
    assert type(s) is Sub and s.data_ptr() == x.data_ptr()
    assert type(s.grad_fn).__name__ == "AliasBackward0" and not s.is_leaf
    assert repr(s) == "Sub([1., 2.], grad_fn=<AliasBackward0>)"
    (s * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    plain = lib.ones(2).as_subclass(Sub)
    assert repr(plain) == "Sub([1., 1.])" and plain.grad_fn is None
    assert type(plain.as_subclass(lib.Tensor)) is lib.Tensor


@LIBS
def test_as_subclass_refuses_a_class_that_is_not_a_tensor(lib):
    assert _error(lambda: lib.ones(2).as_subclass(int)) == (
        "TypeError",
        "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
        "possible. Make sure your class inherits from Tensor.",
    )


def _results_of_ops(lib):
    class Sub(lib.Tensor):
        pass

    s = lib.tensor([[1.0, -2.0], [3.0, 4.0]]).as_subclass(Sub)
    out = {
        "operator": s + 1,
        "reflected": 2 * s,
        "function": lib.add(s, lib.ones(2)),
        "method": s.exp(),
        "reduction": s.sum(),
        "functional": lib.nn.functional.relu(s),
        "linalg": lib.linalg.inv(s),
        "indexing": s[0],
        "stacked": lib.stack([s, s]),
    }
    mx = s.max(0)
    names = {k: type(v).__name__ for k, v in out.items()}
    names["max"] = type(mx).__name__
    names["max.values"] = type(mx.values).__name__
    names["unbind"] = [type(t).__name__ for t in s.unbind(0)]
    names["shape"] = list(s.shape)
    names["tolist"] = s.tolist()
    names["grad"] = type(s.grad).__name__
    names["repr"] = repr(s * 2)
    names["2d repr"] = repr(lib.zeros(2, 3, dtype=lib.float64).as_subclass(Sub))
    names["values"] = [
        np.asarray(v.detach().as_subclass(lib.Tensor)).tolist() for v in out.values()
    ]
    return names


def test_results_of_ops_on_a_subclass_are_of_the_subclass():
    ours, theirs = both(_results_of_ops)
    values, their_values = ours.pop("values"), theirs.pop("values")
    assert ours == theirs
    for v, w in zip(values, their_values, strict=True):
        np.testing.assert_allclose(v, w, rtol=2e-6)
    assert ours["function"] == "Sub" and ours["max"] == "max" and ours["max.values"] == "Sub"


def _legacy_constructor(lib):
    class Sub(lib.Tensor):
        pass

    s = Sub([1.0, 2.0])
    return (
        type(s).__name__,
        repr(s),
        s.requires_grad,
        type(Sub(2, 3)).__name__,
        list(Sub(2, 3).shape),
    )


def test_legacy_constructor_of_a_subclass_makes_the_subclass():
    ours, theirs = both(_legacy_constructor)
    assert ours == theirs


def _make_subclass(lib):
    class Sub(lib.Tensor):
        pass

    d = lib.ones(2, requires_grad=True)
    m = lib.Tensor._make_subclass(Sub, d * 2, True)
    return type(m).__name__, m.requires_grad, m.is_leaf, repr(m)


def test_make_subclass_gives_a_leaf_sharing_data():
    ours, theirs = both(_make_subclass)
    assert ours == theirs


def _parameter_ops(lib):
    p = lib.nn.Parameter(lib.ones(2))

    class Sub(lib.Tensor):  # (dispatch on: Parameter still opts out)
        pass

    return [type(v).__name__ for v in (p * 2, p + p, p.detach(), p.data, lib.exp(p))]


def test_parameter_opts_out_its_results_are_plain_tensors():
    ours, theirs = both(_parameter_ops)
    assert ours == theirs == ["Tensor"] * 5


def _dispatch_order(lib):
    class SubTensor(lib.Tensor):
        pass

    class SubTensor2(SubTensor):
        pass

    class OtherSubTensor(lib.Tensor):
        pass

    return [
        type(lib.add(SubTensor([0]), SubTensor([1]))).__name__,
        type(lib.add(SubTensor([0]), lib.tensor([1]))).__name__,
        type(lib.add(SubTensor2([0]), SubTensor([1]))).__name__,
        type(lib.add(SubTensor([0]), SubTensor2([1]))).__name__,
        _error(lambda: lib.add(SubTensor([0]), OtherSubTensor([1]))),
        _error(lambda: SubTensor([0]) + OtherSubTensor([1])),
        _error(lambda: SubTensor([0]).mul(OtherSubTensor([1]))),
    ]


def test_subclasses_before_superclasses_and_the_error_when_none_handles():
    ours, theirs = both(_dispatch_order)
    # the names of the classes in the messages are the same, their modules too (this file)
    assert ours == theirs
    assert ours[:4] == ["SubTensor", "SubTensor", "SubTensor2", "SubTensor2"]


def _logging(lib):
    log = []

    class LoggingTensor(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is not lib.Tensor.__repr__:
                log.append((func.__name__, [type(a).__name__ for a in args], kwargs))
            return super().__torch_function__(func, types, args, kwargs or {})

    x = lib.tensor([1.0, 2.0]).as_subclass(LoggingTensor)
    y = lib.exp(x)
    x.sum()
    x * 2
    lib.add(x, 1, alpha=2)
    x.shape  # noqa: B018 - a property read is a call too
    repr(x)
    return log, type(y).__name__


def test_subclass_handler_sees_each_call_once_with_its_arguments():
    ours, theirs = both(_logging)
    assert ours == theirs
    assert ours[0][0] == ("exp", ["LoggingTensor"], None)


def _overriding_one_function(lib):
    class Clamped(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is lib.exp:
                return "exp was called"
            return super().__torch_function__(func, types, args, kwargs)

    c = lib.tensor([1.0, -1.0]).as_subclass(Clamped)
    return lib.exp(c), type(lib.abs(c)).__name__, lib.abs(c).tolist()


def test_a_handler_may_replace_a_function():
    ours, theirs = both(_overriding_one_function)
    assert ours == theirs == ("exp was called", "Clamped", [1.0, 1.0])


def _subclass_gradients(lib):
    class Sub(lib.Tensor):
        pass

    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
    s = w.as_subclass(Sub)
    out = lib.nn.functional.softplus(s @ s).sum()
    out.backward()
    return type(out).__name__, type(out.grad_fn).__name__, w.grad.numpy().copy()


def test_gradients_flow_through_subclass_results():
    (name, node, grad), (t_name, t_node, t_grad) = both(_subclass_gradients)
    assert (name, node) == (t_name, t_node) == ("Sub", "AliasBackward0")
    np.testing.assert_allclose(grad, t_grad, rtol=1e-12)


def _disabling(lib):
    class Sub(lib.Tensor):
        pass

    s = lib.ones(2).as_subclass(Sub)
    with _disable_subclass(lib):
        inside = type(s + 1).__name__
    return inside, type(s + 1).__name__


def test_disable_torch_function_subclass():
    ours, theirs = both(_disabling)
    assert ours == theirs == ("Tensor", "Sub")


# ----- a Tensor-like type that is not a Tensor (the note's ScalarTensor) -------------------


def _scalar_tensor(lib):
    handled = {}

    class ScalarTensor:
        def __init__(self, n, value):
            self._n, self._value = n, value

        def __repr__(self):
            return f"ScalarTensor(N={self._n}, value={self._value})"

        def tensor(self):
            return self._value * lib.eye(self._n)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func not in handled or not all(
                issubclass(t, (lib.Tensor, ScalarTensor)) for t in types
            ):
                return NotImplemented
            return handled[func](*args, **kwargs)

    def implements(torch_function):
        def decorator(func):
            functools.update_wrapper(func, torch_function)
            handled[torch_function] = func
            return func

        return decorator

    @implements(lib.mean)
    def mean(input):
        return float(input._value) / input._n

    @implements(lib.add)
    def add(input, other):
        if isinstance(input, ScalarTensor) and isinstance(other, ScalarTensor):
            return ScalarTensor(input._n, input._value + other._value)
        as_tensor = [a.tensor() if isinstance(a, ScalarTensor) else a for a in (input, other)]
        return lib.add(*as_tensor)

    d = ScalarTensor(5, 2)
    s = ScalarTensor(2, 2)
    t = lib.tensor([[1, 1], [1, 1]])
    return [
        lib.mean(d),
        repr(lib.add(s, s)),
        lib.add(s, t).tolist(),
        _error(lambda: lib.mul(s, 3)),
        _error(lambda: lib.nn.functional.relu(s)),
        _error(lambda: t + s),
        _error(lambda: t.sum(s)),
        lib.overrides.has_torch_function((s,)),
        lib.overrides.has_torch_function((t,)),
        lib.overrides.is_tensor_like(s),
        lib.overrides.is_tensor_like(3),
    ]


def test_tensor_like_type_takes_the_functions_it_is_passed_to():
    ours, theirs = both(_scalar_tensor)
    assert ours == theirs
    assert ours[0] == 0.4 and ours[1] == "ScalarTensor(N=2, value=4)"


def _handle_in_a_python_function(lib):
    class Box:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("handled", func.__name__, len(args), sorted(kwargs or {}))

    def double(x, scale=2):
        if lib.overrides.has_torch_function_unary(x):
            return lib.overrides.handle_torch_function(double, (x,), x, scale=scale)
        return x * scale

    @lib.overrides.wrap_torch_function(lambda x, y: (x, y))
    def pair(x, y):
        return x + y

    return [
        double(lib.ones(1)).tolist(),
        double(Box()),
        pair(lib.ones(1), 1).tolist(),
        pair(lib.ones(1), Box()),
        lib.overrides.has_torch_function_variadic(lib.ones(1), Box()),
    ]


def test_handle_torch_function_and_wrap_torch_function():
    ours, theirs = both(_handle_in_a_python_function)
    assert ours == theirs


# ----- modes -----------------------------------------------------------------------------------


def _mode_log(lib):
    seen = []

    class FunctionLog(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((lib.overrides.resolve_name(func), kwargs))
            return func(*args, **(kwargs or {}))

    with FunctionLog():
        a = lib.ones(3, requires_grad=True)
        b = a * 2
        c = lib.add(b, a, alpha=2).sum()
        d = lib.nn.functional.relu(c)
        a.shape  # noqa: B018
        a[0]  # noqa: B018
        lib.linalg.vector_norm(a)
    return seen, d.item(), type(d.grad_fn).__name__


def test_mode_sees_every_call_while_active():
    ours, theirs = both(_mode_log)
    # PyTorch's Python functions get every keyword with its default (relu's inplace=False);
    # chainrule's handlers get the keywords the caller gave (none here)
    assert ours[0][4] == ("torch.nn.functional.relu", {})
    assert theirs[0][4] == ("torch.nn.functional.relu", {"inplace": False})
    ours[0][4] = theirs[0][4]
    assert ours == theirs
    assert [n for n, _ in ours[0]][:3] == ["torch.ones", "torch.Tensor.mul", "torch.add"]


def _nested_modes(lib):
    seen = []

    class Named(lib.overrides.TorchFunctionMode):
        def __init__(self, name):
            self.name = name

        def __torch_function__(self, func, types, args=(), kwargs=None):
            depth = len(lib.overrides._get_current_function_mode_stack())
            seen.append((self.name, lib.overrides.resolve_name(func), depth))
            return func(*args, **(kwargs or {}))

    x = lib.ones(2)
    with Named("outer"), Named("inner"):
        lib.neg(x)
        with _disable_all(lib):
            lib.exp(x)
        with _disable_subclass(lib):
            lib.sin(x)
        depth = len(lib.overrides._get_current_function_mode_stack())
    return seen, depth, lib.overrides._get_current_function_mode_stack()


def test_modes_nest_innermost_first_and_disable_torch_function_skips_them():
    ours, theirs = both(_nested_modes)
    assert ours == theirs
    assert ours[0][:2] == [("inner", "torch.neg", 1), ("outer", "torch.neg", 0)]


def _mode_before_subclass(lib):
    order = []

    class Sub(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append("subclass")
            return super().__torch_function__(func, types, args, kwargs)

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append(("mode", [t.__name__ for t in types]))
            return func(*args, **(kwargs or {}))

    s = lib.ones(1).as_subclass(Sub)
    with Mode():
        out = lib.neg(s)
    return order, type(out).__name__


def test_a_mode_comes_before_the_arguments_handlers():
    ours, theirs = both(_mode_before_subclass)
    assert ours == theirs == ([("mode", ["Sub"]), "subclass"], "Sub")


# ----- the listing helpers ---------------------------------------------------------------------


def _names(lib):
    o = lib.overrides
    t = lib.Tensor
    return [
        o.resolve_name(lib.add),
        o.resolve_name(t.add),
        o.resolve_name(t.grad.__get__),
        o.resolve_name(lib.nn.functional.relu),
        o.resolve_name(lib.special.erf),
        o.resolve_name(t.__add__),
        o.resolve_name(lambda: 1),
        o.is_tensor_method_or_property(t.add),
        o.is_tensor_method_or_property(lib.add),
        o.is_tensor_method_or_property(t.shape.__get__),
        o.is_tensor_like(t),
        o.has_torch_function((lib.ones(1),)),
    ]


def test_resolve_name_and_the_predicates():
    ours, theirs = both(_names)
    assert ours == theirs


def test_overridable_functions_cover_the_name_table():
    spaces = overrides.get_overridable_functions()
    assert cr.add in spaces[cr] and cr.Tensor.add in spaces[cr.Tensor]
    assert cr.nn.functional.relu in spaces[cr.nn.functional]
    assert cr.linalg.inv in spaces[cr.linalg] and cr.special.erf in spaces[cr.special]
    assert cr.Tensor.shape.__get__ in spaces[cr.Tensor]
    ignored = overrides.get_ignored_functions()
    assert cr.ones in ignored and cr.Tensor.as_subclass in ignored and cr.add not in ignored
    # the same split as PyTorch's for the names both have
    for name in ("ones", "rand", "tensor", "arange", "zeros_like", "numel", "add", "matmul"):
        assert (getattr(cr, name) in ignored) == (
            getattr(torch, name) in torch.overrides.get_ignored_functions()
        ), name
    testing = overrides.get_testing_overrides()
    assert testing[cr.add](1, 2) == -1 == torch.overrides.get_testing_overrides()[torch.add](1, 2)


def test_testing_overrides_serve_as_handlers():
    """PyTorch's use of them: a Tensor-like whose handler calls the dummy of each function."""
    testing = overrides.get_testing_overrides()

    class Dummy:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return testing[func](*args, **(kwargs or {}))

    d = Dummy()
    assert cr.add(d, 1) == -1 and cr.nn.functional.relu(d) == -1 and cr.linalg.inv(d) == -1


def _opted_out_subclass(lib):
    class Quiet(lib.Tensor):
        __torch_function__ = _opt_out(lib)

    q = lib.ones(2).as_subclass(Quiet)
    return type(q).__name__, type(q * 2).__name__, type(lib.exp(q)).__name__, repr(q)


def test_a_subclass_opting_out_gets_plain_tensors_but_prints_its_name():
    ours, theirs = both(_opted_out_subclass)
    assert ours == theirs == ("Quiet", "Tensor", "Tensor", "Quiet([1., 1.])")


def test_a_tensor_like_defined_inside_a_mode_still_dispatches_after_it():
    with overrides.BaseTorchFunctionMode():

        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return "handled"

    assert overrides._state.enabled
    assert cr.neg(Like()) == "handled"


def test_a_subclass_with_its_own_new_and_torch_c_switches_as_torch():
    def run(L):
        class Sub(L.Tensor):
            @staticmethod
            def __new__(cls, data, tag=None):
                t = super().__new__(cls, data)
                t.tag = tag
                return t

        class NoTF(L.Tensor):
            __torch_function__ = L._C._disabled_torch_function_impl

        s = Sub([1.0, 2.0], tag="a")
        out = [type(s).__name__, s.tag, type(s * 2).__name__]
        out.append(type(L.ones(2).as_subclass(NoTF) + 1).__name__)
        with L._C.DisableTorchFunctionSubclass():
            out.append(type(s + 1).__name__)
        return out

    assert run(cr) == run(torch)
