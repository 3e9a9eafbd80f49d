"""``torch.optim.SparseAdam``: Adam for sparse gradients (an ``nn.Embedding(...,
sparse=True)``'s), its moments kept and updated at the gradient's elements only
(optim/_sparse.py); a dense gradient is refused, as PyTorch refuses it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._layout import strided
from . import _sparse
from .optimizer import Optimizer, ParamsT, _check_betas

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam on the elements of sparse gradients."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        sparse_params = [
            [i, j]
            for i, group in enumerate(self.param_groups)
            for j, p in enumerate(group["params"])
            if p.layout is not strided
        ]
        if sparse_params:
            raise ValueError(
                f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter "
                "tensors"
            )
        complex_params = [
            [i, j]
            for i, group in enumerate(self.param_groups)
            for j, p in enumerate(group["params"])
            if getattr(p.dtype, "is_complex", False)
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: "
                "SparseAdam does not support complex parameters"
            )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One step on every parameter with a (sparse) gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not _sparse.is_sparse(p.grad):
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam instead"
                    )
                _sparse.sparse_adam(p, self.state[p], group)
        return loss
