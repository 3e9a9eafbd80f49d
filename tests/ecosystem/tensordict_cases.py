"""The tensordict cases of test_tensordict.py, run once per side.

``python tensordict_cases.py OUT oracle`` runs every case on the real PyTorch, saving the
modules' weights to ``OUT/tensordict_weights.pt`` (and a memory-mapped TensorDict under
``OUT/td_memmap_oracle``) and the results to ``OUT/tensordict_oracle.npz``; ``chainrule
run tensordict_cases.py OUT chainrule`` loads those and writes
``OUT/tensordict_chainrule.npz``. Inputs are made with NumPy from seeds. A case that
raises records its error in ``OUT/tensordict_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys

import torch
from case_inputs import Weights, arr
from case_runner import Cases
from tensordict import LazyStackedTensorDict, TensorDict, tensorclass
from tensordict.nn import (
    InteractionType,
    NormalParamExtractor,
    ProbabilisticTensorDictModule,
    ProbabilisticTensorDictSequential,
    TensorDictModule,
    TensorDictSequential,
    set_interaction_type,
)

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/tensordict_weights.pt", ORACLE)
CASES = Cases(prefixed=True)
case, put, put_td, module = CASES.case, CASES.put, CASES.put_td, WEIGHTS.module


def sample_td(seed: int = 0) -> TensorDict:
    return TensorDict(
        {
            "obs": arr((4, 3), seed),
            "action": torch.arange(4),
            ("next", "obs"): arr((4, 3), seed + 1),
            ("next", "reward"): arr((4, 1), seed + 2, torch.float64),
            "done": torch.tensor([[False], [True], [False], [True]]),
        },
        batch_size=[4],
    )


@case
def construction_and_indexing() -> None:
    td = sample_td()
    put("repr_len", len(repr(td).splitlines()))
    put_td("td", td)
    put_td("int", td[1])
    put_td("slice", td[1:3])
    put_td("mask", td[td["done"].squeeze(-1)])
    put_td("index", td[torch.tensor([3, 0, 0])])
    put("nested_get", td["next", "obs"])
    put("nested_keys", [str(k) for k in td.keys(True, True)])
    put("contains", [("next", "obs") in td.keys(True), "reward" in td.keys()])
    sub = td.select("obs", ("next", "reward"))
    put_td("select", sub)
    put_td("exclude", td.exclude("obs", ("next", "obs")))
    put_td("flatten_keys", td.flatten_keys("."))
    put_td("unflatten", td.flatten_keys(".").unflatten_keys("."))
    put("numel", [td.numel(), td.ndim, len(td), td.is_empty()])


@case
def stack_cat_reshape() -> None:
    a, b = sample_td(0), sample_td(10)
    put_td("stack", torch.stack([a, b], 0))
    put_td("stack1", torch.stack([a, b], 1))
    put_td("cat", torch.cat([a, b], 0))
    lazy = LazyStackedTensorDict.lazy_stack([a, b], 0)
    put_td("lazy", lazy.contiguous())
    put("lazy_get", lazy["obs"])
    st = torch.stack([a, b], 0)
    put_td("reshape", st.reshape(-1))
    put_td("view", st.view(8))
    put_td("unsqueeze", a.unsqueeze(0))
    put_td("permute", st.permute(1, 0))
    put_td("transpose", st.transpose(0, 1))
    put_td("unbind1", st.unbind(1)[2])
    put_td("split", a.split([1, 3], 0)[1])
    put_td("expand", a[:1].expand(3))
    put_td("squeeze", a[:1].squeeze(0))
    put_td("flatten", st.flatten(0, 1))


@case
def apply_update_clone_to() -> None:
    td = sample_td()
    put_td("apply", td.apply(lambda x: x * 2))
    put_td("apply_two", td.apply(lambda x, y: x + y, sample_td(5)))
    put_td("named_apply", td.named_apply(lambda k, x: x + len(k), nested_keys=True))
    c = td.clone()
    c["obs"] += 1
    put("clone_independent", [bool((c["obs"] != td["obs"]).all())])
    c.update({"new": torch.ones(4, 2), ("next", "extra"): torch.zeros(4)})
    put_td("update", c)
    c.set_("obs", torch.zeros(4, 3))
    c.update_(TensorDict({"action": torch.full((4,), 7)}, [4]))
    put_td("set_", c)
    put_td("to_float64", td.to(torch.float64))
    put_td("float", td.float())
    d = td.clone()
    d.zero_()
    put_td("zero", d)
    put_td("where", td.where(td["done"].squeeze(-1), sample_td(3)))
    put_td("masked_fill", td.masked_fill(td["done"].squeeze(-1), 0))
    put("to_dict", sorted(td.to_dict().keys()))
    put_td("from_dict", TensorDict.from_dict(td.to_dict(), batch_size=[4]))
    put("items", [k for k, _ in td.items()])
    put("all_any", [bool(td.apply(lambda x: x == x).all()), bool(td.any())])


@case
def arithmetic_reductions() -> None:
    a = sample_td(0).exclude("action", "done")
    b = sample_td(20).exclude("action", "done")
    put_td("add", a + b)
    put_td("mul", a * 2)
    put_td("sub_td", a - b)
    put_td("abs", a.abs())
    put_td("exp", a.exp())
    put_td("sum", a.sum(dim=0))
    put_td("mean", a.mean(dim=0))
    put_td("std", a.std(dim=0))
    put_td("max", a.amax(dim=0))
    put_td("norm", a.norm())
    put_td("pow", a.pow(2))
    put_td("clamp", a.clamp(-0.5, 0.5))
    put_td("lerp", a.lerp(b, 0.25))


@case
def memmap_and_save() -> None:
    td = sample_td()
    prefix = f"{OUT}/td_memmap_{SIDE}"
    mm = td.memmap(prefix)
    put("is_memmap", [mm.is_memmap()])
    loaded = TensorDict.load_memmap(prefix)
    put_td("roundtrip", loaded)
    other = TensorDict.load_memmap(f"{OUT}/td_memmap_oracle")  # (the oracle's files)
    put_td("oracle_files", other)
    mm["obs"][0] = 5.0  # (writes through to the file)
    put_td("reloaded", TensorDict.load_memmap(prefix))
    path = f"{OUT}/td_save_{SIDE}"
    td.save(path)
    put_td("save_load", TensorDict.load(path))
    sd = td.state_dict()
    torch.save(sd, f"{OUT}/td_state_{SIDE}.pt")
    fresh = sample_td(50)
    fresh.load_state_dict(torch.load(f"{OUT}/td_state_oracle.pt"))
    put_td("state_dict", fresh)


@case
def functional_from_module() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.Sequential(
            torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2), torch.nn.LayerNorm(2)
        )

    model = module("functional", make)
    params = TensorDict.from_module(model)
    put("param_keys", [str(k) for k in params.keys(True, True)])
    x = arr((5, 3), 30)
    # the parameters as a TensorDict of new leaves, moved into the module for the call
    p2 = params.apply(lambda t: (t.detach() * 1.5).requires_grad_())
    with p2.to_module(model):
        out = model(x)
    (out * arr((5, 2), 31)).sum().backward()
    put("out", out)
    for key, value in p2.items(True, True):
        put(f"grad.{key}", value.grad)
    put("restored", model[0].weight)  # (the module's own weights are back)
    # TensorDictParams: the parameters as a module's Parameters
    from tensordict.nn import TensorDictParams

    tdp = TensorDictParams(params.clone())
    put("tdp_count", len(list(tdp.parameters())))
    stacked = torch.stack([params.data, params.data.apply(lambda t: t + 0.1)])
    outs = []
    for i in range(2):
        with stacked[i].to_module(model):
            outs.append(model(x))
    put("ensemble", torch.stack(outs))


@case
def vmap_over_tensordicts() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))

    model = module("vmap", make)
    params = TensorDict.from_module(model)
    stacked = torch.stack([params.data, params.data.apply(lambda t: t + 0.1)])
    stacked = stacked.requires_grad_()
    x = arr((5, 3), 35)

    def call(inp: torch.Tensor, p: TensorDict) -> torch.Tensor:
        with p.to_module(model):
            return model(inp)

    out = torch.vmap(call, (None, 0))(x, stacked)
    put("ensemble_out", out)
    (out * arr(tuple(out.shape), 36)).sum().backward()
    for key, value in stacked.items(True, True):
        put(f"ensemble_grad.{key}", value.grad)
    tdm = TensorDictModule(model, in_keys=["x"], out_keys=["y"])
    td = TensorDict({"x": arr((2, 5, 3), 37)}, [2, 5])
    res = torch.vmap(tdm, (0,))(td)
    put_td("module_over_td", res)
    put("reduce", torch.vmap(lambda t: t["x"].sum(-1), (0,))(td))


@case
def tensorclasses() -> None:
    @tensorclass
    class Batch:
        obs: torch.Tensor
        reward: torch.Tensor
        info: str

    b = Batch(obs=arr((4, 3), 40), reward=arr((4,), 41), info="x", batch_size=[4])
    put("obs", b.obs)
    put("index", b[1:3].reward)
    put("batch_size", list(b[0:2].batch_size))
    st = torch.stack([b, b], 0)
    put("stack", st.obs)
    put("stack_info", [str(st[0].info)])
    put("apply", b.apply(lambda x: x + 1).obs)
    put("to_td", sorted(b.to_tensordict().keys()))
    c = b.clone()
    c.obs = torch.zeros(4, 3)
    put("clone", [float(b.obs.abs().sum() > 0), float(c.obs.abs().sum())])
    put("cat", torch.cat([b, b], 0).reward)


@case
def nn_modules() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.ModuleDict(
            {
                "enc": torch.nn.Linear(3, 6),
                "head": torch.nn.Linear(6, 4),
            }
        )

    mods = module("nn", make)
    enc = TensorDictModule(mods["enc"], in_keys=["obs"], out_keys=["hidden"])
    act = TensorDictModule(torch.nn.ReLU(), in_keys=["hidden"], out_keys=["hidden"])
    head = TensorDictModule(mods["head"], in_keys=["hidden"], out_keys=[("out", "value")])
    seq = TensorDictSequential(enc, act, head)
    td = TensorDict({"obs": arr((5, 3), 60)}, [5])
    out = seq(td)
    put_td("seq", out)
    (out["out", "value"] * arr((5, 4), 61)).sum().backward()
    for name, p in mods.named_parameters():
        put(f"grad.{name}", p.grad)
    put("in_out_keys", [str(k) for k in [*seq.in_keys, *seq.out_keys]])
    sub = seq.select_subsequence(out_keys=["hidden"])
    put_td("subsequence", sub(TensorDict({"obs": arr((5, 3), 62)}, [5])))
    plain = seq(obs=arr((2, 3), 63))  # (keyword call: returns the outputs)
    put("kwargs_call.hidden", plain[0])
    put("kwargs_call.value", plain[1])


@case
def probabilistic_modules() -> None:
    def make() -> torch.nn.Module:
        return torch.nn.Linear(3, 4)

    net = module("prob", make)
    backbone = TensorDictModule(
        torch.nn.Sequential(net, NormalParamExtractor()),
        in_keys=["obs"],
        out_keys=["loc", "scale"],
    )
    prob = ProbabilisticTensorDictModule(
        in_keys=["loc", "scale"],
        out_keys=["action"],
        distribution_class=torch.distributions.Normal,
        return_log_prob=True,
        default_interaction_type=InteractionType.DETERMINISTIC,
    )
    policy = ProbabilisticTensorDictSequential(backbone, prob)
    td = TensorDict({"obs": arr((5, 3), 70)}, [5])
    with set_interaction_type(InteractionType.DETERMINISTIC):
        out = policy(td.clone())
    put_td("det", out)
    dist = policy.get_dist(td.clone())
    action = arr((5, 2), 71)
    lp = dist.log_prob(action)
    put("log_prob", lp)
    (lp.sum() + dist.entropy().sum()).backward()
    for name, p in net.named_parameters():
        put(f"grad.{name}", p.grad)
    with set_interaction_type(InteractionType.RANDOM):
        sampled = policy(td.clone())
    put("random_shape", list(sampled["action"].shape))
    put(
        "random_logp",
        torch.allclose(
            sampled["action_log_prob"],
            policy.get_dist(td.clone()).log_prob(sampled["action"]).detach(),
        ),
    )


CASES.run(f"{OUT}/tensordict_{SIDE}")
WEIGHTS.save()
