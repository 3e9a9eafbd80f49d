"""The steps of PyTorch's "Learning PyTorch with Examples" that come before ``nn``
(written for ``import torch``): a third-order polynomial fitted to ``sin(x)`` on
``[-pi, pi]`` three ways: with tensors and gradients written by hand (``grad_y_pred``,
``.pow``, ``.sum``); with autograd (``requires_grad=True``, ``loss.backward()``, updates
under ``torch.no_grad()`` and ``grad = None``); and with a custom
``autograd.Function``, ``LegendrePolynomial3`` (``P3(x) = (5x^3 - 3x) / 2``, its
derivative ``1.5 (5x^2 - 1)`` in ``backward``, the input kept with
``save_for_backward``), checked with ``gradcheck``. The three fits give the same
coefficients where they fit the same model. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: 500 steps per fit where the tutorial takes 2000; the
losses and the fitted polynomials are printed as floats, and the hand-written gradients
are compared with autograd's."""

import math

import torch

dtype = torch.float
device = torch.device("cpu")

# Create random input and output data
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Randomly initialize weights
torch.manual_seed(0)
init = torch.randn(4, device=device, dtype=dtype)
a, b, c, d = (v.clone() for v in init)

learning_rate = 1e-6
for t in range(500):
    # Forward pass: compute predicted y
    y_pred = a + b * x + c * x**2 + d * x**3

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, loss)

    # Backprop to compute gradients of a, b, c, d with respect to loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x**2).sum()
    grad_d = (grad_y_pred * x**3).sum()

    # Update weights using gradient descent
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
by_hand = torch.stack([a, b, c, d])

# The same with autograd
a, b, c, d = (v.clone().requires_grad_() for v in init)
for t in range(500):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    if t == 0:
        grads = torch.autograd.grad(loss, (a, b, c, d), retain_graph=True)
        grad_y_pred = 2.0 * (y_pred.detach() - y)
        manual = [(grad_y_pred * x**k).sum() for k in range(4)]
        print(all(torch.allclose(g, m, rtol=1e-4) for g, m in zip(grads, manual)))

    # Use autograd to compute the backward pass.
    loss.backward()

    # Manually update weights using gradient descent. Wrap in torch.no_grad()
    # because weights have requires_grad=True, but we don't need to track this
    # in autograd.
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Manually zero the gradients after updating weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
print(torch.allclose(torch.stack([a, b, c, d]).detach(), by_hand, rtol=1e-3, atol=1e-5))


class LegendrePolynomial3(torch.autograd.Function):
    """The third Legendre polynomial as a custom autograd Function."""

    @staticmethod
    def forward(ctx, input):
        """
        In the forward pass we receive a Tensor containing the input and return
        a Tensor containing the output. ctx is a context object that can be used
        to stash information for backward computation. You can cache tensors for
        use in the backward pass using the ``ctx.save_for_backward`` method. Other
        objects can be stored directly as attributes on the ctx object, such as
        ``ctx.my_object = my_object``. Check out `Extending torch.autograd <https://docs.pytorch.org/docs/stable/notes/extending.html#extending-torch-autograd>`_
        for further details.
        """
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        """
        In the backward pass we receive a Tensor containing the gradient of the loss
        with respect to the output, and we need to compute the gradient of the loss
        with respect to the input.
        """
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


print(
    torch.autograd.gradcheck(
        LegendrePolynomial3.apply, (torch.randn(6, dtype=torch.double, requires_grad=True),)
    )
)

# Create Tensors for weights. For this example, we need
# 4 weights: y = a + b * P3(c + d * x), these weights need to be initialized
# not too far from the correct result to ensure convergence.
# Setting requires_grad=True indicates that we want to compute gradients with
# respect to these Tensors during the backward pass.
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(500):
    # To apply our Function, we use Function.apply method. We alias this as 'P3'.
    P3 = LegendrePolynomial3.apply

    # Forward pass: compute predicted y using operations; we compute
    # P3 using our custom autograd operation.
    y_pred = a + b * P3(c + d * x)

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())

    # Use autograd to compute the backward pass.
    loss.backward()

    # Update weights using gradient descent
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Manually zero the gradients after updating weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")
print(y_pred.grad_fn.next_functions[1][0].next_functions[1][0].__class__.__name__)
