"""The peft cases of test_peft.py, run as a script on either side.

``python peft_cases.py OUT oracle``: the real PyTorch builds the tiny base models, saves
them (``OUT/base/<name>``, safetensors) and its adapters (``OUT/oracle/<name>``), runs every
case and writes ``OUT/peft_oracle.npz``. ``chainrule run peft_cases.py OUT chainrule``
loads those folders, runs the same cases (``OUT/peft_chainrule.npz``), and saves adapters
of its own (``OUT/cr/<name>``) with their results (``OUT/peft_own.npz``).
``python peft_cases.py OUT check``: the real peft loads chainrule's adapters
(``OUT/peft_check.npz``). Adapter weights that peft draws at random are overwritten with
values made with NumPy from a seed (or moved through files), so both sides hold the same.
A case that raises records its traceback in ``OUT/peft_<side>_errors.json``.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

import numpy as np
from case_runner import Cases

OUT, SIDE = sys.argv[1], sys.argv[2]
if SIDE != "chainrule":
    # (the real torchvision of this environment does not import against the real torch)
    sys.modules["torchvision"] = None  # type: ignore[assignment]

import torch  # noqa: E402
import transformers  # noqa: E402
from peft import (  # noqa: E402
    IA3Config,
    LoraConfig,
    PeftModel,
    PrefixTuningConfig,
    PromptTuningConfig,
    TaskType,
    get_peft_model,
    get_peft_model_state_dict,
    set_peft_model_state_dict,
)
from transformers import (  # noqa: E402
    BertConfig,
    BertForSequenceClassification,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
)

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

V = 40
CASES = Cases(copies=True)
case, own, put = CASES.case, CASES.own, CASES.put


def base(name: str) -> torch.nn.Module:
    """The base model ``name``: built and saved on the oracle side, loaded elsewhere."""
    classes = {
        "gpt2": (
            GPT2LMHeadModel,
            GPT2Config(vocab_size=V, n_positions=32, n_embd=16, n_layer=2, n_head=2),
        ),
        "llama": (
            LlamaForCausalLM,
            LlamaConfig(
                vocab_size=V,
                hidden_size=16,
                intermediate_size=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                max_position_embeddings=64,
                pad_token_id=0,
            ),
        ),
        "bert": (
            BertForSequenceClassification,
            BertConfig(
                vocab_size=V,
                hidden_size=16,
                num_hidden_layers=2,
                num_attention_heads=2,
                intermediate_size=32,
                max_position_embeddings=32,
                num_labels=3,
            ),
        ),
    }
    cls, cfg = classes[name]
    path = os.path.join(OUT, "base", name)
    if SIDE == "oracle" and not os.path.exists(path):
        torch.manual_seed(0)
        cls(cfg).save_pretrained(path)
    model = cls.from_pretrained(path, attn_implementation="eager")
    model.eval()
    return model


def fill(model: torch.nn.Module, seed: int, scale: float = 0.2) -> None:
    """Overwrite the trainable parameters with NumPy values from ``seed`` (both sides)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            if p.requires_grad:
                values = rng.standard_normal(tuple(p.shape)) * scale
                p.copy_(torch.tensor(values, dtype=p.dtype))


def inputs() -> dict:
    rng = np.random.default_rng(0)
    ids = rng.integers(3, V, size=(2, 7))
    mask = np.ones((2, 7), dtype=np.int64)
    mask[1, 5:] = 0
    return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask)}


def trainable(model: torch.nn.Module) -> list[str]:
    return sorted(n for n, p in model.named_parameters() if p.requires_grad)


def forward_and_grads(prefix: str, model: torch.nn.Module, labels: torch.Tensor) -> None:
    """Logits, loss and the gradient of every trainable parameter; no base one gets one."""
    res = model(**inputs(), labels=labels)
    put(prefix + "/logits", res.logits)
    put(prefix + "/loss", res.loss)
    model.zero_grad()
    res.loss.backward()
    names = trainable(model)
    params = dict(model.named_parameters())
    for n in names:
        put(f"{prefix}/grad/{n}", params[n].grad)
    frozen = [n for n, p in params.items() if not p.requires_grad and p.grad is not None]
    put(prefix + "/frozen_with_grad", len(frozen))
    put(prefix + "/trainable", np.array(names))


def printed(model: torch.nn.Module) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.print_trainable_parameters()
    return buf.getvalue()


def lm_labels() -> torch.Tensor:
    return inputs()["input_ids"].masked_fill(inputs()["attention_mask"] == 0, -100)


@case
def lora_gpt2_conv1d() -> None:
    cfg = LoraConfig(
        r=4,
        lora_alpha=8,
        target_modules=["c_attn", "c_proj"],
        lora_dropout=0.0,
        fan_in_fan_out=True,
        task_type=TaskType.CAUSAL_LM,
    )
    model = get_peft_model(base("gpt2"), cfg)
    fill(model, 1)
    put("gpt2/printed", printed(model))
    put("gpt2/counts", np.array(model.get_nb_trainable_parameters()))
    put("gpt2/lora_type", type(model.base_model.model.transformer.h[0].attn.c_attn).__name__)
    forward_and_grads("gpt2", model, lm_labels())


@case
def lora_llama_linear() -> None:
    cfg = LoraConfig(
        r=4,
        lora_alpha=16,
        target_modules="all-linear",
        lora_dropout=0.0,
        use_rslora=True,
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(base("llama"), cfg)
    fill(model, 2)
    put("llama/printed", printed(model))
    forward_and_grads("llama", model, lm_labels())


@case
def lora_bert_classifier() -> None:
    cfg = LoraConfig(
        r=2,
        lora_alpha=4,
        target_modules=["query", "value"],
        lora_dropout=0.0,
        bias="lora_only",
        task_type=TaskType.SEQ_CLS,
    )
    model = get_peft_model(base("bert"), cfg)  # (the classifier is in modules_to_save)
    fill(model, 3)
    put("bert/printed", printed(model))
    forward_and_grads("bert", model, torch.tensor([2, 0]))


@case
def lora_training() -> None:
    cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"], lora_dropout=0.0)
    model = get_peft_model(base("gpt2"), cfg)
    fill(model, 4)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    model.train()
    for m in model.modules():  # (no dropout: the case follows the AdamW steps alone)
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    losses = []
    for _ in range(4):
        loss = model(**inputs(), labels=lm_labels()).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    put("train/losses", np.array(losses))
    after = model.state_dict()
    changed = sorted(k for k in after if not torch.equal(after[k], before[k]))
    put("train/changed", np.array(changed))
    for k in changed:
        put(f"train/param/{k}", after[k])


@case
def merge_and_unmerge() -> None:
    cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_fc"], lora_dropout=0.0)
    model = get_peft_model(base("gpt2"), cfg)
    fill(model, 5)
    x = inputs()
    with torch.no_grad():
        put("merge/adapted", model(**x).logits)
        model.merge_adapter()
        put("merge/merged", model(**x).logits)
        put("merge/merged_weight", model.base_model.model.transformer.h[0].attn.c_attn.weight)
        model.unmerge_adapter()
        put("merge/unmerged", model(**x).logits)
        put("merge/unmerged_weight", model.base_model.model.transformer.h[0].attn.c_attn.weight)
        merged = model.merge_and_unload()
        put("merge/unloaded_type", type(merged).__name__)
        put("merge/unloaded_c_attn", type(merged.transformer.h[0].attn.c_attn).__name__)
        put("merge/unloaded", merged(**x).logits)


@case
def adapters_from_files() -> None:
    """An adapter the oracle saved (its own random init, then trained a step) loads here."""
    path = os.path.join(OUT, "oracle", "gpt2_lora")
    safe = os.path.join(OUT, "oracle", "llama_lora_bin")
    if SIDE == "oracle":
        torch.manual_seed(7)
        cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"], lora_dropout=0.0)
        model = get_peft_model(base("gpt2"), cfg)
        with torch.no_grad():
            for n, p in model.named_parameters():
                if "lora_B" in n:
                    p.normal_()
        model.save_pretrained(path)
        torch.manual_seed(8)
        cfg = LoraConfig(r=2, target_modules=["q_proj", "v_proj"], init_lora_weights="gaussian")
        llama = get_peft_model(base("llama"), cfg)
        with torch.no_grad():
            for n, p in llama.named_parameters():
                if "lora_B" in n:
                    p.normal_()
        llama.save_pretrained(safe, safe_serialization=False)
    model = PeftModel.from_pretrained(base("gpt2"), path, is_trainable=True)
    put("files/gpt2_trainable", np.array(trainable(model)))
    forward_and_grads("files/gpt2", model, lm_labels())
    llama = PeftModel.from_pretrained(base("llama"), safe)
    with torch.no_grad():
        put("files/llama", llama(**inputs()).logits)
    state = get_peft_model_state_dict(llama)
    for k in sorted(state):
        put(f"files/llama_state/{k}", state[k])


@case
def multiple_adapters() -> None:
    first = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"], lora_dropout=0.0)
    second = LoraConfig(r=2, lora_alpha=2, target_modules=["c_attn", "c_fc"], lora_dropout=0.0)
    model = get_peft_model(base("gpt2"), first)
    model.add_adapter("second", second)
    rng = np.random.default_rng(6)
    with torch.no_grad():
        for n, p in sorted(model.named_parameters()):
            if "lora_" in n:
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.2, dtype=p.dtype))
    x = inputs()
    with torch.no_grad():
        put("multi/default", model(**x).logits)
        model.set_adapter("second")
        put("multi/active", np.array(model.active_adapters))
        put("multi/second", model(**x).logits)
        with model.disable_adapter():
            put("multi/disabled", model(**x).logits)
        put("multi/after_disable", model(**x).logits)
        model.add_weighted_adapter(
            ["default", "second"], [0.5, 1.5], "mixed", combination_type="cat"
        )
        model.set_adapter("mixed")
        put("multi/mixed", model(**x).logits)
        model.delete_adapter("second")
        put("multi/remaining", np.array(sorted(model.peft_config)))
    put("multi/base", base("gpt2")(**x).logits.detach())


@case
def lora_init_variants() -> None:
    """Deterministic initialisations (PiSSA's SVD, OLoRA's QR, DoRA's magnitudes) computed
    from the base weights; the random ones moved through a state dict file."""
    x = inputs()
    for init in ("pissa", "olora"):
        cfg = LoraConfig(r=2, target_modules=["q_proj", "v_proj"], init_lora_weights=init)
        model = get_peft_model(base("llama"), cfg)
        with torch.no_grad():
            put(f"init/{init}/logits", model(**x).logits)
            layer = model.base_model.model.model.layers[0].self_attn.q_proj
            # (the factors' signs are LAPACK's choice; their product and the residual are not)
            delta = layer.lora_B["default"].weight @ layer.lora_A["default"].weight
            put(f"init/{init}/delta", delta)
            put(f"init/{init}/residual", layer.base_layer.weight)
            with model.disable_adapter():
                put(f"init/{init}/residual_only", model(**x).logits)
    cfg = LoraConfig(r=2, target_modules=["q_proj", "v_proj"], use_dora=True, lora_dropout=0.0)
    model = get_peft_model(base("llama"), cfg)
    fill(model, 9)
    magnitudes = {n: p for n, p in model.named_parameters() if "magnitude" in n}
    put("init/dora/names", np.array(sorted(magnitudes)))
    forward_and_grads("init/dora", model, lm_labels())
    path = os.path.join(OUT, "oracle", "gaussian.pt")
    cfg = LoraConfig(r=3, target_modules=["c_attn"], init_lora_weights="gaussian")
    model = get_peft_model(base("gpt2"), cfg)
    if SIDE == "oracle":
        with torch.no_grad():
            for n, p in model.named_parameters():
                if "lora_B" in n:
                    p.normal_()
        torch.save(get_peft_model_state_dict(model), path)
    result = set_peft_model_state_dict(model, torch.load(path))
    put("init/gaussian/unexpected", len(result.unexpected_keys))
    with torch.no_grad():
        put("init/gaussian/logits", model(**x).logits)


@case
def ia3() -> None:
    cfg = IA3Config(
        target_modules=["c_attn", "mlp.c_proj"],
        feedforward_modules=["mlp.c_proj"],
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(base("gpt2"), cfg)
    with torch.no_grad():
        put("ia3/identity", model(**inputs()).logits)
    fill(model, 10)
    with torch.no_grad():
        for p in model.parameters():
            if p.requires_grad:
                p.add_(1.0)
    put("ia3/printed", printed(model))
    forward_and_grads("ia3", model, lm_labels())
    with torch.no_grad():
        put("ia3/merged", model.merge_and_unload()(**inputs()).logits)


@case
def prompt_and_prefix_tuning() -> None:
    x = inputs()
    cfg = PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)
    model = get_peft_model(base("gpt2"), cfg)
    fill(model, 11)
    put("prompt/printed", printed(model))
    forward_and_grads("prompt", model, lm_labels())
    with torch.no_grad():
        out = model.generate(input_ids=x["input_ids"][:1], max_new_tokens=4, do_sample=False)
    put("prompt/generate", out)
    cfg = PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)
    model = get_peft_model(base("llama"), cfg)
    fill(model, 12)
    put("prefix/printed", printed(model))
    forward_and_grads("prefix", model, lm_labels())
    with torch.no_grad():
        out = model.generate(input_ids=x["input_ids"][:1], max_new_tokens=4, do_sample=False)
    put("prefix/generate", out)


@case
def trainer_with_lora() -> None:
    """transformers' Trainer on a LoRA model (in order, no dropout, gradient clipping,
    linear schedule); its checkpoint holds the adapter only."""
    from transformers import Trainer, TrainingArguments

    ids = np.random.default_rng(14).integers(3, V, size=(6, 7))

    class Data(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return len(ids)

        def __getitem__(self, i: int) -> dict:
            row = torch.tensor(ids[i])
            return {"input_ids": row, "labels": row}

    class InOrder(Trainer):
        def _get_train_sampler(self, *args: object, **kwargs: object) -> object:
            return torch.utils.data.SequentialSampler(self.train_dataset)

    cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_fc"], lora_dropout=0.0)
    model = get_peft_model(base("gpt2"), cfg)
    fill(model, 15)
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    folder = os.path.join(OUT, f"trainer_{SIDE}")
    args = TrainingArguments(
        output_dir=folder,
        per_device_train_batch_size=3,
        num_train_epochs=2,
        learning_rate=1e-2,
        max_grad_norm=0.5,
        report_to=[],
        save_strategy="epoch",
        logging_steps=1,
        use_cpu=True,
        disable_tqdm=True,
    )
    trainer = InOrder(model=model, args=args, train_dataset=Data())
    trainer.train()
    logs = trainer.state.log_history
    put("trainer/losses", np.array([h["loss"] for h in logs if "loss" in h]))
    put("trainer/grad_norms", np.array([h["grad_norm"] for h in logs if "grad_norm" in h]))
    for n in trainable(model):
        put(f"trainer/param/{n}", dict(model.named_parameters())[n])
    saved = sorted(os.listdir(os.path.join(folder, "checkpoint-4")))
    put("trainer/checkpoint_files", np.array([f for f in saved if f.startswith("adapter")]))
    reloaded = PeftModel.from_pretrained(base("gpt2"), os.path.join(folder, "checkpoint-4"))
    with torch.no_grad():
        put("trainer/reloaded", reloaded(**inputs()).logits)


class Net(torch.nn.Module):
    """A plain module (no transformers): embedding, 2-d convolution, linear layers."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(V, 6)
        self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.fc = torch.nn.Linear(6 * 4, 8)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        x = self.emb(input_ids[:, :6])[:, None]  # (batch, 1, 6, 6)
        x = torch.relu(self.conv(x)).mean(2).flatten(1)
        return self.head(torch.tanh(self.fc(x)))


def custom_net() -> torch.nn.Module:
    path = os.path.join(OUT, "base", "net.pt")
    net = Net()
    if SIDE == "oracle" and not os.path.exists(path):
        torch.manual_seed(0)
        torch.save(Net().state_dict(), path)
    net.load_state_dict(torch.load(path))
    return net


@case
def custom_module_tuners() -> None:
    """LoRA on Embedding, Conv2d and Linear layers of a plain module; LoHa and LoKr."""
    from peft import LoHaConfig, LoKrConfig

    ids = inputs()["input_ids"]
    weights = torch.tensor(np.random.default_rng(13).standard_normal((2, 3)), dtype=torch.float32)
    configs = {
        "lora": LoraConfig(
            r=2, target_modules=["emb", "conv", "fc"], modules_to_save=["head"], lora_alpha=4
        ),
        "loha": LoHaConfig(r=2, target_modules=["conv", "fc"], alpha=4),
        "lokr": LoKrConfig(r=2, target_modules=["conv", "fc"], alpha=4),
    }
    for seed, (name, cfg) in enumerate(configs.items()):
        model = get_peft_model(custom_net(), cfg)
        fill(model, 20 + seed)
        put(f"net/{name}/printed", printed(model))
        out = model(ids)
        put(f"net/{name}/out", out)
        (out * weights).sum().backward()
        params = dict(model.named_parameters())
        for n in trainable(model):
            put(f"net/{name}/grad/{n}", params[n].grad)
        with torch.no_grad():
            put(f"net/{name}/merged", model.merge_and_unload()(ids))


@case
def more_tuners() -> None:
    """OFT and BOFT (orthogonal rotations), AdaLoRA, LayerNorm tuning, VeRA, whose
    projections peft draws from a seeded generator: they move through the oracle's adapter
    folder (``save_projection=True``), and FourierFT, which draws its frequencies again from
    its seed when loading (``torch.randperm``: PyTorch's for the same seed)."""
    from peft import (
        AdaLoraConfig,
        BOFTConfig,
        FourierFTConfig,
        LNTuningConfig,
        OFTConfig,
        VeraConfig,
    )

    configs = {
        "oft": OFTConfig(r=0, oft_block_size=4, target_modules=["q_proj", "v_proj"]),
        "boft": BOFTConfig(boft_block_size=4, boft_n_butterfly_factor=2, target_modules=["q_proj"]),
        "adalora": AdaLoraConfig(
            init_r=4, target_r=2, target_modules=["q_proj", "v_proj"], total_step=10
        ),
        "ln": LNTuningConfig(target_modules=["input_layernorm", "norm"]),
    }
    for seed, (name, cfg) in enumerate(configs.items()):
        model = get_peft_model(base("llama"), cfg)
        fill(model, 30 + seed, scale=0.1)
        put(f"more/{name}/printed", printed(model))
        forward_and_grads(f"more/{name}", model, lm_labels())
    moved = {
        "vera": VeraConfig(r=4, target_modules=["q_proj", "v_proj"], save_projection=True),
        "fourierft": FourierFTConfig(n_frequency=32, target_modules=["q_proj", "v_proj"]),
    }
    for seed, (name, cfg) in enumerate(moved.items()):
        path = os.path.join(OUT, "oracle", name)
        if SIDE == "oracle":
            model = get_peft_model(base("llama"), cfg)
            fill(model, 40 + seed, scale=0.1)
            model.save_pretrained(path)
        model = PeftModel.from_pretrained(base("llama"), path, is_trainable=True)
        forward_and_grads(f"more/{name}", model, lm_labels())


@own
def own_adapters() -> None:
    """chainrule saves adapters (its own random A, safetensors and .bin); real peft loads."""
    x = inputs()
    path = os.path.join(OUT, "cr", "gpt2_lora")
    bin_path = os.path.join(OUT, "cr", "llama_lora")
    ia3_path = os.path.join(OUT, "cr", "gpt2_ia3")
    if SIDE == "chainrule":
        cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_fc"])
        model = get_peft_model(base("gpt2"), cfg)
        model.add_adapter("other", LoraConfig(r=2, target_modules=["c_attn"]))
        with torch.no_grad():
            for n, p in model.named_parameters():
                if "lora_B" in n:
                    p.normal_()
        model.save_pretrained(path)
        llama = get_peft_model(base("llama"), LoraConfig(r=2, target_modules="all-linear"))
        with torch.no_grad():
            for n, p in llama.named_parameters():
                if "lora_B" in n:
                    p.normal_()
        llama.save_pretrained(bin_path, safe_serialization=False)
        cfg = IA3Config(target_modules=["c_attn", "mlp.c_proj"], feedforward_modules=["mlp.c_proj"])
        model3 = get_peft_model(base("gpt2"), cfg)
        with torch.no_grad():
            for p in model3.parameters():
                if p.requires_grad:
                    p.uniform_(0.5, 1.5)
        model3.save_pretrained(ia3_path)
    model = PeftModel.from_pretrained(base("gpt2"), path)
    model.load_adapter(os.path.join(path, "other"), adapter_name="other")
    with torch.no_grad():
        put("own/gpt2", model(**x).logits)
        model.set_adapter("other")
        put("own/gpt2_other", model(**x).logits)
        llama = PeftModel.from_pretrained(base("llama"), bin_path)
        put("own/llama", llama(**x).logits)
        put("own/llama_merged", llama.merge_and_unload()(**x).logits)
        put("own/ia3", PeftModel.from_pretrained(base("gpt2"), ia3_path)(**x).logits)


CASES.run_side(OUT, "peft", SIDE)
