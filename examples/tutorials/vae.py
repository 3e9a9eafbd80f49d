"""The steps of PyTorch's ``examples/vae`` (written for ``import torch`` and
``torchvision``): a variational autoencoder of ``Linear`` layers whose encoder gives the
mean and log-variance of a 20-dimensional code, the reparameterisation trick
(``mu + eps * std`` with ``randn_like``), a ``sigmoid`` decoder, and the loss of summed
``binary_cross_entropy`` plus the KL divergence; trained with ``Adam`` over a
``DataLoader`` of images made tensors by ``transforms.ToTensor``, tested under
``torch.no_grad``, with a reconstruction grid and decoded samples written by
``torchvision.utils.save_image``. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the example: no MNIST download, so the data are 192 random 28x28
8-bit images (blobs at random places) in a small ``Dataset``; no argument parser; two
epochs; the images go to a temporary directory and are checked by their size, where the
example keeps them in ``results/``; losses are printed as floats."""

import os
import tempfile

import numpy as np
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torchvision import transforms
from torchvision.utils import save_image


class Args:
    batch_size = 32
    epochs = 2
    log_interval = 2
    seed = 1


args = Args()
torch.manual_seed(args.seed)
device = torch.device("cpu")
kwargs = {}


class Blobs(torch.utils.data.Dataset):
    """28x28 uint8 images of a bright disc at a random place, as MNIST's are uint8."""

    def __init__(self, n, seed, transform=None):
        rng = np.random.default_rng(seed)
        yy, xx = np.mgrid[:28, :28]
        centres = rng.integers(6, 22, size=(n, 2))
        radii = rng.integers(3, 7, size=n)
        self.images = [
            (((yy - cy) ** 2 + (xx - cx) ** 2 <= r * r) * 255).astype(np.uint8)
            for (cy, cx), r in zip(centres, radii)
        ]
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        img = self.images[index][:, :, None]
        if self.transform is not None:
            img = self.transform(img)
        return img, 0


train_loader = torch.utils.data.DataLoader(
    Blobs(128, 0, transform=transforms.ToTensor()),
    batch_size=args.batch_size,
    shuffle=True,
    **kwargs,
)
test_loader = torch.utils.data.DataLoader(
    Blobs(64, 1, transform=transforms.ToTensor()),
    batch_size=args.batch_size,
    shuffle=False,
    **kwargs,
)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()

        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
print(model)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")

    # see Appendix B from VAE paper:
    # Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    # https://arxiv.org/abs/1312.6114
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} ({100.0 * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item() / len(data):.6f}"
            )

    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}")


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n], recon_batch.view(args.batch_size, 1, 28, 28)[:n]])
                save_image(
                    comparison.cpu(),
                    os.path.join(results, "reconstruction_" + str(epoch) + ".png"),
                    nrow=n,
                )

    test_loss /= len(test_loader.dataset)
    print(f"====> Test set loss: {test_loss:.4f}")


data, _ = next(iter(train_loader))
print(data.shape, data.dtype, data.min().item(), data.max().item())
with tempfile.TemporaryDirectory() as results:
    for epoch in range(1, args.epochs + 1):
        train(epoch)
        test(epoch)
        with torch.no_grad():
            sample = torch.randn(64, 20).to(device)
            sample = model.decode(sample).cpu()
            print(sample.shape, bool(((sample > 0) & (sample < 1)).all()))
            save_image(sample.view(64, 1, 28, 28), os.path.join(results, f"sample_{epoch}.png"))
    from PIL import Image

    for name in sorted(os.listdir(results)):
        with Image.open(os.path.join(results, name)) as image:
            print(name, image.size, image.mode)

# The reparameterisation is differentiable in mu and logvar.
mu = torch.zeros(4, 20, requires_grad=True)
logvar = torch.zeros(4, 20, requires_grad=True)
z = model.reparameterize(mu, logvar)
z.sum().backward()
print(torch.equal(mu.grad, torch.ones(4, 20)), torch.allclose(logvar.grad, 0.5 * (z - mu)))
