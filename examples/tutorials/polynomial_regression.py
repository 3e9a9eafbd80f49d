"""The steps of PyTorch's ``examples/regression`` (written for ``import torch``): a
degree-4 polynomial with random coefficients fitted by one ``nn.Linear`` on the
features ``x, x^2, x^3, x^4`` (``torch.cat`` of powers), trained with
``F.smooth_l1_loss`` and a hand-written update (``param.data.add_(-0.1 * param.grad)``)
on fresh random batches; the learned and the actual functions printed with
``poly_desc``, which formats 0-d tensors with ``'{:+.2f}'.format``. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the example: the target coefficients are fixed positive numbers
where the example draws them at random (the signs would differ between the libraries'
random streams, and the printed ``+``/``-`` with them); it runs a fixed 400 batches
where the example runs until the loss is under 1e-3 (the number of batches depends on
the random stream); the loss and the coefficients are printed as floats."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
POLY_DEGREE = 4
W_target = torch.tensor([[2.5], [1.5], [2.0], [0.5]])
b_target = torch.tensor([3.0])


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x**i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = "y = "
    for i, w in enumerate(W):
        result += f"{w:+.2f} x^{i + 1} "
    result += f"{b[0]:+.2f}"
    return result


def get_batch(batch_size=32):
    """Builds a batch i.e. (x, f(x)) pair."""
    random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


# Define model
fc = torch.nn.Linear(W_target.size(0), 1)
print(fc, make_features(torch.tensor([2.0])))

for batch_idx in range(1, 401):  # noqa: B007 (printed after the loop)
    # Get data
    batch_x, batch_y = get_batch()

    # Reset gradients
    fc.zero_grad()

    # Forward pass
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()

    # Backward pass
    output.backward()

    # Apply gradients
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)

print(f"Loss: {loss:.6f} after {batch_idx} batches")
print("==> Learned function:\t" + poly_desc(fc.weight.view(-1), fc.bias))
print("==> Actual function:\t" + poly_desc(W_target.view(-1), b_target))
print(f"{torch.tensor(3.14159):.3f} {torch.tensor(-2):+d} {torch.tensor([1.5])[0]:>8.2f}|")
