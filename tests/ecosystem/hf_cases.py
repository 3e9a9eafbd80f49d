"""The cases of test_transformers.py, run as a script on either side.

``python hf_cases.py oracle-make DIR``: real PyTorch builds the tiny models, saves them
(``DIR/oracle/<name>``, safetensors) and writes its results to ``DIR/oracle_make.npz``.
``chainrule run hf_cases.py chainrule DIR``: loads those directories, computes the same
results (``DIR/chainrule_load.npz``), builds its own models, saves them (``DIR/cr/<name>``)
and writes their results (``DIR/chainrule_own.npz``).
``python hf_cases.py oracle-check DIR``: real PyTorch loads chainrule's directories and
writes ``DIR/oracle_check.npz``.
"""

from __future__ import annotations

import os
import sys

import numpy as np

if sys.argv[1] != "chainrule":
    # the real torchvision of this environment fails to import against the real torch;
    # transformers' text models do not need it
    sys.modules["torchvision"] = None  # type: ignore[assignment]

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import (  # noqa: E402
    BertConfig,
    BertForMaskedLM,
    BertForSequenceClassification,
    BertModel,
    DistilBertConfig,
    DistilBertForSequenceClassification,
    DynamicCache,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    RobertaConfig,
    RobertaForMaskedLM,
    T5Config,
    T5ForConditionalGeneration,
    ViTConfig,
    ViTForImageClassification,
)

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

V = 48  # vocabulary size


def configs() -> dict:
    """The tiny configurations, by model name."""
    bert = dict(
        vocab_size=V,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    return {
        "bert_seq": (BertForSequenceClassification, BertConfig(num_labels=3, **bert)),
        "bert_mlm": (BertForMaskedLM, BertConfig(**bert)),
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
                bos_token_id=1,
                eos_token_id=2,
            ),
        ),
        "t5": (
            T5ForConditionalGeneration,
            T5Config(
                vocab_size=V,
                d_model=16,
                d_kv=8,
                d_ff=32,
                num_layers=2,
                num_decoder_layers=2,
                num_heads=2,
                decoder_start_token_id=0,
                pad_token_id=0,
                eos_token_id=1,
            ),
        ),
        "distilbert": (
            DistilBertForSequenceClassification,
            DistilBertConfig(
                vocab_size=V,
                dim=16,
                n_layers=2,
                n_heads=2,
                hidden_dim=32,
                max_position_embeddings=32,
                num_labels=2,
            ),
        ),
        "roberta": (
            RobertaForMaskedLM,
            RobertaConfig(pad_token_id=1, **{**bert, "max_position_embeddings": 40}),
        ),
        "vit": (
            ViTForImageClassification,
            ViTConfig(
                image_size=8,
                patch_size=4,
                num_channels=3,
                hidden_size=16,
                num_hidden_layers=2,
                num_attention_heads=2,
                intermediate_size=32,
                num_labels=3,
            ),
        ),
    }


def inputs() -> dict:
    """The inputs, made with NumPy from a seed (the same on both sides)."""
    rng = np.random.RandomState(0)
    ids = rng.randint(3, V, size=(2, 7))
    mask = np.ones((2, 7), dtype=np.int64)
    mask[1, 5:] = 0
    return {
        "ids": torch.tensor(ids),
        "mask": torch.tensor(mask),
        "left_mask": torch.tensor(mask[:, ::-1].copy()),
        "labels3": torch.tensor([2, 0]),
        "labels2": torch.tensor([1, 0]),
        "mlm_labels": torch.tensor(np.where(rng.rand(2, 7) < 0.4, ids, -100)),
        "dec_ids": torch.tensor(rng.randint(2, V, size=(2, 5))),
        "pixels": torch.tensor(rng.randn(2, 3, 8, 8).astype(np.float32)),
    }


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy().copy()


def _grads(out: dict, prefix: str, model: torch.nn.Module, loss: torch.Tensor) -> None:
    model.zero_grad()
    loss.backward()
    for name, p in model.named_parameters():
        if p.grad is not None:
            out[f"{prefix}/grad/{name}"] = _np(p.grad)


def _outputs(out: dict, prefix: str, res: object) -> None:
    for field in ("logits", "last_hidden_state", "pooler_output", "loss"):
        value = getattr(res, field, None)
        if value is not None:
            out[f"{prefix}/{field}"] = _np(value)
    for field in ("hidden_states", "attentions", "encoder_last_hidden_state"):
        value = getattr(res, field, None)
        if isinstance(value, torch.Tensor):
            out[f"{prefix}/{field}"] = _np(value)
        elif value is not None:
            for i, v in enumerate(value):
                out[f"{prefix}/{field}/{i}"] = _np(v)


def _generate(out: dict, prefix: str, model: torch.nn.Module, **kw: object) -> None:
    greedy = model.generate(
        **kw, max_new_tokens=6, do_sample=False, return_dict_in_generate=True, output_scores=True
    )
    out[f"{prefix}/greedy"] = _np(greedy.sequences)
    out[f"{prefix}/greedy_scores"] = np.stack([_np(s) for s in greedy.scores])
    beam = model.generate(
        **kw, max_new_tokens=5, num_beams=3, num_return_sequences=2, do_sample=False
    )
    out[f"{prefix}/beam"] = _np(beam)
    nocache = model.generate(**kw, max_new_tokens=4, do_sample=False, use_cache=False)
    out[f"{prefix}/nocache"] = _np(nocache)
    # logits processors, and sampling that can pick one token only (top_k=1)
    processed = model.generate(
        **kw, max_new_tokens=6, do_sample=False, repetition_penalty=1.5, no_repeat_ngram_size=2
    )
    out[f"{prefix}/processors"] = _np(processed)
    sampled = model.generate(**kw, max_new_tokens=5, do_sample=True, top_k=1, temperature=0.7)
    out[f"{prefix}/top1_sampling"] = _np(sampled)
    if not model.config.is_encoder_decoder:
        # a StaticCache (torch._dynamo.mark_static_address), and assisted decoding (batch 1)
        static = model.generate(
            **kw, max_new_tokens=5, do_sample=False, cache_implementation="static"
        )
        out[f"{prefix}/static"] = _np(static)
        one = {k: v[:1] for k, v in kw.items()}
        assisted = model.generate(**one, max_new_tokens=4, do_sample=False, assistant_model=model)
        out[f"{prefix}/assisted"] = _np(assisted)


def run_case(name: str, model: torch.nn.Module, x: dict, impl: str) -> dict:
    """The results of one model (loaded with attention implementation ``impl``)."""
    out: dict = {}
    p = f"{name}/{impl}"
    eager = impl == "eager"
    model.eval()
    if name in ("bert_seq", "bert_mlm", "distilbert", "roberta"):
        labels = {"bert_seq": "labels3", "distilbert": "labels2"}.get(name, "mlm_labels")
        res = model(
            input_ids=x["ids"],
            attention_mask=x["mask"],
            labels=x[labels],
            output_hidden_states=True,
            output_attentions=eager,
        )
        _outputs(out, p, res)
        _grads(out, p, model, res.loss)
    elif name == "vit":
        res = model(
            pixel_values=x["pixels"],
            labels=x["labels3"],
            output_hidden_states=True,
            output_attentions=eager,
        )
        _outputs(out, p, res)
        _grads(out, p, model, res.loss)
    elif name in ("gpt2", "llama"):
        res = model(
            input_ids=x["ids"],
            attention_mask=x["mask"],
            labels=x["ids"],
            output_hidden_states=True,
            output_attentions=eager,
        )
        _outputs(out, p, res)
        _grads(out, p, model, res.loss)
        if name == "llama" and eager:
            # activation checkpointing (torch.utils.checkpoint) in training mode
            model.activation_checkpointing_enable()
            model.train()
            res = model(input_ids=x["ids"], attention_mask=x["mask"], labels=x["ids"])
            _grads(out, f"{p}/checkpointed", model, res.loss)
            model.activation_checkpointing_disable()
            model.eval()
        with torch.no_grad():
            # the KV cache: a prefix, then the rest with the cache, equals the whole
            cache = DynamicCache(config=model.config)
            first = model(input_ids=x["ids"][:, :4], past_key_values=cache, use_cache=True)
            rest = model(input_ids=x["ids"][:, 4:], past_key_values=first.past_key_values)
            out[f"{p}/cached_logits"] = np.concatenate(
                [_np(first.logits), _np(rest.logits)], axis=1
            )
            for i, layer in enumerate(rest.past_key_values.layers):
                out[f"{p}/cache/{i}/keys"] = _np(layer.keys)
                out[f"{p}/cache/{i}/values"] = _np(layer.values)
            _generate(out, p, model, input_ids=x["ids"], attention_mask=x["left_mask"])
    elif name == "t5":
        res = model(
            input_ids=x["ids"],
            attention_mask=x["mask"],
            labels=x["dec_ids"],
            output_hidden_states=True,
            output_attentions=eager,
        )
        _outputs(out, p, res)
        for i, v in enumerate(res.decoder_hidden_states):
            out[f"{p}/decoder_hidden_states/{i}"] = _np(v)
        if eager:
            for i, v in enumerate(res.cross_attentions):
                out[f"{p}/cross_attentions/{i}"] = _np(v)
        _grads(out, p, model, res.loss)
        with torch.no_grad():
            _generate(out, p, model, input_ids=x["ids"], attention_mask=x["mask"])
    return out


def run_loaded(root: str, names: list) -> dict:
    """Load each saved model with each attention implementation and run its case."""
    x = inputs()
    out: dict = {}
    for name in names:
        cls = configs()[name][0]
        for impl in ("eager", "sdpa"):
            model = cls.from_pretrained(os.path.join(root, name), attn_implementation=impl)
            out.update(run_case(name, model, x, impl))
        if name == "bert_seq":
            # the bare encoder, loaded from the classifier's directory
            model = BertModel.from_pretrained(os.path.join(root, name), attn_implementation="eager")
            res = model(input_ids=x["ids"], attention_mask=x["mask"], output_hidden_states=True)
            _outputs(out, "bert_base/eager", res)
    return out


def build_and_save(root: str, names: list, seed: int) -> None:
    """Build the models from their configurations (this side's random init) and save them."""
    for name in names:
        cls, cfg = configs()[name]
        torch.manual_seed(seed)
        cls(cfg).save_pretrained(os.path.join(root, name))


def tokenizer_case() -> dict:
    """A WordLevel tokenizer from an in-memory vocabulary, wrapped as a fast tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "a"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]")
    enc = fast(["the cat sat on the mat", "a dog sat"], padding=True, return_tensors="pt")
    assert isinstance(enc["input_ids"], torch.Tensor), type(enc["input_ids"])
    assert enc["input_ids"].dtype == torch.int64
    return {
        "tok/input_ids": _np(enc["input_ids"]),
        "tok/attention_mask": _np(enc["attention_mask"]),
    }


def torch_gaps_case(root: str) -> dict:
    """The torch features transformers and safetensors lean on, computed on this side."""
    import torch.distributed.tensor as dt
    from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex

    out: dict = {}
    path = os.path.join(root, "gaps.bin")
    np.arange(10, dtype=np.float32).tofile(path)
    storage = torch.UntypedStorage.from_file(path, shared=False, nbytes=40)
    part = storage[4:12]
    out["gap/storage"] = np.array([storage.nbytes(), part.nbytes(), storage[4], storage[7]])
    out["gap/asarray_u8"] = _np(torch.asarray(part, dtype=torch.uint8))
    out["gap/asarray_f32"] = _np(torch.asarray(storage, dtype=torch.float32))
    out["gap/asarray_default"] = _np(torch.asarray(storage))
    out["gap/view_dtype"] = _np(torch.asarray(part, dtype=torch.uint8).view(dtype=torch.float32))
    try:
        torch.UntypedStorage.from_file(path, shared=False, nbytes=80)
    except RuntimeError as exc:
        out["gap/from_file_error"] = np.array(str(exc).replace(path, "F"))
    x = torch.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    out["gap/sum_axis"] = _np(torch.sum(x, axis=1, keepdims=True))
    out["gap/all_axis"] = _np(torch.all(x > 2, axis=-1, keepdims=True))
    out["gap/mean_axis"] = _np(x.mean(axis=0))
    out["gap/max_axis"] = _np(x.max(axis=1).values)
    meta = torch.ones(2, 3, device="meta")
    made = [torch.empty_like(meta, device="cpu"), torch.zeros_like(meta, device="cpu")]
    out["gap/like_devices"] = np.array([str(t.device) for t in made] + [str(made[1].sum())])
    with TransformGetItemToIndex():
        picked = [x[1], x[torch.tensor(2), 3], x[0, 1]]
    out["gap/getitem_mode"] = np.concatenate([_np(t).ravel() for t in picked])
    places = [dt.Shard(1), dt.Replicate(), dt.Partial(), dt.Partial("avg")]
    out["gap/placements"] = np.array([repr(p) + "|" + str(p) for p in places])
    out["gap/placement_checks"] = np.array(
        [
            dt.Shard(0) == dt.Shard(0),
            dt.Shard(0) == dt.Shard(1),
            dt.Shard(0).is_shard(),
            dt.Shard(0).is_shard(1),
            dt.Partial("avg").is_partial("avg"),
            dt.Replicate().is_replicate(),
            dt.Replicate().is_shard(),
            isinstance(x, dt.DTensor),
        ]
    )
    out["gap/shard_sizes"] = np.array(
        [
            dt.Shard.local_shard_size_and_offset(n, k, r)
            for n, k, r in [(10, 4, 3), (10, 4, 2), (8, 4, 1), (3, 4, 3)]
        ]
    )
    return out


def extras_case(root: str) -> dict:
    """float64 loading (``dtype=``) and the pipelines, on the models in ``root``."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, pipeline

    x = inputs()
    out: dict = {}
    # (GPT-2: LLaMA's rotary tables are computed in float32 whatever the model's dtype)
    gpt2 = GPT2LMHeadModel.from_pretrained(os.path.join(root, "gpt2"), dtype=torch.float64)
    res = gpt2(input_ids=x["ids"], attention_mask=x["mask"], labels=x["ids"])
    out["f64/gpt2/logits"] = _np(res.logits)
    out["f64/gpt2/loss"] = _np(res.loss)
    # (transformers' loss upcasts the logits with .float(), float32: a float64 objective)
    _grads(out, "f64/gpt2", gpt2, (res.logits**2).mean())
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + [f"w{i}" for i in range(V - 4)]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]")
    generator = pipeline("text-generation", model=os.path.join(root, "gpt2"), tokenizer=fast)
    texts = generator(["w1 w2 w3", "w9 w4"], max_new_tokens=4, do_sample=False)
    out["pipe/generated"] = np.array([t[0]["generated_text"] for t in texts])
    classifier = pipeline(
        "text-classification", model=os.path.join(root, "bert_seq"), tokenizer=fast
    )
    scored = classifier(["w1 w2 w3", "w5 w6 w7 w8"], top_k=None)
    out["pipe/labels"] = np.array([[d["label"] for d in row] for row in scored])
    out["pipe/scores"] = np.array([[d["score"] for d in row] for row in scored], dtype=np.float32)
    return out


def trainer_case(root: str, side: str) -> dict:
    """A few ``Trainer`` steps (linear schedule, gradient clipping, AdamW) on a tiny dataset,
    in order and without dropout so both sides see the same batches; needs accelerate."""
    try:
        import accelerate  # noqa: F401
    except ImportError:
        return {}
    from transformers import Trainer, TrainingArguments

    rng = np.random.RandomState(1)
    ids, labels = rng.randint(3, V, size=(8, 6)), rng.randint(0, 3, size=8)

    class Data(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return len(ids)

        def __getitem__(self, i: int) -> dict:
            return {"input_ids": torch.tensor(ids[i]), "labels": torch.tensor(labels[i])}

    class InOrder(Trainer):
        def _get_train_sampler(self, *args: object, **kwargs: object) -> object:
            return torch.utils.data.SequentialSampler(self.train_dataset)

    model = BertForSequenceClassification.from_pretrained(
        os.path.join(root, "oracle", "bert_seq"),
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    args = TrainingArguments(
        output_dir=os.path.join(root, f"trainer_{side}"),
        per_device_train_batch_size=4,
        num_train_epochs=2,
        learning_rate=1e-2,
        max_grad_norm=0.5,
        report_to=[],
        save_strategy="no",
        logging_steps=1,
        use_cpu=True,
        disable_tqdm=True,
        seed=0,
    )
    trainer = InOrder(model=model, args=args, train_dataset=Data())
    trainer.train()
    logs = trainer.state.log_history
    out = {
        "trainer/losses": np.array([h["loss"] for h in logs if "loss" in h], dtype=np.float64),
        "trainer/grad_norms": np.array(
            [h["grad_norm"] for h in logs if "grad_norm" in h], dtype=np.float64
        ),
    }
    for name, p in model.named_parameters():
        out[f"trainer/param/{name}"] = _np(p)
    x = inputs()
    for device_map in ("auto", "cpu"):  # (accelerate's big-model loading)
        llama = LlamaForCausalLM.from_pretrained(
            os.path.join(root, "oracle", "llama"), device_map=device_map
        )
        with torch.no_grad():
            out[f"accel/{device_map}/logits"] = _np(llama(input_ids=x["ids"]).logits)
    return out


def zoo() -> dict:
    """More decoder and encoder-decoder families, each a forward, gradients and greedy
    decoding (Gemma 2: eager attention only, as transformers allows)."""
    from transformers import (
        BartConfig,
        BartForConditionalGeneration,
        Gemma2Config,
        Gemma2ForCausalLM,
        GPTNeoXConfig,
        GPTNeoXForCausalLM,
        MistralConfig,
        MistralForCausalLM,
        MixtralConfig,
        MixtralForCausalLM,
        OPTConfig,
        OPTForCausalLM,
        Phi3Config,
        Phi3ForCausalLM,
        Qwen2Config,
        Qwen2ForCausalLM,
    )

    small = dict(
        vocab_size=V,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    both, eager = ("eager", "sdpa"), ("eager",)
    return {
        "mistral": (MistralForCausalLM, MistralConfig(sliding_window=4, **small), both),
        "qwen2": (Qwen2ForCausalLM, Qwen2Config(**small), both),
        "gemma2": (Gemma2ForCausalLM, Gemma2Config(head_dim=8, sliding_window=4, **small), eager),
        "phi3": (Phi3ForCausalLM, Phi3Config(pad_token_id=0, **small), both),
        "mixtral": (
            MixtralForCausalLM,
            MixtralConfig(num_local_experts=4, num_experts_per_tok=2, **small),
            both,
        ),
        "neox": (
            GPTNeoXForCausalLM,
            GPTNeoXConfig(
                vocab_size=V,
                hidden_size=16,
                intermediate_size=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                max_position_embeddings=64,
            ),
            both,
        ),
        "opt": (
            OPTForCausalLM,
            OPTConfig(
                vocab_size=V,
                hidden_size=16,
                ffn_dim=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                max_position_embeddings=64,
                word_embed_proj_dim=16,
            ),
            both,
        ),
        "bart": (
            BartForConditionalGeneration,
            BartConfig(
                vocab_size=V,
                d_model=16,
                encoder_layers=1,
                decoder_layers=1,
                encoder_attention_heads=2,
                decoder_attention_heads=2,
                encoder_ffn_dim=32,
                decoder_ffn_dim=32,
                max_position_embeddings=64,
            ),
            both,
        ),
    }


def zoo_case(root: str, save: bool) -> dict:
    """The :func:`zoo` models (saved by real PyTorch when ``save``), run on this side."""
    ids = inputs()["ids"]
    out: dict = {}
    for name, (cls, cfg, impls) in zoo().items():
        path = os.path.join(root, "zoo", name)
        if save:
            torch.manual_seed(0)
            cls(cfg).save_pretrained(path)
        for impl in impls:
            model = cls.from_pretrained(path, attn_implementation=impl)
            res = model(input_ids=ids, labels=ids)
            p = f"zoo/{name}/{impl}"
            out[f"{p}/logits"] = _np(res.logits)
            out[f"{p}/loss"] = _np(res.loss)
            _grads(out, p, model, res.loss)
            with torch.no_grad():
                out[f"{p}/greedy"] = _np(model.generate(ids, max_new_tokens=4, do_sample=False))
    return out


NAMES = ["bert_seq", "bert_mlm", "gpt2", "llama", "t5", "distilbert", "roberta", "vit"]
OWN = ["bert_seq", "gpt2", "llama", "t5"]  # built by chainrule and loaded by PyTorch


def main() -> None:
    mode, root = sys.argv[1], sys.argv[2]
    if mode == "oracle-make":
        build_and_save(os.path.join(root, "oracle"), NAMES, seed=0)
        out = run_loaded(os.path.join(root, "oracle"), NAMES)
        out.update(tokenizer_case())
        out.update(torch_gaps_case(root))
        out.update(extras_case(os.path.join(root, "oracle")))
        out.update(trainer_case(root, "oracle"))
        out.update(zoo_case(root, save=True))
        np.savez(os.path.join(root, "oracle_make.npz"), **out)
    elif mode == "chainrule":
        out = run_loaded(os.path.join(root, "oracle"), NAMES)
        out.update(tokenizer_case())
        out.update(torch_gaps_case(root))
        out.update(extras_case(os.path.join(root, "oracle")))
        out.update(trainer_case(root, "chainrule"))
        out.update(zoo_case(root, save=False))
        out["torch_is_chainrule"] = np.array(torch.__spec__.name == "chainrule")
        np.savez(os.path.join(root, "chainrule_load.npz"), **out)
        build_and_save(os.path.join(root, "cr"), OWN, seed=1)
        np.savez(
            os.path.join(root, "chainrule_own.npz"), **run_loaded(os.path.join(root, "cr"), OWN)
        )
    elif mode == "oracle-check":
        np.savez(
            os.path.join(root, "oracle_check.npz"), **run_loaded(os.path.join(root, "cr"), OWN)
        )
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
