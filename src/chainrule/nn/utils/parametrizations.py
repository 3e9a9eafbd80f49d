"""``nn.utils.parametrizations``: weight normalization and spectral normalization as
parametrizations (``parametrize.register_parametrization``), with PyTorch's state-dict keys
(``parametrizations.weight.original0``/``original1`` for weight_norm's g and v;
``parametrizations.weight.original`` and the power-iteration buffers
``parametrizations.weight.0._u``/``_v`` for spectral_norm; ``parametrizations.weight.0.base``
for orthogonal) and errors (``torch/nn/utils/parametrizations.py``)."""

from __future__ import annotations

from enum import Enum, auto
from typing import Any

from ... import _random
from ..._backend import xp
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


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


# ----- orthogonal --------------------------------------------------------------------------


def _is_orthogonal(q: Tensor) -> bool:
    """QᴴQ = I to 10·n·eps."""
    torch = _torch()
    n, k = q.shape[-2], q.shape[-1]
    eye = torch.eye(k, dtype=q.dtype)
    return bool(torch.allclose(q.mH @ q, eye, atol=10.0 * n * torch.finfo(q.dtype).eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of A's QR decomposition with R's diagonal made positive."""
    q, r = _torch().linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """H_1 ⋯ H_k (first k columns), H_i = I - tau_i v_i v_iᵀ, v_i column i of A's strictly
    lower part with a unit diagonal (``linalg.householder_product``), one reflector at a
    time."""
    torch = _torch()
    n, k = a.shape[-2], a.shape[-1]
    vs = a.tril(-1) + torch.eye(n, k, dtype=a.dtype)
    q = torch.eye(n, dtype=a.dtype).expand(*a.shape[:-2], n, n)
    for i in range(k):
        v = vs[..., :, i : i + 1]
        q = q - (tau[..., i : i + 1].unsqueeze(-1) * (q @ v)) @ v.mT
    return q[..., :k]


def _householder_vectors(q: Tensor) -> Tensor:
    """The A whose Householder product is ``q`` (``q`` orthogonal): LAPACK's geqrf vectors,
    the diagonal replaced by the signs of R's (flipped where tau is 0)."""
    h, tau = xp.linalg.qr(q.detach().numpy(), mode="raw")
    a = xp.swapaxes(h, -1, -2).copy()
    diag = xp.diagonal(a, axis1=-2, axis2=-1)  # (the first k rows of a tall (n, k) matrix)
    signs = xp.where(tau == 0.0, -1.0, 1.0) * xp.sign(diag)
    k = signs.shape[-1]
    a[..., xp.arange(k), xp.arange(k)] = signs
    return _make(a, q.dtype)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """An orthogonal (n, k) matrix from an unconstrained one: by the matrix exponential or
    the Cayley map of a skew-symmetric matrix, or a product of Householder reflectors;
    with ``use_trivialization``, times the orthogonal ``base`` (a buffer)."""

    def __init__(
        self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        torch = _torch()
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                zeros = torch.zeros(n, n - k, dtype=x.dtype).expand(*x.shape[:-2], -1, -1)
                x = torch.cat([x, zeros], dim=-1)
            a = x - x.mH  # skew-Hermitian
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = torch.matrix_exp(a)
            else:
                eye = torch.eye(n, dtype=a.dtype)
                q = torch.linalg.solve(torch.add(eye, a, alpha=-0.5), torch.add(eye, a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q: Tensor) -> Tensor:
        """The unconstrained matrix giving ``q``: with a base, ``base`` becomes q (made
        orthogonal, completed to a square one) and the result is the matrix the map sends
        to the identity."""
        torch = _torch()
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. "
                    f"Got a tensor of shape {q.shape}."
                )
            q_init = q
            n, k = q.shape[-2], q.shape[-1]
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                a = _householder_vectors(q)
                return a.mT if transpose else a
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:
                extra = _random.randn(*q.shape[:-2], n, n - k, dtype=q.dtype)
                q = _make_orthogonal(torch.cat([q, extra], dim=-1))
            self.base = q
            neg_id = torch.zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Constrain ``module.<name>`` (a matrix or a batch of them) to be orthogonal: by
    default the matrix exponential for square or complex matrices, Householder reflectors
    otherwise."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
