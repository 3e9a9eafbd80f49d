"""A small model built from nn.Module layers, trained by plain gradient descent.

Written for PyTorch: runs under PyTorch (``python examples/tiny_model.py``) and, unchanged,
under chainrule (``chainrule run examples/tiny_model.py``). ``chainrule explain
examples/tiny_model.py`` shows its first backward calls step by step, each step named by
the module whose forward made it (``layers.0 (Dense)``) and each parameter by its
qualified name (``layers.0.weight``).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Dense(nn.Module):
    """x @ weight.T + bias, with weights scaled by 1/sqrt(fan_in)."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * n_in**-0.5)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class Act(nn.Module):
    def forward(self, x):
        return F.relu(x)


class Net(nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super().__init__()
        self.layers = nn.Sequential(Dense(d_in, hidden), Act(), Dense(hidden, d_out))

    def forward(self, x):
        return self.layers(x)


torch.manual_seed(0)
x = torch.randn(32, 3)
target = torch.sin(x.sum(dim=1, keepdim=True))  # the function to learn
model = Net(3, 8, 1)

lr = 0.1
for step in range(101):
    loss = ((model(x) - target) ** 2).mean()
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    if step % 25 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
