"""The steps of PyTorch's "Learn the Basics: Automatic Differentiation with
torch.autograd" tutorial (written for ``import torch``): a one-layer network with
parameters ``w`` and ``b`` that require gradients, ``binary_cross_entropy_with_logits``,
the ``grad_fn`` of its results, ``backward`` and the ``.grad`` of the leaves; turning
tracking off (``torch.no_grad``, ``detach``); and the tutorial's optional part:
``backward`` of a non-scalar output with a vector (the vector-Jacobian product), the
gradients accumulating over calls until zeroed, and ``retain_graph``. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the tutorial: ``w`` and ``b`` are fixed values instead of random ones,
so every number printed is the same with both libraries."""

import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.linspace(-1.0, 1.0, 15).reshape(5, 3).requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}".split(" object")[0])
print(f"Gradient function for loss = {loss.grad_fn}".split(" object")[0])

loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
y = x * 2
c = 0
while y.data.norm() < 1000:
    y = y * 2
    c += 1
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(c, x.grad, torch.equal(x.grad, v * 2 ** (c + 1)))
try:
    y.backward(v)
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])
