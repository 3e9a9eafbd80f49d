"""Batch normalisation: ``BatchNorm1d/2d/3d`` and their lazy forms, and ``_NormBase``, the
state the instance norms share.

The layer holds an affine ``weight`` (ones) and ``bias`` (zeros) and, when it tracks
running statistics, the buffers ``running_mean`` (zeros), ``running_var`` (ones) and
``num_batches_tracked`` (an int64 count). In training mode it normalises with the batch's
statistics and ``F.batch_norm`` updates the running ones in place,
``running = (1 - momentum) * running + momentum * batch`` (the variance unbiased); a
``momentum`` of None is the cumulative average, ``momentum = 1 / num_batches_tracked``.
In eval mode it normalises with the running statistics (the batch's when it tracks none).

``SyncBatchNorm`` is the same layer for any input of 2 dims or more whose training-mode
statistics are those of every process's batch (sync_batchnorm.py has its Function).
"""

from __future__ import annotations

from typing import Any

from ..._creation import empty, ones, tensor, zeros
from ..._dtypes import long
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .sync_batchnorm import SyncBatchNorm as sync_batch_norm

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
]


class _NormBase(Module):
    """The parameters and running-statistics buffers of the batch and instance norms."""

    _init_per_subclass = True  # (each layer's __init__ is named after it: Module)

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches counted."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """A state dict from before ``num_batches_tracked`` (version < 2) loads with the
        count as it is (0 for a new layer)."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else tensor(0, dtype=long)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
            error_msgs,
        )  # fmt: skip


class _BatchNorm(_NormBase):
    """Normalise each channel (dim 1) over the batch and the spatial dims."""

    def _average_factor(self) -> float:
        """The weight of this batch in the running statistics; in training with running
        statistics, counts the batch first (momentum None: 1/num_batches_tracked)."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the cumulative average
                factor = 1.0 / float(self.num_batches_tracked)
        return factor

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = self._average_factor()
        # batch statistics in training mode, and in eval mode when no running ones are kept
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep else None,
            self.running_var if keep else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A norm whose ``num_features`` is read from the first input (dim 1)."""

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = tensor(0, dtype=long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Materialise the parameters and running statistics with ``input.shape[1]``
        features, then reset them."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


def _expect_dims(input: Tensor, dims: tuple[int, ...]) -> None:
    if input.dim() not in dims:
        want = " or ".join(f"{d}D" for d in dims)
        raise ValueError(f"expected {want} input (got {input.dim()}D input)")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over ``(N, C)`` or ``(N, C, L)`` inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        _expect_dims(input, (2, 3))


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over ``(N, C, H, W)`` inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        _expect_dims(input, (4,))


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over ``(N, C, D, H, W)`` inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        _expect_dims(input, (5,))


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm1d`` whose ``num_features`` comes from the first input."""

    cls_to_become = BatchNorm1d

    def _check_input_dim(self, input: Tensor) -> None:
        _expect_dims(input, (2, 3))


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm2d`` whose ``num_features`` comes from the first input."""

    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input: Tensor) -> None:
        _expect_dims(input, (4,))


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm3d`` whose ``num_features`` comes from the first input."""

    cls_to_become = BatchNorm3d

    def _check_input_dim(self, input: Tensor) -> None:
        _expect_dims(input, (5,))


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over ``(N, C, *)`` inputs whose statistics, in training, are
    those of the batches of every process of ``process_group`` (default: the world)
    together: mean = Σx/n and var = Σ(x - mean)²/n over all n values of a channel, the
    running variance updated with var·n/(n - 1). In eval mode, or when no process group
    is initialised or the group has one process, it is BatchNorm.

    Differences from PyTorch: the synchronised path runs on CPU tensors (PyTorch's raises
    "SyncBatchNorm expected input tensor to be on GPU ..."), and its statistics come from
    all-reduced sums (Σx and n, then Σ(x - mean)²) where PyTorch all-gathers each
    process's mean, invstd and count; the values agree to rounding.
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input: Tensor) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def _sync_group(self) -> Any:
        """The process group to share statistics with, or None when there is none to
        share with (eval mode, no default group, a group of one, a rank outside it)."""
        from ... import distributed as dist

        if not self.training or not dist.is_initialized():
            return None
        group = self.process_group or dist.group.WORLD
        return group if dist.get_world_size(group) > 1 else None

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        group = self._sync_group()
        if group is None:
            return super().forward(input)
        from ... import distributed as dist

        factor = self._average_factor()
        keep = self.track_running_stats
        return sync_batch_norm.apply(
            input,
            self.weight,
            self.bias,
            self.running_mean if keep else None,
            self.running_var if keep else None,
            self.eps,
            factor,
            lambda t: dist.all_reduce(t, group=group),
        )

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every batch norm layer in it (``_BatchNorm``: not the instance
        norms) replaced by a SyncBatchNorm sharing its parameters and buffers, its
        ``training`` flag (and ``qconfig``); a batch norm layer itself comes back as a new
        SyncBatchNorm."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(  # (this class even when cls is a subclass, as PyTorch)
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                with no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
