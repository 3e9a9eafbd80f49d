"""kornia runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch (kornia_cases.py): filters, color spaces, enhance, geometry (warps, homographies,
remap and crops, pyramids, rotation conversions and Lie groups, cameras and depth,
epipolar geometry and calibration, sub-pixel ops, boxes), morphology, losses, metrics,
local features (responses, detectors, descriptors, matching), augmentations replayed with
the oracle's parameters (their inverses, AugmentationSequential with masks, boxes and
keypoints, 3D, image and video containers), contrib and utils, kornia.io, RANSAC, an
image registration loop, and kornia inside torch.func transforms. Outputs and gradients
are compared; gradients are taken in float64, where results must agree to 1e-9."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_case, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "kornia")):
    pytest.skip("needs the real torch and kornia (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name(
    "kornia_cases.py"
)  # (with kornia_harness.py, kornia_aug_cases.py)

# every case of kornia_cases.py (the test checks the script runs exactly these)
CASES = [
    "filters_blur",
    "filters_edges",
    "color_spaces",
    "enhance_adjust",
    "geometry_warps",
    "geometry_homography",
    "geometry_remap_crop",
    "geometry_conversions",
    "geometry_camera",
    "morphology_ops",
    "losses_image",
    "losses_segmentation",
    "metrics_all",
    "feature_responses",
    "feature_matching",
    "feature_networks",
    "feature_lightglue",
    "geometry_epipolar",
    "geometry_liegroups",
    "geometry_subpix_bbox",
    "geometry_solvers_cameras",
    "contrib_utils",
    "enhance_more",
    "registration_training",
    "func_transforms",
    "io_roundtrip",
    "ransac_exact",
    "feature_detectors",
    "augmentation_replay",
    "augmentation_grads",
    "augmentation_same_on_batch",
    "augmentation_sequential",
    "augmentation_more",
    "augmentation_3d_and_containers",
]
# results after many optimizer steps: float32 rounding grows with each step
TRAINING = {"registration_training"}
# float64 results of modules whose kernels are built in float32 (Gaussian windows, SIFT's
# bins) and then cast: they carry float32 rounding of those constants
FLOAT32_BUILT = ("ms_ssim.", "sift.", "sift_plain.", "ori.", "affshape.")


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("kornia")
    return both_sides(SCRIPT, "kornia", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, case in TRAINING)
    oracle, chainrule = sides
    for key in oracle["keys"][case]:
        theirs = oracle["results"][key]
        if theirs.dtype != np.float64 or key.startswith(FLOAT32_BUILT):
            continue
        scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0.0)))
        ours = chainrule["results"][key]
        np.testing.assert_allclose(
            ours, theirs, rtol=1e-9, atol=1e-9 * scale, equal_nan=True, err_msg=key
        )
