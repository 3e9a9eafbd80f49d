"""The steps of the torch.func tutorials that need no download (written for ``import
torch``): per-sample gradients (``grad`` of a ``functional_call`` loss, ``vmap`` over the
samples), model ensembling (``stack_module_state``, a base model on the meta device,
``vmap`` over the models), Jacobians and Hessians (``jacrev``, ``jacfwd``, ``hessian``, a
batch Jacobian two ways), the empirical neural tangent kernel, and ``vjp``/``jvp``; each
checked against plain autograd with ``torch.testing.assert_close`` or ``torch.allclose``.
Runs unchanged with PyTorch and with ``chainrule run``."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import (
    functional_call,
    grad,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    stack_module_state,
    vjp,
    vmap,
)

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


# ----- per-sample gradients -------------------------------------------------------------
model = SimpleMLP()
data = torch.randn(6, 8)
targets = torch.randint(4, (6,))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.cross_entropy(predictions, targets)


ft_compute_sample_grad = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)


def loop_grads(i):
    model.zero_grad()
    F.cross_entropy(model(data[i : i + 1]), targets[i : i + 1]).backward()
    return {k: p.grad.clone() for k, p in model.named_parameters()}


manual = [loop_grads(i) for i in range(6)]
for k in params:
    expected = torch.stack([m[k] for m in manual])
    torch.testing.assert_close(ft_per_sample_grads[k], expected, atol=3e-3, rtol=1e-5)
print("per-sample gradients:", {k: tuple(v.shape) for k, v in ft_per_sample_grads.items()})

# ----- model ensembling -----------------------------------------------------------------
models = [SimpleMLP() for _ in range(5)]
params, buffers = stack_module_state(models)
base_model = copy.deepcopy(models[0]).to("meta")


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


minibatch = torch.randn(3, 8)
predictions = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
expected = torch.stack([m(minibatch) for m in models])
assert torch.allclose(predictions, expected, atol=1e-3, rtol=1e-5)
print("ensemble:", tuple(predictions.shape), sorted(params))


# ----- Jacobians and Hessians -----------------------------------------------------------
def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 5
weight, bias, x = torch.randn(D, D), torch.randn(D), torch.randn(D)
jac = jacrev(predict, argnums=2)(weight, bias, x)
torch.testing.assert_close(jac, jacfwd(predict, argnums=2)(weight, bias, x))
jac_weight, jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
hess = hessian(predict, argnums=2)(weight, bias, x)
print("jacobians:", tuple(jac.shape), tuple(jac_weight.shape), tuple(hess.shape))

xb = torch.randn(4, D)
batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xb)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


summed = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xb).movedim(1, 0)
torch.testing.assert_close(batch_jacobian, summed)
print("batch jacobian:", tuple(batch_jacobian.shape))

# ----- the empirical neural tangent kernel ---------------------------------------------
net = SimpleMLP()
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


x_train, x_test = torch.randn(3, 8), torch.randn(2, 8)
jac1 = [j.flatten(2) for j in vmap(jacrev(fnet_single), (None, 0))(params, x_train).values()]
jac2 = [j.flatten(2) for j in vmap(jacrev(fnet_single), (None, 0))(params, x_test).values()]
ntk = torch.stack([torch.einsum("Naf,Mbf->NMab", j1, j2) for j1, j2 in zip(jac1, jac2)]).sum(0)
print("ntk:", tuple(ntk.shape))

# ----- vjp and jvp ----------------------------------------------------------------------
xs = torch.randn(3)
out, vjp_fn = vjp(torch.sin, xs)
(vjp_value,) = vjp_fn(torch.ones(3))
_, jvp_value = jvp(torch.sin, (xs,), (torch.ones(3),))
torch.testing.assert_close(vjp_value, xs.cos())
torch.testing.assert_close(jvp_value, xs.cos())
print("vjp and jvp: the derivative of sin is cos")
