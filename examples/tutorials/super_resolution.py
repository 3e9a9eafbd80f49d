"""The steps of PyTorch's ``examples/super_resolution`` (written for ``import torch`` and
``torchvision``): the sub-pixel convolution network of ``Conv2d`` layers and
``nn.PixelShuffle``, with ``init.orthogonal_`` weights scaled by ``calculate_gain``;
a dataset of PIL images read as the Y channel of ``YCbCr``, the input made by
``CenterCrop``, ``Resize`` and ``ToTensor`` and the target by ``CenterCrop`` and
``ToTensor``; training with ``MSELoss`` and ``Adam``, testing by PSNR; the whole model
kept with ``torch.save(model, path)`` and read back with ``torch.load``; and
``super_resolve.py``'s step: an image upscaled by the loaded model, its Y channel
clipped and merged back with the bicubic-resized Cb and Cr channels. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the example: no BSDS300 download, so the images are 24 synthetic
64x64 RGB PIL images (smooth gradients and discs), with a crop of 48 and an upscale
factor of 3; no argument parser; two epochs; the checkpoint and output image go to a
temporary directory; losses and PSNR are printed as floats."""

import math
import os
import tempfile
from math import log10

import numpy as np
import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim
import torch.utils.data as data
from PIL import Image
from torch.utils.data import DataLoader
from torchvision.transforms import CenterCrop, Compose, Resize, ToTensor


# model.py
class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor**2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)


# dataset.py, with images made in memory where the example reads files
def make_image(seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:64, :64] / 63.0
    rgb = np.stack([xx * rng.random(), yy * rng.random(), (xx + yy) / 2 * rng.random()], -1)
    cy, cx, r = rng.random(3) * [40, 40, 10] + [12, 12, 6]
    disc = ((np.mgrid[:64, :64][0] - cy) ** 2 + (np.mgrid[:64, :64][1] - cx) ** 2) < r * r
    rgb[disc] = rng.random(3)
    return Image.fromarray((rgb * 255).astype(np.uint8), "RGB")


def load_img(image):
    img = image.convert("YCbCr")
    y, _, _ = img.split()
    return y


class DatasetFromFolder(data.Dataset):
    def __init__(self, images, input_transform=None, target_transform=None):
        super().__init__()
        self.images = images
        self.input_transform = input_transform
        self.target_transform = target_transform

    def __getitem__(self, index):
        input = load_img(self.images[index])
        target = input.copy()
        if self.input_transform:
            input = self.input_transform(input)
        if self.target_transform:
            target = self.target_transform(target)

        return input, target

    def __len__(self):
        return len(self.images)


def calculate_valid_crop_size(crop_size, upscale_factor):
    return crop_size - (crop_size % upscale_factor)


def input_transform(crop_size, upscale_factor):
    return Compose([CenterCrop(crop_size), Resize(crop_size // upscale_factor), ToTensor()])


def target_transform(crop_size):
    return Compose([CenterCrop(crop_size), ToTensor()])


upscale_factor = 3
crop_size = calculate_valid_crop_size(50, upscale_factor)
print("crop size", crop_size)
images = [make_image(seed) for seed in range(24)]
train_set = DatasetFromFolder(
    images[:16],
    input_transform=input_transform(crop_size, upscale_factor),
    target_transform=target_transform(crop_size),
)
test_set = DatasetFromFolder(
    images[16:],
    input_transform=input_transform(crop_size, upscale_factor),
    target_transform=target_transform(crop_size),
)
inp, tgt = train_set[0]
print(inp.shape, tgt.shape, inp.dtype)

# main.py
torch.manual_seed(123)
device = torch.device("cpu")
print("===> Loading datasets")
training_data_loader = DataLoader(dataset=train_set, num_workers=0, batch_size=4, shuffle=True)
testing_data_loader = DataLoader(dataset=test_set, num_workers=0, batch_size=4, shuffle=False)

print("===> Building model")
model = Net(upscale_factor=upscale_factor).to(device)
print(model)
w = model.conv2.weight.flatten(1)
print(torch.allclose(w @ w.T, 2 * torch.eye(64), atol=1e-4))
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.001)


def train(epoch):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0].to(device), batch[1].to(device)

        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()

        print(
            f"===> Epoch[{epoch}]({iteration}/{len(training_data_loader)}): Loss: {loss.item():.4f}"
        )

    print(f"===> Epoch {epoch} Complete: Avg. Loss: {epoch_loss / len(training_data_loader):.4f}")


def test():
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0].to(device), batch[1].to(device)

            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    print(f"===> Avg. PSNR: {avg_psnr / len(testing_data_loader):.4f} dB")


tmp = tempfile.TemporaryDirectory()


def checkpoint(epoch):
    model_out_path = os.path.join(tmp.name, f"model_epoch_{epoch}.pth")
    torch.save(model, model_out_path)
    print(f"Checkpoint saved to {os.path.basename(model_out_path)}")
    return model_out_path


for epoch in range(1, 3):
    train(epoch)
    test()
    path = checkpoint(epoch)

# super_resolve.py
img = make_image(99).convert("YCbCr")
y, cb, cr = img.split()

model = torch.load(path, weights_only=False)
print(type(model).__name__, model.conv4)
img_to_tensor = ToTensor()
input = img_to_tensor(y).view(1, -1, y.size[1], y.size[0])
out = model(input)
out = out.cpu()
print(out.shape, math.isfinite(out.sum().item()))
out_img_y = out[0].detach().numpy()
out_img_y *= 255.0
out_img_y = out_img_y.clip(0, 255)
out_img_y = Image.fromarray(np.uint8(out_img_y[0]), mode="L")

out_img_cb = cb.resize(out_img_y.size, Image.BICUBIC)
out_img_cr = cr.resize(out_img_y.size, Image.BICUBIC)
out_img = Image.merge("YCbCr", [out_img_y, out_img_cb, out_img_cr]).convert("RGB")
output_filename = os.path.join(tmp.name, "out.png")
out_img.save(output_filename)
print("output image saved to", os.path.basename(output_filename), Image.open(output_filename).size)
tmp.cleanup()
