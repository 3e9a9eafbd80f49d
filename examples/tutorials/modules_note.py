"""The steps of PyTorch's "Modules" note (docs/notes/modules, written for ``import
torch``): a custom ``MyLinear`` module with ``nn.Parameter``; modules as building blocks
(``nn.Sequential``, child modules, ``named_children``, ``named_modules``,
``nn.ModuleList`` and ``nn.ModuleDict`` for dynamic networks); the parameters of a
network; training and evaluation modes (``train``/``eval``, a module that behaves
differently); buffers (a ``RunningMean`` module, persistent and non-persistent buffers
in the ``state_dict``); module state (``state_dict``, ``load_state_dict``);
initialization (``device=``, ``dtype=``, the meta device, ``torch.nn.utils.skip_init``,
``apply`` with ``init`` functions); and module hooks (forward pre-hooks that change the
input, forward hooks that change the output, full backward hooks, and their removal).
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the note: random values are printed through shapes and checks, and
the hooks print what they see rather than random values."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


m = MyLinear(4, 3)
sample_input = torch.randn(4)
out = m(sample_input)
print(out.shape, out.grad_fn)
for parameter in m.named_parameters():
    print(parameter[0], parameter[1].shape)

net = nn.Sequential(MyLinear(4, 3), nn.ReLU(), MyLinear(3, 1))
sample_input = torch.randn(4)
print(net(sample_input).shape)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = F.relu(x)
        x = self.l1(x)
        return x


net = Net()
for child in net.named_children():
    print(child)


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


big_net = BigNet()
for module in big_net.named_modules():
    print(module)


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({"relu": nn.ReLU(), "lrelu": nn.LeakyReLU()})
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
            x = self.activations[act](x)
        x = self.final(x)
        return x


dynamic_net = DynamicNet(3)
sample_input = torch.randn(4)
output = dynamic_net(sample_input, "relu")
print(output.shape)
for parameter in dynamic_net.named_parameters():
    print(parameter[0], tuple(parameter[1].shape))

# Training a module: a loop with an optimizer
net = nn.Sequential(nn.Linear(4, 2), nn.ReLU(), nn.Linear(2, 1))
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, weight_decay=1e-2, momentum=0.9)
for _ in range(10):
    input = torch.randn(4)
    output = net(input)
    loss = torch.abs(output)
    net.zero_grad()
    loss.backward()
    optimizer.step()
print(net[0].weight.grad.shape)


class ModalModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if self.training:
            # Add a constant only in training mode.
            return x + 1.0
        else:
            return x


m = ModalModule()
x = torch.randn(4)
print("training mode output:", torch.equal(m(x), x + 1))
m.eval()
print("evaluation mode output:", torch.equal(m(x), x))


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


m = RunningMean(4)
for _ in range(10):
    input = torch.ones(4)
    m(input)
print(m.state_dict())
print(list(m.named_buffers()))
m.register_buffer("unserialized_thing", torch.randn(5), persistent=False)
print(list(m.state_dict()), [n for n, _ in m.named_buffers()])

m = nn.Linear(5, 3, device="cpu", dtype=torch.float64)
print(m.weight.dtype, m.weight.device)
m = nn.Linear(5, 3, device="meta")
print(m)
print(m.weight.is_meta)
m = torch.nn.utils.skip_init(nn.Linear, 5, 1)
print(type(m).__name__, m.weight.shape)


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_normal_(m.weight)
        m.bias.data.fill_(0.0)


net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
net.apply(init_weights)
print([float(layer.bias.detach().abs().sum()) for layer in net if isinstance(layer, nn.Linear)])

torch.manual_seed(1)


def forward_pre_hook(m, inputs):
    # Allows for examination and modification of the input before the forward pass.
    # Note that inputs are always wrapped in a tuple.
    input = inputs[0]
    print("pre-hook sees", tuple(input.shape))
    return input + 1.0


def forward_hook(m, inputs, output):
    # Allows for examination of inputs / outputs and modification of the outputs
    # after the forward pass. Note that inputs are always wrapped in a tuple while outputs
    # are passed as-is.

    # Residual computation a la ResNet.
    print("forward hook sees", tuple(inputs[0].shape), tuple(output.shape))
    return output + inputs[0]


def backward_hook(m, grad_inputs, grad_outputs):
    # Allows for examination of grad_inputs / grad_outputs and modification of
    # grad_inputs used in the rest of the backwards pass. Note that grad_inputs and
    # grad_outputs are always wrapped in tuples.
    print("backward hook sees", [tuple(g.shape) for g in grad_inputs], len(grad_outputs))
    new_grad_inputs = [torch.ones_like(gi) * 42.0 for gi in grad_inputs]
    return new_grad_inputs


# Create sample module & input.
m = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)

# ==== Demonstrate forward hooks. ====
# Run input through module before and after adding hooks.
print("output with no forward hooks:", m(x).shape)

# Note that the modified input results in a different output.
forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
print(torch.allclose(m(x), m.__class__.forward(m, x + 1.0)))

# Note the modified output.
forward_hook_handle = m.register_forward_hook(forward_hook)
out = m(x)
print(torch.allclose(out, m.__class__.forward(m, x + 1.0) + x + 1.0))

# Remove hooks; note that the output here matches the output before adding hooks.
forward_pre_hook_handle.remove()
forward_hook_handle.remove()
print(torch.equal(m(x), m.__class__.forward(m, x)))

# ==== Demonstrate backward hooks. ====
m(x).sum().backward()
print("x.grad with no backwards hook:", x.grad.shape)

# Clear gradients before running backward pass again.
m.zero_grad()
x.grad.zero_()

m.register_full_backward_hook(backward_hook)
m(x).sum().backward()
print("x.grad with backwards hook:", x.grad)
