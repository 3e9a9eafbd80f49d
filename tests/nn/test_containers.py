"""Containers side by side with PyTorch's: ``Sequential``, ``ModuleList``, ``ModuleDict``,
``ParameterList`` and ``ParameterDict`` (indexing, slicing, insertion, deletion,
renumbering, operators, reprs, errors), and the first layers, ``Identity``, ``Flatten``
and ``Unflatten``, whose outputs, gradients and tangents are checked with the oracle."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from nn_models import affine, arr, tensor
from oracle import DT_IDS, FLOATS, assert_same_error, check, check_fd, compare, same_node


def names(module) -> list[str]:
    return list(module._modules)


# ----- Sequential --------------------------------------------------------------------------


def _seq(lib):
    nn = lib.nn
    return nn.Sequential(nn.Identity(), nn.Flatten(), nn.Unflatten(1, (2, 3)), affine(lib, 3, 4))


def _sequential(lib):
    nn = lib.nn
    s = _seq(lib)
    out = [str(s[1]), str(s[-1]), str(s[0:2]), type(s[1:]).__name__, len(s), names(s[::2])]
    out.append([type(m).__name__ for m in s])
    s.append(nn.Flatten(0))
    s.insert(1, nn.Flatten(2))
    s.insert(-1, nn.Identity())
    s.insert(len(s), nn.Identity())
    s.extend([nn.Identity(), nn.Flatten(3)])
    out += [str(s), names(s)]
    out.append(str(s.pop(1)))
    del s[0]
    del s[1:3]
    out += [str(s), names(s)]
    s[0] = nn.Flatten(5)
    s[-1] = nn.Flatten(6)
    out.append(str(s))
    return out


def _sequential_operators(lib):
    nn = lib.nn
    s = nn.Sequential(nn.Identity(), nn.Flatten())
    out = [str(s + nn.Sequential(nn.Flatten(0))), str(s * 2), str(2 * s)]
    t = nn.Sequential(nn.Identity())
    t *= 3
    out.append(str(t))
    t += nn.Sequential(nn.Flatten())
    out.append(str(t))
    out.append((s * 2)[0] is s[0])  # the same modules, repeated
    return out


def _sequential_ordered_dict(lib):
    nn = lib.nn
    s = nn.Sequential(OrderedDict(first=nn.Identity(), second=nn.Flatten(), third=affine(lib)))
    s.append(nn.Identity())
    out = [str(s), names(s), str(s[1:]), names(s[1:]), str(s[-1]), list(s.state_dict())]
    del s[0]
    out.append(names(s))  # deletion renumbers, as in PyTorch
    return out


def _sequential_forward(lib):
    s = _seq(lib)
    x = tensor(lib, arr(5, 6, seed=2), requires_grad=True)
    y = s(x)
    y.backward(tensor(lib, arr(5, 2, 4, seed=3)))
    return [y, x.grad, s[3].weight.grad, s[3].bias.grad]


def _empty_sequential(lib):
    x = tensor(lib, arr(2))
    return [lib.nn.Sequential()(x), str(lib.nn.Sequential()), len(lib.nn.Sequential())]


# ----- ModuleList, ModuleDict ------------------------------------------------------------------


def _module_list(lib):
    nn = lib.nn
    ml = nn.ModuleList([nn.Identity(), nn.Flatten(), affine(lib)])
    out = [str(ml), str(ml[1]), str(ml[-1]), str(ml[1:]), type(ml[:1]).__name__, len(ml)]
    ml.append(nn.Flatten(0))
    ml.insert(1, nn.Flatten(3))
    ml.extend([nn.Identity(), nn.Identity()])
    out += [str(ml), names(ml)]
    out.append(str(ml.pop(0)))
    del ml[1:3]
    out += [str(ml), names(ml)]
    ml[0] = nn.Identity()
    ml[-1] = nn.Flatten(7)
    out.append(str(ml))
    out.append(str(ml + [nn.Flatten()]))
    ml += [nn.Flatten(2)]
    out += [str(ml), [type(m).__name__ for m in ml], list(ml.state_dict())]
    return out


def _module_list_repr(lib):
    nn = lib.nn
    a = affine(lib)
    return [
        str(nn.ModuleList()),
        str(nn.ModuleList([a, a, affine(lib), affine(lib, seed=4), nn.Identity(), nn.Identity()])),
        str(nn.ModuleList([nn.ModuleList([nn.Identity()] * 2), nn.Sequential(nn.Identity())])),
    ]


def _module_dict(lib):
    nn = lib.nn
    md = nn.ModuleDict({"b": nn.Identity(), "a": nn.Flatten()})
    out = [str(md), list(md.keys()), list(md), "a" in md, "z" in md, len(md)]
    md.update([("c", nn.Identity())])
    md.update(OrderedDict(e=nn.Flatten(1), d=nn.Flatten(2)))
    md.update(nn.ModuleDict({"f": nn.Identity()}))
    md["g"] = affine(lib)
    out += [str(md), [k for k, _ in md.items()], [type(v).__name__ for v in md.values()]]
    out.append(str(md.pop("b")))
    del md["a"]
    out += [str(md), list(md.state_dict())]
    md.clear()
    out.append(str(md))
    return out


CONTAINERS = {
    "sequential": _sequential,
    "sequential_operators": _sequential_operators,
    "sequential_ordered_dict": _sequential_ordered_dict,
    "sequential_forward": _sequential_forward,
    "empty_sequential": _empty_sequential,
    "module_list": _module_list,
    "module_list_repr": _module_list_repr,
    "module_dict": _module_dict,
}


@pytest.mark.parametrize("fn", CONTAINERS.values(), ids=CONTAINERS.keys())
def test_containers_as_torch(fn):
    compare(fn, rtol=1e-5, atol=1e-6)


# ----- ParameterList, ParameterDict ---------------------------------------------------------


def _parameter_list(lib):
    pl = lib.nn.ParameterList([lib.ones(2), lib.nn.Parameter(lib.zeros(1, 3)), "text"])
    out = [str(pl), len(pl), [type(p).__name__ for p in pl], str(pl[1:]), str(pl[::2])]
    out.append([n for n, _ in pl.named_parameters()])
    pl.append(lib.ones(4, dtype=lib.float64))
    pl.extend([lib.zeros(2), lib.nn.Parameter(lib.ones(1), requires_grad=False)])
    pl[0] = lib.zeros(5)
    pl += [lib.ones(2, 2)]
    out += [str(pl), list(pl.state_dict()), [p.requires_grad for p in pl.parameters()]]
    out.append(str(lib.nn.ParameterList()))
    return out


def _parameter_dict(lib):
    nn = lib.nn
    pd = nn.ParameterDict({"z": lib.ones(2), "a": nn.Parameter(lib.zeros(3, 1)), "s": "text"})
    out = [str(pd), list(pd), list(pd.keys()), len(pd), "a" in pd, "q" in pd]
    out.append([n for n, _ in pd.named_parameters()])
    pd.update(OrderedDict(y=lib.ones(1), b=lib.ones(2)))
    pd.update([("x", lib.ones(1))])
    pd["w"] = lib.zeros(2, dtype=lib.float64)
    out += [str(pd), [k for k, _ in pd.items()], [type(v).__name__ for v in pd.values()]]
    out.append(type(pd.pop("y")).__name__)
    out.append(pd.popitem()[0])
    out.append(pd.get("missing", 5))
    out.append(tuple(pd.setdefault("n", lib.ones(3)).shape))
    out.append(tuple(pd.setdefault("n", lib.ones(4)).shape))
    out.append(list(pd.copy()))
    out.append(list(reversed(pd)))
    out.append(list(pd | nn.ParameterDict({"k": lib.ones(1)})))
    out.append(list(pd.fromkeys(["u", "v"])))
    out.append(list(pd.state_dict()))
    pd.clear()
    out.append(str(pd))
    return out


PARAMETER_CONTAINERS = {"parameter_list": _parameter_list, "parameter_dict": _parameter_dict}


@pytest.mark.parametrize("fn", PARAMETER_CONTAINERS.values(), ids=PARAMETER_CONTAINERS.keys())
def test_parameter_containers_as_torch(fn):
    compare(fn, exact=True)


ERRORS = {
    "sequential_index": lambda lib: _seq(lib)[7],
    "sequential_index_type": lambda lib: _seq(lib)["a"],
    "sequential_set_index": lambda lib: _seq(lib).__setitem__(-9, lib.nn.Identity()),
    "sequential_add": lambda lib: _seq(lib) + [lib.nn.Identity()],
    "sequential_iadd": lambda lib: _seq(lib).__iadd__(lib.nn.ModuleList()),
    "sequential_mul_zero": lambda lib: _seq(lib) * 0,
    "sequential_mul_float": lambda lib: _seq(lib) * 1.5,
    "sequential_imul_zero": lambda lib: _seq(lib).__imul__(-1),
    "sequential_insert_far": lambda lib: _seq(lib).insert(9, lib.nn.Identity()),
    "sequential_insert_not_module": lambda lib: _seq(lib).insert(0, 3),
    "sequential_not_module": lambda lib: lib.nn.Sequential(lib.nn.Identity(), 3),
    "module_list_index": lambda lib: lib.nn.ModuleList([lib.nn.Identity()])[3],
    "module_list_negative": lambda lib: lib.nn.ModuleList([lib.nn.Identity()])[-2],
    "module_list_extend": lambda lib: lib.nn.ModuleList().extend(3),
    "module_list_item": lambda lib: lib.nn.ModuleList([3]),
    "module_list_delete": lambda lib: lib.nn.ModuleList().__delitem__(0),
    "module_dict_pair": lambda lib: lib.nn.ModuleDict([("a",)]),
    "module_dict_not_iterable": lambda lib: lib.nn.ModuleDict(3),
    "module_dict_item": lambda lib: lib.nn.ModuleDict([3]),
    "module_dict_missing": lambda lib: lib.nn.ModuleDict()["a"],
    "module_dict_value": lambda lib: lib.nn.ModuleDict({"a": 1}),
    "parameter_list_call": lambda lib: lib.nn.ParameterList()(1),
    "parameter_list_extend_tensor": lambda lib: lib.nn.ParameterList().extend(lib.ones(2)),
    "parameter_list_index": lambda lib: lib.nn.ParameterList()[0],
    "parameter_list_int_tensor": lambda lib: lib.nn.ParameterList([lib.ones(2, dtype=lib.int64)]),
    "parameter_dict_key": lambda lib: lib.nn.ParameterDict()[3],
    "parameter_dict_pair": lambda lib: lib.nn.ParameterDict([("a",)]),
    "parameter_dict_item": lambda lib: lib.nn.ParameterDict([3]),
    "parameter_dict_not_iterable": lambda lib: lib.nn.ParameterDict(3),
    "parameter_dict_missing": lambda lib: lib.nn.ParameterDict()["a"],
    "parameter_dict_call": lambda lib: lib.nn.ParameterDict()(1),
    "unflatten_size_type": lambda lib: lib.nn.Unflatten(1, 3),
    "unflatten_size_element": lambda lib: lib.nn.Unflatten(1, (3, 2.0)),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_errors_as_torch(fn):
    assert_same_error(fn)


# ----- the first layers ---------------------------------------------------------------------


LAYERS = {
    "identity": (lambda lib, x: lib.nn.Identity(3, k=1)(x), (2, 3)),
    "flatten": (lambda lib, x: lib.nn.Flatten()(x), (2, 3, 4)),
    "flatten_dims": (lambda lib, x: lib.nn.Flatten(0, -2)(x), (2, 3, 4, 5)),
    "flatten_1d": (lambda lib, x: lib.nn.Flatten(0)(x), (4,)),
    "flatten_empty": (lambda lib, x: lib.nn.Flatten()(x), (0, 3, 2)),
    "unflatten": (lambda lib, x: lib.nn.Unflatten(1, (2, 3))(x), (4, 6)),
    "unflatten_inferred": (lambda lib, x: lib.nn.Unflatten(-1, [3, -1])(x), (2, 6)),
    "flatten_unflatten": (
        lambda lib, x: lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Unflatten(1, (4, 3)))(x),
        (2, 3, 4),
    ),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=DT_IDS)
@pytest.mark.parametrize("fn,shape", LAYERS.values(), ids=LAYERS.keys())
def test_layers(fn, shape, dtype):
    result = check(fn, arr(*shape, seed=3, dtype=np.float64), dtype=dtype)
    same_node(result)


@pytest.mark.parametrize("fn,shape", list(LAYERS.values())[:6], ids=list(LAYERS)[:6])
def test_layers_fd(fn, shape):
    check_fd(fn, arr(*shape, seed=4, dtype=np.float64))


def test_layer_errors_as_torch():
    assert_same_error(lambda lib: lib.nn.Flatten(2, 1)(lib.ones(2, 3, 4)))
    assert_same_error(lambda lib: lib.nn.Unflatten(1, (4, 2))(lib.ones(2, 6)))
