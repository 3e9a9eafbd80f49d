"""The recipe "Saving and loading multiple models in one file using PyTorch" (written for
``import torch``): two networks and their optimizers saved in one dictionary with
``torch.save`` and loaded back into fresh ones. Runs unchanged with PyTorch and with
``chainrule run``."""

import io

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
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


netA = Net()
netB = Net()
optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.Adam(netB.parameters(), lr=0.001)

x = torch.randn(2, 3, 32, 32)
for net, opt in ((netA, optimizerA), (netB, optimizerB)):
    opt.zero_grad()
    net(x).pow(2).mean().backward()
    opt.step()

buffer = io.BytesIO()  # a file object works as a path does
torch.save(
    {
        "modelA_state_dict": netA.state_dict(),
        "modelB_state_dict": netB.state_dict(),
        "optimizerA_state_dict": optimizerA.state_dict(),
        "optimizerB_state_dict": optimizerB.state_dict(),
    },
    buffer,
)
buffer.seek(0)

modelA = Net()
modelB = Net()
optimizerA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.Adam(modelB.parameters(), lr=0.001)

checkpoint = torch.load(buffer, weights_only=True)
print(list(checkpoint))
print(modelA.load_state_dict(checkpoint["modelA_state_dict"]))
print(modelB.load_state_dict(checkpoint["modelB_state_dict"]))
optimizerA.load_state_dict(checkpoint["optimizerA_state_dict"])
optimizerB.load_state_dict(checkpoint["optimizerB_state_dict"])
print(sorted(optimizerA.state[modelA.fc3.bias]), sorted(optimizerB.state[modelB.fc3.bias]))
print(optimizerB.state[modelB.fc3.bias]["step"])

modelA.eval()
modelB.eval()
with torch.no_grad():
    print(torch.equal(modelA(x), netA.eval()(x)), torch.equal(modelB(x), netB.eval()(x)))
