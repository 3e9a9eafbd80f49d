"""Transformers as PyTorch builds them: ``TransformerEncoderLayer`` (self-attention and a
feed-forward block, each with dropout, a residual connection and a LayerNorm, before or
after: ``norm_first``), ``TransformerDecoderLayer`` (plus attention over the encoder's
memory), ``TransformerEncoder``/``TransformerDecoder`` (stacks of deep copies of a layer,
an optional final norm) and ``Transformer`` (both, Xavier-uniform weights).
``Transformer.generate_square_subsequent_mask`` is the causal mask. The layers are
composed of ``MultiheadAttention``, ``Linear``, ``Dropout`` and ``LayerNorm``. PyTorch's
fused inference paths give the same values, so there is one path here, but for what the
encoder's nested-tensor path shows: zeros at padded tokens."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from ..._creation import arange, full, zeros_like
from ..._tensor import Tensor
from ...api.parsers.functional import relu  # F.relu itself: F is filled in after nn's import
from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F
from ..init import xavier_uniform_
from .activation_attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = [
    "Transformer",
    "TransformerEncoder",
    "TransformerDecoder",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
]


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """The (sz, sz) causal mask: -inf above the diagonal, 0 on and below it."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int:
    if src.ndim == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(
    mask: Tensor | None, is_causal: bool | None = None, size: int | None = None
) -> bool:
    """is_causal when given; else, with a mask, whether it is the causal mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


def _left_aligned(padding: Tensor) -> Tensor:
    """The additive padding mask (N, S) whose row n lets through the first c_n tokens, c_n
    the number of tokens ``padding`` lets through (the same mask where it is left-aligned,
    as ``mask_check`` ensures)."""
    counts = (padding == 0).sum(-1, keepdim=True)
    positions = arange(padding.shape[-1], device=padding.device)
    return zeros_like(padding).masked_fill(positions >= counts, float("-inf"))


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _relu_or_gelu(activation: Any) -> int:
    """1 for relu, 2 for gelu (a function or a module), 0 otherwise (PyTorch's flag)."""
    name = type(activation).__name__ if isinstance(activation, Module) else None
    if activation == F.relu or name == "ReLU":  # (==: with __torch_function__ on, a wrapper)
        return 1
    if activation == F.gelu or name == "GELU":
        return 2
    return 0


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: attention blocks ``attn(x, kv, kv)``
    followed by dropout, and the feed-forward block
    ``linear2(dropout(activation(linear1(x))))`` with its dropout, each block with a
    LayerNorm (``norm1``..``normN``) and a dropout (``dropout1``..``dropoutN``)."""

    def _add_feed_forward_and_norms(
        self,
        blocks: int,
        d_model: int,
        dim_feedforward: int,
        dropout: float,
        activation: str | Callable[[Tensor], Tensor],
        layer_norm_eps: float,
        norm_first: bool,
        bias: bool,
        factory_kwargs: dict,
    ) -> None:
        """Registers linear1, dropout, linear2, the norms and the dropouts in PyTorch's
        order (the order ``print`` and ``state_dict`` show)."""
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        for i in range(1, blocks + 1):
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            setattr(self, f"norm{i}", norm)
        for i in range(1, blocks + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def _attention_block(
        self,
        attention: Module,
        dropout: Module,
        x: Tensor,
        kv: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool,
    ) -> Tensor:
        x = attention(
            x,
            kv,
            kv,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return dropout(x)

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self._attention_block(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self._ff_dropout(x)


class TransformerEncoderLayer(_TransformerLayer):
    """``x + SA(x)`` then ``x + FF(x)``, each followed (or, with norm_first, preceded) by
    a LayerNorm; SA is self-attention, FF ``linear2(dropout(activation(linear1(x))))``,
    each block's output dropped out."""

    __constants__ = ["norm_first"]

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory_kwargs
        )
        self._add_feed_forward_and_norms(
            2,
            d_model,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            norm_first,
            bias,
            factory_kwargs,
        )
        self.activation_relu_or_gelu = _relu_or_gelu(self.activation)

    @property
    def _ff_dropout(self) -> Module:
        return self.dropout2

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        src_key_padding_mask = F._canonical_mask(
            mask=src_key_padding_mask,
            mask_name="src_key_padding_mask",
            other_type=F._none_or_dtype(src_mask),
            other_name="src_mask",
            target_type=src.dtype,
        )
        src_mask = F._canonical_mask(
            mask=src_mask,
            mask_name="src_mask",
            other_type=None,
            other_name="",
            target_type=src.dtype,
            check_other=False,
        )
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    """``x + SA(x)``, ``x + MHA(x, memory)``, ``x + FF(x)``, each followed (or, with
    norm_first, preceded) by a LayerNorm: self-attention over the target, attention over
    the encoder's memory, the feed-forward block; each block's output dropped out."""

    __constants__ = ["norm_first"]

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **factory_kwargs
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **factory_kwargs
        )
        self._add_feed_forward_and_norms(
            3,
            d_model,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            norm_first,
            bias,
            factory_kwargs,
        )

    @property
    def _ff_dropout(self) -> Module:
        return self.dropout3

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    def _mha_block(
        self,
        x: Tensor,
        mem: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        return self._attention_block(
            self.multihead_attn, self.dropout2, x, mem, attn_mask, key_padding_mask, is_causal
        )


def _why_not_sparsity_fast_path(encoder_layer: Any) -> str:
    """Why PyTorch's nested-tensor path cannot take this layer ('' if it can)."""
    layer = "encoder_layer"
    if not isinstance(encoder_layer, TransformerEncoderLayer):
        return f"{layer} was not TransformerEncoderLayer"
    if encoder_layer.norm_first:
        return f"{layer}.norm_first was True"
    if not encoder_layer.self_attn.batch_first:
        return (
            f"{layer}.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)"
        )
    if not encoder_layer.self_attn._qkv_same_embed_dim:
        return f"{layer}.self_attn._qkv_same_embed_dim was not True"
    if encoder_layer.self_attn.in_proj_bias is None:
        return f"{layer}.self_attn was passed bias=False"
    if not encoder_layer.activation_relu_or_gelu:
        return f"{layer}.activation_relu_or_gelu was not True"
    if encoder_layer.norm1.eps != encoder_layer.norm2.eps:
        return f"{layer}.norm1.eps was not equal to {layer}.norm2.eps"
    if encoder_layer.self_attn.num_heads % 2 == 1:
        return f"{layer}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm`` if given.
    ``enable_nested_tensor`` and ``mask_check`` are accepted (they steer PyTorch's
    nested-tensor inference path, whose values are the same)."""

    __constants__ = ["norm"]

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_sparsity_fast_path(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False because "
                f"{why_not}",
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        src_key_padding_mask = F._canonical_mask(
            mask=src_key_padding_mask,
            mask_name="src_key_padding_mask",
            other_type=F._none_or_dtype(mask),
            other_name="mask",
            target_type=src.dtype,
        )
        mask = F._canonical_mask(
            mask=mask,
            mask_name="mask",
            other_type=None,
            other_name="",
            target_type=src.dtype,
            check_other=False,
        )
        seq_len = _get_seq_len(src, self.layers[0].self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        nested = self._nested_path(src, mask, src_key_padding_mask)
        if nested:  # PyTorch's nested tensor keeps each row's first (number of valid) tokens
            src_key_padding_mask = _left_aligned(src_key_padding_mask)
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if nested:
            # PyTorch's inference path runs the valid tokens as a nested tensor and pads the
            # result with zeros: the same values at valid tokens, zeros at padded ones
            padded = src_key_padding_mask != 0
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_path(self, src: Tensor, mask: Tensor | None, padding: Tensor | None) -> bool:
        """Whether PyTorch would take its nested-tensor inference path: enabled, in eval
        mode, batched input with a (left-aligned, with mask_check) padding mask and no
        attention mask, and nothing to differentiate."""
        first = self.layers[0]
        if not (getattr(self, "use_nested_tensor", False) and not first.training):
            return False
        if src.ndim != 3 or padding is None or mask is not None:
            return False
        valid = (padding == 0)._data
        if getattr(self, "mask_check", True) and (valid[..., 1:] & ~valid[..., :-1]).any():
            return False  # not left-aligned
        tensors = (src, *first.self_attn.parameters(), *first.linear1.parameters())
        tensors += (*first.linear2.parameters(), *first.norm1.parameters())
        tensors += tuple(first.norm2.parameters())
        return not (is_grad_enabled() and any(t.requires_grad for t in tensors))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn over the memory, then
    ``norm`` if given."""

    __constants__ = ["norm"]

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder over ``src`` and a decoder over ``tgt`` attending to its output (each a
    stack of layers and a final LayerNorm, or a custom module); every weight of more than
    one dim starts Xavier-uniform."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = relu,
        custom_encoder: Any | None = None,
        custom_decoder: Any | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args = (
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            bias,
        )
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(*layer_args, **factory_kwargs)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(*layer_args, **factory_kwargs)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        is_batched = src.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The (sz, sz) causal mask: -inf above the diagonal, 0 on and below it."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.ndim > 1:
                xavier_uniform_(p)
