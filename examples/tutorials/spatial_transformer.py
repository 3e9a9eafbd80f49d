"""The steps of PyTorch's "Spatial Transformer Networks Tutorial" (written for ``import
torch`` and ``torchvision``): MNIST through ``datasets.MNIST`` with ``ToTensor`` and
``Normalize`` in ``DataLoader`` batches; a classifier with a spatial transformer in
front (a localisation network of convolutions, max pooling and ReLUs, a regressor whose
last layer starts at the identity transform, ``F.affine_grid`` and ``F.grid_sample``);
training with SGD and ``F.nll_loss``; testing under ``no_grad`` with summed loss and
accuracy; ``torchvision.utils.make_grid`` of the input and transformed batches. Runs
unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no download, so the script writes a small MNIST in its
own file format (IDX files of 28x28 digits-like strokes, 256 training and 64 test
images) in a temporary directory; one epoch; no plots (the grids' shapes are printed)."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torchvision
from torchvision import datasets, transforms


def write_idx(path, array):
    """An IDX file (MNIST's format): magic, dims, then the unsigned bytes."""
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, array.ndim]))
        for n in array.shape:
            f.write(int(n).to_bytes(4, "big"))
        f.write(array.astype(np.uint8).tobytes())


def fake_mnist(root, n_train=256, n_test=64):
    """Bars at a slant per class, shifted at random: learnable, and not centred."""
    rng = np.random.default_rng(0)
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n)
        images = np.zeros((n, 28, 28), np.uint8)
        for image, label in zip(images, labels):
            dy, dx = rng.integers(-4, 5, 2)
            for t in range(-8, 9):
                y = 14 + dy + t
                x = 14 + dx + int(round(t * (label - 4.5) / 5))
                image[max(y - 1, 0) : y + 1, max(x - 1, 0) : x + 2] = 255
        write_idx(os.path.join(raw, f"{prefix}-images-idx3-ubyte"), images)
        write_idx(os.path.join(raw, f"{prefix}-labels-idx1-ubyte"), labels)


torch.manual_seed(0)
device = torch.device("cpu")
os.chdir(tempfile.mkdtemp())
fake_mnist(".")

train_loader = torch.utils.data.DataLoader(
    datasets.MNIST(
        root=".",
        train=True,
        download=False,
        transform=transforms.Compose(
            [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]
        ),
    ),
    batch_size=64,
    shuffle=True,
    num_workers=0,
)
test_loader = torch.utils.data.DataLoader(
    datasets.MNIST(
        root=".",
        train=False,
        transform=transforms.Compose(
            [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]
        ),
    ),
    batch_size=64,
    shuffle=True,
    num_workers=0,
)
print(len(train_loader.dataset), len(test_loader.dataset))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
        )
        self.fc_loc = nn.Sequential(nn.Linear(10 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size())
        return F.grid_sample(x, grid)

    def forward(self, x):
        x = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net().to(device)
optimizer = optim.SGD(model.parameters(), lr=0.01)


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 2 == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} ({100.0 * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}"
            )


def test():
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()
        test_loss /= len(test_loader.dataset)
        print(
            f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct / len(test_loader.dataset):.4f}\n"
        )


def convert_image_np(inp):
    """Convert a Tensor to numpy image."""
    inp = inp.numpy().transpose((1, 2, 0))
    mean = np.array([0.485, 0.456, 0.406])
    std = np.array([0.229, 0.224, 0.225])
    inp = std * inp + mean
    return np.clip(inp, 0, 1)


def visualize_stn():
    with torch.no_grad():
        data = next(iter(test_loader))[0].to(device)
        input_tensor = data.cpu()
        transformed_input_tensor = model.stn(data).cpu()
        in_grid = convert_image_np(torchvision.utils.make_grid(input_tensor))
        out_grid = convert_image_np(torchvision.utils.make_grid(transformed_input_tensor))
        print("Dataset Images", in_grid.shape, in_grid.dtype)
        print("Transformed Images", out_grid.shape, out_grid.dtype)


for epoch in range(1, 2):
    train(epoch)
    test()
visualize_stn()
