"""Pretrained-model bundles of wav2vec 2.0, HuBERT, WavLM, XLS-R and MMS."""

__all__: list[str] = []
