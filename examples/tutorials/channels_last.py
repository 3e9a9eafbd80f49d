"""PyTorch's tutorial "(beta) Channels Last Memory Format in PyTorch", the steps that need no
download and no GPU: the strides of an NCHW tensor in each memory format, the ways to convert
between them, which operations keep a format, and a model whose convolutions, batch norm and
pooling keep its input channels-last once it is converted.

Written for ``import torch``; ``chainrule run`` runs it unchanged.
"""

import torch
import torch.nn as nn

# ----- the memory format of a tensor ---------------------------------------------------------

# row-major (NCHW): W is innermost, then H, C, N
N, C, H, W = 10, 3, 32, 32
x = torch.empty(N, C, H, W)
print(x.stride())

# the same tensor with its channels innermost (NHWC in memory); the shape does not change
x = x.to(memory_format=torch.channels_last)
print(x.shape)
print(x.stride())

# and back
x = x.to(memory_format=torch.contiguous_format)
print(x.stride())

# contiguous() takes a format too
x = x.contiguous(memory_format=torch.channels_last)
print(x.stride())

# asking which format a tensor is in
print(x.is_contiguous(memory_format=torch.channels_last))
print(x.is_contiguous(memory_format=torch.contiguous_format))
print(x.is_contiguous())

# a size-1 dim takes any stride, so a tensor with one channel is in both formats at once
special_x = torch.empty(4, 1, 4, 4)
print(special_x.is_contiguous(memory_format=torch.channels_last))
print(special_x.is_contiguous(memory_format=torch.contiguous_format))

# a channels-last tensor is an NHWC tensor permuted back to NCHW
nhwc = torch.empty(N, H, W, C).permute(0, 3, 1, 2)
print(nhwc.shape, nhwc.stride(), nhwc.is_contiguous(memory_format=torch.channels_last))

# 5-d tensors (NCDHW) have channels_last_3d
video = torch.empty(2, 3, 4, 5, 6).to(memory_format=torch.channels_last_3d)
print(video.stride(), video.is_contiguous(memory_format=torch.channels_last_3d))

# ----- creating tensors in a format, and operations that keep it ------------------------------

x = torch.empty(N, C, H, W, memory_format=torch.channels_last)
print(x.stride())

# clone, to (a dtype), the *_like constructors keep the format (preserve_format)
y = x.clone()
print(y.stride())
print(x.to(torch.float64).stride())
print(x.double().stride())
y = torch.empty_like(x)
print(y.stride())
print(torch.zeros_like(x).stride(), torch.randn_like(x).stride())
print(torch.ones_like(x, memory_format=torch.contiguous_format).stride())

# pointwise operations keep it
z = x + y
print(z.stride())
print(torch.relu(x).stride(), (x * 2).stride(), torch.sigmoid(x).stride())

# ----- convolutions and the layers around them ------------------------------------------------

# a convolution gives a channels-last output when its input or its weight is channels-last
torch.manual_seed(0)
model = nn.Conv2d(8, 4, 3)
model = model.to(memory_format=torch.channels_last)  # the weight becomes channels-last
print(model.weight.stride(), model.weight.is_contiguous(memory_format=torch.channels_last))
input = torch.randint(1, 10, (2, 8, 4, 4), dtype=torch.float32)
input = input.to(memory_format=torch.channels_last).requires_grad_()
out = model(input)
print(out.shape, out.stride())
print(out.is_contiguous(memory_format=torch.channels_last))

# the gradients reach the input and the weight
out.sum().backward()
print(input.grad.shape, model.weight.grad.shape)

# a row-major input with the channels-last weight: channels-last all the same
out = model(torch.randn(2, 8, 4, 4))
print(out.is_contiguous(memory_format=torch.channels_last))

# a row-major convolution of a channels-last input
plain = nn.Conv2d(8, 4, 3)
print(plain(input).is_contiguous(memory_format=torch.channels_last))
print(plain(input.contiguous()).is_contiguous())

# ----- converting a model ---------------------------------------------------------------------

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1),
    nn.BatchNorm2d(16),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, stride=2, padding=1),
    nn.BatchNorm2d(32),
    nn.ReLU(),
    nn.Upsample(scale_factor=2, mode="nearest"),
    nn.AdaptiveAvgPool2d((2, 2)),
    nn.Flatten(),
    nn.Linear(128, 10),
)

# once, after the model is built (or loaded): its 4-d parameters become channels-last
net = net.to(memory_format=torch.channels_last)
print(net[0].weight.is_contiguous(memory_format=torch.channels_last))
print(net[1].weight.stride(), net[10].weight.stride())

# and every input
images = torch.randn(4, 3, 16, 16).to(memory_format=torch.channels_last)
output = net(images)
print(output.shape)


# which layers keep the format: a forward hook on each prints its output's layout
def report(module, args, result):
    if result.dim() == 4:
        kept = result.is_contiguous(memory_format=torch.channels_last)
        print(f"{type(module).__name__:18} {tuple(result.shape)} channels_last={kept}")
    else:
        print(f"{type(module).__name__:18} {tuple(result.shape)}")


hooks = [layer.register_forward_hook(report) for layer in net]
with torch.no_grad():
    net(images)
for hook in hooks:
    hook.remove()

# a training step runs as on row-major tensors
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
loss = nn.functional.cross_entropy(net(images), torch.tensor([1, 0, 4, 9]))
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(loss.shape, loss.dtype, loss.grad_fn.name())
print(net[0].weight.is_contiguous(memory_format=torch.channels_last))
