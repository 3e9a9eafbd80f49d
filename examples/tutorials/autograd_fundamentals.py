"""The steps of PyTorch's "The Fundamentals of Autograd" (Introduction to PyTorch series,
written for ``import torch``): ``sin`` of a ``linspace`` with ``requires_grad=True``
and the chain of ``grad_fn`` nodes walked through ``next_functions``; ``backward`` of a
sum and the gradient checked against ``2 * cos(a)``; a small model trained for a step,
its ``grad`` appearing only after ``backward``, accumulating over steps and reset by
``zero_grad``; turning autograd off and on with ``requires_grad = False``,
``torch.no_grad()`` (as a context and as a decorator) and ``detach()``; in-place
operations on leaves that require grad refused; and the higher-level API
``torch.autograd.functional.jacobian`` (one and several inputs) and ``hvp``. Runs
unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: nothing is plotted, random weights are printed only
through shapes and checks, and the autograd profiler table is left out (its timings
and kernel names are the implementation's own)."""

import math

import torch

torch.manual_seed(0)
a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
print(a.shape, a.requires_grad, a.is_leaf)

b = torch.sin(a)
print(b.grad_fn)
c = 2 * b
print(c.grad_fn)
d = c + 1
print(d.grad_fn)
out = d.sum()
print(out)

print("d:")
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
print("\nc:")
print(c.grad_fn)
print("\nb:")
print(b.grad_fn)
print("\na:")
print(a.grad_fn)

out.backward()
print(a.grad.shape, torch.allclose(a.grad, 2 * torch.cos(a.detach())))

BATCH_SIZE = 16
DIM_IN = 1000
HIDDEN_SIZE = 100
DIM_OUT = 10


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

        self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
        self.relu = torch.nn.ReLU()
        self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)

    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x


some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)

model = TinyModel()

print(model.layer2.weight[0][0:10].shape)  # just a small slice
print(model.layer2.weight.grad)

optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

prediction = model(some_input)

loss = (ideal_output - prediction).pow(2).sum()
print(loss.shape, loss.grad_fn)

loss.backward()
print(model.layer2.weight.grad[0][0:10].shape)
before = model.layer2.weight.detach().clone()
optimizer.step()
print(torch.allclose(model.layer2.weight, before - 0.001 * model.layer2.weight.grad))

first = model.layer2.weight.grad.clone()
for _ in range(0, 5):
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    loss.backward()

print(model.layer2.weight.grad[0][0:10].shape, not torch.equal(first, model.layer2.weight.grad))

optimizer.zero_grad(set_to_none=False)

print(model.layer2.weight.grad[0][0:10])

# Turning autograd off and on
a = torch.ones(2, 3, requires_grad=True)
print(a)

b1 = 2 * a
print(b1)

a.requires_grad = False
b2 = 2 * a
print(b2)

a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3

c1 = a + b
print(c1)

with torch.no_grad():
    c2 = a + b

print(c2)

c3 = a * b
print(c3)


def add_tensors1(x, y):
    return x + y


@torch.no_grad()
def add_tensors2(x, y):
    return x + y


a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3

c1 = add_tensors1(a, b)
print(c1)

c2 = add_tensors2(a, b)
print(c2)

x = torch.rand(5, requires_grad=True)
y = x.detach()

print(x.requires_grad, y.requires_grad)

# In-place operations on leaves that require grad
a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
try:
    torch.sin_(a)
except RuntimeError as e:
    print("RuntimeError:", e)


# The autograd high-level API
def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(1), torch.rand(1))  # arguments for the function
jac = torch.autograd.functional.jacobian(exp_adder, inputs)
print(len(jac), jac[0].shape, torch.allclose(jac[0][0], 2 * inputs[0].exp()), jac[1])

inputs = (torch.rand(3), torch.rand(3))  # bigger inputs
jac = torch.autograd.functional.jacobian(exp_adder, inputs)
print(jac[0].shape, torch.allclose(jac[0], torch.diag(2 * inputs[0].exp())), jac[1])


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


inputs = torch.randn(3)
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
out, vjp = torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients)
print(out.shape, vjp.shape, torch.allclose(vjp, my_gradients * (out / inputs)[0]))


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
v = torch.ones(2, 2)
_, hvp = torch.autograd.functional.hvp(pow_reducer, inputs, v)
print(hvp.shape, torch.allclose(hvp, 6 * inputs * v))
