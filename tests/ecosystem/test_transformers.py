"""Hugging Face transformers runs unchanged under ``chainrule run``.

Tiny BERT, GPT-2, LLaMA (GQA, rotary embeddings), T5, DistilBERT, RoBERTa and ViT models,
saved by real PyTorch with ``save_pretrained`` (safetensors), are loaded under chainrule
with ``from_pretrained`` for the "eager" and "sdpa" attention implementations: forward
outputs (logits, hidden states, attentions), losses, every parameter's gradient (also with
activation checkpointing), the KV cache (DynamicCache, StaticCache) and ``generate``
(greedy with scores, beam search, no cache, logits processors, top-1 sampling, assisted
decoding) equal PyTorch's; a float64 model to float64 precision. Mistral, Qwen2, Gemma 2,
Phi-3, Mixtral, GPT-NeoX, OPT and BART give PyTorch's logits, gradients and tokens too. Models built and saved
by chainrule load in real PyTorch and give chainrule's results there. A WordLevel
tokenizer wrapped as ``PreTrainedTokenizerFast`` gives chainrule tensors, and the
text-generation and text-classification pipelines give PyTorch's texts and scores. With
accelerate installed, ``Trainer`` steps and ``device_map`` loading are compared too. The
cases are in ``hf_cases.py``, run once per side.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")

CASES = str(Path(__file__).with_name("hf_cases.py"))
MODELS = ["bert_seq", "bert_mlm", "gpt2", "llama", "t5", "distilbert", "roberta", "vit"]
OWN = ["bert_seq", "gpt2", "llama", "t5"]
GENERATION = ("greedy", "greedy_scores", "beam", "nocache", "processors", "top1_sampling")
GENERATION += ("static", "assisted")


def _run(args: list, root: Path) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", TRANSFORMERS_NO_ADVISORY_WARNINGS="1")
    proc = subprocess.run(
        [*args, str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("hf")
    _run([sys.executable, CASES, "oracle-make"], root)
    _run([sys.executable, "-m", "chainrule", "run", CASES, "chainrule"], root)
    _run([sys.executable, CASES, "oracle-check"], root)
    return {
        name: dict(np.load(root / f"{name}.npz"))
        for name in ("oracle_make", "chainrule_load", "oracle_check", "chainrule_own")
    }


def _kind(key: str) -> str:
    last = key.rsplit("/", 1)[-1]
    if "/grad/" in key:
        return "grads"
    if last in GENERATION:
        return "generate"
    if "/cache/" in key or last == "cached_logits":
        return "cache"
    return "forward"


def _compare(
    expected: dict, got: dict, prefix: str, kind: str, rtol: float = 1e-5, atol: float = 1e-6
) -> int:
    """Assert every ``prefix`` result of ``kind`` equal; return how many were compared."""
    keys = [k for k in expected if k.startswith(prefix) and _kind(k) == kind]
    # gradients are compared at the scale of the model's largest one (a key projection's
    # bias has a gradient of zero in exact arithmetic: both sides give rounding noise)
    grads = [float(np.abs(expected[k]).max()) for k in keys if kind == "grads" and expected[k].size]
    grad_scale = max(grads, default=0.0)
    for key in keys:
        want, have = expected[key], got[key]
        assert have.shape == want.shape and have.dtype == want.dtype, key
        if want.dtype.kind in "biuU":
            np.testing.assert_array_equal(have, want, err_msg=key)
            continue
        scale = max(float(np.abs(want).max()) if want.size else 0.0, grad_scale, 1e-30)
        np.testing.assert_allclose(have, want, rtol=rtol, atol=atol * scale, err_msg=key)
    return len(keys)


def test_chainrule_side_runs_on_chainrule(results: dict) -> None:
    assert bool(results["chainrule_load"]["torch_is_chainrule"])


@pytest.mark.parametrize("kind", ["forward", "grads"])
@pytest.mark.parametrize("model", MODELS)
def test_pytorch_saved_model_on_chainrule(results: dict, model: str, kind: str) -> None:
    assert _compare(results["oracle_make"], results["chainrule_load"], model + "/", kind) > 0


@pytest.mark.parametrize(
    ("model", "kind"),
    [("gpt2", "generate"), ("gpt2", "cache"), ("llama", "generate"), ("llama", "cache")]
    + [("t5", "generate")],
)
def test_generate_and_cache(results: dict, model: str, kind: str) -> None:
    assert _compare(results["oracle_make"], results["chainrule_load"], model + "/", kind) > 0


def test_bare_encoder_from_classifier_directory(results: dict) -> None:
    assert _compare(results["oracle_make"], results["chainrule_load"], "bert_base/", "forward") > 0


@pytest.mark.parametrize(
    ("model", "kind"),
    [
        (m, k)
        for m in OWN
        for k in ("forward", "grads", "generate")
        if (m, k) != ("bert_seq", "generate")
    ],
)
def test_chainrule_saved_model_on_pytorch(results: dict, model: str, kind: str) -> None:
    assert _compare(results["oracle_check"], results["chainrule_own"], model + "/", kind) > 0


@pytest.mark.parametrize("kind", ["forward", "grads"])
def test_float64_model(results: dict, kind: str) -> None:
    """from_pretrained(dtype=torch.float64): equal to float64 precision."""
    expected, got = results["oracle_make"], results["chainrule_load"]
    assert _compare(expected, got, "f64/", kind, rtol=1e-10, atol=1e-12) > 0


def test_pipelines(results: dict) -> None:
    """pipeline("text-generation") and pipeline("text-classification") with a model
    directory and the WordLevel tokenizer: the same texts, labels and scores."""
    assert _compare(results["oracle_make"], results["chainrule_load"], "pipe/", "forward") == 3


def test_tokenizer_returns_tensors(results: dict) -> None:
    assert _compare(results["oracle_make"], results["chainrule_load"], "tok/", "forward") == 2


def test_torch_features_transformers_uses(results: dict) -> None:
    """UntypedStorage.from_file and slicing, asarray of a storage, view(dtype=), NumPy's
    axis/keepdims names, *_like of a meta tensor on the CPU, TransformGetItemToIndex and
    the DTensor placement types."""
    assert _compare(results["oracle_make"], results["chainrule_load"], "gap/", "forward") == 15


_FUNCTIONAL = """
import chainrule as torch
import chainrule.distributed as dist
from chainrule.distributed._functional_collectives import all_to_all_single_autograd, wait_tensor
dist.init_process_group("mpi")
x = torch.arange(6.0).reshape(3, 2).requires_grad_()
y = all_to_all_single_autograd(x, [3], [3], dist.group.WORLD)
assert wait_tensor(y) is y
(y * torch.arange(6.0).reshape(3, 2)).sum().backward()
print(dist.get_world_size(), y.tolist(), x.grad.tolist())
"""


def test_functional_all_to_all_in_a_one_rank_job() -> None:
    """transformers' expert parallelism calls all_to_all_single_autograd: on one rank it
    gives its input back, and the gradient flows back the same way."""
    pytest.importorskip("mpi4py")
    done = subprocess.run(
        [sys.executable, "-c", _FUNCTIONAL],
        env=dict(os.environ, OMP_NUM_THREADS="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert done.stdout.split("\n")[0] == f"1 {rows} {rows}"


def test_trainer_steps(results: dict) -> None:
    """Trainer (AdamW, linear schedule, gradient clipping) for 4 steps: the same logged
    losses and gradient norms, and the same trained parameters."""
    pytest.importorskip("accelerate")  # (transformers' Trainer needs it)
    expected, got = results["oracle_make"], results["chainrule_load"]
    for key in ("trainer/losses", "trainer/grad_norms"):
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, err_msg=key)
    params = [k for k in expected if k.startswith("trainer/param/")]
    scale = max(float(np.abs(expected[k]).max()) for k in params)
    for key in params:
        if ".attention.self.key.bias" in key:
            # zero in exact arithmetic: Adam normalizes each side's rounding noise into a
            # step, so these move by about 1e-8 differently on the two sides
            assert np.abs(got[key]).max() < 1e-6 and np.abs(expected[key]).max() < 1e-6
            continue
        # (AdamW divides by the root of the second moment: where a gradient is tiny, as for
        # a unit GELU keeps near zero, float32 rounding is amplified into the step)
        np.testing.assert_allclose(
            got[key], expected[key], rtol=1e-5, atol=1e-5 * scale, err_msg=key
        )
    assert len(params) > 30


def test_device_map_with_accelerate(results: dict) -> None:
    """from_pretrained(device_map="auto" / "cpu"), accelerate's loading path."""
    pytest.importorskip("accelerate")
    assert _compare(results["oracle_make"], results["chainrule_load"], "accel/", "forward") == 2


ZOO = ["mistral", "qwen2", "gemma2", "phi3", "mixtral", "neox", "opt", "bart"]


@pytest.mark.parametrize("kind", ["forward", "grads", "generate"])
@pytest.mark.parametrize("model", ZOO)
def test_more_model_families(results: dict, model: str, kind: str) -> None:
    """Mistral (sliding window), Qwen2, Gemma 2 (soft-capping), Phi-3, Mixtral (mixture of
    experts), GPT-NeoX, OPT and BART: logits, loss, gradients and greedy decoding."""
    expected, got = results["oracle_make"], results["chainrule_load"]
    assert _compare(expected, got, f"zoo/{model}/", kind) > 0
