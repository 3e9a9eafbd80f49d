"""Helpers of the wav2vec 2.0 bundles: the model factory, the input-normalising wrapper,
the checkpoint fetch (with fairseq's unused output rows dropped) and the label sets."""

from __future__ import annotations

from typing import Any

import chainrule
from chainrule import Tensor, hub, nn
from chainrule.audio.models import Wav2Vec2Model, wav2vec2_model, wavlm_model

__all__: list[str] = []

_BASE_URL = "https://download.pytorch.org/torchaudio/models"


def _get_model(type_: str, params: dict[str, Any]) -> Wav2Vec2Model:
    """``wav2vec2_model(**params)`` or ``wavlm_model(**params)``, by ``type_``."""
    factories = {"Wav2Vec2": wav2vec2_model, "WavLM": wavlm_model}
    if type_ not in factories:
        raise ValueError(f"Supported model types are {tuple(factories.keys())}. Found: {type_}")
    return factories[type_](**params)


class _Wav2Vec2Model(nn.Module):
    """A :class:`Wav2Vec2Model` with optional extras around it: the input layer-normalised
    over its whole shape first, ``log_softmax`` over the classes after, and a constant-zero
    "star" column appended to the emission."""

    def __init__(
        self,
        model: Wav2Vec2Model,
        normalize_waveform: bool,
        apply_log_softmax: bool,
        append_star: bool,
    ) -> None:
        super().__init__()
        self.model = model
        self.normalize_waveform = normalize_waveform
        self.apply_log_softmax = apply_log_softmax
        self.append_star = append_star

    def _normalized(self, waveforms: Tensor) -> Tensor:
        """``(x - mean(x)) / sqrt(var(x) + 1e-5)`` over every element, when enabled."""
        if self.normalize_waveform:
            return nn.functional.layer_norm(waveforms, waveforms.shape)
        return waveforms

    def forward(
        self, waveforms: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """The wrapped model's emission (and valid lengths), post-processed as configured."""
        output, output_lengths = self.model(self._normalized(waveforms), lengths)
        if self.apply_log_softmax:
            output = nn.functional.log_softmax(output, dim=-1)
        if self.append_star:
            star = chainrule.zeros((1, output.size(1), 1), dtype=output.dtype, device=output.device)
            output = chainrule.cat((output, star), dim=-1)
        return output, output_lengths

    def extract_features(
        self,
        waveforms: Tensor,
        lengths: Tensor | None = None,
        num_layers: int | None = None,
    ) -> tuple[list[Tensor], Tensor | None]:
        """The wrapped model's per-layer transformer outputs of the (normalised) input."""
        return self.model.extract_features(self._normalized(waveforms), lengths, num_layers)


def _extend_model(
    module: Wav2Vec2Model,
    normalize_waveform: bool,
    apply_log_softmax: bool = False,
    append_star: bool = False,
) -> _Wav2Vec2Model:
    """``module`` wrapped in :class:`_Wav2Vec2Model`."""
    return _Wav2Vec2Model(module, normalize_waveform, apply_log_softmax, append_star)


def _remove_aux_axes(state_dict: dict[str, Tensor], axes: tuple[int, ...]) -> None:
    """Drop the rows ``axes`` of the output layer (``aux.weight``, ``aux.bias``) in place:
    fairseq's dictionary reserves a few symbols (``<pad>``, ``</s>``, ``<unk>``) that the
    CTC head never predicts, and some VoxPopuli heads carry one more unused class."""
    for key in ("aux.weight", "aux.bias"):
        mat = state_dict[key]
        kept = [mat[i] for i in range(mat.size(0)) if i not in axes]
        state_dict[key] = chainrule.stack(kept)


def _get_state_dict(
    url: str, dl_kwargs: dict[str, Any] | None, remove_axes: tuple[int, ...] | None = None
) -> dict[str, Tensor]:
    """The checkpoint at ``url`` (relative names resolved under torchaudio's model URL),
    through :func:`chainrule.hub.load_state_dict_from_url`, aux rows removed."""
    if not url.startswith("https"):
        url = f"{_BASE_URL}/{url}"
    state_dict = hub.load_state_dict_from_url(url, **({} if dl_kwargs is None else dl_kwargs))
    if remove_axes:
        _remove_aux_axes(state_dict, remove_axes)
    return state_dict


# Output classes after the blank, most frequent first (fairseq's dictionaries).
def _get_en_labels() -> tuple[str, ...]:
    """English (LibriSpeech) characters, ``|`` being the word boundary."""
    return tuple("|ETAONIHSRDLUMWCFGYPBVK'XJQZ")


def _get_de_labels() -> tuple[str, ...]:
    """German (VoxPopuli) characters."""
    return tuple("|enirstadhulgcmobwfkzpvüäöjßyxq")


def _get_vp_en_labels() -> tuple[str, ...]:
    """English (VoxPopuli) characters."""
    return tuple("|etoiansrhldcumpfgwybvkxjqz")


def _get_es_labels() -> tuple[str, ...]:
    """Spanish (VoxPopuli) characters."""
    return tuple("|eaosnrildctupmbqygvhófíájzñéxúkwü")


def _get_fr_labels() -> tuple[str, ...]:
    """French (VoxPopuli) characters."""
    return tuple("|esnitraouldcpmévqfgbhxàjèyêzôkçœûùîâwïëüæ")


def _get_it_labels() -> tuple[str, ...]:
    """Italian (VoxPopuli) characters."""
    return tuple("|eiaontrlscdupmgvhzfbqàèùéòìkyxwjóíï")


def _get_mms_labels() -> tuple[str, ...]:
    """Romanised characters of the multilingual MMS aligner (no word boundary)."""
    return tuple("aienoutsrmkldghybpwcvjzf'qx")
