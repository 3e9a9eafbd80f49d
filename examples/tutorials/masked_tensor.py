"""The steps of PyTorch's MaskedTensor tutorials ("MaskedTensor Overview", "Advanced
Semantics" and "Efficiently writing sparse semantics for Adagrad", written for
``import torch``): ``torch.masked.masked_tensor`` and ``as_masked_tensor`` over data and
a bool mask, and their printing with ``--`` for masked-out elements; gradients that
stay masked (``mt.grad``), and the ``torch.where`` case where a masked-out ``exp`` no
longer gives ``nan`` gradients; reductions (``sum``, ``amax``, ``argmax``, ``mean``)
that skip masked-out elements, against ``nanmean``; ``get_data``, ``get_mask`` and
``to_tensor``; the rule that binary ops need equal masks (and the error otherwise);
and Adagrad's sparse update written with sparse COO tensors (``coalesce``,
``_indices``, ``_values``, ``sparse_mask``) and again with MaskedTensor, with the same
result. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorials: their printouts of random data are replaced by
fixed data or by checks; the prototype warning MaskedTensor gives on creation is
silenced. The overview's ``as_masked_tensor(x / div, mask)`` example, whose gradient
reaches the plain leaf ``x`` as a MaskedTensor in PyTorch, is shown with a MaskedTensor
leaf instead: chainrule's autograd engine carries plain gradients, so there ``x.grad``
would be a plain tensor (``nan`` where masked out)."""

import warnings

import torch
from torch.masked import as_masked_tensor, masked_tensor

# Disable prototype warnings and such
warnings.filterwarnings(action="ignore", category=UserWarning)

data = torch.arange(24).reshape(2, 3, 4)
mask = data % 2 == 0

print("data:\n", data)
print("mask:\n", mask)

# float is used for cleaner visualization when being printed
mt = masked_tensor(data.float(), mask)

print("mt:\n", mt)
print("mt[0]:\n", mt[0])
print("mt[:, :, 2:4]:\n", mt[:, :, 2:4])

# Distinguishing between 0 and NaN gradient
x = torch.tensor([1.0, 1.0], requires_grad=True)
div = torch.tensor([0.0, 1.0])
y = x / div  # => y is [inf, 1]
mask = div != 0  # => mask is [0, 1]
z = torch.where(mask, y, div)
z.sum().backward()
print(x.grad)

x = masked_tensor(torch.tensor([1.0, 1.0]), torch.tensor([False, True]), requires_grad=True)
div = torch.tensor([0.0, 1.0])
y = x / masked_tensor(div, torch.tensor([False, True]))
y.sum().backward()
print(x.grad)
yd = as_masked_tensor(torch.tensor([2.0, 3.0]), torch.tensor([True, False]))
print(yd, yd.get_data())

# Safe softmax
data = torch.randn(3, 3)
mask = torch.tensor([[True, False, False], [True, False, True], [False, False, False]])
x = data.masked_fill(~mask, float("-inf"))
mt = masked_tensor(data, mask)
print("x.softmax(0):\n", x.softmax(0)[:, 1])
print(mt.softmax(0).get_mask())

# Implementing missing torch.nan* operators
x = torch.empty(4).fill_(float("nan"))
x[1] = 1.0
x[3] = 3.0
print("torch.nanmean(x):", torch.nanmean(x))
mt = masked_tensor(x, ~torch.isnan(x))
print("mt.mean():", mt.mean())

# torch.where gradients
x = torch.tensor([-10.0, -5, 0, 5, 10, 50, 60, 70, 80, 90, 100], requires_grad=True)
mask = x < 0
y = torch.where(mask, torch.exp(x), torch.ones_like(x))
y.sum().backward()
print("x.grad:", x.grad[:2], torch.isnan(x.grad).any())

x = torch.tensor([-10.0, -5, 0, 5, 10, 50, 60, 70, 80, 90, 100])
mask = x < 0
mx = masked_tensor(x, mask, requires_grad=True)
my = masked_tensor(torch.ones_like(x), ~mask, requires_grad=True)
y = torch.where(mask, torch.exp(mx), my)
y.sum().backward()
print("mx.grad:", mx.grad)

# Reductions
a = torch.tensor([[3.0, -1.0, 4.0], [1.0, 5.0, -9.0]])
m = a > 0
mt = masked_tensor(a, m)
print(mt.sum(), torch.amax(mt, dim=1), torch.argmax(mt, dim=1).get_data())
print(mt.to_tensor(0.0), mt.get_data().equal(a), mt.get_mask().equal(m))

# Semantics: binary ops need the same mask
m0 = torch.tensor([True, False, True])
m1 = torch.tensor([True, True, False])
mt0 = masked_tensor(torch.tensor([1.0, 2.0, 3.0]), m0)
mt1 = masked_tensor(torch.tensor([4.0, 5.0, 6.0]), m1)
try:
    mt0 + mt1
except ValueError as e:
    print("ValueError:", e)
print(mt0 + masked_tensor(torch.tensor([4.0, 5.0, 6.0]), m0))
print(mt0 * 2, torch.square(mt0))

# Adagrad's sparse update, as torch.optim's sparse path writes it...
i = [[0, 1, 1], [2, 0, 2]]
v = [3, 4, 5]
grad = torch.sparse_coo_tensor(i, v, [2, 4], dtype=torch.float32)
param = torch.arange(8).reshape(2, 4).float()
state_sum = torch.full_like(param, 0.5)  # initial value for state sum
print("param:\n", param)
print("grad:\n", grad.to_dense())
print("state_sum:\n", state_sum)
clr = 0.1
eps = 1e-10


def _make_sparse(grad, grad_indices, values):
    size = grad.size()
    return torch.sparse_coo_tensor(grad_indices, values, size)


grad = grad.coalesce()  # the update is non-linear so indices must be unique
grad_indices = grad._indices()
grad_values = grad._values()

state_sum.add_(_make_sparse(grad, grad_indices, grad_values.pow(2)))  # a different
std = state_sum.sparse_mask(grad)
print("state_sum:\n", state_sum)
print("std:\n", std.to_dense())

std_values = std._values().sqrt_().add_(eps)
param.add_(_make_sparse(grad, grad_indices, grad_values / std_values), alpha=-clr)
print("param:\n", param)

# ... and with MaskedTensor
param2 = torch.arange(8).reshape(2, 4).float()
state_sum2 = torch.full_like(param2, 0.5)
dense_grad = grad.to_dense()
grad_mask = dense_grad != 0
masked_grad = masked_tensor(dense_grad, grad_mask)
state_sum2 = state_sum2 + masked_grad.pow(2).to_tensor(0.0)
masked_std = masked_tensor(state_sum2, grad_mask).sqrt().add(eps)
param2.add_((masked_grad / masked_std).to_tensor(0.0), alpha=-clr)
print("param2:\n", param2)
print(torch.allclose(param, param2), torch.allclose(state_sum, state_sum2))
