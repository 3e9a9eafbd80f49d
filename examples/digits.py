"""Train a small CNN on scikit-learn's bundled 8x8 handwritten digits (no download).

Written for ``import torch``: it runs with PyTorch (``python examples/digits.py``) and,
unchanged, with chainrule (``chainrule run examples/digits.py``). It uses nn, optim,
a DataLoader over a TensorDataset, a tqdm progress bar, and saves a matplotlib plot of
the training loss and the test accuracy, and a checkpoint of the trained weights.

    python examples/digits.py [--epochs 20] [--optimizer adam|adamw|sgd] [--plot digits.png]

Measured (docs/examples.md): ``chainrule run examples/digits.py`` reaches 0.9800 test
accuracy after 20 epochs (seeds 1 and 2: 0.9844, 0.9822), as PyTorch does under each seed.
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from tqdm import tqdm  # noqa: E402


class DigitsNet(nn.Module):
    """Two 3x3 convolutions and a max-pool, then two linear layers: 8x8 in, 10 scores out."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.dropout = nn.Dropout(0.2)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)


def digits_data(seed=0):
    """The 1,797 digits as (N, 1, 8, 8) float32 images in [0, 1], split 75/25."""
    digits = load_digits()
    images = digits.images.reshape(-1, 1, 8, 8).astype("float32") / 16.0
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.25, random_state=seed, stratify=digits.target
    )
    return (
        TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train).long()),
        TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test).long()),
    )


def make_optimizer(name, params):
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.05, momentum=0.9)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=2e-3, weight_decay=1e-2)
    return torch.optim.Adam(params, lr=2e-3)


def accuracy(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    model.train()
    return correct / total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--optimizer", choices=["adam", "adamw", "sgd"], default="adam")
    parser.add_argument("--plot", default="digits.png")
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    train, test = digits_data(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(
        train, batch_size=64, shuffle=True, generator=generator, drop_last=True
    )
    test_loader = DataLoader(test, batch_size=256)
    model = DigitsNet()
    optimizer = make_optimizer(args.optimizer, model.parameters())
    steps = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)

    losses, accuracies = [], []
    for epoch in range(args.epochs):
        bar = tqdm(train_loader, desc=f"epoch {epoch + 1}/{args.epochs}", leave=False)
        for x, y in bar:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{loss.item():.3f}")
        accuracies.append(accuracy(model, test_loader))
        print(f"epoch {epoch + 1}: loss {losses[-1]:.4f}, test accuracy {accuracies[-1]:.4f}")

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(losses)
    left.set_xlabel("step")
    left.set_ylabel("training loss")
    right.plot(range(1, len(accuracies) + 1), accuracies, marker="o")
    right.set_xlabel("epoch")
    right.set_ylabel("test accuracy")
    fig.tight_layout()
    fig.savefig(args.plot)
    if args.checkpoint:
        torch.save(
            {"model": model.state_dict(), "optimizer": optimizer.state_dict()}, args.checkpoint
        )
    print(f"final test accuracy {accuracies[-1]:.4f}")
    return accuracies[-1]


if __name__ == "__main__":
    main()
