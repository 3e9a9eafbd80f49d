"""``chainrule.audio.load``/``save`` (and ``torchaudio.utils``): the samples of WAV files
written by Python's ``wave`` module and by libsndfile (``soundfile``) at every PCM width
and float, checked against the integers written (``x / 2^(b-1)``, as FFmpeg and so
torchaudio 2.11 scale them) and against soundfile's reading; saving checked the same way
from the other side; signatures and warnings as torchaudio 2.11's."""

from __future__ import annotations

import hashlib
import inspect
import io
import sys
import wave

import numpy as np
import pytest
import soundfile

import chainrule
from chainrule.audio.utils import download

RNG = np.random.default_rng(0)


def write_pcm(path_or_file, ints: np.ndarray, width: int, rate: int = 16000) -> None:
    """``ints`` ``[time, channel]`` as PCM through ``wave`` (8-bit stored unsigned)."""
    if width == 1:
        raw = (ints + 128).astype(np.uint8).tobytes()
    elif width == 3:
        raw = ints.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        raw = ints.astype(f"<i{width}").tobytes()
    with wave.open(path_or_file, "wb") as w:
        w.setnchannels(ints.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(raw)


def extreme_ints(width: int, frames: int = 50, channels: int = 3) -> np.ndarray:
    """Random samples of the width, with its minimum, maximum, 0 and ±1 among them."""
    high = 2 ** (8 * width - 1)
    ints = RNG.integers(-high, high, (frames, channels), dtype=np.int64)
    ints[:5, 0] = [-high, high - 1, 0, 1, -1]
    return ints


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_pcm_samples_are_the_integers_over_two_to_the_bits_minus_one(tmp_path, width):
    ints = extreme_ints(width)
    path = tmp_path / "x.wav"
    write_pcm(str(path), ints, width, rate=22050)
    waveform, rate = chainrule.audio.load(path)
    assert rate == 22050
    assert waveform.dtype == chainrule.float32 and tuple(waveform.shape) == (3, 50)
    expected = ints.T.astype(np.float64) / 2.0 ** (8 * width - 1)
    np.testing.assert_allclose(waveform.numpy(), expected.astype(np.float32), rtol=0, atol=0)
    assert waveform.numpy()[0, 0] == -1.0
    # libsndfile scales the same way
    theirs, _ = soundfile.read(path, dtype="float32", always_2d=True)
    np.testing.assert_array_equal(waveform.numpy(), theirs.T)


@pytest.mark.parametrize("subtype", ["FLOAT", "DOUBLE"])
def test_float_wav_is_read_as_float32(tmp_path, subtype):
    data = RNG.uniform(-1, 1, (40, 2))
    path = tmp_path / "f.wav"
    soundfile.write(path, data, 8000, subtype=subtype)
    waveform, rate = chainrule.audio.load(str(path), channels_first=False)
    assert rate == 8000 and tuple(waveform.shape) == (40, 2)
    np.testing.assert_array_equal(waveform.numpy(), data.astype(np.float32))


def test_wave_format_extensible_header(tmp_path):
    ints = extreme_ints(2, channels=4)
    path = tmp_path / "x.wav"
    soundfile.write(path, ints.astype(np.int16), 48000, format="WAVEX", subtype="PCM_16")
    with open(path, "rb") as f:
        assert f.read(40)[20:22] == b"\xfe\xff"  # the format tag is WAVE_FORMAT_EXTENSIBLE
    waveform, rate = chainrule.audio.load(path)
    assert rate == 48000
    np.testing.assert_array_equal(waveform.numpy(), (ints.T / 32768.0).astype(np.float32))


def test_file_like_objects_and_urls(tmp_path):
    ints = extreme_ints(2, channels=1)
    buffer = io.BytesIO()
    write_pcm(buffer, ints, 2)
    buffer.seek(0)
    waveform, _ = chainrule.audio.load(buffer)
    np.testing.assert_array_equal(waveform.numpy(), (ints.T / 32768.0).astype(np.float32))
    path = tmp_path / "x.wav"
    path.write_bytes(buffer.getvalue())
    with open(path, "rb") as f:
        again, _ = chainrule.audio.load(f)
    np.testing.assert_array_equal(again.numpy(), waveform.numpy())
    from_url, _ = chainrule.audio.load(f"file://{path}")
    np.testing.assert_array_equal(from_url.numpy(), waveform.numpy())


def test_frame_offset_and_num_frames_as_torchaudio_slices(tmp_path):
    ints = extreme_ints(2, frames=30, channels=2)
    path = tmp_path / "x.wav"
    write_pcm(str(path), ints, 2)
    full = ints.T / 32768.0
    cases = {(0, -1): full, (5, 10): full[:, 5:15], (25, 10): full[:, 25:], (7, -1): full[:, 7:]}
    cases.update({(30, 5): full[:, :0], (100, -1): full[:, :0], (3, 0): full[:, :0]})
    for (offset, count), expected in cases.items():
        waveform, _ = chainrule.audio.load(path, frame_offset=offset, num_frames=count)
        np.testing.assert_array_equal(waveform.numpy(), expected.astype(np.float32))
    waveform, _ = chainrule.audio.load(path, frame_offset=30, channels_first=False)
    assert tuple(waveform.shape) == (0, 2)


def test_flac_through_soundfile(tmp_path):
    ints = extreme_ints(2, channels=2)
    path = tmp_path / "x.flac"
    soundfile.write(path, ints.astype(np.int16), 16000, subtype="PCM_16")
    waveform, rate = chainrule.audio.load(path, frame_offset=4, num_frames=20)
    assert rate == 16000
    np.testing.assert_array_equal(waveform.numpy(), (ints[4:24].T / 32768.0).astype(np.float32))
    chainrule.audio.save(tmp_path / "y.flac", waveform, 16000)
    again, _ = chainrule.audio.load(tmp_path / "y.flac")
    np.testing.assert_array_equal(again.numpy(), waveform.numpy())


@pytest.mark.parametrize("extension", ["mp3", "ogg", "opus", "sph", "aiff"])
def test_compressed_and_other_formats_decode_as_libsndfile_does(tmp_path, extension):
    t = np.arange(4800) / 48000
    x = np.stack([np.sin(2 * np.pi * 440 * t), 0.5 * np.cos(2 * np.pi * 660 * t)]).astype(
        np.float32
    )
    path = tmp_path / f"x.{extension}"
    chainrule.audio.save(path, chainrule.from_numpy(x), 48000)
    waveform, rate = chainrule.audio.load(path)
    theirs, their_rate = soundfile.read(path, dtype="float32", always_2d=True)
    assert rate == their_rate == 48000 and waveform.shape[0] == 2
    np.testing.assert_array_equal(waveform.numpy(), theirs.T)
    lossless = extension in ("sph", "aiff")
    if lossless:  # 16-bit PCM
        np.testing.assert_allclose(waveform.numpy(), x, atol=2.0**-15)


def test_without_soundfile_other_formats_say_how_to_install_it(tmp_path, monkeypatch):
    soundfile.write(tmp_path / "x.flac", np.zeros((8, 1), np.int16), 8000)
    monkeypatch.setitem(sys.modules, "soundfile", None)
    with pytest.raises(ImportError, match="pip install soundfile"):
        chainrule.audio.load(tmp_path / "x.flac")
    with pytest.raises(ImportError, match=r"chainrule\[audio\]"):
        chainrule.audio.save(tmp_path / "y.ogg", chainrule.zeros(1, 8), 8000)
    chainrule.audio.save(tmp_path / "y.wav", chainrule.zeros(1, 8), 8000)  # WAV needs nothing


def read_with_wave(path) -> tuple[wave._wave_params, bytes]:
    with wave.open(str(path), "rb") as w:
        return w.getparams(), w.readframes(w.getnframes())


def test_save_default_is_16_bit_pcm_rounded_to_nearest(tmp_path):
    x = np.concatenate([RNG.uniform(-1.2, 1.2, (2, 60)), [[0.5 / 32768, 1.5 / 32768]] * 2], 1)
    path = tmp_path / "x.wav"
    chainrule.audio.save(path, chainrule.from_numpy(x.astype(np.float32)), 16000)
    params, raw = read_with_wave(path)
    assert (params.nchannels, params.sampwidth, params.framerate) == (2, 2, 16000)
    stored = np.frombuffer(raw, "<i2").reshape(-1, 2).T
    expected = np.clip(np.rint(x.astype(np.float32).astype(np.float64) * 32768), -32768, 32767)
    np.testing.assert_array_equal(stored, expected)
    assert list(stored[0, -2:]) == [0, 2]  # halves round to even, as lrintf does


@pytest.mark.parametrize(
    ("encoding", "bits", "subtype"),
    [
        ("PCM_U", 8, "PCM_U8"),
        ("PCM_S", 16, "PCM_16"),
        ("PCM_S", 24, "PCM_24"),
        ("PCM_S", 32, "PCM_32"),
        ("PCM_F", 32, "FLOAT"),
        ("PCM_F", 64, "DOUBLE"),
    ],
)
def test_save_encodings_read_back_by_soundfile(tmp_path, encoding, bits, subtype):
    k = np.array([[-1.0, -0.5, 0.0, 0.25, 0.75]])
    x = np.concatenate([k, RNG.uniform(-1, 1, (1, 5))], 0).astype(np.float32)
    path = tmp_path / "x.wav"
    chainrule.audio.save(
        path, chainrule.from_numpy(x), 8000, encoding=encoding, bits_per_sample=bits
    )
    assert soundfile.info(path).subtype == subtype
    theirs, rate = soundfile.read(path, dtype="float64", always_2d=True)
    assert rate == 8000
    # exactly representable values survive every width
    np.testing.assert_array_equal(theirs.T[0], k[0])
    np.testing.assert_allclose(theirs.T[1], x[1], atol=2.0 ** (1 - bits))
    ours, _ = chainrule.audio.load(path)
    np.testing.assert_array_equal(ours.numpy(), theirs.T.astype(np.float32))


def test_save_integer_tensors_as_raw_samples_and_layouts(tmp_path):
    ints = extreme_ints(2, channels=2).astype(np.int16)
    path = tmp_path / "x.wav"
    chainrule.audio.save(path, chainrule.from_numpy(ints), 8000, channels_first=False)
    params, raw = read_with_wave(path)
    assert (params.nchannels, params.sampwidth) == (2, 2)
    np.testing.assert_array_equal(np.frombuffer(raw, "<i2").reshape(-1, 2), ints)
    mono = chainrule.from_numpy(np.array([0.0, 0.5, -0.5], np.float32))
    buffer = io.BytesIO()
    chainrule.audio.save(buffer, mono, 100, format="wav")
    buffer.seek(0)
    waveform, rate = chainrule.audio.load(buffer)
    assert rate == 100 and waveform.numpy().tolist() == [[0.0, 0.5, -0.5]]


def test_save_errors_as_torchaudio():
    with pytest.raises(ValueError, match="Expected src to be a torch.Tensor, got <class 'list'>"):
        chainrule.audio.save("x.wav", [0.0], 8000)
    with pytest.raises(ValueError, match="Expected 1D or 2D tensor, got 3D tensor"):
        chainrule.audio.save("x.wav", chainrule.zeros(1, 1, 4), 8000)
    with pytest.raises(ValueError, match="sample_rate must be positive, got 0"):
        chainrule.audio.save("x.wav", chainrule.zeros(1, 4), 0)


def test_ignored_load_arguments_warn_as_torchaudio(tmp_path):
    write_pcm(str(tmp_path / "x.wav"), extreme_ints(2), 2)
    with pytest.warns(UserWarning, match="The 'normalize=False' parameter is ignored."):
        waveform, _ = chainrule.audio.load(tmp_path / "x.wav", normalize=False)
    assert waveform.dtype == chainrule.float32
    with pytest.warns(
        UserWarning, match="'backend' parameter is not used by TorchCodec AudioDecoder"
    ):
        chainrule.audio.load(tmp_path / "x.wav", backend="sox")
    with pytest.warns(UserWarning, match="'format' parameter is not supported by TorchCodec"):
        chainrule.audio.load(tmp_path / "x.wav", format="wav")
    with pytest.warns(
        UserWarning, match="'buffer_size' parameter is not used by TorchCodec AudioEncoder"
    ):
        chainrule.audio.save(tmp_path / "y.wav", waveform, 8000, buffer_size=100)


@pytest.mark.parametrize("name", ["load", "save", "load_with_torchcodec", "save_with_torchcodec"])
def test_signatures_as_torchaudio(ta, name):
    ours = inspect.signature(getattr(chainrule.audio, name)).parameters
    theirs = inspect.signature(getattr(ta, name)).parameters
    assert [(p.name, p.default, p.kind) for p in ours.values()] == [
        (p.name, p.default, p.kind) for p in theirs.values()
    ]


def test_top_level_names_as_torchaudio(ta):
    assert not hasattr(ta, "info")  # torchaudio 2.11 has no info()
    for name in ["load", "save", "load_with_torchcodec", "save_with_torchcodec", "utils"]:
        assert name in ta.__all__
        assert getattr(chainrule.audio, name) is not None


def test_download_asset_over_file_urls(tmp_path, monkeypatch, ta):
    theirs = inspect.signature(ta.utils._download_asset).parameters
    ours = inspect.signature(chainrule.audio.utils._download_asset).parameters
    assert [(p.name, p.default, p.kind) for p in ours.values()] == [
        (p.name, p.default, p.kind) for p in theirs.values()
    ]
    server = tmp_path / "server" / "tutorial-assets"
    server.mkdir(parents=True)
    (server / "a.wav").write_bytes(b"RIFF-bytes")
    digest = hashlib.sha256(b"RIFF-bytes").hexdigest()
    monkeypatch.setattr(download, "_BASE_URL", f"file://{tmp_path}/server")
    monkeypatch.setattr(chainrule.hub, "get_dir", lambda: str(tmp_path / "hub"))
    path = chainrule.audio.utils._download_asset("tutorial-assets/a.wav", digest, progress=False)
    assert path == str(tmp_path / "hub" / "torchaudio" / "tutorial-assets" / "a.wav")
    with open(path, "rb") as f:
        assert f.read() == b"RIFF-bytes"
    with pytest.raises(ValueError, match="does not match the provided hash value, 'bad'"):
        chainrule.audio.utils._download_asset("tutorial-assets/a.wav", "bad")
