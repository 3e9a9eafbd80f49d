"""The recipe "Warmstarting model using parameters from a different model in PyTorch"
(written for ``import torch``): save network A's state_dict and load it into network B,
which has a layer more and a layer less, with ``load_state_dict(strict=False)``; the
result names the missing and the unexpected keys. Runs unchanged with PyTorch and with
``chainrule run``."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class NetA(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class NetB(nn.Module):
    """NetA's layers up to fc2, then a new head: fc3 is gone, fc4 is new."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc4 = nn.Linear(84, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc4(x)


netA = NetA()
buffer = io.BytesIO()
torch.save(netA.state_dict(), buffer)
buffer.seek(0)

netB = NetB()
result = netB.load_state_dict(torch.load(buffer, weights_only=True), strict=False)
print(result)
print(result.missing_keys, result.unexpected_keys)
print(torch.equal(netB.conv1.weight, netA.conv1.weight), torch.equal(netB.fc2.bias, netA.fc2.bias))

try:
    netB.load_state_dict(netA.state_dict())
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])

# renaming keys to load into a layer of another name, as the recipe suggests
renamed = {k.replace("fc3", "fc4"): v for k, v in netA.state_dict().items()}
try:
    netB.load_state_dict(renamed)
except RuntimeError as e:
    print(str(e).splitlines()[0])
    print(" ".join(str(e).split()[-12:]))
print(netB(torch.randn(1, 3, 32, 32)).shape)
