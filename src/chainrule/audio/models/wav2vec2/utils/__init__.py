"""Converters from Hugging Face ``transformers`` and ``fairseq`` wav2vec 2.0 / HuBERT /
WavLM models to :class:`~chainrule.audio.models.Wav2Vec2Model`."""

from .import_fairseq import import_fairseq_model
from .import_huggingface import import_huggingface_model

__all__ = [
    "import_huggingface_model",
    "import_fairseq_model",
]
