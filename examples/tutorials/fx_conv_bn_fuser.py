"""The FX tutorial "Building a Convolution/Batch Norm fuser in FX", its steps written for
``import torch``: a small conv net is symbolically traced, every batch norm that reads a
convolution's output is folded into that convolution's weight and bias (in eval mode a
batch norm is an affine map per channel), the batch norm nodes are erased from the graph,
and the rewritten module gives the same outputs. Runs unchanged with PyTorch and with
``chainrule run``."""

import copy

import torch
import torch.fx as fx
import torch.nn as nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        return self.head(x.mean((2, 3)))


def fuse(model: nn.Module) -> fx.GraphModule:
    """The model traced, each (conv, batch norm) pair replaced by one convolution."""
    model = copy.deepcopy(model)
    traced = fx.symbolic_trace(model)
    modules = dict(traced.named_modules())
    for node in list(traced.graph.nodes):
        if node.op != "call_module" or not isinstance(modules[node.target], nn.BatchNorm2d):
            continue
        source = node.args[0]
        if source.op != "call_module" or not isinstance(modules[source.target], nn.Conv2d):
            continue
        if len(source.users) > 1:  # the convolution's output is read elsewhere too
            continue
        fused = fuse_conv_bn_eval(modules[source.target], modules[node.target])
        parent, _, name = source.target.rpartition(".")
        setattr(modules[parent] if parent else traced, name, fused)
        node.replace_all_uses_with(source)
        traced.graph.erase_node(node)
    traced.graph.lint()
    traced.delete_all_unused_submodules()  # (the batch norms no node calls now)
    traced.recompile()
    return traced


model = Net()
# some batch statistics first, so that the batch norms are not the identity
model.train()
for _ in range(3):
    model(torch.randn(4, 3, 8, 8))
model.eval()

fused = fuse(model)
print(fx.symbolic_trace(model).graph)
print(fused.code)
x = torch.randn(2, 3, 8, 8)
with torch.no_grad():
    print("same outputs:", torch.allclose(model(x), fused(x), atol=1e-5))
print("batch norms left:", sum(isinstance(m, nn.BatchNorm2d) for m in fused.modules()))
