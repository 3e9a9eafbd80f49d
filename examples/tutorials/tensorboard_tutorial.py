"""The steps of PyTorch's "Visualizing Models, Data, and Training with TensorBoard"
tutorial (written for ``import torch`` and ``torchvision``): a ``SummaryWriter`` writing
an image grid (``torchvision.utils.make_grid``), the model's graph (``add_graph``), an
embedding of images with their labels (``add_embedding``), training losses
(``add_scalar``), a matplotlib figure of predictions (``add_figure``) and per-class
precision-recall curves (``add_pr_curve``). Runs unchanged with PyTorch and with
``chainrule run``.

What differs from the tutorial: no FashionMNIST download, so the images are 128 random
28x28 images with a brightness cue per class in a ``TensorDataset``; 8 training steps;
the run directory is temporary, and the script prints what the event file holds (read
back with TensorBoard's ``EventAccumulator``) instead of opening TensorBoard."""

import os
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402
import torchvision  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from torch.utils.tensorboard import SummaryWriter  # noqa: E402

torch.manual_seed(0)
classes = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle Boot",
)
generator = torch.Generator().manual_seed(0)
labels = torch.randint(0, 10, (128,), generator=generator)
images = torch.rand(128, 1, 28, 28, generator=generator) * 0.5 + (labels.float() / 20).view(
    -1, 1, 1, 1
)
images = (images - 0.5) / 0.5
trainset = TensorDataset(images, labels)
trainloader = DataLoader(trainset, batch_size=4, shuffle=True)
testloader = DataLoader(trainset, batch_size=4, shuffle=False)


def matplotlib_imshow(img, one_channel=False):
    if one_channel:
        img = img.mean(dim=0)
    img = img / 2 + 0.5
    npimg = img.numpy()
    if one_channel:
        plt.imshow(npimg, cmap="Greys")
    else:
        plt.imshow(np.transpose(npimg, (1, 2, 0)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 4 * 4)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
logdir = os.path.join(tempfile.mkdtemp(), "runs", "fashion_mnist_experiment_1")
writer = SummaryWriter(logdir)

dataiter = iter(trainloader)
images, labels = next(dataiter)
img_grid = torchvision.utils.make_grid(images)
matplotlib_imshow(img_grid, one_channel=True)
writer.add_image("four_fashion_mnist_images", img_grid)
writer.add_graph(net, images)


def select_n_random(data, labels, n=100):
    assert len(data) == len(labels)
    perm = torch.randperm(len(data))
    return data[perm][:n], labels[perm][:n]


all_images, all_labels = trainset.tensors
images, labels = select_n_random(all_images, all_labels, n=32)
class_labels = [classes[lab] for lab in labels]
features = images.view(-1, 28 * 28)
writer.add_embedding(features, metadata=class_labels, label_img=images)


def images_to_probs(net, images):
    output = net(images)
    _, preds_tensor = torch.max(output, 1)
    preds = np.squeeze(preds_tensor.numpy())
    return preds, [F.softmax(el, dim=0)[i].item() for i, el in zip(preds, output)]


def plot_classes_preds(net, images, labels):
    preds, probs = images_to_probs(net, images)
    fig = plt.figure(figsize=(12, 48))
    for idx in np.arange(4):
        ax = fig.add_subplot(1, 4, idx + 1, xticks=[], yticks=[])
        matplotlib_imshow(images[idx], one_channel=True)
        ax.set_title(
            f"{classes[preds[idx]]}, {probs[idx] * 100.0:.1f}%\n(label: {classes[labels[idx]]})",
            color=("green" if preds[idx] == labels[idx].item() else "red"),
        )
    return fig


running_loss = 0.0
for epoch in range(1):
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 4 == 3:
            writer.add_scalar("training loss", running_loss / 4, epoch * len(trainloader) + i)
            writer.add_figure(
                "predictions vs. actuals",
                plot_classes_preds(net, inputs, labels),
                global_step=epoch * len(trainloader) + i,
            )
            plt.close("all")
            running_loss = 0.0
        if i == 7:
            break
print("Finished Training")

class_probs = []
class_label = []
with torch.no_grad():
    for data in testloader:
        images, labels = data
        output = net(images)
        class_probs_batch = [F.softmax(el, dim=0) for el in output]
        class_probs.append(class_probs_batch)
        class_label.append(labels)
test_probs = torch.cat([torch.stack(batch) for batch in class_probs])
test_label = torch.cat(class_label)


def add_pr_curve_tensorboard(class_index, test_probs, test_label, global_step=0):
    tensorboard_truth = test_label == class_index
    tensorboard_probs = test_probs[:, class_index]
    writer.add_pr_curve(
        classes[class_index], tensorboard_truth, tensorboard_probs, global_step=global_step
    )


for i in range(len(classes)):
    add_pr_curve_tensorboard(i, test_probs, test_label)
writer.close()

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

events = EventAccumulator(logdir, size_guidance={"tensors": 0, "scalars": 0, "images": 0})
events.Reload()
tags = events.Tags()
print("images:", tags["images"])
print("scalars:", tags["scalars"], [e.step for e in events.Scalars("training loss")])
print("pr curves:", sorted(tags["tensors"]))
print("graph:", tags["graph"])
print("projector files:", sorted(f for f in os.listdir(logdir) if not f.startswith("events")))
