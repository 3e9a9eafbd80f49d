"""The steps of the recipe "Defining a Neural Network in PyTorch" (written for
``import torch``): a convolutional module with Dropout2d, max pooling, flatten and
log_softmax, called on random data. Runs unchanged with PyTorch and with
``chainrule run``."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


my_nn = Net()
print(my_nn)

random_data = torch.rand((1, 1, 28, 28))
result = my_nn(random_data)
print(result)
print(result.exp().sum())
