"""``torch.utils.data.datapipes``: the DataPipe base classes (PyTorch's legacy data
pipeline API). The built-in DataPipes and their functional forms (``.map``, ``.shuffle``,
...) are not in chainrule."""

from . import datapipe
from .datapipe import DataChunk, IterDataPipe, MapDataPipe

__all__ = ["DataChunk", "IterDataPipe", "MapDataPipe", "datapipe"]
