"""Anchor boxes: ``AnchorGenerator`` (per feature map, every size x aspect ratio centred on
every cell, for the R-CNNs, RetinaNet and FCOS) and ``DefaultBoxGenerator`` (SSD's
default boxes)."""

from __future__ import annotations

import math

import chainrule
from chainrule import nn

from ...._tensor import Tensor
from .image_list import ImageList

__all__ = ["AnchorGenerator", "DefaultBoxGenerator"]


class AnchorGenerator(nn.Module):
    """For feature map ``i``, anchors of sizes ``sizes[i]`` and ratios ``aspect_ratios[i]``
    (height / width) centred at each cell's top-left corner times the map's stride; called,
    one ``(sum HWA, 4)`` tensor per image."""

    __annotations__ = {"cell_anchors": list[Tensor]}

    def __init__(
        self,
        sizes: tuple[tuple[int, ...], ...] = ((128, 256, 512),),
        aspect_ratios: tuple[tuple[float, ...], ...] = ((0.5, 1.0, 2.0),),
    ) -> None:
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [
            self.generate_anchors(size, ratios) for size, ratios in zip(sizes, aspect_ratios)
        ]

    def generate_anchors(
        self,
        scales: list[int],
        aspect_ratios: list[float],
        dtype: chainrule.dtype = chainrule.float32,
        device: chainrule.device | str = "cpu",
    ) -> Tensor:
        """Zero-centred anchors ``(-w/2, -h/2, w/2, h/2)``, rounded, with ``h/w`` each ratio
        and area each scale squared (ratios outer, scales inner)."""
        scales_t = chainrule.as_tensor(scales, dtype=dtype)
        ratios_t = chainrule.as_tensor(aspect_ratios, dtype=dtype)
        h_ratios = chainrule.sqrt(ratios_t)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales_t[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales_t[None, :]).view(-1)
        return (chainrule.stack([-ws, -hs, ws, hs], dim=1) / 2).round()

    def set_cell_anchors(self, dtype: chainrule.dtype, device: chainrule.device | str) -> None:
        """Cast the cell anchors to ``dtype``."""
        self.cell_anchors = [a.to(dtype=dtype) for a in self.cell_anchors]

    def num_anchors_per_location(self) -> list[int]:
        """Anchors per cell of each feature map."""
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(
        self, grid_sizes: list[list[int]], strides: list[list[Tensor]]
    ) -> list[Tensor]:
        """Per feature map, the cell anchors shifted to every cell (cells outer)."""
        cell_anchors = self.cell_anchors
        if cell_anchors is None:
            raise AssertionError("cell_anchors should not be None")
        if not (len(grid_sizes) == len(strides) == len(cell_anchors)):
            raise AssertionError(
                "Anchors should be Tuple[Tuple[int]] because each feature "
                "map could potentially have different sizes and aspect ratios. "
                "There needs to be a match between the number of "
                "feature maps passed and the number of sizes / aspect ratios specified."
            )
        anchors = []
        for size, stride, base in zip(grid_sizes, strides, cell_anchors):
            height, width = size
            shifts_x = chainrule.arange(0, width, dtype=chainrule.int64) * stride[1]
            shifts_y = chainrule.arange(0, height, dtype=chainrule.int64) * stride[0]
            shift_y, shift_x = chainrule.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = chainrule.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, image_list: ImageList, feature_maps: list[Tensor]) -> list[Tensor]:
        grid_sizes = [list(fm.shape[-2:]) for fm in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype = feature_maps[0].dtype
        strides = [
            [
                chainrule.tensor(image_size[0] // g[0], dtype=chainrule.int64),
                chainrule.tensor(image_size[1] // g[1], dtype=chainrule.int64),
            ]
            for g in grid_sizes
        ]
        self.set_cell_anchors(dtype, "cpu")
        per_level = self.grid_anchors(grid_sizes, strides)
        return [chainrule.cat(per_level) for _ in range(len(image_list.image_sizes))]


class DefaultBoxGenerator(nn.Module):
    """SSD's default boxes: per feature map ``k``, at every cell centre (``(i + 0.5) /
    f_k``, with ``f_k = image size / steps[k]`` when steps are given), boxes of scale
    ``s_k`` and ``sqrt(s_k s_{k+1})`` and of ratios ``ar`` and ``1/ar``, relative to the
    image (widths and heights clipped to [0, 1] with ``clip``); called, ``(x1, y1, x2, y2)``
    boxes in pixels per image. Scales default to ``min_ratio`` .. ``max_ratio`` evenly."""

    def __init__(
        self,
        aspect_ratios: list[list[int]],
        min_ratio: float = 0.15,
        max_ratio: float = 0.9,
        scales: list[float] | None = None,
        steps: list[int] | None = None,
        clip: bool = True,
    ) -> None:
        super().__init__()
        if steps is not None and len(aspect_ratios) != len(steps):
            raise ValueError("aspect_ratios and steps should have the same length")
        self.aspect_ratios = aspect_ratios
        self.steps = steps
        self.clip = clip
        num_outputs = len(aspect_ratios)
        if scales is None:
            if num_outputs > 1:
                range_ratio = max_ratio - min_ratio
                self.scales = [
                    min_ratio + range_ratio * k / (num_outputs - 1.0) for k in range(num_outputs)
                ]
                self.scales.append(1.0)
            else:
                self.scales = [min_ratio, max_ratio]
        else:
            self.scales = scales
        self._wh_pairs = self._generate_wh_pairs(num_outputs)

    def _generate_wh_pairs(
        self, num_outputs: int, dtype: chainrule.dtype = chainrule.float32, device: str = "cpu"
    ) -> list[Tensor]:
        pairs = []
        for k in range(num_outputs):
            s_k = self.scales[k]
            s_prime_k = math.sqrt(self.scales[k] * self.scales[k + 1])
            wh = [[s_k, s_k], [s_prime_k, s_prime_k]]
            for ar in self.aspect_ratios[k]:
                sq_ar = math.sqrt(ar)
                w, h = self.scales[k] * sq_ar, self.scales[k] / sq_ar
                wh.extend([[w, h], [h, w]])
            pairs.append(chainrule.as_tensor(wh, dtype=dtype))
        return pairs

    def num_anchors_per_location(self) -> list[int]:
        """Two boxes of ratio 1 plus two per aspect ratio, for each feature map."""
        return [2 + 2 * len(r) for r in self.aspect_ratios]

    def _grid_default_boxes(
        self,
        grid_sizes: list[list[int]],
        image_size: list[int],
        dtype: chainrule.dtype = chainrule.float32,
    ) -> Tensor:
        boxes = []
        for k, f_k in enumerate(grid_sizes):
            if self.steps is not None:
                x_f_k, y_f_k = image_size[1] / self.steps[k], image_size[0] / self.steps[k]
            else:
                y_f_k, x_f_k = f_k
            shifts_x = ((chainrule.arange(0, f_k[1]) + 0.5) / x_f_k).to(dtype=dtype)
            shifts_y = ((chainrule.arange(0, f_k[0]) + 0.5) / y_f_k).to(dtype=dtype)
            shift_y, shift_x = chainrule.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = chainrule.stack((shift_x, shift_y) * len(self._wh_pairs[k]), dim=-1).reshape(
                -1, 2
            )
            wh = self._wh_pairs[k].clamp(min=0, max=1) if self.clip else self._wh_pairs[k]
            boxes.append(chainrule.cat((shifts, wh.repeat(f_k[0] * f_k[1], 1)), dim=1))
        return chainrule.cat(boxes, dim=0)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(aspect_ratios={self.aspect_ratios}"
            f", clip={self.clip}"
            f", scales={self.scales}"
            f", steps={self.steps}"
            ")"
        )

    def forward(self, image_list: ImageList, feature_maps: list[Tensor]) -> list[Tensor]:
        grid_sizes = [list(fm.shape[-2:]) for fm in feature_maps]
        image_size = list(image_list.tensors.shape[-2:])
        default_boxes = self._grid_default_boxes(
            grid_sizes, image_size, dtype=feature_maps[0].dtype
        )
        x_y_size = chainrule.tensor([image_size[1], image_size[0]])
        corners = chainrule.cat(
            [
                (default_boxes[:, :2] - 0.5 * default_boxes[:, 2:]) * x_y_size,
                (default_boxes[:, :2] + 0.5 * default_boxes[:, 2:]) * x_y_size,
            ],
            -1,
        )
        return [corners for _ in image_list.image_sizes]
