"""The steps of PyTorch's "Custom Python Operators" tutorial (written for ``import torch``
and ``torchvision``): a PIL-backed ``crop`` made an operator with
``torch.library.custom_op`` (a schema from its type hints), a fake kernel with
``register_fake`` so ``torch.compile(fullgraph=True)`` can trace it, training support
with ``register_autograd`` (its backward is another custom operator, ``paste``), the
operators tested with ``torch.library.opcheck``, and a mutable operator
(``mutates_args``, ``device_types="cpu"``) writing through NumPy into its output. Runs
unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: ``torch.compile`` is given ``backend="eager"`` (the
default backend compiles C++ and needs a compiler; the tracing is the same); the images
are not displayed (shapes and checks are printed); the opcheck examples are smaller,
and non-negative (``to_pil_image`` of negative floats wraps around)."""

from collections.abc import Sequence

import numpy as np
import PIL
import torch
from torchvision.transforms.functional import pil_to_tensor, to_pil_image


def crop(pic, box):
    img = to_pil_image(pic.cpu())
    cropped_img = img.crop(box)
    return pil_to_tensor(cropped_img).to(pic.device) / 255.0


img = torch.ones(3, 64, 64)
img *= torch.linspace(0, 1, steps=64) * torch.linspace(0, 1, steps=64).unsqueeze(-1)
cropped_img = crop(img, (10, 10, 50, 50))
print(cropped_img.shape, cropped_img.dtype)


# Use torch.library.custom_op to define a new custom operator.
# If your operator mutates any input Tensors, their names must be specified
# in the ``mutates_args`` argument.
@torch.library.custom_op("mylib::crop", mutates_args=())
def crop(pic: torch.Tensor, box: Sequence[int]) -> torch.Tensor:
    img = to_pil_image(pic.cpu())
    cropped_img = img.crop(box)
    return (pil_to_tensor(cropped_img) / 255.0).to(pic.device, pic.dtype)


# Use register_fake to add a ``FakeTensor`` kernel for the operator
@crop.register_fake
def _(pic, box):
    channels = pic.shape[0]
    x0, y0, x1, y1 = box
    result = pic.new_empty(y1 - y0, x1 - x0, channels).permute(2, 0, 1)
    # The result should have the same metadata (shape/strides/``dtype``/device)
    # as running the ``crop`` function above.
    return result


print(type(crop).__name__, crop._qualname if hasattr(crop, "_qualname") else None)
print(torch.ops.mylib.crop.default._schema)


@torch.compile(fullgraph=True, backend="eager")
def f(img):
    return crop(img, (10, 10, 50, 50))


cropped_img = f(img)
print(cropped_img.shape, torch.allclose(cropped_img, img[:, 10:50, 10:50], atol=1 / 255))
print(torch.equal(torch.ops.mylib.crop(img, (10, 10, 50, 50)), cropped_img))


@torch.library.custom_op("mylib::paste", mutates_args=())
def paste(im1: torch.Tensor, im2: torch.Tensor, coord: Sequence[int]) -> torch.Tensor:
    assert im1.device == im2.device
    assert im1.dtype == im2.dtype
    im1_pil = to_pil_image(im1.cpu())
    im2_pil = to_pil_image(im2.cpu())
    PIL.Image.Image.paste(im1_pil, im2_pil, coord)
    return (pil_to_tensor(im1_pil) / 255.0).to(im1.device, im1.dtype)


@paste.register_fake
def _(im1, im2, coord):
    assert im1.device == im2.device
    assert im1.dtype == im2.dtype
    return torch.empty_like(im1)


def backward(ctx, grad_output):
    grad_input = grad_output.new_zeros(ctx.pic_shape)
    grad_input = paste(grad_input, grad_output, ctx.coords)
    return grad_input, None


def setup_context(ctx, inputs, output):
    pic, box = inputs
    ctx.coords = box[:2]
    ctx.pic_shape = pic.shape


crop.register_autograd(backward, setup_context=setup_context)

img = img.requires_grad_()
result = crop(img, (10, 10, 50, 50))
print(result.requires_grad, result.grad_fn is not None)
result.sum().backward()
expected = torch.zeros(3, 64, 64)
expected[:, 10:50, 10:50] = 1
print(img.grad.shape, torch.equal(img.grad, expected))

examples = [
    [torch.rand(3, 64, 64), [0, 0, 10, 10]],
    [torch.rand(3, 31, 31, requires_grad=True), [10, 0, 20, 10]],
    [torch.rand(3, 30, 30, dtype=torch.double), [3, 4, 22, 20]],
    [torch.rand(3, 48, 48, requires_grad=True, dtype=torch.double), [3, 4, 32, 45]],
]
for example in examples:
    print(sorted(torch.library.opcheck(crop, example).items()))


# Mutable Python Custom operators
@torch.library.custom_op("mylib::numpy_sin", mutates_args={"output"}, device_types="cpu")
def numpy_sin(input: torch.Tensor, output: torch.Tensor) -> None:
    assert input.device == output.device
    assert input.device.type == "cpu"
    input_np = input.numpy()
    output_np = output.numpy()
    np.sin(input_np, out=output_np)


print(torch.ops.mylib.numpy_sin.default._schema)


@torch.compile(fullgraph=True, backend="eager")
def f(x):
    out = torch.empty(3)
    numpy_sin(x, out)
    return out


x = torch.randn(3)
y = f(x)
print(torch.allclose(y, x.sin()))

example_inputs = [
    [torch.randn(3), torch.empty(3)],
    [torch.randn(0, 3), torch.empty(0, 3)],
    [torch.randn(1, 2, 3, 4, dtype=torch.double), torch.empty(1, 2, 3, 4, dtype=torch.double)],
]

for example in example_inputs:
    print(sorted(torch.library.opcheck(numpy_sin, example).items()))
