"""SQUIM subjective (NORESQA-MOS, Manocha and Kumar, 2022): self-supervised features of
the test waveform and of a non-matching clean reference are projected, concatenated and
attention-pooled into a distribution over score differences; the MOS is 5 minus its mean."""

from __future__ import annotations

import chainrule
from chainrule import Tensor, nn

__all__ = ["SquimSubjective", "squim_subjective_model", "squim_subjective_base"]


class AttPool(nn.Module):
    """Attention pooling over time: ``linear2(sum_t softmax_t(linear1(x))_t x_t)``."""

    def __init__(self, input_dim: int, att_dim: int) -> None:
        super().__init__()
        self.linear1 = nn.Linear(input_dim, 1)
        self.linear2 = nn.Linear(input_dim, att_dim)

    def forward(self, x: Tensor) -> Tensor:
        """``(batch, time, input_dim) -> (batch, att_dim)``."""
        att = nn.functional.softmax(self.linear1(x).transpose(2, 1), dim=2)
        return self.linear2(chainrule.matmul(att, x).squeeze(1))


class Predictor(nn.Module):
    """The expected score difference ``sum_k softmax(AttPool(x))_k b_k`` with the bins
    ``b = linspace(0, 4, att_dim)``."""

    def __init__(self, input_dim: int, att_dim: int) -> None:
        super().__init__()
        self.att_pool_layer = AttPool(input_dim, att_dim)
        self.att_dim = att_dim

    def forward(self, x: Tensor) -> Tensor:
        """``(batch, time, input_dim) -> (batch,)``."""
        x = nn.functional.softmax(self.att_pool_layer(x), dim=1)
        bins = chainrule.linspace(0, 4, steps=self.att_dim, device=x.device)
        return (x * bins).sum(dim=1)


class SquimSubjective(nn.Module):
    """SQUIM subjective model.

    Args:
        ssl_model: self-supervised feature extractor with ``extract_features`` (a wav2vec 2.0 model).
        projector: projection of its last layer's features.
        predictor: the score predictor.
    """

    def __init__(self, ssl_model: nn.Module, projector: nn.Module, predictor: nn.Module) -> None:
        super().__init__()
        self.ssl_model = ssl_model
        self.projector = projector
        self.predictor = predictor

    def _align_shapes(self, waveform: Tensor, reference: Tensor) -> tuple[Tensor, Tensor]:
        """``reference`` repeated (when shorter) and cut to ``waveform``'s length."""
        t_waveform, t_reference = waveform.shape[-1], reference.shape[-1]
        if t_reference < t_waveform:
            reference = chainrule.cat([reference] * (t_waveform // t_reference + 1), dim=1)
        return waveform, reference[:, :t_waveform]

    def forward(self, waveform: Tensor, reference: Tensor) -> Tensor:
        """MOS ``(batch,)`` of ``waveform`` ``(batch, time)`` given ``reference`` ``(batch, time_ref)``."""
        waveform, reference = self._align_shapes(waveform, reference)
        waveform = self.projector(self.ssl_model.extract_features(waveform)[0][-1])
        reference = self.projector(self.ssl_model.extract_features(reference)[0][-1])
        score_diff = self.predictor(chainrule.cat((reference, waveform), dim=2))
        return 5 - score_diff


def squim_subjective_model(
    ssl_type: str, feat_dim: int, proj_dim: int, att_dim: int
) -> SquimSubjective:
    """A :class:`SquimSubjective` on the wav2vec 2.0 builder ``ssl_type`` of
    ``chainrule.audio.models`` (``"wav2vec2_base"`` or ``"wav2vec2_large"``)."""
    from chainrule.audio import models

    ssl_model = getattr(models, ssl_type)()
    return SquimSubjective(
        ssl_model, nn.Linear(feat_dim, proj_dim), Predictor(proj_dim * 2, att_dim)
    )


def squim_subjective_base() -> SquimSubjective:
    """The published configuration: wav2vec 2.0 base features (768), projected to 32, 5 score bins."""
    return squim_subjective_model(ssl_type="wav2vec2_base", feat_dim=768, proj_dim=32, att_dim=5)
