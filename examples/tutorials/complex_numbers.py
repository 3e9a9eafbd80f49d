"""The steps of PyTorch's note "Complex Numbers" (written for ``import torch``): making
complex tensors (complex literals, ``dtype=torch.cfloat``, ``torch.complex``,
``torch.polar``), moving between a real ``(..., 2)`` tensor and a complex one with
``view_as_complex``/``view_as_real``, reading and writing ``.real`` and ``.imag`` (views
of the same memory), ``angle`` and ``abs``, linear algebra, saving and loading, autograd
(for a real loss L of z = x + iy, ``z.grad`` is dL/dx + i dL/dy) and optimizers, which
step a complex parameter as if it were its real and imaginary parts side by side. Values
are built from literals and ``arange`` so that both libraries print the same numbers.
Runs unchanged with PyTorch and with ``chainrule run``."""

import io
import math

import torch

# ----- creating complex tensors -------------------------------------------------------------

z = torch.tensor([1 + 2j, 3 - 4j])
print(z, z.dtype, z.is_complex())
print(torch.zeros(2, 2, dtype=torch.cfloat))
print(torch.ones(3, dtype=torch.cdouble))
print(torch.randn(2, 2, dtype=torch.cfloat).shape, torch.randn(2, dtype=torch.cdouble).dtype)
print(torch.tensor(2j).dtype, torch.tensor(2j, dtype=torch.complex128).dtype)

# The complex dtype that Python complex numbers take follows the default float dtype.
torch.set_default_dtype(torch.float64)
print(torch.tensor([1j]).dtype)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1j]).dtype)

re = torch.tensor([1.0, 2.0, -0.5])
im = torch.tensor([0.0, -1.0, 4.0])
print(torch.complex(re, im))
radius = torch.tensor([1.0, 2.0], dtype=torch.float64)
theta = torch.tensor([0.0, math.pi], dtype=torch.float64)
print(torch.polar(radius, theta).real, torch.polar(radius, theta).dtype)

# ----- from the old (..., 2) representation --------------------------------------------------

pairs = torch.arange(6.0).view(3, 2)
y = torch.view_as_complex(pairs)
print(y)
print(torch.view_as_real(y))
print(torch.view_as_real(y).shape, torch.view_as_real(y).data_ptr() == pairs.data_ptr())
for bad in (torch.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3).t()[:2]):
    try:
        torch.view_as_complex(bad)
    except RuntimeError as error:
        print("RuntimeError:", error)

# ----- real and imag: views that write through -----------------------------------------------

print(y.real)
print(y.imag)
print(y.real.stride(), y.real.is_contiguous())
y.real.mul_(2)
print(y)
y.imag[0] = 10
print(y)
print(pairs)

# ----- angle and abs ---------------------------------------------------------------------------

w = torch.tensor([3 + 4j, -1 + 0j, 0 + 2j, 1 - 1j])
print(w.abs())
print(w.angle())
print(torch.abs(w), torch.angle(w))
print(torch.allclose(torch.polar(w.abs(), w.angle()), w))

# ----- arithmetic with real tensors, conjugation, ordering -----------------------------------

print(w + torch.tensor([1.0, 2.0, 3.0, 4.0]))
print((w * torch.ones(4, dtype=torch.float64)).dtype)
print(w.conj(), torch.allclose(w * w.conj(), w.abs().pow(2).to(torch.cfloat)))
try:
    w.max()
except NotImplementedError as error:
    print("NotImplementedError:", error)

# ----- linear algebra ----------------------------------------------------------------------------

a = torch.tensor([[2 + 1j, 1 - 1j], [0 + 1j, 3 + 0j]])
b = torch.tensor([[1 + 0j], [2 - 1j]])
print(a @ b)
print(torch.matmul(b.mH, a))
print(a.mv(b.squeeze(1)))
x = torch.linalg.solve(a, b)
print(x.shape, x.dtype, torch.allclose(a @ x, b))
a_inv = torch.linalg.inv(a)
print(torch.allclose(a_inv @ a, torch.eye(2, dtype=torch.cfloat), atol=1e-6))
rotation = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
values, vectors = torch.linalg.eig(rotation)
print(values, vectors.dtype)
print(torch.allclose(rotation.to(torch.cfloat) @ vectors, vectors * values, atol=1e-6))
hermitian = torch.tensor([[2.0, 1 - 1j], [1 + 1j, 3.0]])
print(torch.equal(hermitian, hermitian.mH), torch.linalg.eigvalsh(hermitian))

# ----- serialization -------------------------------------------------------------------------

buffer = io.BytesIO()
torch.save({"a": a, "y": y}, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print(loaded["a"])
print(loaded["y"].dtype, torch.equal(loaded["a"], a), torch.equal(loaded["y"], y))

# ----- autograd ----------------------------------------------------------------------------

z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
loss = (z * z.conj()).real.sum()  # |z|^2 = x^2 + y^2, gradient 2x + 2iy
loss.backward()
print(z.grad, torch.equal(z.grad, 2 * z.detach()))

z.grad = None
weights = torch.tensor([2 - 1j, 1j])
(weights * z).real.sum().backward()  # Re(w z) is linear in (x, y): the gradient is conj(w)
print(z.grad, torch.equal(z.grad, weights.conj()))

z.grad = None
torch.view_as_real(z).pow(2).sum().backward()
print(z.grad, torch.equal(z.grad, 2 * z.detach()))

(grad,) = torch.autograd.grad(z.abs().sum(), z)
print(torch.allclose(grad, z / z.abs()))

# Through a linear solve: x = A^-1 b, L = |x|^2, so dL/db = A^-H (2x) and dL/dA = -(dL/db) x^H.
a_leaf = a.clone().requires_grad_()
b_leaf = b.clone().requires_grad_()
x = torch.linalg.solve(a_leaf, b_leaf)
x.abs().pow(2).sum().backward()
with torch.no_grad():
    grad_b = torch.linalg.solve(a.mH, 2 * x)
    print(torch.allclose(b_leaf.grad, grad_b, atol=1e-5))
    print(torch.allclose(a_leaf.grad, -grad_b @ x.mH, atol=1e-5))

product = (z * z).sum()
print(product.dtype, product.requires_grad, type(product.grad_fn).__name__)
try:
    product.backward()
except RuntimeError as error:
    print("RuntimeError:", error)

# ----- optimizers --------------------------------------------------------------------------

target = torch.tensor([1 - 1j, -2 + 0.5j])
for make in (
    lambda p: torch.optim.SGD([p], lr=0.1),
    lambda p: torch.optim.SGD([p], lr=0.1, momentum=0.9),
    lambda p: torch.optim.Adam([p], lr=0.1),
):
    p = torch.zeros(2, dtype=torch.cfloat, requires_grad=True)
    optimizer = make(p)
    for _ in range(200):
        optimizer.zero_grad()
        loss = (p - target).abs().pow(2).sum()
        loss.backward()
        optimizer.step()
    print(type(optimizer).__name__, p.detach(), loss.item() < 1e-3)

# A complex parameter is stepped as its real view would be.
p = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
q = torch.view_as_real(p.detach().clone()).requires_grad_()
adam_complex = torch.optim.Adam([p], lr=0.05)
adam_real = torch.optim.Adam([q], lr=0.05)
for _ in range(5):
    adam_complex.zero_grad()
    adam_real.zero_grad()
    p.abs().pow(3).sum().backward()
    torch.view_as_complex(q).abs().pow(3).sum().backward()
    adam_complex.step()
    adam_real.step()
print(torch.allclose(torch.view_as_real(p.detach()), q.detach()))
