"""``chainrule.audio.datasets`` against the real torchaudio 2.11's datasets on tiny fake
corpora written in each dataset's own layout: the same length, order and items, field by
field. torchaudio decodes with TorchCodec, which is not installed, so its ``load`` is
replaced by a libsndfile (``soundfile``) reader here; the waveforms are also checked
against the integers written. Downloads run over ``file://`` URLs."""

from __future__ import annotations

import hashlib
import inspect
import os
import tarfile
import wave
import zipfile
from pathlib import Path

import numpy as np
import pytest
import soundfile
import torch

import chainrule
from chainrule.audio import datasets

RNG = np.random.default_rng(0)


def write_wav(path: Path, ints: np.ndarray, rate: int = 16000) -> np.ndarray:
    """16-bit PCM through ``wave`` (``ints`` ``[channel, time]`` or 1-D); the float32
    waveform torchaudio gives for it."""
    ints = np.atleast_2d(ints).astype(np.int16)
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(ints.shape[0])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.ascontiguousarray(ints.T).tobytes())
    return (ints / 32768.0).astype(np.float32)


def write_sound(path: Path, ints: np.ndarray, rate: int = 16000, **kwargs) -> np.ndarray:
    """Any libsndfile format (FLAC, NIST SPHERE) at 16 bits."""
    ints = np.atleast_2d(ints).astype(np.int16)
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(path, ints.T, rate, subtype="PCM_16", **kwargs)
    return (ints / 32768.0).astype(np.float32)


def noise(n: int = 40, channels: int = 1) -> np.ndarray:
    return RNG.integers(-32768, 32768, (channels, n))


def soundfile_load(uri, frame_offset: int = 0, num_frames: int = -1, **_):
    """torchaudio's ``load`` stand-in: float32 ``[channel, time]`` through libsndfile."""
    stop = None if num_frames < 0 else frame_offset + num_frames
    data, rate = soundfile.read(uri, dtype="float32", always_2d=True, start=frame_offset, stop=stop)
    return torch.from_numpy(np.ascontiguousarray(data.T)), rate


@pytest.fixture
def ta_loading(ta, monkeypatch):
    monkeypatch.setattr(ta, "load", soundfile_load)
    return ta


def assert_same_item(ours, theirs) -> None:
    """Field by field: tensors equal as arrays (float32), everything else equal and of the
    same type."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, chainrule.Tensor)
        assert ours.dtype == chainrule.float32 and theirs.dtype == torch.float32
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert_same_item(a, b)
    else:
        assert type(ours) is type(theirs) and ours == theirs


def assert_same_dataset(ours, theirs, metadata: bool = False) -> None:
    assert len(ours) == len(theirs) > 0
    for n in range(len(theirs)):
        assert_same_item(ours[n], theirs[n])
        if metadata:
            assert_same_item(ours.get_metadata(n), theirs.get_metadata(n))


def serve(tmp_path: Path, name: str, members: dict[str, Path]) -> tuple[str, str]:
    """An archive of ``members`` (archive name -> file) under ``tmp_path/server``; its
    ``file://`` URL and SHA-256."""
    server = tmp_path / "server"
    server.mkdir(exist_ok=True)
    archive = server / name
    if name.endswith(".zip"):
        with zipfile.ZipFile(archive, "w") as z:
            for arcname, path in members.items():
                z.write(path, arcname)
    else:
        mode = "w:bz2" if name.endswith(".bz2") else "w:gz"
        with tarfile.open(archive, mode) as t:
            for arcname, path in members.items():
                t.add(path, arcname)
    return f"file://{archive}", hashlib.sha256(archive.read_bytes()).hexdigest()


def tree(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ the constructors


def test_all_names_and_signatures_as_torchaudio(ta):
    assert datasets.__all__ == ta.datasets.__all__
    for name in ta.datasets.__all__:
        ours = inspect.signature(getattr(datasets, name)).parameters
        theirs = inspect.signature(getattr(ta.datasets, name)).parameters
        assert [(p.name, p.default, p.kind) for p in ours.values()] == [
            (p.name, p.default, p.kind) for p in theirs.values()
        ], name
        assert issubclass(getattr(datasets, name), chainrule.utils.data.Dataset)


def test_urls_and_checksums_as_torchaudio(ta):
    from chainrule.audio.datasets import cmuarctic, gtzan, librispeech, libritts, speechcommands

    for module in (cmuarctic, gtzan, librispeech, libritts, speechcommands):
        theirs = getattr(ta.datasets, module.__name__.rsplit(".", 1)[1])
        assert module._CHECKSUMS == theirs._CHECKSUMS
    for name in ("yesno", "ljspeech", "tedlium"):
        ours = getattr(datasets, name)._RELEASE_CONFIGS
        assert ours == getattr(ta.datasets, name)._RELEASE_CONFIGS
    assert datasets.vctk._CHECKSUMS == ta.datasets.vctk._CHECKSUMS
    assert datasets.cmudict._CHECKSUMS == ta.datasets.cmudict._CHECKSUMS
    assert datasets.cmudict._PUNCTUATIONS == ta.datasets.cmudict._PUNCTUATIONS
    assert datasets.voxceleb1._ARCHIVE_CONFIGS == ta.datasets.voxceleb1._ARCHIVE_CONFIGS
    for name in ("filtered_train", "filtered_valid", "filtered_test", "gtzan_genres"):
        assert getattr(gtzan, name) == getattr(ta.datasets.gtzan, name)


# ------------------------------------------------------------------ YESNO


def test_yesno(tmp_path, ta_loading):
    folder = tmp_path / "waves_yesno"
    written = {}
    for labels in ("1_0_1_1_0_0_0_1", "0_0_1_0_1_0_0_0", "0_1_1_1_0_0_1_1"):
        written[labels] = write_wav(folder / f"{labels}.wav", noise(), rate=8000)
    (folder / "README").write_text("not audio")
    ours, theirs = datasets.YESNO(tmp_path), ta_loading.datasets.YESNO(tmp_path)
    assert_same_dataset(ours, theirs)
    waveform, rate, labels = ours[0]
    assert rate == 8000 and labels == [0, 0, 1, 0, 1, 0, 0, 0]
    np.testing.assert_array_equal(waveform.numpy(), written["0_0_1_0_1_0_0_0"])


def test_yesno_download(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    expected = write_wav(corpus / "waves_yesno" / "0_1_0_0_0_0_0_1.wav", noise(), rate=8000)
    url, sha = serve(tmp_path, "waves_yesno.tar.gz", tree(corpus))
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(RuntimeError, match="Dataset not found. Please use `download=True`"):
        datasets.YESNO(root)
    with pytest.raises(RuntimeError, match="invalid hash value"):
        datasets.YESNO(root, url=url, download=True)
    monkeypatch.setitem(datasets.yesno._RELEASE_CONFIGS["release1"], "checksum", sha)
    ds = datasets.YESNO(root, url=url, download=True)
    assert len(ds) == 1 and ds[0][2] == [0, 1, 0, 0, 0, 0, 0, 1]
    np.testing.assert_array_equal(ds[0][0].numpy(), expected)


# ------------------------------------------------------------------ SPEECHCOMMANDS


def write_speech_commands(folder: Path) -> dict[str, np.ndarray]:
    written = {}
    for word in ("yes", "no", "up"):
        for speaker in ("0a7c2a8d", "1b4c9b89"):
            for k in range(2):
                rel = f"{word}/{speaker}_nohash_{k}.wav"
                written[rel] = write_wav(folder / rel, noise(16))
    write_wav(folder / "_background_noise_" / "white_noise.wav", noise(16))
    write_wav(folder / "yes" / "stray.wav", noise(16))  # no _nohash_: not an item
    (folder / "validation_list.txt").write_text(
        "no/0a7c2a8d_nohash_1.wav\nup/1b4c9b89_nohash_0.wav\n"
    )
    (folder / "testing_list.txt").write_text("yes/1b4c9b89_nohash_1.wav\n")
    return written


@pytest.mark.parametrize("subset", [None, "training", "validation", "testing"])
def test_speechcommands_subsets(tmp_path, ta_loading, subset):
    folder = tmp_path / "SpeechCommands" / "speech_commands_v0.02"
    written = write_speech_commands(folder)
    ours = datasets.SPEECHCOMMANDS(tmp_path, subset=subset)
    theirs = ta_loading.datasets.SPEECHCOMMANDS(tmp_path, subset=subset)
    assert_same_dataset(ours, theirs, metadata=True)
    sizes = {None: 12, "training": 9, "validation": 2, "testing": 1}
    assert len(ours) == sizes[subset]
    for n in range(len(ours)):
        path, rate, label, speaker, number = ours.get_metadata(n)
        assert path.startswith("speech_commands_v0.02/") and rate == 16000
        assert path.endswith(f"{label}/{speaker}_nohash_{number}.wav")
        rel = path.split("/", 1)[1]
        np.testing.assert_array_equal(ours[n][0].numpy(), written[rel])


def test_speechcommands_errors_and_download(tmp_path):
    with pytest.raises(
        ValueError, match=r"it must be one of \['training', 'validation', 'testing'\]"
    ):
        datasets.SPEECHCOMMANDS(tmp_path, subset="train")
    with pytest.raises(RuntimeError, match="speech_commands_v0.02 doesn't exist"):
        datasets.SPEECHCOMMANDS(tmp_path)
    corpus = tmp_path / "corpus"
    write_speech_commands(corpus)
    url, _ = serve(tmp_path, "speech_commands_v0.01.tar.gz", tree(corpus))
    root = tmp_path / "root"
    root.mkdir()
    ds = datasets.SPEECHCOMMANDS(root, url=url, download=True, subset="validation")
    assert [ds.get_metadata(n)[2] for n in range(len(ds))] == ["no", "up"]
    assert os.path.isfile(root / "speech_commands_v0.01.tar.gz")
    assert os.path.isfile(root / "SpeechCommands" / "speech_commands_v0.01" / "testing_list.txt")


# ------------------------------------------------------------------ LIBRISPEECH


def write_librispeech(folder: Path) -> dict[str, np.ndarray]:
    written = {}
    for speaker, chapter, count in ((84, 121123, 3), (1272, 128104, 2)):
        chapter_dir = folder / str(speaker) / str(chapter)
        lines = []
        for u in range(count):
            utt = f"{speaker}-{chapter}-{u:04d}"
            written[utt] = write_sound(chapter_dir / f"{utt}.flac", noise(30))
            lines.append(f"{utt} WORD{u} AND SOME MORE")
        (chapter_dir / f"{speaker}-{chapter}.trans.txt").write_text("\n".join(lines[::-1]) + "\n")
    return written


def test_librispeech(tmp_path, ta_loading):
    written = write_librispeech(tmp_path / "LibriSpeech" / "dev-clean")
    ours = datasets.LIBRISPEECH(tmp_path, url="dev-clean")
    theirs = ta_loading.datasets.LIBRISPEECH(tmp_path, url="dev-clean")
    assert_same_dataset(ours, theirs, metadata=True)
    assert ours.get_metadata(0) == ("dev-clean/1272/128104/1272-128104-0000.flac", 16000)[:2] + (
        "WORD0 AND SOME MORE",
        1272,
        128104,
        0,
    )
    np.testing.assert_array_equal(ours[0][0].numpy(), written["1272-128104-0000"])


def test_librispeech_metadata_needs_no_decoder(tmp_path, monkeypatch):
    write_librispeech(tmp_path / "LibriSpeech" / "dev-clean")
    monkeypatch.setitem(__import__("sys").modules, "soundfile", None)
    ds = datasets.LIBRISPEECH(tmp_path, url="dev-clean")
    assert ds.get_metadata(4)[2:] == ("WORD2 AND SOME MORE", 84, 121123, 2)
    with pytest.raises(ImportError, match="pip install soundfile"):
        ds[0]


def test_librispeech_errors_and_download(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="Invalid url 'dev' given; please provide one of"):
        datasets.LIBRISPEECH(tmp_path, url="dev")
    with pytest.raises(RuntimeError, match="Please set `download=True` to download the dataset."):
        datasets.LIBRISPEECH(tmp_path, url="test-other")
    corpus = tmp_path / "corpus"
    write_librispeech(corpus / "LibriSpeech" / "test-other")
    url, _ = serve(tmp_path, "test-other.tar.gz", tree(corpus))
    monkeypatch.setattr(datasets.librispeech, "_BASE_URL", url.rsplit("/", 1)[0] + "/")
    root = tmp_path / "root"
    root.mkdir()
    ds = datasets.LIBRISPEECH(root, url="test-other", download=True)
    assert len(ds) == 5 and ds.get_metadata(1)[0] == "test-other/1272/128104/1272-128104-0001.flac"


def test_librispeech_biasing(tmp_path, ta_loading):
    write_librispeech(tmp_path / "LibriSpeech" / "dev-clean")
    blist = ["MORE", "WORD2", "ABSENT"]
    ours = datasets.LibriSpeechBiasing(tmp_path, url="dev-clean", blist=blist)
    theirs = ta_loading.datasets.LibriSpeechBiasing(tmp_path, url="dev-clean", blist=blist)
    assert_same_dataset(ours, theirs, metadata=True)
    assert ours.get_metadata(4)[-1] == ["WORD2", "MORE"]  # in the transcript's order


# ------------------------------------------------------------------ LJSPEECH


def write_ljspeech(folder: Path) -> dict[str, np.ndarray]:
    rows = [
        ("LJ001-0001", 'Printing, "in the" only sense', "Printing, in the only sense"),
        ("LJ001-0002", "in being comparatively modern.", "in being comparatively modern."),
        ("LJ002-0010", "Mr. Smith's 1st", "Mister Smith's first"),
    ]
    written = {row[0]: write_wav(folder / "wavs" / f"{row[0]}.wav", noise(), 22050) for row in rows}
    (folder / "metadata.csv").write_text("".join("|".join(row) + "\n" for row in rows))
    return written


def test_ljspeech(tmp_path, ta_loading):
    written = write_ljspeech(tmp_path / "LJSpeech-1.1")
    ours, theirs = datasets.LJSPEECH(tmp_path), ta_loading.datasets.LJSPEECH(tmp_path)
    assert_same_dataset(ours, theirs)
    waveform, rate, transcript, normalized = ours[0]
    assert (rate, transcript) == (22050, 'Printing, "in the" only sense')
    assert normalized == "Printing, in the only sense"
    np.testing.assert_array_equal(waveform.numpy(), written["LJ001-0001"])


def test_ljspeech_download(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    write_ljspeech(corpus / "LJSpeech-1.1")
    url, sha = serve(tmp_path, "LJSpeech-1.1.tar.bz2", tree(corpus))
    monkeypatch.setitem(datasets.ljspeech._RELEASE_CONFIGS["release1"], "checksum", sha)
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(RuntimeError, match="LJSpeech-1.1/wavs doesn't exist"):
        datasets.LJSPEECH(root, url=url)
    assert len(datasets.LJSPEECH(root, url=url, download=True)) == 3


# ------------------------------------------------------------------ GTZAN


def test_gtzan(tmp_path, ta_loading):
    folder = tmp_path / "genres"
    written = {}
    for name in ("blues.00012", "blues.00000", "rock.00091", "jazz.00073", "pop.00002"):
        written[name] = write_wav(folder / name.split(".")[0] / f"{name}.wav", noise(), 22050)
    write_wav(folder / "rock" / "rock.1.wav", noise())  # not five digits: skipped
    write_wav(folder / "noise" / "noise.00001.wav", noise())  # not a genre: skipped
    ours, theirs = datasets.GTZAN(tmp_path), ta_loading.datasets.GTZAN(tmp_path)
    assert_same_dataset(ours, theirs)
    assert [ours[n][2] for n in range(len(ours))] == ["blues", "blues", "jazz", "pop", "rock"]
    np.testing.assert_array_equal(ours[1][0].numpy(), written["blues.00012"])
    for subset in ("training", "validation", "testing"):
        ours = datasets.GTZAN(tmp_path, subset=subset)
        theirs = ta_loading.datasets.GTZAN(tmp_path, subset=subset)
        assert ours._walker == theirs._walker
    assert datasets.GTZAN(tmp_path, subset="testing")[0][2] == "blues"  # blues.00012
    with pytest.raises(ValueError, match="When `subset` is not None"):
        datasets.GTZAN(tmp_path, subset="test")


# ------------------------------------------------------------------ CMUARCTIC


def test_cmuarctic(tmp_path, ta_loading):
    folder = tmp_path / "ARCTIC" / "cmu_us_slt_arctic"
    written = {}
    lines = [
        '( arctic_a0001 "Author of the danger trail, Philip Steels, etc." )',
        '( arctic_b0002 "Not at this particular case, Tom, apologized Whittemore." )',
    ]
    for line in lines:
        utt = line.split()[1]
        written[utt] = write_wav(folder / "wav" / f"{utt}.wav", noise(), 16000)
    (folder / "etc").mkdir()
    (folder / "etc" / "txt.done.data").write_text("\n".join(lines) + "\n")
    ours = datasets.CMUARCTIC(tmp_path, url="slt")
    theirs = ta_loading.datasets.CMUARCTIC(tmp_path, url="slt")
    assert_same_dataset(ours, theirs)
    waveform, rate, transcript, utterance = ours[1]
    assert transcript == "Not at this particular case, Tom, apologized Whittemore."
    assert (rate, utterance) == (16000, "b0002")
    np.testing.assert_array_equal(waveform.numpy(), written["arctic_b0002"])


def test_cmuarctic_download(tmp_path):
    corpus = tmp_path / "corpus"
    folder = corpus / "cmu_us_xyz_arctic"
    write_wav(folder / "wav" / "arctic_a0001.wav", noise())
    (folder / "etc").mkdir()
    (folder / "etc" / "txt.done.data").write_text('( arctic_a0001 "Hello there." )\n')
    url, _ = serve(tmp_path, "cmu_us_xyz_arctic.tar.bz2", tree(corpus))
    (tmp_path / "root").mkdir()
    ds = datasets.CMUARCTIC(tmp_path / "root", url=url, download=True)
    assert ds[0][2:] == ("Hello there.", "a0001")


# ------------------------------------------------------------------ CMUDict

CMUDICT = """\
;;; # CMUdict  --  Major Version: 0.07
!EXCLAMATION-POINT  EH2 K S K L AH0 M EY1 SH AH0 N P OY2 N T
"CLOSE-QUOTE  K L OW1 Z K W OW1 T
--DASH  D AE1 SH
...ELLIPSIS  IH2 L IH1 P S IH0 S
;SEMI-COLON(1)  S EH1 M IY0 K OW1 L AH0 N
A  AH0
A(1)  EY1
ABANDON  AH0 B AE1 N D AH0 N
CAF\xc9  K AH0 F EY1
"""


def write_cmudict(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cmudict-0.7b").write_bytes(CMUDICT.encode("latin-1"))
    (folder / "cmudict-0.7b.symbols").write_text("AA\nAA0\nAH0\nEY1\n")


@pytest.mark.parametrize("exclude_punctuations", [True, False])
def test_cmudict(tmp_path, ta, exclude_punctuations):
    write_cmudict(tmp_path)
    ours = datasets.CMUDict(tmp_path, exclude_punctuations)
    theirs = ta.datasets.CMUDict(tmp_path, exclude_punctuations)
    assert [ours[n] for n in range(len(ours))] == [theirs[n] for n in range(len(theirs))]
    assert ours.symbols == theirs.symbols == ["AA", "AA0", "AH0", "EY1"]
    words = [ours[n][0] for n in range(len(ours))]
    expected = ["A", "A", "ABANDON", "CAF\xc9"]
    assert words == (expected if exclude_punctuations else ["!", '"', "--", "...", ";"] + expected)


def test_cmudict_download(tmp_path):
    server = tmp_path / "server"
    write_cmudict(server)
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(RuntimeError, match="The dictionary file is not found"):
        datasets.CMUDict(root)
    urls = {
        "url": f"file://{server}/cmudict-0.7b",
        "url_symbols": f"file://{server}/cmudict-0.7b.symbols",
    }
    ds = datasets.CMUDict(root, download=True, **urls)
    assert ds[2] == ("ABANDON", ["AH0", "B", "AE1", "N", "D", "AH0", "N"])
    with pytest.raises(RuntimeError, match="The root directory does not exist"):
        datasets.CMUDict(tmp_path / "missing")


# ------------------------------------------------------------------ VCTK_092


def write_vctk(folder: Path) -> dict[str, np.ndarray]:
    written = {}
    for speaker, utterances in (("p225", 2), ("p280", 1), ("p315", 0), ("p362", 2)):
        (folder / "txt" / speaker).mkdir(parents=True)
        if speaker == "p315":
            write_sound(folder / "wav48_silence_trimmed" / speaker / "p315_001_mic2.flac", noise())
        for u in range(1, utterances + 1):
            stem = f"{speaker}_{u:03d}"
            (folder / "txt" / speaker / f"{stem}.txt").write_text(f"Please call {stem}.\n")
            for mic in ("mic1", "mic2"):
                if speaker == "p280" and mic == "mic2" or speaker == "p362" and u == 2:
                    continue
                path = folder / "wav48_silence_trimmed" / speaker / f"{stem}_{mic}.flac"
                written[f"{stem}_{mic}"] = write_sound(path, noise(), 48000)
    return written


@pytest.mark.parametrize("mic_id", ["mic1", "mic2"])
def test_vctk(tmp_path, ta_loading, mic_id):
    written = write_vctk(tmp_path / "VCTK-Corpus-0.92")
    ours = datasets.VCTK_092(str(tmp_path), mic_id=mic_id)
    theirs = ta_loading.datasets.VCTK_092(str(tmp_path), mic_id=mic_id)
    assert_same_dataset(ours, theirs)
    ids = [tuple(ours[n][3:]) for n in range(len(ours))]
    expected = [("p225", "001"), ("p225", "002"), ("p280", "001"), ("p362", "001")]
    assert ids == (expected if mic_id == "mic1" else expected[:2] + expected[3:])
    waveform, rate, transcript, _, _ = ours[0]
    assert (rate, transcript) == (48000, "Please call p225_001.\n")
    np.testing.assert_array_equal(waveform.numpy(), written[f"p225_001_{mic_id}"])
    with pytest.raises(
        RuntimeError, match='`mic_id` has to be either "mic1" or "mic2". Found: mic3'
    ):
        datasets.VCTK_092(str(tmp_path), mic_id="mic3")


def test_vctk_download(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    write_vctk(corpus)
    url, sha = serve(tmp_path, "VCTK-Corpus-0.92.zip", tree(corpus))
    monkeypatch.setitem(datasets.vctk._CHECKSUMS, url, sha)
    root = tmp_path / "root"
    root.mkdir()
    assert len(datasets.VCTK_092(str(root), download=True, url=url)) == 3


# ------------------------------------------------------------------ LIBRITTS


def test_libritts(tmp_path, ta_loading):
    folder = tmp_path / "LibriTTS" / "dev-clean"
    written = {}
    for utt in ("84_121123_000007_000001", "84_121123_000008_000000", "174_50561_000024_000000"):
        speaker, chapter = utt.split("_")[:2]
        base = folder / speaker / chapter / utt
        written[utt] = write_wav(base.with_suffix(".wav"), noise(), 24000)
        base.with_suffix(".original.txt").write_text(f'"Original," said {utt}.')
        base.with_suffix(".normalized.txt").write_text(f'"Normalized," said {utt}.')
    ours = datasets.LIBRITTS(tmp_path, url="dev-clean")
    theirs = ta_loading.datasets.LIBRITTS(tmp_path, url="dev-clean")
    assert_same_dataset(ours, theirs)
    item = ours[0]
    assert item[1:] == (
        24000,
        '"Original," said 174_50561_000024_000000.',
        '"Normalized," said 174_50561_000024_000000.',
        174,
        50561,
        "174_50561_000024_000000",
    )
    np.testing.assert_array_equal(item[0].numpy(), written["174_50561_000024_000000"])


# ------------------------------------------------------------------ the others


def test_commonvoice(tmp_path, ta_loading):
    header = ["client_id", "path", "sentence", "up_votes", "down_votes", "age", "gender", "accent"]
    rows = [["c1", "common_voice_en_1.mp3", "Hello.", "2", "0", "", "", ""]]
    rows.append(["c2", "common_voice_en_2", "Bye.", "3", "1", "twenties", "male", "us"])
    for row in rows:  # WAV bytes under an .mp3 name: both readers sniff the content
        write_wav(tmp_path / "clips" / (row[1].removesuffix(".mp3") + ".mp3"), noise())
    (tmp_path / "dev.tsv").write_text("\n".join("\t".join(r) for r in [header, *rows]) + "\n")
    ours = datasets.COMMONVOICE(tmp_path, tsv="dev.tsv")
    theirs = ta_loading.datasets.COMMONVOICE(tmp_path, tsv="dev.tsv")
    assert_same_dataset(ours, theirs)
    assert ours[1][2]["gender"] == "male"


def test_tedlium_cuts_segments_by_time(tmp_path, ta_loading):
    folder = tmp_path / "TEDLIUM_release2" / "dev"
    talk = noise(16000 * 3)
    written = write_sound(folder / "sph" / "AlGore_2009.sph", talk, 16000, format="NIST")
    (folder / "stm").mkdir()
    (folder / "stm" / "AlGore_2009.stm").write_text(
        "AlGore_2009 1 AlGore_2009 0.00 0.50 <o,f0,male> i have\n"
        "AlGore_2009 1 AlGore_2009 1.25 2.9375 <o,f0,male> a few words with spaces\n"
    )
    (tmp_path / "TEDLIUM_release2" / "TEDLIUM.152k.dic").write_text("a AH0\nhave HH AE1 V\nuh\n")
    ours = datasets.TEDLIUM(tmp_path, release="release2", subset="dev")
    theirs = ta_loading.datasets.TEDLIUM(tmp_path, release="release2", subset="dev")
    assert_same_dataset(ours, theirs)
    assert (
        ours.phoneme_dict
        == theirs.phoneme_dict
        == {"a": ("AH0",), "have": ("HH", "AE1", "V"), "uh": ()}
    )
    waveform, rate, transcript, talk_id, _, identifier = ours[1]
    assert (rate, transcript, talk_id) == (16000, "a few words with spaces\n", "AlGore_2009")
    assert identifier == "<o,f0,male>"
    np.testing.assert_array_equal(waveform.numpy(), written[:, 20000:47000])
    with pytest.raises(RuntimeError, match="The release release4 does not match"):
        datasets.TEDLIUM(tmp_path, release="release4")


def test_fluent_speech_commands(tmp_path, ta_loading):
    folder = tmp_path / "fluent_speech_commands_dataset"
    rows = [",path,speakerId,transcription,action,object,location"]
    for k, speaker in enumerate(("2BqVo8kVB2Skwgyb", "4BrX8aDqK2cLZRYl")):
        name = f"0a3129c0-4474-11e9-a9a5-5dbec3b8816a{k}"
        write_wav(folder / "wavs" / "speakers" / speaker / f"{name}.wav", noise())
        rows.append(
            f"{k},wavs/speakers/{speaker}/{name}.wav,{speaker},Turn on the lights,activate,lights,none"
        )
    (folder / "data").mkdir()
    (folder / "data" / "valid_data.csv").write_text("\n".join(rows) + "\n")
    ours = datasets.FluentSpeechCommands(tmp_path, subset="valid")
    theirs = ta_loading.datasets.FluentSpeechCommands(tmp_path, subset="valid")
    assert_same_dataset(ours, theirs, metadata=True)


def test_librimix(tmp_path, ta_loading):
    mix_dir = tmp_path / "Libri2Mix" / "wav8k" / "min" / "dev"
    for name in ("61-70968-0000_8455-210777-0012.wav", "1-2-0000_3-4-0001.wav"):
        for sub in ("mix_clean", "s1", "s2"):
            write_wav(mix_dir / sub / name, noise(), 8000)
    ours = datasets.LibriMix(tmp_path, subset="dev")
    theirs = ta_loading.datasets.LibriMix(tmp_path, subset="dev")
    assert_same_dataset(ours, theirs, metadata=True)


def test_quesst14_and_snips(tmp_path, ta_loading):
    folder = tmp_path / "quesst14Database"
    write_wav(folder / "dev_queries" / "quesst14_dev_0001.wav", noise(), 8000)
    write_wav(folder / "dev_queries" / "quesst14_dev_0002.wav", noise(), 8000)
    (folder / "scoring").mkdir()
    (folder / "scoring" / "language_key_dev.lst").write_text(
        "quesst14Database/dev_queries/quesst14_dev_0001.wav nnenglish\n"
        "quesst14Database/dev_queries/quesst14_dev_0002.wav czech\n"
    )
    ours = datasets.QUESST14(tmp_path, subset="dev", language=None)
    theirs = ta_loading.datasets.QUESST14(tmp_path, subset="dev", language=None)
    assert_same_dataset(ours, theirs, metadata=True)
    assert ours.get_metadata(1) == ("dev_queries/quesst14_dev_0002.wav", 8000, "quesst14_dev_0002")
    snips = tmp_path / "SNIPS"
    for name in ("Amy-valid-0", "Brian-valid-1", "Zed-valid-2"):
        write_wav(snips / "valid" / f"{name}.wav", noise())
    (snips / "all.iob.snips.txt").write_text(
        "Amy-valid-0 BOS play music EOS\tO O B-thing PlayMusic\n"
        "Brian-valid-1 BOS rate it EOS\tO O O RateBook\n"
        "Amy-train-3 BOS hi EOS\tO O Greet\n"
    )
    ours = datasets.Snips(tmp_path, subset="valid", audio_format="wav")
    theirs = ta_loading.datasets.Snips(tmp_path, subset="valid", audio_format="wav")
    assert_same_dataset(ours, theirs, metadata=True)
    assert ours.get_metadata(0)[2:] == ("Amy-valid-0", "play music", "O B-thing", "PlayMusic")


def test_voxceleb1(tmp_path, ta_loading):
    for path in (
        "id10001/1zcIwhmdeo4/00001.wav",
        "id10001/1zcIwhmdeo4/00002.wav",
        "id10002/xTV-jFAUKcw/00001.wav",
    ):
        write_wav(tmp_path / "wav" / path, noise())
    (tmp_path / "iden_split.txt").write_text(
        "1 id10002/xTV-jFAUKcw/00001.wav\n3 id10001/1zcIwhmdeo4/00002.wav\n1 id10001/1zcIwhmdeo4/00001.wav\n"
    )
    (tmp_path / "veri_test.txt").write_text(
        "1 id10001/1zcIwhmdeo4/00001.wav id10001/1zcIwhmdeo4/00002.wav\n"
        "0 id10001/1zcIwhmdeo4/00001.wav id10002/xTV-jFAUKcw/00001.wav\n"
    )
    for subset in ("train", "test"):
        ours = datasets.VoxCeleb1Identification(tmp_path, subset=subset)
        theirs = ta_loading.datasets.VoxCeleb1Identification(tmp_path, subset=subset)
        assert_same_dataset(ours, theirs, metadata=True)
    ours = datasets.VoxCeleb1Verification(tmp_path)
    assert_same_dataset(ours, ta_loading.datasets.VoxCeleb1Verification(tmp_path), metadata=True)
    assert ours.get_metadata(1)[2:] == (
        16000,
        0,
        "id10001-1zcIwhmdeo4-00001",
        "id10002-xTV-jFAUKcw-00001",
    )


def test_datasets_feed_a_dataloader(tmp_path):
    write_speech_commands(tmp_path / "SpeechCommands" / "speech_commands_v0.02")
    ds = datasets.SPEECHCOMMANDS(tmp_path, subset="testing")
    loader = chainrule.utils.data.DataLoader(ds, batch_size=1)
    waveform, rate, label, speaker, number = next(iter(loader))
    assert tuple(waveform.shape) == (1, 1, 16) and label == ("yes",) and speaker == ("1b4c9b89",)
    assert rate.tolist() == [16000] and number.tolist() == [1]
