"""Pretrained wav2vec 2.0 / HuBERT / WavLM / XLS-R / MMS bundles: each names a checkpoint
under torchaudio's model URL, the builder arguments of :func:`wav2vec2_model` (or
:func:`wavlm_model`), the sample rate, whether the input is layer-normalised first and, for
fine-tuned (CTC) models, the output labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chainrule import Tensor
from chainrule.nn import Module

from . import aligner, utils

__all__: list[str] = []


@dataclass
class Wav2Vec2Bundle:
    """A pretrained :class:`~chainrule.audio.models.Wav2Vec2Model` (feature extraction):
    ``bundle.get_model()`` builds it and loads the weights; ``bundle.sample_rate`` is the
    rate the audio must have (resample first)."""

    _path: str
    _params: dict[str, Any]
    _sample_rate: float
    _normalize_waveform: bool
    _model_type: str

    @property
    def sample_rate(self) -> float:
        """Sample rate (Hz) of the audio the model was trained on."""
        return self._sample_rate

    def _get_state_dict(self, dl_kwargs: dict[str, Any] | None) -> dict[str, Tensor]:
        """The checkpoint as stored (ASR bundles drop unused output rows)."""
        return utils._get_state_dict(self._path, dl_kwargs)

    def get_model(self, *, dl_kwargs: dict[str, Any] | None = None) -> Module:
        """The model with the pretrained weights (fetched with
        :func:`chainrule.hub.load_state_dict_from_url`, ``dl_kwargs`` passed on), in eval
        mode; wrapped so the input is layer-normalised when the bundle was trained so."""
        model = utils._get_model(self._model_type, self._params)
        model.load_state_dict(self._get_state_dict(dl_kwargs))
        if self._normalize_waveform:
            model = utils._extend_model(model, normalize_waveform=True)
        model.eval()
        return model


@dataclass
class Wav2Vec2ASRBundle(Wav2Vec2Bundle):
    """A pretrained :class:`~chainrule.audio.models.Wav2Vec2Model` fine-tuned for CTC speech
    recognition: ``model(waveform)`` gives per-frame logits over ``bundle.get_labels()``."""

    _labels: tuple[str, ...]
    _remove_aux_axis: tuple[int, ...] = (1, 2, 3)

    def get_labels(self, *, blank: str = "-") -> tuple[str, ...]:
        """The output classes: ``blank`` (index 0), then the characters."""
        return (blank, *self._labels)

    def _get_state_dict(self, dl_kwargs: dict[str, Any] | None) -> dict[str, Tensor]:
        """The checkpoint with the rows ``_remove_aux_axis`` of the output layer dropped."""
        return utils._get_state_dict(self._path, dl_kwargs, self._remove_aux_axis)


@dataclass
class Wav2Vec2FABundle(Wav2Vec2ASRBundle):
    """A pretrained CTC model for forced alignment: its model outputs log-probabilities (and
    a zero "star" column), with a tokenizer and an aligner to time-stamp a transcript."""

    class Tokenizer(aligner.ITokenizer):
        """Interface of the tokenizer."""

    class Aligner(aligner.IAligner):
        """Interface of the aligner."""

    def get_labels(self, star: str | None = "*", blank: str = "-") -> tuple[str, ...]:
        """``blank``, the characters and (unless ``star`` is None) the star token."""
        labels = super().get_labels(blank=blank)
        return labels if star is None else (*labels, star)

    def get_model(
        self, with_star: bool = True, *, dl_kwargs: dict[str, Any] | None = None
    ) -> Module:
        """The model with pretrained weights, returning ``log_softmax`` of the logits, with a
        zero column for the star token appended when ``with_star``; in eval mode."""
        model = utils._get_model(self._model_type, self._params)
        model.load_state_dict(utils._get_state_dict(self._path, dl_kwargs, self._remove_aux_axis))
        model = utils._extend_model(
            model,
            normalize_waveform=self._normalize_waveform,
            apply_log_softmax=True,
            append_star=with_star,
        )
        model.eval()
        return model

    def get_dict(self, star: str | None = "*", blank: str = "-") -> dict[str, int]:
        """Token -> index along the emission's class axis."""
        return {token: i for i, token in enumerate(self.get_labels(star=star, blank=blank))}

    def get_tokenizer(self) -> Tokenizer:
        """A tokenizer mapping characters through :meth:`get_dict`."""
        return aligner.Tokenizer(self.get_dict())

    def get_aligner(self) -> Aligner:
        """A CTC forced aligner with blank index 0."""
        return aligner.Aligner(blank=0)


# ---------------------------------------------------------------------------------------
# Builder arguments
# ---------------------------------------------------------------------------------------
_CONV = [(512, 10, 5)] + [(512, 3, 2)] * 4 + [(512, 2, 2)] * 2
# (embed dim, layers, heads, feed-forward dim)
_BASE = (768, 12, 12, 3072)
_LARGE = (1024, 24, 16, 4096)
_XLARGE = (1280, 48, 16, 5120)
_XXLARGE = (1920, 48, 16, 7680)


def _params(
    size: tuple[int, int, int, int],
    mode: str,
    conv_bias: bool,
    dropouts: tuple[float, float, float, float],
    layer_norm_first: bool,
    layer_drop: float,
    aux_num_out: int | None = None,
    wavlm: bool = False,
) -> dict[str, Any]:
    """Keyword arguments of ``wav2vec2_model``/``wavlm_model``; ``dropouts`` are the
    projection, attention, feed-forward-intermediate and encoder dropouts."""
    dim, layers, heads, ff = size
    projection, attention, ff_interm, dropout = dropouts
    params: dict[str, Any] = {
        "extractor_mode": mode,
        "extractor_conv_layer_config": list(_CONV),
        "extractor_conv_bias": conv_bias,
        "encoder_embed_dim": dim,
        "encoder_projection_dropout": projection,
        "encoder_pos_conv_kernel": 128,
        "encoder_pos_conv_groups": 16,
        "encoder_num_layers": layers,
        "encoder_num_heads": heads,
    }
    if wavlm:
        params.update(encoder_max_distance=800, encoder_num_buckets=320)
    params.update(
        encoder_attention_dropout=attention,
        encoder_ff_interm_features=ff,
        encoder_ff_interm_dropout=ff_interm,
        encoder_dropout=dropout,
        encoder_layer_norm_first=layer_norm_first,
        encoder_layer_drop=layer_drop,
        aux_num_out=aux_num_out,
    )
    return params


def _base(aux: int | None = None, wavlm: bool = False) -> dict[str, Any]:
    """wav2vec 2.0 / HuBERT / WavLM "base" as pre-trained on LibriSpeech."""
    return _params(_BASE, "group_norm", False, (0.1, 0.1, 0.0, 0.1), False, 0.05, aux, wavlm)


def _large(aux: int | None = None) -> dict[str, Any]:
    """wav2vec 2.0 "large" pre-trained on LibriSpeech."""
    return _params(_LARGE, "group_norm", False, (0.1, 0.1, 0.0, 0.0), False, 0.2, aux)


def _lv60k(aux: int | None = None) -> dict[str, Any]:
    """wav2vec 2.0 "large" pre-trained on Libri-Light."""
    return _params(_LARGE, "layer_norm", True, (0.1, 0.1, 0.0, 0.0), True, 0.0, aux)


def _voxpopuli(aux: int) -> dict[str, Any]:
    """wav2vec 2.0 "base" pre-trained on VoxPopuli 10k hours, fine-tuned per language."""
    return _params(_BASE, "group_norm", False, (0.0, 0.0, 0.1, 0.0), False, 0.1, aux)


def _hubert_large(size: tuple[int, int, int, int], aux: int | None = None) -> dict[str, Any]:
    """HuBERT "large"/"xlarge" (no conv bias); fine-tuned ones with their dropouts."""
    if aux is None:
        return _params(size, "layer_norm", False, (0.0, 0.0, 0.0, 0.0), True, 0.0)
    return _params(size, "layer_norm", False, (0.0, 0.0, 0.1, 0.0), True, 0.1, aux)


def _xlsr(size: tuple[int, int, int, int], projection: float) -> dict[str, Any]:
    """XLSR-53 and XLS-R (layer-norm extractor with bias, no dropout but the projection)."""
    return _params(size, "layer_norm", True, (projection, 0.0, 0.0, 0.0), True, 0.0)


_SR = 16000


def _pretrained(path: str, params: dict[str, Any], normalize: bool) -> Wav2Vec2Bundle:
    """A feature-extraction wav2vec 2.0 bundle."""
    return Wav2Vec2Bundle(path, params, _SR, normalize, "Wav2Vec2")


def _asr(
    path: str,
    params: dict[str, Any],
    normalize: bool,
    labels: tuple[str, ...] | None = None,
    remove_aux_axis: tuple[int, ...] = (1, 2, 3),
) -> Wav2Vec2ASRBundle:
    """A CTC wav2vec 2.0 bundle (English LibriSpeech labels unless given)."""
    return Wav2Vec2ASRBundle(
        _path=path,
        _params=params,
        _labels=utils._get_en_labels() if labels is None else labels,
        _sample_rate=_SR,
        _normalize_waveform=normalize,
        _remove_aux_axis=remove_aux_axis,
        _model_type="Wav2Vec2",
    )


def _doc(bundle: Wav2Vec2Bundle, text: str) -> Wav2Vec2Bundle:
    """``bundle`` with ``__doc__`` set to ``text``."""
    bundle.__doc__ = text
    return bundle


# ---------------------------------------------------------------------------------------
# wav2vec 2.0 (LibriSpeech / Libri-Light)
# ---------------------------------------------------------------------------------------
WAV2VEC2_BASE = _doc(
    _pretrained("wav2vec2_fairseq_base_ls960.pth", _base(), False),
    "wav2vec 2.0 base, pre-trained on LibriSpeech 960 h; not fine-tuned.",
)
WAV2VEC2_ASR_BASE_10M = _doc(
    _asr("wav2vec2_fairseq_base_ls960_asr_ll10m.pth", _base(29), False),
    "wav2vec 2.0 base (LibriSpeech 960 h), CTC fine-tuned on Libri-Light 10 min.",
)
WAV2VEC2_ASR_BASE_100H = _doc(
    _asr("wav2vec2_fairseq_base_ls960_asr_ls100.pth", _base(29), False),
    "wav2vec 2.0 base (LibriSpeech 960 h), CTC fine-tuned on LibriSpeech train-clean-100.",
)
WAV2VEC2_ASR_BASE_960H = _doc(
    _asr("wav2vec2_fairseq_base_ls960_asr_ls960.pth", _base(29), False),
    "wav2vec 2.0 base (LibriSpeech 960 h), CTC fine-tuned on LibriSpeech 960 h.",
)
WAV2VEC2_LARGE = _doc(
    _pretrained("wav2vec2_fairseq_large_ls960.pth", _large(), False),
    "wav2vec 2.0 large, pre-trained on LibriSpeech 960 h; not fine-tuned.",
)
WAV2VEC2_ASR_LARGE_10M = _doc(
    _asr("wav2vec2_fairseq_large_ls960_asr_ll10m.pth", _large(29), False),
    "wav2vec 2.0 large (LibriSpeech 960 h), CTC fine-tuned on Libri-Light 10 min.",
)
WAV2VEC2_ASR_LARGE_100H = _doc(
    _asr("wav2vec2_fairseq_large_ls960_asr_ls100.pth", _large(29), False),
    "wav2vec 2.0 large (LibriSpeech 960 h), CTC fine-tuned on LibriSpeech train-clean-100.",
)
WAV2VEC2_ASR_LARGE_960H = _doc(
    _asr("wav2vec2_fairseq_large_ls960_asr_ls960.pth", _large(29), False),
    "wav2vec 2.0 large (LibriSpeech 960 h), CTC fine-tuned on LibriSpeech 960 h.",
)
WAV2VEC2_LARGE_LV60K = _doc(
    _pretrained("wav2vec2_fairseq_large_lv60k.pth", _lv60k(), True),
    "wav2vec 2.0 large, pre-trained on Libri-Light 60k h; not fine-tuned.",
)
WAV2VEC2_ASR_LARGE_LV60K_10M = _doc(
    _asr("wav2vec2_fairseq_large_lv60k_asr_ll10m.pth", _lv60k(29), True),
    "wav2vec 2.0 large (Libri-Light 60k h), CTC fine-tuned on Libri-Light 10 min.",
)
WAV2VEC2_ASR_LARGE_LV60K_100H = _doc(
    _asr("wav2vec2_fairseq_large_lv60k_asr_ls100.pth", _lv60k(29), True),
    "wav2vec 2.0 large (Libri-Light 60k h), CTC fine-tuned on LibriSpeech train-clean-100.",
)
WAV2VEC2_ASR_LARGE_LV60K_960H = _doc(
    _asr("wav2vec2_fairseq_large_lv60k_asr_ls960.pth", _lv60k(29), True),
    "wav2vec 2.0 large (Libri-Light 60k h), CTC fine-tuned on LibriSpeech 960 h.",
)

# ---------------------------------------------------------------------------------------
# Multilingual: XLSR-53, XLS-R, VoxPopuli
# ---------------------------------------------------------------------------------------
WAV2VEC2_XLSR53 = _doc(
    _pretrained("wav2vec2_fairseq_large_xlsr53.pth", _xlsr(_LARGE, 0.0), True),
    "XLSR-53: wav2vec 2.0 large pre-trained on 56k h in 53 languages; not fine-tuned.",
)
WAV2VEC2_XLSR_300M = _doc(
    _pretrained("wav2vec2_xlsr_300m.pth", _xlsr(_LARGE, 0.0), True),
    "XLS-R 300M: pre-trained on 436k h in 128 languages; not fine-tuned.",
)
WAV2VEC2_XLSR_1B = _doc(
    _pretrained("wav2vec2_xlsr_1b.pth", _xlsr(_XLARGE, 0.1), True),
    "XLS-R 1B: pre-trained on 436k h in 128 languages; not fine-tuned.",
)
WAV2VEC2_XLSR_2B = _doc(
    _pretrained("wav2vec2_xlsr_2b.pth", _xlsr(_XXLARGE, 0.1), True),
    "XLS-R 2B: pre-trained on 436k h in 128 languages; not fine-tuned.",
)
VOXPOPULI_ASR_BASE_10K_EN = _doc(
    _asr(
        "wav2vec2_voxpopuli_base_10k_asr_en.pt",
        _voxpopuli(28),
        False,
        utils._get_vp_en_labels(),
        (1, 2, 3, 31),
    ),
    "wav2vec 2.0 base pre-trained on VoxPopuli 10k h, CTC fine-tuned on its English.",
)
VOXPOPULI_ASR_BASE_10K_ES = _doc(
    _asr(
        "wav2vec2_voxpopuli_base_10k_asr_es.pt",
        _voxpopuli(35),
        False,
        utils._get_es_labels(),
        (1, 2, 3, 35),
    ),
    "wav2vec 2.0 base pre-trained on VoxPopuli 10k h, CTC fine-tuned on its Spanish.",
)
VOXPOPULI_ASR_BASE_10K_DE = _doc(
    _asr(
        "wav2vec2_voxpopuli_base_10k_asr_de.pt",
        _voxpopuli(32),
        False,
        utils._get_de_labels(),
        (1, 2, 3, 35),
    ),
    "wav2vec 2.0 base pre-trained on VoxPopuli 10k h, CTC fine-tuned on its German.",
)
VOXPOPULI_ASR_BASE_10K_FR = _doc(
    _asr("wav2vec2_voxpopuli_base_10k_asr_fr.pt", _voxpopuli(43), False, utils._get_fr_labels()),
    "wav2vec 2.0 base pre-trained on VoxPopuli 10k h, CTC fine-tuned on its French.",
)
VOXPOPULI_ASR_BASE_10K_IT = _doc(
    _asr("wav2vec2_voxpopuli_base_10k_asr_it.pt", _voxpopuli(37), False, utils._get_it_labels()),
    "wav2vec 2.0 base pre-trained on VoxPopuli 10k h, CTC fine-tuned on its Italian.",
)

# ---------------------------------------------------------------------------------------
# HuBERT
# ---------------------------------------------------------------------------------------
HUBERT_BASE = _doc(
    _pretrained("hubert_fairseq_base_ls960.pth", _base(), False),
    "HuBERT base, pre-trained on LibriSpeech 960 h; not fine-tuned.",
)
HUBERT_LARGE = _doc(
    _pretrained("hubert_fairseq_large_ll60k.pth", _hubert_large(_LARGE), True),
    "HuBERT large, pre-trained on Libri-Light 60k h; not fine-tuned.",
)
HUBERT_XLARGE = _doc(
    _pretrained("hubert_fairseq_xlarge_ll60k.pth", _hubert_large(_XLARGE), True),
    "HuBERT extra large, pre-trained on Libri-Light 60k h; not fine-tuned.",
)
HUBERT_ASR_LARGE = _doc(
    _asr("hubert_fairseq_large_ll60k_asr_ls960.pth", _hubert_large(_LARGE, 29), True),
    "HuBERT large (Libri-Light 60k h), CTC fine-tuned on LibriSpeech 960 h.",
)
HUBERT_ASR_XLARGE = _doc(
    _asr("hubert_fairseq_xlarge_ll60k_asr_ls960.pth", _hubert_large(_XLARGE, 29), True),
    "HuBERT extra large (Libri-Light 60k h), CTC fine-tuned on LibriSpeech 960 h.",
)

# ---------------------------------------------------------------------------------------
# WavLM
# ---------------------------------------------------------------------------------------
WAVLM_BASE = _doc(
    Wav2Vec2Bundle("wavlm_base.pth", _base(wavlm=True), _SR, False, "WavLM"),
    "WavLM base, pre-trained on LibriSpeech 960 h; not fine-tuned.",
)
WAVLM_BASE_PLUS = _doc(
    Wav2Vec2Bundle("wavlm_base_plus.pth", _base(wavlm=True), _SR, False, "WavLM"),
    "WavLM base+, pre-trained on 94k h (Libri-Light, GigaSpeech, VoxPopuli); not fine-tuned.",
)
WAVLM_LARGE = _doc(
    Wav2Vec2Bundle(
        "wavlm_large.pth",
        _params(_LARGE, "layer_norm", False, (0.1, 0.1, 0.0, 0.1), True, 0.05, wavlm=True),
        _SR,
        True,
        "WavLM",
    ),
    "WavLM large, pre-trained on 94k h (Libri-Light, GigaSpeech, VoxPopuli); not fine-tuned.",
)

# ---------------------------------------------------------------------------------------
# Forced alignment
# ---------------------------------------------------------------------------------------
MMS_FA = _doc(
    Wav2Vec2FABundle(
        "https://dl.fbaipublicfiles.com/mms/torchaudio/ctc_alignment_mling_uroman/model.pt",
        _params(_LARGE, "layer_norm", True, (0.0, 0.0, 0.1, 0.0), True, 0.1, 28),
        _labels=utils._get_mms_labels(),
        _sample_rate=_SR,
        _normalize_waveform=True,
        _model_type="Wav2Vec2",
    ),
    "MMS forced aligner: trained on 31k h in 1,130 languages (romanised characters, no word "
    "boundary token); CC-BY-NC 4.0.",
)
