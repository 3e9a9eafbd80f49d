"""PyTorch's "Quickstart" (Learn the Basics), written for ``import torch`` and
``torchvision``: FashionMNIST through ``torchvision.datasets`` with ``ToTensor()``,
DataLoaders, a 784-512-512-10 network, cross-entropy and SGD(lr=1e-3) for five epochs,
saving and reloading the state_dict, and a prediction. Runs unchanged with PyTorch and
with ``chainrule run``.

Only the data differ: there is no download here, so the script first writes a
FashionMNIST of its own in the dataset's own files (``data/FashionMNIST/raw/*-ubyte``, the
IDX format) in a temporary directory: 12,000 training and 1,000 test images, each class a
bright band at its own height over noise, so five epochs learn it. ``download=True`` then
finds the files and downloads nothing."""

import os
import tempfile

import numpy as np


def write_idx(path, array):
    """An IDX file: magic (0, 0, dtype code 0x08 for uint8, rank), big-endian sizes, bytes."""
    header = bytes([0, 0, 0x08, array.ndim]) + np.array(array.shape, ">i4").tobytes()
    with open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def write_fashion_mnist(root, n_train=12000, n_test=1000):
    raw = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    for split, n, seed in (("train", n_train, 1), ("t10k", n_test, 2)):
        rng = np.random.default_rng(seed)
        labels = rng.integers(0, 10, n)
        images = rng.integers(0, 60, (n, 28, 28))
        for i, c in enumerate(labels):
            images[i, 2 * c + 1 : 2 * c + 9, 4:24] += 195
        write_idx(os.path.join(raw, f"{split}-images-idx3-ubyte"), images)
        write_idx(os.path.join(raw, f"{split}-labels-idx1-ubyte"), labels)


os.chdir(tempfile.mkdtemp())
write_fashion_mnist("data")

# ---------------------------------------------------------------- the tutorial
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402
from torchvision import datasets  # noqa: E402
from torchvision.transforms import ToTensor  # noqa: E402

torch.manual_seed(0)

# Working with data
training_data = datasets.FashionMNIST(
    root="data",
    train=True,
    download=True,
    transform=ToTensor(),
)
test_data = datasets.FashionMNIST(
    root="data",
    train=False,
    download=True,
    transform=ToTensor(),
)
print(training_data)

batch_size = 64
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

for X, y in test_dataloader:
    print(f"Shape of X [N, C, H, W]: {X.shape}")
    print(f"Shape of y: {y.shape} {y.dtype}")
    break

# Creating models
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
print(model)

# Optimizing the model parameters
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 100 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


epochs = 5
for t in range(epochs):
    print(f"Epoch {t + 1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")

# Saving models
torch.save(model.state_dict(), "model.pth")
print("Saved PyTorch Model State to model.pth")

# Loading models
model = NeuralNetwork().to(device)
model.load_state_dict(torch.load("model.pth", weights_only=True))

classes = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
]

model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to(device)
    pred = model(x)
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
