"""``utils.tensorboard`` against ``torch.utils.tensorboard``: the same calls written by both
SummaryWriters into two folders, read back by TensorBoard's EventAccumulator and compared
(tags, steps, values; wall times excepted): scalars exactly, histograms' buckets, images'
PNG bytes and pixels, text, hparams plugin data, PR curves, tensors, custom scalars,
meshes, audio, the embedding projector's files; the graph of ``add_graph`` (chainrule's
autograd graph: its inputs and outputs as PyTorch's); the writer's folders and lifetime;
the ImportError without tensorboard; and a script run under ``chainrule run``."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tensorboard")

import torch  # noqa: E402
import torch.utils.tensorboard as torch_tb  # noqa: E402
from tensorboard.backend.event_processing import event_accumulator as ea  # noqa: E402
from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

import chainrule as cr  # noqa: E402
import chainrule.utils.tensorboard as cr_tb  # noqa: E402
from chainrule.utils.tensorboard import _images  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(0)
PIXELS = RNG.random((3, 9, 7))  # CHW in [0, 1]


def write_both(tmp_path: Path, calls, **kw) -> dict:
    """Run ``calls(writer, lib)`` with PyTorch's and chainrule's SummaryWriter, each into
    its own folder; the folders by library name."""
    dirs = {}
    for name, lib, tb in (("torch", torch, torch_tb), ("chainrule", cr, cr_tb)):
        d = tmp_path / name
        with tb.SummaryWriter(str(d), **kw) as w:
            calls(w, lib)
        dirs[name] = d
    return dirs


def accumulate(path: Path) -> ea.EventAccumulator:
    everything = {k: 0 for k in ea.DEFAULT_SIZE_GUIDANCE}
    everything[ea.TENSORS] = 0
    acc = ea.EventAccumulator(str(path), size_guidance=everything)
    acc.Reload()
    return acc


def both(dirs: dict, sub: str = "") -> tuple:
    return accumulate(dirs["torch"] / sub), accumulate(dirs["chainrule"] / sub)


def tensor_events(acc: ea.EventAccumulator, tag: str) -> list:
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def same_tensor_events(a: list, b: list) -> None:
    assert [s for s, _ in a] == [s for s, _ in b]
    for (_, x), (_, y) in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


def decoded(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)))


# ---------------------------------------------------------------- scalars and tensors


def test_scalars_match_torch(tmp_path):
    def calls(w, lib):
        w.add_scalar("loss", 2.5, 0)
        w.add_scalar("loss", np.float32(1.25), 1)
        w.add_scalar("loss", lib.tensor(0.1, dtype=lib.float64), 2)
        w.add_scalar("loss", lib.tensor([0.7]), 5)
        w.add_scalar("count", 3)  # no step: 0
        w.add_scalar("new", lib.tensor(1 / 3), 1, new_style=True)
        w.add_scalar("new64", 1 / 3, 1, new_style=True, double_precision=True)

    a, b = both(write_both(tmp_path, calls))
    assert a.Tags()["scalars"] == b.Tags()["scalars"] == ["loss", "count"]
    for tag in ("loss", "count"):
        assert [(e.step, e.value) for e in a.Scalars(tag)] == [
            (e.step, e.value) for e in b.Scalars(tag)
        ]
    for tag in ("new", "new64"):
        same_tensor_events(tensor_events(a, tag), tensor_events(b, tag))
        assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag)


def test_scalar_of_many_values_raises_torchs_error():
    with pytest.raises(AssertionError) as expected:
        torch_tb.summary.scalar("x", torch.tensor([1.0, 2.0]))
    with pytest.raises(AssertionError) as got:
        cr_tb.summary.scalar("x", cr.tensor([1.0, 2.0]))
    assert str(got.value) == str(expected.value)


def test_add_scalars_writes_one_run_per_series(tmp_path):
    def calls(w, lib):
        for step in range(3):
            w.add_scalars("run/a", {"sin": np.sin(step), "cos": lib.tensor(np.cos(step))}, step)

    dirs = write_both(tmp_path, calls)
    subs = {p.name for p in dirs["chainrule"].iterdir() if p.is_dir()}
    assert (
        subs
        == {p.name for p in dirs["torch"].iterdir() if p.is_dir()}
        == {
            "run_a_sin",
            "run_a_cos",
        }
    )
    for sub in subs:
        a, b = both(dirs, sub)
        assert [(e.step, e.value) for e in a.Scalars("run/a")] == [
            (e.step, e.value) for e in b.Scalars("run/a")
        ]


@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool", "complex64"]
)
def test_add_tensor_matches_torch(tmp_path, dtype):
    values = (RNG.standard_normal((2, 3)) * 4).astype(dtype)
    if dtype == "complex64":
        values = values + 1j * values[::-1]

    def calls(w, lib):
        w.add_tensor("t", lib.tensor(values), 4)

    a, b = both(write_both(tmp_path, calls))
    assert a.Tensors("t")[0].tensor_proto == b.Tensors("t")[0].tensor_proto
    assert a.SummaryMetadata("t") == b.SummaryMetadata("t")


# ---------------------------------------------------------------- histograms


HIST_VALUES = RNG.standard_normal(1000) * 3


@pytest.mark.parametrize(
    "bins, max_bins",
    [("tensorflow", None), ("auto", None), ("fd", None), (10, None), ("sturges", 4), (64, 7)],
)
def test_histograms_match_torch(tmp_path, bins, max_bins):
    def calls(w, lib):
        w.add_histogram("h", lib.tensor(HIST_VALUES), 0, bins=bins, max_bins=max_bins)
        w.add_histogram("h", HIST_VALUES.astype(np.float32) + 1, 1, bins=bins, max_bins=max_bins)
        w.add_histogram("ints", lib.arange(20), 2, bins=bins, max_bins=max_bins)

    a, b = both(write_both(tmp_path, calls))
    for tag in ("h", "ints"):
        assert [(e.step, e.histogram_value) for e in a.Histograms(tag)] == [
            (e.step, e.histogram_value) for e in b.Histograms(tag)
        ]


def test_histogram_raw_matches_torch(tmp_path):
    counts, limits = np.histogram(HIST_VALUES, bins=12)

    def calls(w, lib):
        w.add_histogram_raw(
            "raw",
            min=HIST_VALUES.min(),
            max=HIST_VALUES.max(),
            num=len(HIST_VALUES),
            sum=HIST_VALUES.sum(),
            sum_squares=HIST_VALUES.dot(HIST_VALUES),
            bucket_limits=limits[1:].tolist(),
            bucket_counts=counts.tolist(),
            global_step=3,
        )

    a, b = both(write_both(tmp_path, calls))
    assert a.Histograms("raw") and [e.histogram_value for e in a.Histograms("raw")] == [
        e.histogram_value for e in b.Histograms("raw")
    ]
    with pytest.raises(ValueError, match=r"len\(bucket_limits\) != len\(bucket_counts\)"):
        with cr_tb.SummaryWriter(str(tmp_path / "bad")) as w:
            w.add_histogram_raw("raw", 0, 1, 2, 1, 1, [1.0, 2.0], [1])


def test_empty_histogram_raises():
    with pytest.raises(ValueError, match="The input has no element."):
        cr_tb.summary.histogram("h", cr.zeros(0), bins=10)


# ---------------------------------------------------------------- images


IMAGE_CASES = [
    ("chw", PIXELS, "CHW"),
    ("hwc", (PIXELS.transpose(1, 2, 0) * 255).astype(np.uint8), "HWC"),
    ("hw", PIXELS[0], "HW"),
    ("wh", PIXELS[1], "WH"),
    ("one_channel", PIXELS[:1], "CHW"),
    ("rgba", np.concatenate([PIXELS, PIXELS[:1]]), "CHW"),
    ("out_of_range", PIXELS * 3 - 1, "CHW"),
]
BATCH = RNG.random((11, 3, 4, 5)).astype(np.float32)


def write_images(w, lib):
    for tag, pixels, layout in IMAGE_CASES:
        w.add_image(tag, lib.tensor(pixels), 2, dataformats=layout)
    w.add_image("numpy", PIXELS, 3)
    w.add_images("batch", lib.tensor(BATCH), 0)
    w.add_images("batch_nhwc", BATCH.transpose(0, 2, 3, 1), 1, dataformats="NHWC")
    w.add_images("batch_gray", lib.tensor(BATCH[:3, :1]), 1)


def test_images_match_torch_byte_for_byte(tmp_path):
    a, b = both(write_both(tmp_path, write_images))
    tags = a.Tags()["images"]
    assert sorted(tags) == sorted(b.Tags()["images"]) and len(tags) == len(IMAGE_CASES) + 4
    for tag in tags:
        (x,), (y,) = a.Images(tag), b.Images(tag)
        assert (x.step, x.width, x.height) == (y.step, y.width, y.height)
        assert len(x.encoded_image_string) == len(y.encoded_image_string)
        assert x.encoded_image_string == y.encoded_image_string


def test_images_without_pillow_decode_to_torchs_pixels(tmp_path, monkeypatch):
    monkeypatch.setattr(_images, "_pillow", lambda: None)
    a, b = both(write_both(tmp_path, write_images))
    for tag in a.Tags()["images"]:
        (x,), (y,) = a.Images(tag), b.Images(tag)
        assert (x.width, x.height) == (y.width, y.height)
        assert y.encoded_image_string.startswith(b"\x89PNG\r\n\x1a\n")
        got, expected = decoded(y.encoded_image_string), decoded(x.encoded_image_string)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def test_image_layout_errors_match_torch():
    for pixels, layout in [(PIXELS, "CCW"), (PIXELS, "HW")]:
        with pytest.raises(AssertionError) as expected:
            torch_tb.summary.image("x", pixels, dataformats=layout)
        with pytest.raises(AssertionError) as got:
            cr_tb.summary.image("x", pixels, dataformats=layout)
        assert str(got.value) == str(expected.value)


def test_image_with_boxes_matches_torch(tmp_path):
    boxes = np.array([[1.0, 1.0, 5.0, 6.0], [0.0, 2.0, 3.0, 8.0]])

    def calls(w, lib):
        w.add_image_with_boxes("boxed", lib.tensor(PIXELS), lib.tensor(boxes), 0)
        w.add_image_with_boxes("labelled", PIXELS, boxes, 1, labels=["a", "b"], rescale=2)

    a, b = both(write_both(tmp_path, calls))
    for tag in ("boxed", "labelled"):
        (x,), (y,) = a.Images(tag), b.Images(tag)
        assert x.encoded_image_string == y.encoded_image_string
        assert (x.width, x.height) == (y.width, y.height)


def test_figure_matches_torch(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def figure():
        fig = plt.figure(figsize=(2, 1.5), dpi=40)
        plt.plot([0, 1, 2], [1, 0, 2])
        return fig

    def calls(w, lib):
        w.add_figure("fig", figure(), 0)
        w.add_figure("figs", [figure(), figure()], 1)

    a, b = both(write_both(tmp_path, calls))
    for tag in ("fig", "figs"):
        (x,), (y,) = a.Images(tag), b.Images(tag)
        np.testing.assert_array_equal(
            decoded(x.encoded_image_string), decoded(y.encoded_image_string)
        )


def test_audio_and_video_match_torch(tmp_path, capsys):
    sound = np.sin(np.arange(200) / 5)[None] * 1.5  # clipped, with PyTorch's warning
    video = RNG.random((3, 2, 3, 4, 4))

    def calls(w, lib):
        w.add_audio("sound", lib.tensor(sound), 0, sample_rate=8000)
        w.add_video("video", lib.tensor(video), 0)

    dirs = write_both(tmp_path, calls)
    printed = capsys.readouterr().out.splitlines()
    assert printed[: len(printed) // 2] == printed[len(printed) // 2 :]
    a, b = both(dirs)
    (x,), (y,) = a.Audio("sound"), b.Audio("sound")
    assert x.encoded_audio_string == y.encoded_audio_string
    assert (x.sample_rate, x.length_frames, x.content_type) == (
        y.sample_rate,
        y.length_frames,
        y.content_type,
    )
    assert a.Tags()["images"] == b.Tags()["images"]


# ---------------------------------------------------------------- text, hparams, layouts


def test_text_matches_torch(tmp_path):
    def calls(w, lib):
        w.add_text("notes", "a *markdown* note", 0)
        w.add_text("notes", "ünïcode ✓", 7)

    a, b = both(write_both(tmp_path, calls))
    same_tensor_events(
        tensor_events(a, "notes/text_summary"), tensor_events(b, "notes/text_summary")
    )
    assert a.SummaryMetadata("notes/text_summary") == b.SummaryMetadata("notes/text_summary")


def hparams_data(acc: ea.EventAccumulator) -> dict:
    contents = acc.PluginTagToContent("hparams")
    return {tag: HParamsPluginData.FromString(c) for tag, c in contents.items()}


def test_hparams_match_torch(tmp_path):
    def calls(w, lib):
        w.add_hparams(
            {"lr": 0.1, "layers": 3, "opt": "adam", "nesterov": True, "none": None},
            {"hparam/accuracy": 0.75, "hparam/loss": lib.tensor(0.5)},
            hparam_domain_discrete={"opt": ["adam", "sgd"], "layers": [2, 3]},
            run_name="run0",
            global_step=2,
        )
        w.add_hparams({"w": lib.tensor([2.5])}, {"m": 1}, run_name="run1")

    dirs = write_both(tmp_path, calls)
    for run in ("run0", "run1"):
        a, b = both(dirs, run)
        assert hparams_data(a) == hparams_data(b) and len(hparams_data(a)) == 3
    a, b = both(dirs, "run0")
    for tag in ("hparam/accuracy", "hparam/loss"):
        assert [(e.step, e.value) for e in a.Scalars(tag)] == [
            (e.step, e.value) for e in b.Scalars(tag)
        ]


def test_hparams_errors_match_torch(tmp_path):
    cases = [
        (([1], {}), {}),
        (({"a": [1]}, {}), {}),
        (({"a": 1}, {}), {"hparam_domain_discrete": {"a": ["x"]}}),
    ]
    with (
        torch_tb.SummaryWriter(str(tmp_path / "t")) as wt,
        cr_tb.SummaryWriter(str(tmp_path / "c")) as wc,
    ):
        for args, kw in cases:
            with pytest.raises((TypeError, ValueError)) as expected:
                wt.add_hparams(*args, **kw)
            with pytest.raises(expected.type) as got:
                wc.add_hparams(*args, **kw)
            assert str(got.value) == str(expected.value)


def test_custom_scalars_match_torch(tmp_path):
    def calls(w, lib):
        w.add_custom_scalars(
            {
                "Taiwan": {"twse": ["Multiline", ["twse/0050", "twse/2330"]]},
                "USA": {"dow": ["Margin", ["dow/aaa", "dow/bbb", "dow/ccc"]]},
            }
        )

    a, b = both(write_both(tmp_path, calls))
    tag = "custom_scalars__config__"
    same_tensor_events(tensor_events(a, tag), tensor_events(b, tag))
    assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag)
    for shorthand in ("multilinechart", "marginchart"):
        dirs = write_both(
            tmp_path / shorthand,
            lambda w, lib, s=shorthand: getattr(w, f"add_custom_scalars_{s}")(["a", "b", "c"]),
        )
        a, b = both(dirs)
        same_tensor_events(tensor_events(a, tag), tensor_events(b, tag))


# ---------------------------------------------------------------- curves, meshes


def test_pr_curves_match_torch(tmp_path):
    labels = RNG.integers(0, 2, 100)
    predictions = RNG.random(100)
    weights = RNG.random(100)
    tp, fp = np.arange(5.0)[::-1] * 3, np.arange(5.0)[::-1]

    def calls(w, lib):
        w.add_pr_curve("pr", lib.tensor(labels), lib.tensor(predictions), 0)
        w.add_pr_curve("pr", labels, predictions, 1, num_thresholds=200, weights=weights)
        w.add_pr_curve("small", labels, lib.tensor(predictions.astype(np.float32)), 0, 10)
        w.add_pr_curve_raw("raw", tp, fp, 10 - fp, 12 - tp, tp / (tp + fp + 1), tp / 12, 0, 5)

    a, b = both(write_both(tmp_path, calls))
    for tag in ("pr", "small", "raw"):
        same_tensor_events(tensor_events(a, tag), tensor_events(b, tag))
        assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag)


def test_mesh_matches_torch(tmp_path):
    vertices = [[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]]
    colors = [[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]]
    faces = [[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]]

    def calls(w, lib):
        w.add_mesh(
            "mesh",
            vertices=lib.tensor(vertices, dtype=lib.float32),
            colors=lib.tensor(colors, dtype=lib.int32),
            faces=lib.tensor(faces, dtype=lib.int32),
            config_dict={"camera": {"cls": "PerspectiveCamera", "fov": 75}},
            global_step=1,
        )
        w.add_mesh("cloud", vertices=lib.tensor(vertices, dtype=lib.float64))

    a, b = both(write_both(tmp_path, calls))
    tags = a.Tags()["tensors"]
    assert tags == b.Tags()["tensors"] and len(tags) == 4
    for tag in tags:
        same_tensor_events(tensor_events(a, tag), tensor_events(b, tag))
        assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag)


# ---------------------------------------------------------------- embeddings


def test_embedding_files_match_torch(tmp_path):
    mat = RNG.standard_normal((6, 4)).astype(np.float32)
    images = RNG.random((6, 3, 5, 5)).astype(np.float32)
    columns = [[f"p{i}", i % 2] for i in range(6)]

    def calls(w, lib):
        w.add_embedding(lib.tensor(mat), metadata=list("abcdef"), label_img=lib.tensor(images))
        w.add_embedding(mat[:, :2], global_step=3, tag="a/b%c")
        w.add_embedding(
            lib.tensor(mat), metadata=columns, metadata_header=["name", "odd"], global_step=4
        )

    dirs = write_both(tmp_path, calls)
    names = sorted(
        str(p.relative_to(dirs["torch"]))
        for p in dirs["torch"].rglob("*")
        if p.is_file() and "tfevents" not in p.name
    )
    assert len(names) == 7
    for name in names:
        assert (dirs["chainrule"] / name).read_bytes() == (dirs["torch"] / name).read_bytes(), name


def test_embedding_errors_match_torch(tmp_path):
    with cr_tb.SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(AssertionError, match="#labels should equal with #data points"):
            w.add_embedding(cr.zeros(3, 2), metadata=["a"])
        with pytest.raises(AssertionError, match="mat should be 2D"):
            w.add_embedding(cr.zeros(3), global_step=1)


# ---------------------------------------------------------------- graph


class Block(cr.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = cr.nn.Linear(4, 4)

    def forward(self, h):
        return cr.tanh(self.fc(h * 2))


class Net(cr.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = cr.nn.Linear(3, 4)
        self.block = Block()
        self.out = cr.nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.block(cr.relu(self.fc(x))))


class TorchNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.out = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.out(torch.relu(self.fc(x)))


def io_nodes(graph) -> dict:
    return {
        n.name: [d.size for d in n.attr["_output_shapes"].list.shape[0].dim]
        for n in graph.node
        if n.op == "IO Node"
    }


@pytest.mark.filterwarnings("ignore:`torch.jit.trace.* is deprecated:DeprecationWarning")
def test_add_graph_draws_the_autograd_graph(tmp_path):
    with torch_tb.SummaryWriter(str(tmp_path / "torch")) as w:
        w.add_graph(TorchNet(), torch.randn(5, 3))
    net = Net()
    net.block.fc.weight.requires_grad_(False)  # drawn all the same, and left frozen
    with cr_tb.SummaryWriter(str(tmp_path / "chainrule")) as w:
        w.add_graph(net, cr.randn(5, 3))
    assert net.training and not net.block.fc.weight.requires_grad
    a, b = both({"torch": tmp_path / "torch", "chainrule": tmp_path / "chainrule"})
    assert (
        io_nodes(a.Graph())
        == io_nodes(b.Graph())
        == {
            "input/x": [5, 3],
            "output/output.1": [5, 2],
        }
    )
    nodes = {n.name: n for n in b.Graph().node}
    assert nodes["output/output.1"].input == ["Net/Linear[out]/AddmmBackward0"]
    assert list(nodes["Net/Linear[fc]/AddmmBackward0"].input) == [
        "Net/Linear[fc]/bias",
        "input/x",
        "Net/Linear[fc]/TBackward0",
    ]
    assert nodes["Net/Linear[fc]/weight"].op == "Parameter"
    assert list(nodes["Net/Block[block]/MulBackward0"].input) == ["Net/ReluBackward0"]
    assert list(nodes["Net/Block[block]/TanhBackward0"].input) == [
        "Net/Block[block]/Linear[fc]/AddmmBackward0"
    ]
    shape = nodes["Net/Block[block]/Linear[fc]/TBackward0"].attr["_output_shapes"]
    assert [d.size for d in shape.list.shape[0].dim] == [4, 4]
    # every edge ends at a node of the graph
    for node in nodes.values():
        assert all(i.split(":")[0] in nodes for i in node.input)
    assert b.RunMetadata("step1").step_stats == a.RunMetadata("step1").step_stats


def test_add_graph_of_several_outputs_and_a_function(tmp_path):
    def split(x, y):
        return cr.chunk(x * y, 2)[1], x.sum()

    with cr_tb.SummaryWriter(str(tmp_path)) as w:
        w.add_graph(split, (cr.randn(4, 2), cr.randn(4, 2)))
    nodes = {n.name: n for n in accumulate(tmp_path).Graph().node}
    assert nodes["output/output.1"].input == ["split/SplitBackward0:1"]
    assert nodes["output/output.2"].input == ["split/SumBackward0"]
    assert nodes["split/SumBackward0"].input == ["input/x"]
    assert set(nodes["split/MulBackward0"].input) == {"input/x", "input/y"}


def test_add_onnx_graph_writes_torchs_graph_def(tmp_path, capsys):
    # an ONNX file written by chainrule's torch.onnx.export, logged by both writers
    pytest.importorskip("onnx")

    class Net(cr.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = cr.nn.Linear(4, 3)

        def forward(self, x):
            return cr.nn.functional.softmax(self.fc(x).relu(), dim=-1)

    model = tmp_path / "model.onnx"
    cr.onnx.export(Net(), (cr.randn(2, 4),), str(model), input_names=["x"], dynamo=False)
    capsys.readouterr()
    dirs = write_both(tmp_path, lambda w, lib: w.add_onnx_graph(str(model)))
    printed = capsys.readouterr().out.splitlines()
    assert printed[: len(printed) // 2] == printed[len(printed) // 2 :]  # what PyTorch prints
    theirs, ours = (acc.Graph() for acc in both(dirs))
    assert ours == theirs
    assert [n.op for n in ours.node][:2] == ["Variable", "Variable"]
    assert "Softmax" in [n.op for n in ours.node]


# ---------------------------------------------------------------- the writer itself


def test_default_logdir_is_torchs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = cr_tb.SummaryWriter(comment="_lr0.1")
    w.close()
    host = re.escape(socket.gethostname())
    pattern = rf"runs{re.escape(os.sep)}[A-Z][a-z]{{2}}\d\d_\d\d-\d\d-\d\d_{host}_lr0\.1"
    assert re.fullmatch(pattern, w.get_logdir())
    assert (tmp_path / w.get_logdir()).is_dir()


def test_purge_step_and_filename_suffix_match_torch(tmp_path):
    def calls(w, lib):
        w.add_scalar("x", 1.0, 7)

    dirs = write_both(tmp_path, calls, purge_step=5, filename_suffix=".sfx")
    for d in dirs.values():
        (event_file,) = d.iterdir()
        assert event_file.name.startswith("events.out.tfevents.")
        assert event_file.name.endswith(".sfx")
    loaded = {}
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    for name, d in dirs.items():
        events = list(EventFileLoader(str(next(d.iterdir()))).Load())
        for e in events:
            e.wall_time = 0
        loaded[name] = events
    assert loaded["torch"] == loaded["chainrule"] and len(loaded["torch"]) == 4


def test_close_reopens_on_the_next_add_and_flush_writes(tmp_path):
    w = cr_tb.SummaryWriter(str(tmp_path))
    w.add_scalar("x", 1.0, 0)
    w.flush()
    assert [e.value for e in accumulate(tmp_path).Scalars("x")] == [1.0]
    w.close()
    w.close()  # a second close does nothing
    w.add_scalar("x", 2.0, 1)  # a new event file
    w.close()
    assert len(list(tmp_path.glob("events.out.tfevents.*"))) == 2
    assert [e.value for e in accumulate(tmp_path).Scalars("x")] == [1.0, 2.0]
    assert w.get_logdir() == str(tmp_path)


def test_file_writer(tmp_path):
    from tensorboard.compat.proto.summary_pb2 import Summary

    fw = cr_tb.FileWriter(tmp_path, max_queue=1)
    assert fw.get_logdir() == str(tmp_path)
    summary = Summary(value=[Summary.Value(tag="y", simple_value=4.0)])
    fw.add_summary(summary, global_step=np.int64(3), walltime=12.0)
    fw.add_summary(summary, global_step=4)
    fw.flush()
    fw.close()
    events = accumulate(tmp_path).Scalars("y")
    assert [(e.step, e.value) for e in events] == [(3, 4.0), (4, 4.0)]
    assert events[0].wall_time == 12.0
    assert cr_tb.RecordWriter is torch_tb.RecordWriter


def test_add_tensor_takes_numpy_arrays_and_numbers(tmp_path):
    with cr_tb.SummaryWriter(str(tmp_path)) as w:
        w.add_tensor("array", np.arange(6, dtype=np.int32).reshape(2, 3), 0)
        w.add_tensor("number", 2.5, 1)
    acc = accumulate(tmp_path)
    ((_, array),) = tensor_events(acc, "array")
    np.testing.assert_array_equal(array, np.arange(6, dtype=np.int32).reshape(2, 3))
    ((step, number),) = tensor_events(acc, "number")
    assert step == 1 and number.dtype == np.float64 and number.tolist() == [2.5]


def test_values_of_other_kinds_raise_torchs_error():
    with pytest.raises(NotImplementedError, match="numpy array or torch tensor are expected"):
        cr_tb.summary.histogram("h", [1.0, 2.0], bins=3)


# ---------------------------------------------------------------- import and chainrule run


def run_python(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_import_without_tensorboard_raises_torchs_error():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["tensorboard"] = None  # as if not installed
        import chainrule
        assert "tensorboard" not in [m.split(".")[0] for m in sys.modules if sys.modules[m]]
        try:
            import chainrule.utils.tensorboard
        except ImportError as e:
            print(type(e).__name__, e)
        """
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    expected = "ImportError TensorBoard logging requires TensorBoard version 1.15 or above"
    assert proc.stdout.strip() == expected


def test_script_under_chainrule_run(tmp_path):
    script = tmp_path / "log.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import torch
            from torch.utils.tensorboard import SummaryWriter

            assert torch.__spec__.name == "chainrule"
            with SummaryWriter(sys.argv[1]) as writer:
                w = torch.ones(3, requires_grad=True)
                for step in range(3):
                    loss = (w * step).sum()
                    writer.add_scalar("loss", loss, step)
                    writer.add_histogram("w", w, step)
            """
        )
    )
    proc = run_python(
        "import sys; from chainrule.cli import main; sys.exit(main())",
        "run",
        str(script),
        str(tmp_path / "logs"),
    )
    assert proc.returncode == 0, proc.stderr
    acc = accumulate(tmp_path / "logs")
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(0, 0.0), (1, 3.0), (2, 6.0)]
    assert [e.histogram_value.num for e in acc.Histograms("w")] == [3.0, 3.0, 3.0]
