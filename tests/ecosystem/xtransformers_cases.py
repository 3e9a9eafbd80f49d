"""The x-transformers and einx cases of test_x_transformers.py, run once per side.

``python xtransformers_cases.py OUT oracle`` builds every model on the real PyTorch (in
float64), saves its weights to ``OUT/xt_weights.pt`` and the results to
``OUT/xtransformers_oracle.npz``; ``chainrule run xtransformers_cases.py OUT chainrule``
builds the same models, loads those weights and writes ``OUT/xtransformers_chainrule.npz``.
Inputs are made with NumPy from seeds. A case that raises records its traceback in
``OUT/xtransformers_<side>_errors.json`` instead of results.

The chainrule side then runs the ``OWN`` cases: models initialised and trained by chainrule,
saved with their optimizer states to ``OUT/xt_own.pt`` (``OUT/xtransformers_own.npz``);
``python xtransformers_cases.py OUT check`` loads them into the real x-transformers and
runs the same calls, one more optimizer step included (``OUT/xtransformers_check.npz``).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable

import einx
import einx.torch
import numpy as np
import torch
import torch.nn.functional as F
from case_inputs import Weights
from case_runner import Cases
from x_transformers import (
    AutoregressiveWrapper,
    ContinuousTransformerWrapper,
    Decoder,
    Encoder,
    TransformerWrapper,
    ViTransformerWrapper,
    XTransformer,
)

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
WEIGHTS = Weights(f"{OUT}/xt_weights.pt", ORACLE, load=SIDE == "chainrule")
OWN_FILE = f"{OUT}/xt_own.pt"  # chainrule's own models and optimizer states
CASES = Cases()
case, own, put = CASES.case, CASES.own, CASES.put
V, N, D = 24, 10, 16  # vocabulary, sequence length, model width


def module(key: str, make: Callable[[], torch.nn.Module], double: bool = True) -> torch.nn.Module:
    """The model ``make`` builds (in float64 unless not ``double``), with the oracle's
    weights on both sides."""
    return WEIGHTS.module(key, (lambda: make().double()) if double else make)


def arr(shape: tuple, seed: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


def tokens(shape: tuple, seed: int, high: int = V) -> torch.Tensor:
    return torch.tensor(np.random.default_rng(seed).integers(0, high, shape))


def lengths_mask(lengths: list[int], n: int) -> torch.Tensor:
    return torch.tensor(np.arange(n)[None, :] < np.array(lengths)[:, None])


def grads(name: str, model: torch.nn.Module, loss: torch.Tensor) -> None:
    """The loss, then the gradient of every parameter (by name; "none" where it has none)."""
    put(name + ".loss", loss)
    loss.backward()
    for key, p in model.named_parameters():
        put(f"{name}.grad.{key}", "none" if p.grad is None else p.grad)


def lm_check(name: str, model: torch.nn.Module, **kwargs: object) -> None:
    """Logits of a token model and the gradients of a cross-entropy loss on them."""
    x = tokens((2, N), 1)
    logits = model(x, **kwargs)
    put(name + ".logits", logits)
    target = tokens((2, N), 2)
    grads(name, model, F.cross_entropy(logits.transpose(1, 2), target))


DECODER_FLAGS: dict[str, dict] = {
    "plain": {},
    "rotary": {"rotary_pos_emb": True},
    "alibi": {"alibi_pos_bias": True, "alibi_num_heads": 1},
    "rel_pos_bias": {"rel_pos_bias": True},
    "ff_glu": {"ff_glu": True},
    "flash": {"attn_flash": True},
    "flash_rotary": {"attn_flash": True, "rotary_pos_emb": True},
    "rmsnorm": {"use_rmsnorm": True},
    "residual_attn": {"residual_attn": True},
    "num_mem_kv": {"attn_num_mem_kv": 2},
    "gate_residual": {"gate_residual": True},
    "sandwich_norm": {"sandwich_norm": True},
    "shift_tokens": {"shift_tokens": 1},
    "macaron": {"macaron": True},
    "qk_norm": {"attn_qk_norm": True},
    "talking_heads": {"attn_pre_talking_heads": True, "attn_post_talking_heads": True},
    "gqa": {"heads": 4, "attn_kv_heads": 2},
    "layer_scale": {"use_layerscale": True},
    "scalenorm": {"use_scalenorm": True},
    "ff_swish_relu2": {"ff_swish": True, "ff_relu_squared": True},
    "attn_gate_values": {"attn_gate_values": True},
    "value_residual": {"add_value_residual": True},
    "hard": {"attn_hard": True},
    "l2_distance": {"attn_l2_distance": True},
    "sigmoid": {"attn_sigmoid": True},
    "selective": {"attn_selective": True},
    "laser": {"attn_laser": True},
    "latent_q": {"attn_use_latent_q": True, "attn_dim_latent_q": 8},
    "latent_kv": {"attn_use_latent_kv": True, "attn_dim_latent_kv": 8},
    "orthog_values": {"attn_orthog_projected_values": True},
    "head_sink": {"attn_head_learned_sink": True},
    "polar": {"polar_pos_emb": True},
    "rotate_heads": {"rotary_pos_emb": True, "rotate_num_heads": 1},
    "xpos": {"rotary_xpos": True},
    "rotary_interp": {"rotary_pos_emb": True, "rotary_interpolation_factor": 2.0},
    "dynamic_tanh": {"use_dynamic_tanh": True},
    "derf": {"use_derf": True},
    "simple_rmsnorm": {"use_simple_rmsnorm": True},
    "integrate_layers": {"integrate_layers": True},
    "reinject": {"reinject_input": True, "learned_reinject_input_gate": True},
    "orthog_residual": {"orthog_residual": True},
    "mv_split_residual": {"mv_split_residual": True},
    "aggregated_residuals": {
        "attn_aggregated_residuals": True,
        "attn_aggregated_residual_kwargs": {"lora_rank": 4},
    },
    "execute_order": {"layers_execute_order": (0, 1, 0, 1)},
    "weight_tie": {"weight_tie_layers": True},
    "custom_layers": {"custom_layers": ("a", "f", "a", "a", "f")},
    "par_ratio": {"depth": 4, "par_ratio": 2},
    "sandwich_coef": {"depth": 4, "sandwich_coef": 1},
    "rel_proj_pos_bias": {"attn_use_rel_proj_pos_bias": True},
    "one_kv_head": {"attn_one_kv_head": True},
    "value_dim_head": {"attn_value_dim_head": 8},
    "add_zero_kv": {"attn_add_zero_kv": True},
    "max_attend_past": {"attn_max_attend_past": 4},
    "head_scale": {"attn_head_scale": True},
    "swiglu_values": {"attn_swiglu_values": True},
    "ff_no_bias_post_ln": {"ff_no_bias": True, "ff_post_act_ln": True},
    "ff_solu": {"ff_solu": True},
    "qk_norm_dim_scale": {"attn_qk_norm": True, "attn_qk_norm_dim_scale": True},
    "flash_alibi": {"attn_flash": True, "alibi_pos_bias": True},
    "flash_mem_kv": {"attn_flash": True, "attn_num_mem_kv": 2},
    "flash_qk_norm": {"attn_flash": True, "attn_qk_norm": True},
    "pre_and_post_norm": {"pre_and_post_norm": True},
    "post_norm": {"pre_norm": False},
    "scale_residual": {"scale_residual": True},
    "softclamp_output": {"softclamp_output": True},
    "on_attn": {"attn_on_attn": True},
    "gate_values_headwise": {"attn_gate_values": True, "attn_gate_values_headwise": True},
    "depth_scale_residual": {"depth_scale_residual": True},
    "latent_rope_subheads": {
        "rotary_pos_emb": True,
        "attn_use_latent_kv": True,
        "attn_dim_latent_kv": 8,
        "attn_latent_rope_subheads": 1,
    },
    "inverted_attention": {"attn_inverted_attention": True},
    "cog_signed": {"attn_cog_signed": True},
    "value_qk_rmsnorm": {"attn_value_rmsnorm": True, "attn_qk_rmsnorm": True},
    "k_rmsnorm": {"attn_k_rmsnorm": True},
    "pre_scale_post_talking_heads": {"attn_pre_scale_post_talking_heads": True},
    "only_attn": {"only_attn": True},
}

WRAPPER_FLAGS: dict[str, dict] = {
    "mixture_of_softmax": {"mixture_of_softmax": True},
    "sigsoftmax": {"sigsoftmax_logits": True},
    "deep_embed": {"ff_deep_embed": True},
    "interspersed_memory": {"num_memory_tokens": 2, "memory_tokens_interspersed_every": 4},
    "output_heads": {"num_output_heads": 2},
    "scaled_sinusoidal": {"scaled_sinu_pos_emb": True},
    "l2norm_embed": {"l2norm_embed": True},
    "post_emb_norm": {"post_emb_norm": True},
    "emb_frac_gradient": {"emb_frac_gradient": 0.1},
    "emb_dim": {"emb_dim": 8},
}


def wrapper_case(flag: str) -> Callable[[], None]:
    def run() -> None:
        model = module(
            f"wrapper_{flag}",
            lambda: TransformerWrapper(
                num_tokens=V,
                max_seq_len=16,
                attn_layers=Decoder(dim=D, depth=2, heads=2),
                **WRAPPER_FLAGS[flag],
            ),
        )
        out = model(tokens((2, N), 1))
        if isinstance(out, (tuple, list)):  # (one per output head)
            out = torch.stack(out)
        put(f"wrapper_{flag}.logits", out)
        grads(f"wrapper_{flag}", model, (out * arr(tuple(out.shape), 2)).sum())

    run.__name__ = f"wrapper_{flag}"
    return run


def decoder_case(flag: str) -> Callable[[], None]:
    def run() -> None:
        kwargs = {"dim": D, "depth": 2, "heads": 2} | DECODER_FLAGS[flag]
        model = module(
            f"decoder_{flag}",
            lambda: TransformerWrapper(num_tokens=V, max_seq_len=16, attn_layers=Decoder(**kwargs)),
        )
        lm_check(f"decoder_{flag}", model)

    run.__name__ = f"decoder_{flag}"
    return run


for _flag in DECODER_FLAGS:
    case(decoder_case(_flag))
for _flag in WRAPPER_FLAGS:
    case(wrapper_case(_flag))


@case
def decoder_memory_tokens() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        num_memory_tokens=3,
        attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
    )
    lm_check("memtok", module("memtok", make))


@case
def decoder_no_abs_pos_tied() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        use_abs_pos_emb=False,
        tie_embedding=True,
        attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_xpos=True),
    )
    lm_check("tied", module("tied", make))


@case
def decoder_cross_attend() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        attn_layers=Decoder(dim=D, depth=2, heads=2, cross_attend=True),
    )
    model = module("cross", make)
    context = arr((2, 6, D), 3)
    context.requires_grad_(True)
    context_mask = lengths_mask([6, 4], 6)
    lm_check("cross", model, context=context, context_mask=context_mask)
    put("cross.grad.context", context.grad)


@case
def decoder_masks() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
    )
    model = module("masks", make)
    x = tokens((2, N), 1)
    mask = lengths_mask([N, 7], N)
    put("masks.padding", model(x, mask=mask))
    rng = np.random.default_rng(5)
    attn_mask = torch.tensor(rng.random((2, N, N)) > 0.3) | torch.eye(N, dtype=torch.bool)
    put("masks.attn_mask", model(x, attn_mask=attn_mask))
    flash = module(
        "masks_flash",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2, attn_flash=True),
        ),
    )
    put("masks.flash_padding", flash(x, mask=mask))
    put("masks.flash_attn_mask", flash(x, attn_mask=attn_mask))
    loss = F.cross_entropy(flash(x, mask=mask).transpose(1, 2), tokens((2, N), 2))
    grads("masks.flash", flash, loss)


@case
def decoder_intermediates_and_cache() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
    )
    model = module("cache", make).eval()
    x = tokens((2, N), 1)
    logits, inter = model(x, return_intermediates=True)
    put("cache.logits", logits)
    for i, hidden in enumerate(inter.hiddens):
        put(f"cache.hidden{i}", hidden)
    for i, attn in enumerate(inter.attn_intermediates):
        put(f"cache.post_softmax{i}", attn.post_softmax_attn)
    put("cache.embeds", model(x, return_embeddings=True))
    # the logits of the last token from a cache of the first N - 1
    _, cache = model(x[:, :-1], return_intermediates=True)
    put("cache.step", model(x, cache=cache))


@case
def encoder_padding_mask() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        attn_layers=Encoder(dim=D, depth=2, heads=2, rel_pos_bias=True, ff_glu=True),
    )
    model = module("encoder", make)
    mask = lengths_mask([N, 6], N)
    lm_check("encoder", model, mask=mask)


@case
def encoder_flash_rotary() -> None:
    make = lambda: TransformerWrapper(  # noqa: E731
        num_tokens=V,
        max_seq_len=16,
        attn_layers=Encoder(dim=D, depth=2, heads=2, attn_flash=True, rotary_pos_emb=True),
    )
    model = module("encoder_flash", make)
    lm_check("encoder_flash", model, mask=lengths_mask([5, N], N))


@case
def xtransformer_enc_dec() -> None:
    make = lambda: XTransformer(  # noqa: E731
        dim=D,
        enc_num_tokens=V,
        enc_depth=2,
        enc_heads=2,
        enc_max_seq_len=16,
        dec_num_tokens=V,
        dec_depth=2,
        dec_heads=2,
        dec_max_seq_len=16,
        tie_token_emb=True,
    )
    model = module("xt", make)
    src = tokens((2, N), 3)
    tgt = tokens((2, 8), 4)
    src_mask = lengths_mask([N, 7], N)
    grads("xt", model, model(src, tgt, mask=src_mask))
    model.eval()
    out = model.generate(src[:, :N], tgt[:, :1], seq_len=5, mask=src_mask, temperature=0.0)
    put("xt.generate", out)


@case
def vit_wrapper() -> None:
    make = lambda: ViTransformerWrapper(  # noqa: E731
        image_size=8,
        patch_size=4,
        num_classes=5,
        attn_layers=Encoder(dim=D, depth=2, heads=2),
    )
    model = module("vit", make)
    img = arr((2, 3, 8, 8), 6)
    logits = model(img)
    put("vit.logits", logits)
    put("vit.embeds", model(img, return_embeddings=True))
    grads("vit", model, F.cross_entropy(logits, torch.tensor([1, 4])))


@case
def continuous_wrapper() -> None:
    make = lambda: ContinuousTransformerWrapper(  # noqa: E731
        dim_in=5,
        dim_out=3,
        max_seq_len=16,
        attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True, use_rmsnorm=True),
    )
    model = module("cont", make)
    x = arr((2, N, 5), 7)
    mask = lengths_mask([N, 8], N)
    out = model(x, mask=mask)
    put("cont.out", out)
    grads("cont", model, ((out - arr((2, N, 3), 8)) ** 2).mean())


@case
def autoregressive_loss() -> None:
    make = lambda: AutoregressiveWrapper(  # noqa: E731
        TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
        )
    )
    model = module("ar", make)
    grads("ar", model, model(tokens((2, N + 1), 9)))


def generator(key: str, **flags: object) -> torch.nn.Module:
    make = lambda: AutoregressiveWrapper(  # noqa: E731
        TransformerWrapper(
            num_tokens=V, max_seq_len=32, attn_layers=Decoder(dim=D, depth=2, heads=2, **flags)
        )
    )
    return module(key, make).eval()


@case
def generate_greedy() -> None:
    model = generator("gen")
    prompt = tokens((2, 4), 10)
    put("gen.cached", model.generate(prompt, 8, temperature=0.0))
    put("gen.uncached", model.generate(prompt, 8, temperature=0.0, cache_kv=False))
    put("gen.argmax_fn", model.generate(prompt, 6, filter_logits_fn="top_k", temperature=0.0))
    put("gen.eos", model.generate(prompt, 8, temperature=0.0, eos_token=3))
    lens = torch.tensor([4, 2])
    put("gen.prompt_lens", model.generate(prompt, 6, temperature=0.0, prompt_lens=lens))
    out, inter = model.generate(prompt, 5, temperature=0.0, return_intermediates=True)
    put("gen.inter", out)


@case
def generate_flags() -> None:
    for name, flags in {
        "rotary": {"rotary_pos_emb": True},
        "alibi": {"alibi_pos_bias": True, "alibi_num_heads": 1},
        "flash": {"attn_flash": True},
        "mem_kv": {"attn_num_mem_kv": 2},
        "shift": {"shift_tokens": 1},
    }.items():
        model = generator(f"gen_{name}", **flags)
        prompt = tokens((2, 3), 11)
        put(f"gen_{name}.cached", model.generate(prompt, 6, temperature=0.0))
        put(f"gen_{name}.uncached", model.generate(prompt, 6, temperature=0.0, cache_kv=False))
        lens = torch.tensor([3, 2])
        put(f"gen_{name}.prompt_lens", model.generate(prompt, 5, temperature=0.0, prompt_lens=lens))


@case
def generate_filtered_logits() -> None:
    model = generator("gen_filter")
    x = tokens((2, 6), 12)
    logits = model.net(x)[:, -1]
    from x_transformers.autoregressive_wrapper import min_p, top_a, top_k, top_p

    put("filter.top_k", top_k(logits, k=3))
    put("filter.top_p", top_p(logits, thres=0.8))
    put("filter.min_p", min_p(logits))
    put("filter.top_a", top_a(logits))


# --- float32 models (features that build float32 tensors of their own) ---

FLOAT32_FLAGS: dict[str, dict] = {
    "dynamic_pos_bias": {"dynamic_pos_bias": True},
    "data_dependent_alibi": {"attn_data_dependent_alibi": True},
    "cope": {"attn_use_cope": True},
    "hyper_connections": {"num_residual_streams": 2},
    "softclamp_sparse": {"attn_softclamp_logits": True, "attn_sparse_topk": 4},
    "head_gate_out_gate": {"attn_gate_value_heads": True, "attn_output_gate": True},
    "unet_skips": {"depth": 4, "unet_skips": True},
}


def float32_case(flag: str) -> Callable[[], None]:
    def run() -> None:
        kwargs = {"dim": D, "depth": 2, "heads": 2} | FLOAT32_FLAGS[flag]
        model = module(
            f"f32_{flag}",
            lambda: TransformerWrapper(num_tokens=V, max_seq_len=16, attn_layers=Decoder(**kwargs)),
            double=False,
        )
        lm_check(f"f32_{flag}", model)

    run.__name__ = f"float32_{flag}"
    return run


for _flag in FLOAT32_FLAGS:
    case(float32_case(_flag))


@case
def prefix_decoder_and_pooling() -> None:
    from x_transformers import AttentionPool, CrossAttender, PrefixDecoder

    model = module(
        "prefix",
        lambda: TransformerWrapper(
            num_tokens=V, max_seq_len=16, attn_layers=PrefixDecoder(dim=D, depth=2, heads=2)
        ),
    )
    lm_check("prefix", model, prefix_attn_len=4)
    cls = module(
        "cls",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            use_cls_token=True,
            logits_dim=3,
            attn_layers=Encoder(dim=D, depth=1, heads=2),
        ),
    )
    out = cls(tokens((2, N), 1))
    put("cls.logits", out)
    grads("cls", cls, out.square().sum())
    pool = module(
        "attn_pool",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            attn_pool=True,
            logits_dim=3,
            attn_layers=Encoder(dim=D, depth=1, heads=2),
        ),
    )
    put("attn_pool.logits", pool(tokens((2, N), 1), mask=lengths_mask([N, 5], N)))
    cross = module("cross_attender", lambda: CrossAttender(dim=D, depth=2, heads=2))
    put("cross_attender", cross(arr((2, 4, D), 40), context=arr((2, 6, D), 41)))
    ap = module("attention_pool", lambda: AttentionPool(D, depth=1, heads=2))
    put("attention_pool", ap(arr((2, 6, D), 42)))


@case
def xl_memories() -> None:
    from x_transformers import XLAutoregressiveWrapper

    make = lambda: XLAutoregressiveWrapper(  # noqa: E731
        TransformerWrapper(
            num_tokens=V,
            max_seq_len=8,
            max_mem_len=8,
            attn_layers=Decoder(dim=D, depth=2, heads=2, rel_pos_bias=True),
        )
    )
    model = module("xl", make)
    grads("xl", model, model(tokens((2, 21), 43)))
    put("xl.generate", model.generate(tokens((2, 10), 44), 9, temperature=0.0))


@case
def xl_test_time_training() -> None:
    from x_transformers import XLAutoregressiveWrapper

    make = lambda: XLAutoregressiveWrapper(  # noqa: E731
        TransformerWrapper(
            num_tokens=V,
            max_seq_len=8,
            max_mem_len=8,
            attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
        ),
        tbptt_steps=2,
        ttt_module_paths=("attn_layers.layers.1.1.ff.2",),
        ttt_lr=0.5,
    )
    model = module("ttt", make)
    grads("ttt", model, model(tokens((2, 21), 45)))
    put("ttt.generate", model.generate(tokens((2, 10), 46), 5, temperature=0.0))


@case
def continuous_autoregressive() -> None:
    from x_transformers import ContinuousAutoregressiveWrapper

    make = lambda: ContinuousAutoregressiveWrapper(  # noqa: E731
        ContinuousTransformerWrapper(
            dim_in=4,
            dim_out=4,
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
        )
    )
    model = module("cont_ar", make)
    x = arr((2, N, 4), 47)
    grads("cont_ar", model, model(x, mask=lengths_mask([N, 7], N)))
    model.eval()
    put("cont_ar.generate", model.generate(x[:, :3], 4, cache_kv=True))
    put("cont_ar.generate_nocache", model.generate(x[:, :3], 4, cache_kv=False))


@case
def xval_wrapper() -> None:
    from x_transformers import XValAutoregressiveWrapper, XValTransformerWrapper

    make = lambda: XValAutoregressiveWrapper(  # noqa: E731
        XValTransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            numerical_token_id=V - 1,
            attn_layers=Decoder(dim=D, depth=2, heads=2),
        )
    )
    model = module("xval", make)
    x = tokens((2, N), 48)
    x[:, ::3] = V - 1
    x_num = arr((2, N), 49)
    grads("xval", model, model(x, x_num))


@case
def training_steps() -> None:
    model = module(
        "train",
        lambda: AutoregressiveWrapper(
            TransformerWrapper(
                num_tokens=V,
                max_seq_len=16,
                attn_layers=Decoder(
                    dim=D, depth=2, heads=2, rotary_pos_emb=True, ff_glu=True, attn_flash=True
                ),
            )
        ),
    )
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for step in range(4):
        loss = model(tokens((2, N + 1), 50 + step))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        put(f"train.loss{step}", loss)
    for key, p in model.named_parameters():
        put(f"train.{key}", p)


@case
def traced_and_exported() -> None:
    """torch.jit.trace and torch.export of flash-attention models, run on other tokens."""
    x, y = tokens((2, N), 1), tokens((2, N), 2)
    for name, flags in {
        "rotary": {"rotary_pos_emb": True},
        "rmsnorm_alibi": {"use_rmsnorm": True, "alibi_pos_bias": True},
        "mem_kv_gate": {"attn_num_mem_kv": 2, "gate_residual": True, "shift_tokens": 1},
        "qk_norm": {"attn_qk_norm": True},
    }.items():
        model = module(
            f"export_{name}",
            lambda flags=flags: TransformerWrapper(
                num_tokens=V,
                max_seq_len=16,
                attn_layers=Decoder(dim=D, depth=2, heads=2, attn_flash=True, **flags),
            ),
        ).eval()
        put(f"export_{name}.eager", model(y))
        put(f"export_{name}.traced", torch.jit.trace(model, (x,))(y))
        put(f"export_{name}.exported", torch.export.export(model, (x,)).module()(y))


@case
def generate_one_hot_sampling() -> None:
    model = generator("gen_sample")
    prompt = tokens((2, 4), 51)
    put("gen_sample.top_k1", model.generate(prompt, 6, filter_kwargs={"k": 1}))
    put("gen_sample.list_prompts", model.generate([prompt[0], prompt[1, :2]], 5, temperature=0.0))


@case
def generate_contrastive_and_belief() -> None:
    from x_transformers import BeliefStateWrapper

    model = generator("gen_expert")
    amateur = generator("gen_amateur", rotary_pos_emb=True)
    prompt = tokens((2, 4), 58)
    put("gen_contrastive", model.generate(prompt, 6, temperature=0.0, amateur_model=amateur.net))
    belief = module(
        "belief_gen",
        lambda: BeliefStateWrapper(
            TransformerWrapper(
                num_tokens=V,
                max_seq_len=0,
                attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
            )
        ),
    ).eval()
    put("gen_belief", belief.generate_with_suffix_cond(prompt[:, :3], 5, temperature=0.0))


@case
def nar_loss_weight() -> None:
    """The loss weights of NonAutoregressiveWrapper: torch.func.vmap of grad_and_value."""
    from x_transformers import NonAutoregressiveWrapper

    for schedule in ("linear", "cosine"):
        nar = NonAutoregressiveWrapper(
            TransformerWrapper(
                num_tokens=V + 1, max_seq_len=N, attn_layers=Encoder(dim=D, depth=1, heads=2)
            ),
            mask_id=V,
            schedule=schedule,
            use_simple_mdlm_loss_weight=True,
        )
        put(f"nar.{schedule}", nar.loss_weight_fn(torch.linspace(0.05, 0.95, 7)))


@case
def conditioned_and_multi_input() -> None:
    from x_transformers import MultiInputTransformerWrapper

    x = tokens((2, N), 1)
    cond = arr((2, 4), 52)
    for name, flags in {
        "adaln": {"use_adaptive_layernorm": True},
        "adarms": {"use_adaptive_rmsnorm": True, "use_adaptive_layerscale": True},
    }.items():
        model = module(
            name,
            lambda flags=flags: TransformerWrapper(
                num_tokens=V,
                max_seq_len=16,
                attn_layers=Decoder(dim=D, depth=2, heads=2, dim_condition=4, **flags),
            ),
        )
        lm_check(name, model, condition=cond)
    typed = module(
        "embed_ids",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            embed_num_tokens={"type": 3},
            attn_layers=Decoder(dim=D, depth=2, heads=2),
        ),
    )
    lm_check("embed_ids", typed, embed_ids={"type": tokens((2, N), 3, high=3)})
    multi = module(
        "multi_input",
        lambda: MultiInputTransformerWrapper(
            num_tokens={"a": V, "b": 5},
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2),
        ),
    )
    out = multi({"a": x, "b": tokens((2, N), 3, high=5)})
    put("multi_input.a", out["a"])
    put("multi_input.b", out["b"])
    grads("multi_input", multi, out["a"].logsumexp(-1).mean() + out["b"].square().mean())


@case
def recycling_eval() -> None:
    model = module(
        "recycling",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            recycling=True,
            attn_layers=Decoder(dim=D, depth=2, heads=2),
        ),
    ).eval()
    lm_check("recycling", model, recycle_steps=3)


@case
def dpo_loss() -> None:
    from x_transformers import DPO

    model = module(
        "dpo",
        lambda: DPO(
            TransformerWrapper(
                num_tokens=V, max_seq_len=16, attn_layers=Decoder(dim=D, depth=2, heads=2)
            ),
            beta=0.1,
        ),
    )
    prompt_mask = torch.arange(12)[None].expand(2, 12) < 4
    grads("dpo", model, model(tokens((2, 12), 4), tokens((2, 12), 5), prompt_mask=prompt_mask))


@case
def belief_state_loss() -> None:
    from x_transformers import BeliefStateWrapper

    model = module(
        "belief",
        lambda: BeliefStateWrapper(
            TransformerWrapper(
                num_tokens=V,
                max_seq_len=0,
                attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True),
            )
        ),
    )
    grads("belief", model, model(tokens((2, 8), 7)))


@case
def entropy_tokenizer_and_neo_mlp() -> None:
    from x_transformers import EntropyBasedTokenizer, NeoMLP

    ebt = module(
        "ebt",
        lambda: EntropyBasedTokenizer(
            TransformerWrapper(
                num_tokens=V, max_seq_len=16, attn_layers=Decoder(dim=D, depth=1, heads=2)
            ),
            entropy_threshold=2.5,
        ),
    )
    x = tokens((2, N), 1)
    put("ebt.lengths", ebt(x))
    for i, segments in enumerate(ebt(x, return_segmented_seq=True)):
        put(
            f"ebt.segments{i}",
            torch.cat([torch.tensor([len(s)]) for s in segments] + list(segments)),
        )
    mlp = module("neo_mlp", lambda: NeoMLP(dim_in=5, dim_hidden=8, dim_out=3, dim_model=D, depth=1))
    out = mlp(arr((2, 5), 53))
    put("neo_mlp.out", out)
    grads("neo_mlp", mlp, out.square().sum())


@case
def compiled_model() -> None:
    model = module(
        "compiled",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2, attn_flash=True),
        ),
    )
    lm_check("compiled", torch.compile(model))


@case
def autocast_bfloat16() -> None:
    model = module(
        "autocast",
        lambda: TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True, attn_flash=True),
        ),
        double=False,
    )
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(tokens((2, N), 1))
    put("autocast.dtype", str(logits.dtype))
    put("autocast.logits", logits.float())


# --- einx's own ops on torch tensors, through each of its torch backends ---

BACKENDS = ["torch", "torch.numpylike", "torch.einsum", "torch.vmap"]


def einx_inputs() -> dict[str, torch.Tensor]:
    return {"x": arr((2, 3, 4), 20), "w": arr((4, 5), 21), "y": arr((3, 4), 22)}


@case
def einx_ops() -> None:
    for backend in BACKENDS:
        t = einx_inputs()
        for v in t.values():
            v.requires_grad_(True)
        x, w, y = t["x"], t["w"], t["y"]
        b = {"backend": backend}
        outs = {
            "dot": einx.dot("b n [d], [d] e -> b n e", x, w, **b),
            "sum": einx.sum("b [n] d", x, **b),
            "id": einx.id("b n d -> b (n d)", x, **b),
            "multiply": einx.multiply("b n d, d", x, w[:, 0], **b),
        }
        if backend in ("torch", "torch.einsum"):  # (one contraction axis in the others)
            outs["dot2"] = einx.dot("b [n d], [n d] -> b", x, y, **b)
        if backend != "torch.einsum":
            outs["mean"] = einx.mean("b n [d]", x, **b)
            outs["max"] = einx.max("[b] n d", x, **b)
            outs["add"] = einx.add("b n d, n d", x, y, **b)
            outs["softmax"] = einx.softmax("b n [d]", x, **b)
            outs["logsumexp"] = einx.logsumexp("b [n] d", x, **b)
            outs["where"] = einx.where("b n d, b n d, ", x > 0, x, 0.0, **b)
        if backend in ("torch", "torch.numpylike"):
            idx = tokens((2, 5), 23, high=3)
            outs["get_at"] = einx.get_at("b [n] d, b i -> b i d", x, idx, **b)
        ok = list(outs)
        total = sum(((outs[k] * arr(tuple(outs[k].shape), 30 + i)).sum()) for i, k in enumerate(ok))
        total.backward()
        for k in ok:
            put(f"einx.{backend}.{k}", outs[k])
        for k, v in t.items():
            put(f"einx.{backend}.grad.{k}", v.grad)


@case
def einx_more_ops() -> None:
    x = arr((2, 3, 4), 24)
    put("einx.argmax", einx.argmax("b [n] d", x))
    put("einx.sort", einx.sort("b n [d]", x))
    put("einx.flip", einx.flip("b [n] d", x))
    put("einx.roll", einx.roll("b n [d]", x, shift=1))
    put("einx.var", einx.var("b [n d]", x))
    put("einx.rearrange", einx.rearrange("b n d -> d (b n)", x))
    put("einx.repeat", einx.id("n d -> b n d", x[0], b=2))
    put("einx.get_at_2d", einx.get_at("[h w] c, p [2] -> p c", x, tokens((5, 2), 25, high=2)))
    put(
        "einx.set_at",
        einx.set_at(
            "b [n] d, b i, b i d", x.clone(), tokens((2, 2), 26, high=3), arr((2, 2, 4), 27)
        ),
    )
    put(
        "einx.add_at",
        einx.add_at(
            "b [n] d, b i, b i d", x.clone(), tokens((2, 2), 26, high=3), arr((2, 2, 4), 27)
        ),
    )
    put("einx.matches", np.array(einx.matches("b n d", x)))
    # NumPy arrays and Python numbers beside a tensor: made tensors by einx's torch backend
    n = np.arange(4.0)
    put("einx.numpy_add", einx.add("b n d, d", x, n))
    put("einx.numpy_dot", einx.dot("b n [d], [d] -> b n", x, n))
    put("einx.scalar_multiply", einx.multiply("b n d, ", x, 2))
    put("einx.numpy_get_at", einx.get_at("b [n] d, b -> b d", x, np.array([0, 2])))


@case
def einx_gradients() -> None:
    x = arr((2, 3, 4), 54).requires_grad_(True)
    u = arr((2, 2, 4), 55).requires_grad_(True)
    idx = tokens((2, 2), 56, high=3)
    outs = {
        "softmax_2axes": einx.softmax("b [n d]", x),
        "log_softmax": einx.log_softmax("b n [d]", x),
        "std": einx.std("b [n] d", x),
        "prod": einx.prod("b n [d]", x),
        "subtract": einx.subtract("b n d, b", x, x[:, 0, 0]),
        "divide": einx.divide("b n d, d", x, x[0, 0].exp()),
        "minimum": einx.minimum("b n d, n d", x, x[0]),
        "logaddexp": einx.logaddexp("b n d, d", x, x[1, 1]),
        "get_at": einx.get_at("b [n] d, b i -> b i d", x, idx),
        "get_at_flat": einx.get_at("b [n d], i [2] -> b i", x, tokens((3, 2), 57, high=3)),
        "set_at": einx.set_at("b [n] d, b i, b i d", x * 1.0, idx, u),
        "add_at": einx.add_at("b [n] d, b i, b i d", x * 1.0, idx, u),
        "subtract_at": einx.subtract_at("b [n] d, b i, b i d", x * 1.0, idx, u),
        "concat": einx.id("b n d, b m d -> b (n + m) d", x, u),
        "dot_vmap": einx.dot("b n [d], n [d] -> b n", x, x[0], backend="torch.vmap"),
    }
    total = sum((v * arr(tuple(v.shape), 60 + i)).sum() for i, v in enumerate(outs.values()))
    total.backward()
    for k, v in outs.items():
        put(f"einx_grad.{k}", v)
    put("einx_grad.x", x.grad)
    put("einx_grad.u", u.grad)
    put("einx_grad.less", einx.less("b n d, d", x, x[0, 0]))
    put("einx.count_nonzero", einx.count_nonzero("b [n d]", x > 0))
    put("einx.all_any", torch.stack([einx.all("b [n d]", x > -9), einx.any("b [n d]", x > 2)]))
    put("einx.argsort", einx.argsort("b n [d]", x))


@case
def einx_adapters() -> None:
    def layernorm(x: torch.Tensor) -> torch.Tensor:
        return (x - x.mean()) / x.std()

    vmapped = einx.torch.adapt_with_vmap(layernorm)
    x = arr((2, 3, 4), 28)
    put("einx.adapt_vmap", vmapped("b n [d] -> b n [d]", x))

    def total(x: torch.Tensor, axis: tuple[int, ...]) -> torch.Tensor:
        return torch.sum(x, dim=axis)

    def larger(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.maximum(a, b)

    reduce = einx.torch.adapt_numpylike_reduce(total)
    put("einx.adapt_reduce", reduce("b [n] d", x))
    elem = einx.torch.adapt_numpylike_elementwise(larger)
    put("einx.adapt_elementwise", elem("b n d, d", x, x[0, 0]))


# --- chainrule's own models, read by the real PyTorch ---

SAVED: dict = {} if SIDE != "check" else torch.load(OWN_FILE)


def own_lm() -> torch.nn.Module:
    return AutoregressiveWrapper(
        TransformerWrapper(
            num_tokens=V,
            max_seq_len=32,
            attn_layers=Decoder(dim=D, depth=2, heads=2, rotary_pos_emb=True, ff_glu=True),
        )
    )


@own
def own_trained_lm() -> None:
    """chainrule initialises and trains; the check side loads model and AdamW states."""
    model = own_lm()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    if SIDE == "check":
        model.load_state_dict(SAVED["lm"])
        opt.load_state_dict(SAVED["lm_opt"])
    else:
        for step in range(3):
            loss = model(tokens((2, N + 1), 70 + step))
            opt.zero_grad()
            loss.backward()
            opt.step()
        # (copies: the state dicts share the tensors the next step updates in place)
        SAVED["lm"] = copy.deepcopy(model.state_dict())
        SAVED["lm_opt"] = copy.deepcopy(opt.state_dict())
    model.eval()
    put("own_lm.logits", model.net(tokens((2, N), 73)))
    put("own_lm.generate", model.generate(tokens((2, 3), 74), 8, temperature=0.0))
    model.train()
    loss = model(tokens((2, N + 1), 75))
    opt.zero_grad()
    loss.backward()
    opt.step()
    put("own_lm.loss", loss)
    for key, p in model.named_parameters():
        put(f"own_lm.step.{key}", p)


@own
def own_encoder_decoder() -> None:
    model = XTransformer(
        dim=D,
        enc_num_tokens=V,
        enc_depth=1,
        enc_heads=2,
        enc_max_seq_len=16,
        dec_num_tokens=V,
        dec_depth=1,
        dec_heads=2,
        dec_max_seq_len=16,
        enc_rel_pos_bias=True,
        dec_attn_flash=True,
    )
    if SIDE == "check":
        model.load_state_dict(SAVED["xt"])
    else:
        SAVED["xt"] = model.state_dict()
    model.eval()
    src, src_mask = tokens((2, N), 76), lengths_mask([N, 6], N)
    put("own_xt.loss", model(src, tokens((2, 6), 77), mask=src_mask))
    put(
        "own_xt.generate",
        model.generate(src, tokens((2, 1), 78), 5, mask=src_mask, temperature=0.0),
    )


@own
def own_exported_program() -> None:
    """chainrule exports its own model; the check side loads the saved program."""
    x = tokens((2, N), 79)
    path = f"{OUT}/xt_export.pt2"
    if SIDE == "check":
        program = torch.export.load(path)
    else:
        model = TransformerWrapper(
            num_tokens=V,
            max_seq_len=16,
            attn_layers=Decoder(dim=D, depth=2, heads=2, attn_flash=True, rotary_pos_emb=True),
        ).eval()
        program = torch.export.export(model, (x,))
        torch.export.save(program, path)
    put("own_export.logits", program.module()(x))


if __name__ == "__main__":
    CASES.run_side(OUT, "xtransformers", SIDE)
    WEIGHTS.save()
    if SIDE == "chainrule":
        torch.save(SAVED, OWN_FILE)
