"""The sentence-transformers cases of test_sentence_transformers.py, run once per side.

``python st_cases.py OUT oracle``: the real PyTorch saves a tiny BERT (and a BERT
sequence classifier) with a WordPiece tokenizer built in memory (``OUT/base/...``), saves
a whole SentenceTransformer and a CrossEncoder (``OUT/oracle/...``), runs every case and
writes ``OUT/st_oracle.npz``. ``chainrule run st_cases.py OUT chainrule`` loads those
folders and runs the same cases (``OUT/st_chainrule.npz``), then saves models of its own
(``OUT/cr/...``, with their results in ``OUT/st_own.npz``) that ``python st_cases.py OUT
check`` loads with the real library (``OUT/st_check.npz``). A case that raises records
its traceback in ``OUT/st_<side>_errors.json``.
"""

from __future__ import annotations

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
from sentence_transformers import CrossEncoder, SentenceTransformer, losses, util  # noqa: E402
from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss  # noqa: E402
from sentence_transformers.sentence_transformer import modules  # noqa: E402

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

CASES = Cases(copies=True)
case, own, put = CASES.case, CASES.own, CASES.put

WORDS = "the a cat dog sat ran on under mat rug big small red blue fast slow house tree".split()
SENTENCES = [
    "the cat sat on the mat",
    "a dog ran under the tree",
    "the big red dog sat",
    "a small blue cat ran fast",
    "the house",
    "slow dog on a rug under the big tree",
    "cat",
]


def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A WordPiece tokenizer over an in-memory vocabulary, adding [CLS] and [SEP]."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "##s", "##ed"]
    ids = {w: i for i, w in enumerate(vocab)}
    tok = Tokenizer(models.WordPiece(ids, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tok.decoder = decoders.WordPiece()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=32,
    )


def base(name: str) -> str:
    """The folder of base model ``name`` (a tokenizer beside it), made on the oracle side."""
    path = os.path.join(OUT, "base", name)
    if SIDE == "oracle" and not os.path.exists(path):
        cfg = transformers.BertConfig(
            vocab_size=32,
            hidden_size=16,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=32,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
            num_labels=1,
        )
        torch.manual_seed(0)
        cls = (
            transformers.BertModel if name == "bert" else transformers.BertForSequenceClassification
        )
        cls(cfg).save_pretrained(path)
        tokenizer().save_pretrained(path)
    return path


def bi_encoder(pooling: str = "mean", normalize: bool = True) -> SentenceTransformer:
    layers = [modules.Transformer(base("bert"), max_seq_length=16), modules.Pooling(16, pooling)]
    if normalize:
        layers.append(modules.Normalize())
    return SentenceTransformer(modules=layers, device="cpu")


@case
def encode() -> None:
    model = bi_encoder()
    put("encode/dimension", model.get_sentence_embedding_dimension())
    put("encode/numpy", model.encode(SENTENCES, batch_size=3))
    tensor = model.encode(SENTENCES, batch_size=2, convert_to_tensor=True)
    put("encode/tensor_type", type(tensor).__name__)
    put("encode/tensor", tensor)
    put("encode/single", model.encode(SENTENCES[0]))
    features = model.preprocess(SENTENCES[:3])
    for k in sorted(features):
        put(f"encode/features/{k}", features[k])
    tokens = model.encode(SENTENCES[:2], output_value="token_embeddings")
    put("encode/tokens0", tokens[0])
    put("encode/tokens1", tokens[1])
    for pooling in ("cls", "max", "mean_sqrt_len_tokens"):
        raw = bi_encoder(pooling, normalize=False)
        put(f"encode/{pooling}", raw.encode(SENTENCES, batch_size=4))
        put(
            f"encode/{pooling}_normalized",
            raw.encode(SENTENCES, normalize_embeddings=True, convert_to_tensor=True),
        )


@case
def similarity_and_search() -> None:
    model = bi_encoder(normalize=False)
    queries = model.encode(SENTENCES[:2], convert_to_tensor=True)
    corpus = model.encode(SENTENCES[2:], convert_to_tensor=True)
    put("sim/cos_sim", util.cos_sim(queries, corpus))
    put("sim/dot_score", util.dot_score(queries, corpus))
    put("sim/model_similarity", model.similarity(queries, corpus))
    put("sim/pairwise", model.similarity_pairwise(queries, corpus[:2]))
    hits = util.semantic_search(queries, corpus, top_k=3)
    put("sim/search_ids", np.array([[h["corpus_id"] for h in q] for q in hits]))
    put("sim/search_scores", np.array([[h["score"] for h in q] for q in hits]))
    mined = util.paraphrase_mining(model, SENTENCES, top_k=2)
    put("sim/mined_scores", np.array([m[0] for m in mined]))
    put("sim/mined_pairs", np.array([m[1:] for m in mined]))


def train(model: SentenceTransformer, loss: torch.nn.Module, batches: list) -> list[float]:
    """The trainer's step by hand (without `datasets`): preprocess the columns, call the
    loss module on the features, AdamW."""
    opt = torch.optim.AdamW(loss.parameters(), lr=1e-2)
    model.train()
    values = []
    for columns, labels in batches:
        features = [model.preprocess(col) for col in columns]
        value = loss(features, labels) if labels is not None else loss(features, None)
        opt.zero_grad()
        value.backward()
        opt.step()
        values.append(value.item())
    model.eval()
    return values


@case
def training_losses() -> None:
    model = bi_encoder()
    pairs = [
        ([SENTENCES[:3], SENTENCES[3:6]], torch.tensor([0.9, 0.1, 0.5])),
        ([SENTENCES[4:], SENTENCES[1:4]], torch.tensor([0.2, 0.8, 0.3])),
    ] * 2
    put("train/cosine_losses", np.array(train(model, losses.CosineSimilarityLoss(model), pairs)))
    put("train/cosine_encode", model.encode(SENTENCES))
    model = bi_encoder()
    triples = [([SENTENCES[:3], SENTENCES[3:6], SENTENCES[1:4]], None)] * 3
    mnrl = losses.MultipleNegativesRankingLoss(model)
    put("train/mnrl_losses", np.array(train(model, mnrl, triples)))
    put("train/mnrl_encode", model.encode(SENTENCES))
    model = bi_encoder()
    loss = losses.CoSENTLoss(model)
    features = [model.preprocess(SENTENCES[:3]), model.preprocess(SENTENCES[3:6])]
    value = loss(features, torch.tensor([0.9, 0.1, 0.5]))
    value.backward()
    put("train/cosent", value)
    for name, p in model.named_parameters():
        if p.grad is not None:  # (the pooler is not used)
            put(f"train/grad/{name}", p.grad)


@case
def saved_model_loads() -> None:
    path = os.path.join(OUT, "oracle", "st")
    if SIDE == "oracle":
        model = bi_encoder(normalize=False)
        torch.manual_seed(3)
        dense = modules.Dense(16, 8, activation_function=torch.nn.ReLU())
        model = SentenceTransformer(modules=[*model, dense, modules.Normalize()], device="cpu")
        model.save(path)
    model = SentenceTransformer(path, device="cpu")
    put("saved/modules", np.array([type(m).__name__ for m in model]))
    put("saved/encode", model.encode(SENTENCES, batch_size=4))
    put("saved/max_seq_length", model.max_seq_length)


@case
def cross_encoder() -> None:
    path = os.path.join(OUT, "oracle", "ce")
    if SIDE == "oracle":
        model = CrossEncoder(base("bert_cls"), device="cpu")
        torch.manual_seed(4)
        with torch.no_grad():
            model.model.classifier.weight.normal_()
        model.save(path)
    model = CrossEncoder(path, device="cpu")
    pairs = [(SENTENCES[0], s) for s in SENTENCES[1:]]
    put("ce/predict", model.predict(pairs, batch_size=4))
    put("ce/predict_tensor", model.predict(pairs, convert_to_tensor=True))
    ranks = model.rank(SENTENCES[0], SENTENCES[1:], top_k=4, return_documents=False)
    put("ce/rank_ids", np.array([r["corpus_id"] for r in ranks]))
    put("ce/rank_scores", np.array([r["score"] for r in ranks]))
    loss = BinaryCrossEntropyLoss(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    values = []
    for labels in ([1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]):
        value = loss([SENTENCES[:3], SENTENCES[3:6]], torch.tensor(labels))
        opt.zero_grad()
        value.backward()
        opt.step()
        values.append(value.item())
    model.eval()
    put("ce/train_losses", np.array(values))
    put("ce/trained_predict", model.predict(pairs))


@own
def own_models() -> None:
    """chainrule draws a Dense layer (and a CrossEncoder's classifier), trains a step and
    saves; the real library loads. The Dense layer's activation is written into its config
    as a class path, ``torch.nn.modules.activation.ReLU`` (chainrule's classes carry
    PyTorch's paths under ``chainrule run``), which the library imports back."""
    path = os.path.join(OUT, "cr", "st")
    if SIDE == "chainrule":
        model = bi_encoder(normalize=False)
        dense = modules.Dense(16, 4, activation_function=torch.nn.ReLU())
        model = SentenceTransformer(modules=[*model, dense, modules.Normalize()], device="cpu")
        batch = [([SENTENCES[:3], SENTENCES[3:6]], torch.tensor([0.9, 0.1, 0.5]))]
        train(model, losses.CosineSimilarityLoss(model), batch)
        model.save(path)
    model = SentenceTransformer(path, device="cpu")
    put("own/modules", np.array([type(m).__name__ for m in model]))
    put("own/activation", np.array([type(model[2].activation_function).__name__]))
    put("own/encode", model.encode(SENTENCES, batch_size=3))
    path = os.path.join(OUT, "cr", "ce")
    if SIDE == "chainrule":
        ce = CrossEncoder(base("bert_cls"), device="cpu")
        with torch.no_grad():
            ce.model.classifier.weight.normal_()
        ce.save(path)
    ce = CrossEncoder(path, device="cpu")
    put("own/ce", ce.predict([(SENTENCES[0], s) for s in SENTENCES[1:]]))


CASES.run_side(OUT, "st", SIDE)
