"""torchaudio.functional's multi-channel functions: PSD matrices, relative transfer
functions and MVDR beamforming.

Spectra are complex ``(..., channel, freq, time)``; PSD matrices are
``(..., freq, channel, channel)``. The MVDR beamformer minimises the noise power
``w^H Phi_NN w`` subject to an undistorted target, ``w = Phi_NN^-1 d / (d^H Phi_NN^-1 d)``
for a steering vector ``d``, or (Souden) ``w = Phi_NN^-1 Phi_SS u / tr(Phi_NN^-1 Phi_SS)``.
"""

from __future__ import annotations

import chainrule
from chainrule import Tensor

__all__ = [
    "apply_beamforming",
    "mvdr_weights_rtf",
    "mvdr_weights_souden",
    "psd",
    "rtf_evd",
    "rtf_power",
]


def psd(
    specgram: Tensor,
    mask: Tensor | None = None,
    normalize: bool = True,
    eps: float = 1e-10,
) -> Tensor:
    """Cross-channel power spectral density ``Phi(f) = sum_t m(f, t) X(f, t) X(f, t)^H``
    of a ``(..., channel, freq, time)`` spectrum; the time-frequency mask ``m`` is
    normalised to sum 1 over time (``m / (sum_t m + eps)``) when ``normalize``."""
    specgram = specgram.transpose(-3, -2)  # (..., freq, channel, time)
    outer = chainrule.einsum("...ct,...et->...tce", specgram, specgram.conj())
    if mask is not None:
        if mask.shape[:-1] != specgram.shape[:-2] or mask.shape[-1] != specgram.shape[-1]:
            raise ValueError(
                "The dimensions of mask except the channel dimension should be the same as specgram."
                f"Found {mask.shape} for mask and {specgram.shape} for specgram."
            )
        if normalize:
            mask = mask / (mask.sum(dim=-1, keepdim=True) + eps)
        outer = outer * mask[..., None, None]
    return outer.sum(dim=-3)


def _trace(matrix: Tensor) -> Tensor:
    """Trace over the last two dimensions."""
    if matrix.ndim < 2:
        raise ValueError("The dimension of the tensor must be at least 2.")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise ValueError("The size of ``dim1`` and ``dim2`` must be the same.")
    return chainrule.diagonal(matrix, 0, dim1=-1, dim2=-2).sum(dim=-1)


def _tik_reg(matrix: Tensor, reg: float = 1e-7, eps: float = 1e-8) -> Tensor:
    """Tikhonov regularisation ``M + (reg Re tr(M) + eps) I``."""
    eye = chainrule.eye(matrix.size(-1), dtype=matrix.dtype, device=matrix.device)
    loading = _trace(matrix).real[..., None, None] * reg + eps
    return matrix + loading * eye


def _check_psd_pair(psd_s: Tensor, psd_n: Tensor) -> None:
    if psd_s.ndim < 3 or psd_n.ndim < 3:
        raise ValueError(
            "Expected at least 3D Tensor (..., freq, channel, channel) for psd_s and psd_n. "
            f"Found {psd_s.shape} for psd_s and {psd_n.shape} for psd_n."
        )
    if not (psd_s.is_complex() and psd_n.is_complex()):
        raise TypeError(
            "The type of psd_s and psd_n must be ``torch.cfloat`` or ``torch.cdouble``. "
            f"Found {psd_s.dtype} for psd_s and {psd_n.dtype} for psd_n."
        )
    if psd_s.shape != psd_n.shape:
        raise ValueError(
            "The dimensions of psd_s and psd_n should be the same. "
            f"Found {psd_s.shape} and {psd_n.shape}."
        )
    if psd_s.shape[-1] != psd_s.shape[-2]:
        raise ValueError(
            f"The last two dimensions of psd_s should be the same. Found {psd_s.shape}."
        )


def _select_channel(matrix: Tensor, reference_channel: int | Tensor, dtype) -> Tensor:
    """Column ``reference_channel`` of ``(..., C, C)`` matrices, or their product with a
    ``(..., C)`` reference vector."""
    if isinstance(reference_channel, int):
        return matrix[..., :, reference_channel]
    if isinstance(reference_channel, Tensor):
        vector = reference_channel.to(dtype)
        return chainrule.einsum("...c,...c->...", matrix, vector[..., None, None, :])
    raise TypeError(
        f'Expected "int" or "Tensor" for reference_channel. Found: {type(reference_channel)}.'
    )


def mvdr_weights_souden(
    psd_s: Tensor,
    psd_n: Tensor,
    reference_channel: int | Tensor,
    diagonal_loading: bool = True,
    diag_eps: float = 1e-7,
    eps: float = 1e-8,
) -> Tensor:
    """Souden's MVDR weights ``(..., freq, channel)``:
    ``w = Phi_NN^-1 Phi_SS u / (tr(Phi_NN^-1 Phi_SS) + eps)`` with ``u`` the reference
    channel (one-hot index or vector); ``Phi_NN`` Tikhonov-loaded if ``diagonal_loading``."""
    _check_psd_pair(psd_s, psd_n)
    if diagonal_loading:
        psd_n = _tik_reg(psd_n, reg=diag_eps)
    numerator = chainrule.linalg.solve(psd_n, psd_s)
    ws = numerator / (_trace(numerator)[..., None, None] + eps)
    return _select_channel(ws, reference_channel, psd_n.dtype)


def mvdr_weights_rtf(
    rtf: Tensor,
    psd_n: Tensor,
    reference_channel: int | Tensor | None = None,
    diagonal_loading: bool = True,
    diag_eps: float = 1e-7,
    eps: float = 1e-8,
) -> Tensor:
    """MVDR weights from a relative transfer function ``d``:
    ``w = Phi_NN^-1 d / (Re(d^H Phi_NN^-1 d) + eps)``, times ``conj(d_ref)`` when a
    reference channel (index or vector) is given."""
    if rtf.ndim < 2:
        raise ValueError(
            f"Expected at least 2D Tensor (..., freq, channel) for rtf. Found {rtf.shape}."
        )
    if psd_n.ndim < 3:
        raise ValueError(
            "Expected at least 3D Tensor (..., freq, channel, channel) for psd_n. "
            f"Found {psd_n.shape}."
        )
    if not (rtf.is_complex() and psd_n.is_complex()):
        raise TypeError(
            "The type of rtf and psd_n must be ``torch.cfloat`` or ``torch.cdouble``. "
            f"Found {rtf.dtype} for rtf and {psd_n.dtype} for psd_n."
        )
    if rtf.shape != psd_n.shape[:-1]:
        raise ValueError(
            "The dimensions of rtf and the dimensions withou the last dimension of psd_n "
            f"should be the same. Found {rtf.shape} for rtf and {psd_n.shape} for psd_n."
        )
    if psd_n.shape[-1] != psd_n.shape[-2]:
        raise ValueError(
            f"The last two dimensions of psd_n should be the same. Found {psd_n.shape}."
        )
    if diagonal_loading:
        psd_n = _tik_reg(psd_n, reg=diag_eps)
    numerator = chainrule.linalg.solve(psd_n, rtf.unsqueeze(-1)).squeeze(-1)
    denominator = chainrule.einsum("...d,...d->...", rtf.conj(), numerator)
    weights = numerator / (denominator.real.unsqueeze(-1) + eps)
    if reference_channel is not None:
        if isinstance(reference_channel, int):
            scale = rtf[..., reference_channel].conj()
        elif isinstance(reference_channel, Tensor):
            vector = reference_channel.to(psd_n.dtype)
            scale = chainrule.einsum("...c,...c->...", rtf.conj(), vector[..., None, :])
        else:
            raise TypeError(
                'Expected "int" or "Tensor" for reference_channel. '
                f"Found: {type(reference_channel)}."
            )
        weights = weights * scale[..., None]
    return weights


def rtf_evd(psd_s: Tensor) -> Tensor:
    """Relative transfer function as the principal eigenvector of ``Phi_SS``
    (``(..., freq, channel)``, eigenvector of the largest eigenvalue)."""
    if not psd_s.is_complex():
        raise TypeError(
            f"The type of psd_s must be ``torch.cfloat`` or ``torch.cdouble``. Found {psd_s.dtype}."
        )
    if psd_s.shape[-1] != psd_s.shape[-2]:
        raise ValueError(
            f"The last two dimensions of psd_s should be the same. Found {psd_s.shape}."
        )
    _, vectors = chainrule.linalg.eigh(psd_s)
    return vectors[..., -1]


def rtf_power(
    psd_s: Tensor,
    psd_n: Tensor,
    reference_channel: int | Tensor,
    n_iter: int = 3,
    diagonal_loading: bool = True,
    diag_eps: float = 1e-7,
) -> Tensor:
    """Relative transfer function by power iteration on ``Phi = Phi_NN^-1 Phi_SS``:
    ``d = Phi_SS Phi^(n_iter - 2) Phi u`` (``Phi_NN Phi u = Phi_SS u`` for one iteration)."""
    _check_psd_pair(psd_s, psd_n)
    if n_iter <= 0:
        raise ValueError("The number of iteration must be greater than 0.")
    if diagonal_loading:
        psd_n = _tik_reg(psd_n, reg=diag_eps)
    phi = chainrule.linalg.solve(psd_n, psd_s)
    rtf = _select_channel(phi, reference_channel, psd_n.dtype).unsqueeze(-1)
    if n_iter >= 2:
        for _ in range(n_iter - 2):
            rtf = chainrule.matmul(phi, rtf)
        rtf = chainrule.matmul(psd_s, rtf)
    else:
        rtf = chainrule.matmul(psd_n, rtf)
    return rtf.squeeze(-1)


def apply_beamforming(beamform_weights: Tensor, specgram: Tensor) -> Tensor:
    """Beamformed spectrum ``Y(f, t) = w(f)^H X(f, t)``: ``(..., freq, channel)`` weights
    on a ``(..., channel, freq, time)`` spectrum give ``(..., freq, time)``."""
    if beamform_weights.shape[:-2] != specgram.shape[:-3]:
        raise ValueError(
            "The dimensions except the last two dimensions of beamform_weights should be the same "
            "as the dimensions except the last three dimensions of specgram. "
            f"Found {beamform_weights.shape} for beamform_weights and {specgram.shape} for specgram."
        )
    if not (beamform_weights.is_complex() and specgram.is_complex()):
        raise TypeError(
            "The type of beamform_weights and specgram must be ``torch.cfloat`` or ``torch.cdouble``. "
            f"Found {beamform_weights.dtype} for beamform_weights and {specgram.dtype} for specgram."
        )
    return chainrule.einsum("...fc,...cft->...ft", beamform_weights.conj(), specgram)
