"""The tutorial "Saving and Loading Models" (written for ``import torch``): save and load
a model's ``state_dict`` (the recommended way), then the whole model with
``torch.save(model, PATH)`` and ``torch.load(PATH, weights_only=False)``, and a
``weights_only=True`` load of the whole model, which refuses the model's class. Runs
unchanged with PyTorch and with ``chainrule run`` (chainrule's ``weights_only=False``
admits the model's classes without calling anything the file names)."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TheModelClass(nn.Module):
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


model = TheModelClass()
x = torch.randn(2, 3, 32, 32)
with torch.no_grad():
    expected = model(x)

with tempfile.TemporaryDirectory() as tmp:
    # the state_dict: the recommended way
    PATH = os.path.join(tmp, "state_dict.pt")
    torch.save(model.state_dict(), PATH)
    loaded = TheModelClass()
    print(loaded.load_state_dict(torch.load(PATH, weights_only=True)))
    loaded.eval()
    with torch.no_grad():
        print("state_dict round trip:", torch.equal(loaded(x), expected))

    # the whole model, pickled with its class
    PATH = os.path.join(tmp, "model.pt")
    torch.save(model, PATH)
    whole = torch.load(PATH, weights_only=False)
    whole.eval()
    print(type(whole).__name__, whole.fc3)
    with torch.no_grad():
        print("whole-model round trip:", torch.equal(whole(x), expected))
    print(whole.conv1.weight.requires_grad, type(whole.conv1.weight).__name__)

    # weights_only=True (the default) admits tensors and containers, not the model's class
    try:
        torch.load(PATH)
    except Exception as e:  # noqa: BLE001 - the error's type and first words are printed
        print(type(e).__name__, "Weights only load failed" in str(e))
        print("TheModelClass" in str(e))
