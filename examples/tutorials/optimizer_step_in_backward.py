"""The steps of PyTorch's "How to save memory by fusing the optimizer step into the
backward pass" tutorial (written for ``import torch`` and ``torchvision``): a
torchvision model trained the usual way (``backward``, then ``optimizer.step()`` and
``zero_grad()``), then with one ``Adam`` optimizer per parameter stepped from a hook
registered with ``Tensor.register_post_accumulate_grad_hook``, so each gradient is used
and freed as soon as backward has accumulated it; the two give the same parameters.
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no CUDA and no memory snapshots
(``torch.cuda.memory._record_memory_history``), so the memory saving is shown by
counting the gradients alive at the end of backward; a ``resnet18`` without pretrained
weights on 32x32 images where the tutorial uses a pretrained ViT-L/16; the two ways are
compared with ``allclose``."""

import copy

import torch
from torchvision import models

torch.manual_seed(0)
IMAGE_SIZE = 32

model = models.resnet18(weights=None, num_classes=10)
model_fused = copy.deepcopy(model)
optimizer = torch.optim.Adam(model.parameters(), foreach=False)
fake_images = [torch.rand(2, 3, IMAGE_SIZE, IMAGE_SIZE) for _ in range(3)]


def train(model, optimizer, fake_image):
    # create our fake image input: tensor shape is batch_size, channels, height, width
    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()
    grads_alive = sum(p.grad is not None for p in model.parameters())
    # optimizer update
    optimizer.step()
    optimizer.zero_grad()
    return grads_alive


for fake_image in fake_images:
    print("gradients alive after backward:", train(model, optimizer, fake_image))

# Instead of having just *one* optimizer, we will have a ``dict`` of optimizers
# for every parameter so we could reference them in our hook.
optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model_fused.parameters()}


# Define our hook, which will call the optimizer ``step()`` and ``zero_grad()``
def optimizer_hook(parameter) -> None:
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


# Register the hook onto every parameter
handles = [p.register_post_accumulate_grad_hook(optimizer_hook) for p in model_fused.parameters()]
print(len(handles), type(handles[0]).__name__)


# Now remember our previous ``train()`` function? Since the optimizer has been
# fused into the backward, we can remove the optimizer step and zero_grad calls.
def train_fused(model, fake_image):
    # create our fake image input: tensor shape is batch_size, channels, height, width
    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()
    # optimizer update --> no longer needed!
    return sum(p.grad is not None for p in model.parameters())


for fake_image in fake_images:
    print("gradients alive after backward:", train_fused(model_fused, fake_image))

same = [
    torch.allclose(a, b, atol=1e-6) for a, b in zip(model.parameters(), model_fused.parameters())
]
print(len(same), all(same))
print(all(torch.equal(a, b) for a, b in zip(model.buffers(), model_fused.buffers())))
states = [optimizer_dict[p].state[p]["step"] for p in model_fused.parameters()]
print(states[0], all(torch.equal(s, states[0]) for s in states))

# removing the hooks returns to the usual behaviour: gradients are kept
for handle in handles:
    handle.remove()
print("gradients alive after backward:", train_fused(model_fused, fake_images[0]))


# the hook runs on leaves only
def show(t):
    print("accumulated:", t.grad.shape)


x = torch.ones(3, requires_grad=True)
x.register_post_accumulate_grad_hook(show)
(x * 2).sum().backward()
try:
    (x * 2).register_post_accumulate_grad_hook(show)
except RuntimeError as e:
    print("RuntimeError:", e)
