"""The steps of PyTorch's "Introduction to PyTorch Tensors" (Introduction to PyTorch
series, written for ``import torch``): creation (``empty``, ``zeros``, ``ones``,
``rand``, the ``*_like`` functions, ``tensor`` from nested lists and tuples), seeding
(``manual_seed`` repeats a sequence), dtypes (``int16``, ``float64``, ``.to``), math
with scalars and tensors, broadcasting rules (and the error for incompatible shapes),
the math functions (``abs``, ``ceil``, ``clamp``, trigonometry, bitwise and comparison
ops, reductions, ``linalg`` ops), in-place variants and ``out=``, copying
(``clone``, ``detach``), shapes (``unsqueeze``, ``squeeze``, ``reshape``), and the NumPy
bridge (``from_numpy`` and ``.numpy()`` share memory). Runs unchanged with PyTorch and
with ``chainrule run``.

What differs from the tutorial: the GPU section is left out, and random values are
printed as floats or through checks where integer results would depend on the random
stream."""

import math

import numpy as np
import torch

x = torch.empty(3, 4)
print(type(x), x.shape)

zeros = torch.zeros(2, 3)
print(zeros)

ones = torch.ones(2, 3)
print(ones)

torch.manual_seed(1729)
random = torch.rand(2, 3)
print(random)

torch.manual_seed(1729)
random1 = torch.rand(2, 3)
torch.manual_seed(1729)
random3 = torch.rand(2, 3)
print(torch.equal(random1, random3))

x = torch.empty(2, 2, 3)
print(x.shape)
empty_like_x = torch.empty_like(x)
print(empty_like_x.shape)
zeros_like_x = torch.zeros_like(x)
print(zeros_like_x)
ones_like_x = torch.ones_like(x)
print(ones_like_x.shape)
rand_like_x = torch.rand_like(x)
print(rand_like_x.shape)

some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
print(some_constants)
some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
print(some_integers)
more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
print(more_integers)

a = torch.ones((2, 3), dtype=torch.int16)
print(a)
b = torch.rand((2, 3), dtype=torch.float64) * 20.0
print(b.dtype)
c = b.to(torch.int32)
print(c.dtype, torch.equal(c, b.trunc().to(torch.int32)))

ones = torch.zeros(2, 2) + 1
twos = torch.ones(2, 2) * 2
threes = (torch.ones(2, 2) * 7 - 1) / 2
fours = twos**2
sqrt2s = twos**0.5
print(ones, twos, threes, fours, sqrt2s)
powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
print(powers2)
fives = ones + fours
print(fives)
dozens = threes * fours
print(dozens)

a = torch.rand(2, 3)
b = torch.rand(2, 4)
try:
    a * b
except RuntimeError as e:
    print("RuntimeError:", e)

rand = torch.rand(2, 4)
doubled = rand * (torch.ones(1, 4) * 2)
print(torch.allclose(doubled, rand * 2))

a = torch.ones(4, 3, 2)
b = a * torch.rand(3, 2)  # 3rd & 2nd dims identical to a, dim 1 absent
print(b.shape)
c = a * torch.rand(3, 1)  # 3rd dim = 1, 2nd dim identical to a
print(c.shape)
d = a * torch.rand(1, 2)  # 3rd dim identical to a, 2nd dim = 1
print(d.shape)
for shape in ((4, 3, 2), (2, 3), (1, 3)):
    try:
        print((a * torch.ones(*shape)).shape)
    except RuntimeError as e:
        print("RuntimeError:", e)

a = torch.tensor([[-0.5, 0.7], [1.2, -1.8]])
print("Common functions:")
print(torch.abs(a))
print(torch.ceil(a))
print(torch.floor(a))
print(torch.clamp(a, -0.5, 0.5))

angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
print("\nSine and arcsine:")
print(angles)
print(sines)
print(inverses)

print("\nBitwise XOR:")
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
print(torch.bitwise_xor(b, c))

print("\nBroadcasted, element-wise equality comparison:")
d = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
e = torch.ones(1, 2)  # many comparison ops support broadcasting!
print(torch.eq(d, e))  # returns a tensor of type bool

print("\nReduction ops:")
print(torch.max(d))  # returns a single-element tensor
print(torch.max(d).item())  # extracts the value from the returned tensor
print(torch.mean(d))  # average
print(torch.std(d))  # standard deviation
print(torch.prod(d))  # product of all numbers
print(torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))  # filter unique elements

v1 = torch.tensor([1.0, 0.0, 0.0])  # x unit vector
v2 = torch.tensor([0.0, 1.0, 0.0])  # y unit vector
m1 = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
m2 = torch.tensor([[3.0, 0.0], [0.0, 3.0]])  # three times identity matrix

print("\nVectors & Matrices:")
print(torch.linalg.cross(v2, v1))  # negative of z unit vector (v1 x v2 == -v2 x v1)
print(m1)
m3 = torch.linalg.matmul(m1, m2)
print(m3)  # 3 times m1
print(torch.linalg.svd(m3).S)  # singular value decomposition

a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print("a:")
print(a)
print(torch.sin(a))  # this operation creates a new tensor in memory
print(a)  # a has not changed

b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print("\nb:")
print(b)
print(torch.sin_(b))  # note the underscore
print(b)  # b has changed

a = torch.ones(2, 2)
b = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(a.add_(b), a.mul_(b))

a = torch.rand(2, 2)
b = torch.rand(2, 2)
c = torch.zeros(2, 2)
old_id = id(c)
d = torch.matmul(a, b, out=c)
print(torch.equal(c, d), id(c) == old_id, id(d) == old_id)
torch.rand(2, 2, out=c)
print(id(c) == old_id)

a = torch.ones(2, 2)
b = a
a[0][1] = 561  # we change a...
print(b)  # ...and b is also altered
a = torch.ones(2, 2)
b = a.clone()
assert b is not a  # different objects in memory...
print(torch.eq(a, b))  # ...but still with the same contents!
a[0][1] = 561  # a changes...
print(b)  # ...but b is still all ones

a = torch.rand(2, 2, requires_grad=True)  # turn on autograd
b = a.clone()
c = a.detach().clone()
print(b.requires_grad, b.grad_fn is not None, c.requires_grad, a.requires_grad)

a = torch.rand(3, 226, 226)
b = a.unsqueeze(0)
print(a.shape, b.shape)
c = torch.rand(1, 1, 1, 1, 1)
print(c.shape)
a = torch.rand(1, 20)
print(a.shape)
b = a.squeeze(0)
print(b.shape)
c = torch.rand(2, 2)
print(c.shape)
d = c.squeeze(0)
print(d.shape)
a = torch.ones(4, 3, 2)
c = a * torch.rand(3, 1).unsqueeze(0)
print(c.shape)
batch_me = torch.rand(3, 226, 226)
batch_me.unsqueeze_(0)
print(batch_me.shape)
output3d = torch.rand(6, 20, 20)
input1d = output3d.reshape(6 * 20 * 20)
print(input1d.shape)
print(torch.reshape(output3d, (6 * 20 * 20,)).shape)

numpy_array = np.ones((2, 3))
print(numpy_array)
pytorch_tensor = torch.from_numpy(numpy_array)
print(pytorch_tensor)
pytorch_rand = torch.rand(2, 3)
numpy_rand = pytorch_rand.numpy()
print(type(numpy_rand).__name__, numpy_rand.dtype, numpy_rand.shape)
numpy_array[1, 1] = 23
print(pytorch_tensor)
pytorch_rand[1, 1] = 17
print(numpy_rand[1, 1])
