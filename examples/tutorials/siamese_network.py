"""The steps of PyTorch's ``examples/siamese_network`` (written for ``import torch`` and
``torchvision``): a Siamese network whose twin branch is a ``torchvision.models.resnet18``
(no pretrained weights) with its first convolution changed to one input channel and its
``fc`` layer dropped (``nn.Sequential(*list(children())[:-1])``); the two embeddings
concatenated and classified by a small MLP with a ``Sigmoid``; weights initialised by
``apply`` with ``xavier_uniform_``; an ``APP_MATCHER`` dataset of image pairs (same or
different class) made from a grouped dataset; training with ``BCELoss``, ``Adadelta``
and ``StepLR``; and testing by thresholding the similarity. Runs unchanged with PyTorch
and with ``chainrule run``.

What differs from the example: no MNIST download, so the digits are 60 random 28x28
images with a brightness cue per class, in a ``TensorDataset``; no argument parser;
one epoch of a few batches; the loss and accuracy are printed as floats."""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401 (as the example imports it)
import torch.optim as optim
import torchvision
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset, TensorDataset

torch.manual_seed(1)


class SiameseNetwork(nn.Module):
    """Siamese network for image similarity estimation: a ResNet-18 with one input
    channel and no fully connected layer extracts the features of each image."""

    def __init__(self):
        super().__init__()
        # get resnet model
        self.resnet = torchvision.models.resnet18(weights=None)

        # over-write the first conv layer to be able to read MNIST images
        # as resnet18 reads (3,x,x) where 3 is RGB channels
        # whereas MNIST has (1,x,x) where 1 is a gray-scale channel
        self.resnet.conv1 = nn.Conv2d(
            1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False
        )
        self.fc_in_features = self.resnet.fc.in_features

        # remove the last layer of resnet18 (linear layer which is before avgpool layer)
        self.resnet = torch.nn.Sequential(*(list(self.resnet.children())[:-1]))

        # add linear layers to compare between the features of the two images
        self.fc = nn.Sequential(
            nn.Linear(self.fc_in_features * 2, 256),
            nn.ReLU(inplace=True),
            nn.Linear(256, 1),
        )

        self.sigmoid = nn.Sigmoid()

        # initialize the weights
        self.resnet.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.resnet(x)
        output = output.view(output.size()[0], -1)
        return output

    def forward(self, input1, input2):
        # get two images' features
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)

        # concatenate both images' features
        output = torch.cat((output1, output2), 1)

        # pass the concatenation to the linear layers
        output = self.fc(output)

        # pass the out of the linear layers to sigmoid layer
        output = self.sigmoid(output)

        return output


class APP_MATCHER(Dataset):
    def __init__(self, dataset, seed):
        self.dataset = dataset
        self.data = dataset.tensors[0].clone().float()
        self.targets = dataset.tensors[1]
        self.generator = torch.Generator().manual_seed(seed)
        self.group_examples()

    def group_examples(self):
        """Group the examples by their class: a dict from each digit to the indices of
        its examples."""
        # get the targets from MNIST dataset
        np_arr = self.targets.clone().numpy()

        # group examples based on class
        self.grouped_examples = {}
        for i in range(0, 10):
            self.grouped_examples[i] = (np_arr == i).nonzero()[0]

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        """A pair of images and a target: 1 for two of the same class (chosen when
        ``index`` is even), 0 for two of different classes."""
        # pick some random class for the first image
        selected_class = int(torch.randint(0, 10, (1,), generator=self.generator))

        # pick a random index for the first image in the grouped indices based of the label
        # of the class
        group = self.grouped_examples[selected_class]
        random_index_1 = int(torch.randint(0, len(group), (1,), generator=self.generator))

        # pick the index to get the first image
        index_1 = group[random_index_1]

        # get the first image
        image_1 = self.data[index_1].clone().float()

        # same class
        if index % 2 == 0:
            # pick a random index for the second image
            random_index_2 = int(torch.randint(0, len(group), (1,), generator=self.generator))

            # pick the index to get the second image
            index_2 = group[random_index_2]

            # get the second image
            image_2 = self.data[index_2].clone().float()

            # set the label for this example to be positive (1)
            target = torch.tensor(1, dtype=torch.float)

        # different class
        else:
            # pick a random class
            other_selected_class = int(torch.randint(0, 10, (1,), generator=self.generator))

            # ensure that the class of the second image is not the same as the first image
            while other_selected_class == selected_class:
                other_selected_class = int(torch.randint(0, 10, (1,), generator=self.generator))

            other_group = self.grouped_examples[other_selected_class]
            random_index_2 = int(torch.randint(0, len(other_group), (1,), generator=self.generator))

            # pick the index to get the second image
            index_2 = other_group[random_index_2]

            # get the second image
            image_2 = self.data[index_2].clone().float()

            # set the label for this example to be negative (0)
            target = torch.tensor(0, dtype=torch.float)

        return image_1, image_2, target


def train(model, device, train_loader, optimizer, epoch, log_interval=2):
    model.train()

    # we aren't using `TripletLoss` as the MNIST dataset is simple, so `BCELoss` can do the trick.
    criterion = nn.BCELoss()

    for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
        images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(images_1, images_2).squeeze()
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print(
                f"Train Epoch: {epoch} [{batch_idx * len(images_1)}/{len(train_loader.dataset)} "
                f"({100.0 * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}"
            )


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0

    # we aren't using `TripletLoss` as the MNIST dataset is simple, so `BCELoss` can do the trick.
    criterion = nn.BCELoss()

    with torch.no_grad():
        for images_1, images_2, targets in test_loader:
            images_1, images_2, targets = (
                images_1.to(device),
                images_2.to(device),
                targets.to(device),
            )
            outputs = model(images_1, images_2).squeeze()
            test_loss += criterion(outputs, targets).sum().item()  # sum up batch loss
            pred = torch.where(outputs > 0.5, 1, 0)  # get the index of the max log-probability
            correct += pred.eq(targets.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)

    # for the 1st epoch, the average loss is 0.0001 and the accuracy 97-98%
    # using default settings. After completing the 10th epoch, the average
    # loss is 0.0000 and the accuracy 99.5-100% using default settings.
    print(
        f"\nTest set: Average loss: {test_loss:.4f}, "
        f"Accuracy: {100.0 * correct / len(test_loader.dataset) + 0.001:.3f}%\n"
    )


device = torch.device("cpu")
generator = torch.Generator().manual_seed(0)
labels = torch.arange(60) % 10
images = torch.rand(60, 1, 28, 28, generator=generator) * 0.5 + (labels / 20).view(-1, 1, 1, 1)
images = (images - 0.1307) / 0.3081
train_dataset = APP_MATCHER(TensorDataset(images[:40], labels[:40]), seed=0)
test_dataset = APP_MATCHER(TensorDataset(images[40:], labels[40:]), seed=1)
print(len(train_dataset), {k: len(v) for k, v in train_dataset.grouped_examples.items()})
image_1, image_2, target = train_dataset[0]
print(image_1.shape, image_2.shape, target, train_dataset[1][2])
train_loader = DataLoader(train_dataset, batch_size=8, shuffle=True)
test_loader = DataLoader(test_dataset, batch_size=10, shuffle=False)

model = SiameseNetwork().to(device)
print(model.fc, model.fc_in_features, len(model.resnet), model.resnet[0])
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 2):
    train(model, device, train_loader, optimizer, epoch)
    test(model, device, test_loader)
    scheduler.step()
print(scheduler.get_last_lr())
