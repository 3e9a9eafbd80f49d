"""torchrl runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: gymnasium environments (CartPole-v1, Pendulum-v1 with transforms) rolled out
with fixed policies under fixed seeds, ``check_env_specs``, replay buffers (lazy tensor,
memory-mapped and list storages, sampling with and without replacement), the DQN, DDPG,
clipped PPO (with GAE), A2C and REINFORCE losses and their gradients, DQN training steps
with Adam and a soft target update, the TD(0), TD(λ) and GAE value estimators, and a
``Collector`` gathering frames (torchrl_cases.py). torchrl's C++ extension (the segment
trees of prioritized replay) is linked against libtorch and does not load under
chainrule; torchrl reports it as unavailable."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from two_sides import both_sides, check_case, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "torchrl", "gymnasium")):
    pytest.skip("needs the real torch, torchrl and gymnasium (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("torchrl_cases.py")

# every case of torchrl_cases.py (the test checks the script runs exactly these)
CASES = [
    "gym_rollouts",
    "replay_buffers",
    "dqn_loss",
    "dqn_training_steps",
    "env_checks_and_transforms",
    "ddpg_loss",
    "ppo_loss_with_gae",
    "a2c_and_reinforce_losses",
    "value_estimators",
    "collector",
]
# results after several optimizer steps: float32 rounding grows with each step
TRAINING = {"dqn_training_steps"}


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("torchrl")
    return both_sides(SCRIPT, "torchrl", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, case in TRAINING)
