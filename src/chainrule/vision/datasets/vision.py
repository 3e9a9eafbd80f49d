"""``VisionDataset``, the base of every dataset here (root, transforms and torchvision's
repr), and ``StandardTransform``, the pair of an input and a target transform."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...utils.data import Dataset

__all__ = ["StandardTransform", "VisionDataset"]


def _indented_repr(transform: Callable, head: str) -> list[str]:
    """``transform``'s repr with ``head`` before its first line and the rest aligned under it."""
    first, *rest = repr(transform).splitlines()
    return [head + first] + [" " * len(head) + line for line in rest]


class VisionDataset(Dataset):
    """A dataset under ``root`` whose items pass through ``transforms(input, target)``, or
    through ``transform`` and ``target_transform`` separately (not both ways at once).
    Subclasses define ``__getitem__`` and ``__len__``."""

    _repr_indent = 4

    def __init__(
        self,
        root: str | Path = None,  # type: ignore[assignment]
        transforms: Callable | None = None,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ) -> None:
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        separate = transform is not None or target_transform is not None
        if transforms is not None and separate:
            raise ValueError(
                "Only transforms or transform/target_transform can be passed as argument"
            )
        self.transform = transform
        self.target_transform = target_transform
        if separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body.append(repr(self.transforms))
        pad = " " * self._repr_indent
        return "\n".join([f"Dataset {type(self).__name__}"] + [pad + line for line in body])

    def _format_transform_repr(self, transform: Callable, head: str) -> list[str]:
        return _indented_repr(transform, head)

    def extra_repr(self) -> str:
        """Extra lines for the repr (the split, ...); empty here."""
        return ""


class StandardTransform:
    """Applies ``transform`` to the input and ``target_transform`` to the target (each when given)."""

    def __init__(
        self, transform: Callable | None = None, target_transform: Callable | None = None
    ) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input: Any, target: Any) -> tuple[Any, Any]:
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def _format_transform_repr(self, transform: Callable, head: str) -> list[str]:
        return _indented_repr(transform, head)

    def __repr__(self) -> str:
        body = [type(self).__name__]
        if self.transform is not None:
            body += _indented_repr(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += _indented_repr(self.target_transform, "Target transform: ")
        return "\n".join(body)
