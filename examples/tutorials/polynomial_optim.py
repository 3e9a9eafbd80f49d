"""The optim step of "Learning PyTorch with Examples" (written for ``import torch``): fit a
third-order polynomial to sin(x) with ``nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))``,
``nn.MSELoss(reduction='sum')`` and ``torch.optim.RMSprop``: ``optimizer.zero_grad()``,
``loss.backward()``, ``optimizer.step()``. Runs unchanged with PyTorch and with
``chainrule run``."""

import math

import torch

torch.manual_seed(0)

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")

learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
print(optimizer)
losses = []
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

linear_layer = model[0]
print(
    f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
    f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3"
)
print("loss fell below a tenth:", losses[-1] < losses[0] / 10, "fits:", losses[-1] < 50)
print(sorted(optimizer.state[linear_layer.weight]))
