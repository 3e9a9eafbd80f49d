"""The custom ``nn.Module`` step of "Learning PyTorch with Examples" (written for
``import torch``): a ``Polynomial3`` module with four scalar ``nn.Parameter``s, fit to
sin(x) with ``nn.MSELoss(reduction='sum')`` and ``torch.optim.SGD(lr=1e-6)``. Runs
unchanged with PyTorch and with ``chainrule run``."""

import math

import torch

torch.manual_seed(0)


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x**2 + self.d * x**3

    def string(self):
        return (
            f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3"
        )


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

model = Polynomial3()
print([name for name, _ in model.named_parameters()])
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
losses = []
for t in range(2000):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    losses.append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"Result: {model.string()}")
print("loss fell:", losses[-1] < losses[0], "fits:", losses[-1] < 50)
