"""The steps of PyTorch's ``examples/mnist_forward_forward`` (Hinton's Forward-Forward
algorithm, written for ``import torch`` and ``torchvision``): each layer (a subclass of
``nn.Linear`` with its own ``Adam`` optimizer and a ``train`` method of its own) is
trained alone to give high goodness (mean squared activation) to positive data (an
image with its true label overlaid on its first pixels, ``x_[range(n), y] = x.max()``)
and low goodness to negative data (a wrong label drawn per sample), with the loss
``log(1 + exp(...))``; the inputs of each layer are direction-normalised
(``x.norm(2, 1, keepdim=True)``); prediction picks the label whose overlay gives the
largest summed goodness. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the example: no MNIST download, so the data are 200 random 28x28
images (flattened, normalised as the example's ``Lambda(torch.flatten)`` transform
does) with a brightness cue per class; no argument parser; 40 epochs per layer of two
500-unit layers; losses and error rates are printed as floats."""

import torch
import torch.nn as nn
from torch.optim import Adam
from torch.utils.data import DataLoader, TensorDataset


class Args:
    epochs = 40
    lr = 0.03
    threshold = 2
    log_interval = 10
    train_size = 160
    test_size = 40


args = Args()


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[
            torch.randint(len(allowed_indices), size=(1,))
        ].item()
    return y_neg.to(device)


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            # The following loss pushes pos (neg) samples to
            # values larger (smaller) than the self.threshold.
            loss = torch.log(
                1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))
            ).mean()
            self.opt.zero_grad()
            # this backward just compute the derivative and hence
            # is not considered backpropagation.
            loss.backward()
            self.opt.step()
            if i % args.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


torch.manual_seed(1234)
device = torch.device("cpu")
generator = torch.Generator().manual_seed(0)
n = args.train_size + args.test_size
labels = torch.randint(0, 10, (n,), generator=generator)
images = torch.rand(n, 1, 28, 28, generator=generator) * 0.5 + (labels / 20).view(-1, 1, 1, 1)
images = torch.flatten((images - 0.1307) / 0.3081, start_dim=1)
train_loader = DataLoader(
    TensorDataset(images[: args.train_size], labels[: args.train_size]),
    batch_size=args.train_size,
    shuffle=True,
)
test_loader = DataLoader(
    TensorDataset(images[args.train_size :], labels[args.train_size :]),
    batch_size=args.test_size,
    shuffle=True,
)

net = Net([784, 500, 500])
print([type(layer).__name__ for layer in net.layers], list(net.parameters()))
x, y = next(iter(train_loader))
x, y = x.to(device), y.to(device)
x_pos = overlay_y_on_x(x, y)
y_neg = get_y_neg(y)
x_neg = overlay_y_on_x(x, y_neg)
print(x_pos.shape, bool((y_neg != y).all()), torch.equal(x_pos[:, 10:], x[:, 10:]))
print(torch.equal(x_pos[range(x.shape[0]), y], x.max().expand(x.shape[0])))

net.train(x_pos, x_neg)

print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())

x_te, y_te = next(iter(test_loader))
x_te, y_te = x_te.to(device), y_te.to(device)

print("test error:", 1.0 - net.predict(x_te).eq(y_te).float().mean().item())
