"""The tutorial's non-scalar backward example, written for PyTorch.

Run it with PyTorch (``python examples/seed.py``) or, unchanged, with chainrule
(``chainrule run examples/seed.py``). ``x.grad`` is ``gradients * 2**(c+1)``.
"""

import torch
from torch.autograd import Variable

x = torch.randn(3)  # input is taken randomly
x = Variable(x, requires_grad=True)
y = x * 2
c = 0
while y.data.norm() < 1000:
    y = y * 2
    c += 1
gradients = torch.FloatTensor([0.1, 1.0, 0.0001])  # specifying gradient because input is non-scalar
y.backward(gradients)
print(c)
print(x.grad)
