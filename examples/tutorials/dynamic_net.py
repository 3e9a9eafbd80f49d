"""The control-flow and weight-sharing step of "Learning PyTorch with Examples" (written
for ``import torch``): a ``DynamicNet`` whose forward pass adds a random number (0 to 2)
of extra powers reusing one parameter, fit to sin(x) with ``torch.optim.SGD`` with
momentum (fewer steps than the tutorial's 30,000). Runs unchanged with PyTorch and with
``chainrule run``."""

import math
import random

import torch

torch.manual_seed(0)
random.seed(0)


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x**2 + self.d * x**3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x**exp
        return y

    def string(self):
        return (
            f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
            f"{self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?"
        )


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

model = DynamicNet()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
losses = []
for t in range(3000):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    losses.append(loss.item())
    if t % 500 == 499:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"Result: {model.string()}")
print("loss fell:", sum(losses[-100:]) < sum(losses[:100]))
print(sorted(optimizer.state_dict()["param_groups"][0]))
