"""``nn.Module`` side by side with PyTorch's: the same registrations, assignments and calls on
both libraries must give the same names, orders, shapes, dtypes, reprs and errors.

Registration (attribute assignment, ``register_*``, ``add_module``), lookup (``get_*``),
iteration (``named_parameters`` and its kin with prefix, recurse, remove_duplicate),
``train``/``eval``, ``requires_grad_``, ``zero_grad``, ``apply``, conversions (``to``,
``double``, ``type``, ...), printing, ``__dir__``, deepcopy and pickling.
"""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import pytest
import torch

import chainrule as cr
from nn_models import affine, arr, classes, net, tensor
from oracle import assert_same_error, compare


def names(pairs) -> list[str]:
    return [n for n, _ in pairs]


def kinds(mod) -> tuple:
    """Where each name is registered: (parameters, buffers, modules, non-persistent)."""
    return (
        list(mod._parameters),
        list(mod._buffers),
        list(mod._modules),
        sorted(mod._non_persistent_buffers_set),
    )


# ----- registration and attributes ---------------------------------------------------------


def _reassign(lib):
    """Assigning a name moves it between parameters, buffers, modules and plain attributes."""
    m = affine(lib)
    m.count = lib.nn.Parameter(lib.ones(1))  # buffer -> parameter
    m.plain = 3
    m.sub = lib.nn.Identity()
    m.sub = lib.nn.Parameter(lib.ones(2))  # module -> parameter
    m.plain = lib.nn.Identity()  # plain attribute -> module
    m.scratch = lib.ones(4)  # non-persistent buffer stays non-persistent
    m.extra = lib.nn.Buffer(lib.ones(2), persistent=False)
    m.more = lib.nn.Buffer(lib.ones(2))
    return [kinds(m), "plain" in m.__dict__, list(m.state_dict()), tuple(m.scratch.shape)]


def _none_values(lib):
    m = affine(lib)
    m.bias = None
    m.count = None
    m.register_parameter("p", None)
    m.register_buffer("b", None)
    m.add_module("sub", None)
    return [kinds(m), m.bias, m.sub, list(m.state_dict()), names(m.named_parameters()), str(m)]


def _delete(lib):
    m = affine(lib)
    m.sub = lib.nn.Identity()
    m.plain = 1
    del m.bias, m.scratch, m.sub, m.plain
    return [kinds(m), list(m.state_dict()), hasattr(m, "plain"), str(m)]


def _registration_order(lib):
    m = lib.nn.Module()
    m.register_buffer("b2", lib.zeros(1))
    m.p2 = lib.nn.Parameter(lib.zeros(2))
    m.register_parameter("p1", lib.nn.Parameter(lib.zeros(3)))
    m.add_module("m2", lib.nn.Identity())
    m.register_module("m1", lib.nn.Flatten())
    m.b1 = lib.nn.Buffer(lib.zeros(4))
    m.p2 = lib.nn.Parameter(lib.ones(5))  # re-registering keeps its place
    return [kinds(m), list(m.state_dict()), [tuple(p.shape) for p in m.parameters()]]


def _init_in_subclass_before_super(lib):
    class Late(lib.nn.Module):
        def __init__(self):
            self.x = 3  # a plain attribute before Module.__init__ is fine
            super().__init__()

    return Late().x


def _call_super_init(lib):
    class Base:
        def __init__(self, a, b=0):
            self.ab = (a, b)

    class Mixed(lib.nn.Module, Base):
        call_super_init = True

    return Mixed(1, b=2).ab


def _dir(lib):
    m = net(lib)
    wanted = {"scale", "steps", "body", "heads", "table", "training", "forward", "state_dict"}
    return [k for k in dir(m) if k in wanted], [k for k in dir(m.heads) if k.isdigit()]


def _lookup(lib):
    m = net(lib)
    return [
        str(m.get_submodule("body.2.fc")),
        m.get_submodule("") is m,
        tuple(m.get_parameter("body.0.weight").shape),
        tuple(m.get_parameter("scale").shape),
        tuple(m.get_buffer("body.2.fc.count").shape),
        tuple(m.get_buffer("steps").shape),
    ]


def _set_submodule(lib):
    m = net(lib)
    m.set_submodule("body.2.fc", lib.nn.Flatten(0))
    m.set_submodule("body.2.new", lib.nn.Identity())
    m.set_submodule("top", lib.nn.Identity(), strict=False)
    return str(m)


REGISTRATION = {
    "reassign": _reassign,
    "none_values": _none_values,
    "delete": _delete,
    "registration_order": _registration_order,
    "plain_attribute_before_init": _init_in_subclass_before_super,
    "call_super_init": _call_super_init,
    "dir": _dir,
    "lookup": _lookup,
    "set_submodule": _set_submodule,
    "getattr": lambda lib: [tuple(affine(lib).weight.shape), affine(lib).training],
}


@pytest.mark.parametrize("fn", REGISTRATION.values(), ids=REGISTRATION.keys())
def test_registration_as_torch(fn):
    compare(fn, exact=True)


def _before_init(what):
    def fn(lib):
        class Early(lib.nn.Module):
            def __init__(self):
                if what == "parameter":
                    self.p = lib.nn.Parameter(lib.ones(1))
                elif what == "module":
                    self.m = lib.nn.Identity()
                elif what == "buffer":
                    self.register_buffer("b", lib.ones(1))
                else:
                    self.register_parameter("p", None)

        Early()

    return fn


REGISTRATION_ERRORS = {
    "tensor_as_parameter": lambda lib: setattr(affine(lib), "weight", lib.ones(2)),
    "int_as_parameter": lambda lib: setattr(affine(lib), "bias", 3),
    "int_as_module": lambda lib: setattr(net(lib), "body", 3),
    "tensor_as_module": lambda lib: setattr(net(lib), "body", lib.ones(1)),
    "int_as_buffer": lambda lib: setattr(affine(lib), "count", 1.5),
    "int_as_new_buffer": lambda lib: setattr(affine(lib), "new", lib.nn.Buffer(3)),
    "parameter_before_init": _before_init("parameter"),
    "module_before_init": _before_init("module"),
    "buffer_before_init": _before_init("buffer"),
    "register_parameter_before_init": _before_init("register_parameter"),
    "buffer_name_dot": lambda lib: affine(lib).register_buffer("a.b", None),
    "buffer_name_empty": lambda lib: affine(lib).register_buffer("", None),
    "buffer_name_taken": lambda lib: affine(lib).register_buffer("weight", None),
    "buffer_name_method": lambda lib: affine(lib).register_buffer("forward", None),
    "buffer_name_int": lambda lib: affine(lib).register_buffer(3, None),
    "buffer_not_tensor": lambda lib: affine(lib).register_buffer("q", [1.0]),
    "parameter_not_parameter": lambda lib: affine(lib).register_parameter("q", lib.ones(1)),
    "parameter_name_dot": lambda lib: affine(lib).register_parameter("a.b", None),
    "parameter_name_empty": lambda lib: affine(lib).register_parameter("", None),
    "parameter_name_taken": lambda lib: affine(lib).register_parameter("count", None),
    "parameter_name_int": lambda lib: affine(lib).register_parameter(1, None),
    "module_not_module": lambda lib: affine(lib).add_module("q", 3),
    "module_name_dot": lambda lib: affine(lib).add_module("a.b", lib.nn.Identity()),
    "module_name_empty": lambda lib: affine(lib).add_module("", lib.nn.Identity()),
    "module_name_taken": lambda lib: affine(lib).add_module("bias", lib.nn.Identity()),
    "module_name_int": lambda lib: affine(lib).add_module(2, lib.nn.Identity()),
    "register_module_not_module": lambda lib: affine(lib).register_module("q", "x"),
    "missing_attribute": lambda lib: affine(lib).nope,
    "delete_missing": lambda lib: delattr(affine(lib), "nope"),
    "get_submodule_missing": lambda lib: net(lib).get_submodule("body.7"),
    "get_submodule_parameter": lambda lib: net(lib).get_submodule("body.0.weight"),
    "get_parameter_buffer": lambda lib: net(lib).get_parameter("body.0.count"),
    "get_parameter_missing": lambda lib: net(lib).get_parameter("body.0.nope"),
    "get_parameter_bad_path": lambda lib: net(lib).get_parameter("nope.weight"),
    "get_buffer_parameter": lambda lib: net(lib).get_buffer("body.0.weight"),
    "get_buffer_missing": lambda lib: net(lib).get_buffer("steps2"),
    "set_submodule_empty": lambda lib: net(lib).set_submodule("", lib.nn.Identity()),
    "set_submodule_not_module": lambda lib: net(lib).set_submodule("body", 3),
    "set_submodule_strict": lambda lib: net(lib).set_submodule("x", lib.nn.Identity(), True),
    "set_submodule_over_parameter": lambda lib: net(lib).set_submodule("scale", lib.nn.Identity()),
    "init_keyword": lambda lib: lib.nn.Module(a=1),
    "init_positional": lambda lib: lib.nn.Module(1, 2),
    "forward_missing": lambda lib: lib.nn.Module()(1),
    "non_leaf_parameter": lambda lib: affine(lib).register_parameter("q", _non_leaf_parameter(lib)),
}


def _non_leaf_parameter(lib):
    """A Parameter with a grad_fn: an in-place op with a tensor that requires grad."""
    p = lib.nn.Parameter(lib.ones(1), requires_grad=False)
    p.mul_(tensor(lib, arr(1), requires_grad=True))
    return p


@pytest.mark.parametrize("fn", REGISTRATION_ERRORS.values(), ids=REGISTRATION_ERRORS.keys())
def test_registration_errors_as_torch(fn):
    assert_same_error(fn)


# ----- iteration -------------------------------------------------------------------------


def _shared(lib):
    """A module used twice and a parameter under two names."""
    a = affine(lib)
    a.tied = a.weight
    i = lib.nn.Identity()
    return lib.nn.Sequential(a, i, lib.nn.Sequential(a, i), lib.nn.ModuleList([i]))


ITERATION = {
    "named_parameters": lambda lib: names(net(lib).named_parameters()),
    "named_parameters_prefix": lambda lib: names(net(lib).named_parameters(prefix="model")),
    "named_parameters_no_recurse": lambda lib: names(net(lib).named_parameters(recurse=False)),
    "named_buffers": lambda lib: names(net(lib).named_buffers()),
    "named_buffers_prefix_no_recurse": lambda lib: names(
        net(lib).named_buffers(prefix="m", recurse=False)
    ),
    "named_children": lambda lib: names(net(lib).named_children()),
    "named_modules": lambda lib: names(net(lib).named_modules()),
    "named_modules_prefix": lambda lib: names(net(lib).named_modules(prefix="root")),
    "modules": lambda lib: [type(m).__name__ for m in net(lib).modules()],
    "children": lambda lib: [type(m).__name__ for m in net(lib).children()],
    "parameters": lambda lib: [tuple(p.shape) for p in net(lib).parameters()],
    "parameters_no_recurse": lambda lib: [tuple(p.shape) for p in net(lib).body[0].parameters()],
    "buffers": lambda lib: [tuple(b.shape) for b in net(lib).buffers()],
    "buffers_no_recurse": lambda lib: [tuple(b.shape) for b in net(lib).buffers(recurse=False)],
    "shared_named_modules": lambda lib: names(_shared(lib).named_modules()),
    "shared_named_modules_all": lambda lib: names(
        _shared(lib).named_modules(remove_duplicate=False)
    ),
    "shared_named_children": lambda lib: names(_shared(lib).named_children()),
    "shared_modules_count": lambda lib: len(list(_shared(lib).modules())),
    "shared_modules_all_count": lambda lib: len(list(_shared(lib).modules(remove_duplicate=False))),
    "shared_named_parameters": lambda lib: names(_shared(lib).named_parameters()),
    "shared_named_parameters_all": lambda lib: names(
        _shared(lib).named_parameters(remove_duplicate=False)
    ),
    "shared_named_buffers_all": lambda lib: names(
        _shared(lib).named_buffers(remove_duplicate=False)
    ),
    "shared_state_dict": lambda lib: list(_shared(lib).state_dict()),
    "named_modules_memo": lambda lib: names(net(lib).named_modules(memo={net(lib)}, prefix="p")),
    "is_generator": lambda lib: [
        type(net(lib).parameters()).__name__,
        type(net(lib).named_modules()).__name__,
    ],
}


@pytest.mark.parametrize("fn", ITERATION.values(), ids=ITERATION.keys())
def test_iteration_as_torch(fn):
    compare(fn, exact=True)


def _memo(lib):
    m = net(lib)
    memo = {m.body}
    got = names(m.named_modules(memo=memo))
    return [got, m in memo, m.heads[1] in memo, len(memo)]


def test_named_modules_memo_skips_what_it_holds():
    compare(_memo, exact=True)


# ----- modes, gradients, apply -------------------------------------------------------------


def _train_eval(lib):
    m = net(lib)
    log = [[x.training for x in m.modules()]]
    log.append(m.eval() is m)
    log.append([x.training for x in m.modules()])
    m.body.train()
    log.append([x.training for x in m.modules()])
    log.append(m.train(False) is m)
    log.append([x.training for x in m.modules()])
    return log


def _backward(lib):
    m = net(lib)
    out = m(tensor(lib, arr(5, 2, seed=9)))
    out.backward(tensor(lib, arr(5, 1, seed=10)))
    return [out, *(p.grad for p in m.parameters())]


def _zero_grad(lib):
    m = net(lib)
    m(tensor(lib, arr(5, 2, seed=9))).sum().backward()
    grads = [p.grad for p in m.parameters()]
    m.zero_grad(set_to_none=False)
    zeroed = [p.grad is g for p, g in zip(m.parameters(), grads)]
    values = [p.grad for p in m.parameters()]
    m.zero_grad()
    return [zeroed, values, [p.grad for p in m.parameters()]]


def _zero_grad_of_graph_grad(lib):
    """A .grad that is itself part of a graph is detached before zeroing."""
    m = affine(lib)
    m.weight.grad = m.weight * 2
    m.zero_grad(set_to_none=False)
    return [m.weight.grad, m.weight.grad.requires_grad, m.weight.grad.grad_fn is None]


def _requires_grad(lib):
    m = net(lib)
    out = [m.requires_grad_(False) is m, [p.requires_grad for p in m.parameters()]]
    m.body.requires_grad_()
    out.append([p.requires_grad for p in m.parameters()])
    return out


def _apply(lib):
    seen = []
    m = net(lib)
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    return seen


MODES = {
    "train_eval": _train_eval,
    "backward": _backward,
    "zero_grad": _zero_grad,
    "zero_grad_graph_grad": _zero_grad_of_graph_grad,
    "requires_grad_": _requires_grad,
    "apply": _apply,
    "share_memory": lambda lib: [net(lib).share_memory().training],
}


@pytest.mark.parametrize("fn", MODES.values(), ids=MODES.keys())
def test_modes_as_torch(fn):
    compare(fn, rtol=1e-5, atol=1e-6)


def test_train_needs_a_bool():
    assert_same_error(lambda lib: net(lib).train(1))


# ----- conversions -----------------------------------------------------------------------


def dtypes(m) -> list:
    return [(n, str(t.dtype)) for n, t in (*m.named_parameters(), *m.named_buffers())]


def _convert(method, *args, **kwargs):
    def fn(lib):
        m = net(lib)
        m.body[0].register_buffer("ints", lib.arange(3))
        m(tensor(lib, arr(5, 2, seed=9))).sum().backward()
        params = list(m.parameters())
        grads = [p.grad for p in params]
        a = tuple(lib.float64 if x == "f64" else x for x in args)
        a = tuple(lib.ones(1, dtype=lib.float64) if x == "t64" else x for x in a)
        k = {key: lib.float64 if v == "f64" else lib.float16 if v == "f16" else v
             for key, v in kwargs.items()}  # fmt: skip
        out = getattr(m, method)(*a, **k)
        return [
            out is m,
            dtypes(m),
            [str(p.grad.dtype) for p in m.parameters()],
            all(p is q for p, q in zip(params, m.parameters())),  # the same Parameter objects
            all(p.grad is g for p, g in zip(params, grads)),  # and the same grad objects
            [type(p).__name__ for p in m.parameters()],
            list(m.parameters()),
        ]

    return fn


CONVERSIONS = {
    "double": _convert("double"),
    "float_after_double": lambda lib: dtypes(net(lib).double().float()),
    "half": _convert("half"),
    "to_dtype": _convert("to", "f64"),
    "to_dtype_keyword": _convert("to", dtype="f16"),
    "to_tensor": _convert("to", "t64"),
    "to_device_dtype": _convert("to", "cpu", "f64"),
    "to_device": _convert("to", "cpu"),
    "to_device_keyword": _convert("to", device="cpu", dtype="f64"),
    "cpu": _convert("cpu"),
    "type_dtype": _convert("type", "f64"),
    "type_string": _convert("type", "torch.DoubleTensor"),
    "to_empty": lambda lib: dtypes(net(lib).to_empty(device="cpu")),
    "to_empty_values": lambda lib: [
        p.shape for p in affine(lib).to_empty(device="cpu").parameters()
    ],
}


@pytest.mark.parametrize("fn", CONVERSIONS.values(), ids=CONVERSIONS.keys())
def test_conversions_as_torch(fn):
    compare(fn, rtol=1e-3, atol=1e-3)  # half() rounds: the values agree to float16's precision


def test_to_refuses_integer_dtypes():
    assert_same_error(lambda lib: net(lib).to(lib.int64))
    assert_same_error(lambda lib: net(lib).to(dtype=lib.bool))


def test_other_devices_give_tensor_to_s_error():
    """chainrule has only the CPU: Module.to and Module.cuda raise what Tensor.to raises,
    PyTorch's error on a build without CUDA."""
    with pytest.raises(AssertionError) as tensor_error:
        cr.ones(1).to("cuda")
    with pytest.raises(AssertionError) as module_error:
        net(cr).to("cuda")
    assert str(module_error.value) == str(tensor_error.value)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        net(cr).cuda()
    assert_same_error(lambda lib: net(lib).to("mps"))
    assert net(cr).to("cpu").training


def test_bfloat16_casts_the_floating_parameters_as_torch():
    for lib in (cr, torch):
        m = net(lib).bfloat16()
        assert {str(p.dtype) for p in m.parameters()} == {"torch.bfloat16"}


def test_conversion_keeps_training_working():
    """After double(), the same Parameter objects take float64 gradients."""
    m = net(cr).double()
    m(cr.ones(5, 2, dtype=cr.float64)).sum().backward()
    assert {str(p.grad.dtype) for p in m.parameters()} == {"torch.float64"}


# ----- printing ------------------------------------------------------------------------


def _printed_models(lib):
    nn = lib.nn
    C = classes(lib)

    class Multi(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = C.Affine()
            self.lst = nn.ModuleList([C.Affine(), C.Affine(), nn.Identity(), C.Affine(seed=3)])

        def extra_repr(self):
            return "first=1\nsecond=2"

    class OnlyExtra(nn.Module):
        def extra_repr(self):
            return "a=1"

    return [
        net(lib),
        nn.Module(),
        nn.Sequential(),
        nn.Sequential(nn.Identity(), nn.Sequential(nn.Flatten(0, 1), nn.Unflatten(0, (1, 2)))),
        nn.Sequential(OrderedDict(first=nn.Identity(), second=C.Affine())),
        nn.ModuleList(),
        nn.ModuleList([nn.Identity()] * 3 + [nn.Flatten()] + [nn.Identity()] * 2),
        nn.ModuleList([nn.ModuleList([nn.Identity(), nn.Identity()]), nn.Identity()]),
        nn.ModuleDict({"b": nn.Identity(), "a": nn.Sequential(nn.Identity())}),
        Multi(),
        OnlyExtra(),
        nn.Sequential(OnlyExtra(), Multi()),
        nn.Identity(1, 2, x=3),
        nn.Flatten(),
        nn.Unflatten(-1, [2, 3]),
    ]


def test_reprs_as_torch():
    ours = [repr(m) for m in _printed_models(cr)]
    theirs = [repr(m) for m in _printed_models(torch)]
    for got, want in zip(ours, theirs, strict=True):
        assert got == want
    assert [str(m) for m in _printed_models(cr)] == ours


# ----- copying -----------------------------------------------------------------------------


def _deepcopy(lib):
    m = net(lib)
    m(tensor(lib, arr(5, 2, seed=9))).sum().backward()
    m.eval()
    c = copy.deepcopy(m)
    return [
        str(c),
        c.training,
        dtypes(c),
        list(c.parameters()),
        [p.grad for p in c.parameters()],  # a Parameter's deepcopy drops .grad, as in PyTorch
        any(p is q for p, q in zip(c.parameters(), m.parameters())),
        c.body[0].scratch,
        sorted(c.body[0]._non_persistent_buffers_set),
    ]


def _pickle(lib):
    nn = lib.nn
    m = nn.Sequential(
        nn.Flatten(0), nn.ModuleList([nn.Identity()]), nn.ParameterList([lib.ones(2)])
    )
    m.register_buffer("b", lib.arange(3))
    m[0].register_forward_hook(_pickled_hook)
    c = pickle.loads(pickle.dumps(m))
    x = tensor(lib, arr(2, 2, seed=9))
    return [str(c), list(c.state_dict()), c[0](x), len(c[0]._forward_hooks), c.b]


def _pickled_hook(module, args, output):
    return output * 2


def _tied_deepcopy(lib):
    a = affine(lib)
    a.tied = a.weight
    c = copy.deepcopy(a)
    return [c.tied is c.weight, names(c.named_parameters())]


COPIES = {"deepcopy": _deepcopy, "pickle": _pickle, "tied_deepcopy": _tied_deepcopy}


@pytest.mark.parametrize("fn", COPIES.values(), ids=COPIES.keys())
def test_copies_as_torch(fn):
    compare(fn, rtol=1e-5, atol=1e-6)


def test_setstate_fills_missing_hook_dicts():
    """A module pickled before an attribute existed gets it on load, as in PyTorch."""
    m = cr.nn.Identity()
    state = m.__getstate__()
    for key in ("_forward_pre_hooks", "_state_dict_pre_hooks", "_non_persistent_buffers_set"):
        del state[key]
    fresh = cr.nn.Identity.__new__(cr.nn.Identity)
    fresh.__setstate__(state)
    assert fresh._forward_pre_hooks == {} and fresh._non_persistent_buffers_set == set()
    assert fresh(cr.ones(1)).tolist() == [1.0]


# ----- what chainrule lacks ---------------------------------------------------------------


@pytest.mark.parametrize(
    "get",
    [
        lambda: cr.nn.CrossMapLRN2d,
        lambda: cr.nn.modules.CrossMapLRN2d,
        lambda: cr.nn.utils._expanded_weights,  # (its ExpandedWeight tensor class)
    ],
    ids=["nn", "nn.modules", "nn.utils"],
)
def test_missing_names_say_so(get):
    from chainrule._missing import NotImplementedInChainrule

    with pytest.raises(NotImplementedInChainrule, match="chainrule does not implement torch.nn"):
        get()


def test_namespaces_hold_the_classes_of_torch_nn():
    for name in ["Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict"]:
        assert hasattr(torch.nn, name) and getattr(cr.nn, name).__name__ == name
    for name in ["ParameterList", "ParameterDict", "Identity", "Flatten", "Unflatten"]:
        assert getattr(cr.nn.modules, name) is getattr(cr.nn, name)
    assert cr.nn.parameter.Parameter is cr.nn.Parameter
    assert cr.nn.modules.module.Module is cr.nn.Module
    assert cr.nn.utils.clip_grad_norm_ is cr.nn.utils.clip_grad.clip_grad_norm_
    assert callable(cr.nn.modules.module.register_module_forward_hook)
