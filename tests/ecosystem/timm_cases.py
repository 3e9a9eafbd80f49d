"""The cases of test_timm.py, one script run three times (not collected by pytest):

- ``python timm_cases.py oracle DIR``: timm on the real PyTorch; randomises every model's
  state, saves the state dicts (and inputs) to DIR, writes DIR/oracle.npz;
- ``chainrule run timm_cases.py chainrule DIR``: the same timm calls on chainrule, loading
  the oracle's state dicts; writes DIR/chainrule.npz and saves its own checkpoints;
- ``python timm_cases.py reverse DIR``: the real timm loads chainrule's checkpoints and
  writes DIR/reverse.npz.

Every result is a NumPy array under a key ``section/case/what``; the test compares the
files key by key.
"""

# ruff: noqa: E402  (torchvision is patched before timm imports it)
from __future__ import annotations

import json
import os
import random
import sys

import numpy as np
import safetensors.torch

MODE, DIR = sys.argv[1], sys.argv[2]
ORACLE = MODE != "chainrule"

if ORACLE:
    # PyPI's torchvision wheel does not register its compiled ops on the CPU build of
    # PyTorch; its Python parts (all that timm uses) import with the fake kernels skipped.
    import torch.library

    _register_fake = torch.library.register_fake
    torch.library.register_fake = lambda *args, **kwargs: lambda fn: fn
    import torchvision  # noqa: F401

    torch.library.register_fake = _register_fake

import timm
import timm.data
import timm.data.mixup
import timm.layers
import timm.layers.cbam
import timm.layers.norm_act
import timm.loss
import timm.models
import timm.optim
import timm.scheduler
import torch
import torch.nn.functional as F
from torch import nn

torch.set_num_threads(1)
OUT: dict = {}


def put(key: str, value) -> None:
    """Record a result (a tensor, a nested list of numbers, a string)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    OUT[key] = np.asarray(value)


def path(name: str) -> str:
    return os.path.join(DIR, name)


def tensor(*shape, seed: int = 0, scale: float = 1.0) -> torch.Tensor:
    rng = np.random.default_rng(seed)
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def randomise(module: nn.Module) -> None:
    """Move every constant-initialised parameter and norm statistic off its initial value
    (zero-init residual branches, unit norm weights), so that every part of the model
    shapes the output."""
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, value in module.state_dict().items():
            if not value.is_floating_point() or value.numel() == 0:
                continue
            if name.endswith("running_var"):
                value.copy_(torch.rand(value.shape, generator=gen) + 0.5)
            elif name.endswith("running_mean"):
                value.copy_(torch.randn(value.shape, generator=gen) * 0.1)
            elif value.numel() == 1 or bool((value == value.flatten()[0]).all()):
                value.add_(torch.randn(value.shape, generator=gen) * 0.1)


def share_state(module: nn.Module, name: str) -> None:
    """The oracle saves its (randomised) state; chainrule loads it."""
    if ORACLE:
        randomise(module)
        torch.save(module.state_dict(), path(name + ".pt"))
    else:
        module.load_state_dict(torch.load(path(name + ".pt")))


SAMPLE = 256


def put_grad(key: str, grad: torch.Tensor) -> None:
    """A gradient: in full when small, else a fixed random sample of its entries with its
    sum and sum of squares."""
    flat = grad.detach().reshape(-1)
    if flat.numel() <= 4 * SAMPLE:
        put(key, flat)
        return
    idx = np.random.default_rng(flat.numel()).choice(flat.numel(), SAMPLE, replace=False)
    put(key, flat[torch.from_numpy(idx)])
    put(key + ":sq", (flat.double() ** 2).sum())


# ---------------------------------------------------------------------------------- models
MODELS = [
    ("resnet18", {}, 64),
    ("resnet26d", {}, 64),
    ("efficientnet_b0", {}, 64),
    ("mobilenetv3_small_100", {}, 64),
    ("convnext_atto", {}, 64),
    ("vit_tiny_patch16_224", {"img_size": 32, "depth": 4}, 32),
    ("deit_tiny_distilled_patch16_224", {"img_size": 32, "depth": 3}, 32),
    (
        "swin_tiny_patch4_window7_224",
        {"img_size": 56, "embed_dim": 24, "depths": (1, 1, 2, 1), "num_heads": (1, 2, 2, 2)},
        56,
    ),
    ("regnetx_002", {}, 64),
    ("densenet121", {}, 64),
    # (timm's mixer_s16_224 at 4 blocks of 256: its registered configs cannot be narrowed)
    ("mlp_mixer.MlpMixer", {"img_size": 32, "num_blocks": 4, "embed_dim": 256}, 32),
    ("levit_128s", {"img_size": 64}, 64),
    ("ghostnet_050", {}, 64),
    ("rexnet_100", {}, 64),
    ("cs3darknet_s", {}, 64),
    ("maxvit_pico_rw_256", {"img_size": 64}, 64),
    ("coatnet_pico_rw_224", {"img_size": 64}, 64),
    ("fastvit_t8", {}, 64),
    ("efficientvit_b0", {}, 64),
    ("mobilevit_xxs", {}, 64),
    ("edgenext_xx_small", {}, 64),
    ("mobilenetv4_conv_small", {}, 64),
    ("eva02_tiny_patch14_224", {"img_size": 28, "depth": 2}, 28),
]


def build(name: str, **kwargs) -> nn.Module:
    """``timm.create_model(name)``, or a model class of timm.models (``module.Class``)."""
    if "." in name:
        module, cls = name.split(".")
        return getattr(getattr(timm.models, module), cls)(**kwargs)
    return timm.create_model(name, pretrained=False, **kwargs)


def run_model(name: str, kwargs: dict, size: int) -> None:
    torch.manual_seed(0)
    model = build(name, num_classes=5, **kwargs)
    share_state(model, "w_" + name)
    x = tensor(4, 3, size, size, seed=size)
    target = torch.tensor([1, 3, 0, 4])
    key = "model/" + name
    model.eval()
    with torch.no_grad():
        put(key + "/eval", model(x))
        feats = model.forward_features(x)
        put(key + "/features", feats)
        put(key + "/pre_logits", model.forward_head(feats, pre_logits=True))
    # training in float64 (gradients through deep nets compared tightly), without the
    # random parts: dropout and drop path off
    model.drop_rate = 0.0  # (ghostnet's functional dropout)
    for module in model.modules():
        if isinstance(module, nn.Dropout):
            module.p = 0.0
        if isinstance(module, timm.layers.DropPath):
            module.drop_prob = 0.0
    model.double().train()
    logits = model(x.double())
    loss = F.cross_entropy(logits, target)
    loss.backward()
    put(key + "/train", logits)
    for pname, param in model.named_parameters():
        if param.grad is not None:
            put_grad(key + "/grad/" + pname, param.grad)
    for bname, buf in model.named_buffers():
        if bname.endswith("running_mean") or bname.endswith("running_var"):
            put(key + "/buffer/" + bname, buf)
    model.float().eval()
    model.reset_classifier(0)
    with torch.no_grad():
        put(key + "/reset0", model(x))
    before = {k: v.shape for k, v in model.state_dict().items()}
    model.reset_classifier(7)
    head = {k: v for k, v in model.state_dict().items() if before.get(k) != v.shape}
    if ORACLE:
        torch.save(head, path("w7_" + name + ".pt"))
    else:
        assert set(head) == set(torch.load(path("w7_" + name + ".pt")))
        model.load_state_dict(torch.load(path("w7_" + name + ".pt")), strict=False)
    with torch.no_grad():
        put(key + "/reset7", model(x))
    put(key + "/num_features", model.num_features)


FEATURES = [
    ("efficientnet_b0", {"out_indices": (1, 2, 4)}, 64),
    ("convnext_atto", {}, 64),
    ("regnetx_002", {}, 64),
    ("mobilenetv3_small_100", {}, 64),
    ("cs3darknet_s", {"out_indices": (2, 3)}, 64),
]


def run_features(name: str, kwargs: dict, size: int) -> None:
    torch.manual_seed(0)
    model = timm.create_model(name, pretrained=False, features_only=True, **kwargs)
    share_state(model, "f_" + name)
    model.eval()
    key = "features/" + name
    with torch.no_grad():
        for i, f in enumerate(model(tensor(2, 3, size, size, seed=7))):
            put(f"{key}/{i}", f)
    put(key + "/channels", model.feature_info.channels())
    put(key + "/reduction", model.feature_info.reduction())
    put(key + "/module_name", model.feature_info.module_name())


# ------------------------------------------------------------------------------ extras
def train_grads(model: nn.Module, x: torch.Tensor, key: str) -> None:
    """A float64 training step's logits and parameter gradients."""
    model.double().train()
    logits = model(x.double())
    F.cross_entropy(logits, torch.arange(len(x)) % 3).backward()
    put(key + "/train", logits)
    for pname, param in model.named_parameters():
        if param.grad is not None:
            put_grad(key + "/grad/" + pname, param.grad)


def run_extras() -> None:
    """forward_intermediates, features_only through it and through torch.fx, grad
    checkpointing, torch.compile, channels_last, reparameterisation, autocast."""
    x = tensor(2, 3, 32, 32, seed=61)
    x64 = tensor(2, 3, 64, 64, seed=62)
    torch.manual_seed(0)
    vit = build("vit_tiny_patch16_224", img_size=32, depth=3, num_classes=4)
    share_state(vit, "x_vit")
    vit.eval()
    with torch.no_grad():
        final, inter = vit.forward_intermediates(x, indices=2)
        put("extra/intermediates/final", final)
        for i, t in enumerate(inter):
            put(f"extra/intermediates/{i}", t)
        put("extra/compile", torch.compile(vit)(x))
    fvit = build(
        "vit_tiny_patch16_224", img_size=32, depth=3, features_only=True, out_indices=(1, 2)
    )
    share_state(fvit, "x_fvit")
    with torch.no_grad():
        for i, t in enumerate(fvit.eval()(x)):
            put(f"extra/vit_features/{i}", t)
    torch.manual_seed(0)
    fx = build("resnet10t", features_only=True, feature_cls="fx", out_indices=(1, 3))
    share_state(fx, "x_fx")
    with torch.no_grad():
        for i, t in enumerate(fx.eval()(x64)):
            put(f"extra/fx_features/{i}", t)
    res = build("resnet10t", num_classes=4)
    res.load_state_dict(torch.load(path("ckpt_plain.pth")))  # (run_checkpoints' weights)
    res.eval()
    extractor = timm.models.create_feature_extractor(
        res, return_nodes={"layer1": "a", "layer3.0.conv1": "b", "fc": "c"}
    )
    with torch.no_grad():
        for name, t in extractor(x64).items():
            put(f"extra/fx_extractor/{name}", t)
        put(
            "extra/channels_last",
            res.to(memory_format=torch.channels_last)(x64.to(memory_format=torch.channels_last)),
        )
        with torch.autocast("cpu", dtype=torch.bfloat16):
            put("extra/autocast_resnet", res(x64).float())
            put("extra/autocast_vit", vit(x).float())
    res.to(memory_format=torch.contiguous_format)
    res.set_grad_checkpointing(True)
    train_grads(res, x64, "extra/checkpointing_resnet")
    vit.set_grad_checkpointing(True)
    train_grads(vit, x, "extra/checkpointing_vit")
    fast = build("fastvit_t8", num_classes=5)
    fast.load_state_dict(torch.load(path("w_fastvit_t8.pt")))  # (run_model's weights)
    fast.eval()
    with torch.no_grad():
        put("extra/reparam/before", fast(x64))
        fused = timm.utils.reparameterize_model(fast)
        put("extra/reparam/after", fused(x64))
        put("extra/reparam/params", sum(p.numel() for p in fused.parameters()))


def run_loader() -> None:
    """An image folder through create_dataset and create_loader (evaluation transform)."""
    root = path("images")
    if ORACLE:
        for i in range(5):
            os.makedirs(os.path.join(root, f"class{i % 2}"), exist_ok=True)
            image(40 + 4 * i, 50, 100 + i).save(os.path.join(root, f"class{i % 2}", f"{i}.png"))
    dataset = timm.data.create_dataset("", root=root)
    put("loader/classes", len(dataset))
    loader = timm.data.create_loader(
        dataset,
        input_size=(3, 32, 32),
        batch_size=2,
        is_training=False,
        use_prefetcher=False,
        num_workers=0,
        crop_pct=0.9,
    )
    for i, (images, targets) in enumerate(loader):
        put(f"loader/{i}/images", images)
        put(f"loader/{i}/targets", targets)
    # the prefetching loader (uint8 batches by fast_collate, normalised on the device)
    loader = timm.data.create_loader(
        dataset,
        input_size=(3, 32, 32),
        batch_size=2,
        is_training=False,
        use_prefetcher=True,
        device=torch.device("cpu"),
        num_workers=0,
        crop_pct=0.9,
    )
    for i, (images, targets) in enumerate(loader):
        put(f"loader/prefetch{i}/images", images)
        put(f"loader/prefetch{i}/targets", targets)


# -------------------------------------------------------------------------- checkpoints
def run_checkpoints() -> None:
    """Checkpoints in timm's formats: saved by the real timm, loaded by chainrule's
    ``load_checkpoint``, ``create_model(checkpoint_path=)`` and ``pretrained_cfg_overlay``
    (and the reverse direction in ``reverse``)."""
    x = tensor(2, 3, 64, 64, seed=11)
    torch.manual_seed(0)
    model = timm.create_model("resnet10t", num_classes=4)
    if ORACLE:
        randomise(model)
        state = {"module." + k: v for k, v in model.state_dict().items()}
        torch.save({"epoch": 3, "arch": "resnet10t", "state_dict": state}, path("ckpt_train.pth"))
        torch.save(model.state_dict(), path("ckpt_plain.pth"))
        safetensors.torch.save_file(model.state_dict(), path("ckpt.safetensors"))
    else:
        timm.models.load_checkpoint(model, path("ckpt_train.pth"))
    model.eval()
    with torch.no_grad():
        put("ckpt/load_checkpoint", model(x))
        made = timm.create_model(
            "resnet10t", num_classes=4, checkpoint_path=path("ckpt_plain.pth")
        ).eval()
        put("ckpt/checkpoint_path", made(x))
        pre = timm.create_model(
            "resnet10t",
            pretrained=True,
            num_classes=4,
            pretrained_cfg_overlay={"file": path("ckpt_plain.pth"), "num_classes": 4},
        ).eval()
        put("ckpt/pretrained_file", pre(x))
        timm.models.load_checkpoint(made, path("ckpt.safetensors"))
        put("ckpt/safetensors", made(x))
    if MODE == "chainrule":
        # chainrule's own model and checkpoint, for the real timm to load (``reverse``)
        torch.manual_seed(5)
        mine = timm.create_model("convnext_atto", num_classes=3).eval()
        torch.save({"epoch": 1, "state_dict": mine.state_dict()}, path("mine_convnext.pth"))
        with torch.no_grad():
            put("reverse/convnext_atto", mine(x))
        model.train()
        F.cross_entropy(model(x), torch.tensor([0, 2])).backward()
        opt = timm.optim.create_optimizer_v2(model, "sgd", lr=0.1, momentum=0.9)
        opt.step()
        torch.save(model.state_dict(), path("mine_r10.pth"))
        model.eval()
        with torch.no_grad():
            put("reverse/resnet10t", model(x))
        safetensors.torch.save_file(mine.state_dict(), path("mine_convnext.safetensors"))
        torch.manual_seed(0)
        tiny = Tiny()
        share_state(tiny, "tiny")
        opt = timm.optim.create_optimizer_v2(tiny, "adamw", lr=0.01)
        F.cross_entropy(tiny(tensor(4, 3, 8, 8, seed=21)), torch.tensor([0, 2, 1, 2])).backward()
        opt.step()
        torch.save(
            {"model": tiny.state_dict(), "optimizer": opt.state_dict()}, path("mine_tiny.pth")
        )
        for name, value in opt.state_dict()["state"].items():
            put(f"reverse/adamw/{name}/exp_avg_sq", value["exp_avg_sq"])


def run_reverse() -> None:
    x = tensor(2, 3, 64, 64, seed=11)
    mine = timm.create_model("convnext_atto", num_classes=3).eval()
    timm.models.load_checkpoint(mine, path("mine_convnext.pth"))
    model = timm.create_model("resnet10t", num_classes=4).eval()
    model.load_state_dict(torch.load(path("mine_r10.pth")))
    with torch.no_grad():
        put("reverse/convnext_atto", mine(x))
        put("reverse/resnet10t", model(x))
        timm.models.load_checkpoint(mine, path("mine_convnext.safetensors"))
        put("reverse/convnext_atto_safetensors", mine(x))
    tiny = Tiny()
    saved = torch.load(path("mine_tiny.pth"))
    tiny.load_state_dict(saved["model"])
    opt = timm.optim.create_optimizer_v2(tiny, "adamw", lr=0.01)
    opt.load_state_dict(saved["optimizer"])
    for name, value in opt.state_dict()["state"].items():
        put(f"reverse/adamw/{name}/exp_avg_sq", value["exp_avg_sq"])
    put("reverse/opt_step", opt.state_dict()["state"][0]["step"])


# -------------------------------------------------------------------------------- data
def image(h: int, w: int, seed: int):
    from PIL import Image

    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))


def run_data() -> None:
    model = timm.create_model("resnet18", num_classes=5)
    config = timm.data.resolve_data_config({}, model=model)
    put("data/config", json.dumps(config, sort_keys=True))
    vit_cfg = timm.data.resolve_model_data_config(
        timm.create_model("vit_tiny_patch16_224", img_size=32)
    )
    put("data/config_vit", json.dumps(vit_cfg, sort_keys=True))
    img = image(90, 120, 0)
    put("data/eval_default", timm.data.create_transform(**config)(img))
    for i, kwargs in enumerate(
        [
            {"input_size": 48, "crop_pct": 0.9, "interpolation": "bilinear"},
            {"input_size": (3, 40, 56), "crop_mode": "squash", "interpolation": "bicubic"},
            {"input_size": 48, "crop_mode": "border", "crop_pct": 1.0},
            {"input_size": 48, "mean": (0.5, 0.5, 0.5), "std": (0.25, 0.25, 0.25)},
        ]
    ):
        put(f"data/eval_{i}", timm.data.create_transform(**kwargs)(img))
    train = timm.data.create_transform(
        48,
        is_training=True,
        hflip=0.0,
        color_jitter=None,
        auto_augment="rand-m9-mstd0.5-inc1",
        re_prob=0.5,
        re_mode="const",
    )
    put("data/train_repr", str(train))
    random.seed(3)
    np.random.seed(3)  # (RandAugment picks its ops with NumPy)
    put("data/train_aug", torch.stack([train(image(70, 60, s)) for s in range(4)]))
    x = tensor(4, 3, 16, 16, seed=5)
    target = torch.tensor([0, 1, 2, 4])
    for mode in ("batch", "pair", "elem"):
        for alphas in ((0.8, 0.0), (0.0, 1.0), (0.8, 1.0)):
            np.random.seed(9)
            mix = timm.data.Mixup(
                mixup_alpha=alphas[0],
                cutmix_alpha=alphas[1],
                mode=mode,
                label_smoothing=0.1,
                num_classes=5,
            )
            xm, ym = mix(x.clone(), target)
            put(f"data/mixup_{mode}_{alphas}_x", xm)
            put(f"data/mixup_{mode}_{alphas}_y", ym)
    put("data/mixup_target", timm.data.mixup.mixup_target(target, 5, lam=0.7, smoothing=0.1))


# ------------------------------------------------------------------------- optimizers
OPTIMIZERS = [
    ("sgd", {"momentum": 0.9}),
    ("nesterov", {}),
    ("momentum", {}),
    ("adam", {}),
    ("adamw", {}),
    ("nadamw", {}),
    ("radam", {}),
    ("lamb", {}),
    ("lambc", {}),
    ("lars", {}),
    ("adabelief", {}),
    ("adafactor", {}),
    ("adafactorbv", {}),
    ("lion", {}),
    ("madgrad", {}),
    ("adan", {}),
    ("novograd", {}),
    ("rmsproptf", {}),
    ("rmsprop", {}),
    ("sgdp", {}),
    ("adamp", {}),
    ("adopt", {}),
    ("laprop", {}),
    ("mars", {}),
    ("adagrad", {}),
    ("adamax", {}),
    ("cadamw", {}),
]


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, bias=False)  # (a bias before BN has no gradient)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(F.relu(self.bn(self.conv(x))).flatten(1))


def run_optim() -> None:
    x = tensor(4, 3, 8, 8, seed=21)
    target = torch.tensor([0, 2, 1, 2])
    for name, kwargs in OPTIMIZERS:
        torch.manual_seed(0)
        model = Tiny()
        share_state(model, "tiny")
        opt = timm.optim.create_optimizer_v2(model, name, lr=0.01, weight_decay=0.05, **kwargs)
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(model(x), target).backward()
            opt.step()
        for pname, param in model.named_parameters():
            put(f"optim/{name}/{pname}", param)
        put(
            f"optim/{name}/groups",
            json.dumps([[g["lr"], g["weight_decay"], len(g["params"])] for g in opt.param_groups]),
        )
    vit = timm.create_model("vit_tiny_patch16_224", img_size=32, depth=3, num_classes=2)
    opt = timm.optim.create_optimizer_v2(vit, "adamw", lr=1e-3, weight_decay=0.05, layer_decay=0.7)
    put(
        "optim/layer_decay",
        json.dumps(
            [
                [g["lr"], g["weight_decay"], g["lr_scale"], len(g["params"])]
                for g in opt.param_groups
            ]
        ),
    )


SCHEDULERS = [
    ("cosine", {"warmup_epochs": 3, "warmup_lr": 1e-4, "min_lr": 1e-5}),
    ("cosine", {"cycle_limit": 2, "cycle_decay": 0.5, "cooldown_epochs": 2}),
    ("tanh", {"warmup_epochs": 2}),
    ("step", {"decay_epochs": 4, "decay_rate": 0.5}),
    ("multistep", {"decay_milestones": [3, 7], "decay_rate": 0.2}),
    ("poly", {"warmup_epochs": 1, "min_lr": 1e-4}),
    ("plateau", {"patience_epochs": 1, "decay_rate": 0.5, "warmup_epochs": 1}),
    ("cosine", {"step_on_epochs": False, "updates_per_epoch": 4, "warmup_epochs": 1}),
]


def run_schedulers() -> None:
    for i, (name, kwargs) in enumerate(SCHEDULERS):
        model = nn.Linear(2, 2)
        opt = timm.optim.create_optimizer_v2(model, "sgd", lr=0.1, momentum=0.9)
        sched, epochs = timm.scheduler.create_scheduler_v2(opt, name, num_epochs=12, **kwargs)
        lrs = []
        metric = [1.0, 0.9, 0.9, 0.9, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]
        for epoch in range(epochs):
            if kwargs.get("step_on_epochs") is False:
                for it in range(4):
                    sched.step_update(epoch * 4 + it)
                    lrs.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step(epoch + 1, metric[epoch % len(metric)])
            lrs.append(opt.param_groups[0]["lr"])
        put(f"sched/{i}_{name}", np.array(lrs + [epochs], dtype=np.float64))


# ------------------------------------------------------------------------------ losses
def run_losses() -> None:
    logits0 = tensor(6, 5, seed=31, scale=2.0)
    target = torch.tensor([0, 4, 2, 2, 1, 3])
    soft = torch.softmax(tensor(6, 5, seed=32), -1)
    multi = (tensor(6, 5, seed=33) > 0).float()
    cases = [
        ("ls", timm.loss.LabelSmoothingCrossEntropy(0.1), target),
        ("soft", timm.loss.SoftTargetCrossEntropy(), soft),
        ("bce", timm.loss.BinaryCrossEntropy(smoothing=0.1), target),
        ("bce_soft", timm.loss.BinaryCrossEntropy(target_threshold=0.3), soft),
        ("bce_sum", timm.loss.BinaryCrossEntropy(reduction="sum", pos_weight=2.0), target),
        ("jsd", timm.loss.JsdCrossEntropy(num_splits=3, smoothing=0.1), target[:2]),
        ("asl_multi", timm.loss.AsymmetricLossMultiLabel(), multi),
        ("asl_single", timm.loss.AsymmetricLossSingleLabel(), target),
    ]
    for name, loss_fn, tgt in cases:
        logits = logits0.clone().requires_grad_()
        loss = loss_fn(logits, tgt)
        loss.backward()
        put(f"loss/{name}", loss)
        put(f"loss/{name}/grad", logits.grad)


# ------------------------------------------------------------------------------ layers
def run_layers() -> None:
    L = timm.layers
    x = tensor(2, 8, 9, 9, seed=41)
    tokens = tensor(2, 5, 16, seed=42)
    modules = {
        "conv_same": (L.create_conv2d(8, 6, 3, stride=2, padding="same"), x),
        "conv_tf_same": (L.Conv2dSame(8, 6, 4, stride=2), x),
        "std_conv": (L.StdConv2d(8, 6, 3, padding=1), x),
        "std_conv_same": (L.StdConv2dSame(8, 6, 3, stride=2, padding="SAME"), x),
        "mixed_conv": (L.MixedConv2d(8, 8, [3, 5], padding=""), x),
        "cond_conv": (L.CondConv2d(8, 6, 3, padding=1, num_experts=2), (x, tensor(2, 2, seed=3))),
        "blur_pool": (L.BlurPool2d(8, filt_size=3, stride=2), x),
        "avgmax": (L.SelectAdaptivePool2d(pool_type="avgmax", flatten=True), x),
        "catavgmax": (L.SelectAdaptivePool2d(pool_type="catavgmax", flatten=True), x),
        "max_same": (L.create_pool2d("max", 3, stride=2, padding="same"), x),
        "avg_same": (L.create_pool2d("avg", 3, stride=2, padding="same"), x),
        "se": (L.SqueezeExcite(8, rd_ratio=0.25), x),
        "eca": (L.EcaModule(8), x),
        "cbam": (timm.layers.cbam.CbamModule(8, rd_ratio=0.5), x),
        "global_context": (L.GlobalContext(8, rd_ratio=0.5), x),
        "ln2d": (L.LayerNorm2d(8), x),
        "gn1": (L.GroupNorm1(8), x),
        "rms": (L.RmsNorm(16), tokens),
        "bn_act": (L.BatchNormAct2d(8, act_layer="silu"), x),
        "gn_act": (L.GroupNormAct(8, num_groups=4, act_layer="gelu"), x),
        "frozen_bn": (timm.layers.norm_act.FrozenBatchNormAct2d(8), x),
        "mlp": (L.Mlp(16, 24, act_layer=nn.GELU), tokens),
        "glu_mlp": (L.GluMlp(16, 24), tokens),
        "swiglu": (L.SwiGLU(16, 24), tokens),
        "attention": (
            L.Attention(16, num_heads=2, qkv_bias=True, qk_norm=True, norm_layer=nn.LayerNorm),
            tokens,
        ),
        "attn_pool": (L.AttentionPoolLatent(16, num_heads=2), tokens),
        "patch_embed": (
            L.PatchEmbed(img_size=16, patch_size=4, in_chans=8, embed_dim=12),
            tensor(2, 8, 16, 16, seed=43),
        ),
        "layer_scale": (L.LayerScale(16, init_values=0.5), tokens),
        "norm_mlp_head": (L.NormMlpClassifierHead(8, 3, hidden_size=6), x),
        "classifier_head": (L.ClassifierHead(8, 3, pool_type="avg"), x),
        "split_attn": (L.SplitAttn(8, 8, kernel_size=3, padding=1, radix=2), x),
        "selective_kernel": (L.SelectiveKernel(8, 8), x),
    }
    for act in (
        "swish",
        "hard_swish",
        "hard_sigmoid",
        "mish",
        "gelu_tanh",
        "quick_gelu",
        "prelu",
        "hard_mish",
        "tanh",
        "relu6",
        "sigmoid",
        "celu",
        "elu",
        "leaky_relu",
    ):
        modules["act_" + act] = (L.create_act_layer(act), x)
    for name, (module, inp) in modules.items():
        torch.manual_seed(0)
        share_state(module, "layer_" + name)
        inputs = [inp] if isinstance(inp, torch.Tensor) else list(inp)
        # training (batch statistics, gradients) in float64, evaluation in float32
        inputs = [t.double().requires_grad_() for t in inputs]
        module.double().train()
        y = module(*inputs)
        y.pow(2).sum().backward()
        put(f"layer/{name}/train", y)
        put(f"layer/{name}/grad", inputs[0].grad)
        for pname, param in module.named_parameters():
            if param.grad is not None:
                put(f"layer/{name}/pgrad/{pname}", param.grad)
        module.float().eval()
        with torch.no_grad():
            put(f"layer/{name}/eval", module(*[t.float() for t in inputs]))
    # DropPath: identity in eval; in training each sample is dropped or scaled by 1/keep
    drop = L.DropPath(0.5)
    drop.eval()
    put("layer/drop_path/eval", drop(x))
    drop.train()
    y = drop(x)
    kept = y.flatten(1).abs().sum(1) > 0
    scaled = torch.where(kept[:, None, None, None], x * 2, torch.zeros_like(x))
    put("layer/drop_path/train_is_drop_or_scale", bool(torch.equal(y, scaled)))
    put("layer/drop_path/repr", repr(drop))
    put("layer/make_divisible", [L.make_divisible(v) for v in (3, 10, 37, 100.5)])
    put("layer/to_2tuple", L.to_2tuple(3))
    pos = tensor(1, 1 + 16, 12, seed=44)
    put(
        "layer/resample_abs_pos_embed",
        L.resample_abs_pos_embed(pos, new_size=(6, 5), old_size=(4, 4), num_prefix_tokens=1),
    )
    put(
        "layer/resample_patch_embed",
        L.resample_patch_embed(tensor(12, 3, 4, 4, seed=45), new_size=[6, 6]),
    )
    put("layer/rope", torch.stack(L.build_rotary_pos_embed([4, 4], dim=16)))


# -------------------------------------------------------------------------------- misc
def run_misc() -> None:
    put("list/all", timm.list_models())
    put("list/resnet_pretrained", timm.list_models("resnet*", pretrained=True))
    put("list/exclude", timm.list_models(["vit_*", "deit*"], exclude_filters=["*_384*"]))
    put("list/modules", timm.list_modules())
    put("list/is_model", [timm.is_model("resnet18"), timm.is_model("nope")])
    put(
        "list/pretrained_cfg",
        json.dumps(
            timm.models.get_pretrained_cfg("resnet18").to_dict(), sort_keys=True, default=str
        ),
    )
    logits = tensor(6, 5, seed=51)
    target = torch.tensor([0, 4, 2, 2, 1, 3])
    put("misc/accuracy", torch.stack(timm.utils.accuracy(logits, target, topk=(1, 3))))
    torch.manual_seed(0)
    model = Tiny()
    share_state(model, "tiny")
    ema = timm.utils.ModelEmaV3(model, decay=0.9)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1.5)
    ema.update(model, step=10)
    for name, value in ema.module.state_dict().items():
        put("misc/ema/" + name, value)
    put(
        "misc/param_count",
        sum(p.numel() for p in timm.create_model("efficientnet_b0").parameters()),
    )
    x = tensor(4, 3, 8, 8, seed=21)
    target = torch.tensor([0, 2, 1, 2])
    for mode, value in (("norm", 0.05), ("value", 0.01), ("agc", 0.02)):
        model.zero_grad()
        F.cross_entropy(model(x), target).backward()
        timm.utils.dispatch_clip_grad(model.parameters(), value, mode=mode)
        for name, param in model.named_parameters():
            put(f"misc/clip_{mode}/{name}", param.grad)
    scaler = timm.utils.NativeScaler(device="cpu")
    opt = timm.optim.create_optimizer_v2(model, "sgd", lr=0.1)
    scaler(F.cross_entropy(model(x), target), opt, clip_grad=0.1, parameters=model.parameters())
    put("misc/native_scaler/state", json.dumps(scaler.state_dict(), sort_keys=True))
    for name, param in model.named_parameters():
        put(f"misc/native_scaler/{name}", param)
    res = timm.create_model("resnet10t")
    timm.utils.freeze(res, ["conv1", "layer1"])
    put("misc/freeze", [p.requires_grad for p in res.parameters()])
    put("misc/frozen_bn", str(type(res.layer1[0].bn1).__name__))
    # a DeiT checkpoint at 64 pixels loaded at 32: timm resamples the position embedding
    if ORACLE:
        torch.manual_seed(0)
        vit64 = timm.create_model("deit_tiny_patch16_224", img_size=64, depth=2, num_classes=3)
        randomise(vit64)
        torch.save(vit64.state_dict(), path("vit64.pth"))
    vit32 = timm.create_model(
        "deit_tiny_patch16_224",
        img_size=32,
        depth=2,
        num_classes=3,
        pretrained=True,
        pretrained_cfg_overlay={"file": path("vit64.pth"), "num_classes": 3},
    ).eval()
    put("misc/resampled_pos_embed", vit32.pos_embed)
    with torch.no_grad():
        put("misc/resampled_vit", vit32(tensor(2, 3, 32, 32, seed=71)))


def main() -> None:
    if MODE == "reverse":
        run_reverse()
        np.savez(path("reverse.npz"), **OUT)
        return
    for spec in MODELS:
        run_model(*spec)
    for spec in FEATURES:
        run_features(*spec)
    run_checkpoints()
    run_extras()
    run_data()
    run_loader()
    run_optim()
    run_schedulers()
    run_losses()
    run_layers()
    run_misc()
    np.savez(path(MODE + ".npz"), **OUT)


if __name__ == "__main__":
    main()
