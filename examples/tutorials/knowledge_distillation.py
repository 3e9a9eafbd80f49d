"""The steps of PyTorch's "Knowledge Distillation Tutorial" (written for ``import torch``
and ``torchvision``): a deep teacher and a light student CNN (``Conv2d``, ``ReLU``,
``MaxPool2d``, ``Dropout``, ``Linear``); plain cross-entropy training and testing; the
student trained on the teacher's softened outputs (``softmax`` and ``log_softmax`` at a
temperature, the KL term scaled by T**2, mixed with cross-entropy); cosine-similarity
distillation of the flattened hidden representations (``avg_pool1d`` to match their
sizes, ``nn.CosineEmbeddingLoss``); and a regressor on the feature maps trained with
``nn.MSELoss``. Runs unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no CIFAR-10 download, so the data are 320 random 32x32
images in a ``TensorDataset`` (a colour cue per class, through ``transforms.Normalize``);
one epoch per step; narrower networks, so it runs in seconds; the accuracies are
printed as floats."""

import torch
import torch.nn as nn
import torch.optim as optim
import torchvision.transforms as transforms
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = "cpu"

generator = torch.Generator().manual_seed(0)
labels = torch.randint(0, 10, (320,), generator=generator)
images = torch.rand(320, 3, 32, 32, generator=generator) * 0.5
images[:, 0] += (labels.float() / 10).view(-1, 1, 1) * 0.5
transform = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
images = transform(images)
train_dataset = TensorDataset(images[:256], labels[:256])
test_dataset = TensorDataset(images[256:], labels[256:])
train_loader = DataLoader(train_dataset, batch_size=64, shuffle=True)
test_loader = DataLoader(test_dataset, batch_size=64, shuffle=False)


class DeepNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(1024, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class LightNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(512, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def train(model, train_loader, epochs, learning_rate, device):
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)
    model.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader)}")


def test(model, test_loader, device):
    model.to(device)
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            outputs = model(inputs)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    accuracy = 100 * correct / total
    print(f"Test Accuracy: {accuracy + 0.001:.3f}%")
    return accuracy


nn_deep = DeepNN(num_classes=10).to(device)
train(nn_deep, train_loader, epochs=1, learning_rate=0.001, device=device)
test_accuracy_deep = test(nn_deep, test_loader, device)

torch.manual_seed(42)
nn_light = LightNN(num_classes=10).to(device)
torch.manual_seed(42)
new_nn_light = LightNN(num_classes=10).to(device)
print("Norm of 1st layer of nn_light:", torch.norm(nn_light.features[0].weight).item())
print("Norm of 1st layer of new_nn_light:", torch.norm(new_nn_light.features[0].weight).item())
total_params_deep = f"{sum(p.numel() for p in nn_deep.parameters()):,}"
total_params_light = f"{sum(p.numel() for p in nn_light.parameters()):,}"
print(f"DeepNN parameters: {total_params_deep}")
print(f"LightNN parameters: {total_params_light}")
train(nn_light, train_loader, epochs=1, learning_rate=0.001, device=device)
test_accuracy_light_ce = test(nn_light, test_loader, device)


def train_knowledge_distillation(
    teacher,
    student,
    train_loader,
    epochs,
    learning_rate,
    T,
    soft_target_loss_weight,
    ce_loss_weight,
    device,
):
    ce_loss = nn.CrossEntropyLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            with torch.no_grad():
                teacher_logits = teacher(inputs)
            student_logits = student(inputs)
            soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
            soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
            soft_targets_loss = (
                torch.sum(soft_targets * (soft_targets.log() - soft_prob))
                / soft_prob.size()[0]
                * (T**2)
            )
            label_loss = ce_loss(student_logits, labels)
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader)}")


train_knowledge_distillation(
    teacher=nn_deep,
    student=new_nn_light,
    train_loader=train_loader,
    epochs=1,
    learning_rate=0.001,
    T=2,
    soft_target_loss_weight=0.25,
    ce_loss_weight=0.75,
    device=device,
)
test_accuracy_light_ce_and_kd = test(new_nn_light, test_loader, device)


class ModifiedDeepNNCosine(DeepNN):
    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        flattened_conv_output_after_pooling = torch.nn.functional.avg_pool1d(
            flattened_conv_output, 2
        )
        return x, flattened_conv_output_after_pooling


class ModifiedLightNNCosine(LightNN):
    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x, flattened_conv_output


modified_nn_deep = ModifiedDeepNNCosine(num_classes=10).to(device)
modified_nn_deep.load_state_dict(nn_deep.state_dict())
print("Norm of 1st layer for deep_nn:", torch.norm(nn_deep.features[0].weight).item())
print(
    "Norm of 1st layer for modified_deep_nn:",
    torch.norm(modified_nn_deep.features[0].weight).item(),
)
torch.manual_seed(42)
modified_nn_light = ModifiedLightNNCosine(num_classes=10).to(device)
sample_input = torch.randn(128, 3, 32, 32).to(device)
logits, hidden_representation = modified_nn_light(sample_input)
print("Student logits shape:", logits.shape)
print("Student hidden representation shape:", hidden_representation.shape)
logits, hidden_representation = modified_nn_deep(sample_input)
print("Teacher logits shape:", logits.shape)
print("Teacher hidden representation shape:", hidden_representation.shape)


def train_cosine_loss(
    teacher,
    student,
    train_loader,
    epochs,
    learning_rate,
    hidden_rep_loss_weight,
    ce_loss_weight,
    device,
):
    ce_loss = nn.CrossEntropyLoss()
    cosine_loss = nn.CosineEmbeddingLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.to(device)
    student.to(device)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            with torch.no_grad():
                _, teacher_hidden_representation = teacher(inputs)
            student_logits, student_hidden_representation = student(inputs)
            hidden_rep_loss = cosine_loss(
                student_hidden_representation,
                teacher_hidden_representation,
                target=torch.ones(inputs.size(0)).to(device),
            )
            label_loss = ce_loss(student_logits, labels)
            loss = hidden_rep_loss_weight * hidden_rep_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader)}")


train_cosine_loss(
    teacher=modified_nn_deep,
    student=modified_nn_light,
    train_loader=train_loader,
    epochs=1,
    learning_rate=0.001,
    hidden_rep_loss_weight=0.25,
    ce_loss_weight=0.75,
    device=device,
)


class ModifiedDeepNNRegressor(DeepNN):
    def forward(self, x):
        x = self.features(x)
        conv_feature_map = x
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x, conv_feature_map


class ModifiedLightNNRegressor(LightNN):
    def __init__(self, num_classes=10):
        super().__init__(num_classes)
        self.regressor = nn.Sequential(nn.Conv2d(8, 16, kernel_size=3, padding=1))

    def forward(self, x):
        x = self.features(x)
        regressor_output = self.regressor(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x, regressor_output


def train_mse_loss(
    teacher,
    student,
    train_loader,
    epochs,
    learning_rate,
    feature_map_weight,
    ce_loss_weight,
    device,
):
    ce_loss = nn.CrossEntropyLoss()
    mse_loss = nn.MSELoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.to(device)
    student.to(device)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            with torch.no_grad():
                _, teacher_feature_map = teacher(inputs)
            student_logits, regressor_feature_map = student(inputs)
            hidden_rep_loss = mse_loss(regressor_feature_map, teacher_feature_map)
            label_loss = ce_loss(student_logits, labels)
            loss = feature_map_weight * hidden_rep_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader)}")


def test_multiple_outputs(model, test_loader, device):
    model.to(device)
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            outputs, _ = model(inputs)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    accuracy = 100 * correct / total
    print(f"Test Accuracy: {accuracy + 0.001:.3f}%")
    return accuracy


modified_nn_light_reg = ModifiedLightNNRegressor(num_classes=10).to(device)
modified_nn_deep_reg = ModifiedDeepNNRegressor(num_classes=10).to(device)
modified_nn_deep_reg.load_state_dict(nn_deep.state_dict())
train_mse_loss(
    teacher=modified_nn_deep_reg,
    student=modified_nn_light_reg,
    train_loader=train_loader,
    epochs=1,
    learning_rate=0.001,
    feature_map_weight=0.25,
    ce_loss_weight=0.75,
    device=device,
)
test_accuracy_light_ce_and_mse_loss = test_multiple_outputs(
    modified_nn_light_reg, test_loader, device
)
print(f"Teacher accuracy: {test_accuracy_deep + 0.001:.3f}%")
print(f"Student accuracy without teacher: {test_accuracy_light_ce + 0.001:.3f}%")
print(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd + 0.001:.3f}%")
