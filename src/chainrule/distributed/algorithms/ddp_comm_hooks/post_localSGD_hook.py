"""``torch.distributed.algorithms.ddp_comm_hooks.post_localSGD_hook``: post-local SGD.

chainrule's DistributedDataParallel registers no communication hooks, so post-local SGD is
not in chainrule: :class:`PostLocalSGDState` exists (libraries test ``isinstance`` against
it) and making one raises."""

from __future__ import annotations

from typing import Any

__all__ = ["PostLocalSGDState", "post_localSGD_hook"]


def _missing() -> Exception:
    from chainrule._missing import missing

    return missing(
        "torch.distributed.algorithms.ddp_comm_hooks.post_localSGD_hook", "PostLocalSGDState"
    )


class PostLocalSGDState:
    """The state of the post-local SGD hook: not in chainrule (making one raises)."""

    def __init__(
        self,
        process_group: Any,
        subgroup: Any,
        start_localSGD_iter: int,  # noqa: N803 - PyTorch's name
        post_local_gradient_allreduce: bool = True,
    ) -> None:
        raise _missing()


def post_localSGD_hook(state: PostLocalSGDState, bucket: Any) -> Any:  # noqa: N802
    """The post-local SGD communication hook: not in chainrule."""
    raise _missing()
