"""``import_fairseq_model``: a ``fairseq`` wav2vec 2.0 / HuBERT model (pre-trained
``Wav2Vec2Model`` / ``HubertModel``, or fine-tuned ``Wav2VecEncoder`` / ``HubertEncoder``)
rebuilt as a ``Wav2Vec2Model`` with the same weights, by reading the hyper-parameters off
its modules and renaming its state_dict keys."""

from __future__ import annotations

import re
from typing import Any

from chainrule.nn import Module

from ..model import Wav2Vec2Model, wav2vec2_model
from ._convert import _as_state_dict

__all__ = ["import_fairseq_model"]


def _parse_config(w2v_model: Module) -> dict[str, Any]:
    """The ``wav2vec2_model`` arguments of a fairseq ``Wav2Vec2Model`` / ``HubertModel``."""
    encoder = w2v_model.encoder
    conv_layers = w2v_model.feature_extractor.conv_layers
    if "GroupNorm" in conv_layers[0][2].__class__.__name__:
        extractor_mode = "group_norm"
    else:
        extractor_mode = "layer_norm"
    conv_layer_config = [
        (layer[0].out_channels, layer[0].kernel_size[0], layer[0].stride[0])
        for layer in conv_layers
    ]
    if all(layer[0].bias is None for layer in conv_layers):
        conv_bias = False
    elif all(layer[0].bias is not None for layer in conv_layers):
        conv_bias = True
    else:
        raise ValueError(
            "Either all the convolutions layers have bias term or none of them should."
        )
    first = encoder.layers[0]
    return {
        "extractor_mode": extractor_mode,
        "extractor_conv_layer_config": conv_layer_config,
        "extractor_conv_bias": conv_bias,
        "encoder_embed_dim": w2v_model.post_extract_proj.out_features,
        "encoder_projection_dropout": w2v_model.dropout_input.p,
        "encoder_pos_conv_kernel": encoder.pos_conv[0].kernel_size[0],
        "encoder_pos_conv_groups": encoder.pos_conv[0].groups,
        "encoder_num_layers": len(encoder.layers),
        "encoder_num_heads": first.self_attn.num_heads,
        "encoder_attention_dropout": first.self_attn.dropout_module.p,
        "encoder_ff_interm_features": first.fc1.out_features,
        "encoder_ff_interm_dropout": first.dropout2.p,
        "encoder_dropout": first.dropout3.p,
        "encoder_layer_norm_first": encoder.layer_norm_first,
        "encoder_layer_drop": encoder.layerdrop,
    }


_LAYER = r"encoder\.layers\.(\d+)\."
_OURS = r"encoder.transformer.layers.\1."
# fairseq key (after dropping a leading "w2v_model.") -> torchaudio key
_RULES = [
    (
        r"feature_extractor\.conv_layers\.0\.2\.(weight|bias)",
        r"feature_extractor.conv_layers.0.layer_norm.\1",
    ),
    (
        r"feature_extractor\.conv_layers\.(\d+)\.0\.(weight|bias)",
        r"feature_extractor.conv_layers.\1.conv.\2",
    ),
    (
        r"feature_extractor\.conv_layers\.(\d+)\.2\.1\.(weight|bias)",
        r"feature_extractor.conv_layers.\1.layer_norm.\2",
    ),
    (r"post_extract_proj\.(weight|bias)", r"encoder.feature_projection.projection.\1"),
    (r"layer_norm\.(weight|bias)", r"encoder.feature_projection.layer_norm.\1"),
    (
        r"encoder\.pos_conv\.0\.(bias|weight_g|weight_v)",
        r"encoder.transformer.pos_conv_embed.conv.\1",
    ),
    (r"encoder\.layer_norm\.(weight|bias)", r"encoder.transformer.layer_norm.\1"),
    (_LAYER + r"self_attn\.((k_|v_|q_|out_)proj\.(weight|bias))", _OURS + r"attention.\2"),
    (_LAYER + r"self_attn_layer_norm\.(weight|bias)", _OURS + r"layer_norm.\2"),
    (_LAYER + r"fc1\.(weight|bias)", _OURS + r"feed_forward.intermediate_dense.\2"),
    (_LAYER + r"fc2\.(weight|bias)", _OURS + r"feed_forward.output_dense.\2"),
    (_LAYER + r"final_layer_norm\.(weight|bias)", _OURS + r"final_layer_norm.\2"),
    (r"proj\.(weight|bias)", r"aux.\1"),
]


def _map_key(key: str) -> str | None:
    """The torchaudio name of a fairseq parameter (``None`` for the pre-training heads)."""
    original = key
    if key.startswith("w2v_model."):
        key = key.replace("w2v_model.", "")
    if re.match("(mask_emb|quantizer|project_q|final_proj|mask_emb)", key):
        return None
    for pattern, template in _RULES:
        match = re.match(pattern, key)
        if match:
            return match.expand(template)
    if key in ["label_embs_concat"]:
        return key
    raise ValueError(f"Unexpected key: {original}")


def _convert_state_dict(state_dict: dict[str, Any]) -> dict[str, Any]:
    converted = {}
    for key, value in state_dict.items():
        mapped = _map_key(key)
        if mapped is not None:
            converted[mapped] = value
    return _as_state_dict(converted)


def import_fairseq_model(original: Module) -> Wav2Vec2Model:
    """Build a ``Wav2Vec2Model`` from a fairseq model; a fine-tuned model's ``proj``
    becomes ``aux``. The weights may be PyTorch or chainrule tensors."""
    class_ = original.__class__.__name__
    if class_ in ("Wav2Vec2Model", "HubertModel"):
        model = wav2vec2_model(**_parse_config(original), aux_num_out=None)
        model.load_state_dict(_convert_state_dict(original.state_dict()), strict=False)
        return model
    if class_ in ("Wav2VecEncoder", "HubertEncoder"):
        model = wav2vec2_model(
            **_parse_config(original.w2v_model), aux_num_out=original.proj.out_features
        )
        model.load_state_dict(
            _convert_state_dict(original.state_dict()), strict=class_ == "Wav2VecEncoder"
        )
        return model
    raise ValueError(
        f"Expected an instance of `Wav2Vec2Model` or `Wav2VecEncoder`. Found: {class_}"
    )
