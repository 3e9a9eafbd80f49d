"""Beam search for RNN transducers (Graves, 2012, with the per-frame token limit of
torchaudio's decoder): at each frame, hypotheses either emit blank (moving to the next
frame, merged by token sequence with log-add-exp) or emit a token (staying on the frame),
keeping the ``beam_width`` best."""

from __future__ import annotations

from collections.abc import Callable
from typing import List, Tuple  # noqa: UP035 (Hypothesis is a typing alias, as in torchaudio)

import chainrule
from chainrule import Tensor, nn

from .rnnt import RNNT

__all__ = ["Hypothesis", "RNNTBeamSearch"]

Hypothesis = Tuple[List[int], Tensor, List[List[Tensor]], float]  # noqa: UP006
Hypothesis.__doc__ = """A hypothesis of the RNN-T beam search: ``(tokens, prediction network
output, prediction network state, score)``."""


def _tokens(hypo: Hypothesis) -> list[int]:
    return hypo[0]


def _predictor_out(hypo: Hypothesis) -> Tensor:
    return hypo[1]


def _state(hypo: Hypothesis) -> list[list[Tensor]]:
    return hypo[2]


def _score(hypo: Hypothesis) -> float:
    return hypo[3]


def _key(hypo: Hypothesis) -> str:
    return str(hypo[0])


def _batch_state(hypos: list[Hypothesis]) -> list[list[Tensor]]:
    """The predictor states of ``hypos`` concatenated along the batch axis."""
    first = _state(hypos[0])
    return [
        [chainrule.cat([_state(h)[i][j] for h in hypos]) for j in range(len(first[i]))]
        for i in range(len(first))
    ]


def _slice_state(states: list[list[Tensor]], idx: int) -> list[list[Tensor]]:
    """Row ``idx`` of every batched state tensor (batch axis kept)."""
    index = chainrule.tensor([idx])
    return [[s.index_select(0, index) for s in layer] for layer in states]


def _default_hypo_sort_key(hypo: Hypothesis) -> float:
    """Score per emitted token: ``score / (len(tokens) + 1)``."""
    return _score(hypo) / (len(_tokens(hypo)) + 1)


def _compute_updated_scores(
    hypos: list[Hypothesis], next_token_probs: Tensor, beam_width: int
) -> tuple[Tensor, Tensor, Tensor]:
    """The ``beam_width`` best ``score + log p(token)`` over hypotheses and non-blank
    tokens: ``(scores, hypothesis indices, tokens)``."""
    scores = chainrule.tensor([_score(h) for h in hypos]).unsqueeze(1) + next_token_probs[:, :-1]
    best, flat = scores.reshape(-1).topk(beam_width)
    num_tokens = scores.shape[1]
    return best, flat.div(num_tokens, rounding_mode="trunc"), flat % num_tokens


def _remove_hypo(hypo: Hypothesis, hypo_list: list[Hypothesis]) -> None:
    for i, other in enumerate(hypo_list):
        if _key(hypo) == _key(other):
            del hypo_list[i]
            break


class RNNTBeamSearch(nn.Module):
    """Beam search decoder for an :class:`RNNT` model.

    Args:
        model (RNNT): The transducer.
        blank (int): Index of the blank token.
        temperature (float, optional): Divides the joint logits before the softmax.
            (Default: 1.0)
        hypo_sort_key (Callable[[Hypothesis], float] or None, optional): Ranks the
            hypotheses kept after each frame. (Default: score / (tokens + 1))
        step_max_tokens (int, optional): Most tokens emitted per frame. (Default: 100)
    """

    def __init__(
        self,
        model: RNNT,
        blank: int,
        temperature: float = 1.0,
        hypo_sort_key: Callable[[Hypothesis], float] | None = None,
        step_max_tokens: int = 100,
    ) -> None:
        super().__init__()
        self.model = model
        self.blank = blank
        self.temperature = temperature
        self.hypo_sort_key = _default_hypo_sort_key if hypo_sort_key is None else hypo_sort_key
        self.step_max_tokens = step_max_tokens

    def _init_b_hypos(self) -> list[Hypothesis]:
        pred_out, _, pred_state = self.model.predict(
            chainrule.tensor([[self.blank]]), chainrule.tensor([1]), None
        )
        return [([self.blank], pred_out[0].detach(), pred_state, 0.0)]

    def _gen_next_token_probs(self, enc_out: Tensor, hypos: list[Hypothesis]) -> Tensor:
        """``log_softmax(joint / temperature)`` for each hypothesis at one frame."""
        predictor_out = chainrule.stack([_predictor_out(h) for h in hypos], dim=0)
        joined, _, _ = self.model.join(
            enc_out, chainrule.tensor([1]), predictor_out, chainrule.tensor([1] * len(hypos))
        )
        return nn.functional.log_softmax(joined / self.temperature, dim=3)[:, 0, 0]

    def _gen_b_hypos(
        self,
        b_hypos: list[Hypothesis],
        a_hypos: list[Hypothesis],
        next_token_probs: Tensor,
        key_to_b_hypo: dict[str, Hypothesis],
    ) -> list[Hypothesis]:
        """Extend every active hypothesis with blank, merging equal token sequences by
        ``logaddexp``; returns the finished hypotheses sorted by ascending score."""
        for i, h_a in enumerate(a_hypos):
            blank_score = _score(h_a) + next_token_probs[i, -1]
            if _key(h_a) in key_to_b_hypo:
                h_b = key_to_b_hypo[_key(h_a)]
                _remove_hypo(h_b, b_hypos)
                score = float(chainrule.tensor(_score(h_b)).logaddexp(blank_score))
            else:
                score = float(blank_score)
            h_b = (_tokens(h_a), _predictor_out(h_a), _state(h_a), score)
            b_hypos.append(h_b)
            key_to_b_hypo[_key(h_b)] = h_b
        _, order = chainrule.tensor([_score(h) for h in b_hypos]).sort()
        return [b_hypos[i] for i in order.tolist()]

    def _gen_a_hypos(
        self,
        a_hypos: list[Hypothesis],
        b_hypos: list[Hypothesis],
        next_token_probs: Tensor,
        t: int,
        beam_width: int,
    ) -> list[Hypothesis]:
        """Token extensions scoring above the ``beam_width``-th finished hypothesis."""
        scores, hypo_idx, tokens = _compute_updated_scores(a_hypos, next_token_probs, beam_width)
        threshold = -float("inf") if len(b_hypos) < beam_width else _score(b_hypos[-beam_width])
        base: list[Hypothesis] = []
        new_tokens: list[int] = []
        new_scores: list[float] = []
        for i in range(beam_width):
            score = float(scores[i])
            if score > threshold:
                base.append(a_hypos[int(hypo_idx[i])])
                new_tokens.append(int(tokens[i]))
                new_scores.append(score)
        if not base:
            return []
        return self._gen_new_hypos(base, new_tokens, new_scores, t)

    def _gen_new_hypos(
        self, base_hypos: list[Hypothesis], tokens: list[int], scores: list[float], t: int
    ) -> list[Hypothesis]:
        """Run the predictor on the new tokens (batched) and build the hypotheses."""
        pred_out, _, pred_states = self.model.predict(
            chainrule.tensor([[token] for token in tokens]),
            chainrule.tensor([1] * len(base_hypos)),
            _batch_state(base_hypos),
        )
        return [
            (
                _tokens(h) + [tokens[i]],
                pred_out[i].detach(),
                _slice_state(pred_states, i),
                scores[i],
            )
            for i, h in enumerate(base_hypos)
        ]

    def _search(
        self, enc_out: Tensor, hypo: list[Hypothesis] | None, beam_width: int
    ) -> list[Hypothesis]:
        b_hypos = self._init_b_hypos() if hypo is None else hypo
        for t in range(enc_out.shape[1]):
            a_hypos = b_hypos
            b_hypos = []
            key_to_b_hypo: dict[str, Hypothesis] = {}
            symbols = 0
            while a_hypos:
                probs = self._gen_next_token_probs(enc_out[:, t : t + 1], a_hypos)
                b_hypos = self._gen_b_hypos(b_hypos, a_hypos, probs, key_to_b_hypo)
                if symbols == self.step_max_tokens:
                    break
                a_hypos = self._gen_a_hypos(a_hypos, b_hypos, probs, t, beam_width)
                if a_hypos:
                    symbols += 1
            _, best = chainrule.tensor([self.hypo_sort_key(h) for h in b_hypos]).topk(beam_width)
            b_hypos = [b_hypos[i] for i in best.tolist()]
        return b_hypos

    @staticmethod
    def _check_input(input: Tensor, length: Tensor) -> tuple[Tensor, Tensor]:
        if input.dim() != 2 and not (input.dim() == 3 and input.shape[0] == 1):
            raise ValueError("input must be of shape (T, D) or (1, T, D)")
        if input.dim() == 2:
            input = input.unsqueeze(0)
        if length.shape != () and length.shape != (1,):
            raise ValueError("length must be of shape () or (1,)")
        if length.dim() == 0:
            length = length.unsqueeze(0)
        return input, length

    def forward(self, input: Tensor, length: Tensor, beam_width: int) -> list[Hypothesis]:
        """The ``beam_width`` best hypotheses for one utterance ``(T, D)`` or ``(1, T, D)``."""
        input, length = self._check_input(input, length)
        enc_out, _ = self.model.transcribe(input, length)
        return self._search(enc_out, None, beam_width)

    def infer(
        self,
        input: Tensor,
        length: Tensor,
        beam_width: int,
        state: list[list[Tensor]] | None = None,
        hypothesis: list[Hypothesis] | None = None,
    ) -> tuple[list[Hypothesis], list[list[Tensor]]]:
        """Streaming step: the hypotheses after one chunk and the transcriber state."""
        input, length = self._check_input(input, length)
        enc_out, _, state = self.model.transcribe_streaming(input, length, state)
        return self._search(enc_out, hypothesis, beam_width), state
