"""``torch.distributed.Backend``: the process-group backends' names, as PyTorch lists them.

chainrule runs every group on MPI: "mpi" and "gloo" are the names ``init_process_group``
takes (see _world.py); the others are listed as PyTorch lists them."""

from __future__ import annotations

__all__ = ["Backend"]


class Backend(str):  # noqa: SLOT000 - PyTorch's str subclass
    """A backend's name: ``Backend("GLOO")`` is ``"gloo"`` (names are lowercased; an
    unknown one is left to ``init_process_group`` to refuse)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"

    backend_list = ["undefined", "gloo", "nccl", "xccl", "ucc", "mpi", "fake"]
    default_device_backend_map = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "mps": "gloo"}
    backend_capability = {
        "gloo": ["cpu", "cuda"],
        "nccl": ["cuda"],
        "xccl": ["xpu"],
        "ucc": ["cpu", "cuda"],
        "mpi": ["cpu", "cuda"],
        "fake": ["cpu", "cuda", "hpu", "xpu"],
    }

    def __new__(cls, name: str) -> str:  # type: ignore[misc]
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        return name.lower() if value == Backend.UNDEFINED else value
