"""The recipe "Saving and loading a general checkpoint in PyTorch" (written for
``import torch``): train a small CNN for a few steps, save a dictionary of the epoch, the
model's and the optimizer's state_dicts and the loss with ``torch.save``, load it into
fresh objects with ``torch.load``, and resume training in ``model.train()`` mode (or
evaluate in ``model.eval()`` mode). Runs unchanged with PyTorch and ``chainrule run``."""

import os
import tempfile

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
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.dropout = nn.Dropout(0.1)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = self.dropout(F.relu(self.fc2(x)))
        return self.fc3(x)


inputs = torch.randn(16, 3, 32, 32)
labels = torch.randint(0, 10, (16,))
criterion = nn.CrossEntropyLoss()


def train(model, optimizer, steps):
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
    return loss


net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
loss = train(net, optimizer, 5)
EPOCH = 5

with tempfile.TemporaryDirectory() as tmp:
    PATH = os.path.join(tmp, "model.pt")
    torch.save(
        {
            "epoch": EPOCH,
            "model_state_dict": net.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "loss": loss,
        },
        PATH,
    )

    model = Net()
    optimizer2 = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    checkpoint = torch.load(PATH, weights_only=True)
    print(sorted(checkpoint))
    print(model.load_state_dict(checkpoint["model_state_dict"]))
    optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
    epoch = checkpoint["epoch"]
    loss = checkpoint["loss"]
    print(epoch, loss.shape, loss.dtype, loss.requires_grad)

model.eval()
print(model.training, model.dropout.training)
with torch.no_grad():
    same = torch.equal(model(inputs), net.eval()(inputs))
print("loaded model computes what the saved one does:", same)

model.train()
print(model.training, model.dropout.training)
state = optimizer2.state_dict()
print(len(state["state"]), sorted(state["state"][0]), state["param_groups"][0]["lr"])
first = criterion(model(inputs), labels).item()
last = train(model, optimizer2, 10).item()
print("resumed training lowers the loss:", last < first)
