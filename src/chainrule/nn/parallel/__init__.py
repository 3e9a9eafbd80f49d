"""``chainrule.nn.parallel``: ``DataParallel`` and ``DistributedDataParallel`` (on MPI), as
``torch.nn.parallel``."""

from .data_parallel import DataParallel, data_parallel, gather, parallel_apply, replicate, scatter
from .distributed import DistributedDataParallel

__all__ = [
    "DataParallel",
    "DistributedDataParallel",
    "data_parallel",
    "gather",
    "parallel_apply",
    "replicate",
    "scatter",
]
