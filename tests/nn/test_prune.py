"""``nn.utils.prune`` side by side with PyTorch: the masks and pruned tensors of every
deterministic method on fixed weights (PyTorch's choice among tied scores included), the
reparameterization (``<name>_orig``, ``<name>_mask``, the forward pre-hook, state-dict
keys that load into PyTorch's pruned model and back), iterative pruning through a
``PruningContainer``, ``global_unstructured``, ``remove``, ``is_pruned``, gradients
reaching ``<name>_orig`` through the mask, the random methods by their counts and their
reproducibility under a seed, the argument errors, and the steps of PyTorch's pruning
tutorial run under the ``torch`` import hook."""

from __future__ import annotations

import contextlib
import copy
import io
import re

import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401 - PyTorch exposes the module only once imported

import chainrule as cr
from chainrule import _import_hook
from chainrule.nn.utils.prune import _topk_indices
from oracle import assert_same_error, compare

# ----- building the same layers on both libraries ------------------------------------------


def arr(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def ties(*shape: int, seed: int = 0, values: int = 5) -> np.ndarray:
    """Small integers of both signs: many equal |values| (ties for the L1 and Ln scores)."""
    r = np.random.default_rng(seed)
    return r.integers(-(values // 2), values // 2 + 1, shape).astype(np.float32)


def with_weights(lib, layer, weight: np.ndarray, bias: np.ndarray | None = None):
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(weight))
        if bias is not None:
            layer.bias.copy_(lib.tensor(bias))
    return layer


def linear(lib, n_in=4, n_out=3, seed=0, weight=None):
    w = arr(n_out, n_in, seed=seed) if weight is None else weight
    return with_weights(lib, lib.nn.Linear(n_in, n_out), w, arr(n_out, seed=seed + 1))


def conv(lib, c_in=3, c_out=4, k=2, seed=0, weight=None):
    w = arr(c_out, c_in, k, k, seed=seed) if weight is None else weight
    return with_weights(lib, lib.nn.Conv2d(c_in, c_out, k), w, arr(c_out, seed=seed + 1))


def state(module, name="weight") -> dict:
    """What pruning leaves on a module: its mask, tensor, names, hooks and state-dict keys."""
    return {
        "mask": getattr(module, name + "_mask"),
        "pruned": getattr(module, name),
        "parameters": [n for n, _ in module.named_parameters()],
        "buffers": [n for n, _ in module.named_buffers()],
        "state_dict": list(module.state_dict()),
        "hooks": [type(h).__name__ for h in module._forward_pre_hooks.values()],
    }


# ----- each method on fixed weights -------------------------------------------------------

# (id, layer, scenario(lib, module)): each prunes "weight" (or "bias") deterministically
METHODS = [
    ("l1-fraction", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=0.4)),
    ("l1-count", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=5)),
    ("l1-none", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=0)),
    ("l1-none-fraction", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=0.0)),
    ("l1-all", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=1.0)),
    ("l1-all-count", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=12)),
    ("l1-half-rounds-even", linear, lambda p, m: p.l1_unstructured(m, "weight", amount=0.125)),
    ("l1-conv", conv, lambda p, m: p.l1_unstructured(m, "weight", amount=0.3)),
    ("ln2-rows", linear, lambda p, m: p.ln_structured(m, "weight", amount=1, n=2, dim=0)),
    ("ln1-cols", linear, lambda p, m: p.ln_structured(m, "weight", amount=0.5, n=1, dim=1)),
    ("ln-inf", linear, lambda p, m: p.ln_structured(m, "weight", 2, float("inf"), -1)),
    ("ln-minus-inf", conv, lambda p, m: p.ln_structured(m, "weight", 0.3, float("-inf"), 1)),
    ("ln-fro", linear, lambda p, m: p.ln_structured(m, "weight", amount=2, n="fro", dim=1)),
    ("ln2-kernel-rows", conv, lambda p, m: p.ln_structured(m, "weight", amount=1, n=2, dim=2)),
    ("ln-3", conv, lambda p, m: p.ln_structured(m, "weight", amount=1, n=3, dim=-1)),
    ("ln-none", conv, lambda p, m: p.ln_structured(m, "weight", amount=0, n=2, dim=0)),
    ("ln-all", conv, lambda p, m: p.ln_structured(m, "weight", amount=1.0, n=2, dim=0)),
    ("identity", linear, lambda p, m: p.identity(m, "weight")),
    ("custom", linear, lambda p, m: p.custom_from_mask(m, "weight", mask=m.weight > 0)),
]


@pytest.mark.parametrize("case", METHODS, ids=[c[0] for c in METHODS])
def test_each_method_gives_torch_s_mask_and_pruned_weight(case):
    _, layer, prune_it = case

    def fn(lib):
        module = layer(lib)
        returned = prune_it(lib.nn.utils.prune, module)
        assert returned is module
        return state(module)

    compare(fn, exact=True)


def test_pruning_a_bias_and_a_custom_integer_mask():
    def fn(lib):
        m = linear(lib)
        lib.nn.utils.prune.l1_unstructured(m, "bias", amount=1)
        lib.nn.utils.prune.custom_from_mask(m, "weight", mask=lib.tensor([[0, 1, 1, 0]] * 3))
        return state(m, "bias"), state(m, "weight")

    compare(fn, exact=True)


def test_importance_scores_choose_what_is_pruned():
    scores = arr(3, 4, seed=9)

    def fn(lib):
        p = lib.nn.utils.prune
        a = p.l1_unstructured(linear(lib), "weight", 5, importance_scores=lib.tensor(scores))
        b = p.ln_structured(linear(lib), "weight", 1, 2, 0, importance_scores=lib.tensor(scores))
        return state(a), state(b)

    compare(fn, exact=True)


def test_the_methods_prune_a_tensor_directly():
    w, d = arr(3, 4, seed=2), (arr(3, 4, seed=3) > -0.5).astype(np.float32)

    def fn(lib):
        p, t, default = lib.nn.utils.prune, lib.tensor(w), lib.tensor(d)
        return {
            "l1": p.L1Unstructured(amount=4).prune(t),
            "l1-default": p.L1Unstructured(amount=3).prune(t, default_mask=default),
            "l1-scores": p.L1Unstructured(0.5).prune(
                t, importance_scores=lib.tensor(w[::-1].copy())
            ),
            "ln": p.LnStructured(amount=2, n=1, dim=1).prune(t),
            "identity": p.Identity().prune(t, default_mask=default),
            "custom": p.CustomFromMask(mask=lib.tensor(d)).prune(t),
            "l1-mask": p.L1Unstructured(amount=0.25).compute_mask(t, default),
        }

    compare(fn, exact=True)


# ----- ties: which of equal scores PyTorch prunes ------------------------------------------


@pytest.mark.parametrize("amount", [1, 7, 20, 37, 50, 0.5, 0.9])
@pytest.mark.parametrize("size", [(10, 10), (12, 40)], ids=["10x10", "12x40"])
def test_l1_among_equal_magnitudes_prunes_torch_s_entries(size, amount):
    # 1 of 480 entries takes PyTorch's partial_sort path (k * 64 <= n), the rest nth_element
    w = ties(*size, seed=sum(size))

    def pruned(lib):
        m = linear(lib, size[1], size[0], weight=w)
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=amount)
        return state(m)

    compare(pruned, exact=True)


@pytest.mark.parametrize("n", [1, 2, float("inf")], ids=["L1", "L2", "Linf"])
def test_ln_structured_among_equal_norms_prunes_torch_s_channels(n):
    # 8 output channels in pairs of equal norms (one the other's negation), and zero channels
    w = arr(4, 3, 2, 2, seed=4)
    w = np.concatenate([w, -w[::-1], np.zeros((4, 3, 2, 2), np.float32)])

    def fn(lib):
        m = conv(lib, c_out=12, weight=w)
        lib.nn.utils.prune.ln_structured(m, "weight", amount=5, n=n, dim=0)
        lib.nn.utils.prune.ln_structured(m, "weight", amount=3, n=n, dim=0)
        return state(m)

    compare(fn, exact=True)


@pytest.mark.parametrize("largest", [False, True], ids=["smallest", "largest"])
def test_the_tie_breaking_selection_is_torch_s_topk(largest):
    r = np.random.default_rng(0)
    for _ in range(200):
        n = int(r.choice([2, 3, 4, 5, 9, 17, 64, 65, 128, 200, 1000]))
        v = r.integers(0, int(r.integers(1, 5)), n).astype(np.float32)
        if r.random() < 0.2:
            v[r.random(n) < 0.2] = np.nan  # nan ranks above every number
        k = int(r.integers(0, n + 1))
        want = torch.topk(torch.tensor(v), k, largest=largest).indices.numpy()
        np.testing.assert_array_equal(_topk_indices(cr.tensor(v), k, largest), np.sort(want))


# ----- iterative pruning, global pruning, removal -------------------------------------------


def test_iterative_pruning_combines_masks_in_a_container():
    def fn(lib):
        p = lib.nn.utils.prune
        m = conv(lib, c_out=6)
        steps = []
        first = p.L1Unstructured.apply(m, "weight", amount=0.3)
        steps.append(state(m))
        container = p.LnStructured.apply(m, "weight", amount=2, n=2, dim=0)
        steps.append(state(m))
        p.l1_unstructured(m, "weight", amount=10)  # only unpruned entries are candidates
        steps.append(state(m))
        p.ln_structured(m, "weight", amount=0.5, n=1, dim=1)  # only unpruned channels
        steps.append(state(m))
        p.custom_from_mask(m, "weight", mask=lib.tensor(arr(6, 3, 2, 2, seed=5) > 0))
        steps.append(state(m))
        p.identity(m, "weight")
        steps.append(state(m))
        p.l1_unstructured(m, "bias", amount=2)  # a second tensor: a second hook
        steps.append(state(m, "bias"))
        hook = next(iter(m._forward_pre_hooks.values()))
        return {
            "steps": steps,
            "first_is_method": type(first).__name__,
            "container": type(container).__name__,
            "same_container": hook is container,
            "history": [type(x).__name__ for x in hook],
            "len": len(hook),
            "last": type(hook[-1]).__name__,
            "first_kept": hook[0] is first,
            "tensor_names": [x._tensor_name for x in hook],
            "output": m(lib.tensor(arr(1, 3, 4, 4, seed=6))),
        }

    compare(fn, exact=False)


def test_the_hook_recomputes_the_pruned_tensor_before_forward():
    def fn(lib):
        m = linear(lib)
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=6)
        with lib.no_grad():
            m.weight_orig.mul_(2)  # seen through the hook at the next forward
        before = m.weight.clone()
        out = m(lib.tensor(arr(2, 4, seed=3)))
        return before, m.weight, out

    compare(fn)


def test_global_unstructured_prunes_across_modules():
    def fn(lib):
        p = lib.nn.utils.prune
        net = lib.nn.Sequential(conv(lib, seed=1), lib.nn.Flatten(), linear(lib, 36, 5, seed=2))
        pairs = [(net[0], "weight"), (net[2], "weight"), (net[2], "bias")]
        p.global_unstructured(pairs, pruning_method=p.L1Unstructured, amount=0.4)
        first = [state(mod, name) for mod, name in pairs]
        scores = {(net[0], "weight"): lib.tensor(arr(4, 3, 2, 2, seed=7))}
        p.global_unstructured(pairs, p.L1Unstructured, importance_scores=scores, amount=25)
        second = [state(mod, name) for mod, name in pairs]
        zeros = sum(int((getattr(mod, name) == 0).sum()) for mod, name in pairs)
        return first, second, zeros, list(net.state_dict())

    compare(fn, exact=True)


def test_global_unstructured_with_a_random_method_keeps_torch_s_count():
    def fn(lib):
        p = lib.nn.utils.prune
        lib.manual_seed(0)
        mods = [linear(lib, 6, 5), linear(lib, 5, 4, seed=3)]
        p.global_unstructured([(m, "weight") for m in mods], p.RandomUnstructured, amount=0.35)
        return sum(int((m.weight_mask == 0).sum()) for m in mods)

    compare(fn)


def test_remove_makes_pruning_permanent():
    def fn(lib):
        p = lib.nn.utils.prune
        m = conv(lib)
        orig = m.weight
        p.l1_unstructured(m, "weight", amount=0.5)
        p.ln_structured(m, "weight", amount=1, n=2, dim=0)
        p.l1_unstructured(m, "bias", amount=1)
        assert p.remove(m, "weight") is m
        return {
            "weight": m.weight,
            "same_parameter": m.weight is orig,
            "is_parameter": isinstance(m.weight, lib.nn.Parameter),
            "parameters": [n for n, _ in m.named_parameters()],
            "buffers": [n for n, _ in m.named_buffers()],
            "state_dict": list(m.state_dict()),
            "hooks": [type(h).__name__ for h in m._forward_pre_hooks.values()],
            "pruned": p.is_pruned(m),
            "removed_bias": p.remove(m, "bias").bias,
            "pruned_after": p.is_pruned(m),
            "in_dict": "weight" in vars(m),
        }

    compare(fn, exact=True)


def test_is_pruned_looks_through_submodules():
    def fn(lib):
        p = lib.nn.utils.prune
        net = lib.nn.Sequential(linear(lib), lib.nn.Sequential(lib.nn.ReLU(), linear(lib, 3, 2)))
        answers = [p.is_pruned(net)]
        p.random_unstructured(net[1][1], "weight", amount=1)
        answers += [p.is_pruned(net), p.is_pruned(net[0]), p.is_pruned(net[1])]
        net[1][1].register_forward_pre_hook(lambda mod, args: None)  # not a pruning hook
        p.remove(net[1][1], "weight")
        answers.append(p.is_pruned(net))
        return answers

    compare(fn)


# ----- gradients and state dicts ------------------------------------------------------------


def test_gradients_reach_orig_through_the_mask():
    def fn(lib):
        p = lib.nn.utils.prune
        m = conv(lib)
        p.l1_unstructured(m, "weight", amount=0.4)
        p.ln_structured(m, "weight", amount=1, n=1, dim=0)
        p.random_unstructured(m, "bias", amount=0)
        out = m(lib.tensor(arr(2, 3, 4, 4, seed=8)))
        (out * lib.tensor(arr(*out.shape, seed=9))).sum().backward()
        return {
            "weight_orig": m.weight_orig.grad,
            "bias_orig": m.bias_orig.grad,
            "mask_requires_grad": m.weight_mask.requires_grad,
            "mask_grad": m.weight_mask.grad,
            "node": type(m.weight.grad_fn).__name__,
            "leaf": m.weight.is_leaf,
        }

    compare(fn, rtol=1e-5, atol=1e-6)


def _pruned_lenet(lib):
    p = lib.nn.utils.prune
    net = lib.nn.Sequential(conv(lib, 1, 3, 3, seed=1), lib.nn.Flatten(), linear(lib, 12, 4))
    p.l1_unstructured(net[0], "weight", amount=0.3)
    p.ln_structured(net[0], "weight", amount=1, n=2, dim=0)
    p.l1_unstructured(net[2], "weight", amount=20)
    return net


def test_a_pruned_state_dict_loads_into_torch_s_pruned_model_and_back():
    x = arr(2, 1, 4, 4, seed=3)
    ours = _pruned_lenet(cr)
    with cr.no_grad():
        ours[0].weight_orig.add_(1.0)
        ours[2].weight_mask.copy_(cr.tensor(arr(4, 12, seed=4) > 0))
    theirs = _pruned_lenet(torch)
    sd = ours.state_dict()
    assert list(sd) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in sd.items()})
    back = _pruned_lenet(cr)
    back.load_state_dict({k: cr.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    want = theirs(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(ours(cr.tensor(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(back(cr.tensor(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(
        back[2].weight.detach().numpy(), theirs[2].weight.detach().numpy()
    )


def test_a_pruned_float64_module():
    def fn(lib):
        p = lib.nn.utils.prune
        m = linear(lib).double()
        p.l1_unstructured(m, "weight", amount=4)
        p.custom_from_mask(m, "bias", mask=lib.tensor([True, False, True]))
        x = lib.tensor(arr(2, 4, seed=1).astype(np.float64))
        return state(m), state(m, "bias"), m(x)

    compare(fn, exact=True)


def test_a_pruned_module_refuses_deepcopy_as_torch_s():
    # its pruned tensor is a plain attribute computed from weight_orig: not a graph leaf
    def fn(lib):
        m = linear(lib)
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=4)
        copy.deepcopy(m)

    assert_same_error(fn)


# ----- the random methods: counts and seeds -------------------------------------------------


@pytest.mark.parametrize("amount", [0.3, 7, 0, 1.0])
def test_random_unstructured_prunes_torch_s_count_reproducibly(amount):
    def fn(lib):
        masks = []
        for _ in range(2):
            lib.manual_seed(5)
            m = conv(lib, c_out=6)
            lib.nn.utils.prune.random_unstructured(m, "weight", amount=amount)
            masks.append(m.weight_mask)
        lib.nn.utils.prune.random_unstructured(m, "weight", amount=0.5)  # of what is left
        return {
            "zeros": int((masks[0] == 0).sum()),
            "reproducible": bool(lib.equal(masks[0], masks[1])),
            "zeros_after": int((m.weight_mask == 0).sum()),
            "kept_old_zeros": bool(((masks[0] == 0) <= (m.weight_mask == 0)).all()),
            "values": lib.unique(m.weight_mask),
        }

    compare(fn)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_random_structured_prunes_whole_channels_reproducibly(dim):
    def fn(lib):
        masks = []
        for _ in range(2):
            lib.manual_seed(1)
            m = conv(lib, c_in=4, c_out=6, k=3)
            lib.nn.utils.prune.random_structured(m, "weight", amount=0.5, dim=dim)
            masks.append(m.weight_mask)
        lib.nn.utils.prune.random_structured(m, "weight", amount=1, dim=dim)
        others = [d for d in range(4) if d != dim % 4]
        per_channel = m.weight_mask.sum(dim=others)
        full = int(np.prod([m.weight_mask.shape[d] for d in others]))
        return {
            "reproducible": bool(lib.equal(masks[0], masks[1])),
            "zero_channels": int((masks[0].sum(dim=others) == 0).sum()),
            "zero_after": int((per_channel == 0).sum()),
            "whole": bool(((per_channel == 0) | (per_channel == full)).all()),
            "hooks": [type(h).__name__ for h in m._forward_pre_hooks.values()],
        }

    compare(fn)


# ----- errors ---------------------------------------------------------------------------------


def _prune(fn):
    """``fn(prune, layer)`` on a fresh Linear(4, 3)."""
    return lambda lib: fn(lib.nn.utils.prune, linear(lib))


EXACT_ERRORS = {
    "negative-count": _prune(lambda p, m: p.l1_unstructured(m, "weight", amount=-1)),
    "fraction-above-1": _prune(lambda p, m: p.random_unstructured(m, "weight", amount=1.5)),
    "fraction-below-0": _prune(lambda p, m: p.ln_structured(m, "weight", -0.1, 2, 0)),
    "string-amount": _prune(lambda p, m: p.l1_unstructured(m, "weight", amount="half")),
    "tensor-amount": _prune(lambda p, m: p.L1Unstructured(amount=torch.tensor(0.5))),
    "too-many": _prune(lambda p, m: p.l1_unstructured(m, "weight", amount=13)),
    "too-many-channels": _prune(lambda p, m: p.random_structured(m, "weight", 4, dim=0)),
    "structured-1d": _prune(lambda p, m: p.ln_structured(m, "bias", amount=1, n=2, dim=0)),
    "random-structured-1d": _prune(lambda p, m: p.random_structured(m, "bias", 1, dim=0)),
    "dim-too-large": _prune(lambda p, m: p.ln_structured(m, "weight", 1, n=2, dim=2)),
    "dim-too-small": _prune(lambda p, m: p.ln_structured(m, "weight", 1, n=2, dim=-3)),
    "dim-too-small-iterated": _prune(
        lambda p, m: p.ln_structured(p.identity(m, "weight"), "weight", 1, n=2, dim=-3)
    ),
    "no-such-tensor": _prune(lambda p, m: p.l1_unstructured(m, "kernel", amount=1)),
    "scores-shape": _prune(
        lambda p, m: p.l1_unstructured(m, "weight", 1, importance_scores=m.weight[0])
    ),
    "remove-unpruned": _prune(lambda p, m: p.remove(m, "weight")),
    "global-not-iterable": _prune(lambda p, m: p.global_unstructured(5, p.L1Unstructured)),
    "global-scores-not-dict": _prune(
        lambda p, m: p.global_unstructured([(m, "weight")], p.L1Unstructured, [], amount=1)
    ),
    "container-not-a-method": _prune(
        lambda p, m: p.PruningContainer(p.Identity()).add_pruning_method(3)
    ),
    "custom-mask-shape": _prune(lambda p, m: p.custom_from_mask(m, "weight", m.weight[:2] > 0)),
    "abstract-base": _prune(lambda p, m: p.BasePruningMethod()),
    "container-of-two-unnamed": _prune(lambda p, m: p.PruningContainer(p.Identity(), p.Identity())),
    "mask-before-apply": _prune(lambda p, m: unnamed(p).apply_mask(m)),
    "remove-before-apply": _prune(lambda p, m: unnamed(p).remove(m)),
    "custom-prune-shape": _prune(
        lambda p, m: p.Identity().prune(m.weight, importance_scores=m.bias)
    ),
}


def unnamed(p):
    method = p.L1Unstructured(amount=1)
    method._tensor_name = None
    return method


@pytest.mark.parametrize("case", list(EXACT_ERRORS))
def test_argument_errors_are_torch_s(case):
    assert_same_error(EXACT_ERRORS[case])


def test_errors_that_name_classes_keep_torch_s_words():
    def global_structured(lib):
        p = lib.nn.utils.prune
        return p.global_unstructured([(linear(lib), "weight")], p.RandomStructured, amount=1)

    def other_tensor(lib):
        p = lib.nn.utils.prune
        a, b = p.Identity(), p.Identity()
        a._tensor_name, b._tensor_name = "weight", "bias"
        p.PruningContainer(a).add_pruning_method(b)

    phrase = 'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method'
    assert_same_error(global_structured, phrase)
    assert_same_error(global_structured, "of type structured")
    assert_same_error(other_tensor, "Can only add pruning methods acting on the parameter named")
    assert_same_error(other_tensor, ". Found 'bias'")


def test_a_failed_pruning_leaves_the_parameter_in_place():
    def fn(lib):
        p = lib.nn.utils.prune
        m = linear(lib)
        with pytest.raises(ValueError):
            p.l1_unstructured(m, "weight", amount=20)
        first = state_of_names(m)
        p.l1_unstructured(m, "weight", amount=2)
        with pytest.raises(ValueError):  # the earlier hook is dropped, as in PyTorch
            p.l1_unstructured(m, "weight", amount=-2)
        return first, state_of_names(m), p.is_pruned(m)

    compare(fn)


def state_of_names(m) -> dict:
    return {
        "parameters": [n for n, _ in m.named_parameters()],
        "buffers": [n for n, _ in m.named_buffers()],
        "hooks": len(m._forward_pre_hooks),
        "attribute": "weight" in vars(m),
    }


# ----- a pruning method of one's own ------------------------------------------------------


def test_a_subclass_defines_a_method_by_its_mask():
    def fn(lib):
        p = lib.nn.utils.prune

        class EveryOther(p.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        m = linear(lib)
        EveryOther.apply(m, "bias")
        p.l1_unstructured(m, "weight", amount=3)
        EveryOther.apply(m, "weight")  # on the 9 entries still there
        return state(m, "bias"), state(m, "weight")

    compare(fn, exact=True)


@pytest.mark.parametrize("kind", ["structured", "sideways"])
def test_a_container_checks_its_latest_method_s_type(kind):
    def fn(lib):
        p = lib.nn.utils.prune

        class Odd(p.BasePruningMethod):
            PRUNING_TYPE = kind

            def compute_mask(self, t, default_mask):
                return default_mask

        m = linear(lib)
        p.identity(m, "weight")
        Odd.apply(m, "weight")

    assert_same_error(fn)


# ----- PyTorch's pruning tutorial, unchanged, under the import hook ---------------------------

TUTORIAL = """
import torch
from torch import nn
import torch.nn.utils.prune as prune
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


model = LeNet().to(device=device)
module = model.conv1
print(list(module.named_parameters()))
print(list(module.named_buffers()))
prune.random_unstructured(module, name="weight", amount=0.3)
print(list(module.named_parameters()))
print(list(module.named_buffers()))
print(module.weight)
print(module._forward_pre_hooks)
prune.l1_unstructured(module, name="bias", amount=3)
print(list(module.named_parameters()))
print(list(module.named_buffers()))
print(module.bias)
print(module._forward_pre_hooks)
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight)
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(list(hook))
print(model.state_dict().keys())
prune.remove(module, "weight")
print(list(module.named_parameters()))
print(list(module.named_buffers()))

new_model = LeNet()
for name, module in new_model.named_modules():
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name="weight", amount=0.2)
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())

model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
for layer in [model.conv1, model.conv2, model.fc1, model.fc2, model.fc3]:
    print("Sparsity: {:.2f}%".format(
        100.0 * float(torch.sum(layer.weight == 0)) / float(layer.weight.nelement())))
total = sum(float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune)
size = sum(float(m.weight.nelement()) for m, _ in parameters_to_prune)
print("Global sparsity: {:.2f}%".format(100.0 * total / size))
print(model(torch.randn(1, 1, 28, 28)).shape)


class FooBarPruningMethod(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)
"""


def _printed(with_chainrule: bool) -> str:
    out = io.StringIO()
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(out):
        if with_chainrule:
            with _import_hook.installed():
                exec(compile(TUTORIAL, "tutorial.py", "exec"), namespace)
        else:
            exec(compile(TUTORIAL, "tutorial.py", "exec"), namespace)
    return out.getvalue()


FLOAT = re.compile(r"(?<![\w.])-?(?:\d+\.\d*(?:e[+-]?\d+)?|\.\d+)")


def _normalized(text: str) -> str:
    """Floats as F (the random weights differ), addresses and hook ids masked, and
    chainrule's module path for the methods' classes read as PyTorch's."""
    text = text.replace("chainrule.nn.utils.prune.", "torch.nn.utils.prune.")
    text = re.sub(r"0x[0-9a-fA-F]+", "0x", text)
    text = re.sub(r"\d+(: <torch)", r"N\1", text)
    text = re.sub(r"\(\d+, <torch", "(N, <torch", text)
    text = FLOAT.sub("F", text)
    return re.sub(r"([\[(]) ", r"\1", " ".join(text.split()))


def test_the_pruning_tutorial_runs_unchanged_and_prints_what_torch_prints():
    theirs, ours = _printed(False), _printed(True)
    assert "Global sparsity: 20.00%" in theirs
    assert "Global sparsity: 20.00%" in ours
    assert _normalized(ours) == _normalized(theirs)
