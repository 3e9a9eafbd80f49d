"""The steps of PyTorch's "Parametrizations Tutorial" (written for ``import torch``):
``torch.nn.utils.parametrize.register_parametrization`` making a layer's weight
symmetric, skew-symmetric, orthogonal (the matrix exponential and the Cayley map of a
skew-symmetric matrix), positive definite; the ``parametrizations`` container and
``original``; caching with ``parametrize.cached()``; several parametrizations chained on
one tensor; ``right_inverse`` for initialising through the parametrization; and
``remove_parametrizations`` with and without ``leave_parametrized``. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the tutorial: the weights are random, so the script prints the
properties the parametrizations guarantee (symmetry, orthogonality, shapes, names) rather
than the values."""

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize

torch.manual_seed(0)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
print(torch.allclose(A, A.T))
print(layer)
print(layer.parametrizations.weight.original.shape)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
parametrize.register_parametrization(cnn, "weight", Skew())
print(cnn.weight[0, 1])
print(torch.allclose(cnn.weight[2, 2], -cnn.weight[2, 2].T))


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        return torch.linalg.solve(self.Id - X, self.Id + X)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)
print(layer.parametrizations.weight)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)

layer_spd = nn.Linear(3, 3)
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print(torch.allclose(X, X.T), (torch.linalg.eigvalsh(X) > 0.0).all())


class Noisy(nn.Module):
    def forward(self, X):
        print("Computing the Parametrization")
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", Noisy())
print("Here, layer.weight is recomputed every time we call it")
foo = layer.weight + layer.weight.T
bar = layer.weight.sum()
with parametrize.cached():
    print("Here, it is computed just the first time layer.weight is called")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()


class Symmetric2(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T

    def right_inverse(self, A):
        return A.triu()


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric2())
X = torch.rand(3, 3)
X = X + X.T
layer.weight = X
print(torch.allclose(layer.weight, X))


class NoisyParametrization(nn.Module):
    def forward(self, X):
        print("Calling forward()")
        return X

    def right_inverse(self, X):
        print("Calling right_inverse()")
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
print("\nInitialization")
layer.weight = torch.rand(4, 4)
print("\nAccessing weight")
_ = layer.weight

layer = nn.Linear(3, 3)
print("Before:")
print(type(layer.weight).__name__, layer.weight.shape)
parametrize.register_parametrization(layer, "weight", Skew())
print("\nParametrized:")
print(layer)
W = layer.weight
parametrize.remove_parametrizations(layer, "weight")
print("\nAfter. Weight has skew-symmetric values but it is unconstrained:")
print(layer)
print(torch.equal(layer.weight, W), type(layer.weight).__name__)

layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
original = layer.parametrizations.weight.original.detach().clone()
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print(torch.equal(layer.weight, original))

layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
out = layer(torch.randn(2, 3)).sum()
out.backward()
print(layer.parametrizations.weight.original.grad.shape, layer.weight.requires_grad)
print(parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "bias"))
print(type(layer).__name__, sorted(layer.state_dict().keys()))
