"""The steps of PyTorch's "Tips for Loading an nn.Module from a Checkpoint" recipe
(written for ``import torch``): a checkpoint loaded with ``torch.load`` and with
``torch.load(mmap=True)`` (the storages mapped from the file rather than read into
memory); a module made on the ``meta`` device under ``with torch.device("meta")`` (no
memory, no initialisation); and ``load_state_dict(assign=True)``, which makes the
checkpoint's tensors the module's parameters (kept as ``nn.Parameter`` with the
module's ``requires_grad``) instead of copying into them; the optimizer made after
loading. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the recipe: the module has 10 layers of 200 features (the recipe's
are 1000), the checkpoint goes to a temporary directory, the timings are printed as
floats, and checks replace the recipe's prose (what is meta, what shares the loaded
tensors, equal outputs)."""

import os
import tempfile
import time

import torch
from torch import nn

torch.manual_seed(0)


class SomeModule(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(size, size) for i in range(10)])

    def forward(self, x):
        return self.linears(x)


tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "checkpoint.pth")
m = SomeModule(200)
torch.save(m.state_dict(), path)

start_time = time.time()
state_dict = torch.load(path)
end_time = time.time()
print(f"loading time without mmap={end_time - start_time}")
print(len(state_dict), list(state_dict)[:2], state_dict["linears.0.weight"].shape)

start_time = time.time()
state_dict = torch.load(path, mmap=True)
end_time = time.time()
print(f"loading time with mmap={end_time - start_time}")
print(all(torch.equal(state_dict[k], v) for k, v in m.state_dict().items()))

with torch.device("meta"):
    meta_m = SomeModule(200)
print(meta_m.linears[0].weight.device, meta_m.linears[0].weight.is_meta)
print(meta_m.linears[0].weight)

# the default load_state_dict copies into the meta parameters: a no-op that warns
meta_copy = SomeModule(200).to("meta")
meta_copy.load_state_dict(state_dict)
print(meta_copy.linears[0].weight.is_meta)

meta_m.load_state_dict(state_dict, assign=True)
weight = meta_m.linears[0].weight
print(type(weight).__name__, weight.is_meta, weight.requires_grad, weight.device)
print(weight.data_ptr() == state_dict["linears.0.weight"].data_ptr())
x = torch.randn(4, 200)
y, y_ref = x, x
for a, b in zip(meta_m.linears, m.linears):
    y, y_ref = a(y), b(y_ref)
print(torch.allclose(y, y_ref))

opt = torch.optim.SGD(meta_m.parameters(), lr=0.1)
y.sum().backward()
opt.step()
print(weight.grad.shape, torch.equal(state_dict["linears.0.weight"], weight.detach()))

# copying (the default) keeps the module's own tensors
fresh = SomeModule(200)
before = fresh.linears[0].weight
fresh.load_state_dict(torch.load(path))
print(fresh.linears[0].weight is before, torch.equal(before, m.linears[0].weight))
tmp.cleanup()
