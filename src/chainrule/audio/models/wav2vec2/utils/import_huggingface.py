"""``import_huggingface_model``: a ``transformers`` ``Wav2Vec2Model`` / ``Wav2Vec2ForCTC``
/ ``HubertModel`` / ``WavLMModel`` / ``WavLMForCTC`` rebuilt as a ``Wav2Vec2Model`` with
the same weights (the module names already agree, except WavLM's separate q/k/v
projections, which are packed into ``in_proj_weight``)."""

from __future__ import annotations

import logging
from typing import Any

import chainrule
from chainrule.nn import Module

from ..model import Wav2Vec2Model, wav2vec2_model, wavlm_model
from ._convert import _as_state_dict

__all__ = ["import_huggingface_model"]

_LG = logging.getLogger(__name__)


def _get_config(cfg: Any) -> dict[str, Any]:
    """The ``wav2vec2_model`` arguments of a ``transformers`` config."""
    return {
        "extractor_mode": f"{cfg.feat_extract_norm}_norm",
        "extractor_conv_layer_config": list(zip(cfg.conv_dim, cfg.conv_kernel, cfg.conv_stride)),
        "extractor_conv_bias": cfg.conv_bias,
        "encoder_embed_dim": cfg.hidden_size,
        "encoder_projection_dropout": cfg.feat_proj_dropout,
        "encoder_pos_conv_kernel": cfg.num_conv_pos_embeddings,
        "encoder_pos_conv_groups": cfg.num_conv_pos_embedding_groups,
        "encoder_num_layers": cfg.num_hidden_layers,
        "encoder_num_heads": cfg.num_attention_heads,
        "encoder_attention_dropout": cfg.attention_dropout,
        "encoder_ff_interm_features": cfg.intermediate_size,
        "encoder_ff_interm_dropout": cfg.activation_dropout,
        "encoder_dropout": cfg.hidden_dropout,
        "encoder_layer_norm_first": cfg.do_stable_layer_norm,
        "encoder_layer_drop": cfg.layerdrop,
    }


def _get_config_wavlm(cfg: Any) -> dict[str, Any]:
    """The ``wavlm_model`` arguments of a ``transformers`` WavLM config."""
    config = _get_config(cfg)
    ordered: dict[str, Any] = {}
    for key, value in config.items():
        if key == "encoder_attention_dropout":
            ordered["encoder_num_buckets"] = cfg.num_buckets
            ordered["encoder_max_distance"] = cfg.max_bucket_distance
        ordered[key] = value
    return ordered


def transform_wavlm_encoder_state(state: dict[str, Any], encoder_num_layers: int) -> None:
    """Pack each layer's ``q_proj``, ``k_proj``, ``v_proj`` into the
    ``attention.attention.in_proj_*`` of ``nn.MultiheadAttention`` and move ``out_proj``
    under it (in place)."""
    for i in range(encoder_num_layers):
        prefix = f"layers.{i}.attention."
        for kind in ("weight", "bias"):
            parts = [state.pop(f"{prefix}{name}_proj.{kind}") for name in ("q", "k", "v")]
            state[f"{prefix}attention.in_proj_{kind}"] = chainrule.cat(parts)
            state[f"{prefix}attention.out_proj.{kind}"] = state.pop(f"{prefix}out_proj.{kind}")


def _build(config: dict[str, Any], original: Module) -> Wav2Vec2Model:
    is_for_ctc = original.__class__.__name__ in ["Wav2Vec2ForCTC", "WavLMForCTC"]
    if is_for_ctc:
        aux_num_out = original.config.vocab_size
        wav2vec2 = original.wav2vec2
    else:
        _LG.warning(
            'The model is not an instance of Wav2Vec2ForCTC or WavLMForCTC. "lm_head" module is not imported.'
        )
        aux_num_out = None
        wav2vec2 = original
    is_wavlm = original.__class__.__name__ in ["WavLMModel", "WavLMForCTC"]
    build = wavlm_model if is_wavlm else wav2vec2_model
    imported = build(**config, aux_num_out=aux_num_out)
    imported.feature_extractor.load_state_dict(
        _as_state_dict(wav2vec2.feature_extractor.state_dict())
    )
    imported.encoder.feature_projection.load_state_dict(
        _as_state_dict(wav2vec2.feature_projection.state_dict())
    )
    encoder_state = _as_state_dict(wav2vec2.encoder.state_dict())
    if is_wavlm:
        transform_wavlm_encoder_state(encoder_state, config["encoder_num_layers"])
    imported.encoder.transformer.load_state_dict(encoder_state)
    if is_for_ctc:
        imported.aux.load_state_dict(_as_state_dict(original.lm_head.state_dict()))
    return imported


def import_huggingface_model(original: Module) -> Wav2Vec2Model:
    """Build a ``Wav2Vec2Model`` from a ``transformers`` model (its config and weights);
    a CTC model's ``lm_head`` becomes ``aux``. The weights may be PyTorch or chainrule
    tensors."""
    _LG.info("Importing model.")
    _LG.info("Loading model configuration.")
    if original.__class__.__name__ in ["WavLMModel", "WavLMForCTC"]:
        config = _get_config_wavlm(original.config)
    else:
        config = _get_config(original.config)
    _LG.debug("  - config: %s", config)
    _LG.info("Building model.")
    return _build(config, original)
