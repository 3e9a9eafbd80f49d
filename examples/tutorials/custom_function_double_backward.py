"""The steps of PyTorch's "Double Backward with Custom Functions" tutorial (written for
``import torch``): custom ``autograd.Function``s whose backward is itself differentiable
(written with differentiable ops, checked with ``gradcheck`` and ``gradgradcheck``):
saving inputs (``x ** 2``), saving outputs (``exp``), saving an intermediate result as
an extra output (``sinh`` through ``exp(x)`` and ``exp(-x)``), and a backward that is
not differentiable (``once_differentiable``), whose double backward raises; the graphs
of the backward pass are shown through ``grad_fn`` names. Runs unchanged with PyTorch
and with ``chainrule run``.

What differs from the tutorial: the graphs are printed as ``grad_fn`` chains instead of
drawn with torchviz."""

import torch
from torch.autograd.function import once_differentiable


def chain(t):
    """The names along the first inputs of t's graph."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 2 * x


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x), torch.autograd.gradgradcheck(Square.apply, x))
out = Square.apply(x)
grad_x = torch.autograd.grad(out, x, torch.ones_like(out), create_graph=True)[0]
print(chain(out), chain(grad_x))


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        (result,) = ctx.saved_tensors
        return result * grad_out


x = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
print(torch.autograd.gradcheck(Exp.apply, x), torch.autograd.gradgradcheck(Exp.apply, x))
out = Exp.apply(x)
grad_x = torch.autograd.grad(out, x, torch.ones_like(out), create_graph=True)[0]
print(chain(grad_x))


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    return Sinh.apply(x)[0]


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x), torch.autograd.gradgradcheck(sinh, x))
out = sinh(x)
grad_x = torch.autograd.grad(out.sum(), x, create_graph=True)[0]
print(torch.allclose(grad_x, torch.cosh(x)), chain(grad_x)[:2])


class SinhBad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx = ctx.expx
        expnegx = ctx.expnegx
        return grad_out * (expx + expnegx) / 2


x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
out = SinhBad.apply(x)
grad_x = torch.autograd.grad(out.sum(), x, create_graph=True)[0]
print("first order right:", torch.allclose(grad_x, torch.cosh(x)), grad_x.requires_grad)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)


class CubeBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return grad_out * 3 * x**2

    @staticmethod
    def backward(ctx, grad_out):
        x, sav_grad_out = ctx.saved_tensors
        dx = grad_out * 6 * x * sav_grad_out
        dgrad_out = grad_out * 3 * x**2
        return dgrad_out, dx


x = torch.tensor(2.0, requires_grad=True, dtype=torch.double)
out = Cube.apply(x)
grad_x = torch.autograd.grad(out, x, create_graph=True)[0]
print(grad_x, grad_x.requires_grad, chain(grad_x))
try:
    torch.autograd.grad(grad_x, x)
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])
