"""The steps of PyTorch's "Pruning Tutorial" (written for ``import torch``): LeNet's
layers pruned with ``torch.nn.utils.prune``: ``random_unstructured`` on a weight (the
``weight_orig`` parameter and ``weight_mask`` buffer, the forward pre-hook), then
``l1_unstructured`` on the bias, iterative pruning with ``ln_structured`` along a dim
(the ``PruningContainer`` in the hook), ``prune.remove`` making it permanent, pruning
several parameters of a model, ``global_unstructured`` over a list of parameters, and a
custom ``BasePruningMethod`` (every other entry). Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: the masks and weights are random, so the script prints
their shapes, names, counts and the sparsity percentages that follow from the amounts
(the same whichever entries are drawn) rather than their values."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


model = LeNet()
module = model.conv1
print([name for name, _ in module.named_parameters()])
print([name for name, _ in module.named_buffers()])

prune.random_unstructured(module, name="weight", amount=0.3)
print([name for name, _ in module.named_parameters()])
print([(name, b.shape, b.dtype) for name, b in module.named_buffers()])
print("zeros in conv1.weight:", int((module.weight == 0).sum()), "of", module.weight.nelement())
print(module._forward_pre_hooks.keys().__len__())

prune.l1_unstructured(module, name="bias", amount=3)
print([name for name, _ in module.named_parameters()])
print("zeros in conv1.bias:", int((module.bias == 0).sum()))
smallest = module.bias_orig.abs().argsort()[:3].sort().values
print("pruned the 3 smallest:", torch.equal((module.bias_mask == 0).nonzero().flatten(), smallest))

prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
channels = (module.weight.flatten(1) == 0).all(dim=1)
print("whole channels pruned:", int(channels.sum()))
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(type(hook).__name__, [type(m).__name__ for m in hook])

print(list(model.state_dict().keys()))
prune.remove(module, "weight")
print([name for name, _ in module.named_parameters()])
print([name for name, _ in module.named_buffers()])

new_model = LeNet()
for _name, m in new_model.named_modules():
    if isinstance(m, torch.nn.Conv2d):
        prune.l1_unstructured(m, name="weight", amount=0.2)
    elif isinstance(m, torch.nn.Linear):
        prune.l1_unstructured(m, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())

model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
total = sum(m.weight.nelement() for m, _ in parameters_to_prune)
zeros = sum(int((m.weight == 0).sum()) for m, _ in parameters_to_prune)
print(f"global sparsity: {100.0 * zeros / total:.2f}%")
for m, _ in parameters_to_prune:
    print(type(m).__name__, m.weight.shape)


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)
out = model(torch.randn(2, 1, 28, 28))
out.sum().backward()
print(out.shape, model.fc3.bias_orig.grad * 0 + model.fc3.bias_mask)
