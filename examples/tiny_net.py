"""A two-layer network trained by plain gradient descent, written for PyTorch.

Runs under PyTorch (``python examples/tiny_net.py``) and, unchanged, under chainrule
(``chainrule run examples/tiny_net.py``). The random streams differ, so the numbers
do too, but in both the loss goes down.
"""

import torch

torch.manual_seed(0)

n, d_in, hidden, d_out = 64, 3, 16, 1
x = torch.randn(n, d_in)
target = torch.sin(x @ torch.randn(d_in, d_out))  # the function to learn

w1 = torch.randn(d_in, hidden, requires_grad=True)
b1 = torch.zeros(hidden, requires_grad=True)
w2 = torch.randn(hidden, d_out, requires_grad=True)
b2 = torch.zeros(d_out, requires_grad=True)
with torch.no_grad():  # scale the initial weights by 1/sqrt(fan_in)
    w1.mul_(d_in**-0.5)
    w2.mul_(hidden**-0.5)
params = [w1, b1, w2, b2]

lr = 0.1
steps = 300
for step in range(steps + 1):
    h = torch.relu(x @ w1 + b1)
    pred = h.mm(w2) + b2
    loss = ((pred - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad.zero_()
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
