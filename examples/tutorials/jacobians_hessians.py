"""The steps of PyTorch's "Jacobians, Hessians, hvp, vhp, and more: composing function
transforms" tutorial (torch.func, written for ``import torch``): the Jacobian of a
linear-plus-tanh function with respect to its input by ``vjp`` row by row, by ``vmap``
of ``vjp`` over the unit vectors, and by ``jacrev``; checked against
``torch.autograd.functional.jacobian``; ``jacfwd`` agrees with ``jacrev``; Jacobians
with respect to several arguments (``argnums``); batched Jacobians with ``vmap`` of
``jacrev`` and by summing out the batch; Hessians by ``hessian``, by
``jacfwd(jacrev(...))`` and ``jacrev(jacrev(...))``, checked against
``torch.autograd.functional.hessian``; batched Hessians; and Hessian-vector products by
``jvp`` of ``grad``. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: smaller sizes (the tutorial's timing comparisons with
``torch.utils.benchmark`` are left out), and the agreements are printed as
``allclose`` checks. The batched Jacobian by ``vmap`` and the one by summing out the
batch are compared with ``atol=1e-5``: chainrule's ``vmap`` runs the function once per
sample, so its matrix products round differently from the batched one, and the
``1 - tanh**2`` of saturated units magnifies that to about 1e-6."""

from functools import partial

import torch
import torch.nn.functional as F
from torch.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)

xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)


def compute_jac(xp):
    jacobian_rows = [
        torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors
    ]
    return torch.stack(jacobian_rows)


jacobian = compute_jac(xp)
print(jacobian.shape)
print(jacobian[0])

_, vjp_fn = vjp(partial(predict, weight, bias), x)
(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)
print(torch.allclose(ft_jacobian, jacobian))

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(torch.allclose(ft_jacobian, jacobian))
autograd_jacobian = torch.autograd.functional.jacobian(partial(predict, weight, bias), x)
print(torch.allclose(ft_jacobian, autograd_jacobian))

ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
no_vmap_jac_weight = torch.autograd.functional.jacobian(lambda w: predict(w, bias, x), weight)
no_vmap_jac_bias = torch.autograd.functional.jacobian(lambda b: predict(weight, b, x), bias)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(torch.allclose(ft_jac_weight, no_vmap_jac_weight))
print(torch.allclose(ft_jac_bias, no_vmap_jac_bias))

Din = 32
Dout = 64
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)
jacfwd_out = jacfwd(predict, argnums=2)(weight, bias, x)
jacrev_out = jacrev(predict, argnums=2)(weight, bias, x)
print(jacfwd_out.shape, torch.allclose(jacfwd_out, jacrev_out, atol=1e-6))

Din = 16
Dout = 8
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdrev = jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(hess_api.shape)
print(torch.allclose(hess_api, hess_fwdrev, atol=1e-6))
print(torch.allclose(hess_fwdrev, hess_revrev, atol=1e-6))
hess_autograd = torch.stack(
    [
        torch.autograd.functional.hessian(lambda v, i=i: predict(weight, bias, v)[i], x)
        for i in range(Dout)
    ]
)
print(torch.allclose(hess_api, hess_autograd, atol=1e-6))

batch_size = 4
Din = 15
Dout = 17
weight = torch.randn(Dout, Din)
print(f"weight shape = {weight.shape}")
bias = torch.randn(Dout)
x = torch.randn(batch_size, Din)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)
print(batch_jacobian0.shape)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
print(batch_jacobian1.shape, torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-5))
loop_jacobian = torch.stack(
    [torch.autograd.functional.jacobian(lambda v: predict(weight, bias, v), row) for row in x]
)
print(torch.allclose(batch_jacobian0, loop_jacobian, atol=1e-6))

compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, x)
print(batch_hess.shape)


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(256)
tangent = torch.randn(256)
result = hvp(f, (x,), (tangent,))
print(result.shape, torch.allclose(result, -x.sin() * tangent, atol=1e-6))
_, vhp = torch.autograd.functional.vhp(f, x, tangent)
print(torch.allclose(result, vhp, atol=1e-6))
