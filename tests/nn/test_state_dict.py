"""``state_dict`` and ``load_state_dict`` side by side with PyTorch's: keys and their order,
``_metadata``, ``prefix`` and ``keep_vars``, strict and non-strict loading with PyTorch's
messages (missing, unexpected, size mismatch), ``assign``, extra state, the state-dict
hooks, and a state dict carried between chainrule and PyTorch through NumPy arrays.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import chainrule as cr
from nn_models import affine, arr, classes, net, tensor
from oracle import assert_same_error, compare


def entries(d) -> list:
    """Each entry's key, shape, dtype, requires_grad and class name."""
    return [
        (k, tuple(v.shape), str(v.dtype), v.requires_grad, type(v).__name__) for k, v in d.items()
    ]


def _double_params(lib, m):
    with lib.no_grad():
        for p in m.parameters():
            p.mul_(2)
    return m


def _extra_state_module(lib):
    class WithState(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 3
            self.w = lib.nn.Parameter(lib.ones(1))

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]

    return WithState()


# ----- saving ------------------------------------------------------------------------------


def _positional_args(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = net(lib).state_dict(None, "p.", True)
    return [entries(d), [w.category.__name__ for w in caught]]


def _destination(lib):
    dest = {"kept": 1}
    d = net(lib).state_dict(destination=dest, prefix="m.")
    return [d is dest, list(d), hasattr(d, "_metadata")]


SAVING = {
    "entries": lambda lib: entries(net(lib).state_dict()),
    "values": lambda lib: dict(net(lib).state_dict()),
    "metadata": lambda lib: dict(net(lib).state_dict()._metadata),
    "type": lambda lib: type(net(lib).state_dict()).__name__,
    "keep_vars": lambda lib: entries(net(lib).state_dict(keep_vars=True)),
    "prefix": lambda lib: [
        list(net(lib).state_dict(prefix="model.")),
        dict(net(lib).state_dict(prefix="model.")._metadata),
    ],
    "positional_args": _positional_args,
    "destination": _destination,
    "shares_memory": lambda lib: _shares_memory(lib),
    "extra_state": lambda lib: list(
        lib.nn.Sequential(_extra_state_module(lib)).state_dict().items()
    ),
    "container_keys": lambda lib: list(
        lib.nn.Sequential(
            lib.nn.ParameterList([lib.ones(1), lib.ones(2)]),
            lib.nn.ParameterDict({"b": lib.ones(1), "a": lib.ones(1)}),
        ).state_dict()
    ),
}


def _shares_memory(lib):
    m = affine(lib)
    d = m.state_dict()
    with lib.no_grad():
        m.weight.add_(1)
    return [d["weight"], d["weight"].requires_grad, d["weight"]._version]


@pytest.mark.parametrize("fn", SAVING.values(), ids=SAVING.keys())
def test_saving_as_torch(fn):
    compare(fn, exact=True)


# ----- loading -------------------------------------------------------------------------------


def _load(lib):
    target = net(lib)
    source = _double_params(lib, net(lib))
    weight = target.body[0].weight
    result = target.load_state_dict(source.state_dict())
    return [
        str(result),
        repr(result),
        result.missing_keys,
        dict(target.state_dict()),
        target.body[0].weight is weight,  # copied in place: the same Parameter
        weight._version,
        weight.requires_grad,
    ]


def _load_non_strict(lib):
    m = net(lib)
    d = m.state_dict()
    del d["body.0.bias"], d["steps"]
    d["extra"] = lib.ones(1)
    d["body.9.weight"] = lib.ones(1)
    d["body.0.nope"] = lib.ones(1)
    d["body.0.scratch"] = lib.ones(1)  # a non-persistent buffer: unexpected
    result = m.load_state_dict(d, strict=False)
    return [str(result), result.missing_keys, result.unexpected_keys, type(result).__name__]


def _load_casts(lib):
    m = affine(lib)
    d = {
        k: v.double() * 0 + 1 if v.is_floating_point() else v + 5 for k, v in m.state_dict().items()
    }
    m.load_state_dict(d)
    return [dict(m.state_dict()), str(m.weight.dtype)]


def _load_0d_from_1d(lib):
    m = affine(lib)
    d = m.state_dict()
    d["count"] = lib.tensor([7])
    m.load_state_dict(d)
    return m.count


def _load_assign(lib):
    m = affine(lib)
    d = {k: v.clone().double() for k, v in m.state_dict().items()}
    weight = d["weight"]
    m.weight.requires_grad_(False)
    m.load_state_dict(d, assign=True)
    return [
        dtypes_of(m),
        type(m.weight).__name__,
        m.weight.requires_grad,  # the module's requires_grad is kept
        m.bias.requires_grad,
        m.count is d["count"],  # buffers are the dict's tensors themselves
        m.weight.data_ptr() == weight.data_ptr(),
    ]


def dtypes_of(m):
    return [(n, str(t.dtype)) for n, t in m.state_dict().items()]


def _load_assign_parameter(lib):
    m = affine(lib)
    p = lib.nn.Parameter(lib.zeros(3, 2), requires_grad=False)
    m.load_state_dict({**m.state_dict(), "weight": p}, assign=True)
    return [m.weight is p, m.weight.requires_grad]


def _load_into_meta(lib):
    """Copying into meta parameters is a no-op that warns once per tensor; assign does not."""
    d = affine(lib).state_dict()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = affine(lib).to("meta")
        m.load_state_dict(d)
        copied = [t.is_meta for t in m.parameters()]
        m.load_state_dict(d, assign=True)
    return [copied, [t.is_meta for t in m.parameters()], [str(w.message) for w in caught]]


def _none_entries(lib):
    m = affine(lib)
    m.bias = None
    m.register_buffer("nothing", None)
    d = m.state_dict()
    return [list(d), str(m.load_state_dict(d))]


def _metadata_to_hooks(lib):
    seen = []
    m = net(lib)
    m.body.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, meta, strict, *lists: seen.append((prefix, dict(meta), strict))
    )
    d = m.state_dict()
    m.load_state_dict(d, strict=False)
    d._metadata["body"]["version"] = 7
    m.load_state_dict(d, assign=True)
    m.load_state_dict(dict(d))  # a plain dict has no metadata
    return seen


def _extra_state_load(lib):
    m = lib.nn.Sequential(_extra_state_module(lib))
    d = m.state_dict()
    d["0._extra_state"] = {"value": 9}
    m.load_state_dict(d)
    return m[0].value


LOADING = {
    "load": _load,
    "non_strict": _load_non_strict,
    "casts": _load_casts,
    "0d_from_1d": _load_0d_from_1d,
    "assign": _load_assign,
    "assign_parameter": _load_assign_parameter,
    "into_meta": _load_into_meta,
    "none_entries": _none_entries,
    "metadata_to_hooks": _metadata_to_hooks,
    "extra_state": _extra_state_load,
    "round_trip": lambda lib: dict(_roundtrip_same_lib(lib).state_dict()),
}


def _roundtrip_same_lib(lib):
    m = net(lib)
    m.load_state_dict(_double_params(lib, net(lib)).state_dict())
    return m


@pytest.mark.parametrize("fn", LOADING.values(), ids=LOADING.keys())
def test_loading_as_torch(fn):
    compare(fn, exact=True)


def _missing_and_unexpected(lib):
    m = net(lib)
    d = m.state_dict()
    del d["body.0.bias"], d["body.2.fc.count"]
    d["extra"] = lib.ones(1)
    d["body.7.weight"] = lib.ones(1)
    d["body.2.fc.q"] = lib.ones(1)
    m.load_state_dict(d)


def _size_mismatch(lib):
    m = net(lib)
    d = m.state_dict()
    d["body.0.weight"] = lib.ones(5, 5)
    d["steps"] = lib.ones(1, 2)
    m.load_state_dict(d, strict=False)


def _all_errors(lib):
    m = net(lib)
    d = m.state_dict()
    d["body.0.weight"] = lib.ones(5, 5)
    del d["scale"]
    d["zz"] = lib.ones(1)
    m.load_state_dict(d)


def _not_a_tensor(lib):
    m = affine(lib)
    d = m.state_dict()
    d["weight"] = np.ones((3, 2))
    m.load_state_dict(d)


def _into_none(lib):
    m = affine(lib)
    m.bias = None
    m.load_state_dict({**m.state_dict(), "bias": lib.ones(3)})


def _copy_casts(lib):
    m = affine(lib)
    d = m.state_dict()
    d["count"] = lib.tensor(1.5)  # a float into an int64 buffer: truncated, as copy_ does
    d["weight"] = lib.ones(3, 2, dtype=lib.bool)
    m.load_state_dict(d)
    return dict(m.state_dict())


def _extra_state_missing(lib):
    m = lib.nn.Sequential(_extra_state_module(lib))
    d = m.state_dict()
    del d["0._extra_state"]
    m.load_state_dict(d)


def _extra_state_unexpected(lib):
    m = lib.nn.Sequential(lib.nn.Identity())
    m.load_state_dict({"0._extra_state": 1})


def _post_hook_returns(lib):
    m = net(lib)
    m.register_state_dict_post_hook(lambda mod, d, prefix, meta: 1)
    m.state_dict()


def _load_post_hook_returns(lib):
    m = net(lib)
    m.register_load_state_dict_post_hook(lambda mod, keys: 1)
    m.load_state_dict(m.state_dict())


def _private_after_public(lib):
    def hook(mod, d, prefix, meta):
        return None

    m = net(lib)
    m.register_state_dict_post_hook(hook)
    m._register_state_dict_hook(hook)


LOADING_ERRORS = {
    "missing_and_unexpected": _missing_and_unexpected,
    "size_mismatch": _size_mismatch,
    "all_errors": _all_errors,
    "not_a_mapping": lambda lib: net(lib).load_state_dict([("a", 1)]),
    "not_a_tensor": _not_a_tensor,
    "into_none": _into_none,
    "extra_state_missing": _extra_state_missing,
    "extra_state_unexpected": _extra_state_unexpected,
    "post_hook_returns": _post_hook_returns,
    "load_post_hook_returns": _load_post_hook_returns,
    "private_hook_after_public": _private_after_public,
}


@pytest.mark.parametrize("fn", LOADING_ERRORS.values(), ids=LOADING_ERRORS.keys())
def test_loading_errors_as_torch(fn):
    assert_same_error(fn)


def test_loading_casts_like_copy_():
    compare(_copy_casts, exact=True)


# ----- hooks -----------------------------------------------------------------------------------


def _hooks(lib):
    log = []
    m = net(lib)
    m.register_state_dict_pre_hook(
        lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars))
    )
    m.body.register_state_dict_pre_hook(
        lambda mod, prefix, keep_vars: log.append(("body pre", prefix))
    )
    m.body.register_state_dict_post_hook(
        lambda mod, d, prefix, meta: log.append(("body post", prefix, len(d), dict(meta)))
    )
    m.body._register_state_dict_hook(lambda mod, d, prefix, meta: {"ignored": 1})
    m._register_state_dict_hook(lambda mod, d, prefix, meta: log.append(("root", len(d))))
    d = m.state_dict(keep_vars=True)
    log.append(("after", list(d)))
    m._register_state_dict_hook(lambda mod, d, prefix, meta: {"replaced": 1})
    log.append(m.state_dict())  # the root's private hook may replace the dict
    return log


def _load_hooks(lib):
    log = []
    m = net(lib)
    m.body.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, meta, strict, missing, unexpected, errors: log.append(
            ("body pre", mod is m.body, prefix, sorted(sd), strict)
        )
    )
    m.body._register_load_state_dict_pre_hook(
        lambda sd, prefix, *rest: log.append(("body private pre", prefix))
    )
    m.body.register_load_state_dict_post_hook(
        lambda mod, keys: log.append(
            ("body post", list(keys.missing_keys), list(keys.unexpected_keys))
        )
    )
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.unexpected_keys.clear())
    m.register_load_state_dict_post_hook(lambda mod, keys: log.append(("root post", str(keys))))
    d = net(lib).state_dict()
    d["bogus"] = lib.ones(1)
    del d["heads.0.bias"]
    try:
        m.load_state_dict(d)
    except RuntimeError as e:
        log.append(("error", str(e)))
    del d["bogus"]
    d["heads.0.bias"] = m.heads[0].bias
    log.append(("ok", str(m.load_state_dict(d))))
    return log


HOOKS = {"state_dict_hooks": _hooks, "load_state_dict_hooks": _load_hooks}


@pytest.mark.parametrize("fn", HOOKS.values(), ids=HOOKS.keys())
def test_hooks_as_torch(fn):
    compare(fn, exact=True)


# ----- between chainrule and PyTorch ------------------------------------------------------------


def _as_numpy(state: dict) -> dict:
    return {k: v.detach().numpy().copy() for k, v in state.items()}


def _from_numpy(lib, arrays: dict) -> dict:
    return {k: lib.tensor(a) for k, a in arrays.items()}


@pytest.mark.parametrize("direction", ["torch_to_chainrule", "chainrule_to_torch"])
def test_state_dict_round_trip_through_numpy(direction):
    """A model trained a step on one library loads into the same model on the other, which
    then computes the same outputs and gradients."""
    src_lib, dst_lib = (torch, cr) if direction == "torch_to_chainrule" else (cr, torch)
    src = net(src_lib)
    _double_params(src_lib, src)
    with src_lib.no_grad():
        src.steps.add_(3)
        src.body[0].count.add_(2)
    dst = net(dst_lib)
    result = dst.load_state_dict(_from_numpy(dst_lib, _as_numpy(src.state_dict())))
    assert str(result) == "<All keys matched successfully>"
    src_state, dst_state = _as_numpy(src.state_dict()), _as_numpy(dst.state_dict())
    assert list(src_state) == list(dst_state)
    for k in src_state:
        assert src_state[k].dtype == dst_state[k].dtype, k
        np.testing.assert_array_equal(src_state[k], dst_state[k], err_msg=k)
    x = arr(5, 2, seed=11)
    outs = []
    for lib, m in ((src_lib, src), (dst_lib, dst)):
        out = m(tensor(lib, x))
        out.sum().backward()
        outs.append((out.detach().numpy(), [p.grad.numpy() for p in m.parameters()]))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-5, atol=1e-6)
    for g0, g1 in zip(outs[0][1], outs[1][1], strict=True):
        np.testing.assert_allclose(g0, g1, rtol=1e-5, atol=1e-6)


def test_state_dict_keys_match_torch_models_of_the_same_layout():
    """The same architecture written once per library has the same keys, shapes and dtypes,
    so checkpoints translate key by key."""
    ours = entries(classes(cr).Net().state_dict())
    theirs = entries(classes(torch).Net().state_dict())
    assert ours == theirs


def test_consume_prefix_in_state_dict_if_present_as_torch():
    # a state dict saved from a model wrapped in DataParallel: every key under "module."
    def run(lib):
        from importlib import import_module

        utils = import_module(f"{lib.__name__}.nn.modules.utils")
        lib.manual_seed(0)
        wrapped = lib.nn.Sequential()
        wrapped.add_module("module", lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3)))
        sd = wrapped.state_dict()
        utils.consume_prefix_in_state_dict_if_present(sd, "module.")
        return list(sd.keys()), sorted(sd._metadata.keys()), [v.shape for v in sd.values()]

    compare(run)
