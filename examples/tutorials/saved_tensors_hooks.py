"""The steps of PyTorch's "Hooks for autograd saved tensors" tutorial (written for
``import torch``): the tensors a node saves for backward, read through
``grad_fn._saved_self`` and ``_saved_result`` (equal to, but not, the input or output);
the error on reading them after backward frees them; ``_raw_saved_self`` (a
``SavedTensor``) and its ``register_hooks``; ``torch.autograd.graph.saved_tensors_hooks``
with pack/unpack hooks that print, that count what they see, that save to disk in a
temporary directory (a self-deleting file per tensor, only for tensors over a size), and
a ``save_on_cpu`` context; and the hooks applied to a whole ``nn.Module``'s forward, with
gradients equal to those without hooks. Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: no CUDA (``save_on_cpu`` runs with
``pin_memory=False``), no memory profiling; small tensors of ones so what the hooks
print is the same with either library; gradients are compared with ``allclose`` where
the tutorial's are random."""

import os
import tempfile
import uuid

import torch
import torch.nn as nn

torch.manual_seed(0)

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn)
print(x.equal(y.grad_fn._saved_self))
print(x is y.grad_fn._saved_self)

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))
print(y is y.grad_fn._saved_result)

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.sum().backward()
try:
    print(y.grad_fn._saved_self)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(type(y.grad_fn._raw_saved_self).__name__)


def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad)

x = torch.ones(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
y.sum().backward()
print(x.grad)

# Hooks that only count what they see.
counts = {"pack": 0, "unpack": 0}


def counting_pack(x):
    counts["pack"] += 1
    return x


def counting_unpack(x):
    counts["unpack"] += 1
    return x


x = torch.randn(5, 5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(counting_pack, counting_unpack):
    y = x.sin().exp()
    z = (y * x).sum()
print(counts)
z.backward()
print(counts, torch.allclose(x.grad, (x.sin().exp() * x.cos() * x + x.sin().exp())))


# Pack hooks returning something else than a tensor: the saved value as a tuple.
def pack_as_tuple(x):
    return ("tagged", x.detach().clone())


def unpack_from_tuple(packed):
    tag, t = packed
    assert tag == "tagged"
    return t


x = torch.randn(4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_as_tuple, unpack_from_tuple):
    y = (x * x).sum()
y.backward()
print(torch.allclose(x.grad, 2 * x))

# Saving on disk.
tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


class SelfDeletingTempFile:
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


def pack_hook(tensor):
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)
    return temp_file


def unpack_hook(temp_file):
    return torch.load(temp_file.name)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
print(len(os.listdir(tmp_dir)))
print(y.grad_fn._saved_self.equal(x))
y.sum().backward()
print(torch.allclose(x.grad, 2 * x))
del y
print(len(os.listdir(tmp_dir)))

SAVE_ON_DISK_THRESHOLD = 1000


def pack_hook(x):
    if x.numel() < SAVE_ON_DISK_THRESHOLD:
        return x
    temp_file = SelfDeletingTempFile()
    torch.save(x, temp_file.name)
    return temp_file


def unpack_hook(tensor_or_sctf):
    if isinstance(tensor_or_sctf, torch.Tensor):
        return tensor_or_sctf
    return torch.load(tensor_or_sctf.name)


small = torch.randn(10, requires_grad=True)
big = torch.randn(2000, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    out = small.exp().sum() + big.exp().sum()
print(len(os.listdir(tmp_dir)))
out.backward()
print(torch.allclose(small.grad, small.exp()), torch.allclose(big.grad, big.exp()))
del out
print(len(os.listdir(tmp_dir)))

# The hooks applied to a module's forward.
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Tanh())
x = torch.randn(40, 32)
model(x).pow(2).sum().backward()
expected = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = model(x)
print(len(os.listdir(tmp_dir)) > 0)
y.pow(2).sum().backward()
print(all(torch.allclose(p.grad, g) for p, g in zip(model.parameters(), expected)))
del y

model.zero_grad()
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    y = model(x)
y.pow(2).sum().backward()
print(all(torch.allclose(p.grad, g) for p, g in zip(model.parameters(), expected)))
del y
print(len(os.listdir(tmp_dir)))
tmp_dir_obj.cleanup()
