"""The steps of PyTorch's "Extending torch.func with autograd.Function" notes (written for
``import torch``): custom Functions whose ``forward`` takes no ``ctx`` and a separate
``setup_context`` staticmethod, so that ``torch.func`` transforms compose with them:
a NumPy-backed sort (``NumpySort``) whose backward is another Function
(``NumpyTake``), intermediates returned as outputs and marked non-differentiable;
``grad`` and ``grad`` of ``grad`` through them; a cube with its own gradient rule
(``MyCube``); ``vmap`` support by ``generate_vmap_rule = True`` and by a ``vmap``
staticmethod (``info.batch_size``, ``in_dims``, the output's batch dims), and the error
without either; ``jvp`` support with ``save_for_forward`` and a ``jvp`` staticmethod (``MyExp``), under
``torch.func.jvp``, and under ``jacfwd`` (a ``vmap`` of ``jvp``: it needs the vmap rule
too); and the errors for a rule given twice and for an old-style Function (``forward``
with ``ctx``) under a transform. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the notes: each ``assert`` of the notes is printed as a check, and
each Function is also checked against the built-in ops (``torch.sort``, ``exp``)."""

import numpy as np
import torch

torch.manual_seed(0)


def to_numpy(tensor):
    return tensor.cpu().numpy()


class NumpySort(torch.autograd.Function):
    # Note that forward does not take ctx
    @staticmethod
    def forward(x, dim):
        device = x.device
        x = to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        # Any intermediates to be saved in backward must be returned as
        # outputs.
        return (
            # The desired output
            torch.tensor(result, device=device),
            # intermediate to save for backward
            torch.tensor(ind, device=device),
            # intermediate to save for backward
            torch.tensor(ind_inv, device=device),
        )

    # setup_context is responsible for calling methods and/or assigning to
    # the ctx object. Please do not do additional compute (e.g. add
    # Tensors together) in setup_context.
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        # Tensors must be saved via ctx.save_for_backward. Please do not
        # assign them directly onto the ctx object.
        ctx.save_for_backward(ind, ind_inv)
        # Non-tensors may be saved by assigning them as attributes on the ctx object.
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        # The backward pass of NumpySort is written in terms of another
        # autograd.Function, NumpyTake, so it is "transformable".
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

    # The vmap rule: take the batch dimension to the front and sort one dim further.
    @staticmethod
    def vmap(info, in_dims, x, dim):
        x_bdim, _ = in_dims
        x = x.movedim(x_bdim, 0)
        # wrap dim
        dim = dim if dim >= 0 else dim + x.dim() - 1
        return NumpySort.apply(x, dim + 1), (0, 0, 0)


class NumpyTake(torch.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = to_numpy(x)
        ind = to_numpy(ind)
        return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None

    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims

        # wrap dim
        logical_dim = x.dim() if x_bdim is None else x_bdim - 1
        dim = dim if dim >= 0 else dim + logical_dim

        def maybe_expand_bdim_at_front(x, x_bdim):
            if x_bdim is None:
                return x.expand(info.batch_size, *x.shape)
            return x.movedim(x_bdim, 0)

        # If the Tensor doesn't have the dimension being vmapped over,
        # expand it out. Otherwise, move it to the front of the Tensor
        x = maybe_expand_bdim_at_front(x, x_bdim)
        ind = maybe_expand_bdim_at_front(ind, ind_bdim)
        ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)

        # The return is a tuple (output, out_dims). Since output is a Tensor,
        # then out_dims is an Optional[int] (instead of being a Tuple).
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0


def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result


x = torch.randn(2, 3)
result = numpy_sort(x)
print(torch.equal(result, torch.sort(x, dim=-1).values), result.grad_fn)
xr = x.clone().requires_grad_()
out, ind, ind_inv = NumpySort.apply(xr, -1)
print(out.grad_fn.__class__.__name__, out.requires_grad, ind.requires_grad, ind.dtype)
grad_x = torch.func.grad(lambda x: numpy_sort(x).sum())(x)
print(torch.allclose(grad_x, torch.ones_like(x)))
weights = torch.randn(2, 3)
grad_x = torch.func.grad(lambda x: (numpy_sort(x) * weights).sum())(x)
expected = torch.func.grad(lambda x: (torch.sort(x, dim=-1).values * weights).sum())(x)
print(torch.allclose(grad_x, expected))
ggx = torch.func.grad(lambda x: torch.func.grad(lambda y: numpy_sort(y).pow(2).sum())(x).sum())(x)
print(torch.allclose(ggx, torch.full_like(x, 2.0)))


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
    result, _ = MyCube.apply(x)
    return result


x = torch.randn([])
ggx = torch.func.grad(torch.func.grad(my_cube))(x)
print(torch.allclose(ggx, 6 * x))
xr = torch.randn(4, requires_grad=True)
(g,) = torch.autograd.grad(my_cube(xr).sum(), xr, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), xr)
print(torch.allclose(g, 3 * xr**2), torch.allclose(gg, 6 * xr))

# vmap without a rule is an error
x = torch.randn(3)
try:
    torch.vmap(my_cube)(x)
except RuntimeError as e:
    print("RuntimeError:", e)


class MyCubeVmap(torch.autograd.Function):
    # Set generate_vmap_rule to True to ask PyTorch to automatically generate
    # a vmap rule.
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        result = x**3
        dx = 3 * x**2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube_vmap(x):
    result, dx = MyCubeVmap.apply(x)
    return result


x = torch.randn(3)
result = torch.vmap(my_cube_vmap)(x)
print(torch.allclose(result, x**3))
per_sample = torch.vmap(torch.func.grad(my_cube_vmap))(x)
print(torch.allclose(per_sample, 3 * x**2))

x = torch.randn(2, 3)
result = torch.vmap(numpy_sort)(x)
print(torch.allclose(result, numpy_sort(result, 1)))
print(torch.equal(result, torch.sort(x, dim=1).values))
batched = torch.vmap(numpy_sort, in_dims=1, out_dims=1)(x.T.contiguous())
print(batched.shape, torch.equal(batched, torch.sort(x, dim=1).values.T))
grads = torch.vmap(torch.func.grad(lambda v: (numpy_sort(v) * torch.arange(3.0)).sum()))(x)
expected = torch.vmap(torch.func.grad(lambda v: (v.sort().values * torch.arange(3.0)).sum()))(x)
print(torch.allclose(grads, expected))


class MyExp(torch.autograd.Function):
    # forward is responsible for computing the exp.
    @staticmethod
    def forward(x):
        result = x.exp()
        return result

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        result = output
        ctx.save_for_forward(result)
        ctx.save_for_backward(result)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return result * x_t

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.randn(3)
t = torch.randn(3)
primal, tangent = torch.func.jvp(MyExp.apply, (x,), (t,))
print(torch.allclose(primal, x.exp()), torch.allclose(tangent, x.exp() * t))
print(torch.allclose(torch.func.jacrev(MyExp.apply)(x), torch.diag(x.exp())))
try:  # jacfwd is a vmap of jvp: MyExp needs a vmap rule for it
    torch.func.jacfwd(MyExp.apply)(x)
except RuntimeError as e:
    print("RuntimeError:", e)


class MyExpVmap(MyExp):
    generate_vmap_rule = True


print(torch.allclose(torch.func.jacfwd(MyExpVmap.apply)(x), torch.diag(x.exp())))


class Both(MyExpVmap):
    @staticmethod
    def vmap(info, in_dims, x):
        return MyExp.apply(x), in_dims[0]


try:
    torch.vmap(Both.apply)(x)
except RuntimeError as e:
    print("RuntimeError:", e)


class OldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


print(OldStyle.apply(x).shape)
try:
    torch.func.grad(lambda x: OldStyle.apply(x).sum())(x)
except RuntimeError as e:
    print("RuntimeError:", e)
