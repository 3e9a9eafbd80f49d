"""The steps of PyTorch's ``examples/reinforcement_learning`` (``reinforce.py`` and
``actor_critic.py``, written for ``import torch`` and gymnasium) on ``CartPole-v1``:
REINFORCE with a policy network (``Linear``, ``Dropout``, ``softmax``) whose actions are
sampled from ``distributions.Categorical`` and whose ``log_prob`` are kept per episode,
returns discounted and normalised (``np.finfo(np.float32).eps``) and the policy loss
``-log_prob * R`` summed with ``torch.cat``; and actor-critic with a shared layer, an
action head and a value head, ``SavedAction`` named tuples, and the loss of the policy
term plus ``smooth_l1_loss`` of the values, stacked with ``torch.stack``; both trained
with ``Adam`` and a running reward. Runs unchanged with PyTorch and with ``chainrule
run``.

What differs from the example: no argument parser; a fixed number of episodes (12 per
method, at most 60 steps each) where the example runs until the task is solved, since
the episode lengths depend on each library's random stream; the rewards are printed as
floats and the episode lengths are not printed."""

from collections import namedtuple

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

gamma = 0.99
seed = 543
log_interval = 4
episodes = 12
max_steps = 60

env = gym.make("CartPole-v1")
env.reset(seed=seed)
torch.manual_seed(seed)


# reinforce.py
class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)

        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss


running_reward = 10
for i_episode in range(1, episodes + 1):
    state, _ = env.reset()
    ep_reward = 0
    for _ in range(1, max_steps):
        action = select_action(state)
        state, reward, done, _, _ = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break

    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    if i_episode % log_interval == 0:
        print(f"Episode {i_episode}\tRunning reward: {running_reward:.2f}")
        print(loss.shape, loss.requires_grad, policy.rewards, policy.saved_log_probs)
print(running_reward > env.spec.reward_threshold)

# actor_critic.py
SavedAction = namedtuple("SavedAction", ["log_prob", "value"])


class ActorCritic(nn.Module):
    """implements both actor and critic in one model"""

    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)

        # actor's layer
        self.action_head = nn.Linear(128, 2)

        # critic's layer
        self.value_head = nn.Linear(128, 1)

        # action & reward buffer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        """forward of both actor and critic"""
        x = F.relu(self.affine1(x))

        # actor: choses action to take from state s_t
        # by returning probability of each action
        action_prob = F.softmax(self.action_head(x), dim=-1)

        # critic: evaluates being in the state s_t
        state_values = self.value_head(x)

        # return values for both actor and critic as a tuple of 2 values:
        # 1. a list with the probability of each action over the action space
        # 2. the value from state s_t
        return action_prob, state_values


model = ActorCritic()
optimizer = optim.Adam(model.parameters(), lr=3e-2)


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)

    # create a categorical distribution over the list of probabilities of actions
    m = Categorical(probs)

    # and sample an action using the distribution
    action = m.sample()

    # save to action buffer
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))

    # the action to take (left or right)
    return action.item()


def finish_episode():
    """Training code. Calculates actor and critic loss and performs backprop."""
    R = 0
    saved_actions = model.saved_actions
    policy_losses = []  # list to save actor (policy) loss
    value_losses = []  # list to save critic (value) loss
    returns = []  # list to save the true values

    # calculate the true value using rewards returned from the environment
    for r in model.rewards[::-1]:
        # calculate the discounted value
        R = r + gamma * R
        returns.insert(0, R)

    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)

    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()

        # calculate actor (policy) loss
        policy_losses.append(-log_prob * advantage)

        # calculate critic (value) loss using L1 smooth loss
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))

    # reset gradients
    optimizer.zero_grad()

    # sum up all the values of policy_losses and value_losses
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()

    # perform backprop
    loss.backward()
    optimizer.step()

    # reset rewards and action buffer
    del model.rewards[:]
    del model.saved_actions[:]
    return loss


running_reward = 10
for i_episode in range(1, episodes + 1):
    state, _ = env.reset()
    ep_reward = 0
    for _ in range(1, max_steps):
        action = select_action(state)
        state, reward, done, _, _ = env.step(action)
        model.rewards.append(reward)
        ep_reward += reward
        if done:
            break

    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    if i_episode % log_interval == 0:
        print(
            f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}"
        )
        print(loss.shape, loss.grad_fn is not None)
print(running_reward > env.spec.reward_threshold)
env.close()
