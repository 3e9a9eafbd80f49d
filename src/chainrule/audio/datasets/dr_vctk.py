"""*DR-VCTK* (device-recorded VCTK, small subset): clean and device-recorded 16 kHz pairs,
``DR-VCTK/DR-VCTK/{clean,device-recorded}_<subset>set_wav_16k/<file>.wav``, sources and
channels in ``configurations/<subset>_ch_log.txt``."""

from __future__ import annotations

from pathlib import Path

from chainrule import Tensor
from chainrule.hub import download_url_to_file
from chainrule.utils.data import Dataset

from .. import _io
from .utils import _extract_zip

__all__ = ["DR_VCTK"]

_URL = "https://datashare.ed.ac.uk/bitstream/handle/10283/3038/DR-VCTK.zip"
_CHECKSUM = "781f12f4406ed36ed27ae3bce55da47ba176e2d8bae67319e389e07b2c9bd769"
_SUPPORTED_SUBSETS = {"train", "test"}


class DR_VCTK(Dataset):
    """*DR-VCTK*: items ``(waveform_clean, sample_rate_clean, waveform_noisy,
    sample_rate_noisy, speaker_id, utterance_id, source, channel_id)``."""

    def __init__(
        self,
        root: str | Path,
        subset: str = "train",
        *,
        download: bool = False,
        url: str = _URL,
    ) -> None:
        if subset not in _SUPPORTED_SUBSETS:
            raise RuntimeError(
                f"The subset '{subset}' does not match any of the supported subsets: {_SUPPORTED_SUBSETS}"
            )
        root = Path(root).expanduser()
        archive = root / "DR-VCTK.zip"
        self._subset = subset
        self._path = root / "DR-VCTK" / "DR-VCTK"
        self._clean_audio_dir = self._path / f"clean_{subset}set_wav_16k"
        self._noisy_audio_dir = self._path / f"device-recorded_{subset}set_wav_16k"
        self._config_filepath = self._path / "configurations" / f"{subset}_ch_log.txt"
        if not self._path.is_dir():
            if not archive.is_file():
                if not download:
                    raise RuntimeError(
                        "Dataset not found. Please use `download=True` to download it."
                    )
                download_url_to_file(url, str(archive), hash_prefix=_CHECKSUM)
            _extract_zip(str(archive), str(root))
        self._config = self._load_config(self._config_filepath)
        self._filename_list = sorted(self._config)

    def _load_config(self, filepath: str | Path) -> dict[str, tuple[str, int]]:
        """File name -> (source, channel id), the header rows (2 for train, 1 for test) skipped."""
        skip_rows = 2 if self._subset == "train" else 1
        config = {}
        with open(filepath) as f:
            for i, line in enumerate(f):
                if i < skip_rows or not line:
                    continue
                filename, source, channel_id = line.strip().split("\t")
                config[filename] = (source, int(channel_id))
        return config

    def _load_dr_vctk_item(
        self, filename: str
    ) -> tuple[Tensor, int, Tensor, int, str, str, str, int]:
        speaker_id, utterance_id = filename.split(".")[0].split("_")
        source, channel_id = self._config[filename]
        clean, rate_clean = _io.load(self._clean_audio_dir / filename)
        noisy, rate_noisy = _io.load(self._noisy_audio_dir / filename)
        return clean, rate_clean, noisy, rate_noisy, speaker_id, utterance_id, source, channel_id

    def __getitem__(self, n: int) -> tuple[Tensor, int, Tensor, int, str, str, str, int]:
        """``(clean, clean rate, noisy, noisy rate, speaker, utterance, source, channel)``."""
        return self._load_dr_vctk_item(self._filename_list[n])

    def __len__(self) -> int:
        return len(self._filename_list)
