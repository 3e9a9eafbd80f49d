"""The steps of PyTorch's "Extending PyTorch" note, its ``torch.autograd`` and
``torch.nn`` parts (written for ``import torch``): ``LinearFunction`` (a custom
``Function`` with ``forward`` taking ``ctx``, ``save_for_backward``,
``needs_input_grad`` to skip gradients) checked with ``gradcheck``; the same with a
separate ``setup_context``; ``MulConstant`` with a non-tensor argument (its gradient
``None``); ``MyCube`` saving an intermediate for double backward (``gradgradcheck``);
``mark_non_differentiable`` for a sort's indices; ``set_materialize_grads(False)`` and
``None`` gradients; ``mark_dirty`` for an in-place Function; and a ``LinearModule``
``nn.Module`` built on the Function, with ``extra_repr``. Runs unchanged with PyTorch and
with ``chainrule run``.

What differs from the note: random inputs are checked (``gradcheck``, ``allclose``)
rather than printed."""

import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck, gradgradcheck

torch.manual_seed(0)


# Inherit from Function
class LinearFunction(Function):
    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply
input = (
    torch.randn(20, 20, dtype=torch.double, requires_grad=True),
    torch.randn(30, 20, dtype=torch.double, requires_grad=True),
)
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
bias = torch.randn(30, dtype=torch.double, requires_grad=True)
print(gradcheck(linear, (*input, bias), eps=1e-6, atol=1e-4))
out = linear(input[0].detach(), input[1], None)
seen = []


class Recorder(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        seen.append(ctx.needs_input_grad)
        return LinearFunction.backward(ctx, grad_output)


Recorder.apply(input[0].detach(), input[1]).sum().backward()
print(seen, out.grad_fn.__class__.__name__)


class LinearFunction2(Function):
    @staticmethod
    # ctx is the first argument to forward
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        return LinearFunction.backward(ctx, grad_output)


print(gradcheck(LinearFunction2.apply, (*input, bias), eps=1e-6, atol=1e-4))
print(torch.allclose(LinearFunction2.apply(*input, bias), linear(*input, bias)))


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


x = torch.randn(3, requires_grad=True)
MulConstant.apply(x, 2.5).sum().backward()
print(torch.allclose(x.grad, torch.full((3,), 2.5)))


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x**2
        result = x**3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result


# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.randn(4, dtype=torch.double, requires_grad=True)
print(gradcheck(my_cube, (x,)), gradgradcheck(my_cube, (x,)))


class Sort(Function):
    @staticmethod
    def forward(ctx, x):
        sorted, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x, idx)
        return sorted, idx

    @staticmethod
    def backward(ctx, g1, g2):  # still need to accept g2
        x, idx = ctx.saved_tensors
        grad_input = torch.zeros_like(g1)
        grad_input.index_add_(0, idx, g1)
        return grad_input


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
values, idx = Sort.apply(x)
print(values.requires_grad, idx.requires_grad, idx)
(values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)


class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        x = None
        if g1 is not None:  # We must check for None now
            x = g1
        if g2 is not None:
            x = g2 if x is None else x + g2
        return x


a = torch.tensor(1.0, requires_grad=True)
b, _ = SimpleFunc.apply(a)
b.backward()  # the gradient of the unused output is None, not zeros
print(a.grad)


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


base = torch.zeros(3, requires_grad=True)
y = base * 2
z = AddOneInPlace.apply(y)
print(z is y, z, z._version)
z.sum().backward()
print(base.grad)


class LinearModule(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter("bias", None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return f"input_features={self.input_features}, output_features={self.output_features}, bias={self.bias is not None}"


module = LinearModule(5, 3)
print(module, LinearModule(5, 3, bias=False))
x = torch.randn(4, 5)
out = module(x)
print(out.shape, torch.allclose(out, x @ module.weight.t() + module.bias))
out.sum().backward()
print([tuple(p.grad.shape) for p in module.parameters()])
