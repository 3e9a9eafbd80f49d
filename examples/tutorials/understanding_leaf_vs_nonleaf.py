"""The steps of PyTorch's "Understanding requires_grad, retain_grad, Leaf, and Non-leaf
Tensors" tutorial (written for ``import torch``): a small network's computation
(``x @ W + b``, ``relu``, ``mse_loss``) and what each tensor in it says about
``requires_grad``, ``is_leaf``, ``retains_grad``, ``grad_fn`` and ``grad``; the warning
and the ``None`` when a non-leaf's ``.grad`` is read without ``retain_grad()``;
``retain_grad()`` on non-leaves; ``backward(retain_graph=True)`` run twice (gradients
accumulate), and the error on a third backward through a freed graph; and the summary
table the tutorial draws. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: the table is printed as text rather than drawn with
matplotlib, and the graph is not drawn with torchviz (``grad_fn.next_functions`` is
printed instead)."""

import torch
import torch.nn.functional as F

x = torch.ones(1, 3)
W = torch.ones(3, 2, requires_grad=True)
b = torch.ones(1, 2, requires_grad=True)
y = torch.ones(1, 2)

z = (x @ W) + b
y_pred = F.relu(z)
loss = F.mse_loss(y_pred, y)

print(f"{x.requires_grad=}")
print(f"{W.requires_grad=}")
print(f"{z.requires_grad=}")
print(f"{x.is_leaf=}")
print(f"{W.is_leaf=}")
print(f"{z.is_leaf=}")
print(f"{loss=}")
print(loss.grad_fn, [type(f).__name__ for f, _ in loss.grad_fn.next_functions])

loss.backward(retain_graph=True)
print(f"{W.grad=}")
print(f"{b.grad=}")
print(f"{z.grad=}")  # a warning: a non-leaf's .grad is not kept

z = (x @ W) + b
y_pred = F.relu(z)
loss = F.mse_loss(y_pred, y)
z.retain_grad()
y_pred.retain_grad()
loss.retain_grad()
W.retain_grad()  # a no-op on a leaf
print(f"{W.retains_grad=}", f"{z.retains_grad=}", f"{x.retains_grad=}")

W.grad = None
b.grad = None
loss.backward(retain_graph=True)
print(f"{W.grad=}")
print(f"{z.grad=}")
print(f"{y_pred.grad=}")
print(f"{loss.grad=}")

loss.backward(retain_graph=True)
print(f"{W.grad=}")  # accumulated
print(f"{z.grad=}")

loss.backward()
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

names = ["x", "y", "W", "b", "z", "y_pred", "loss"]
tensors = [x, y, W, b, z, y_pred, loss]
columns = ["tensor", "requires_grad", "is_leaf", "retains_grad", "grad_fn", "grad"]
print(" | ".join(f"{c:>13}" for c in columns))
for name, t in zip(names, tensors):
    grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else "None"
    row = [name, t.requires_grad, t.is_leaf, t.retains_grad, grad_fn, t.grad is not None]
    print(" | ".join(f"{str(v):>13}" for v in row))

with torch.no_grad():
    w2 = W * 2
print(f"{w2.requires_grad=}", f"{w2.is_leaf=}", f"{W.detach().is_leaf=}")
leaf = (x * 2).requires_grad_()
print(f"{leaf.is_leaf=}", f"{leaf.grad_fn=}")
try:
    (W * 2).requires_grad_(False)
except RuntimeError as e:
    print("RuntimeError:", e)
