"""The torchrl cases of test_torchrl.py, run once per side.

``python torchrl_cases.py OUT oracle`` runs every case on the real PyTorch, saving the
networks' weights to ``OUT/torchrl_weights.pt`` and the results to
``OUT/torchrl_oracle.npz``; ``chainrule run torchrl_cases.py OUT chainrule`` loads those
weights and writes ``OUT/torchrl_chainrule.npz``. Environments are gymnasium's, seeded;
policies are fixed (deterministic) and batches are made with NumPy from seeds, so both
sides see the same data. A case that raises records its error in
``OUT/torchrl_<side>_errors.json`` instead of results.
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from case_inputs import Weights, arr
from case_runner import Cases
from tensordict import TensorDict
from tensordict.nn import NormalParamExtractor, TensorDictModule
from torchrl.collectors import Collector
from torchrl.data import (
    LazyMemmapStorage,
    LazyTensorStorage,
    ListStorage,
    ReplayBuffer,
    TensorDictReplayBuffer,
)
from torchrl.data.replay_buffers import SamplerWithoutReplacement
from torchrl.envs import (
    Compose,
    DoubleToFloat,
    GymEnv,
    RewardSum,
    StepCounter,
    TransformedEnv,
)
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type
from torchrl.modules import MLP, ProbabilisticActor, QValueActor, ValueOperator
from torchrl.objectives import (
    A2CLoss,
    ClipPPOLoss,
    DDPGLoss,
    DQNLoss,
    ReinforceLoss,
    SoftUpdate,
)
from torchrl.objectives.value import GAE, TD0Estimator, TDLambdaEstimator

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/torchrl_weights.pt", ORACLE)
CASES = Cases(prefixed=True)
case, put, put_td, module = CASES.case, CASES.put, CASES.put_td, WEIGHTS.module


def put_grads(name: str, mod: torch.nn.Module) -> None:
    for pname, p in mod.named_parameters():
        put(f"{name}.grad.{pname}", p.grad if p.grad is not None else torch.zeros(()))


def transitions(n: int, obs_dim: int, seed: int) -> TensorDict:
    """A batch of ``n`` transitions with ``obs_dim`` observations (NumPy from ``seed``)."""
    rng = np.random.default_rng(seed)
    done = torch.tensor(rng.random((n, 1)) < 0.2)
    return TensorDict(
        {
            "observation": arr((n, obs_dim), seed + 1),
            "done": done.clone(),
            "terminated": done.clone(),
            "next": {
                "observation": arr((n, obs_dim), seed + 2),
                "reward": arr((n, 1), seed + 3),
                "done": done,
                "terminated": done.clone(),
            },
        },
        batch_size=[n],
    )


def cartpole_policy(td: TensorDict) -> TensorDict:
    """Push the cart toward the side the pole leans to (one-hot action)."""
    lean = td["observation"][..., 2:3] + 0.5 * td["observation"][..., 3:4]
    td["action"] = torch.cat([(lean <= 0).long(), (lean > 0).long()], -1)
    return td


@case
def gym_rollouts() -> None:
    env = GymEnv("CartPole-v1")
    env.set_seed(0)
    put("specs", [str(env.action_spec.shape), str(env.observation_spec["observation"].shape)])
    roll = env.rollout(30, cartpole_policy)
    put_td("cartpole", roll)
    env.set_seed(3)
    put_td("cartpole_break", env.rollout(200, cartpole_policy, break_when_any_done=True))
    pend = TransformedEnv(GymEnv("Pendulum-v1"), Compose(DoubleToFloat(), StepCounter()))
    pend.set_seed(1)
    actions = iter(torch.linspace(-2, 2, 12).reshape(12, 1))

    def fixed(td: TensorDict) -> TensorDict:
        td["action"] = next(actions)
        return td

    put_td("pendulum", pend.rollout(12, fixed))
    put("rand_action_in_spec", [bool(env.action_spec.is_in(env.action_spec.rand()))])
    env.close()
    pend.close()


@case
def replay_buffers() -> None:
    data = transitions(20, 3, 10)
    rb = ReplayBuffer(storage=LazyTensorStorage(50), batch_size=8)
    rb.extend(data)
    put("len", [len(rb)])
    put_td("storage", rb[:])
    sample = rb.sample()
    put("sample_shape", list(sample.batch_size))
    rows = data["observation"]
    put(
        "sample_rows_stored",
        [bool((sample["observation"][:, None] == rows[None]).all(-1).any(-1).all())],
    )
    rb2 = TensorDictReplayBuffer(
        storage=LazyMemmapStorage(12, scratch_dir=f"{OUT}/rb_{SIDE}"),
        sampler=SamplerWithoutReplacement(),
        batch_size=4,
    )
    rb2.extend(data)  # (more than it holds: a ring buffer keeps the last 12)
    put("ring_len", [len(rb2)])
    put_td("ring", rb2[:])
    seen = torch.cat([rb2.sample()["index"] for _ in range(3)])
    put("without_replacement", sorted(seen.tolist()))
    lst = ReplayBuffer(storage=ListStorage(10), batch_size=3)
    lst.extend([torch.tensor(float(i)) for i in range(5)])
    put("list_len", [len(lst)])
    put("list_sample_shape", list(torch.stack(list(lst.sample())).shape))


@case
def dqn_loss() -> None:
    def make() -> torch.nn.Module:
        return MLP(in_features=4, out_features=2, num_cells=[16, 16])

    net = module("dqn", make)
    actor = QValueActor(net, in_keys=["observation"], action_space="one-hot")
    loss_fn = DQNLoss(actor, action_space="one-hot", delay_value=True)
    loss_fn.make_value_estimator(gamma=0.9)
    data = transitions(16, 4, 20)
    idx = torch.tensor(np.random.default_rng(21).integers(0, 2, 16))
    data["action"] = torch.nn.functional.one_hot(idx, 2)
    out = loss_fn(data)
    put_td("out", out.detach())
    out["loss"].backward()
    put_grads("dqn", net)
    with set_exploration_type(ExplorationType.DETERMINISTIC):
        acted = actor(transitions(5, 4, 22))
    put("greedy_action", acted["action"])
    put("action_value", acted["action_value"])


@case
def dqn_training_steps() -> None:
    def make() -> torch.nn.Module:
        return MLP(in_features=4, out_features=2, num_cells=[8])

    net = module("dqn_train", make)
    actor = QValueActor(net, in_keys=["observation"], action_space="one-hot")
    loss_fn = DQNLoss(actor, action_space="one-hot", delay_value=True)
    loss_fn.make_value_estimator(gamma=0.9)
    updater = SoftUpdate(loss_fn, eps=0.8)
    opt = torch.optim.Adam(loss_fn.parameters(), lr=0.01)
    data = transitions(16, 4, 25)
    idx = torch.tensor(np.random.default_rng(26).integers(0, 2, 16))
    data["action"] = torch.nn.functional.one_hot(idx, 2)
    losses = []
    for _ in range(4):
        loss = loss_fn(data.clone())["loss"]
        opt.zero_grad()
        loss.backward()
        opt.step()
        updater.step()
        losses.append(loss.item())
    put("losses", losses)
    for key, value in loss_fn.value_network_params.items(True, True):
        put(f"params.{key}", value)
    for key, value in loss_fn.target_value_network_params.items(True, True):
        put(f"target.{key}", value)


@case
def env_checks_and_transforms() -> None:
    env = TransformedEnv(
        GymEnv("Pendulum-v1"),
        Compose(DoubleToFloat(), StepCounter(max_steps=5), RewardSum()),
    )
    check_env_specs(env, seed=0)
    put("checked", [True])
    env.set_seed(2)
    roll = env.rollout(
        8, lambda td: td.set("action", torch.full((1,), -1.0)), break_when_any_done=False
    )
    put_td("rollout", roll)
    put("spec_keys", sorted(str(k) for k in env.observation_spec.keys(True, True)))
    env.close()


@case
def ddpg_loss() -> None:
    def make_actor() -> torch.nn.Module:
        return torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))

    def make_critic() -> torch.nn.Module:
        return MLP(in_features=4, out_features=1, num_cells=[16])

    anet, cnet = module("ddpg_actor", make_actor), module("ddpg_critic", make_critic)
    actor = TensorDictModule(
        torch.nn.Sequential(anet, torch.nn.Tanh()), in_keys=["observation"], out_keys=["action"]
    )
    critic = ValueOperator(cnet, in_keys=["observation", "action"])
    loss_fn = DDPGLoss(actor, critic, delay_actor=True, delay_value=True)
    loss_fn.make_value_estimator(gamma=0.95)
    data = transitions(12, 3, 30)
    data["action"] = arr((12, 1), 31).tanh()
    out = loss_fn(data)
    put_td("out", out.detach())
    (out["loss_actor"] + out["loss_value"]).backward()
    put_grads("actor", anet)
    put_grads("critic", cnet)


@case
def ppo_loss_with_gae() -> None:
    def make_policy() -> torch.nn.Module:
        return MLP(in_features=3, out_features=2, num_cells=[16])

    def make_value() -> torch.nn.Module:
        return MLP(in_features=3, out_features=1, num_cells=[16])

    pnet, vnet = module("ppo_policy", make_policy), module("ppo_value", make_value)
    policy = ProbabilisticActor(
        TensorDictModule(
            torch.nn.Sequential(pnet, NormalParamExtractor()),
            in_keys=["observation"],
            out_keys=["loc", "scale"],
        ),
        in_keys=["loc", "scale"],
        distribution_class=torch.distributions.Normal,
        return_log_prob=True,
    )
    value = ValueOperator(vnet, in_keys=["observation"])
    gae = GAE(gamma=0.99, lmbda=0.95, value_network=value, average_gae=False)
    loss_fn = ClipPPOLoss(policy, value, clip_epsilon=0.2, entropy_coeff=0.01)
    data = transitions(10, 3, 40)
    data["action"] = arr((10, 1), 41)
    data["sample_log_prob"] = arr((10,), 42) * 0.1 - 1.0
    data["action_log_prob"] = data["sample_log_prob"].clone()
    with torch.no_grad():
        gae(data)
    put("advantage", data["advantage"])
    put("value_target", data["value_target"])
    out = loss_fn(data)
    put_td("out", out.detach())
    total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
    total.backward()
    put_grads("policy", pnet)
    put_grads("value", vnet)


@case
def a2c_and_reinforce_losses() -> None:
    def make_policy() -> torch.nn.Module:
        return MLP(in_features=3, out_features=2, num_cells=[8])

    def make_value() -> torch.nn.Module:
        return MLP(in_features=3, out_features=1, num_cells=[8])

    pnet, vnet = module("a2c_policy", make_policy), module("a2c_value", make_value)
    policy = ProbabilisticActor(
        TensorDictModule(
            torch.nn.Sequential(pnet, NormalParamExtractor()),
            in_keys=["observation"],
            out_keys=["loc", "scale"],
        ),
        in_keys=["loc", "scale"],
        distribution_class=torch.distributions.Normal,
        return_log_prob=True,
    )
    value = ValueOperator(vnet, in_keys=["observation"])
    data = transitions(8, 3, 45)
    data["action"] = arr((8, 1), 46)
    for name, loss_fn in (
        ("a2c", A2CLoss(policy, value)),
        ("reinforce", ReinforceLoss(policy, value)),
    ):
        loss_fn.make_value_estimator(gamma=0.9)
        pnet.zero_grad()
        vnet.zero_grad()
        out = loss_fn(data.clone())
        put_td(f"{name}.out", out.detach())
        sum(v for k, v in out.items() if k.startswith("loss_")).backward()
        put_grads(f"{name}.policy", pnet)
        put_grads(f"{name}.value", vnet)


@case
def value_estimators() -> None:
    def make() -> torch.nn.Module:
        return MLP(in_features=3, out_features=1, num_cells=[8])

    value = ValueOperator(module("estimators", make), in_keys=["observation"])
    data = transitions(9, 3, 50).unsqueeze(0)  # (a batch of one trajectory of 9 steps)
    for name, est in (
        ("td0", TD0Estimator(gamma=0.9, value_network=value)),
        ("tdlambda", TDLambdaEstimator(gamma=0.9, lmbda=0.8, value_network=value)),
        ("gae", GAE(gamma=0.9, lmbda=0.8, value_network=value)),
    ):
        with torch.no_grad():
            out = est(data.clone())
        put(f"{name}.advantage", out["advantage"])
        put(f"{name}.value_target", out["value_target"])


@case
def collector() -> None:
    env = GymEnv("CartPole-v1")
    env.set_seed(5)
    frames = []
    coll = Collector(
        env,
        TensorDictModule(
            lambda obs: torch.nn.functional.one_hot(
                ((obs[..., 2] + 0.5 * obs[..., 3]) > 0).long(), 2
            ),
            in_keys=["observation"],
            out_keys=["action"],
        ),
        frames_per_batch=16,
        total_frames=48,
    )
    for i, batch in enumerate(coll):
        frames.append(batch.numel())
        put_td(f"batch{i}", batch.exclude("collector"))
        put(f"batch{i}.traj_ids", batch["collector", "traj_ids"])
    coll.shutdown()
    put("frames", frames)


CASES.run(f"{OUT}/torchrl_{SIDE}")
WEIGHTS.save()
