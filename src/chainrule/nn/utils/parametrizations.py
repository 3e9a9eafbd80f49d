"""``nn.utils.parametrizations``: weight normalization and spectral normalization as
parametrizations (``parametrize.register_parametrization``), with PyTorch's state-dict keys
(``parametrizations.weight.original0``/``original1`` for weight_norm's g and v;
``parametrizations.weight.original`` and the power-iteration buffers
``parametrizations.weight.0._u``/``_v`` for spectral_norm) and errors
(``torch/nn/utils/parametrizations.py``)."""

from __future__ import annotations

from typing import Any

from ... import _random
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


def _torch() -> Any:
    """The ``chainrule`` namespace (``torch._weight_norm``, ``torch.mv``, ...), filled in
    from the name table once the package is imported."""
    import chainrule

    return chainrule


def _transposed_convolutions() -> tuple[type, ...]:
    """``nn.ConvTranspose1d/2d/3d``, those of them that chainrule has."""
    from .. import modules

    names = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
    return tuple(cls for n in names if (cls := getattr(modules, n, None)) is not None)


class _WeightNorm(Module):
    """w = g·v/‖v‖ from the originals (g, v); ``right_inverse`` splits w into ‖w‖ and w."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _torch()._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        weight_g = _torch().norm_except_dim(weight, 2, self.dim)
        return weight_g, weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as g·v/‖v‖, the norm over every dim but ``dim``
    (``dim=None``: over all). State dicts of the old ``nn.utils.weight_norm`` (``<name>_g``,
    ``<name>_v``) still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """W/σ(W), σ the largest singular value of W as a matrix (dim ``dim`` its rows),
    estimated by power iteration on the buffers ``_u`` and ``_v`` (one step per forward in
    training mode)."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = _random.randn(h, dtype=weight.dtype)
            v = _random.randn(w, dtype=weight.dtype)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """W with dim ``dim`` first, the others flattened: a (rows, columns) matrix."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """u ← normalize(W v), v ← normalize(Wᵀ u), ``n_power_iterations`` times, in place."""
        torch = _torch()
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(torch.mv(weight_mat.T, self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        torch = _torch()
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = torch.vdot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Reparametrize ``module.<name>`` as W/σ(W) (σ its spectral norm, by power iteration);
    ``dim`` is the output dim (1 for transposed convolutions, else 0)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _transposed_convolutions()) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
