"""torchaudio.transforms's multi-channel modules: PSD and the MVDR beamformers."""

from __future__ import annotations

import warnings

import chainrule
from chainrule import Tensor, nn

from ..functional import _multi_channel as F

__all__ = ["MVDR", "PSD", "RTFMVDR", "SoudenMVDR"]

_SOLUTIONS = ["ref_channel", "stv_evd", "stv_power"]


def _mvdr_vector(
    psd_s: Tensor,
    psd_n: Tensor,
    reference_vector: Tensor,
    solution: str = "ref_channel",
    diagonal_loading: bool = True,
    diag_eps: float = 1e-7,
    eps: float = 1e-8,
) -> Tensor:
    """MVDR weights by Souden's formula (``"ref_channel"``) or from a steering vector
    estimated by eigendecomposition (``"stv_evd"``) or power iteration (``"stv_power"``)."""
    if solution == "ref_channel":
        return F.mvdr_weights_souden(
            psd_s, psd_n, reference_vector, diagonal_loading, diag_eps, eps
        )
    if solution == "stv_evd":
        stv = F.rtf_evd(psd_s)
    else:
        stv = F.rtf_power(
            psd_s, psd_n, reference_vector, diagonal_loading=diagonal_loading, diag_eps=diag_eps
        )
    return F.mvdr_weights_rtf(stv, psd_n, reference_vector, diagonal_loading, diag_eps, eps)


class PSD(nn.Module):
    """Power spectral density matrices ``(..., freq, channel, channel)`` of a multi-channel
    complex spectrum, weighted by a time-frequency mask (averaged over channels if
    ``multi_mask``) normalised over time if ``normalize``."""

    def __init__(
        self, multi_mask: bool = False, normalize: bool = True, eps: float = 1e-15
    ) -> None:
        super().__init__()
        self.multi_mask = multi_mask
        self.normalize = normalize
        self.eps = eps

    def forward(self, specgram: Tensor, mask: Tensor | None = None) -> Tensor:
        """``sum_t m(f, t) X(f, t) X(f, t)^H`` for ``specgram`` ``(..., channel, freq, time)``."""
        if mask is not None and self.multi_mask:
            mask = mask.mean(dim=-3)
        return F.psd(specgram, mask, self.normalize, self.eps)


class MVDR(nn.Module):
    """Mask-based MVDR beamformer: speech and noise PSDs from the masks, then MVDR weights
    (``solution``: Souden's ``"ref_channel"``, ``"stv_evd"`` or ``"stv_power"``) applied to
    the spectrum. Computed in complex128. With ``online``, the PSDs are running averages
    over calls (weighted by the masks' total mass), kept in buffers."""

    def __init__(
        self,
        ref_channel: int = 0,
        solution: str = "ref_channel",
        multi_mask: bool = False,
        diag_loading: bool = True,
        diag_eps: float = 1e-7,
        online: bool = False,
    ) -> None:
        super().__init__()
        if solution not in _SOLUTIONS:
            raise ValueError(
                '`solution` must be one of ["ref_channel", "stv_evd", "stv_power"]. '
                f"Given {solution}"
            )
        self.ref_channel = ref_channel
        self.solution = solution
        self.multi_mask = multi_mask
        self.diag_loading = diag_loading
        self.diag_eps = diag_eps
        self.online = online
        self.psd = PSD(multi_mask)
        self.register_buffer("psd_s", chainrule.zeros(1))
        self.register_buffer("psd_n", chainrule.zeros(1))
        self.register_buffer("mask_sum_s", chainrule.zeros(1))
        self.register_buffer("mask_sum_n", chainrule.zeros(1))

    def _running_psd(self, old: Tensor, old_mass: Tensor, new: Tensor, mask: Tensor) -> Tensor:
        """``(M_old Phi_old + Phi_new) / (M_old + M_new)`` (``Phi_new`` is mask-normalised
        already, hence not multiplied by its mass, as in torchaudio)."""
        total = old_mass + mask.sum(dim=-1)
        return old * (old_mass / total)[..., None, None] + new * (1 / total)[..., None, None]

    def _updated_mvdr_vector(
        self,
        psd_s: Tensor,
        psd_n: Tensor,
        mask_s: Tensor,
        mask_n: Tensor,
        reference_vector: Tensor,
    ) -> Tensor:
        if self.multi_mask:
            mask_s = mask_s.mean(dim=-3)
            mask_n = mask_n.mean(dim=-3)
        if self.psd_s.ndim == 1:
            self.psd_s = psd_s
            self.psd_n = psd_n
            self.mask_sum_s = mask_s.sum(dim=-1)
            self.mask_sum_n = mask_n.sum(dim=-1)
        else:
            psd_s = self._running_psd(self.psd_s, self.mask_sum_s, psd_s, mask_s)
            psd_n = self._running_psd(self.psd_n, self.mask_sum_n, psd_n, mask_n)
            self.psd_s = psd_s
            self.psd_n = psd_n
            self.mask_sum_s = self.mask_sum_s + mask_s.sum(dim=-1)
            self.mask_sum_n = self.mask_sum_n + mask_n.sum(dim=-1)
        return _mvdr_vector(
            psd_s, psd_n, reference_vector, self.solution, self.diag_loading, self.diag_eps
        )

    def forward(self, specgram: Tensor, mask_s: Tensor, mask_n: Tensor | None = None) -> Tensor:
        """Enhanced single-channel spectrum ``(..., freq, time)`` of ``specgram``
        ``(..., channel, freq, time)``; ``mask_n`` defaults to ``1 - mask_s``."""
        dtype = specgram.dtype
        if specgram.ndim < 3:
            raise ValueError(
                f"Expected at least 3D tensor (..., channel, freq, time). Found: {specgram.shape}"
            )
        if not specgram.is_complex():
            raise ValueError(
                "The type of ``specgram`` tensor must be ``torch.cfloat`` or ``torch.cdouble``."
                f"                    Found: {specgram.dtype}"
            )
        if specgram.dtype == chainrule.cfloat:
            specgram = specgram.cdouble()
        if mask_n is None:
            warnings.warn(
                "``mask_n`` is not provided, use ``1 - mask_s`` as ``mask_n``.", stacklevel=2
            )
            mask_n = 1 - mask_s
        psd_s = self.psd(specgram, mask_s)
        psd_n = self.psd(specgram, mask_n)
        u = chainrule.zeros(specgram.size()[:-2], device=specgram.device, dtype=chainrule.cdouble)
        u[..., self.ref_channel] = 1
        if self.online:
            weights = self._updated_mvdr_vector(psd_s, psd_n, mask_s, mask_n, u)
        else:
            weights = _mvdr_vector(psd_s, psd_n, u, self.solution, self.diag_loading, self.diag_eps)
        return F.apply_beamforming(weights, specgram).to(dtype)


class RTFMVDR(nn.Module):
    """MVDR beamformer from a relative transfer function and the noise PSD."""

    def forward(
        self,
        specgram: Tensor,
        rtf: Tensor,
        psd_n: Tensor,
        reference_channel: int | Tensor,
        diagonal_loading: bool = True,
        diag_eps: float = 1e-7,
        eps: float = 1e-8,
    ) -> Tensor:
        """``w^H X`` with ``w = mvdr_weights_rtf(rtf, psd_n, reference_channel, ...)``."""
        weights = F.mvdr_weights_rtf(rtf, psd_n, reference_channel, diagonal_loading, diag_eps, eps)
        return F.apply_beamforming(weights, specgram)


class SoudenMVDR(nn.Module):
    """Souden's MVDR beamformer from the speech and noise PSDs."""

    def forward(
        self,
        specgram: Tensor,
        psd_s: Tensor,
        psd_n: Tensor,
        reference_channel: int | Tensor,
        diagonal_loading: bool = True,
        diag_eps: float = 1e-7,
        eps: float = 1e-8,
    ) -> Tensor:
        """``w^H X`` with ``w = mvdr_weights_souden(psd_s, psd_n, reference_channel, ...)``."""
        weights = F.mvdr_weights_souden(
            psd_s, psd_n, reference_channel, diagonal_loading, diag_eps, eps
        )
        return F.apply_beamforming(weights, specgram)
