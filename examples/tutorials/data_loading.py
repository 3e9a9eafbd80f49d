"""The steps of PyTorch's "Writing Custom Datasets, DataLoaders and Transforms" tutorial
(written for ``import torch`` and ``torchvision``): a ``Dataset`` of face images with
landmarks read from a CSV file (``__len__``, ``__getitem__`` returning a dict sample);
callable transform classes ``Rescale``, ``RandomCrop`` and ``ToTensor`` (landmarks
moved with the image, HWC arrays to CHW tensors) composed with
``transforms.Compose``; the dataset iterated directly and through a ``DataLoader``
(batches of dicts collated per key); a batch laid out with ``utils.make_grid``; and
``torchvision.datasets.ImageFolder`` over a folder per class with
``RandomResizedCrop``, ``RandomHorizontalFlip``, ``ToTensor`` and ``Normalize``. Runs
unchanged with PyTorch and with ``chainrule run``.

What differs from the tutorial: no download and no pandas or scikit-image, so the
images are made with NumPy and written as PNG files with PIL in a temporary directory,
the CSV is read with the ``csv`` module, ``Rescale`` resizes with PIL, and nothing is
plotted; shapes, dtypes and checks are printed."""

import csv
import os
import tempfile

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets, transforms, utils

torch.manual_seed(0)
rng = np.random.default_rng(0)

# Make the data: 6 faces of various sizes with 68 landmarks each, and a CSV file.
tmp = tempfile.TemporaryDirectory()
root_dir = os.path.join(tmp.name, "faces")
os.makedirs(root_dir)
csv_file = os.path.join(root_dir, "face_landmarks.csv")
with open(csv_file, "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["image_name"] + [f"part_{i}_{c}" for i in range(68) for c in "xy"])
    for n in range(6):
        h, w = int(rng.integers(260, 320)), int(rng.integers(260, 320))
        image = (rng.random((h, w, 3)) * 255).astype(np.uint8)
        Image.fromarray(image).save(os.path.join(root_dir, f"face_{n}.png"))
        points = rng.random((68, 2)) * [w, h]
        writer.writerow([f"face_{n}.png"] + [f"{v:.1f}" for v in points.reshape(-1)])

with open(csv_file) as f:
    rows = list(csv.reader(f))[1:]
n = 3
img_name = rows[n][0]
landmarks = np.asarray(rows[n][1:], dtype=float).reshape(-1, 2)
print(f"Image name: {img_name}")
print(f"Landmarks shape: {landmarks.shape}")


class FaceLandmarksDataset(Dataset):
    """Face Landmarks dataset."""

    def __init__(self, csv_file, root_dir, transform=None):
        with open(csv_file) as f:
            self.landmarks_frame = list(csv.reader(f))[1:]
        self.root_dir = root_dir
        self.transform = transform

    def __len__(self):
        return len(self.landmarks_frame)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()

        img_name = os.path.join(self.root_dir, self.landmarks_frame[idx][0])
        image = np.asarray(Image.open(img_name).convert("RGB"))
        landmarks = self.landmarks_frame[idx][1:]
        landmarks = np.array([landmarks], dtype=float).reshape(-1, 2)
        sample = {"image": image, "landmarks": landmarks}

        if self.transform:
            sample = self.transform(sample)

        return sample


face_dataset = FaceLandmarksDataset(csv_file=csv_file, root_dir=root_dir)
for i, sample in enumerate(face_dataset):
    print(i, sample["image"].ndim, sample["image"].shape[2], sample["landmarks"].shape)
    if i == 3:
        break


class Rescale:
    """Rescale the image in a sample to a given size."""

    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]

        h, w = image.shape[:2]
        if isinstance(self.output_size, int):
            if h > w:
                new_h, new_w = self.output_size * h / w, self.output_size
            else:
                new_h, new_w = self.output_size, self.output_size * w / h
        else:
            new_h, new_w = self.output_size

        new_h, new_w = int(new_h), int(new_w)

        img = np.asarray(Image.fromarray(image).resize((new_w, new_h), Image.BILINEAR))

        # h and w are swapped for landmarks because for images,
        # x and y axes are axis 1 and 0 respectively
        landmarks = landmarks * [new_w / w, new_h / h]

        return {"image": img, "landmarks": landmarks}


class RandomCrop:
    """Crop randomly the image in a sample."""

    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        if isinstance(output_size, int):
            self.output_size = (output_size, output_size)
        else:
            assert len(output_size) == 2
            self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]

        h, w = image.shape[:2]
        new_h, new_w = self.output_size

        top = np.random.randint(0, h - new_h + 1)
        left = np.random.randint(0, w - new_w + 1)

        image = image[top : top + new_h, left : left + new_w]

        landmarks = landmarks - [left, top]

        return {"image": image, "landmarks": landmarks}


class ToTensor:
    """Convert ndarrays in sample to Tensors."""

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]

        # swap color axis because
        # numpy image: H x W x C
        # torch image: C x H x W
        image = image.transpose((2, 0, 1))
        return {"image": torch.from_numpy(image), "landmarks": torch.from_numpy(landmarks)}


np.random.seed(0)
scale = Rescale(256)
crop = RandomCrop(128)
composed = transforms.Compose([Rescale(256), RandomCrop(224)])
sample = face_dataset[5]
for tsfrm in [scale, crop, composed]:
    transformed_sample = tsfrm(sample)
    print(type(tsfrm).__name__, transformed_sample["image"].shape)

transformed_dataset = FaceLandmarksDataset(
    csv_file=csv_file,
    root_dir=root_dir,
    transform=transforms.Compose([Rescale(256), RandomCrop(224), ToTensor()]),
)

for i, sample in enumerate(transformed_dataset):
    print(i, sample["image"].size(), sample["image"].dtype, sample["landmarks"].size())
    if i == 3:
        break

dataloader = DataLoader(transformed_dataset, batch_size=4, shuffle=True, num_workers=0)

for i_batch, sample_batched in enumerate(dataloader):
    print(i_batch, sample_batched["image"].size(), sample_batched["landmarks"].size())
    images_batch = sample_batched["image"]
    grid = utils.make_grid(images_batch)
    print(grid.shape, grid.dtype)

# ImageFolder: a folder per class.
for cls in ("ants", "bees"):
    os.makedirs(os.path.join(tmp.name, "hymenoptera", "train", cls))
    for k in range(3):
        image = (rng.random((80, 96, 3)) * 255).astype(np.uint8)
        path = os.path.join(tmp.name, "hymenoptera", "train", cls, f"{k}.jpg")
        Image.fromarray(image).save(path)

data_transform = transforms.Compose(
    [
        transforms.RandomResizedCrop(64),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ]
)
hymenoptera_dataset = datasets.ImageFolder(
    root=os.path.join(tmp.name, "hymenoptera", "train"), transform=data_transform
)
print(hymenoptera_dataset.classes, hymenoptera_dataset.class_to_idx, len(hymenoptera_dataset))
print([os.path.basename(p) for p, _ in hymenoptera_dataset.samples], hymenoptera_dataset.targets)
dataset_loader = torch.utils.data.DataLoader(
    hymenoptera_dataset, batch_size=4, shuffle=True, num_workers=0
)
for inputs, classes in dataset_loader:
    print(inputs.shape, inputs.dtype, classes.shape, classes.dtype)
tmp.cleanup()
