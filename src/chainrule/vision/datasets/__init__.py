"""``torchvision.datasets``: datasets read from the files torchvision downloads, in the
same layout on disk, with the same items, attributes and reprs; ``download=True``
fetches them with ``urllib`` (MD5-checked) as torchvision does."""

from __future__ import annotations

from .caltech import Caltech101, Caltech256
from .celeba import CelebA
from .cifar import CIFAR10, CIFAR100
from .coco import CocoCaptions, CocoDetection
from .eurosat import EuroSAT
from .fakedata import FakeData
from .flowers102 import Flowers102
from .folder import DatasetFolder, ImageFolder
from .food101 import Food101
from .gtsrb import GTSRB
from .imagenet import ImageNet
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .omniglot import Omniglot
from .oxford_iiit_pet import OxfordIIITPet
from .semeion import SEMEION
from .stl10 import STL10
from .svhn import SVHN
from .usps import USPS
from .vision import VisionDataset
from .voc import VOCDetection, VOCSegmentation

__all__ = (
    "CIFAR10",
    "CIFAR100",
    "Caltech101",
    "Caltech256",
    "CelebA",
    "CocoCaptions",
    "CocoDetection",
    "EMNIST",
    "GTSRB",
    "KMNIST",
    "MNIST",
    "QMNIST",
    "SEMEION",
    "STL10",
    "SVHN",
    "USPS",
    "DatasetFolder",
    "EuroSAT",
    "FakeData",
    "FashionMNIST",
    "Flowers102",
    "Food101",
    "ImageFolder",
    "ImageNet",
    "Omniglot",
    "OxfordIIITPet",
    "VOCDetection",
    "VOCSegmentation",
    "VisionDataset",
)
