"""sentence-transformers runs unchanged under ``chainrule run`` and gives what it gives on
the real PyTorch.

A SentenceTransformer assembled from a tiny BERT folder saved by real PyTorch (with a
WordPiece tokenizer built in memory), Pooling (mean, CLS, max, mean-sqrt-len) and
Normalize: ``encode`` (batches, single texts, numpy or tensors, ``normalize_embeddings``,
token embeddings), ``util.cos_sim``/``dot_score``/``semantic_search``/``paraphrase_mining``
and ``model.similarity``; CosineSimilarityLoss and MultipleNegativesRankingLoss training
steps (the trainer's step by hand: ``fit`` needs the ``datasets`` package) and CoSENT
gradients; a saved model with a Dense (ReLU) layer loaded; a CrossEncoder's ``predict``,
``rank`` and BinaryCrossEntropyLoss steps. Models chainrule saves load in the real library
with chainrule's results (st_cases.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from three_sides import check_case, check_reports, run_all

needed = ("torch", "transformers", "tokenizers", "sentence_transformers")
if not all(importlib.util.find_spec(m) for m in needed):
    pytest.skip(
        "needs the real torch and sentence-transformers (the oracle)", allow_module_level=True
    )

SCRIPT = Path(__file__).with_name("st_cases.py")
CASES = ["encode", "similarity_and_search", "training_losses", "saved_model_loads", "cross_encoder"]
TRAINING = {"training_losses", "cross_encoder"}


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The reports: oracle, chainrule, own (chainrule's saved models) and check (the real
    library loading them)."""
    return run_all(SCRIPT, "st", tmp_path_factory.mktemp("st"))


def test_sides(sides: dict) -> None:
    check_reports(sides, CASES, ["own_models"])


@pytest.mark.parametrize("case", CASES)
def test_case(sides: dict, case: str) -> None:
    check_case(sides["oracle"], sides["chainrule"], case, case in TRAINING)


def test_chainrule_models_load_in_real_library(sides: dict) -> None:
    check_case(sides["own"], sides["check"], "own_models", False)
