"""The steps of PyTorch's "Per-sample-gradients" tutorial (torch.func, written for
``import torch``): a small CNN on MNIST-shaped data; per-sample gradients first by a
loop of per-sample ``backward`` calls, then with ``torch.func``: the parameters and
buffers detached, a loss of one sample written with ``functional_call`` (the sample made
a batch of one with ``unsqueeze``), ``grad`` of it, and ``vmap`` over the batch with
``in_dims=(None, None, 0, 0)``; both ways agree per parameter. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the tutorial: the data are random (a batch of 16 rather than 64), no
CUDA, and no timing comparison with ``torch.utils.benchmark``; the agreement is printed
as ``allclose`` checks."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


device = "cpu"
num_models = 10
batch_size = 16
data = torch.randn(batch_size, 1, 28, 28, device=device)
targets = torch.randint(10, (batch_size,), device=device)

model = SimpleCNN().to(device=device)
predictions = model(data)
loss = loss_fn(predictions, targets)
print(predictions.shape, loss.shape)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


per_sample_grads = compute_sample_grads(data, targets)
print(per_sample_grads[1].shape)
print([g.shape for g in per_sample_grads])

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
print(type(ft_per_sample_grads).__name__, list(ft_per_sample_grads))

for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    print(
        ft_per_sample_grad.shape,
        ft_per_sample_grad.requires_grad,
        torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5),
    )

# The mean of the per-sample gradients is the batch gradient.
model.zero_grad()
loss_fn(model(data), targets).backward()
for p, g in zip(model.parameters(), ft_per_sample_grads.values()):
    print(torch.allclose(g.mean(0), p.grad, atol=1e-5))
