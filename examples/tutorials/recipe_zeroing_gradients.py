"""The recipe "Zeroing out gradients in PyTorch" (written for ``import torch``): gradients
accumulate across ``backward()`` calls, so a training loop calls
``optimizer.zero_grad()`` (or ``net.zero_grad()``) before each one. Shown on the recipe's
CNN with synthetic 3x32x32 images instead of the CIFAR-10 download: the accumulation,
``set_to_none``, and the training loop with its running loss. Runs unchanged with
PyTorch and with ``chainrule run``."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

n = 240
labels = (torch.arange(n) * 7) % 10
grid = torch.linspace(0, 1, 32)
freq = torch.arange(1, 11).float().view(10, 1, 1, 1)
channel = torch.arange(3).float().view(1, 3, 1, 1)
patterns = torch.sin(freq * (grid.view(1, 1, 32, 1) + 2 * grid.view(1, 1, 1, 32)) + channel)
noise = torch.sin(torch.arange(n * 3 * 32 * 32).float() * 1.618).view(n, 3, 32, 32)
images = 2 * (patterns[labels] + 0.8 * noise) - 1
trainloader = DataLoader(TensorDataset(images, labels), batch_size=4, shuffle=True)


class Net(nn.Module):
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
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

# gradients add up: two backward passes without zeroing give twice the gradient
x, y = images[:4], labels[:4]
print(net.conv1.bias.grad)
criterion(net(x), y).backward()
once = net.conv1.bias.grad.clone()
criterion(net(x), y).backward()
print("accumulated:", torch.allclose(net.conv1.bias.grad, 2 * once))
net.zero_grad()
print(net.conv1.bias.grad)  # set_to_none=True is the default
criterion(net(x), y).backward()
optimizer.zero_grad(set_to_none=False)
print(net.conv1.bias.grad)

losses = []
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        # zero the parameter gradients
        optimizer.zero_grad()
        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 20 == 19:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 20:.3f}")
            losses.append(running_loss)
            running_loss = 0.0
print("Finished Training")
print("loss fell:", losses[-1] < losses[0])
