"""Summary protocol buffers, one function per kind of data TensorBoard shows.

Each function turns values (chainrule tensors, NumPy arrays, numbers) into a ``Summary``
of the ``tensorboard`` package, laid out as PyTorch's ``torch.utils.tensorboard.summary``
lays it out, so each TensorBoard plugin (scalars, histograms, images, text, hparams, PR
curves, custom scalars, mesh) reads it.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ._convert import make_np
from ._images import convert_to_HWC, draw_boxes, encode_png, prepare_video

__all__ = [
    "audio",
    "compute_curve",
    "custom_scalars",
    "draw_boxes",
    "half_to_int",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "image_boxes",
    "int_to_half",
    "make_histogram",
    "make_image",
    "make_video",
    "mesh",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "tensor_proto",
    "text",
    "video",
]


def _metadata(plugin_name: str, content: bytes = b"") -> SummaryMetadata:
    return SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name, content=content)
    )


def _shape(dims: Any) -> TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in dims])


# ---------------------------------------------------------------- scalars and tensors


def scalar(
    name: str,
    tensor: Any,
    collections: Any = None,
    new_style: bool = False,
    double_precision: bool = False,
) -> Summary:
    """One number: ``simple_value`` (old style), or a one-element tensor tagged for the
    scalars plugin (``new_style``; a double with ``double_precision``)."""
    array = make_np(tensor).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions).{' ' * 13}"
            f"Was given size: {array.size} and {array.ndim} dimensions."
        )
    value = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    if double_precision:
        proto = TensorProto(double_val=[value], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[value], dtype="DT_FLOAT")
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=_metadata("scalars"))])


def half_to_int(f: float) -> int:
    """The bits of ``f`` as a 32-bit float, read as an int (PyTorch's packing of half
    values into ``half_val``); :func:`int_to_half` undoes it."""
    return struct.unpack("i", struct.pack("f", f))[0]


def int_to_half(i: int) -> float:
    """The inverse of :func:`half_to_int`."""
    return struct.unpack("f", struct.pack("i", i))[0]


def _as_list(a: np.ndarray) -> list:
    return a.reshape(-1).tolist()


def _as_half_ints(a: np.ndarray) -> list:
    return [half_to_int(x) for x in _as_list(a)]


def _as_real_pairs(a: np.ndarray) -> list:
    return np.stack([a.real, a.imag], axis=-1).reshape(-1).tolist()


# NumPy dtype -> (TensorProto dtype, value field, conversion), as PyTorch maps its dtypes
_TENSOR_TYPES = {
    np.dtype(np.float16): ("DT_HALF", "half_val", _as_half_ints),
    np.dtype(np.float32): ("DT_FLOAT", "float_val", _as_list),
    np.dtype(np.float64): ("DT_DOUBLE", "double_val", _as_list),
    np.dtype(np.int8): ("DT_INT8", "int_val", _as_list),
    np.dtype(np.uint8): ("DT_UINT8", "uint32_val", _as_list),
    np.dtype(np.int16): ("DT_INT16", "int_val", _as_list),
    np.dtype(np.int32): ("DT_INT32", "int_val", _as_list),
    np.dtype(np.int64): ("DT_INT64", "int64_val", _as_list),
    np.dtype(np.complex64): ("DT_COMPLEX64", "scomplex_val", _as_real_pairs),
    np.dtype(np.complex128): ("DT_COMPLEX128", "dcomplex_val", _as_real_pairs),
    np.dtype(np.bool_): ("DT_BOOL", "bool_val", _as_list),
}


def tensor_proto(tag: str, tensor: Any) -> Summary:
    """A whole tensor (its shape and every element), tagged for the tensor plugin.

    Also takes a NumPy array or a number (PyTorch's takes only a tensor). float16 values
    are stored as PyTorch stores them: each one's float32 bits in ``half_val``."""
    array = make_np(tensor)
    if array.size * array.itemsize >= (1 << 31):
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if array.dtype not in _TENSOR_TYPES:
        dtype = getattr(tensor, "dtype", array.dtype)
        raise ValueError(f"{tag} has unsupported tensor dtype {dtype}")
    dtype, field, convert = _TENSOR_TYPES[array.dtype]
    proto = TensorProto(dtype=dtype, tensor_shape=_shape(array.shape), **{field: convert(array)})
    return Summary(value=[Summary.Value(tag=tag, metadata=_metadata("tensor"), tensor=proto)])


# ---------------------------------------------------------------- histograms


def histogram_raw(
    name: str,
    min: float,  # (PyTorch's argument names, shadowing builtins)
    max: float,
    num: int,
    sum: float,
    sum_squares: float,
    bucket_limits: Any,
    bucket_counts: Any,
) -> Summary:
    """A histogram given by its statistics and buckets (each bucket's right limit)."""
    hist = HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=bucket_limits,
        bucket=bucket_counts,
    )
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name: str, values: Any, bins: Any, max_bins: int | None = None) -> Summary:
    """A histogram of ``values`` (as float64) over ``bins`` (edges, or a NumPy bin rule)."""
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_histogram(values: np.ndarray, bins: Any, max_bins: int | None = None) -> HistogramProto:
    """``np.histogram`` of ``values``, merged down to at most ``max_bins`` buckets, and cut
    to the buckets from the first to the last non-empty one. TensorBoard keeps only right
    limits, so one more (empty) bucket is kept on the left to show the leftmost limit."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    n = len(counts)
    if max_bins is not None and n > max_bins:
        group = n // max_bins
        if n % group:
            counts = np.pad(counts, (0, group - n % group))
        counts = counts.reshape(-1, group).sum(axis=-1)
        merged = np.empty((counts.size + 1,), limits.dtype)
        merged[:-1] = limits[:-1:group]
        merged[-1] = limits[-1]
        limits = merged

    filled = np.flatnonzero(counts)
    first, stop = (int(filled[0]), int(filled[-1]) + 1) if filled.size else (len(counts), 1)
    counts = counts[first - 1 : stop] if first > 0 else np.concatenate([[0], counts[:stop]])
    limits = limits[first : stop + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


# ---------------------------------------------------------------- images, video, audio


def _scale_factor(array: np.ndarray) -> int:
    """uint8 pixels are already 0..255; any other dtype is read as 0..1."""
    return 1 if array.dtype == np.uint8 else 255


def _to_uint8(array: np.ndarray) -> np.ndarray:
    return (array.astype(np.float32) * _scale_factor(array)).clip(0, 255).astype(np.uint8)


def image(tag: str, tensor: Any, rescale: float = 1, dataformats: str = "NCHW") -> Summary:
    """An image (a batch becomes one grid) laid out as ``dataformats``, PNG-encoded."""
    hwc = convert_to_HWC(make_np(tensor), dataformats)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(_to_uint8(hwc), rescale))])


def image_boxes(
    tag: str,
    tensor_image: Any,
    tensor_boxes: Any,
    rescale: float = 1,
    dataformats: str = "CHW",
    labels: Any = None,
) -> Summary:
    """An image with boxes ``[x1, y1, x2, y2]`` drawn on it (needs Pillow)."""
    hwc = convert_to_HWC(make_np(tensor_image), dataformats)
    pixels = (hwc.astype(np.float32) * _scale_factor(hwc)).clip(0, 255).astype(np.uint8)
    img = make_image(pixels, rescale=rescale, rois=make_np(tensor_boxes), labels=labels)
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def make_image(
    tensor: np.ndarray, rescale: float = 1, rois: Any = None, labels: Any = None
) -> Summary.Image:
    """An HWC uint8 array as a ``Summary.Image`` holding its PNG bytes."""
    height, width, channel = tensor.shape
    return Summary.Image(
        height=height,
        width=width,
        colorspace=channel,
        encoded_image_string=encode_png(tensor, rescale, rois, labels),
    )


def video(tag: str, tensor: Any, fps: float = 4) -> Summary:
    """A batch of videos ``(N, T, C, H, W)`` as one animated GIF (needs moviepy)."""
    frames = _to_uint8(prepare_video(make_np(tensor)))
    return Summary(value=[Summary.Value(tag=tag, image=make_video(frames, fps))])


def make_video(tensor: np.ndarray, fps: float) -> Summary.Image | None:
    """Frames ``(T, H, W, C)`` encoded as a GIF by moviepy; None (after saying why, as
    PyTorch prints it) when moviepy is missing."""
    try:
        import moviepy  # noqa: F401
    except ImportError:
        print("add_video needs package moviepy")
        return None
    try:
        from moviepy import editor as mpy
    except ImportError:
        print(
            "moviepy is installed, but can't import moviepy.editor.",
            "Some packages could be missing [imageio, requests]",
        )
        return None
    import tempfile

    _, h, w, c = tensor.shape
    clip = mpy.ImageSequenceClip(list(tensor), fps=fps)
    with tempfile.NamedTemporaryFile(suffix=".gif") as f:
        try:
            clip.write_gif(f.name, verbose=False, logger=None)
        except TypeError:
            clip.write_gif(f.name, verbose=False)
        f.seek(0)
        return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=f.read())


def audio(tag: str, tensor: Any, sample_rate: int = 44100) -> Summary:
    """A mono sound in [-1, 1] (clipped, with a warning, beyond) as 16-bit WAV bytes."""
    import io
    import wave

    array = make_np(tensor).squeeze()
    if abs(array).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        array = array.clip(-1, 1)
    if array.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    samples = (array * np.iinfo(np.int16).max).astype("<i2")
    with io.BytesIO() as out:
        with wave.open(out, "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(sample_rate)
            wav.writeframes(samples.data)
        encoded = out.getvalue()
    sound = Summary.Audio(
        sample_rate=sample_rate,
        num_channels=1,
        length_frames=samples.shape[-1],
        encoded_audio_string=encoded,
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=sound)])


# ---------------------------------------------------------------- text and layouts


def text(tag: str, text: str) -> Summary:
    """A string for the text plugin, under the tag ``<tag>/text_summary``."""
    proto = TensorProto(
        dtype="DT_STRING", string_val=[text.encode(encoding="utf_8")], tensor_shape=_shape([1])
    )
    smd = _metadata("text", TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=smd, tensor=proto)])


def custom_scalars(layout: dict) -> Summary:
    """A custom-scalars layout: ``{category: {chart: ["Multiline" | "Margin", tags]}}``
    (a margin chart has three tags: value, lower, upper)."""
    categories = []
    for category, charts in layout.items():
        protos = []
        for title, spec in charts.items():
            kind, tags = spec[0], spec[1]
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(
                    value=tags[0], lower=tags[1], upper=tags[2]
                )
                content = layout_pb2.MarginChartContent(series=[series])
                protos.append(layout_pb2.Chart(title=title, margin=content))
            else:
                content = layout_pb2.MultilineChartContent(tag=tags)
                protos.append(layout_pb2.Chart(title=title, multiline=content))
        categories.append(layout_pb2.Category(title=category, chart=protos))
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
        tensor_shape=TensorShapeProto(),
    )
    value = Summary.Value(
        tag="custom_scalars__config__", tensor=proto, metadata=_metadata("custom_scalars")
    )
    return Summary(value=[value])


# ---------------------------------------------------------------- hyperparameters


def _discrete(values: list, field: str) -> struct_pb2.ListValue:
    return struct_pb2.ListValue(values=[struct_pb2.Value(**{field: v}) for v in values])


def hparams(
    hparam_dict: dict | None = None,
    metric_dict: dict | None = None,
    hparam_domain_discrete: dict | None = None,
) -> tuple[Summary, Summary, Summary]:
    """The hparams plugin's three summaries: the experiment (the hyperparameters' names,
    types and discrete domains, and the metrics' tags), the session start (the values) and
    the session end (success)."""
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.api_pb2 import (
        DataType,
        Experiment,
        HParamInfo,
        MetricInfo,
        MetricName,
        Status,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import (
        HParamsPluginData,
        SessionEndInfo,
        SessionStartInfo,
    )

    from chainrule._tensor import Tensor

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (
            k not in hparam_dict
            or not isinstance(v, list)
            or not all(isinstance(d, type(hparam_dict[k])) for d in v)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}]."
            )

    infos = []
    start = SessionStartInfo()
    # bool is an int, so booleans are logged as numbers (as PyTorch logs them)
    kinds = (
        ((int, float), "number_value", "DATA_TYPE_FLOAT64"),
        (str, "string_value", "DATA_TYPE_STRING"),
    )
    for k, v in hparam_dict.items():
        if v is None:
            continue
        for types, field, data_type in kinds:
            if isinstance(v, types):
                setattr(start.hparams[k], field, v)
                domain = _discrete(domains[k], field) if k in domains else None
                infos.append(
                    HParamInfo(name=k, type=DataType.Value(data_type), domain_discrete=domain)
                )
                break
        else:
            if not isinstance(v, Tensor):
                raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
            start.hparams[k].number_value = make_np(v)[0]
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))

    def summary(tag: str, **content: Any) -> Summary:
        data = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
        smd = _metadata(metadata.PLUGIN_NAME, data.SerializeToString())
        return Summary(value=[Summary.Value(tag=tag, metadata=smd)])

    metrics = [MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    experiment = Experiment(hparam_infos=infos, metric_infos=metrics)
    end = SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))
    return (
        summary(metadata.EXPERIMENT_TAG, experiment=experiment),
        summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
        summary(metadata.SESSION_END_INFO_TAG, session_end_info=end),
    )


# ---------------------------------------------------------------- precision-recall curves


def _pr_summary(tag: str, data: np.ndarray, num_thresholds: int) -> Summary:
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = TensorProto(
        dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(), tensor_shape=_shape(data.shape[:2])
    )
    smd = _metadata("pr_curves", content)
    return Summary(value=[Summary.Value(tag=tag, metadata=smd, tensor=proto)])


def pr_curve_raw(
    tag: str,
    tp: Any,
    fp: Any,
    tn: Any,
    fn: Any,
    precision: Any,
    recall: Any,
    num_thresholds: int = 127,
    weights: Any = None,
) -> Summary:
    """A PR curve from its counts per threshold: rows tp, fp, tn, fn, precision, recall."""
    counts = (tp, fp, tn, fn, precision, recall)
    rows = [r if isinstance(r, (list, tuple)) else make_np(r) for r in counts]
    return _pr_summary(tag, np.stack(rows), min(num_thresholds, 127))


def pr_curve(
    tag: str, labels: Any, predictions: Any, num_thresholds: int = 127, weights: Any = None
) -> Summary:
    """A PR curve of binary ``labels`` against ``predictions`` in [0, 1]."""
    num_thresholds = min(num_thresholds, 127)  # (as PyTorch: more breaks the plugin)
    data = compute_curve(labels, predictions, num_thresholds=num_thresholds, weights=weights)
    return _pr_summary(tag, data, num_thresholds)


def compute_curve(
    labels: np.ndarray,
    predictions: np.ndarray,
    num_thresholds: int | None = None,
    weights: Any = None,
) -> np.ndarray:
    """Per threshold ``t = k / (num_thresholds - 1)``: the (weighted) true and false
    positives among predictions at or above ``t``, the negatives, precision and recall."""
    tiny = 1e-7
    weights = 1.0 if weights is None else weights
    bucket = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets, _ = np.histogram(
        bucket, bins=num_thresholds, range=span, weights=positive * weights
    )
    fp_buckets, _ = np.histogram(
        bucket, bins=num_thresholds, range=span, weights=(1.0 - positive) * weights
    )
    tp = np.cumsum(tp_buckets[::-1])[::-1]  # at or above each threshold
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(tiny, tp + fp)
    recall = tp / np.maximum(tiny, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


# ---------------------------------------------------------------- meshes and point clouds


def mesh(
    tag: str,
    vertices: Any,
    colors: Any,
    faces: Any,
    config_dict: dict | None,
    display_name: str | None = None,
    description: str | None = None,
) -> Summary:
    """A mesh or point cloud for the mesh plugin: one tensor summary each for the vertices
    ``(B, N, 3)``, the faces and the colours given, with a Three.js configuration."""
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

    config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [
        (t, kind)
        for t, kind in (
            (vertices, MeshPluginData.VERTEX),
            (faces, MeshPluginData.FACE),
            (colors, MeshPluginData.COLOR),
        )
        if t is not None
    ]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    values = []
    for t, kind in parts:
        array = np.asarray(t) if isinstance(t, (list, tuple)) else make_np(t)
        smd = metadata.create_summary_metadata(
            tag, display_name, kind, components, array.shape, description, json_config=config
        )
        proto = TensorProto(
            dtype="DT_FLOAT",
            float_val=array.reshape(-1).tolist(),
            tensor_shape=_shape(array.shape[:3]),
        )
        values.append(
            Summary.Value(tag=metadata.get_instance_name(tag, kind), tensor=proto, metadata=smd)
        )
    return Summary(value=values)
