"""timm 1.0.29 (PyTorch Image Models) runs unchanged under ``chainrule run`` and gives what
it gives on the real PyTorch.

``timm_cases.py`` runs the same timm calls three times: on the real PyTorch (the oracle,
which randomises and saves every model's state), under ``chainrule run`` (loading those
states), and on the real PyTorch again loading what chainrule saved. Each run writes its
results to a .npz; the tests compare them key by key: model forwards (eval and train,
``forward_features``, ``forward_head``, ``reset_classifier``) for 23 architectures,
parameter gradients and BatchNorm statistics of a training step (float64), feature
pyramids (``features_only=True``), checkpoints both ways, ``timm.data`` transforms and
Mixup/CutMix, 27 optimizers of ``create_optimizer_v2``, ``create_scheduler_v2``'s
schedules, ``timm.loss`` and ``timm.layers``.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

if importlib.util.find_spec("timm") is None:  # (not imported here: the runs import it)
    pytest.skip("timm is not installed", allow_module_level=True)

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "timm_cases.py")
MODEL_NAMES = [
    "resnet18",
    "resnet26d",
    "efficientnet_b0",
    "mobilenetv3_small_100",
    "convnext_atto",
    "vit_tiny_patch16_224",
    "deit_tiny_distilled_patch16_224",
    "swin_tiny_patch4_window7_224",
    "regnetx_002",
    "densenet121",
    "mlp_mixer.MlpMixer",
    "levit_128s",
    "ghostnet_050",
    "rexnet_100",
    "cs3darknet_s",
    "maxvit_pico_rw_256",
    "coatnet_pico_rw_224",
    "fastvit_t8",
    "efficientvit_b0",
    "mobilevit_xxs",
    "edgenext_xx_small",
    "mobilenetv4_conv_small",
    "eva02_tiny_patch14_224",
]
FEATURE_NAMES = [
    "efficientnet_b0",
    "convnext_atto",
    "regnetx_002",
    "mobilenetv3_small_100",
    "cs3darknet_s",
]
OPTIMIZER_NAMES = (
    "sgd nesterov momentum adam adamw nadamw radam lamb lambc lars adabelief adafactor "
    "adafactorbv lion madgrad adan novograd rmsproptf rmsprop sgdp adamp adopt laprop mars "
    "adagrad adamax cadamw"
).split()
# float32: error relative to the array's largest value; float64 (training): relative to
# the largest gradient of the model.
F32 = 2e-5
F64 = 1e-11
BF16 = 1e-2  # (autocast: bfloat16 keeps 8 bits)
# hardsigmoid's float64 gradient: PyTorch scales it by the float32 constant 1/6f, which is
# 1/6 * (1 + 3e-8), chainrule by 1/6
F64_HARDSIGMOID = 1e-7
F64_TOLERANCES = {
    "mobilenetv3_small_100": F64_HARDSIGMOID,
    "ghostnet_050": F64_HARDSIGMOID,
    "efficientvit_b0": F32,  # (its linear attention casts to float32: q.float() ...)
    "eva02_tiny_patch14_224": 1e-9,  # (rotary tables built in float32)
    "edgenext_xx_small": 1e-9,  # (Fourier position encoding built in float32)
}


def _run(command: list, what: str) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"the {what} run failed:\n{done.stdout[-3000:]}{done.stderr[-6000:]}")


def _run_cases(folder: str) -> None:
    try:
        _run([sys.executable, CASES, "oracle", folder], "real PyTorch")
        _run([sys.executable, "-m", "chainrule", "run", CASES, "chainrule", folder], "chainrule")
        _run([sys.executable, CASES, "reverse", folder], "reverse (real PyTorch)")
    finally:
        for pattern in ("*.pt", "*.pth", "*.safetensors"):
            for state in glob.glob(os.path.join(folder, pattern)):
                os.remove(state)  # (the saved states: some hundred MB)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, dict]:
    """(oracle, chainrule, reverse): every key's array from the three runs, made once per
    test session (pytest-xdist's workers share them through a folder and a lock)."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None:
        folder = str(tmp_path_factory.mktemp("timm"))
        _run_cases(folder)
    else:
        from filelock import FileLock

        shared = tmp_path_factory.getbasetemp().parent
        folder = str(shared / f"timm-{run_id}")
        with FileLock(str(shared / f"timm-{run_id}.lock")):
            if not os.path.exists(os.path.join(folder, "reverse.npz")):
                os.makedirs(folder, exist_ok=True)
                _run_cases(folder)
    loaded = []
    for name in ("oracle", "chainrule", "reverse"):
        with np.load(os.path.join(folder, name + ".npz")) as data:
            loaded.append({k: data[k] for k in data.files})
    return loaded[0], loaded[1], loaded[2]


def _compare(want: dict, got: dict, prefix: str, tol: float = F32) -> int:
    """Every key under ``prefix``: floats within ``tol`` of the array's largest value,
    everything else equal. Returns how many keys were compared."""
    keys = [k for k in want if k.startswith(prefix)]
    assert keys, f"no results under {prefix}"
    for key in keys:
        assert key in got, f"chainrule gave no {key}"
        a, b = want[key], got[key]
        assert a.shape == b.shape, f"{key}: shape {b.shape}, PyTorch's {a.shape}"
        if a.dtype.kind in "fc":
            assert b.dtype == a.dtype, f"{key}: dtype {b.dtype}, PyTorch's {a.dtype}"
            if a.size:
                scale = max(float(np.abs(a).max()), 1e-30)
                err = float(np.abs(a - b).max()) / scale
                assert err <= tol, f"{key}: relative error {err:.3g} > {tol}"
        else:
            assert np.array_equal(a, b), f"{key}: {b!r} != PyTorch's {a!r}"
    return len(keys)


def _compare_grads(want: dict, got: dict, prefix: str, tol: float) -> None:
    """Gradients: each within ``tol`` of the largest gradient of the model (parameters
    whose gradient is zero in exact arithmetic, as a bias before a BatchNorm, hold
    rounding noise that no two libraries share); sums of squares (of the large
    gradients, sampled) within ``tol`` of the largest."""
    keys = [k for k in want if k.startswith(prefix)]
    assert keys
    scale = max(float(np.abs(want[k]).max()) for k in keys if not k.endswith(":sq"))
    squares = max([float(want[k].max()) for k in keys if k.endswith(":sq")], default=0.0)
    for key in keys:
        a, b = want[key], got[key]
        assert a.shape == b.shape and a.dtype == b.dtype, key
        ref = squares if key.endswith(":sq") else scale
        err = float(np.abs(a - b).max()) / ref
        assert err <= tol, f"{key}: error {err:.3g} of the largest gradient > {tol}"


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_forward(results, name):
    """eval forward, forward_features, forward_head(pre_logits), reset_classifier(0) and
    (7, with the oracle's new head) in float32."""
    want, got, _ = results
    for what in ("eval", "features", "pre_logits", "reset0", "reset7", "num_features"):
        _compare(want, got, f"model/{name}/{what}")


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_train_step(results, name):
    """A training step in float64: logits, cross-entropy gradients of every parameter,
    and the BatchNorm running statistics it updates."""
    want, got, _ = results
    tol = F64_TOLERANCES.get(name, F64)
    _compare(want, got, f"model/{name}/train", tol)
    _compare_grads(want, got, f"model/{name}/grad/", tol)
    if any(k.startswith(f"model/{name}/buffer/") for k in want):
        _compare(want, got, f"model/{name}/buffer/", tol)


@pytest.mark.parametrize("name", FEATURE_NAMES)
def test_features_only(results, name):
    """``features_only=True``: every feature map, and feature_info's channels,
    reductions and module names."""
    want, got, _ = results
    _compare(want, got, f"features/{name}/")


def test_checkpoints_from_pytorch(results):
    """A checkpoint of the real timm (a training checkpoint with ``module.`` prefixes, a
    plain state dict, a safetensors file) through ``load_checkpoint``,
    ``create_model(checkpoint_path=)`` and ``pretrained=True`` with a local file."""
    want, got, _ = results
    assert _compare(want, got, "ckpt/") == 4


def test_checkpoints_to_pytorch(results):
    """Models (torch.save and safetensors) and an AdamW state saved by chainrule load into
    the real timm: same outputs, same optimizer state."""
    _, got, reverse = results
    keys = [k for k in reverse if k != "reverse/opt_step"]
    assert len(keys) == 8
    for key in keys:
        mine = got[key.replace("_safetensors", "")]
        scale = float(np.abs(reverse[key]).max())
        assert float(np.abs(reverse[key] - mine).max()) <= F32 * scale, key
    assert reverse["reverse/opt_step"] == 1


def test_forward_intermediates_and_feature_extraction(results):
    """forward_intermediates, features_only through it (ViT) and through torch.fx
    (``feature_cls='fx'``, ``create_feature_extractor``), torch.compile, channels_last."""
    want, got, _ = results
    for what in ("intermediates", "vit_features", "fx_features", "fx_extractor"):
        _compare(want, got, f"extra/{what}/")
    _compare(want, got, "extra/compile")
    _compare(want, got, "extra/channels_last")


@pytest.mark.parametrize("name", ["resnet", "vit"])
def test_grad_checkpointing(results, name):
    """set_grad_checkpointing(True): a float64 training step's gradients."""
    want, got, _ = results
    _compare(want, got, f"extra/checkpointing_{name}/train", F64)
    _compare_grads(want, got, f"extra/checkpointing_{name}/grad/", F64)


def test_reparameterize(results):
    """timm.utils.reparameterize_model (FastViT): the fused model's output."""
    want, got, _ = results
    _compare(want, got, "extra/reparam/")


def test_autocast(results):
    """Inference under torch.autocast('cpu', bfloat16): convolutions and BatchNorm
    (bfloat16 input, float32 parameters) and a ViT."""
    want, got, _ = results
    _compare(want, got, "extra/autocast_", BF16)


def test_dataset_and_loader(results):
    """create_dataset on an image folder and create_loader's evaluation pipeline, with and
    without the prefetcher (fast_collate's uint8 batches normalised on the device)."""
    want, got, _ = results
    assert _compare(want, got, "loader/") == 13


def test_data_config_and_eval_transforms(results):
    """resolve_data_config / resolve_model_data_config and create_transform on a PIL
    image (resize, center crop, squash and border crops, normalisation)."""
    want, got, _ = results
    for key in ("config", "config_vit", "eval_default"):
        _compare(want, got, f"data/{key}")
    for i in range(4):
        _compare(want, got, f"data/eval_{i}")


def test_train_transform(results):
    """The training transform (RandomResizedCrop, RandAugment, RandomErasing) with
    Python's and NumPy's generators seeded alike."""
    want, got, _ = results
    _compare(want, got, "data/train_repr")
    _compare(want, got, "data/train_aug")


def test_mixup_cutmix(results):
    """Mixup, CutMix and both, in batch, pair and elem modes (NumPy seeded), and
    mixup_target."""
    want, got, _ = results
    assert _compare(want, got, "data/mixup_") == 19


@pytest.mark.parametrize("name", OPTIMIZER_NAMES)
def test_optimizer(results, name):
    """create_optimizer_v2 (weight decay off for biases and norms): three steps."""
    want, got, _ = results
    _compare(want, got, f"optim/{name}/")


def test_layer_decay_groups(results):
    """create_optimizer_v2 with layer_decay: the parameter groups' lr scales."""
    want, got, _ = results
    _compare(want, got, "optim/layer_decay")


def test_schedulers(results):
    """create_scheduler_v2: cosine (warmup, cycles, per-update), tanh, step, multistep,
    poly and plateau learning rates epoch by epoch."""
    want, got, _ = results
    assert _compare(want, got, "sched/", 1e-12) == 8


def test_losses(results):
    """timm.loss: values and gradients of the logits."""
    want, got, _ = results
    _compare(want, got, "loss/")


LAYER_NAMES = (
    "conv_same conv_tf_same std_conv std_conv_same mixed_conv cond_conv blur_pool avgmax "
    "catavgmax max_same avg_same se eca cbam global_context ln2d gn1 rms bn_act gn_act "
    "frozen_bn mlp glu_mlp swiglu attention attn_pool patch_embed layer_scale norm_mlp_head "
    "classifier_head split_attn selective_kernel act_swish act_hard_swish act_hard_sigmoid "
    "act_mish act_gelu_tanh act_quick_gelu act_prelu act_hard_mish act_tanh act_relu6 "
    "act_sigmoid act_celu act_elu act_leaky_relu"
).split()


@pytest.mark.parametrize("name", LAYER_NAMES)
def test_layer(results, name):
    """timm.layers modules: training forward and gradients (float64), eval forward."""
    want, got, _ = results
    tol = F64_HARDSIGMOID if "hard" in name else F64
    _compare(want, got, f"layer/{name}/train", tol)
    _compare(want, got, f"layer/{name}/grad", tol)
    if any(k.startswith(f"layer/{name}/pgrad/") for k in want):
        _compare_grads(want, got, f"layer/{name}/pgrad/", tol)
    _compare(want, got, f"layer/{name}/eval")


def test_layer_functions(results):
    """DropPath (identity in eval; each sample dropped or scaled by 1/keep in training),
    make_divisible, to_2tuple, resample_abs_pos_embed, resample_patch_embed and
    build_rotary_pos_embed."""
    want, got, _ = results
    _compare(want, got, "layer/drop_path/")
    assert bool(got["layer/drop_path/train_is_drop_or_scale"])
    for key in ("make_divisible", "to_2tuple", "resample_abs_pos_embed"):
        _compare(want, got, f"layer/{key}")
    _compare(want, got, "layer/resample_patch_embed")
    _compare(want, got, "layer/rope")


def test_every_case_has_a_test(results):
    """The lists above name every model and optimizer timm_cases.py ran."""
    want, _, _ = results
    assert {k.split("/")[1] for k in want if k.startswith("model/")} == set(MODEL_NAMES)
    assert {k.split("/")[1] for k in want if k.startswith("features/")} == set(FEATURE_NAMES)
    optimizers = {k.split("/")[1] for k in want if k.startswith("optim/")}
    assert optimizers == {*OPTIMIZER_NAMES, "layer_decay"}
    layers = {k.split("/")[1] for k in want if k.startswith("layer/") and k.count("/") >= 2}
    assert set(LAYER_NAMES) <= layers


def test_model_registry(results):
    """list_models (all, filtered by pretrained tags and exclusions), list_modules,
    is_model and a pretrained config."""
    want, got, _ = results
    assert _compare(want, got, "list/") == 6


def test_utils(results):
    """timm.utils.accuracy, ModelEmaV3 and a parameter count."""
    want, got, _ = results
    _compare(want, got, "misc/")


# ----------------------------------------------- the chainrule pieces timm needed, in-process
def _foreach_cases(lib):
    """Every ``torch._foreach_*`` form timm's and PyTorch's optimizers call, on ``lib``."""
    a = [lib.tensor([1.5, -2.0]), lib.arange(3.0) - 1]
    b = [lib.tensor([0.5, 4.0]), lib.tensor([2.0, 3.0, -1.0])]
    out = [
        lib._foreach_add(a, 1),
        lib._foreach_add(a, b, alpha=-2),
        lib._foreach_sub(a, lib.tensor(0.5)),
        lib._foreach_mul(a, [2.0, 3.0]),
        lib._foreach_div(a, b),
        lib._foreach_maximum(a, 0.2),
        lib._foreach_minimum(a, b),
        lib._foreach_clamp_min(a, -0.5),
        lib._foreach_pow(b, 2),
        lib._foreach_pow(2.0, a),
        lib._foreach_sqrt(lib._foreach_abs(a)),
        lib._foreach_norm(a),
        lib._foreach_norm(a, 1),
        lib._foreach_max(a),
        lib._foreach_lerp(a, b, 0.3),
        lib._foreach_lerp(a, b, [0.1, 0.9]),
        lib._foreach_addcdiv(a, a, b, lib.tensor([1.0, 2.0])),
        lib._foreach_addcmul(a, b, b, 0.5),
        lib._foreach_sign(a),
        lib._foreach_reciprocal(b),
    ]
    c = [t.clone() for t in a]
    assert lib._foreach_add_(c, b, alpha=0.5) is c
    lib._foreach_mul_(c, 2.0)
    lib._foreach_maximum_(c, 0.1)
    lib._foreach_addcdiv_(c, a, b, value=0.1)
    lib._foreach_lerp_(c, b, 0.2)
    lib._foreach_neg_(c)
    lib._foreach_sqrt_(lib._foreach_abs_(c))
    out.append(c)
    w = [lib.tensor([1.0, 2.0], requires_grad=True)]
    lib._foreach_mul(w, 3.0)[0].pow(2).sum().backward()
    out.append([w[0].grad])
    return [[t.detach().numpy() for t in ts] for ts in out]


def test_foreach_ops_match_torch():
    """chainrule's ``torch._foreach_*`` (timm's multi-tensor optimizers) against PyTorch's:
    values, in-place updates, gradients and the errors."""
    import torch

    import chainrule

    for want, got in zip(_foreach_cases(torch), _foreach_cases(chainrule)):
        assert len(want) == len(got)
        for a, b in zip(want, got):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
    short = [chainrule.ones(2)]
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors"):
        chainrule._foreach_add([chainrule.ones(2), chainrule.ones(3)], short)
    with pytest.raises(RuntimeError, match="at least one tensor"):
        chainrule._foreach_add([], 1)
    with pytest.raises(RuntimeError, match="same number of elements as scalar list"):
        chainrule._foreach_mul(short, [1.0, 2.0])
    with pytest.raises(chainrule._missing.NotImplementedInChainrule):
        chainrule._foreach_not_an_op  # noqa: B018


def test_jit_annotations_match_torch():
    """``torch.jit.annotations``: typing's names, BroadcastingList, the is_* checks."""
    import typing

    import torch.jit.annotations as theirs

    import chainrule.jit.annotations as ours

    for name in ("List", "Tuple", "Dict", "Optional", "Union", "Any"):
        assert getattr(ours, name) is getattr(typing, name)
    assert ours.BroadcastingList2[int] is theirs.BroadcastingList2[int]
    samples = [typing.List[int], list[int], typing.Tuple[int, str], typing.Dict[str, int]]  # noqa: UP006
    samples += [typing.Optional[int], typing.Union[int, str], int, int | None, int | str]  # noqa: UP007, UP045
    for ann in samples:
        for check in ("is_tuple", "is_list", "is_dict", "is_optional", "is_union"):
            assert getattr(ours, check)(ann) == getattr(theirs, check)(ann), (check, ann)
    with pytest.raises(RuntimeError, match="without a contained type"):
        ours.is_list(typing.List)  # noqa: UP006


@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_mixed_precision_matches_torch(training):
    """batch_norm with a bfloat16 input and float32 parameters (what autocast gives it):
    PyTorch's mixed-type kernel's result, running statistics and gradients; the dtype
    errors for other mixes."""
    import torch

    import chainrule

    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    results = []
    for lib in (torch, chainrule):
        inp = lib.tensor(x).to(lib.bfloat16).requires_grad_()
        weight = lib.tensor([1.5, 0.5, -1.0], requires_grad=True)
        running = [lib.zeros(3), lib.ones(3)]
        y = lib.nn.functional.batch_norm(inp, *running, weight, lib.zeros(3), training=training)
        (y.float() * lib.arange(96.0).reshape(2, 3, 4, 4)).sum().backward()
        results.append(
            [str(y.dtype), y.float().detach().numpy(), *(r.numpy() for r in running)]
            + [inp.grad.float().numpy(), weight.grad.numpy(), str(inp.grad.dtype)]
        )
        with pytest.raises(RuntimeError) as error:
            lib.nn.functional.batch_norm(inp, lib.zeros(3, dtype=lib.float16), lib.ones(3))
        results[-1].append(str(error.value))
    for a, b in zip(*results):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(b, a, rtol=1e-2, atol=1e-2)
