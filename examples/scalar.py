"""The tutorial's scalar backward example, written for PyTorch.

Run it with PyTorch (``python examples/scalar.py``) or, unchanged, with chainrule
(``chainrule run examples/scalar.py``): both print the same.
"""

import torch

x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)  # d(out)/dx = 3 * 2 * (x + 2) / 4 = 4.5
