"""The diffusers cases of test_diffusers.py, run as a script on either side.

``python diffusers_cases.py OUT oracle``: the real PyTorch builds the tiny models from
small configs (random weights), saves them (``OUT/base/<name>``: safetensors folders, and
one ``torch.save`` state dict), runs every case and writes ``OUT/diffusers_oracle.npz``.
``chainrule run diffusers_cases.py OUT chainrule`` loads those files, runs the same cases
(``OUT/diffusers_chainrule.npz``), then saves models and a pipeline of its own
(``OUT/cr/<name>``) with their results (``OUT/diffusers_own.npz``). ``python
diffusers_cases.py OUT check``: the real diffusers loads chainrule's folders
(``OUT/diffusers_check.npz``). Noise that diffusers draws from torch's random stream
(initial latents, DDPM's step noise) comes from NumPy through the library's own
``randn_tensor`` hook points, so both sides draw the same values.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable

import numpy as np
from case_inputs import pretrained
from case_runner import Cases

OUT, SIDE = sys.argv[1], sys.argv[2]
if SIDE != "chainrule":
    # (the real torchvision of this environment does not import against the real torch)
    sys.modules["torchvision"] = None  # type: ignore[assignment]

import diffusers  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from diffusers import (  # noqa: E402
    AutoencoderKL,
    AutoencoderTiny,
    ControlNetModel,
    DDIMPipeline,
    DDIMScheduler,
    DDPMPipeline,
    DDPMScheduler,
    DiTTransformer2DModel,
    DPMSolverMultistepScheduler,
    EulerAncestralDiscreteScheduler,
    EulerDiscreteScheduler,
    FluxTransformer2DModel,
    PNDMScheduler,
    SD3Transformer2DModel,
    UNet2DConditionModel,
    UNet2DModel,
    UNet3DConditionModel,
    VQModel,
)
from diffusers.models.attention_processor import Attention, AttnProcessor  # noqa: E402
from diffusers.training_utils import EMAModel  # noqa: E402

diffusers.utils.logging.set_verbosity_error()
diffusers.utils.logging.disable_progress_bar()

PATCHED: list[tuple[object, Callable]] = []


def restoring(fn: Callable[[], None]) -> Callable[[], None]:
    """``fn``, then diffusers' own ``randn_tensor`` back wherever ``patch_noise`` put ours."""

    def run_case() -> None:
        try:
            fn()
        finally:
            while PATCHED:
                module, original = PATCHED.pop()
                module.randn_tensor = original

    return run_case


CASES = Cases(wrap=restoring, copies=True)
case, own, put = CASES.case, CASES.own, CASES.put


def arr(seed: int, *shape: int, scale: float = 1.0) -> torch.Tensor:
    """A float32 tensor of NumPy normal values from ``seed``."""
    values = np.random.default_rng(seed).standard_normal(shape) * scale
    return torch.tensor(values.astype(np.float32))


CONDITIONAL = dict(
    sample_size=8,
    out_channels=4,
    layers_per_block=1,
    block_out_channels=(8, 16),
    norm_num_groups=4,
    cross_attention_dim=12,
)
CONFIGS: dict[str, tuple[type, dict]] = {
    "unet_inpaint": (
        UNet2DConditionModel,
        dict(
            CONDITIONAL,
            in_channels=9,
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
            attention_head_dim=4,
        ),
    ),
    "unet_xl": (
        UNet2DConditionModel,
        dict(
            CONDITIONAL,
            in_channels=4,
            down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
            up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
            attention_head_dim=(2, 4),
            use_linear_projection=True,
            addition_embed_type="text_time",
            addition_time_embed_dim=4,
            transformer_layers_per_block=(1, 2),
            projection_class_embeddings_input_dim=6 + 6 * 4,
        ),
    ),
    "unet3d": (
        UNet3DConditionModel,
        dict(
            sample_size=8,
            in_channels=4,
            out_channels=4,
            block_out_channels=(8, 16),
            layers_per_block=1,
            down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
            up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"),
            norm_num_groups=4,
            cross_attention_dim=12,
            attention_head_dim=4,
        ),
    ),
    "tiny_vae": (
        AutoencoderTiny,
        dict(
            encoder_block_out_channels=(8, 8),
            decoder_block_out_channels=(8, 8),
            num_encoder_blocks=(1, 1),
            num_decoder_blocks=(1, 1),
            latent_channels=4,
        ),
    ),
    "unet2d": (
        UNet2DModel,
        dict(
            sample_size=8,
            in_channels=3,
            out_channels=3,
            layers_per_block=1,
            block_out_channels=(8, 16),
            down_block_types=("DownBlock2D", "AttnDownBlock2D"),
            up_block_types=("AttnUpBlock2D", "UpBlock2D"),
            norm_num_groups=4,
            attention_head_dim=4,
        ),
    ),
    "unet_cond": (
        UNet2DConditionModel,
        dict(
            sample_size=8,
            in_channels=4,
            out_channels=4,
            layers_per_block=1,
            block_out_channels=(8, 16),
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
            norm_num_groups=4,
            cross_attention_dim=12,
            attention_head_dim=4,
        ),
    ),
    "vae": (
        AutoencoderKL,
        dict(
            in_channels=3,
            out_channels=3,
            down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
            up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
            block_out_channels=(8, 16),
            latent_channels=4,
            norm_num_groups=4,
            sample_size=16,
        ),
    ),
    "controlnet": (
        ControlNetModel,
        dict(
            in_channels=4,
            layers_per_block=1,
            block_out_channels=(8, 16),
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            norm_num_groups=4,
            cross_attention_dim=12,
            attention_head_dim=4,
            conditioning_embedding_out_channels=(4, 8),
        ),
    ),
    "vq": (
        VQModel,
        dict(
            block_out_channels=(8, 16),
            norm_num_groups=4,
            latent_channels=3,
            num_vq_embeddings=8,
            down_block_types=("DownEncoderBlock2D",) * 2,
            up_block_types=("UpDecoderBlock2D",) * 2,
        ),
    ),
    "sd3": (
        SD3Transformer2DModel,
        dict(
            sample_size=8,
            patch_size=2,
            in_channels=4,
            num_layers=2,
            attention_head_dim=4,
            num_attention_heads=2,
            joint_attention_dim=12,
            caption_projection_dim=8,
            pooled_projection_dim=6,
            out_channels=4,
            pos_embed_max_size=16,
        ),
    ),
    "flux": (
        FluxTransformer2DModel,
        dict(
            patch_size=1,
            in_channels=4,
            num_layers=1,
            num_single_layers=1,
            attention_head_dim=16,
            num_attention_heads=2,
            joint_attention_dim=12,
            pooled_projection_dim=6,
            axes_dims_rope=(4, 4, 8),
        ),
    ),
    "dit": (
        DiTTransformer2DModel,
        dict(
            num_attention_heads=2,
            attention_head_dim=4,
            in_channels=4,
            out_channels=8,
            num_layers=2,
            sample_size=8,
            patch_size=2,
            num_embeds_ada_norm=10,
        ),
    ),
}


def model(name: str) -> torch.nn.Module:
    """The model ``name``: built (random weights) and saved by the oracle, loaded elsewhere."""
    cls, cfg = CONFIGS[name]
    path = os.path.join(OUT, "base", name)
    return pretrained(cls, cfg, path, SIDE == "oracle" and not os.path.exists(path))


def grads(prefix: str, net: torch.nn.Module, loss: torch.Tensor) -> None:
    """The loss, the gradient of every parameter that gets one, the names of the others."""
    put(prefix + "/loss", loss)
    net.zero_grad()
    loss.backward()
    for n, p in net.named_parameters():
        if p.grad is not None:
            put(f"{prefix}/grad/{n}", p.grad)
    put(prefix + "/no_grad", ",".join(n for n, p in net.named_parameters() if p.grad is None))


def fixed_noise(seed: int) -> Callable[..., torch.Tensor]:
    """A stand-in for diffusers' ``randn_tensor`` that draws from NumPy (seeded once)."""
    rng = np.random.default_rng(seed)

    def draw(shape: tuple, generator: object = None, dtype: object = None, **_: object):
        values = rng.standard_normal(tuple(shape)).astype(np.float32)
        return torch.tensor(values, dtype=dtype or torch.float32)

    return draw


def patch_noise(seed: int, *modules: str) -> None:
    """Make ``randn_tensor`` in each of ``modules`` draw from one NumPy stream (for the
    rest of the case)."""
    draw = fixed_noise(seed)
    for name in modules:
        module = importlib.import_module(name)
        PATCHED.append((module, module.randn_tensor))
        module.randn_tensor = draw


@case
def unet2d() -> None:
    net = model("unet2d")
    put("unet2d/processor", type(net.down_blocks[1].attentions[0].processor).__name__)
    x, t = arr(1, 2, 3, 8, 8), torch.tensor([10, 500])
    out = net(x, t).sample
    put("unet2d/out", out)
    grads("unet2d", net, F.mse_loss(out, arr(2, 2, 3, 8, 8)))
    put("unet2d/scalar_t", net(x, 7).sample)
    for m in net.modules():  # (the classic processor: explicit softmax attention)
        if isinstance(m, Attention):
            m.set_processor(AttnProcessor())
    put("unet2d/classic_attn", net(x, t).sample)


@case
def unet2d_double() -> None:
    net = model("unet2d").double()
    x = arr(1, 2, 3, 8, 8).double()
    # (timestep 0: diffusers computes the sinusoidal embedding in float32 whatever the
    # model's dtype, and float32 sines of large arguments differ by an ulp between libms)
    out = net(x, torch.tensor([0, 0])).sample
    put("unet2d64/out", out)
    grads("unet2d64", net, (out * arr(3, 2, 3, 8, 8).double()).sum())


@case
def unet_condition() -> None:
    net = model("unet_cond")
    put(
        "cond/processor",
        type(net.down_blocks[0].attentions[0].transformer_blocks[0].attn2.processor).__name__,
    )
    x, ctx = arr(4, 2, 4, 8, 8), arr(5, 2, 5, 12)
    out = net(x, torch.tensor([3, 999]), encoder_hidden_states=ctx).sample
    put("cond/out", out)
    grads("cond", net, F.mse_loss(out, arr(6, 2, 4, 8, 8)))
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    out = net(x, 50, encoder_hidden_states=ctx, encoder_attention_mask=mask).sample
    put("cond/masked", out)


@case
def autoencoder_kl() -> None:
    vae = model("vae")
    x = arr(7, 2, 3, 16, 16)
    dist = vae.encode(x).latent_dist
    for key in ("mean", "std", "logvar", "var"):
        put(f"vae/{key}", getattr(dist, key))
    put("vae/mode", dist.mode())
    put("vae/kl", dist.kl())
    put("vae/nll", dist.nll(arr(8, 2, 4, 8, 8)))
    z = dist.mean + dist.std * arr(9, 2, 4, 8, 8)
    rec = vae.decode(z).sample
    put("vae/decoded", rec)
    grads("vae", vae, F.mse_loss(rec, x) + 1e-3 * dist.kl().mean())
    with torch.no_grad():
        put("vae/forward", vae(x).sample)


@case
def dit_transformer() -> None:
    net = model("dit")
    x = arr(10, 2, 4, 8, 8)
    out = net(x, timestep=torch.tensor([5, 700]), class_labels=torch.tensor([1, 7])).sample
    put("dit/out", out)
    grads("dit", net, F.mse_loss(out, arr(11, 2, 8, 8, 8)))


@case
def controlnet() -> None:
    """ControlNet's residuals, fed to the conditional UNet; the gradients of both."""
    net, unet = model("controlnet"), model("unet_cond")
    x, ctx, t = arr(4, 2, 4, 8, 8), arr(5, 2, 5, 12), torch.tensor([3, 999])
    down, mid = net(x, t, ctx, controlnet_cond=arr(12, 2, 3, 16, 16), return_dict=False)
    for i, res in enumerate(down):
        put(f"control/down{i}", res)
    put("control/mid", mid)
    out = unet(
        x,
        t,
        encoder_hidden_states=ctx,
        down_block_additional_residuals=down,
        mid_block_additional_residual=mid,
    ).sample
    put("control/out", out)
    grads("control", net, F.mse_loss(out, arr(6, 2, 4, 8, 8)))


@case
def vq_model() -> None:
    """VQModel: encoding, the nearest-codebook quantization, decoding, its gradients."""
    net = model("vq")
    x = arr(13, 2, 3, 8, 8)
    latents = net.encode(x).latents
    put("vq/latents", latents)
    quant, commit, (_, _, indices) = net.quantize(latents)
    put("vq/quant", quant)
    put("vq/commit", commit)
    put("vq/indices", indices)
    out = net(x).sample
    put("vq/out", out)
    grads("vq", net, F.mse_loss(out, x))


@case
def mmdit_transformers() -> None:
    """SD3's and Flux's joint-attention transformers (rotary embeddings in Flux)."""
    net = model("sd3")
    out = net(
        arr(14, 2, 4, 8, 8),
        encoder_hidden_states=arr(15, 2, 5, 12),
        pooled_projections=arr(16, 2, 6),
        timestep=torch.tensor([3, 800]),
    ).sample
    put("sd3/out", out)
    grads("sd3", net, F.mse_loss(out, arr(17, 2, 4, 8, 8)))
    net = model("flux")
    ids = torch.tensor(np.indices((1, 4, 4)).reshape(3, -1).T.astype(np.float32))

    def flux() -> torch.Tensor:
        return net(
            arr(18, 2, 16, 4),
            encoder_hidden_states=arr(15, 2, 5, 12),
            pooled_projections=arr(16, 2, 6),
            timestep=torch.tensor([0.25, 0.9]),
            img_ids=ids,
            txt_ids=torch.zeros(5, 3),
        ).sample

    out = flux()
    put("flux/out", out)
    grads("flux", net, F.mse_loss(out, arr(19, 2, 16, 4)))
    # (diffusers' attention dispatcher: SDPA restricted to its math or flash kernel)
    from diffusers.models.attention_dispatch import attention_backend

    for backend in ("_native_math", "_native_flash"):
        with torch.no_grad(), attention_backend(backend):
            put(f"flux/{backend}", flux())


@case
def attention_variants() -> None:
    """The conditional UNet with fused QKV projections, sliced attention and the default
    (classic) processor, and loaded in float16 (``torch_dtype``)."""
    net = model("unet_cond")
    x, ctx = arr(4, 2, 4, 8, 8), arr(5, 2, 5, 12)
    with torch.no_grad():
        net.fuse_qkv_projections()
        attn = net.down_blocks[0].attentions[0].transformer_blocks[0].attn1
        put("attn/fused_processor", type(attn.processor).__name__)
        put("attn/fused", net(x, 3, encoder_hidden_states=ctx).sample)
        net.unfuse_qkv_projections()
        net.set_attention_slice(1)
        put("attn/sliced_processor", type(attn.processor).__name__)
        put("attn/sliced", net(x, 3, encoder_hidden_states=ctx).sample)
        net.set_default_attn_processor()
        put("attn/default_processor", type(attn.processor).__name__)
        put("attn/default", net(x, 3, encoder_hidden_states=ctx).sample)
    path = os.path.join(OUT, "base", "unet_cond")
    half = UNet2DConditionModel.from_pretrained(path, torch_dtype=torch.float16)
    put("attn/half_dtype", str(half.dtype))
    for n, p in sorted(half.state_dict().items())[:6]:
        put(f"attn/half/{n}", p)


@case
def video_and_tiny_models() -> None:
    """UNet3DConditionModel (temporal convolutions and attention), AutoencoderTiny, and
    AutoencoderKL with tiling and slicing."""
    net = model("unet3d")
    x = arr(25, 1, 4, 3, 8, 8)
    out = net(x, torch.tensor([40]), encoder_hidden_states=arr(26, 1, 5, 12)).sample
    put("3d/out", out)
    grads("3d", net, F.mse_loss(out, arr(27, 1, 4, 3, 8, 8)))
    with torch.no_grad():
        put("tiny_vae/out", model("tiny_vae")(arr(28, 1, 3, 16, 16)).sample)
        vae = model("vae")
        vae.enable_tiling()
        vae.tile_sample_min_size, vae.tile_latent_min_size = 16, 8
        vae.enable_slicing()
        put("vae_tiled/out", vae(arr(29, 2, 3, 24, 24)).sample)


@case
def hooks_and_offloading() -> None:
    """diffusers' model hooks: float8 layerwise casting, group offloading (block and leaf
    level, on the CPU) and the first-block cache on Flux."""
    x, ctx = arr(4, 2, 4, 8, 8), arr(5, 2, 5, 12)
    with torch.no_grad():
        net = model("unet_cond")
        net.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.float32)
        put("hooks/fp8_weight", net.conv_in.weight.float())
        put("hooks/fp8", net(x, 3, encoder_hidden_states=ctx).sample)
        for level in ("block_level", "leaf_level"):
            net = model("unet_cond")
            net.enable_group_offload(
                onload_device=torch.device("cpu"),
                offload_device=torch.device("cpu"),
                offload_type=level,
                num_blocks_per_group=1,
            )
            put(f"hooks/{level}", net(x, 3, encoder_hidden_states=ctx).sample)
    from diffusers.hooks import FirstBlockCacheConfig

    cls, cfg = CONFIGS["flux"]
    path = os.path.join(OUT, "base", "flux2")
    if SIDE == "oracle" and not os.path.exists(path):
        torch.manual_seed(0)
        cls(**dict(cfg, num_layers=2)).save_pretrained(path)
    net = cls.from_pretrained(path)
    net.enable_cache(FirstBlockCacheConfig(threshold=0.2))
    ids = torch.tensor(np.indices((1, 4, 4)).reshape(3, -1).T.astype(np.float32))
    with torch.no_grad():
        for i, t in enumerate((0.9, 0.88, 0.5)):
            with net.cache_context("cond"):
                out = net(
                    arr(18, 1, 16, 4) * (1 + 0.01 * i),
                    encoder_hidden_states=arr(15, 1, 5, 12),
                    pooled_projections=arr(16, 1, 6),
                    timestep=torch.tensor([t]),
                    img_ids=ids,
                    txt_ids=torch.zeros(5, 3),
                ).sample
            put(f"hooks/cached{i}", out)


@case
def float16_inference() -> None:
    """The conditional UNet loaded in float16 (``torch_dtype``) runs in float16."""
    path = os.path.join(OUT, "base", "unet_cond")
    half = UNet2DConditionModel.from_pretrained(path, torch_dtype=torch.float16)
    x, ctx = arr(4, 2, 4, 8, 8).half(), arr(5, 2, 5, 12).half()
    with torch.no_grad():
        out = half(x, 3, encoder_hidden_states=ctx).sample
    put("half/dtype", str(out.dtype))
    put("half/out", out)


@case
def trace_and_export() -> None:
    """``torch.jit.trace`` (outputs as dicts) and ``torch.export`` (the output class kept:
    diffusers registers it as a pytree node) of the UNet; the oracle's exported program,
    saved as a .pt2 file, loaded and run on both sides."""
    net = model("unet2d")
    x, t = arr(1, 2, 3, 8, 8), torch.tensor([10, 500])
    with torch.no_grad():
        traced = torch.jit.trace(net, (x, t), strict=False)
        out = traced(x, t)
        put("trace/type", type(out).__name__)
        put("trace/out", out["sample"])
        put("trace/other", traced(arr(2, 2, 3, 8, 8), torch.tensor([3, 4]))["sample"])
        program = torch.export.export(net, (x, t))
        out = program.module()(x, t)
        put("export/type", type(out).__name__)
        put("export/out", out.sample)
        path = os.path.join(OUT, "base", "unet2d.pt2")
        if SIDE == "oracle":
            torch.export.save(program, path)
        loaded = torch.export.load(path).module()
        put("export/loaded", loaded(arr(2, 2, 3, 8, 8), torch.tensor([3, 4])).sample)


@case
def generator_noise() -> None:
    """``generator=`` draws from torch's own stream: seeded runs repeat, per-sample
    generators give each sample its own noise (values differ from PyTorch's stream)."""
    pipe = DDIMPipeline(unet=pipeline_unet(), scheduler=DDIMScheduler(num_train_timesteps=100))
    pipe.set_progress_bar_config(disable=True)

    def images(generator: object) -> np.ndarray:
        return pipe(
            batch_size=2, generator=generator, num_inference_steps=2, output_type="np"
        ).images

    first = images(torch.Generator().manual_seed(0))
    put("gen/repeats", np.array_equal(first, images(torch.Generator().manual_seed(0))))
    put("gen/seeds_differ", not np.allclose(first, images(torch.Generator().manual_seed(1))))
    gens = [torch.Generator().manual_seed(s) for s in (3, 3)]
    pair = images(gens)
    put("gen/per_sample", np.allclose(pair[0], pair[1], atol=1e-6))
    put("gen/shape", np.array(first.shape))


def run_scheduler(prefix: str, sched: object, steps: int, order: int = 1) -> None:
    """``set_timesteps``, ``scale_model_input``, ``add_noise`` and a run of ``step``s with
    fixed model outputs (the same sample is denoised along the schedule)."""
    sched.set_timesteps(steps)
    put(prefix + "/timesteps", sched.timesteps)
    if getattr(sched, "sigmas", None) is not None:
        put(prefix + "/sigmas", sched.sigmas)
    sample = arr(20, 2, 3, 4, 4) * float(getattr(sched, "init_noise_sigma", 1.0))
    clean = arr(21, 2, 3, 4, 4)
    t_noise = sched.timesteps[:2]
    if hasattr(sched, "add_noise"):
        put(prefix + "/noised", sched.add_noise(clean, arr(22, 2, 3, 4, 4), t_noise))
    for i, t in enumerate(sched.timesteps):
        scale_input = getattr(sched, "scale_model_input", lambda x, t: x)
        scaled = scale_input(sample, t)
        model_output = 0.5 * scaled + arr(100 + i, 2, 3, 4, 4, scale=0.3)
        out = sched.step(model_output, t, sample)
        sample = out.prev_sample
        put(f"{prefix}/step{i}", sample)
        if getattr(out, "pred_original_sample", None) is not None:
            put(f"{prefix}/x0_{i}", out.pred_original_sample)


@case
def schedulers() -> None:
    patch_noise(
        30,
        "diffusers.schedulers.scheduling_ddpm",
        "diffusers.schedulers.scheduling_euler_ancestral_discrete",
    )
    run_scheduler("ddpm", DDPMScheduler(num_train_timesteps=100), 10)
    cfg = dict(num_train_timesteps=100, beta_schedule="squaredcos_cap_v2")
    run_scheduler("ddpm_cos", DDPMScheduler(variance_type="fixed_large", **cfg), 6)
    run_scheduler("ddim", DDIMScheduler(num_train_timesteps=100), 8)
    ddim = DDIMScheduler(
        prediction_type="v_prediction", clip_sample=False, rescale_betas_zero_snr=True
    )
    run_scheduler("ddim_v", ddim, 5)
    run_scheduler("euler", EulerDiscreteScheduler(num_train_timesteps=100), 8)
    euler = EulerDiscreteScheduler(use_karras_sigmas=True, timestep_spacing="trailing")
    run_scheduler("euler_karras", euler, 6)
    run_scheduler("euler_a", EulerAncestralDiscreteScheduler(), 5)
    run_scheduler("dpm", DPMSolverMultistepScheduler(num_train_timesteps=100), 8)
    dpm = DPMSolverMultistepScheduler(
        algorithm_type="dpmsolver", solver_order=3, final_sigmas_type="sigma_min"
    )
    run_scheduler("dpm3", dpm, 7)
    run_scheduler("pndm", PNDMScheduler(num_train_timesteps=100), 6)
    run_scheduler("pndm_prk", PNDMScheduler(skip_prk_steps=False), 4)
    patch_noise(
        31,
        "diffusers.schedulers.scheduling_lcm",
        "diffusers.schedulers.scheduling_tcd",
        "diffusers.schedulers.scheduling_k_dpm_2_ancestral_discrete",
    )
    for name in (
        "LMSDiscreteScheduler",
        "HeunDiscreteScheduler",
        "UniPCMultistepScheduler",
        "KDPM2DiscreteScheduler",
        "KDPM2AncestralDiscreteScheduler",
        "DEISMultistepScheduler",
        "DPMSolverSinglestepScheduler",
        "LCMScheduler",
        "TCDScheduler",
    ):
        run_scheduler(name, getattr(diffusers, name)(num_train_timesteps=100), 4)
    run_scheduler("edm_euler", diffusers.EDMEulerScheduler(), 4)
    flow = diffusers.FlowMatchEulerDiscreteScheduler(shift=3.0)
    run_scheduler("flow_match", flow, 5)
    noise, clean = arr(23, 3, 3, 4, 4), arr(24, 3, 3, 4, 4)
    ddpm = DDPMScheduler(num_train_timesteps=100)
    t = torch.tensor([0, 42, 99])
    put("sched/add_noise", ddpm.add_noise(clean, noise, t))
    put("sched/velocity", ddpm.get_velocity(clean, noise, t))
    put("sched/alphas_cumprod", ddpm.alphas_cumprod)


def pipeline_unet() -> UNet2DModel:
    return model("unet2d")


@case
def ddim_pipeline() -> None:
    patch_noise(40, "diffusers.pipelines.ddim.pipeline_ddim")
    pipe = DDIMPipeline(unet=pipeline_unet(), scheduler=DDIMScheduler(num_train_timesteps=100))
    pipe.set_progress_bar_config(disable=True)
    images = pipe(batch_size=2, num_inference_steps=5, eta=0.0, output_type="np").images
    put("ddim_pipe/images", images)
    out = pipe(batch_size=1, num_inference_steps=3, output_type="pt", return_dict=False)
    put("ddim_pipe/tensor", out[0])


@case
def ddpm_pipeline() -> None:
    patch_noise(
        41, "diffusers.pipelines.ddpm.pipeline_ddpm", "diffusers.schedulers.scheduling_ddpm"
    )
    sched = DDPMScheduler(num_train_timesteps=20)
    pipe = DDPMPipeline(unet=pipeline_unet(), scheduler=sched)
    pipe.set_progress_bar_config(disable=True)
    images = pipe(batch_size=2, num_inference_steps=20, output_type="np").images
    put("ddpm_pipe/images", images)
    path = os.path.join(OUT, "base", f"ddpm_pipe_{SIDE}")
    pipe.save_pretrained(path)
    again = DDPMPipeline.from_pretrained(path)
    put("ddpm_pipe/scheduler", type(again.scheduler).__name__)
    put("ddpm_pipe/config", again.scheduler.config.num_train_timesteps)
    same = all(
        torch.equal(a, b)
        for a, b in zip(again.unet.state_dict().values(), pipe.unet.state_dict().values())
    )
    put("ddpm_pipe/same_weights", same)


@case
def stable_diffusion_pipeline() -> None:
    """Text-to-image with the tiny conditional UNet and VAE: prompt embeddings and the
    initial latents fed in, classifier-free guidance, DPM-Solver++ and Euler."""
    from diffusers import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(
        vae=model("vae"),
        text_encoder=None,
        tokenizer=None,
        unet=model("unet_cond"),
        scheduler=DPMSolverMultistepScheduler(),
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipe.set_progress_bar_config(disable=True)
    put("sd/vae_scale_factor", pipe.vae_scale_factor)
    embeds = dict(prompt_embeds=arr(70, 2, 5, 12), negative_prompt_embeds=arr(71, 2, 5, 12))
    latents = arr(72, 2, 4, 8, 8)
    out = pipe(
        height=16,
        width=16,
        num_inference_steps=4,
        guidance_scale=5.0,
        latents=latents,
        output_type="np",
        **embeds,
    )
    put("sd/images", out.images)
    pipe.scheduler = EulerDiscreteScheduler.from_config(pipe.scheduler.config)
    out = pipe(
        height=16,
        width=16,
        num_inference_steps=3,
        guidance_scale=1.0,
        latents=latents,
        output_type="latent",
        prompt_embeds=embeds["prompt_embeds"],
    )
    put("sd/latents", out.images)


def sd_pipeline(cls: type, unet: str, **parts: object) -> object:
    """A Stable Diffusion pipeline ``cls`` of the tiny models, without text encoders."""
    pipe = cls(
        vae=model("vae"),
        text_encoder=None,
        tokenizer=None,
        unet=model(unet),
        scheduler=DDIMScheduler(clip_sample=False, steps_offset=1),
        **parts,
    )
    pipe.set_progress_bar_config(disable=True)
    return pipe


def tiny_sd_folder(path: str) -> None:
    """A whole Stable Diffusion folder: a CLIP tokenizer of bytes (and two merges), a tiny
    CLIP text encoder, the tiny UNet and VAE, a DDIM scheduler."""
    from diffusers import StableDiffusionPipeline
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    chars = list(bytes_to_unicode().values())
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    vocab.update(
        {
            c + end: 2 + i + 256 * j
            for j, end in enumerate(("", "</w>"))
            for i, c in enumerate(chars)
        }
    )
    merges = [("c", "a"), ("ca", "t</w>")]
    vocab.update({a + b: len(vocab) + i for i, (a, b) in enumerate(merges)})
    torch.manual_seed(0)
    config = CLIPTextConfig(
        vocab_size=len(vocab),
        hidden_size=12,
        intermediate_size=24,
        num_hidden_layers=2,
        num_attention_heads=2,
        max_position_embeddings=16,
        projection_dim=12,
    )
    StableDiffusionPipeline(
        vae=model("vae"),
        text_encoder=CLIPTextModel(config),
        tokenizer=CLIPTokenizer(vocab=vocab, merges=merges, model_max_length=16),
        unet=model("unet_cond"),
        scheduler=DDIMScheduler(clip_sample=False, steps_offset=1),
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    ).save_pretrained(path)


def prompt_to_image(prefix: str, path: str) -> None:
    """The Stable Diffusion folder at ``path`` loaded generically; prompts to images."""
    pipe = diffusers.DiffusionPipeline.from_pretrained(path)
    pipe.set_progress_bar_config(disable=True)
    put(prefix + "/class", type(pipe).__name__)
    put(prefix + "/ids", pipe.tokenizer(["a cat", "cat!"], padding="max_length").input_ids)
    embeds, negative = pipe.encode_prompt(["a cat", "cat!"], "cpu", 1, True, ["", "dog"])
    put(prefix + "/embeds", embeds)
    put(prefix + "/negative", negative)
    out = pipe(
        ["a cat", "cat!"],
        negative_prompt=["", "dog"],
        num_inference_steps=3,
        guidance_scale=4.0,
        latents=arr(83, 2, 4, 8, 8),
        output_type="np",
    )
    put(prefix + "/images", out.images)


@case
def text_to_image_folder() -> None:
    """A whole Stable Diffusion folder written by the oracle (tokenizer, CLIP text encoder,
    UNet, VAE, scheduler), loaded with ``DiffusionPipeline.from_pretrained``: token ids,
    prompt embeddings with classifier-free guidance, images from prompts."""
    path = os.path.join(OUT, "base", "sd")
    if SIDE == "oracle":
        tiny_sd_folder(path)
    prompt_to_image("sd_folder", path)
    # a textual-inversion embedding (safetensors), guidance rescaling, FreeU (torch.fft)
    from safetensors.torch import save_file

    pipe = diffusers.StableDiffusionPipeline.from_pretrained(path)
    pipe.set_progress_bar_config(disable=True)
    embedding = os.path.join(OUT, f"inversion_{SIDE}.safetensors")
    save_file({"emb_params": arr(84, 1, 12)}, embedding)
    pipe.load_textual_inversion(embedding, token="<sks>")
    put("sd_folder/inversion_ids", pipe.tokenizer("a <sks> cat").input_ids)
    put("sd_folder/inversion", pipe.encode_prompt("a <sks> cat", "cpu", 1, False)[0])
    latents = arr(85, 1, 4, 8, 8)
    out = pipe("a <sks>", num_inference_steps=2, latents=latents, guidance_rescale=0.3)
    put("sd_folder/rescaled", np.asarray(out.images[0]))
    pipe.enable_freeu(s1=0.9, s2=0.2, b1=1.2, b2=1.4)
    out = pipe("a <sks>", num_inference_steps=2, latents=latents, output_type="np")
    put("sd_folder/freeu", out.images)


@case
def image_to_image_pipelines() -> None:
    """img2img and inpainting: the image is encoded (a latent drawn from the VAE's
    distribution) and noised; the noise comes from NumPy through ``randn_tensor``."""
    from diffusers import StableDiffusionImg2ImgPipeline, StableDiffusionInpaintPipeline

    patch_noise(
        43,
        "diffusers.models.autoencoders.vae",
        "diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion_img2img",
        "diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion_inpaint",
    )
    parts = dict(safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    embeds = dict(prompt_embeds=arr(70, 1, 5, 12), negative_prompt_embeds=arr(71, 1, 5, 12))
    image = (arr(73, 1, 3, 16, 16).clamp(-1, 1) + 1) / 2
    pipe = sd_pipeline(StableDiffusionImg2ImgPipeline, "unet_cond", **parts)
    out = pipe(image=image, strength=0.6, num_inference_steps=5, output_type="np", **embeds)
    put("img2img/images", out.images)
    pipe = sd_pipeline(StableDiffusionInpaintPipeline, "unet_inpaint", **parts)
    mask = torch.zeros(1, 1, 16, 16)
    mask[..., 4:12, 3:10] = 1
    out = pipe(
        image=image,
        mask_image=mask,
        height=16,
        width=16,
        num_inference_steps=3,
        output_type="np",
        **embeds,
    )
    put("inpaint/images", out.images)


@case
def sdxl_pipeline() -> None:
    """SDXL's UNet (text-time additional embeddings, linear projections, two transformer
    layers) in its pipeline, with embeddings and latents fed in, and a step callback."""
    from diffusers import StableDiffusionXLPipeline

    pipe = sd_pipeline(StableDiffusionXLPipeline, "unet_xl", text_encoder_2=None, tokenizer_2=None)
    pipe.scheduler = EulerDiscreteScheduler()
    seen = []

    def on_step(pipe: object, i: int, t: torch.Tensor, tensors: dict) -> dict:
        seen.append(float(t))
        tensors["latents"] = tensors["latents"] * 0.95
        return tensors

    out = pipe(
        height=16,
        width=16,
        num_inference_steps=3,
        output_type="np",
        latents=arr(74, 1, 4, 8, 8),
        prompt_embeds=arr(75, 1, 5, 12),
        pooled_prompt_embeds=arr(76, 1, 6),
        negative_prompt_embeds=arr(77, 1, 5, 12),
        negative_pooled_prompt_embeds=arr(78, 1, 6),
        callback_on_step_end=on_step,
    )
    put("sdxl/images", out.images)
    put("sdxl/steps", np.array(seen))


@case
def lora_weights_files() -> None:
    """LoRA weights in diffusers' file format: the oracle saves them
    (``save_lora_weights``); both sides load them into a pipeline, scale, fuse, unload."""
    from diffusers import StableDiffusionPipeline
    from peft import LoraConfig
    from peft.utils import get_peft_model_state_dict

    parts = dict(safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    path = os.path.join(OUT, "base", "lora")
    if SIDE == "oracle":
        net = model("unet_cond")
        net.add_adapter(LoraConfig(r=2, lora_alpha=4, target_modules=["to_q", "to_v", "to_k"]))
        rng = np.random.default_rng(81)
        with torch.no_grad():
            for n, p in sorted(net.named_parameters(), key=lambda item: item[0]):
                if "lora_" in n:
                    p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.3))
        lora = get_peft_model_state_dict(net)
        StableDiffusionPipeline.save_lora_weights(path, unet_lora_layers=lora)
    pipe = sd_pipeline(StableDiffusionPipeline, "unet_cond", **parts)
    embeds = dict(prompt_embeds=arr(70, 1, 5, 12), negative_prompt_embeds=arr(71, 1, 5, 12))

    def images() -> np.ndarray:
        latents = arr(79, 1, 4, 8, 8)
        return pipe(num_inference_steps=2, output_type="np", latents=latents, **embeds).images

    put("lora_io/base", images())
    pipe.load_lora_weights(path, adapter_name="style")
    put("lora_io/loaded", images())
    pipe.set_adapters(["style"], adapter_weights=[0.5])
    put("lora_io/half", images())
    pipe.fuse_lora()
    pipe.unload_lora_weights()
    put("lora_io/fused", images())


@case
def training_utilities() -> None:
    """diffusers.optimization's learning-rate schedules, ``compute_snr``, and the image
    processor's resizing and normalising of a PIL image."""
    from diffusers.image_processor import VaeImageProcessor
    from diffusers.optimization import get_scheduler
    from diffusers.training_utils import compute_snr
    from PIL import Image

    for name in ("cosine", "linear", "cosine_with_restarts", "polynomial", "constant_with_warmup"):
        opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
        sched = get_scheduler(name, optimizer=opt, num_warmup_steps=2, num_training_steps=9)
        lrs = []
        for _ in range(9):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr()[0])
        put(f"utils/lr_{name}", np.array(lrs))
    put("utils/snr", compute_snr(DDPMScheduler(), torch.tensor([1, 500, 999])))
    processor = VaeImageProcessor(vae_scale_factor=2)
    pixels = np.random.default_rng(82).integers(0, 256, size=(17, 19, 3), dtype=np.uint8)
    image = processor.preprocess(Image.fromarray(pixels), height=16, width=16)
    put("utils/preprocessed", image)
    back = processor.postprocess(image, output_type="pil")[0]
    put("utils/postprocessed", np.asarray(back))


@case
def lora_adapter() -> None:
    """A peft LoRA adapter on the conditional UNet's attention (diffusers' ``add_adapter``):
    outputs, the adapter's gradients, fusing it into the weights."""
    from peft import LoraConfig

    net = model("unet_cond")
    cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["to_q", "to_k", "to_v", "to_out.0"])
    net.add_adapter(cfg)
    rng = np.random.default_rng(80)
    with torch.no_grad():
        for n, p in sorted(net.named_parameters(), key=lambda item: item[0]):
            if "lora_" in n:
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.2, dtype=p.dtype))
    trainable = sorted(n for n, p in net.named_parameters() if p.requires_grad)
    put("lora/trainable", np.array(trainable))
    x, ctx = arr(4, 2, 4, 8, 8), arr(5, 2, 5, 12)
    out = net(x, torch.tensor([3, 999]), encoder_hidden_states=ctx).sample
    put("lora/out", out)
    loss = F.mse_loss(out, arr(6, 2, 4, 8, 8))
    put("lora/loss", loss)
    loss.backward()
    params = dict(net.named_parameters())
    for n in trainable:
        put(f"lora/grad/{n}", params[n].grad)
    with torch.no_grad():
        net.disable_adapters()
        put("lora/disabled", net(x, 3, encoder_hidden_states=ctx).sample)
        net.enable_adapters()
        net.fuse_lora(lora_scale=0.5)
        put("lora/fused", net(x, 3, encoder_hidden_states=ctx).sample)


@case
def training_step() -> None:
    """DDPM's noise-prediction loss with gradient checkpointing, AdamW steps with gradient
    clipping and an EMA of the weights; then the weights and the averages."""
    net = model("unet2d").train()
    net.enable_gradient_checkpointing()
    sched = DDPMScheduler(num_train_timesteps=100)
    # (attention key biases get no gradient in exact arithmetic, a softmax ignores a shift
    # common to all scores: Adam would turn their rounding noise into whole steps)
    params = [p for n, p in net.named_parameters() if not n.endswith("to_k.bias")]
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=1e-2)
    ema = EMAModel(net.parameters(), decay=0.9, use_ema_warmup=True, power=0.75)
    for i in range(3):
        clean, noise = arr(50 + i, 2, 3, 8, 8), arr(60 + i, 2, 3, 8, 8)
        t = torch.tensor([7 + i, 70 - i])
        noisy = sched.add_noise(clean, noise, t)
        loss = F.mse_loss(net(noisy, t).sample, noise)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        ema.step(net.parameters())
        put(f"train/loss{i}", loss)
    for n, p in net.named_parameters():
        put(f"train/w/{n}", p)
    put("train/ema_decay", ema.get_decay(ema.optimization_step))
    ema.copy_to(net.parameters())
    for n, p in net.named_parameters():
        put(f"train/ema/{n}", p)


@case
def torch_save_state_dict() -> None:
    """A state dict moved through ``torch.save``/``torch.load`` and ``.bin`` folders."""
    path = os.path.join(OUT, "base", "unet_cond.pt")
    bin_path = os.path.join(OUT, "base", "unet_cond_bin")
    if SIDE == "oracle":
        torch.save(model("unet_cond").state_dict(), path)
        model("unet_cond").save_pretrained(bin_path, safe_serialization=False)
    cls, cfg = CONFIGS["unet_cond"]
    net = cls(**cfg)
    net.load_state_dict(torch.load(path, weights_only=True))
    x, ctx = arr(4, 2, 4, 8, 8), arr(5, 2, 5, 12)
    with torch.no_grad():
        put("pt/out", net(x, torch.tensor([3, 999]), encoder_hidden_states=ctx).sample)
        net = cls.from_pretrained(bin_path)
        put("pt/bin", net(x, torch.tensor([3, 999]), encoder_hidden_states=ctx).sample)


def own_path(name: str) -> str:
    return os.path.join(OUT, "cr", name)


@own
def own_models() -> None:
    """chainrule builds models (its own random weights) and a pipeline and saves them;
    the real diffusers loads them and gives chainrule's outputs."""
    if SIDE == "chainrule":
        torch.manual_seed(1)
        for name in ("unet2d", "vae"):
            cls, cfg = CONFIGS[name]
            cls(**cfg).save_pretrained(own_path(name))
        cls, cfg = CONFIGS["unet_cond"]
        cls(**cfg).save_pretrained(own_path("unet_cond"), safe_serialization=False)
        sched = DDIMScheduler(num_train_timesteps=50, clip_sample=False)
        pipe = DDIMPipeline(unet=UNet2DModel.from_pretrained(own_path("unet2d")), scheduler=sched)
        pipe.save_pretrained(own_path("pipe"))
        cls, cfg = CONFIGS["dit"]
        dit = cls(**cfg)
        dit.save_pretrained(own_path("dit"), max_shard_size="20KB")
        dit.to(torch.float16).save_pretrained(own_path("dit"), variant="fp16")
    x = arr(1, 2, 3, 8, 8)
    with torch.no_grad():
        put("own/unet2d", UNet2DModel.from_pretrained(own_path("unet2d"))(x, 3).sample)
        vae = AutoencoderKL.from_pretrained(own_path("vae"))
        put("own/vae", vae.decode(vae.encode(arr(7, 2, 3, 16, 16)).latent_dist.mode()).sample)
        net = UNet2DConditionModel.from_pretrained(own_path("unet_cond"))
        out = net(arr(4, 2, 4, 8, 8), 9, encoder_hidden_states=arr(5, 2, 5, 12)).sample
        put("own/unet_cond", out)
        dit = DiTTransformer2DModel.from_pretrained(own_path("dit"))
        put("own/dit_shards", len(os.listdir(own_path("dit"))) > 4)
        label = torch.tensor([1, 7])
        put(
            "own/dit",
            dit(arr(10, 2, 4, 8, 8), timestep=torch.tensor([5, 700]), class_labels=label).sample,
        )
        dit = DiTTransformer2DModel.from_pretrained(own_path("dit"), variant="fp16")
        put("own/dit_fp16_dtype", str(dit.dtype))
        put("own/dit_fp16", dit.pos_embed.proj.weight)
    if SIDE == "chainrule":  # (re-saved by chainrule: every component's files rewritten)
        diffusers.DiffusionPipeline.from_pretrained(
            os.path.join(OUT, "base", "sd")
        ).save_pretrained(own_path("sd"))
    prompt_to_image("own/sd", own_path("sd"))
    patch_noise(42, "diffusers.pipelines.ddim.pipeline_ddim")
    pipe = diffusers.DiffusionPipeline.from_pretrained(own_path("pipe"))
    put("own/pipe_class", type(pipe).__name__)
    pipe.set_progress_bar_config(disable=True)
    put("own/pipe_sched", pipe.scheduler.config.num_train_timesteps)
    put("own/pipe", pipe(batch_size=1, num_inference_steps=4, output_type="np").images)


CASES.run_side(OUT, "diffusers", SIDE)
