"""The recipe "What is a state_dict in PyTorch" (written for ``import torch``): a small
CNN's ``state_dict`` (each parameter's and buffer's name and size) and an SGD
optimizer's ``state_dict`` (its state and param_groups with every hyperparameter), before
and after one step. Runs unchanged with PyTorch and with ``chainrule run``."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.bn = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.bn(self.conv2(x))))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
print(net)

optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())

print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

# one step fills the optimizer's state with a momentum buffer per parameter
loss = net(torch.randn(4, 3, 32, 32)).sum()
loss.backward()
optimizer.step()
state = optimizer.state_dict()
print(sorted(state["state"]))
print({k: sorted(v) for k, v in state["state"].items()}[0])
print(state["state"][0]["momentum_buffer"].shape, state["param_groups"][0]["params"])
print(type(net.state_dict()).__name__, list(net.state_dict())[:3])
