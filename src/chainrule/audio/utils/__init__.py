"""``torchaudio.utils``: fetching torchaudio's sample assets (``_download_asset``)."""

from .download import _download_asset

__all__ = ["_download_asset"]
