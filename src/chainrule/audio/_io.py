"""``torchaudio.load`` and ``torchaudio.save`` (and their ``*_with_torchcodec`` twins).

WAV files are read by a small RIFF parser of our own (PCM at 8, 16, 24 and 32 bits, IEEE
float at 32 and 64 bits, plain or ``WAVE_FORMAT_EXTENSIBLE``) and written with Python's
``wave`` module (PCM) or the same RIFF layout (float). Other formats (FLAC, OGG, MP3, ...)
go through the optional ``soundfile`` package.

Samples come back as torchaudio 2.11 (TorchCodec, i.e. FFmpeg) returns them: float32,
an integer sample of ``b`` bits divided by ``2^(b-1)`` (8-bit PCM is unsigned: ``(x -
128) / 128``), so a full-scale negative sample is exactly -1. Saving does the inverse:
``rint(x * 2^(b-1))`` clipped to the width; the default WAV encoding is 16-bit PCM,
FFmpeg's default for the WAV container.
"""

from __future__ import annotations

import io
import os
import re
import struct
import urllib.request
import warnings
import wave
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

import chainrule
from chainrule import Tensor

__all__ = ["load", "load_with_torchcodec", "save", "save_with_torchcodec"]

_PCM = 0x0001
_IEEE_FLOAT = 0x0003
_EXTENSIBLE = 0xFFFE


@dataclass
class _WavData:
    """A WAV file's ``fmt`` fields and the bytes of its ``data`` chunk."""

    format_tag: int
    num_channels: int
    sample_rate: int
    sample_width: int  # bytes per sample of one channel (the container width)
    data: bytes


def _parse_wav(blob: bytes) -> _WavData:
    """Walk the RIFF chunks of a WAVE file: ``fmt `` gives the layout, ``data`` the samples."""
    if len(blob) < 12 or blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise RuntimeError("Not a RIFF/WAVE file.")
    fmt = data = None
    pos = 12
    while pos + 8 <= len(blob):
        chunk_id = blob[pos : pos + 4]
        (size,) = struct.unpack("<I", blob[pos + 4 : pos + 8])
        body = blob[pos + 8 : pos + 8 + size]  # a streamed file may claim more than it holds
        if chunk_id == b"fmt ":
            fmt = body
        elif chunk_id == b"data":
            data = body
        pos += 8 + size + (size & 1)
    if fmt is None or data is None or len(fmt) < 16:
        raise RuntimeError("The WAVE file has no 'fmt ' or 'data' chunk.")
    tag, channels, rate, _, block_align, _ = struct.unpack("<HHIIHH", fmt[:16])
    if tag == _EXTENSIBLE and len(fmt) >= 26:
        (tag,) = struct.unpack("<H", fmt[24:26])  # the sub-format GUID starts with the tag
    if channels < 1 or block_align % channels:
        raise RuntimeError(
            f"Malformed WAVE header: {channels} channels, block align {block_align}."
        )
    return _WavData(tag, channels, rate, block_align // channels, data)


def _pcm_to_float32(raw: bytes, width: int) -> np.ndarray:
    """Integer samples to float32: ``x / 2^(8 width - 1)``; 8-bit is unsigned, offset 128."""
    if width == 1:
        return (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / np.float32(128.0)
    if width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        ints = ((b[:, 0] << 8) | (b[:, 1] << 16) | (b[:, 2] << 24)) >> 8  # sign-extended
    elif width in (2, 4):
        ints = np.frombuffer(raw, f"<i{width}")
    else:
        raise RuntimeError(f"Unsupported PCM sample width: {8 * width} bits.")
    return ints.astype(np.float32) * np.float32(2.0 ** (1 - 8 * width))


def _float_samples(raw: bytes, width: int) -> np.ndarray:
    if width not in (4, 8):
        raise RuntimeError(f"Unsupported float sample width: {8 * width} bits.")
    return np.frombuffer(raw, f"<f{width}").astype(np.float32)


def _decode_wav(blob: bytes, frame_offset: int, num_frames: int) -> tuple[np.ndarray, int]:
    """``[time, channel]`` float32 frames ``frame_offset ..`` (``num_frames`` of them if > 0)."""
    wav = _parse_wav(blob)
    block = wav.num_channels * wav.sample_width
    total = len(wav.data) // block
    start = min(max(frame_offset, 0), total)
    stop = total if num_frames < 0 else min(total, start + num_frames)
    raw = wav.data[start * block : stop * block]
    if wav.format_tag == _PCM:
        samples = _pcm_to_float32(raw, wav.sample_width)
    elif wav.format_tag == _IEEE_FLOAT:
        samples = _float_samples(raw, wav.sample_width)
    else:
        raise _NotPlainWav(f"WAVE format tag {wav.format_tag:#06x}")
    return samples.reshape(-1, wav.num_channels), wav.sample_rate


class _NotPlainWav(Exception):
    """A WAV encoding (mu-law, ADPCM, ...) left to ``soundfile``."""


def _soundfile():
    try:
        import soundfile
    except ImportError:
        raise ImportError(
            "Reading and writing audio formats other than WAV needs the 'soundfile' package: "
            "pip install soundfile (or pip install chainrule[audio])."
        ) from None
    return soundfile


def _read_bytes(uri: BinaryIO | str | os.PathLike) -> bytes:
    """The bytes of a file-like object, a URL (``http://``, ``file://`` ...) or a path."""
    if hasattr(uri, "read"):
        return uri.read()
    if isinstance(uri, str) and re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]+://", uri):
        with urllib.request.urlopen(uri) as response:
            return response.read()
    with open(os.fspath(uri), "rb") as f:
        return f.read()


def _decode_other(blob: bytes, frame_offset: int, num_frames: int) -> tuple[np.ndarray, int]:
    """Any format libsndfile reads, through ``soundfile``, as float32 ``[time, channel]``."""
    soundfile = _soundfile()
    try:
        with soundfile.SoundFile(io.BytesIO(blob)) as f:
            total = f.frames
            start = min(max(frame_offset, 0), total)
            f.seek(start)
            count = total - start if num_frames < 0 else min(num_frames, total - start)
            frames = f.read(count, dtype="float32", always_2d=True)
            return frames, f.samplerate
    except soundfile.LibsndfileError as e:
        raise RuntimeError(f"Failed to decode audio samples: {e}") from e


def load(
    uri: BinaryIO | str | os.PathLike,
    frame_offset: int = 0,
    num_frames: int = -1,
    normalize: bool = True,
    channels_first: bool = True,
    format: str | None = None,
    buffer_size: int = 4096,
    backend: str | None = None,
) -> tuple[Tensor, int]:
    """Decode an audio file (path, URL or file-like object) to a float32 ``[channel, time]``
    tensor (``[time, channel]`` unless ``channels_first``) and its sample rate.

    ``frame_offset`` frames are skipped and at most ``num_frames`` read (``-1``: all the
    rest). As in torchaudio 2.11 the samples are always normalized float32: ``normalize``,
    ``format``, ``buffer_size`` and ``backend`` are accepted and ignored (with torchaudio's
    warnings); the format is read from the file's first bytes.
    """
    ignored = (
        (
            not normalize,
            "TorchCodec AudioDecoder always returns normalized float32 samples. "
            "The 'normalize=False' parameter is ignored.",
        ),
        (
            buffer_size != 4096,
            "The 'buffer_size' parameter is not used by TorchCodec AudioDecoder.",
        ),
        (backend is not None, "The 'backend' parameter is not used by TorchCodec AudioDecoder."),
        (format is not None, "The 'format' parameter is not supported by TorchCodec AudioDecoder."),
    )
    for given, message in ignored:
        if given:
            warnings.warn(message, UserWarning, stacklevel=2)
    blob = _read_bytes(uri)
    is_wav = blob[:4] == b"RIFF" and blob[8:12] == b"WAVE"
    frames = None
    if is_wav:
        try:
            frames, sample_rate = _decode_wav(blob, frame_offset, num_frames)
        except _NotPlainWav:
            frames = None
    if frames is None:
        frames, sample_rate = _decode_other(blob, frame_offset, num_frames)
    if num_frames == 0:
        frames = frames[:0]
    data = frames.T if channels_first else frames
    return chainrule.from_numpy(np.ascontiguousarray(data, np.float32)), int(sample_rate)


load_with_torchcodec = load

# (encoding, bits) -> the WAV format tag and the NumPy sample type written.
_WAV_ENCODINGS = {
    ("PCM_U", 8): (_PCM, "u1"),
    ("PCM_S", 16): (_PCM, "<i2"),
    ("PCM_S", 24): (_PCM, "<i4"),  # packed to 3 bytes when written
    ("PCM_S", 32): (_PCM, "<i4"),
    ("PCM_F", 32): (_IEEE_FLOAT, "<f4"),
    ("PCM_F", 64): (_IEEE_FLOAT, "<f8"),
}
_DEFAULT_BITS = {"PCM_U": 8, "PCM_S": 16, "PCM_F": 32}
_DEFAULT_ENCODING = {8: "PCM_U", 16: "PCM_S", 24: "PCM_S", 32: "PCM_S", 64: "PCM_F"}
_INTEGER_DTYPES = {
    "torch.uint8": ("PCM_U", 8),
    "torch.int16": ("PCM_S", 16),
    "torch.int32": ("PCM_S", 32),
}


def _wav_encoding(src: Tensor, encoding: str | None, bits: int | None) -> tuple[str, int]:
    """The ``(encoding, bits_per_sample)`` written: what was asked for, else an integer
    tensor's own width, else 16-bit signed PCM (FFmpeg's default for WAV)."""
    if encoding is None and bits is None:
        return _INTEGER_DTYPES.get(str(src.dtype), ("PCM_S", 16))
    if encoding is None:
        encoding = _DEFAULT_ENCODING.get(bits, "PCM_S")
    bits = _DEFAULT_BITS.get(encoding, 16) if bits is None else bits
    if (encoding, bits) not in _WAV_ENCODINGS:
        raise ValueError(
            f"Unsupported WAV encoding {encoding!r} with bits_per_sample={bits}; supported: "
            f"{sorted(_WAV_ENCODINGS)}"
        )
    return encoding, bits


def _to_samples(frames: np.ndarray, is_integer: bool, encoding: str, bits: int) -> np.ndarray:
    """Frames to the stored sample type: float ``x`` becomes ``rint(x 2^(b-1))`` clipped
    (24-bit drops the low byte of the 32-bit value, as FFmpeg's encoder does)."""
    dtype = _WAV_ENCODINGS[(encoding, bits)][1]
    if encoding == "PCM_F":
        return frames.astype(dtype)
    if is_integer:
        ints = frames.astype(np.int64)
        if encoding == "PCM_U" and frames.dtype != np.uint8:
            ints = ints + 128
    else:
        scale = 2.0 ** (bits - 1) if bits != 24 else 2.0**31
        ints = np.rint(frames.astype(np.float64) * scale)
        if bits == 24:
            ints = np.floor(np.clip(ints, -(2.0**31), 2.0**31 - 1) / 256.0)
        if encoding == "PCM_U":
            ints = ints + 128
    low, high = (0, 255) if encoding == "PCM_U" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    return np.clip(ints, low, high).astype(dtype)


def _frames_bytes(samples: np.ndarray, bits: int) -> bytes:
    if bits == 24:
        return samples.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    return samples.tobytes()


def _write_wav(
    f: BinaryIO, samples: np.ndarray, sample_rate: int, encoding: str, bits: int
) -> None:
    """PCM through ``wave``; float as a RIFF file with ``fmt `` (tag 3), ``fact``, ``data``."""
    channels = samples.shape[1]
    payload = _frames_bytes(samples, bits)
    if encoding != "PCM_F":
        with wave.open(f, "wb") as w:
            w.setnchannels(channels)
            w.setsampwidth(bits // 8)
            w.setframerate(sample_rate)
            w.setnframes(samples.shape[0])
            w.writeframes(payload)
        return
    block = channels * bits // 8
    fmt = struct.pack(
        "<HHIIHHH", _IEEE_FLOAT, channels, sample_rate, sample_rate * block, block, bits, 0
    )
    fact = struct.pack("<I", samples.shape[0])
    body = b"WAVE"
    for chunk_id, chunk in ((b"fmt ", fmt), (b"fact", fact), (b"data", payload)):
        body += chunk_id + struct.pack("<I", len(chunk)) + chunk + b"\0" * (len(chunk) & 1)
    f.write(b"RIFF" + struct.pack("<I", len(body)) + body)


# file extensions whose libsndfile format has another name
_SOUNDFILE_FORMATS = {"sph": ("NIST", None), "aif": ("AIFF", None), "opus": ("OGG", "OPUS")}
_SOUNDFILE_SUBTYPES = {("PCM_S", 16): "PCM_16", ("PCM_S", 24): "PCM_24", ("PCM_S", 32): "PCM_32"}
_SOUNDFILE_SUBTYPES.update(
    {("PCM_U", 8): "PCM_U8", ("PCM_F", 32): "FLOAT", ("PCM_F", 64): "DOUBLE"}
)


def _write_other(
    uri: BinaryIO | str | os.PathLike,
    frames: np.ndarray,
    sample_rate: int,
    format: str,
    encoding: str | None,
    bits: int | None,
) -> None:
    soundfile = _soundfile()
    subtype = None
    if encoding is not None or bits is not None:
        enc = encoding or _DEFAULT_ENCODING.get(bits, "PCM_S")
        subtype = _SOUNDFILE_SUBTYPES.get((enc, bits or _DEFAULT_BITS.get(enc, 16)))
    target = uri if hasattr(uri, "write") else os.fspath(uri)
    name, default_subtype = _SOUNDFILE_FORMATS.get(format, (format.upper(), None))
    try:
        soundfile.write(
            target, frames, sample_rate, subtype=subtype or default_subtype, format=name
        )
    except (soundfile.LibsndfileError, ValueError, TypeError) as e:
        raise RuntimeError(f"Failed to save audio to {uri}: {e}") from e


def save(
    uri: BinaryIO | str | os.PathLike,
    src: Tensor,
    sample_rate: int,
    channels_first: bool = True,
    format: str | None = None,
    encoding: str | None = None,
    bits_per_sample: int | None = None,
    buffer_size: int = 4096,
    backend: str | None = None,
    compression: float | int | None = None,
) -> None:
    """Encode ``src`` (``[channel, time]``, or ``[time, channel]`` unless ``channels_first``;
    1-D is one channel) to an audio file at ``uri`` (a path, or a file-like object with
    ``format``), the format read from the file's extension unless ``format`` is given.

    WAV is 16-bit PCM by default; ``encoding`` (``"PCM_S"``, ``"PCM_U"``, ``"PCM_F"``) and
    ``bits_per_sample`` choose another layout, and an integer tensor (uint8, int16, int32)
    is written as raw samples at its own width. ``buffer_size``, ``backend`` and
    ``compression`` are accepted and ignored.
    """
    for ignored, used in (("buffer_size", buffer_size != 4096), ("backend", backend is not None)):
        if used:
            warnings.warn(
                f"The '{ignored}' parameter is not used by TorchCodec AudioEncoder.",
                UserWarning,
                stacklevel=2,
            )
    if not isinstance(src, Tensor):
        raise ValueError(f"Expected src to be a torch.Tensor, got {type(src)}")
    if sample_rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    if src.ndim == 1:
        src = src.unsqueeze(0)
    elif src.ndim == 2:
        src = src if channels_first else src.transpose(0, 1)
    else:
        raise ValueError(f"Expected 1D or 2D tensor, got {src.ndim}D tensor")
    frames = np.ascontiguousarray(src.detach().numpy().T)  # [time, channel]
    if format is None:
        if hasattr(uri, "write"):
            raise ValueError("`format` is required when saving to a file-like object.")
        format = os.path.splitext(os.fspath(uri))[1][1:]
    format = format.lower()
    if format != "wav":
        _write_other(uri, frames, sample_rate, format, encoding, bits_per_sample)
        return
    encoding, bits = _wav_encoding(src, encoding, bits_per_sample)
    is_integer = not (src.is_floating_point() or src.is_complex())
    samples = _to_samples(frames, is_integer, encoding, bits)
    if hasattr(uri, "write"):
        _write_wav(uri, samples, int(sample_rate), encoding, bits)
        return
    with open(os.fspath(uri), "wb") as f:
        _write_wav(f, samples, int(sample_rate), encoding, bits)


save_with_torchcodec = save
