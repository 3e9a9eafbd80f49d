"""The steps of PyTorch's "Transfer Learning for Computer Vision" tutorial (written for
``import torch`` and ``torchvision``): an ``ImageFolder`` of ants and bees with the
tutorial's train and val transforms (``RandomResizedCrop``, ``RandomHorizontalFlip``,
``Resize``, ``CenterCrop``, ``ToTensor``, ``Normalize``), a grid of a batch
(``torchvision.utils.make_grid``), then ``models.resnet18`` fine-tuned with a new ``fc``
(SGD with momentum, ``StepLR``, the best weights kept through ``torch.save``/``load``),
and the same network as a fixed feature extractor (frozen, only ``fc`` trained). Runs
unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no download, so the script first writes its own
``hymenoptera_data`` (JPEG files, each class its own colours) in a temporary directory;
``weights=None`` where the tutorial loads ImageNet weights (``IMAGENET1K_V1``, not on
this machine); 64-pixel crops and two epochs instead of 224 and 25, so it runs in
seconds; no plots and no timing line (the times differ from run to run)."""

import os
import tempfile

import numpy as np
from PIL import Image


def write_hymenoptera(root, per_class=(("train", 12), ("val", 6))):
    """JPEG images in ``root/{train,val}/{ants,bees}``: ants dark red, bees yellow, noisy."""
    rng = np.random.default_rng(0)
    colours = {"ants": (120, 40, 30), "bees": (230, 200, 40)}
    for split, n in per_class:
        for name, colour in colours.items():
            os.makedirs(os.path.join(root, split, name), exist_ok=True)
            for i in range(n):
                h, w = rng.integers(70, 100, 2)
                pixels = np.array(colour) + rng.integers(-40, 40, (h, w, 3))
                image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
                image.save(os.path.join(root, split, name, f"{i}.jpg"), quality=90)


os.chdir(tempfile.mkdtemp())
write_hymenoptera("data/hymenoptera_data")

# ---------------------------------------------------------------- the tutorial
from tempfile import TemporaryDirectory  # noqa: E402

import torch  # noqa: E402
import torch.backends.cudnn as cudnn  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.optim as optim  # noqa: E402
import torchvision  # noqa: E402
from torch.optim import lr_scheduler  # noqa: E402
from torchvision import datasets, models, transforms  # noqa: E402

cudnn.benchmark = True
torch.manual_seed(0)

# Load Data
data_transforms = {
    "train": transforms.Compose(
        [
            transforms.RandomResizedCrop(64),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ]
    ),
    "val": transforms.Compose(
        [
            transforms.Resize(72),
            transforms.CenterCrop(64),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ]
    ),
}
print(data_transforms["train"])

data_dir = "data/hymenoptera_data"
image_datasets = {
    x: datasets.ImageFolder(os.path.join(data_dir, x), data_transforms[x]) for x in ["train", "val"]
}
dataloaders = {
    x: torch.utils.data.DataLoader(image_datasets[x], batch_size=4, shuffle=True, num_workers=0)
    for x in ["train", "val"]
}
dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}
class_names = image_datasets["train"].classes
print(image_datasets["val"])
print(dataset_sizes, class_names)

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")

# Visualize a few images: here, the grid's shape and range
inputs, classes = next(iter(dataloaders["train"]))
out = torchvision.utils.make_grid(inputs)
print(out.shape, out.dtype, len(classes))


# Training the model
def train_model(model, criterion, optimizer, scheduler, num_epochs=25):
    # Create a temporary directory to save training checkpoints
    with TemporaryDirectory() as tempdir:
        best_model_params_path = os.path.join(tempdir, "best_model_params.pt")

        torch.save(model.state_dict(), best_model_params_path)
        best_acc = 0.0

        for epoch in range(num_epochs):
            print(f"Epoch {epoch}/{num_epochs - 1}")
            print("-" * 10)

            # Each epoch has a training and validation phase
            for phase in ["train", "val"]:
                if phase == "train":
                    model.train()  # Set model to training mode
                else:
                    model.eval()  # Set model to evaluate mode

                running_loss = 0.0
                running_corrects = 0

                # Iterate over data.
                for inputs, labels in dataloaders[phase]:
                    inputs = inputs.to(device)
                    labels = labels.to(device)

                    # zero the parameter gradients
                    optimizer.zero_grad()

                    # forward
                    # track history if only in train
                    with torch.set_grad_enabled(phase == "train"):
                        outputs = model(inputs)
                        _, preds = torch.max(outputs, 1)
                        loss = criterion(outputs, labels)

                        # backward + optimize only if in training phase
                        if phase == "train":
                            loss.backward()
                            optimizer.step()

                    # statistics
                    running_loss += loss.item() * inputs.size(0)
                    running_corrects += torch.sum(preds == labels.data)
                if phase == "train":
                    scheduler.step()

                epoch_loss = running_loss / dataset_sizes[phase]
                epoch_acc = running_corrects.double() / dataset_sizes[phase]

                print(f"{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}")

                # deep copy the model
                if phase == "val" and epoch_acc > best_acc:
                    best_acc = epoch_acc
                    torch.save(model.state_dict(), best_model_params_path)

            print()

        print(f"Best val Acc: {best_acc:4f}")

        # load best model weights
        model.load_state_dict(torch.load(best_model_params_path, weights_only=True))
    return model


# Finetuning the ConvNet
model_ft = models.resnet18(weights=None)
num_ftrs = model_ft.fc.in_features
# Here the size of each output sample is set to 2.
model_ft.fc = nn.Linear(num_ftrs, 2)
model_ft = model_ft.to(device)
criterion = nn.CrossEntropyLoss()

# Observe that all parameters are being optimized
optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.001, momentum=0.9)

# Decay LR by a factor of 0.1 every 7 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=7, gamma=0.1)

model_ft = train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=2)

# ConvNet as fixed feature extractor
model_conv = torchvision.models.resnet18(weights=None)
for param in model_conv.parameters():
    param.requires_grad = False

# Parameters of newly constructed modules have requires_grad=True by default
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, 2)
model_conv = model_conv.to(device)
criterion = nn.CrossEntropyLoss()

# Observe that only parameters of final layer are being optimized as opposed to before.
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.001, momentum=0.9)

# Decay LR by a factor of 0.1 every 7 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=7, gamma=0.1)
model_conv = train_model(model_conv, criterion, optimizer_conv, exp_lr_scheduler, num_epochs=2)
print(sum(p.requires_grad for p in model_conv.parameters()), "parameter tensors trained")
