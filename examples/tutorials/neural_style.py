"""The steps of PyTorch's "Neural Transfer Using PyTorch" tutorial (written for ``import
torch`` and ``torchvision``): images loaded with PIL through ``transforms.Resize`` and
``ToTensor``; ``ContentLoss`` and ``StyleLoss`` modules (``F.mse_loss`` against a
detached target, the Gram matrix); a ``Normalization`` module; a new ``nn.Sequential``
built from VGG19's ``features`` with the losses inserted after chosen convolutions and
the layers after the last loss trimmed; the input image optimised with ``optim.LBFGS``
and a closure that clamps it under ``no_grad``; ``transforms.ToPILImage`` at the end.
Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no downloads, so VGG19 has random weights
(``weights=None``) and the two images are drawn with PIL (stripes and a disc); 32x32
images and 20 LBFGS evaluations instead of 300, so it runs in seconds; no plots (the
losses and shapes are printed)."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torchvision.transforms as transforms
from PIL import Image, ImageDraw
from torchvision.models import vgg19

torch.manual_seed(0)
device = torch.device("cpu")
torch.set_default_device(device)
imsize = 32

os.chdir(tempfile.mkdtemp())
style = Image.new("RGB", (64, 64), (240, 220, 120))
draw = ImageDraw.Draw(style)
for x in range(0, 64, 8):
    draw.rectangle((x, 0, x + 3, 63), fill=(30, 60, 160))
style.save("picasso.jpg")
content = Image.new("RGB", (64, 64), (200, 200, 200))
ImageDraw.Draw(content).ellipse((12, 12, 52, 52), fill=(180, 40, 40))
content.save("dancing.jpg")

loader = transforms.Compose([transforms.Resize(imsize), transforms.ToTensor()])


def image_loader(image_name):
    image = Image.open(image_name)
    image = loader(image).unsqueeze(0)
    return image.to(device, torch.float)


style_img = image_loader("./picasso.jpg")
content_img = image_loader("./dancing.jpg")
assert style_img.size() == content_img.size(), "style and content images must be the same size"
print(style_img.shape, style_img.dtype)

unloader = transforms.ToPILImage()


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


cnn = vgg19(weights=None).features.eval()
cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


content_layers_default = ["conv_4"]
style_layers_default = ["conv_1", "conv_2", "conv_3", "conv_4", "conv_5"]


def get_style_model_and_losses(
    cnn,
    normalization_mean,
    normalization_std,
    style_img,
    content_img,
    content_layers=content_layers_default,
    style_layers=style_layers_default,
):
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)

    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = f"pool_{i}"
        elif isinstance(layer, nn.BatchNorm2d):
            name = f"bn_{i}"
        else:
            raise RuntimeError(f"Unrecognized layer: {layer.__class__.__name__}")

        model.add_module(name, layer)

        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)

        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)

    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break

    model = model[: (i + 1)]
    return model, style_losses, content_losses


input_img = content_img.clone()


def get_input_optimizer(input_img):
    return optim.LBFGS([input_img])


def run_style_transfer(
    cnn,
    normalization_mean,
    normalization_std,
    content_img,
    style_img,
    input_img,
    num_steps=20,
    style_weight=1000000,
    content_weight=1,
):
    print("Building the style transfer model..")
    model, style_losses, content_losses = get_style_model_and_losses(
        cnn, normalization_mean, normalization_std, style_img, content_img
    )
    print(model)
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = get_input_optimizer(input_img)

    print("Optimizing..")
    run = [0]
    while run[0] <= num_steps:

        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            if run[0] % 10 == 0:
                print(f"run {run}:")
                print(
                    f"Style Loss : {style_score.item():4f} Content Loss: {content_score.item():4f}"
                )
            return style_score + content_score

        optimizer.step(closure)

    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img


output = run_style_transfer(
    cnn, cnn_normalization_mean, cnn_normalization_std, content_img, style_img, input_img
)
image = unloader(output.cpu().clone().squeeze(0))
print(type(image).__name__, image.size, image.mode, output.requires_grad)
