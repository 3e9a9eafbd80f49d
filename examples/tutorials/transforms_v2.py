"""The steps of torchvision's "Getting started with transforms v2" and "Transforms v2:
End-to-end object detection/segmentation" examples (written for ``import torch`` and
``torchvision``): ``transforms.v2`` pipelines (``RandomResizedCrop``,
``RandomHorizontalFlip``, ``ToDtype`` with ``scale=True``, ``Normalize``) on plain
tensors, on ``tv_tensors.Image``, and on detection samples of an image with
``tv_tensors.BoundingBoxes`` and ``tv_tensors.Mask`` transformed together (an arbitrary
structure of dicts and lists, with labels passed through);
``RandomPhotometricDistort``, ``RandomZoomOut``, ``RandomIoUCrop`` and
``SanitizeBoundingBoxes``; ``tv_tensors.wrap``; and the ``v2.functional`` kernels.
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the examples: no images or COCO download, so the image is random
uint8 data and the boxes and masks are made by hand; nothing is plotted; since the
random crops differ between the libraries' random streams, the outputs are checked by
type, dtype, size and consistency (every kept box inside the image, as many labels as
boxes) rather than by their values."""

import torch
from torchvision import tv_tensors
from torchvision.transforms import v2
from torchvision.transforms.v2 import functional as F

torch.manual_seed(1)
H, W = 120, 160
img = torch.randint(0, 256, size=(3, H, W), dtype=torch.uint8)

transforms = v2.Compose(
    [
        v2.RandomResizedCrop(size=(64, 64), antialias=True),
        v2.RandomHorizontalFlip(p=0.5),
        v2.ToDtype(torch.float32, scale=True),
        v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ]
)
out = transforms(img)
print(type(out).__name__, out.shape, out.dtype)
out = transforms(tv_tensors.Image(img))
print(type(out).__name__, out.shape, out.dtype)

boxes = tv_tensors.BoundingBoxes(
    [[15, 10, 70, 60], [80, 40, 150, 110], [5, 70, 40, 115]], format="XYXY", canvas_size=(H, W)
)
masks = torch.zeros(3, H, W, dtype=torch.uint8)
for i, (x1, y1, x2, y2) in enumerate(boxes.tolist()):
    masks[i, int(y1) : int(y2), int(x1) : int(x2)] = 1
masks = tv_tensors.Mask(masks)
print(boxes)
print(type(masks).__name__, masks.shape, boxes.format, boxes.canvas_size)

transforms = v2.Compose(
    [
        v2.RandomPhotometricDistort(p=1),
        v2.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}),
        v2.RandomIoUCrop(),
        v2.RandomHorizontalFlip(p=1),
        v2.SanitizeBoundingBoxes(),
        v2.Resize((96, 96), antialias=True),
        v2.ToDtype(torch.float32, scale=True),
    ]
)
sample = (
    tv_tensors.Image(img),
    {"boxes": boxes, "masks": masks, "labels": torch.tensor([1, 2, 3])},
)
for _ in range(3):
    image, target = transforms(sample)
    b = target["boxes"]
    print(type(image).__name__, image.shape, image.dtype, type(b).__name__, b.canvas_size)
    print(
        len(b) == len(target["labels"]) == len(target["masks"]),
        bool(((b[:, 0] >= 0) & (b[:, 2] <= 96) & (b[:, 1] >= 0) & (b[:, 3] <= 96)).all()),
        target["masks"].shape[-2:],
    )

# A list of samples, and things the transforms pass through untouched
structured = [(tv_tensors.Image(img), "a string", 3.0), {"boxes": boxes}]
out = v2.RandomHorizontalFlip(p=1)(structured)
print(out[0][1:], torch.equal(out[0][0], img.flip(-1)))
print(out[1]["boxes"])

# tv_tensors keep their type through the v2 functional kernels; plain ops unwrap them
flipped = F.horizontal_flip(boxes)
print(type(flipped).__name__, flipped)
print(type(boxes + 1).__name__, type(tv_tensors.wrap(boxes + 1, like=boxes)).__name__)
print(F.resize(tv_tensors.Image(img), [60, 80], antialias=True).shape)
print(F.convert_bounding_box_format(boxes, new_format="CXCYWH"))
