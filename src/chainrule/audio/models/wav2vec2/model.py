"""wav2vec 2.0 (Baevski et al., 2020), HuBERT (Hsu et al., 2021) and WavLM (Chen et al.,
2022): the acoustic model ``Wav2Vec2Model`` (conv feature extractor + Transformer encoder
+ optional linear ``aux`` head), HuBERT's pre-training wrapper, and the builders for the
published architectures."""

from __future__ import annotations

import math

import chainrule
from chainrule import Tensor, nn
from chainrule.nn import Module

from . import components

__all__ = [
    "Wav2Vec2Model",
    "HuBERTPretrainModel",
    "wav2vec2_model",
    "wav2vec2_base",
    "wav2vec2_large",
    "wav2vec2_large_lv60k",
    "wav2vec2_xlsr_300m",
    "wav2vec2_xlsr_1b",
    "wav2vec2_xlsr_2b",
    "hubert_base",
    "hubert_large",
    "hubert_xlarge",
    "hubert_pretrain_model",
    "hubert_pretrain_base",
    "hubert_pretrain_large",
    "hubert_pretrain_xlarge",
    "wavlm_model",
    "wavlm_base",
    "wavlm_large",
]

_DEFAULT_CONV = [(512, 10, 5)] + [(512, 3, 2)] * 4 + [(512, 2, 2)] * 2


class Wav2Vec2Model(Module):
    """``aux(encoder(feature_extractor(waveforms)))``: frame features (or per-frame
    logits when ``aux`` is a classification head) at 20 ms per frame for 16 kHz audio."""

    def __init__(
        self, feature_extractor: Module, encoder: Module, aux: Module | None = None
    ) -> None:
        super().__init__()
        self.feature_extractor = feature_extractor
        self.encoder = encoder
        self.aux = aux

    def extract_features(
        self,
        waveforms: Tensor,
        lengths: Tensor | None = None,
        num_layers: int | None = None,
    ) -> tuple[list[Tensor], Tensor | None]:
        """The outputs of the first ``num_layers`` Transformer layers (all by default) and
        the valid frame counts."""
        x, lengths = self.feature_extractor(waveforms, lengths)
        return self.encoder.extract_features(x, lengths, num_layers), lengths

    def forward(
        self, waveforms: Tensor, lengths: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """``(batch, time)`` audio to ``(batch, frame, dim)`` and the valid frame counts."""
        x, lengths = self.feature_extractor(waveforms, lengths)
        x = self.encoder(x, lengths)
        if self.aux is not None:
            x = self.aux(x)
        return x, lengths


class HuBERTPretrainModel(Module):
    """HuBERT pre-training: mask spans of the projected features, encode, and score the
    masked and unmasked frames against the cluster labels; also returns the feature
    penalty ``mean(features^2)``."""

    def __init__(
        self,
        wav2vec2: Wav2Vec2Model,
        mask_generator: Module,
        logit_generator: Module,
        feature_grad_mult: float | None,
    ) -> None:
        super().__init__()
        self.wav2vec2 = wav2vec2
        self.mask_generator = mask_generator
        self.logit_generator = logit_generator
        if feature_grad_mult is not None and not 0.0 < feature_grad_mult < 1.0:
            raise ValueError(
                "The value of `feature_grad_mult` must be ``None``or between (0, 1). "
                f"Found {feature_grad_mult}"
            )
        self.feature_grad_mult = feature_grad_mult

    def forward(
        self,
        waveforms: Tensor,
        labels: Tensor,
        audio_lengths: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None, Tensor]:
        """``(logit_m, logit_u, features_pen)``; the extractor's gradient is scaled by
        ``feature_grad_mult``."""
        x, lengths = self.wav2vec2.feature_extractor(waveforms, audio_lengths)
        if self.feature_grad_mult is not None and self.feature_grad_mult < 1.0:
            x = components.GradMultiply.apply(x, self.feature_grad_mult)
        features_pen = x.float().pow(2).mean()
        padding_mask = None if lengths is None else components._get_padding_mask(x, lengths)
        x, attention_mask = self.wav2vec2.encoder._preprocess(x, lengths)
        x, mask = self.mask_generator(x, padding_mask)
        x = self.wav2vec2.encoder.transformer(x, attention_mask=attention_mask)
        if x.shape[1] != labels.shape[1]:
            raise ValueError("The length of label must match that of HuBERT model output")
        if padding_mask is not None:
            mask_m = chainrule.logical_and(~padding_mask, mask)
            mask_u = chainrule.logical_and(~padding_mask, ~mask_m)
        else:
            mask_m = mask
            mask_u = ~mask_m
        logit_m, logit_u = self.logit_generator(x, labels, mask_m, mask_u)
        return logit_m, logit_u, features_pen


def _aux(encoder_embed_dim: int, aux_num_out: int | None) -> Module | None:
    return None if aux_num_out is None else nn.Linear(encoder_embed_dim, aux_num_out)


def wav2vec2_model(
    extractor_mode: str,
    extractor_conv_layer_config: list[tuple[int, int, int]] | None,
    extractor_conv_bias: bool,
    encoder_embed_dim: int,
    encoder_projection_dropout: float,
    encoder_pos_conv_kernel: int,
    encoder_pos_conv_groups: int,
    encoder_num_layers: int,
    encoder_num_heads: int,
    encoder_attention_dropout: float,
    encoder_ff_interm_features: int,
    encoder_ff_interm_dropout: float,
    encoder_dropout: float,
    encoder_layer_norm_first: bool,
    encoder_layer_drop: float,
    aux_num_out: int | None,
) -> Wav2Vec2Model:
    """A ``Wav2Vec2Model`` of any size (the fairseq hyper-parameters, renamed)."""
    if extractor_conv_layer_config is None:
        extractor_conv_layer_config = list(_DEFAULT_CONV)
    feature_extractor = components._get_feature_extractor(
        extractor_mode, extractor_conv_layer_config, extractor_conv_bias
    )
    encoder = components._get_encoder(
        in_features=extractor_conv_layer_config[-1][0],
        embed_dim=encoder_embed_dim,
        dropout_input=encoder_projection_dropout,
        pos_conv_kernel=encoder_pos_conv_kernel,
        pos_conv_groups=encoder_pos_conv_groups,
        num_layers=encoder_num_layers,
        num_heads=encoder_num_heads,
        attention_dropout=encoder_attention_dropout,
        ff_interm_features=encoder_ff_interm_features,
        ff_interm_dropout=encoder_ff_interm_dropout,
        dropout=encoder_dropout,
        layer_norm_first=encoder_layer_norm_first,
        layer_drop=encoder_layer_drop,
    )
    return Wav2Vec2Model(feature_extractor, encoder, _aux(encoder_embed_dim, aux_num_out))


# (extractor_mode, conv_bias, embed_dim, num_layers, num_heads, ff_dim, layer_norm_first)
_ARCH = {
    "base": ("group_norm", False, 768, 12, 12, 3072, False),
    "large": ("group_norm", False, 1024, 24, 16, 4096, False),
    "large_lv60k": ("layer_norm", True, 1024, 24, 16, 4096, True),
    "hubert_large": ("layer_norm", False, 1024, 24, 16, 4096, True),
    "hubert_xlarge": ("layer_norm", False, 1280, 48, 16, 5120, True),
    "xlsr_1b": ("layer_norm", True, 1280, 48, 16, 5120, True),
    "xlsr_2b": ("layer_norm", True, 1920, 48, 16, 7680, True),
    "wavlm_large": ("layer_norm", False, 1024, 24, 16, 4096, True),
}


def _arch_kwargs(arch: str) -> dict:
    mode, bias, dim, layers, heads, ff, first = _ARCH[arch]
    return {
        "extractor_mode": mode,
        "extractor_conv_layer_config": None,
        "extractor_conv_bias": bias,
        "encoder_embed_dim": dim,
        "encoder_pos_conv_kernel": 128,
        "encoder_pos_conv_groups": 16,
        "encoder_num_layers": layers,
        "encoder_num_heads": heads,
        "encoder_ff_interm_features": ff,
        "encoder_layer_norm_first": first,
    }


def _dropouts(
    projection: float, attention: float, ff_interm: float, dropout: float, layer_drop: float
) -> dict:
    return {
        "encoder_projection_dropout": projection,
        "encoder_attention_dropout": attention,
        "encoder_ff_interm_dropout": ff_interm,
        "encoder_dropout": dropout,
        "encoder_layer_drop": layer_drop,
    }


def wav2vec2_base(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.1,
    encoder_ff_interm_dropout: float = 0.1,
    encoder_dropout: float = 0.1,
    encoder_layer_drop: float = 0.1,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """wav2vec 2.0 Base: 12 layers, width 768, post-norm, group-norm extractor."""
    return wav2vec2_model(
        **_arch_kwargs("base"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def wav2vec2_large(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.1,
    encoder_ff_interm_dropout: float = 0.1,
    encoder_dropout: float = 0.1,
    encoder_layer_drop: float = 0.1,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """wav2vec 2.0 Large: 24 layers, width 1024, post-norm, group-norm extractor."""
    return wav2vec2_model(
        **_arch_kwargs("large"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def wav2vec2_large_lv60k(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.1,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.1,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """wav2vec 2.0 Large (LV-60k): 24 layers, width 1024, pre-norm, layer-norm extractor
    with conv biases."""
    return wav2vec2_model(
        **_arch_kwargs("large_lv60k"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def wav2vec2_xlsr_300m(
    encoder_projection_dropout: float = 0.0,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """XLS-R 300M: the LV-60k architecture (24 layers, width 1024)."""
    return wav2vec2_model(
        **_arch_kwargs("large_lv60k"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def wav2vec2_xlsr_1b(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """XLS-R 1B: 48 layers, width 1280, feed-forward 5120."""
    return wav2vec2_model(
        **_arch_kwargs("xlsr_1b"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def wav2vec2_xlsr_2b(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """XLS-R 2B: 48 layers, width 1920, feed-forward 7680."""
    return wav2vec2_model(
        **_arch_kwargs("xlsr_2b"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def hubert_base(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.1,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.1,
    encoder_layer_drop: float = 0.05,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """HuBERT Base: the wav2vec 2.0 Base architecture."""
    return wav2vec2_model(
        **_arch_kwargs("base"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def hubert_large(
    encoder_projection_dropout: float = 0.0,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """HuBERT Large: 24 layers, width 1024, pre-norm, layer-norm extractor."""
    return wav2vec2_model(
        **_arch_kwargs("hubert_large"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def hubert_xlarge(
    encoder_projection_dropout: float = 0.0,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """HuBERT X-Large: 48 layers, width 1280, pre-norm, layer-norm extractor."""
    return wav2vec2_model(
        **_arch_kwargs("hubert_xlarge"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def _init_hubert_pretrain_model(module: Module) -> None:
    """HuBERT pre-training initialisation: Kaiming-normal extractor convs, N(0, 4/(D k))
    positional conv, Xavier-uniform attention projections (gain 1/sqrt 2 for q, k, v),
    BERT-style init for the rest of the Transformer."""
    if isinstance(module, components.ConvLayerBlock):
        nn.init.kaiming_normal_(module.conv.weight)
    elif isinstance(module, components.ConvolutionalPositionalEmbedding):
        std = math.sqrt(4.0 / (module.embed_dim * module.kernel_size))
        nn.init.normal_(module.conv.weight, mean=0.0, std=std)
        nn.init.constant_(module.conv.bias, 0.0)
    elif isinstance(module, components.SelfAttention):
        nn.init.xavier_uniform_(module.k_proj.weight, gain=1 / math.sqrt(2))
        nn.init.xavier_uniform_(module.v_proj.weight, gain=1 / math.sqrt(2))
        nn.init.xavier_uniform_(module.q_proj.weight, gain=1 / math.sqrt(2))
        nn.init.xavier_uniform_(module.out_proj.weight)
        nn.init.constant_(module.out_proj.bias, 0.0)
    elif isinstance(module, components.Transformer):
        module.apply(components._init_transformer_params)


def hubert_pretrain_model(
    extractor_mode: str,
    extractor_conv_layer_config: list[tuple[int, int, int]] | None,
    extractor_conv_bias: bool,
    encoder_embed_dim: int,
    encoder_projection_dropout: float,
    encoder_pos_conv_kernel: int,
    encoder_pos_conv_groups: int,
    encoder_num_layers: int,
    encoder_num_heads: int,
    encoder_attention_dropout: float,
    encoder_ff_interm_features: int,
    encoder_ff_interm_dropout: float,
    encoder_dropout: float,
    encoder_layer_norm_first: bool,
    encoder_layer_drop: float,
    mask_prob: float,
    mask_selection: str,
    mask_other: float,
    mask_length: int,
    no_mask_overlap: bool,
    mask_min_space: int,
    mask_channel_prob: float,
    mask_channel_selection: str,
    mask_channel_other: float,
    mask_channel_length: int,
    no_mask_channel_overlap: bool,
    mask_channel_min_space: int,
    skip_masked: bool,
    skip_nomask: bool,
    num_classes: int,
    final_dim: int,
    feature_grad_mult: float | None,
) -> HuBERTPretrainModel:
    """A ``HuBERTPretrainModel`` of any size: ``wav2vec2_model``'s extractor and encoder
    (no aux head), a mask generator and a logit generator."""
    wav2vec2 = wav2vec2_model(
        extractor_mode,
        extractor_conv_layer_config,
        extractor_conv_bias,
        encoder_embed_dim,
        encoder_projection_dropout,
        encoder_pos_conv_kernel,
        encoder_pos_conv_groups,
        encoder_num_layers,
        encoder_num_heads,
        encoder_attention_dropout,
        encoder_ff_interm_features,
        encoder_ff_interm_dropout,
        encoder_dropout,
        encoder_layer_norm_first,
        encoder_layer_drop,
        aux_num_out=None,
    )
    mask_generator = components.MaskGenerator(
        encoder_embed_dim,
        mask_prob,
        mask_selection,
        mask_other,
        mask_length,
        no_mask_overlap,
        mask_min_space,
        mask_channel_prob,
        mask_channel_selection,
        mask_channel_other,
        mask_channel_length,
        no_mask_channel_overlap,
        mask_channel_min_space,
    )
    logit_generator = components.LogitGenerator(
        encoder_embed_dim, num_classes, final_dim, skip_masked, skip_nomask
    )
    model = HuBERTPretrainModel(
        wav2vec2=wav2vec2,
        mask_generator=mask_generator,
        logit_generator=logit_generator,
        feature_grad_mult=feature_grad_mult,
    )
    model.apply(_init_hubert_pretrain_model)
    return model


def _pretrain_kwargs(
    mask_prob: float,
    mask_channel_prob: float,
    mask_channel_length: int,
    num_classes: int,
    final_dim: int,
) -> dict:
    return {
        "mask_prob": mask_prob,
        "mask_selection": "static",
        "mask_other": 0.0,
        "mask_length": 10,
        "no_mask_overlap": False,
        "mask_min_space": 1,
        "mask_channel_prob": mask_channel_prob,
        "mask_channel_selection": "static",
        "mask_channel_other": 0.0,
        "mask_channel_length": mask_channel_length,
        "no_mask_channel_overlap": False,
        "mask_channel_min_space": 1,
        "skip_masked": False,
        "skip_nomask": False,
        "num_classes": num_classes,
        "final_dim": final_dim,
    }


def hubert_pretrain_base(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.1,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.1,
    encoder_layer_drop: float = 0.05,
    mask_prob: float = 0.8,
    mask_channel_prob: float = 0.0,
    mask_channel_length: int = 10,
    feature_grad_mult: float | None = 0.1,
    num_classes: int = 100,
) -> HuBERTPretrainModel:
    """HuBERT Base for pre-training (final projection 256)."""
    return hubert_pretrain_model(
        **_arch_kwargs("base"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        **_pretrain_kwargs(mask_prob, mask_channel_prob, mask_channel_length, num_classes, 256),
        feature_grad_mult=feature_grad_mult,
    )


def hubert_pretrain_large(
    encoder_projection_dropout: float = 0.0,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    mask_prob: float = 0.8,
    mask_channel_prob: float = 0.0,
    mask_channel_length: int = 10,
    feature_grad_mult: float | None = None,
) -> HuBERTPretrainModel:
    """HuBERT Large for pre-training (500 classes, final projection 768)."""
    return hubert_pretrain_model(
        **_arch_kwargs("hubert_large"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        **_pretrain_kwargs(mask_prob, mask_channel_prob, mask_channel_length, 500, 768),
        feature_grad_mult=feature_grad_mult,
    )


def hubert_pretrain_xlarge(
    encoder_projection_dropout: float = 0.0,
    encoder_attention_dropout: float = 0.0,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.0,
    encoder_layer_drop: float = 0.0,
    mask_prob: float = 0.8,
    mask_channel_prob: float = 0.0,
    mask_channel_length: int = 10,
    feature_grad_mult: float | None = None,
) -> HuBERTPretrainModel:
    """HuBERT X-Large for pre-training (500 classes, final projection 1024)."""
    return hubert_pretrain_model(
        **_arch_kwargs("hubert_xlarge"),
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        **_pretrain_kwargs(mask_prob, mask_channel_prob, mask_channel_length, 500, 1024),
        feature_grad_mult=feature_grad_mult,
    )


def wavlm_model(
    extractor_mode: str,
    extractor_conv_layer_config: list[tuple[int, int, int]] | None,
    extractor_conv_bias: bool,
    encoder_embed_dim: int,
    encoder_projection_dropout: float,
    encoder_pos_conv_kernel: int,
    encoder_pos_conv_groups: int,
    encoder_num_layers: int,
    encoder_num_heads: int,
    encoder_num_buckets: int,
    encoder_max_distance: int,
    encoder_attention_dropout: float,
    encoder_ff_interm_features: int,
    encoder_ff_interm_dropout: float,
    encoder_dropout: float,
    encoder_layer_norm_first: bool,
    encoder_layer_drop: float,
    aux_num_out: int | None,
) -> Wav2Vec2Model:
    """A WavLM ``Wav2Vec2Model`` of any size (gated relative position bias attention)."""
    if extractor_conv_layer_config is None:
        extractor_conv_layer_config = list(_DEFAULT_CONV)
    feature_extractor = components._get_feature_extractor(
        extractor_mode, extractor_conv_layer_config, extractor_conv_bias
    )
    encoder = components._get_wavlm_encoder(
        in_features=extractor_conv_layer_config[-1][0],
        embed_dim=encoder_embed_dim,
        dropout_input=encoder_projection_dropout,
        pos_conv_kernel=encoder_pos_conv_kernel,
        pos_conv_groups=encoder_pos_conv_groups,
        num_layers=encoder_num_layers,
        num_heads=encoder_num_heads,
        num_buckets=encoder_num_buckets,
        max_distance=encoder_max_distance,
        attention_dropout=encoder_attention_dropout,
        ff_interm_features=encoder_ff_interm_features,
        ff_interm_dropout=encoder_ff_interm_dropout,
        dropout=encoder_dropout,
        layer_norm_first=encoder_layer_norm_first,
        layer_drop=encoder_layer_drop,
    )
    return Wav2Vec2Model(feature_extractor, encoder, _aux(encoder_embed_dim, aux_num_out))


def wavlm_base(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.1,
    encoder_ff_interm_dropout: float = 0.1,
    encoder_dropout: float = 0.1,
    encoder_layer_drop: float = 0.1,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """WavLM Base: 12 layers, width 768, 320 buckets up to distance 800."""
    return wavlm_model(
        **_arch_kwargs("base"),
        encoder_num_buckets=320,
        encoder_max_distance=800,
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )


def wavlm_large(
    encoder_projection_dropout: float = 0.1,
    encoder_attention_dropout: float = 0.1,
    encoder_ff_interm_dropout: float = 0.0,
    encoder_dropout: float = 0.1,
    encoder_layer_drop: float = 0.1,
    aux_num_out: int | None = None,
) -> Wav2Vec2Model:
    """WavLM Large: 24 layers, width 1024, pre-norm, 320 buckets up to distance 800."""
    return wavlm_model(
        **_arch_kwargs("wavlm_large"),
        encoder_num_buckets=320,
        encoder_max_distance=800,
        **_dropouts(
            encoder_projection_dropout,
            encoder_attention_dropout,
            encoder_ff_interm_dropout,
            encoder_dropout,
            encoder_layer_drop,
        ),
        aux_num_out=aux_num_out,
    )
