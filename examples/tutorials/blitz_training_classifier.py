"""The 60-minute blitz's "Training a Classifier" (written for ``import torch``), step by
step on synthetic CIFAR-sized data instead of the CIFAR-10 download: (1) a dataset of
3x32x32 images in ten classes and DataLoaders over it, (2) the tutorial's convolutional
network, (3) cross-entropy loss and SGD with momentum, (4) two epochs of training with
the running loss printed, saving the weights, (5) testing: reloading the weights, the
accuracy on the test images and per class. The images are a per-class pattern plus
deterministic noise, so both libraries see the same data. Runs unchanged with PyTorch
and with ``chainrule run``."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# 1. Load and normalize the data: here, made up
classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


def synthetic_cifar(n, offset):
    labels = (torch.arange(n) * 7 + offset) % 10
    grid = torch.linspace(0, 1, 32)
    freq = torch.arange(1, 11).float().view(10, 1, 1, 1)
    channel = torch.arange(3).float().view(1, 3, 1, 1)
    patterns = torch.sin(freq * (grid.view(1, 1, 32, 1) + 2 * grid.view(1, 1, 1, 32)) + channel)
    noise = torch.sin(torch.arange(n * 3 * 32 * 32).float() * 1.618 + offset).view(n, 3, 32, 32)
    images = patterns[labels] + 0.8 * noise
    images = (images - 0.5) / 0.5  # the tutorial's Normalize((0.5,) * 3, (0.5,) * 3)
    return TensorDataset(images, labels)


batch_size = 4
trainset = synthetic_cifar(240, 0)
trainloader = DataLoader(trainset, batch_size=batch_size, shuffle=True, num_workers=0)
testset = synthetic_cifar(100, 3)
testloader = DataLoader(testset, batch_size=batch_size, shuffle=False, num_workers=0)

images, labels = next(iter(trainloader))
print(images.shape, images.dtype, labels.shape, labels.dtype)


# 2. Define a Convolutional Neural Network
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


net = Net()

# 3. Define a Loss function and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

# 4. Train the network
running_losses = []
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 20 == 19:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 20:.3f}")
            running_losses.append(running_loss / 20)
            running_loss = 0.0
print("Finished Training")
print("running loss fell:", running_losses[-1] < running_losses[0])

with tempfile.TemporaryDirectory() as tmp:
    PATH = os.path.join(tmp, "cifar_net.pth")
    torch.save(net.state_dict(), PATH)

    # 5. Test the network on the test data
    dataiter = iter(testloader)
    images, labels = next(dataiter)
    print("GroundTruth: ", " ".join(f"{classes[labels[j]]:5s}" for j in range(4)))

    net = Net()
    print(net.load_state_dict(torch.load(PATH, weights_only=True)))

outputs = net(images)
_, predicted = torch.max(outputs, 1)
print(outputs.shape, predicted.shape, predicted.dtype)

correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f"Accuracy of the network on the {total} test images: {100 * correct / total} %")
print("better than chance:", correct / total > 0.2)

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1

for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / total_pred[classname]
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")
