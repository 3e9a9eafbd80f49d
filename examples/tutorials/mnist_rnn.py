"""The steps of PyTorch's ``examples/mnist_rnn`` (written for ``import torch`` and
``torchvision``): an image classifier that reads a 28x28 image as a sequence of 28 rows
with a ``batch_first`` ``nn.LSTM``, takes the last step's output through ``Dropout``,
``Linear`` layers and ``log_softmax``; data normalised by ``transforms.Normalize``;
training with ``Adadelta`` and ``StepLR`` and ``nll_loss``; testing with the summed loss
and ``argmax`` accuracy; the model saved with ``torch.save(model.state_dict(), ...)``.
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the example: no MNIST download, so the data are 160 random 28x28
images with a bright row band per class; no argument parser; one epoch; the state dict
goes to a temporary directory; losses and accuracies are printed as floats."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset
from torchvision import transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # Shape of input is (batch_size,1, 28, 28)
        # converting shape of input to (batch_size, 28, 28)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)

        # RNN output shape is (seq_len, batch, input_size)
        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(log_interval, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                f"({100.0 * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}"
            )


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)

    print(
        f"\nTest set: Average loss: {test_loss:.4f}, "
        f"Accuracy: {100.0 * correct / len(test_loader.dataset) + 0.001:.3f}%\n"
    )


torch.manual_seed(1)
device = torch.device("cpu")
generator = torch.Generator().manual_seed(0)
labels = torch.randint(0, 10, (160,), generator=generator)
images = torch.rand(160, 1, 28, 28, generator=generator) * 0.3
for k, label in enumerate(labels.tolist()):
    images[k, 0, 2 * label : 2 * label + 3] += 0.7
normalize = transforms.Normalize((0.1307,), (0.3081,))
images = normalize(images)
train_loader = DataLoader(TensorDataset(images[:128], labels[:128]), batch_size=32, shuffle=True)
test_loader = DataLoader(TensorDataset(images[128:], labels[128:]), batch_size=32, shuffle=True)

model = Net().to(device)
print(model)
optimizer = optim.Adadelta(model.parameters(), lr=0.1)

scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 2):
    train(2, model, device, train_loader, optimizer, epoch)
    test(model, device, test_loader)
    scheduler.step()

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "mnist_rnn.pt")
    torch.save(model.state_dict(), path)
    state = torch.load(path)
    print(list(state)[:5], len(state), state["batchnorm.num_batches_tracked"])
