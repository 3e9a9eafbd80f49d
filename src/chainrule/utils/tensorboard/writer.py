"""``SummaryWriter`` and ``FileWriter``: log summaries to TensorBoard event files.

A ``FileWriter`` wraps the ``tensorboard`` package's ``EventFileWriter`` (one event file,
written by a background thread that flushes every ``flush_secs`` or when ``max_queue``
events wait). A ``SummaryWriter`` owns one for its ``log_dir`` (made again after
``close``), plus one per series of ``add_scalars``, in sub-folders, as PyTorch's does.
"""

from __future__ import annotations

import os
import time
from typing import Any

from tensorboard.compat import tf
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _embedding, summary
from ._convert import make_np
from ._images import figure_to_image

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes ``Event`` protocol buffers to a new event file in ``log_dir``."""

    def __init__(
        self, log_dir: Any, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = ""
    ) -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step: Any = None, walltime: float | None = None) -> None:
        """Write ``event``, stamped with ``walltime`` (now by default) and ``step``."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(
        self, summary: Any, global_step: Any = None, walltime: float | None = None
    ) -> None:
        """Write a ``Summary`` as an event at ``global_step``."""
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile: tuple, walltime: float | None = None) -> None:
        """Write a ``(GraphDef, RunMetadata)`` pair: the graph, and its run metadata tagged
        ``step1``."""
        graph, stepstats = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)
        trm = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=stepstats.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=trm), None, walltime)

    def add_onnx_graph(self, graph: Any, walltime: float | None = None) -> None:
        """Write a ``GraphDef``."""
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self) -> None:
        """Write every pending event to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self.event_writer.close()

    def reopen(self) -> None:
        """After ``close``: go on writing, to a new event file in the same directory."""
        self.event_writer.reopen()


def _default_bins() -> list:
    """TensorBoard's default histogram edges: +-1e-12 growing by 1.1x up to 1e20, and 0."""
    v, positive = 1e-12, []
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return [-b for b in reversed(positive)] + [0] + positive


class SummaryWriter:
    """Logs scalars, histograms, images, text, hyperparameters, embeddings and more to
    event files in ``log_dir`` (default ``runs/<Mon><DD>_<HH>-<MM>-<SS>_<hostname><comment>``).

    ``purge_step``: after a crash, events at or after this step in earlier files are
    hidden by TensorBoard (a START session log at that step)."""

    def __init__(
        self,
        log_dir: Any = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            import socket
            from datetime import datetime

            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self) -> FileWriter:
        """The writer of ``log_dir``, made (again, after ``close``) on first use."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(
                    Event(step=step, session_log=SessionLog(status=SessionLog.START))
                )
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """The directory event files are written to."""
        return self.log_dir

    def _add(self, summary_proto: Any, global_step: Any, walltime: float | None) -> None:
        self._get_file_writer().add_summary(summary_proto, global_step, walltime)

    # ------------------------------------------------------------ numbers

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: Any = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Log one number under ``tag`` at ``global_step``."""
        self._add(
            summary.scalar(
                tag, scalar_value, new_style=new_style, double_precision=double_precision
            ),
            global_step,
            walltime,
        )

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict,
        global_step: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log several numbers on one chart: each goes under ``main_tag`` to its own run,
        the folder ``<logdir>/<main_tag with / as _>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            if self.all_writers is None:
                raise AssertionError("self.all_writers is None")
            if run not in self.all_writers:
                self.all_writers[run] = FileWriter(
                    run, self.max_queue, self.flush_secs, self.filename_suffix
                )
            self.all_writers[run].add_summary(
                summary.scalar(main_tag, value), global_step, walltime
            )

    def add_tensor(
        self, tag: str, tensor: Any, global_step: Any = None, walltime: float | None = None
    ) -> None:
        """Log a whole tensor (shape and elements)."""
        self._add(summary.tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: Any = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Log a histogram of ``values``: ``bins`` is 'tensorflow' (TensorBoard's default
        exponential edges), a NumPy rule ('auto', 'fd', ...), a count or edges."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(summary.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag: str,
        min: float,  # (PyTorch's argument names, shadowing builtins)
        max: float,
        num: int,
        sum: float,
        sum_squares: float,
        bucket_limits: Any,
        bucket_counts: Any,
        global_step: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a histogram given by its statistics and buckets (right limits and counts)."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        hist = summary.histogram_raw(
            tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts
        )
        self._add(hist, global_step, walltime)

    # ------------------------------------------------------------ pictures and sound

    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: Any = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Log an image laid out as ``dataformats`` (CHW, HWC, HW, ...): floats in [0, 1],
        uint8 in [0, 255]."""
        self._add(summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: Any = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Log a batch of images (NCHW, NHWC, ...) as one grid, eight images wide."""
        self._add(summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(
        self,
        tag: str,
        img_tensor: Any,
        box_tensor: Any,
        global_step: Any = None,
        walltime: float | None = None,
        rescale: float = 1,
        dataformats: str = "CHW",
        labels: Any = None,
    ) -> None:
        """Log an image with boxes ``(N, 4)`` of ``[x1, y1, x2, y2]`` drawn on it, each with
        its label (labels are dropped unless there is one per box). Needs Pillow."""
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            if len(labels) != box_tensor.shape[0]:
                labels = None
        self._add(
            summary.image_boxes(
                tag, img_tensor, box_tensor, rescale=rescale, dataformats=dataformats, labels=labels
            ),
            global_step,
            walltime,
        )

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: Any = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Log a matplotlib figure (or a list of them, as one grid) as an image."""
        dataformats = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(
            tag, figure_to_image(figure, close), global_step, walltime, dataformats=dataformats
        )

    def add_video(
        self,
        tag: str,
        vid_tensor: Any,
        global_step: Any = None,
        fps: float = 4,
        walltime: float | None = None,
    ) -> None:
        """Log videos ``(N, T, C, H, W)`` as one animated GIF (needs moviepy)."""
        self._add(summary.video(tag, vid_tensor, fps), global_step, walltime)

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: Any = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Log a mono sound ``(1, L)`` in [-1, 1] as WAV."""
        self._add(summary.audio(tag, snd_tensor, sample_rate=sample_rate), global_step, walltime)

    # ------------------------------------------------------------ text and settings

    def add_text(
        self, tag: str, text_string: str, global_step: Any = None, walltime: float | None = None
    ) -> None:
        """Log a string (markdown) for the text plugin."""
        self._add(summary.text(tag, text_string), global_step, walltime)

    def add_hparams(
        self,
        hparam_dict: dict,
        metric_dict: dict,
        hparam_domain_discrete: dict | None = None,
        run_name: str | None = None,
        global_step: Any = None,
    ) -> None:
        """Log one run's hyperparameters and metrics for the hparams plugin, to the folder
        ``<logdir>/<run_name>`` (the current time by default); each metric is also logged
        as a scalar there."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w_hp:
            for proto in (exp, ssi, sei):
                w_hp._get_file_writer().add_summary(proto, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def add_custom_scalars(self, layout: dict) -> None:
        """Log a custom-scalars layout: ``{category: {chart: ["Multiline" | "Margin", tags]}}``
        (once per writer)."""
        self._add(summary.custom_scalars(layout), None, None)

    def add_custom_scalars_multilinechart(
        self, tags: list, category: str = "default", title: str = "untitled"
    ) -> None:
        """A custom-scalars layout of one multiline chart of ``tags``."""
        self._add(summary.custom_scalars({category: {title: ["Multiline", tags]}}), None, None)

    def add_custom_scalars_marginchart(
        self, tags: list, category: str = "default", title: str = "untitled"
    ) -> None:
        """A custom-scalars layout of one margin chart of ``tags`` (value, lower, upper)."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self._add(summary.custom_scalars({category: {title: ["Margin", tags]}}), None, None)

    # ------------------------------------------------------------ curves, meshes, embeddings

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: Any = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve of binary ``labels`` and ``predictions`` in [0, 1]
        (at most 127 thresholds)."""
        labels, predictions = make_np(labels), make_np(predictions)
        self._add(
            summary.pr_curve(tag, labels, predictions, num_thresholds, weights),
            global_step,
            walltime,
        )

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: Any = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve from its counts, precision and recall per threshold."""
        curve = summary.pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds,
            weights,
        )
        self._add(curve, global_step, walltime)

    def add_mesh(
        self,
        tag: str,
        vertices: Any,
        colors: Any = None,
        faces: Any = None,
        config_dict: dict | None = None,
        global_step: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a mesh or point cloud: vertices ``(B, N, 3)``, optional colours and faces."""
        self._add(summary.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    @staticmethod
    def _encode(rawstr: str) -> str:
        """``%``, ``/`` and ``\\`` percent-encoded, for a tag used as a folder name."""
        for c in "%/\\":
            rawstr = rawstr.replace(c, f"%{ord(c):02x}")
        return rawstr

    def add_embedding(
        self,
        mat: Any,
        metadata: list | None = None,
        label_img: Any = None,
        global_step: Any = None,
        tag: str = "default",
        metadata_header: list | None = None,
    ) -> None:
        """Log points ``mat`` ``(N, D)`` for the embedding projector, with one label (or row
        of labels under ``metadata_header``) and one image ``(C, H, W)`` per point if given."""
        mat = make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = f"{str(global_step).zfill(5)}/{self._encode(tag)}"
        save_path = os.path.join(self._get_file_writer().get_logdir(), subdir)
        fs = tf.io.gfile
        if fs.exists(save_path):
            if not fs.isdir(save_path):
                raise NotADirectoryError(
                    f"Path: `{save_path}` exists, but is a file. Cannot proceed."
                )
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            fs.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            _embedding.make_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            label_img = make_np(label_img)
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _embedding.make_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        _embedding.make_mat(mat, save_path)

        # the config is rewritten whole each time (a filesystem may not append)
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        info = _embedding.get_embedding_info(metadata, label_img, subdir, global_step, tag)
        self._projector_config.embeddings.extend([info])
        from google.protobuf import text_format

        config = text_format.MessageToString(self._projector_config)
        _embedding.write_pbtxt(self._get_file_writer().get_logdir(), config)

    # ------------------------------------------------------------ graphs

    def add_graph(
        self,
        model: Any,
        input_to_model: Any = None,
        verbose: bool = False,
        use_strict_trace: bool = True,
    ) -> None:
        """Log the graph of ``model`` called on ``input_to_model``.

        Differs from PyTorch: chainrule has no TorchScript tracer, so the graph drawn is
        chainrule's autograd graph of one forward call (in eval mode, floating inputs and
        parameters made to require grad for the call): one node per recorded op (named by
        its backward node, e.g. ``AddmmBackward0``) in the scope of the module that ran
        it, the inputs, the parameters and the outputs. Ops that record no graph (integer
        results, non-differentiable ops) and buffers do not appear. ``use_strict_trace``
        is accepted and ignored."""
        from ._graph import graph

        self._get_file_writer().add_graph(graph(model, input_to_model, verbose))

    def add_onnx_graph(self, prototxt: Any) -> None:
        """Log the graph of the ONNX model file ``prototxt`` (read with the optional ``onnx``
        package; ``torch.onnx.export`` writes such files)."""
        from ._onnx_graph import load_onnx_graph

        self._get_file_writer().add_onnx_graph(load_onnx_graph(prototxt))

    # ------------------------------------------------------------ lifetime

    def flush(self) -> None:
        """Write every pending event of every writer to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file (a later add opens new ones)."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        self.close()
