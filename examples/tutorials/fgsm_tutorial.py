"""The steps of PyTorch's "Adversarial Example Generation" tutorial (written for
``import torch``): a LeNet (``Conv2d``, ``Dropout``, ``max_pool2d``, ``log_softmax``)
attacked with the Fast Gradient Sign Method: the input's gradient is kept with
``data.requires_grad = True``, the loss (``nll_loss``) is backpropagated, the input is
perturbed by ``epsilon * data.grad.sign()`` and clamped to [0, 1]; the accuracy is
measured over a sweep of epsilons, and adversarial examples are kept. Runs unchanged with
PyTorch and with ``chainrule run``.

What differs from the tutorial: no MNIST download and no pretrained weights, so the
model is trained for a few steps on 64 random 28x28 images with a brightness cue per
class; the data are normalized inside the loop as the tutorial's later revision does;
fewer test images; no plots; the accuracy is printed as a float only; the perturbation is checked against its formula where the
tutorial shows the images."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
epsilons = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
device = torch.device("cpu")
print("CUDA Available: ", torch.cuda.is_available())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
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


generator = torch.Generator().manual_seed(0)
labels = torch.randint(0, 10, (64,), generator=generator)
images = torch.rand(64, 1, 28, 28, generator=generator) * 0.5
images += (labels.float() / 20).view(-1, 1, 1, 1)
train_loader = DataLoader(TensorDataset(images[:48], labels[:48]), batch_size=16, shuffle=True)
test_loader = DataLoader(TensorDataset(images[48:], labels[48:]), batch_size=1, shuffle=False)

model = Net().to(device)
print(model)
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
model.train()
for data, target in train_loader:
    optimizer.zero_grad()
    loss = F.nll_loss(model((data - 0.1307) / 0.3081), target)
    loss.backward()
    optimizer.step()
print("trained:", loss.dim(), loss.dtype)
model.eval()


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


def denorm(batch, mean=[0.1307], std=[0.3081]):  # noqa: B006 (as the tutorial has it)
    if isinstance(mean, list):
        mean = torch.tensor(mean).to(device)
    if isinstance(std, list):
        std = torch.tensor(std).to(device)
    return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)


def test(model, device, test_loader, epsilon):
    correct = 0
    adv_examples = []
    checks = []
    for data, target in test_loader:
        data, target = data.to(device), target.to(device)
        data = (data - 0.1307) / 0.3081
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        data_denorm = denorm(data)
        perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
        expected = (data_denorm + epsilon * torch.sign(data_grad)).clamp(0, 1)
        checks.append(torch.allclose(perturbed_data, expected))
        checks.append(bool(((perturbed_data - data_denorm).abs() <= epsilon + 1e-6).all()))
        perturbed_data_normalized = (perturbed_data - 0.1307) / 0.3081
        output = model(perturbed_data_normalized)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
            if epsilon == 0 and len(adv_examples) < 5:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
        else:
            if len(adv_examples) < 5:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
    final_acc = correct / float(len(test_loader))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {final_acc} of {len(test_loader)}")
    print("perturbation checks:", all(checks), data_grad.shape, data_grad.dtype)
    return final_acc, adv_examples


accuracies = []
examples = []
for eps in epsilons:
    acc, ex = test(model, device, test_loader, eps)
    accuracies.append(acc)
    examples.append(ex)

print(len(accuracies), [type(a).__name__ for a in accuracies])
print([len(ex) <= 5 for ex in examples])
print(all(e[2].shape == (28, 28) for ex in examples for e in ex))
