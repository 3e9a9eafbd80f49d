"""``torch._C._distributed_rpc``: the classes of PyTorch's RPC framework that libraries
name in ``isinstance`` checks. chainrule has no RPC framework
(``torch.distributed.rpc.is_available()`` is False), so no instance is ever made: the
classes exist for those checks to answer False."""

from __future__ import annotations

__all__ = ["PyRRef"]


class PyRRef:
    """``torch._C._distributed_rpc.PyRRef`` (``torch.distributed.rpc.RRef``): a reference
    to a remote value. chainrule has no RPC framework, so none can be made."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError(
            "chainrule has no RPC framework (torch.distributed.rpc is not available): "
            "torch._C._distributed_rpc.PyRRef objects cannot be made"
        )
