"""Data and helpers of the Tacotron2 bundles: symbol sets, padding to a batch, the
DeepPhonemizer checkpoint, the WaveRNN label scale and the builder arguments."""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from typing import Any

import chainrule
from chainrule import Tensor, hub
from chainrule.nn.utils.rnn import pad_sequence

__all__: list[str] = []

_PUNCTUATION = ("_", "-", "!", "'", "(", ")", ",", ".", ":", ";", "?", " ")


def _get_chars() -> tuple[str, ...]:
    """Padding ``_``, punctuation, space, then ``a``-``z``."""
    return (*_PUNCTUATION, *"abcdefghijklmnopqrstuvwxyz")


def _stressed(*phones: str) -> tuple[str, ...]:
    """Each vowel of CMUdict followed by its stress variants 0, 1, 2."""
    return tuple(f"{p}{s}" for p in phones for s in ("", "0", "1", "2"))


def _get_phones() -> tuple[str, ...]:
    """Padding, punctuation and space, then the CMUdict (ARPAbet) phonemes in alphabetical
    order, each vowel also with its stress marks."""
    return (
        *_PUNCTUATION,
        *_stressed("AA", "AE", "AH", "AO", "AW", "AY"),
        *("B", "CH", "D", "DH"),
        *_stressed("EH", "ER", "EY"),
        *("F", "G", "HH"),
        *_stressed("IH", "IY"),
        *("JH", "K", "L", "M", "N", "NG"),
        *_stressed("OW", "OY"),
        *("P", "R", "S", "SH", "T", "TH"),
        *_stressed("UH", "UW"),
        *("V", "W", "Y", "Z", "ZH"),
    )


def _to_tensor(indices: list[list[int]]) -> tuple[Tensor, Tensor]:
    """Zero-padded ``(batch, max length)`` int64 ids and their int32 lengths."""
    lengths = chainrule.tensor([len(i) for i in indices], dtype=chainrule.int32)
    values = pad_sequence([chainrule.tensor(i) for i in indices], batch_first=True)
    return values, lengths


def _load_phonemizer(file: str, dl_kwargs: dict[str, Any] | None) -> Any:
    """DeepPhonemizer's ``Phonemizer`` from the checkpoint ``file`` (fetched into the hub's
    ``checkpoints`` directory unless already there)."""
    if importlib.util.find_spec("dp") is None:
        raise RuntimeError("DeepPhonemizer is not installed. Please install it.")
    from dp.phonemizer import Phonemizer
    from dp.preprocessing.text import LanguageTokenizer, Preprocessor, SequenceTokenizer

    # DeepPhonemizer loads its checkpoint with the ``torch`` it imported (PyTorch, or
    # chainrule under ``chainrule run``); its pickled preprocessors must be allowed there.
    dp_torch = sys.modules["torch"]

    logger = logging.getLogger("dp")  # dp logs at DEBUG by default
    orig_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        url = f"https://public-asai-dl-models.s3.eu-central-1.amazonaws.com/DeepPhonemizer/{file}"
        directory = os.path.join(hub.get_dir(), "checkpoints")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, file)
        if not os.path.exists(path):
            hub.download_url_to_file(url, path, **({} if dl_kwargs is None else dl_kwargs))
        allowed = [Preprocessor, LanguageTokenizer, SequenceTokenizer]
        with dp_torch.serialization.safe_globals(allowed):
            return Phonemizer.from_checkpoint(path)
    finally:
        logger.setLevel(orig_level)


def _unnormalize_waveform(waveform: Tensor, bits: int) -> Tensor:
    """Waveform in ``[-1, 1]`` to integer labels ``(x + 1) (2**bits - 1) / 2`` in
    ``[0, 2**bits - 1]`` (truncated)."""
    waveform = chainrule.clamp(waveform, -1, 1)
    waveform = (waveform + 1.0) * (2**bits - 1) / 2
    return chainrule.clamp(waveform, 0, 2**bits - 1).int()


def _get_taco_params(n_symbols: int) -> dict[str, Any]:
    """``Tacotron2`` arguments of the LJSpeech bundles (the defaults, ``n_symbol`` set)."""
    return {
        "mask_padding": False,
        "n_mels": 80,
        "n_frames_per_step": 1,
        "symbol_embedding_dim": 512,
        "encoder_embedding_dim": 512,
        "encoder_n_convolution": 3,
        "encoder_kernel_size": 5,
        "decoder_rnn_dim": 1024,
        "decoder_max_step": 2000,
        "decoder_dropout": 0.1,
        "decoder_early_stopping": True,
        "attention_rnn_dim": 1024,
        "attention_hidden_dim": 128,
        "attention_location_n_filter": 32,
        "attention_location_kernel_size": 31,
        "attention_dropout": 0.1,
        "prenet_dim": 256,
        "postnet_n_convolution": 5,
        "postnet_kernel_size": 5,
        "postnet_embedding_dim": 512,
        "gate_threshold": 0.5,
        "n_symbol": n_symbols,
    }


def _get_wrnn_params() -> dict[str, Any]:
    """``WaveRNN`` arguments of the 8-bit LJSpeech vocoder (hop 275 = 5 * 5 * 11)."""
    return {
        "upsample_scales": [5, 5, 11],
        "n_classes": 2**8,
        "hop_length": 275,
        "n_res_block": 10,
        "n_rnn": 512,
        "n_fc": 512,
        "kernel_size": 5,
        "n_freq": 80,
        "n_hidden": 128,
        "n_output": 128,
    }
