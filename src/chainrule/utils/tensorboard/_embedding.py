"""The embedding projector's files: vectors, labels, a sprite of images, and the config.

For one ``add_embedding`` call, the folder ``<logdir>/<step:05d>/<tag>`` gets
``tensors.tsv`` (one row per point), ``metadata.tsv`` (labels) and ``sprite.png`` (the
points' images on a square grid); ``<logdir>/projector_config.pbtxt`` lists every
embedding logged so far.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from tensorboard.compat import tf
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from ._images import encode_png, make_grid


def _join(a: str, b: str) -> str:
    # TensorFlow's gfile has join(); tensorboard's stub of it has it on the filesystem
    if hasattr(tf.io.gfile, "join"):
        return tf.io.gfile.join(a, b)
    return tf.io.gfile.get_filesystem(a).join(a, b)


def _write(path: str, data: bytes) -> None:
    with tf.io.gfile.GFile(path, "wb") as f:
        f.write(data)


def make_tsv(metadata: list, save_path: str, metadata_header: list | None = None) -> None:
    """``metadata.tsv``: one label per line, or a header line and tab-separated columns."""
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header, *metadata]]
    _write(_join(save_path, "metadata.tsv"), tf.compat.as_bytes("\n".join(lines) + "\n"))


def make_sprite(label_img: np.ndarray, save_path: str) -> None:
    """``sprite.png``: the images ``(N, C, H, W)`` on a grid ceil(sqrt(N)) wide, padded with
    black rows to a square."""
    ncols = math.ceil(label_img.shape[0] ** 0.5)
    grid = make_grid(label_img, ncols=ncols).transpose(1, 2, 0)
    side = grid.shape[1]
    square = np.zeros((side, side, 3))
    square[: grid.shape[0]] = grid
    _write(_join(save_path, "sprite.png"), encode_png(np.uint8((square * 255).clip(0, 255))))


def make_mat(matlist: np.ndarray, save_path: str) -> None:
    """``tensors.tsv``: one tab-separated row per point."""
    with tf.io.gfile.GFile(_join(save_path, "tensors.tsv"), "wb") as f:
        for row in matlist:
            f.write(tf.compat.as_bytes("\t".join(str(x.item()) for x in row) + "\n"))


def get_embedding_info(
    metadata: Any, label_img: np.ndarray | None, subdir: str, global_step: int, tag: str
) -> EmbeddingInfo:
    """The projector config entry for one embedding and its files under ``subdir``."""
    info = EmbeddingInfo()
    info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
    info.tensor_path = _join(subdir, "tensors.tsv")
    if metadata is not None:
        info.metadata_path = _join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = _join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    return info


def write_pbtxt(save_path: str, contents: str) -> None:
    """``projector_config.pbtxt`` in ``save_path``."""
    _write(_join(save_path, "projector_config.pbtxt"), tf.compat.as_bytes(contents))
