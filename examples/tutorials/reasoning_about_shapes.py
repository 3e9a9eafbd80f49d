"""PyTorch's recipe "Reasoning about Shapes in PyTorch": learn the shapes a network produces
without computing anything, on the meta device, and print them from forward hooks.

Written for ``import torch``; ``chainrule run`` runs it unchanged.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

# a tensor on the meta device has a shape and a dtype but no data
a = torch.rand(2, 3, 10, 10, device="meta")
conv = torch.nn.Conv2d(3, 5, 2, device="meta")
print(f"{conv(a)=}")
print(a.device, a.shape, a.dtype, a.is_meta)

b = torch.zeros(4, 6, device="meta", dtype=torch.float64)
print(b)
print((b @ b.T).shape, (b.sum(dim=1)).shape, b.mean().dtype)
print(torch.ones(3, dtype=torch.int64, device="meta") + 1)

# a module moved to the meta device: its parameters keep their shapes and lose their data
lin = nn.Linear(6, 2).to("meta")
print(lin.weight.device, lin.weight.shape)
print(lin(b.float()).shape)

# the values cannot be read
for read in (lambda: a.numpy(), lambda: a.sum().item()):
    try:
        read()
    except Exception as e:
        print(type(e).__name__, e)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def fw_hook(module, input, output):
    print(f"Shape of output to {module} is {output.shape}.")


# any tensor created within this torch.device context manager is on the meta device
with torch.device("meta"):
    net = Net()
    inp = torch.randn((1024, 3, 32, 32))

for _name, layer in net.named_modules():
    layer.register_forward_hook(fw_hook)

out = net(inp)
print(out)
print(next(net.parameters()).device, inp.device)
