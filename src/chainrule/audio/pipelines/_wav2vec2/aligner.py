"""Tokenizer and CTC forced aligner handed out by :class:`Wav2Vec2FABundle`."""

from __future__ import annotations

from abc import ABC, abstractmethod

import chainrule
from chainrule import Tensor
from chainrule.audio import functional as F
from chainrule.audio.functional import TokenSpan

__all__: list[str] = []


class ITokenizer(ABC):
    """Interface: a normalised transcript (list of words) to token-id sequences."""

    @abstractmethod
    def __call__(self, transcript: list[str]) -> list[list[int]]:
        """One list of token ids per word of ``transcript``."""


class Tokenizer(ITokenizer):
    """Maps each character of each word to its index in ``dictionary``."""

    def __init__(self, dictionary: dict[str, int]) -> None:
        self.dictionary = dictionary

    def __call__(self, transcript: list[str]) -> list[list[int]]:
        """``[[dictionary[c] for c in word] for word in transcript]``."""
        return [[self.dictionary[c] for c in word] for word in transcript]


def _align_emission_and_tokens(
    emission: Tensor, tokens: list[int], blank: int = 0
) -> tuple[Tensor, Tensor]:
    """The Viterbi CTC path of ``tokens`` through ``emission`` (time, classes) and the
    per-frame probabilities ``exp(log p)`` along it."""
    targets = chainrule.tensor([tokens], dtype=chainrule.int32, device=emission.device)
    aligned, scores = F.forced_align(emission.unsqueeze(0), targets, blank=blank)
    return aligned[0], scores.exp()[0]


class IAligner(ABC):
    """Interface: emission and tokenized transcript to time-stamped token spans."""

    @abstractmethod
    def __call__(self, emission: Tensor, tokens: list[list[int]]) -> list[list[TokenSpan]]:
        """One list of :class:`TokenSpan` per word; ``emission`` is (time, classes), log."""


def _flatten(nested: list[list]) -> list:
    """The items of the inner lists, in order."""
    return [item for inner in nested for item in inner]


def _unflatten(flat: list, lengths: list[int]) -> list[list]:
    """``flat`` cut into consecutive pieces of the given lengths."""
    assert len(flat) == sum(lengths)
    pieces, start = [], 0
    for length in lengths:
        pieces.append(flat[start : start + length])
        start += length
    return pieces


class Aligner(IAligner):
    """Forced alignment of all words at once, then the spans regrouped per word."""

    def __init__(self, blank: int) -> None:
        self.blank = blank

    def __call__(self, emission: Tensor, tokens: list[list[int]]) -> list[list[TokenSpan]]:
        """Spans of every token (``merge_tokens`` of the aligned path), grouped by word."""
        if emission.ndim != 2:
            raise ValueError(f"The input emission must be 2D. Found: {emission.shape}")
        aligned, scores = _align_emission_and_tokens(emission, _flatten(tokens), self.blank)
        spans = F.merge_tokens(aligned, scores)
        return _unflatten(spans, [len(word) for word in tokens])
