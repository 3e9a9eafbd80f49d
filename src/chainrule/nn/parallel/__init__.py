"""``chainrule.nn.parallel``: ``DistributedDataParallel`` (on MPI), as ``torch.nn.parallel``."""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
