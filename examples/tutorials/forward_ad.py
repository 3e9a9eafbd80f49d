"""The steps of PyTorch's "Forward-mode Automatic Differentiation" tutorial (written for
``import torch``): dual tensors made with ``torch.autograd.forward_ad.make_dual`` inside
a ``dual_level``, unpacked with ``unpack_dual`` into ``primal`` and ``tangent``; a
function of several inputs with tangents on some of them; modules, by swapping their
parameters for dual tensors (and with ``torch.func.functional_call``); a custom
``autograd.Function`` with a ``jvp`` staticmethod and ``ctx.save_for_forward``;
``torch.func.jvp``; and Jacobian-vector products checked against ``gradcheck`` with
``check_forward_ad=True``. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: the values are printed as checks (equalities against
the derivative written by hand) where the tutorial prints random numbers."""

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x**2 + y**2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(type(fwAD.unpack_dual(dual_output)).__name__, jvp.shape)
    print(torch.allclose(jvp, 2 * primal * tangent))

print(fwAD.unpack_dual(dual_output).tangent is None)

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}

with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
    expected = input @ tangents["weight"].T + tangents["bias"]
    print(jvp.shape, torch.allclose(jvp, expected, atol=1e-6))

model = nn.Linear(5, 5)
params = {name: p for name, p in model.named_parameters()}
with fwAD.dual_level():
    dual_params = {}
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp = fwAD.unpack_dual(out).tangent
    print(torch.allclose(jvp, input @ tangents["weight"].T + tangents["bias"], atol=1e-6))

model = nn.Linear(5, 5)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(input, torch.ones_like(input))
    out = model(dual_input)
    jvp = fwAD.unpack_dual(out).tangent
    print(torch.allclose(jvp, model.weight.sum(1).detach().expand(16, 5), atol=1e-6))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


fn = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(torch.allclose(jvp, tangent * primal.exp()))

print(
    torch.autograd.gradcheck(
        Fn.apply,
        (primal,),
        check_forward_ad=True,
        check_backward_ad=False,
        check_undefined_grad=False,
        check_batched_grad=False,
    )
)


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_forward(x, y)
        return x * y

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t * y + x * y_t


x = torch.randn(3, dtype=torch.double)
y = torch.randn(3, dtype=torch.double)
with fwAD.dual_level():
    out = Mul.apply(fwAD.make_dual(x, torch.ones(3, dtype=torch.double)), y)
    print(torch.equal(fwAD.unpack_dual(out).tangent, y))

primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)
y = torch.randn(10, 10)
import functools  # noqa: E402

new_fn = functools.partial(lambda x, y: x**2 + y**2, y=y)
primal_out, tangent_out = torch.func.jvp(new_fn, (primal,), (tangent,))
print(
    torch.allclose(primal_out, primal**2 + y**2), torch.allclose(tangent_out, 2 * primal * tangent)
)
model = nn.Linear(5, 5)
func_params = tuple(model.parameters())
names = [n for n, _ in model.named_parameters()]


def func(*params):
    return functional_call(model, dict(zip(names, params)), (input,))


_, jvp_out = torch.func.jvp(func, func_params, tuple(torch.ones_like(p) for p in func_params))
print(
    jvp_out.shape, torch.allclose(jvp_out, input.sum(1, keepdim=True).expand(16, 5) + 1, atol=1e-5)
)
