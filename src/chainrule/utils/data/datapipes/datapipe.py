"""``torch.utils.data.datapipes.datapipe``: the DataPipe base classes (user subclasses
define ``__iter__`` or ``__getitem__``/``__len__``) and the wrappers the DataLoader puts
around them to send them to worker processes."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

from ..dataset import Dataset, IterableDataset

__all__ = ["DataChunk", "IterDataPipe", "MapDataPipe"]


class IterDataPipe(IterableDataset):
    """An iterable-style DataPipe: a node of a data pipeline graph that yields samples.
    ``reset`` runs before each new iteration (subclasses override it)."""

    def reset(self) -> None:
        """Reset the DataPipe's state before a new iteration (nothing by default)."""

    def __iter__(self) -> Iterator:
        # the base pipe is its own (non-)iterator, so iterating it fails as PyTorch's does
        return self  # type: ignore[return-value]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in self.__dict__:
            raise AttributeError(name)
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}' (chainrule has no "
            "built-in DataPipes, so no functional forms such as .map or .shuffle)"
        )


class MapDataPipe(Dataset):
    """A map-style DataPipe: a node of a data pipeline graph indexed by key."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in self.__dict__:
            raise AttributeError(name)
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}' (chainrule has no "
            "built-in DataPipes, so no functional forms such as .map or .batch)"
        )


class DataChunk(list):
    """A batch of items produced by a DataPipe (a list)."""

    def __init__(self, items: Any) -> None:
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent: str = "") -> str:
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self) -> Iterator:
        yield from super().__iter__()

    def raw_iterator(self) -> Iterator:
        yield from self.items


class _DataPipeSerializationWrapper:
    """Holds a DataPipe and pickles it (with ``dill`` when pickle cannot and dill is
    installed) when the wrapper is sent to a worker."""

    def __init__(self, datapipe: Any) -> None:
        self._datapipe = datapipe

    def __getstate__(self) -> tuple:
        try:
            return pickle.dumps(self._datapipe), False
        except Exception:
            try:
                import dill
            except ModuleNotFoundError:
                raise
            return dill.dumps(self._datapipe), True

    def __setstate__(self, state: tuple) -> None:
        payload, use_dill = state
        if use_dill:
            import dill

            self._datapipe = dill.loads(payload)
        else:
            self._datapipe = pickle.loads(payload)

    def __len__(self) -> int:
        try:
            return len(self._datapipe)
        except Exception as e:
            raise TypeError(f"{type(self).__name__} instance doesn't have valid length") from e


class _IterDataPipeSerializationWrapper(_DataPipeSerializationWrapper, IterDataPipe):
    """The wrapper of an IterDataPipe: iterates the wrapped one."""

    def __init__(self, datapipe: IterDataPipe) -> None:
        super().__init__(datapipe)
        self._datapipe_iter: Iterator | None = None

    def __iter__(self) -> _IterDataPipeSerializationWrapper:
        self._datapipe_iter = iter(self._datapipe)
        return self

    def __next__(self) -> Any:
        return next(self._datapipe_iter)  # type: ignore[arg-type]


class _MapDataPipeSerializationWrapper(_DataPipeSerializationWrapper, MapDataPipe):
    """The wrapper of a MapDataPipe: indexes the wrapped one."""

    def __getitem__(self, idx: Any) -> Any:
        return self._datapipe[idx]
