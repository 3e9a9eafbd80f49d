"""The kornia cases of test_kornia.py, run once per side.

``python kornia_cases.py OUT oracle`` runs every case on the real PyTorch, saving what the
other side needs (weights, augmentation parameters) to ``OUT/kornia_weights.pt`` and the
results to ``OUT/kornia_oracle.npz``; ``chainrule run kornia_cases.py OUT chainrule``
loads those and writes ``OUT/kornia_chainrule.npz``. Inputs are made with NumPy from
seeds. A case that raises records its error in ``OUT/kornia_<side>_errors.json``.
"""

from __future__ import annotations

import numpy as np
import torch
from kornia import color, enhance, feature, filters, geometry, losses, metrics, morphology
from kornia_harness import F64, OUT, SIDE, arr, case, grads_of, img, main, module, put

# ---------------------------------------------------------------- filters


@case
def filters_blur() -> None:
    x = img((2, 3, 9, 11), 1, F64)
    grads_of("gauss", lambda t: filters.gaussian_blur2d(t, (5, 5), (1.5, 1.2)), x)
    grads_of(
        "gauss_reflect", lambda t: filters.gaussian_blur2d(t, (3, 7), (0.8, 2.0), "replicate"), x
    )
    grads_of("box", lambda t: filters.box_blur(t, (3, 3)), x)
    grads_of("box_unnorm", lambda t: filters.box_blur(t, (3, 5), "constant", separable=False), x)
    grads_of("median", lambda t: filters.median_blur(t, (3, 3)), x)
    grads_of("motion", lambda t: filters.motion_blur(t, 5, 35.0, 0.5), x)
    grads_of("unsharp", lambda t: filters.unsharp_mask(t, (3, 3), (1.5, 1.5)), x)
    grads_of("blur_pool", lambda t: filters.blur_pool2d(t, 3), x)
    grads_of("max_blur_pool", lambda t: filters.max_blur_pool2d(t, 3), x)
    grads_of("bilateral", lambda t: filters.bilateral_blur(t, (5, 5), 0.1, (1.5, 1.5)), x)
    g = img((2, 1, 9, 11), 2, F64)
    grads_of(
        "joint_bilateral",
        lambda t, u: filters.joint_bilateral_blur(t, u, (3, 3), 0.2, (1.0, 1.0)),
        x,
        g,
    )
    put("kernel_gauss2d", filters.get_gaussian_kernel2d((5, 3), (1.3, 0.7)))
    put("module_gauss", filters.GaussianBlur2d((3, 3), (1.0, 1.0))(x.float()))


@case
def filters_edges() -> None:
    x = img((2, 3, 10, 8), 3, F64)
    grads_of("sobel", lambda t: filters.sobel(t), x)
    grads_of("sobel_unnorm", lambda t: filters.sobel(t, normalized=False), x)
    grads_of("spatial_gradient", lambda t: filters.spatial_gradient(t, "diff", 2), x)
    grads_of("spatial_gradient_sobel", lambda t: filters.spatial_gradient(t, "sobel", 1), x)
    grads_of("laplacian", lambda t: filters.laplacian(t, 5), x)
    grads_of("filter2d", lambda t, k: filters.filter2d(t, k, "reflect"), x, arr((1, 3, 3), 4, F64))
    grads_of(
        "filter2d_sep",
        lambda t: filters.filter2d_separable(t, arr((1, 3), 5, F64), arr((1, 5), 6, F64)),
        x,
    )
    mag, edges = filters.canny(img((2, 3, 16, 16), 7))
    put("canny.mag", mag)
    put("canny.edges", edges)
    mag, edges = filters.canny(
        img((1, 1, 16, 16), 8), 0.05, 0.2, (3, 3), (1.0, 1.0), hysteresis=False
    )
    put("canny_nohyst.mag", mag)
    put("canny_nohyst.edges", edges)


# ---------------------------------------------------------------- color


@case
def color_spaces() -> None:
    x = img((2, 3, 5, 6), 10, F64) * 0.9 + 0.05
    pairs = {
        "gray": (color.rgb_to_grayscale, None),
        "hsv": (color.rgb_to_hsv, color.hsv_to_rgb),
        "hls": (color.rgb_to_hls, color.hls_to_rgb),
        "lab": (color.rgb_to_lab, color.lab_to_rgb),
        "luv": (color.rgb_to_luv, color.luv_to_rgb),
        "yuv": (color.rgb_to_yuv, color.yuv_to_rgb),
        "ycbcr": (color.rgb_to_ycbcr, color.ycbcr_to_rgb),
        "xyz": (color.rgb_to_xyz, color.xyz_to_rgb),
        "linear": (color.rgb_to_linear_rgb, color.linear_rgb_to_rgb),
    }
    for name, (fwd, back) in pairs.items():
        grads_of(name, fwd, x)
        if back is not None:
            grads_of(name + ".back", lambda t, f=fwd, b=back: b(f(t)), x)
    put("bgr", color.bgr_to_rgb(x))
    put("rgba", color.rgb_to_rgba(x, 1.0))
    put("gray_to_rgb", color.grayscale_to_rgb(x[:, :1]))
    put("gray_f32", color.rgb_to_grayscale(x.float()))
    put("hsv_f32", color.rgb_to_hsv(x.float()))


# ---------------------------------------------------------------- enhance


@case
def enhance_adjust() -> None:
    x = img((2, 3, 6, 7), 11, F64)
    grads_of("brightness", lambda t: enhance.adjust_brightness(t, 0.2), x)
    grads_of(
        "contrast", lambda t: enhance.adjust_contrast(t, torch.tensor([0.5, 1.5], dtype=F64)), x
    )
    grads_of("gamma", lambda t: enhance.adjust_gamma(t, 2.2, 1.1), x)
    grads_of("hue", lambda t: enhance.adjust_hue(t, 0.7), x)
    grads_of("saturation", lambda t: enhance.adjust_saturation(t, 1.7), x)
    grads_of("sharpness", lambda t: enhance.sharpness(t, 0.6), x)
    grads_of(
        "normalize",
        lambda t: enhance.normalize(
            t, torch.tensor([0.4, 0.5, 0.6]), torch.tensor([0.2, 0.3, 0.25])
        ),
        x,
    )
    grads_of(
        "denormalize",
        lambda t: enhance.denormalize(
            t, torch.tensor([0.4, 0.5, 0.6]), torch.tensor([0.2, 0.3, 0.25])
        ),
        x,
    )
    grads_of("invert", lambda t: enhance.invert(t), x)
    put("solarize", enhance.solarize(x, 0.4, 0.1))
    put("posterize", enhance.posterize(x.float(), 3))
    put("equalize", enhance.equalize(x.float()))
    put("equalize_clahe", enhance.equalize_clahe(img((1, 1, 16, 16), 12), 2.0, (2, 2)))
    put("normalize_min_max", enhance.normalize_min_max(x, 0.0, 1.0))
    put(
        "histogram",
        enhance.histogram(x.float().flatten(1), torch.linspace(0, 1, 8), torch.tensor(0.9)),
    )


# ---------------------------------------------------------------- geometry


@case
def geometry_warps() -> None:
    x = img((2, 3, 8, 9), 20, F64)
    a = torch.tensor(
        [[[1.1, 0.2, 0.5], [-0.1, 0.9, -0.7]], [[0.8, -0.3, 1.0], [0.25, 1.2, 0.3]]], dtype=F64
    )
    grads_of("warp_affine", lambda t, m: geometry.warp_affine(t, m, (7, 10)), x, a)
    grads_of(
        "warp_affine_nn", lambda t: geometry.warp_affine(t, a, (8, 9), "nearest", "reflection"), x
    )
    grads_of(
        "warp_affine_border",
        lambda t: geometry.warp_affine(t, a, (8, 9), padding_mode="border", align_corners=False),
        x,
    )
    h = torch.eye(3, dtype=F64).repeat(2, 1, 1)
    h[:, :2] = a
    h[0, 2, :2] = torch.tensor([0.01, -0.02])
    grads_of("warp_perspective", lambda t, m: geometry.warp_perspective(t, m, (8, 9)), x, h)
    grads_of(
        "rotate", lambda t, ang: geometry.rotate(t, ang), x, torch.tensor([30.0, -45.0], dtype=F64)
    )
    grads_of(
        "translate",
        lambda t, s: geometry.translate(t, s),
        x,
        torch.tensor([[1.5, -0.5], [0.0, 2.0]], dtype=F64),
    )
    grads_of(
        "scale",
        lambda t, s: geometry.scale(t, s),
        x,
        torch.tensor([[1.2, 0.8], [0.7, 0.7]], dtype=F64),
    )
    grads_of(
        "shear",
        lambda t, s: geometry.shear(t, s),
        x,
        torch.tensor([[0.1, 0.0], [0.0, -0.2]], dtype=F64),
    )
    grads_of("resize", lambda t: geometry.resize(t, (5, 13)), x)
    grads_of("resize_aa", lambda t: geometry.resize(t, (4, 4), antialias=True), x)
    grads_of("rescale", lambda t: geometry.rescale(t, 1.5, "nearest"), x)
    grads_of("hflip", geometry.hflip, x)
    grads_of("vflip", geometry.vflip, x)
    grads_of("rot180", geometry.rot180, x)
    put(
        "rotation_matrix2d",
        geometry.get_rotation_matrix2d(
            torch.tensor([[4.0, 3.0]]), torch.tensor([30.0]), torch.tensor([[1.0, 1.5]])
        ),
    )
    put(
        "affine_matrix2d",
        geometry.get_affine_matrix2d(
            torch.tensor([[1.0, 2.0]]),
            torch.tensor([[4.0, 3.0]]),
            torch.tensor([[1.2, 0.9]]),
            torch.tensor([15.0]),
            torch.tensor([0.1]),
            torch.tensor([0.2]),
        ),
    )
    put("invert_affine", geometry.invert_affine_transform(a))


@case
def geometry_homography() -> None:
    src = torch.tensor([[[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [0.0, 3.0]]], dtype=F64).repeat(
        2, 1, 1
    )
    dst = src + arr((2, 4, 2), 21, F64) * 0.3
    grads_of("perspective_transform", geometry.get_perspective_transform, src, dst)
    pts1 = arr((2, 12, 2), 22, F64) * 3
    hm = torch.tensor([[[1.1, 0.1, 0.3], [-0.05, 0.95, 0.2], [0.01, 0.02, 1.0]]], dtype=F64).repeat(
        2, 1, 1
    )
    pts2 = geometry.transform_points(hm, pts1) + arr((2, 12, 2), 23, F64) * 0.01
    grads_of("transform_points", geometry.transform_points, hm, pts1)
    grads_of("find_homography_dlt", geometry.find_homography_dlt, pts1, pts2)
    w = img((2, 12), 24, F64) + 0.5
    grads_of("find_homography_dlt_w", geometry.find_homography_dlt, pts1, pts2, w)
    put("find_homography_iter", geometry.find_homography_dlt_iterated(pts1, pts2, w, 3))
    put("symmetric_transfer_error", geometry.homography.symmetric_transfer_error(pts1, pts2, hm))
    put("oneway_transfer_error", geometry.homography.oneway_transfer_error(pts1, pts2, hm))


@case
def geometry_remap_crop() -> None:
    x = img((2, 3, 8, 9), 30, F64)
    gx = img((8, 9), 31, F64) * 8
    gy = img((8, 9), 32, F64) * 7
    grads_of(
        "remap",
        lambda t, u, v: geometry.remap(t, u[None].expand(2, -1, -1), v[None].expand(2, -1, -1)),
        x,
        gx,
        gy,
    )
    grads_of(
        "remap_norm",
        lambda t: geometry.remap(
            t, gx[None] / 4 - 1, gy[None] / 3.5 - 1, normalized_coordinates=True, align_corners=True
        ),
        x,
    )
    boxes = torch.tensor(
        [
            [[1.0, 1.0], [6.0, 1.0], [6.0, 5.0], [1.0, 5.0]],
            [[0.5, 2.0], [7.5, 2.0], [7.5, 6.0], [0.5, 6.0]],
        ],
        dtype=F64,
    )
    grads_of("crop_and_resize", lambda t, b: geometry.crop_and_resize(t, b, (4, 6)), x, boxes)
    grads_of(
        "crop_by_boxes",
        lambda t: (
            geometry.transform.crop_by_indices(t, boxes.long(), (4, 5))
            if hasattr(geometry.transform, "crop_by_indices")
            else t
        ),
        x,
    )
    grads_of("center_crop", lambda t: geometry.center_crop(t, (4, 5)), x)
    grads_of("pyrdown", geometry.pyrdown, x)
    grads_of("pyrup", geometry.pyrup, x)
    pyr = geometry.build_pyramid(x, 3)
    for i, p in enumerate(pyr):
        put(f"build_pyramid.{i}", p)
    lap = geometry.build_laplacian_pyramid(x, 3)
    for i, p in enumerate(lap):
        put(f"laplacian_pyramid.{i}", p)
    grid = geometry.create_meshgrid(4, 5, True)
    put("meshgrid", grid)
    put("meshgrid_unnorm", geometry.create_meshgrid(3, 2, False, dtype=F64))
    put("normalize_pixel_coordinates", geometry.normalize_pixel_coordinates(grid * 3, 4, 5))
    put(
        "elastic",
        geometry.elastic_transform2d(
            x.float(), arr((2, 2, 8, 9), 33) * 0.5, (5, 5), (2.0, 2.0), (1.0, 1.0)
        ),
    )


@case
def geometry_conversions() -> None:
    q = arr((5, 4), 40, F64)
    q = q / q.norm(dim=-1, keepdim=True)
    aa = arr((5, 3), 41, F64)
    conv = geometry.conversions
    grads_of("quat_to_rotmat", conv.quaternion_to_rotation_matrix, q)
    grads_of(
        "rotmat_to_quat",
        lambda t: conv.rotation_matrix_to_quaternion(conv.quaternion_to_rotation_matrix(t)),
        q,
    )
    grads_of("axis_angle_to_rotmat", conv.axis_angle_to_rotation_matrix, aa)
    grads_of(
        "rotmat_to_axis_angle",
        lambda t: conv.rotation_matrix_to_axis_angle(conv.axis_angle_to_rotation_matrix(t)),
        aa,
    )
    grads_of("axis_angle_to_quat", conv.axis_angle_to_quaternion, aa)
    grads_of("quat_to_axis_angle", conv.quaternion_to_axis_angle, q)
    grads_of("quat_log", conv.quaternion_log_to_exp, aa * 0.3)
    grads_of("quat_exp", conv.quaternion_exp_to_log, q)
    grads_of(
        "euler",
        lambda t: torch.stack(conv.quaternion_from_euler(t[:, 0], t[:, 1], t[:, 2]), -1),
        aa,
    )
    grads_of("to_homogeneous", conv.convert_points_to_homogeneous, aa)
    grads_of("from_homogeneous", conv.convert_points_from_homogeneous, aa)
    grads_of("deg2rad", conv.deg2rad, aa)
    grads_of("rad2deg", conv.rad2deg, aa)
    grads_of("polar", lambda t: torch.stack(conv.pol2cart(t[:, 0], t[:, 1]), -1), aa)
    grads_of("cart2pol", lambda t: torch.stack(conv.cart2pol(t[:, 0], t[:, 1]), -1), aa)
    grads_of("affine_to_h", conv.convert_affinematrix_to_homography, arr((2, 2, 3), 42, F64))
    grads_of("angle_to_rotmat", conv.angle_to_rotation_matrix, aa[:, 0])
    put("Rt_to_matrix", conv.Rt_to_matrix4x4(conv.axis_angle_to_rotation_matrix(aa), aa[..., None]))
    quat = geometry.Quaternion(q)
    put("Quaternion.matrix", quat.matrix())
    put("Quaternion.mul", (quat * quat.inv()).data)
    put("Quaternion.slerp", quat.slerp(geometry.Quaternion(q.flip(0)), 0.3).data)


@case
def geometry_camera() -> None:
    k = torch.tensor([[[50.0, 0.0, 4.5], [0.0, 45.0, 3.5], [0.0, 0.0, 1.0]]], dtype=F64)
    pts = arr((1, 10, 3), 50, F64) + torch.tensor([0.0, 0.0, 5.0], dtype=F64)
    grads_of("project", lambda p, kk: geometry.camera.project_points(p, kk[:, None]), pts, k)
    px = img((1, 10, 2), 51, F64) * 8
    depth = img((1, 10, 1), 52, F64) + 1
    grads_of(
        "unproject", lambda p, d: geometry.camera.unproject_points(p, d, k[:, None]), px, depth
    )
    dmap = img((1, 1, 6, 7), 53, F64) + 2
    grads_of("depth_to_3d", lambda d: geometry.depth.depth_to_3d(d, k), dmap)
    grads_of("depth_to_3d_v2", lambda d: geometry.depth.depth_to_3d_v2(d[:, 0], k), dmap)
    grads_of("depth_to_normals", lambda d: geometry.depth.depth_to_normals(d, k), dmap)
    ext = torch.eye(4, dtype=F64)[None]
    ext[0, :3, 3] = torch.tensor([0.1, -0.2, 0.3])
    cam = geometry.camera.PinholeCamera(
        k4 := torch.eye(4, dtype=F64)[None], ext, torch.tensor([6.0]), torch.tensor([7.0])
    )
    k4[0, :3, :3] = k[0]
    put("pinhole.project", cam.project(pts[0]))
    put("pinhole.unproject", cam.unproject(px[0], depth[0]))
    put(
        "warp_frame_depth",
        geometry.depth.warp_frame_depth(img((1, 3, 6, 7), 54, F64), dmap, ext, k),
    )


# ---------------------------------------------------------------- morphology, losses, metrics


@case
def morphology_ops() -> None:
    x = img((2, 3, 7, 8), 60, F64)
    kern = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]], dtype=F64)
    for name in ("dilation", "erosion", "opening", "closing", "gradient", "top_hat", "bottom_hat"):
        grads_of(name, lambda t, f=getattr(morphology, name): f(t, kern), x)
    grads_of("dilation_unfold", lambda t: morphology.dilation(t, kern, engine="unfold"), x)
    se = torch.tensor([[0.0, 0.3, 0.0], [0.1, 0.0, 0.2], [0.0, 0.4, 0.0]], dtype=F64)
    grads_of("erosion_se", lambda t: morphology.erosion(t, kern, structuring_element=se), x)
    put("dilation_f32", morphology.dilation(x.float(), torch.ones(3, 5)))


@case
def losses_image() -> None:
    a = img((2, 3, 12, 12), 70, F64)
    b = (a + img((2, 3, 12, 12), 71, F64) * 0.2).clamp(0, 1)
    grads_of("ssim_loss", lambda s, t: losses.ssim_loss(s, t, 5), a, b)
    grads_of("SSIMLoss", lambda s, t: losses.SSIMLoss(3, reduction="none")(s, t), a, b)
    grads_of("psnr_loss", lambda s, t: losses.psnr_loss(s, t, 1.0), a, b)
    grads_of("total_variation", lambda s: losses.total_variation(s), a)
    grads_of("tv_mean", lambda s: losses.total_variation(s, "mean"), a)
    grads_of("charbonnier", lambda s, t: losses.charbonnier_loss(s, t, "none"), a, b)
    grads_of("welsch", lambda s, t: losses.welsch_loss(s, t, "mean"), a, b)
    grads_of("cauchy", lambda s, t: losses.cauchy_loss(s, t, "sum"), a, b)
    grads_of("geman_mcclure", lambda s, t: losses.geman_mcclure_loss(s, t), a, b)
    big = img((1, 1, 48, 48), 72, F64)
    big2 = (big + img((1, 1, 48, 48), 73, F64) * 0.1).clamp(0, 1)
    grads_of(
        "ms_ssim",
        lambda s, t: losses.MS_SSIMLoss(sigmas=[0.5, 1.0], data_range=1.0)(s, t),
        big,
        big2,
    )
    grads_of(
        "ssim3d",
        lambda s, t: losses.ssim3d_loss(s, t, 3),
        a[:, :, None].expand(-1, -1, 4, -1, -1) * 1,
        b[:, :, None].expand(-1, -1, 4, -1, -1) * 1,
    )


@case
def losses_segmentation() -> None:
    logits = arr((2, 4, 5, 6), 80, F64)
    target = torch.tensor(np.random.default_rng(81).integers(0, 4, (2, 5, 6)))
    grads_of("focal", lambda s: losses.focal_loss(s, target, 0.25, 2.0, "mean"), logits)
    grads_of("focal_none", lambda s: losses.focal_loss(s, target, 0.5, 1.5, "none"), logits)
    bt = torch.tensor(np.random.default_rng(82).integers(0, 2, (2, 1, 5, 6))).to(F64)
    grads_of(
        "binary_focal",
        lambda s: losses.binary_focal_loss_with_logits(s[:, :1], bt, 0.25, 2.0, "mean"),
        logits,
    )
    grads_of("dice", lambda s: losses.dice_loss(s, target), logits)
    grads_of("dice_micro", lambda s: losses.dice_loss(s, target, average="macro"), logits)
    grads_of("tversky", lambda s: losses.tversky_loss(s, target, 0.3, 0.7), logits)
    grads_of("lovasz_softmax", lambda s: losses.lovasz_softmax_loss(s, target), logits)
    grads_of(
        "lovasz_hinge", lambda s: losses.lovasz_hinge_loss(s[:, :1], target.clamp(max=1)), logits
    )
    grads_of(
        "js_div", lambda s: losses.js_div_loss_2d(s.softmax(-1), s.flip(0).softmax(-1)), logits
    )
    grads_of(
        "kl_div", lambda s: losses.kl_div_loss_2d(s.softmax(-1), s.flip(0).softmax(-1)), logits
    )


@case
def metrics_all() -> None:
    a = img((2, 3, 12, 12), 90)
    b = (a + img((2, 3, 12, 12), 91) * 0.2).clamp(0, 1)
    put("ssim", metrics.ssim(a, b, 5))
    put("psnr", metrics.psnr(a, b, 1.0))
    put(
        "ssim3d",
        metrics.ssim3d(
            a[:, :, None].repeat(1, 1, 4, 1, 1).double(),
            b[:, :, None].repeat(1, 1, 4, 1, 1).double(),
            3,
        ),
    )
    pred = torch.tensor(np.random.default_rng(92).integers(0, 3, (4, 5, 5)))
    gt = torch.tensor(np.random.default_rng(93).integers(0, 3, (4, 5, 5)))
    put("confusion", metrics.confusion_matrix(pred, gt, 3))
    put("confusion_norm", metrics.confusion_matrix(pred, gt, 3, normalized=True))
    put("mean_iou", metrics.mean_iou(pred, gt, 3))
    logits = arr((6, 4), 94)
    put(
        "accuracy", torch.tensor(metrics.accuracy(logits, torch.tensor([0, 1, 2, 3, 0, 1]), (1, 2)))
    )
    put("aepe", metrics.aepe(arr((2, 5, 5, 2), 95), arr((2, 5, 5, 2), 96)))
    boxes = torch.tensor([[1.0, 1.0, 5.0, 5.0], [2.0, 2.0, 8.0, 6.0]])
    put("mean_iou_bbox", metrics.mean_iou_bbox(boxes, boxes + 0.5))
    m_ap, ap = metrics.mean_average_precision(
        [boxes],
        [torch.tensor([1, 2])],
        [torch.tensor([0.9, 0.6])],
        [boxes + 0.5],
        [torch.tensor([1, 2])],
        3,
    )
    put("mean_ap", torch.tensor([float(m_ap), *[float(v) for v in ap.values()]]))


# ---------------------------------------------------------------- feature


@case
def feature_responses() -> None:
    x = img((2, 1, 16, 16), 100, F64)
    grads_of("harris", lambda t: feature.harris_response(t, 0.04), x)
    grads_of("gftt", lambda t: feature.gftt_response(t), x)
    grads_of("hessian", lambda t: feature.hessian_response(t), x)
    grads_of("dog", lambda t: feature.dog_response(t), img((2, 1, 4, 12, 12), 101, F64))
    grads_of(
        "harris_sigma",
        lambda t: feature.harris_response(t, 0.05, "diff", torch.tensor([1.0, 2.0], dtype=F64)),
        x,
    )
    patches = img((5, 1, 32, 32), 102, F64)
    grads_of("sift", lambda t: feature.SIFTDescriptor(32, 8, 4, rootsift=True).double()(t), patches)
    grads_of(
        "sift_plain",
        lambda t: feature.SIFTDescriptor(32, 4, 4, rootsift=False).double()(t),
        patches,
    )
    lafs = torch.tensor(
        [[[[5.0, 0.5, 8.0], [0.2, 4.0, 7.5]], [[3.0, 0.0, 6.0], [0.0, 3.0, 9.0]]]], dtype=F64
    )
    put("laf_to_boundary", feature.laf_to_boundary_points(lafs))
    put("get_laf_scale", feature.get_laf_scale(lafs))
    put("get_laf_orientation", feature.get_laf_orientation(lafs))
    put("extract_patches", feature.extract_patches_from_pyramid(x[:1], lafs, 8))
    grads_of("ori", lambda t: feature.PatchDominantGradientOrientation(32).double()(t), patches)
    grads_of("affshape", lambda t: feature.PatchAffineShapeEstimator(32).double()(t), patches)
    hardnet = module("hardnet", lambda: feature.HardNet(pretrained=False))
    grads_of("hardnet", lambda t: hardnet.eval()(t), img((3, 1, 32, 32), 103))
    tfeat = module("tfeat", lambda: feature.TFeat(pretrained=False))
    put("tfeat", tfeat.eval()(img((3, 1, 32, 32), 104)))
    mkd = feature.MKDDescriptor(32, whitening=None)
    put("mkd", mkd(img((3, 1, 32, 32), 105)))


@case
def feature_matching() -> None:
    d1 = arr((8, 16), 110)
    d2 = torch.cat([d1[:5] + arr((5, 16), 111) * 0.1, arr((4, 16), 112)])
    for name, fn in (("nn", feature.match_nn), ("mnn", feature.match_mnn)):
        dist, idx = fn(d1, d2)
        put(name + ".dist", dist)
        put(name + ".idx", idx)
    dist, idx = feature.match_snn(d1, d2, 0.9)
    put("snn.dist", dist)
    put("snn.idx", idx)
    dist, idx = feature.match_smnn(d1, d2, 0.95)
    put("smnn.dist", dist)
    put("smnn.idx", idx)


@case
def feature_networks() -> None:
    # the small learned modules, with the oracle's random weights
    patches = img((3, 1, 32, 32), 250)
    nets = {
        "sosnet": lambda: feature.SOSNet(pretrained=False),
        "hynet": lambda: feature.HyNet(pretrained=False),
        "orinet": lambda: feature.OriNet(pretrained=False),
    }
    for name, make in nets.items():
        net = module(name, make).eval()
        grads_of(name, net, patches)
    affnet = module("affnet", lambda: feature.LAFAffNetShapeEstimator(pretrained=False)).eval()
    x = img((1, 1, 40, 40), 251)
    lafs = torch.tensor(
        [[[[6.0, 0.5, 18.0], [0.2, 5.0, 20.0]], [[4.0, 0.0, 12.0], [0.0, 4.0, 25.0]]]]
    )
    grads_of("affnet", lambda t: affnet(lafs, t), x)
    affnet64 = affnet.double()
    grads_of("affnet64", lambda t: affnet64(lafs.double(), t), x.double())
    orienter = feature.LAFOrienter(
        32, angle_detector=module("orienter", lambda: feature.OriNet(False))
    ).eval()
    put("laf_orienter", orienter(lafs, x))
    keynet = module("keynet", lambda: feature.KeyNet(pretrained=False)).eval()
    grads_of("keynet", keynet, img((1, 1, 24, 24), 252))
    desc = feature.LAFDescriptor(module("lafdesc", lambda: feature.HardNet(False)).eval(), 32)
    put("laf_descriptor", desc(x, lafs))


@case
def feature_lightglue() -> None:
    # LightGlue (a small one, the oracle's random weights) matching two keypoint sets;
    # it switches the attention kernels through torch.backends.cuda
    def make() -> torch.nn.Module:
        return feature.LightGlue(
            features=None,
            input_dim=128,
            descriptor_dim=64,
            num_heads=4,
            n_layers=2,
            filter_threshold=0.0,
        )

    glue = module("lightglue", make).eval()

    def side(n: int, seed: int) -> dict:
        return {
            "keypoints": img((1, n, 2), seed) * 32,
            "descriptors": arr((1, n, 128), seed + 1),
            "image_size": torch.tensor([[32.0, 32.0]]),
        }

    a, b = side(10, 260), side(12, 262)
    b["descriptors"][:, :6] = a["descriptors"][:, :6] + arr((1, 6, 128), 264) * 0.1
    out = glue({"image0": a, "image1": b})
    for key in ("matches0", "matches1", "matching_scores0", "matching_scores1"):
        put("lightglue." + key, out[key])
    put("lightglue.matches", out["matches"][0])
    put("lightglue.scores", out["scores"][0])


# ---------------------------------------------------------------- more geometry


@case
def geometry_epipolar() -> None:
    epi = geometry.epipolar
    rng = np.random.default_rng(130)
    pts3d = torch.tensor(rng.standard_normal((1, 20, 3)) + [0.0, 0.0, 6.0])
    k = torch.tensor([[[60.0, 0.0, 16.0], [0.0, 60.0, 12.0], [0.0, 0.0, 1.0]]], dtype=F64)
    r = geometry.conversions.axis_angle_to_rotation_matrix(
        torch.tensor([[0.05, -0.1, 0.02]], dtype=F64)
    )
    t = torch.tensor([[[0.5], [0.1], [-0.05]]], dtype=F64)
    p1 = epi.projection_from_KRt(k, torch.eye(3, dtype=F64)[None], torch.zeros(1, 3, 1, dtype=F64))
    p2 = epi.projection_from_KRt(k, r, t)
    x1 = geometry.convert_points_from_homogeneous(
        torch.cat([pts3d, torch.ones(1, 20, 1, dtype=F64)], -1) @ p1[0].T
    )
    x2 = geometry.convert_points_from_homogeneous(
        torch.cat([pts3d, torch.ones(1, 20, 1, dtype=F64)], -1) @ p2[0].T
    )
    grads_of("find_fundamental", lambda a, b: epi.find_fundamental(a, b), x1, x2)
    f = epi.find_fundamental(x1, x2)
    put("sampson", epi.sampson_epipolar_distance(x1, x2, f))
    put("symmetrical", epi.symmetrical_epipolar_distance(x1, x2, f))
    put("epilines", epi.compute_correspond_epilines(x1, f))
    e = epi.essential_from_Rt(torch.eye(3, dtype=F64)[None], torch.zeros(1, 3, 1, dtype=F64), r, t)
    put("essential", e)
    grads_of("essential_from_fundamental", epi.essential_from_fundamental, f, k, k)
    # (an essential matrix has two equal singular values, whose singular vectors are any
    # basis of their plane: LAPACKs differ in which, so the two rotations may come swapped
    # and t negated; they are compared as a pair, the rotation nearer the identity first)
    r1, r2, tt = epi.decompose_essential_matrix(epi.essential_from_fundamental(f, k, k))
    if torch.diagonal(r1, dim1=-2, dim2=-1).sum() < torch.diagonal(r2, dim1=-2, dim2=-1).sum():
        r1, r2 = r2, r1
    put("decompose.r1", r1)
    put("decompose.r2", r2)
    put("decompose.t", tt * tt[:, :1].sign())
    grads_of("triangulate", lambda a, b: epi.triangulate_points(p1, p2, a, b), x1, x2)
    put(
        "motion",
        torch.cat(
            [m.flatten() for m in epi.motion_from_essential_choose_solution(e, k, k, x1, x2)[:2]]
        ),
    )
    grads_of("pnp", lambda w, i: geometry.calibration.solve_pnp_dlt(w, i, k), pts3d, x2)
    dist = torch.tensor([[0.1, -0.05, 0.01, 0.002, 0.0]], dtype=F64)
    grads_of("distort", lambda p: geometry.calibration.distort_points(p, k, dist), x1)
    grads_of("undistort", lambda p: geometry.calibration.undistort_points(p, k, dist), x1)
    put(
        "undistort_image",
        geometry.calibration.undistort_image(img((1, 3, 12, 16), 131, F64), k, dist),
    )


@case
def geometry_liegroups() -> None:
    lie = geometry.liegroup
    w = arr((4, 3), 140, F64) * 0.7
    v = arr((4, 3), 141, F64)
    grads_of("so3_exp", lambda a: lie.So3.exp(a).q.data, w)
    grads_of("so3_log", lambda a: lie.So3.exp(a).log(), w)
    grads_of("so3_matrix", lambda a: lie.So3.exp(a).matrix(), w)
    grads_of("se3_exp", lambda a, b: lie.Se3.exp(torch.cat([b, a], -1)).matrix(), w, v)
    grads_of("se3_log", lambda a, b: lie.Se3.exp(torch.cat([b, a], -1)).log(), w, v)
    grads_of("se3_act", lambda a, b: lie.Se3.exp(torch.cat([b, a], -1)) * b, w, v)
    grads_of("so2_exp", lambda a: lie.So2.exp(a[:, 0]).matrix(), w)
    grads_of("se2_exp", lambda a: lie.Se2.exp(a).matrix(), w)
    grads_of("so3_hat", lambda a: lie.So3.hat(a), w)
    put("se3_inverse", lie.Se3.exp(torch.cat([v, w], -1)).inverse().matrix())


@case
def geometry_subpix_bbox() -> None:
    heat = arr((2, 3, 8, 9), 150, F64)
    grads_of(
        "spatial_soft_argmax2d",
        lambda h: geometry.subpix.spatial_soft_argmax2d(h, torch.tensor(2.0, dtype=F64)),
        heat,
    )
    grads_of(
        "spatial_expectation2d",
        lambda h: geometry.subpix.spatial_expectation2d(h.softmax(-1)),
        heat,
    )
    grads_of(
        "conv_soft_argmax2d",
        lambda h: torch.cat(
            geometry.subpix.conv_soft_argmax2d(h, (3, 3), (1, 1), (1, 1), output_value=True)[:1], 1
        ),
        heat,
    )
    put("nms2d", geometry.subpix.nms2d(heat, (3, 3)))
    put("nms3d", geometry.subpix.nms3d(heat[:, None], (3, 3, 3)))
    grads_of("quad_interp3d", lambda h: geometry.subpix.conv_quad_interp3d(h[:, None])[0], heat)
    put(
        "render_gaussian2d",
        geometry.subpix.render_gaussian2d(
            torch.tensor([[2.5, 3.0]]), torch.tensor([[1.0, 1.5]]), (6, 7)
        ),
    )
    boxes = torch.tensor(
        [
            [[1.0, 2.0], [5.0, 2.0], [5.0, 6.0], [1.0, 6.0]],
            [[0.0, 0.0], [3.0, 0.0], [3.0, 4.0], [0.0, 4.0]],
        ]
    )
    put("bbox_to_mask", geometry.bbox.bbox_to_mask(boxes, 8, 7))
    put("infer_bbox_shape", torch.stack(geometry.bbox.infer_bbox_shape(boxes)))
    put(
        "bbox_generator",
        geometry.bbox.bbox_generator(
            torch.tensor([1.0, 2.0]),
            torch.tensor([0.5, 3.0]),
            torch.tensor([4.0, 3.0]),
            torch.tensor([2.0, 5.0]),
        ),
    )
    b = geometry.boxes.Boxes.from_tensor(
        torch.tensor([[[1.0, 1.0, 4.0, 5.0], [2.0, 0.0, 6.0, 3.0]]]), mode="xyxy"
    )
    put("boxes.xywh", b.to_tensor("xywh"))
    put(
        "boxes.transform",
        b.transform_boxes(
            torch.tensor([[[1.0, 0.2, 1.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]]])
        ).to_tensor(),
    )
    put("boxes.mask", b.to_mask(7, 8))
    kp = geometry.keypoints.Keypoints(torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
    put(
        "keypoints.transform",
        kp.transform_keypoints(
            torch.tensor([[[1.0, 0.2, 1.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]]])
        ).data,
    )
    grads_of(
        "warp_affine3d",
        lambda t: geometry.warp_affine3d(
            t,
            torch.tensor(
                [[[1.0, 0.1, 0.0, 0.5], [0.0, 0.9, 0.1, 0.0], [0.05, 0.0, 1.1, -0.3]]], dtype=F64
            ),
            (3, 5, 6),
        ),
        img((1, 2, 3, 5, 6), 151, F64),
    )
    grads_of(
        "warp_perspective3d",
        lambda t: geometry.warp_perspective3d(
            t,
            torch.tensor(
                [
                    [
                        [1.0, 0.1, 0.0, 0.5],
                        [0.0, 0.9, 0.1, 0.0],
                        [0.05, 0.0, 1.1, -0.3],
                        [0.0, 0.01, 0.0, 1.0],
                    ]
                ],
                dtype=F64,
            ),
            (3, 5, 6),
        ),
        img((1, 2, 3, 5, 6), 152, F64),
    )
    grads_of(
        "resize3d",
        lambda t: geometry.transform.affwarp.resize(t, (4, 4)),
        img((1, 2, 5, 6), 153, F64),
    )


@case
def geometry_solvers_cameras() -> None:
    import kornia.sensors.camera as cam
    from kornia import contrib, image

    rng = np.random.default_rng(270)
    p1 = torch.tensor(rng.random((1, 7, 2)))
    p2 = torch.tensor(rng.random((1, 7, 2)))
    put("fundamental_7point", geometry.epipolar.find_fundamental(p1, p2, method="7POINT"))
    grads_of(
        "essential_5point",
        lambda a, b: geometry.epipolar.find_essential(a, b),
        p1[:, :5],
        p2[:, :5],
    )
    grads_of(
        "solve_cubic",
        geometry.solvers.solve_cubic,
        torch.tensor([[1.0, -6.0, 11.0, -6.0], [2.0, 1.0, -3.0, 0.5]], dtype=F64),
    )
    put(
        "solve_quartic",
        geometry.solvers.solve_quartic(torch.tensor([[1.0, -10.0, 35.0, -50.0, 24.0]], dtype=F64)),
    )
    k = torch.tensor([50.0, 48.0, 16.0, 15.0], dtype=F64)
    model = cam.CameraModel(image.ImageSize(32, 32), cam.CameraModelType.PINHOLE, k)
    pts = geometry.vector.Vector3(
        arr((5, 3), 271, F64) * 0.3 + torch.tensor([0.0, 0.0, 3.0], dtype=F64)
    )
    put("camera_model.project", model.project(pts))
    left = torch.tensor([[[50.0, 0, 16, 0], [0, 50, 16, 0], [0, 0, 1, 0]]], dtype=F64)
    right = left.clone()
    right[0, 0, 3] = -5.0
    disparity = img((1, 8, 8, 1), 272, F64) + 0.5
    grads_of(
        "stereo",
        lambda d: geometry.camera.StereoCamera(left, right).reproject_disparity_to_3D(d),
        disparity,
    )
    grads_of(
        "depth_from_disparity",
        lambda d: geometry.depth.depth_from_disparity(d, 0.1, 50.0),
        disparity,
    )
    plane = geometry.plane.fit_plane(
        geometry.vector.Vector3(arr((12, 3), 273, F64) * torch.tensor([1.0, 1.0, 0.01]))
    )
    put("fit_plane.normal", plane.normal.data.abs())
    line = geometry.line.ParametrizedLine.through(
        torch.zeros(2, dtype=F64), torch.tensor([1.0, 2.0], dtype=F64)
    )
    put("line.projection", line.projection(torch.tensor([1.0, 0.0], dtype=F64)))
    km = contrib.KMeans(3, torch.tensor([[0.1, 0.1], [0.5, 0.5], [0.9, 0.9]]), 1e-4, 20)
    km.fit(img((40, 2), 274))
    put("kmeans.centers", km.cluster_centers)
    put("kmeans.assignments", km.cluster_assignments)


# ---------------------------------------------------------------- contrib, utils, more enhance


@case
def contrib_utils() -> None:
    from kornia import contrib, utils

    x = img((2, 3, 8, 10), 160, F64)
    grads_of("extract_patches", lambda t: contrib.extract_tensor_patches(t, (3, 4), (2, 3)), x)
    p = contrib.extract_tensor_patches(x, (4, 5), (4, 5))
    grads_of(
        "combine_patches", lambda t: contrib.combine_tensor_patches(t, (8, 10), (4, 5), (4, 5)), p
    )
    binary = (img((1, 1, 10, 10), 161) > 0.6).float()
    put("connected_components", contrib.connected_components(binary, 30))
    put("distance_transform", contrib.distance_transform(binary, 3, 0.35))
    put("histogram_matching", contrib.histogram_matching(img((1, 8, 8), 162), img((1, 8, 8), 163)))
    canvas = torch.zeros(3, 9, 11)
    put(
        "draw_line",
        utils.draw_line(
            canvas.clone(),
            torch.tensor([1, 2]),
            torch.tensor([8, 7]),
            torch.tensor([1.0, 0.5, 0.2]),
        ),
    )
    put(
        "draw_rectangle",
        utils.draw_rectangle(
            torch.zeros(1, 3, 9, 11),
            torch.tensor([[[1.0, 1.0, 6.0, 5.0]]]),
            torch.tensor([0.5, 0.6, 0.7]),
            fill=True,
        ),
    )
    put(
        "draw_polygon",
        utils.draw_convex_polygon(
            torch.zeros(1, 3, 9, 11),
            torch.tensor([[[1.0, 1.0], [8.0, 2.0], [5.0, 7.0]]]),
            torch.tensor([1.0, 0.5, 0.2]),
        ),
    )
    put(
        "one_hot",
        utils.one_hot(torch.tensor([[[0, 2], [1, 1]]]), 3, torch.device("cpu"), torch.float32),
    )
    put("image_to_tensor", utils.image_to_tensor(np.arange(24, dtype=np.float32).reshape(2, 4, 3)))
    put("tensor_to_image", utils.tensor_to_image(x[0]))
    put("meshgrid3d", utils.create_meshgrid3d(2, 3, 4))


@case
def enhance_more() -> None:
    x = img((2, 3, 6, 7), 170, F64)
    grads_of("adjust_log", lambda t: enhance.adjust_log(t, 1.2), x)
    grads_of("adjust_sigmoid", lambda t: enhance.adjust_sigmoid(t, 0.5, 8.0), x)
    grads_of("add_weighted", lambda a, b: enhance.add_weighted(a, 0.3, b, 0.6, 0.1), x, x.flip(-1))
    grads_of("image_histogram2d", lambda t: enhance.image_histogram2d(t, 0.0, 1.0, 8, 0.1)[0], x)
    grads_of(
        "histogram2d",
        lambda t: enhance.histogram2d(
            t[:, 0].flatten(1),
            t[:, 1].flatten(1),
            torch.linspace(0, 1, 6, dtype=F64),
            torch.tensor(0.2, dtype=F64),
        ),
        x,
    )
    grads_of(
        "zca", lambda t: enhance.zca_whiten(t.flatten(1) + torch.arange(126, dtype=F64) * 0.01), x
    )
    grads_of(
        "jpeg",
        lambda t: enhance.jpeg_codec_differentiable(t, torch.tensor([50.0, 80.0], dtype=F64)),
        img((2, 3, 16, 16), 171, F64),
    )
    grads_of("sepia", lambda t: color.sepia(t), x)
    grads_of(
        "raw",
        lambda t: color.raw_to_rgb(color.rgb_to_raw(t, color.CFA.BG), color.CFA.BG),
        img((2, 3, 6, 8), 172, F64),
    )
    put(
        "colormap",
        color.apply_colormap(torch.tensor([[[0, 3, 7], [2, 5, 1]]]), color.ColorMap("viridis", 8)),
    )
    grads_of(
        "guided_blur", lambda t, g: filters.guided_blur(g, t, 3, 0.1), x, x.mean(1, keepdim=True)
    )
    put("in_range", filters.in_range(x.float(), (0.2, 0.1, 0.3), (0.8, 0.7, 0.9)))
    put("otsu", filters.otsu_threshold(x.float())[0])


@case
def registration_training() -> None:
    # an optimisation loop through kornia's warps: ImageRegistrator with an SGD optimizer
    from kornia.geometry.transform import ImageRegistrator

    src = img((1, 1, 16, 16), 180)
    src = filters.gaussian_blur2d(src, (5, 5), (2.0, 2.0))
    m = torch.tensor([[[1.0, 0.05, 0.3], [-0.05, 1.0, -0.2], [0.0, 0.0, 1.0]]])
    dst = geometry.warp_perspective(src, m, (16, 16))
    reg = ImageRegistrator(
        "similarity", num_iterations=20, pyramid_levels=2, lr=1e-2, tolerance=0.0
    )
    put("registrator", reg.register(src, dst))
    put("registrator.warped", reg.warp_src_into_dst(src))


# ---------------------------------------------------------------- transforms, io, ransac


@case
def func_transforms() -> None:
    # kornia inside torch.func transforms (kornia asks whether one is active)
    x = img((4, 3, 6, 7), 210, F64)
    put("vmap_gray", torch.func.vmap(lambda t: color.rgb_to_grayscale(t[None])[0])(x))
    put("vmap_box", torch.func.vmap(lambda t: filters.box_blur(t[None], (3, 3))[0])(x))
    put(
        "vmap_dilation",
        torch.func.vmap(lambda t: morphology.dilation(t[None], torch.ones(3, 3, dtype=F64))[0])(x),
    )
    put("jacrev_hsv", torch.func.jacrev(lambda t: color.rgb_to_hsv(t))(x[:1, :, :2, :2]))
    put("grad_ssim", torch.func.grad(lambda t: losses.ssim_loss(t, x[:1], 3))(x[1:2]))
    target = torch.tensor(np.random.default_rng(211).integers(0, 3, (4, 6, 7)))
    put("grad_focal", torch.func.grad(lambda t: losses.focal_loss(t, target, 0.5, 2.0, "mean"))(x))
    put("compiled_blur", torch.compile(lambda t: filters.gaussian_blur2d(t, (3, 3), (1.0, 1.0)))(x))


@case
def io_roundtrip() -> None:
    from kornia import io

    data = (np.random.default_rng(220).random((9, 11, 3)) * 255).astype(np.uint8)
    x = torch.from_numpy(data).permute(2, 0, 1).contiguous()
    path = f"{OUT}/kornia_{SIDE}.png"
    io.write_image(path, x)
    put("png_rgb8", io.load_image(path, io.ImageLoadType.RGB8))
    put("png_rgb32", io.load_image(path, io.ImageLoadType.RGB32))
    put("png_gray8", io.load_image(path, io.ImageLoadType.GRAY8))
    path = f"{OUT}/kornia_{SIDE}.jpg"
    io.write_image(path, x, 90)
    put("jpg_unchanged", io.load_image(path, io.ImageLoadType.UNCHANGED))


@case
def ransac_exact() -> None:
    # exact correspondences: every sample gives the same model, whatever was drawn
    pts1 = img((1, 30, 2), 230, F64) * 20
    hm = torch.tensor([[[1.1, 0.1, 3.0], [-0.05, 0.95, 2.0], [0.001, 0.002, 1.0]]], dtype=F64)
    pts2 = geometry.transform_points(hm, pts1)
    model, inliers = geometry.ransac.RANSAC("homography", inl_th=0.5, max_iter=5).double()(
        pts1[0], pts2[0]
    )
    put("ransac.model", model / model[2, 2])
    put("ransac.inliers", inliers)


@case
def feature_detectors() -> None:
    x = filters.gaussian_blur2d(img((1, 1, 32, 32), 240), (5, 5), (1.5, 1.5))
    det = feature.ScaleSpaceDetector(
        12,
        resp_module=feature.BlobHessian(),
        subpix_module=geometry.subpix.ConvQuadInterp3d(10),
        scale_pyr_module=geometry.transform.ScalePyramid(3, 1.6, 15),
        ori_module=feature.PassLAF(),
        aff_module=feature.PassLAF(),
        mr_size=6.0,
        minima_are_also_good=True,
    )
    yy, xx = np.mgrid[0:48, 0:48]
    blobs = sum(
        np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
        for cy, cx, r in ((12, 14, 2.0), (30, 34, 3.5), (36, 10, 2.5))
    )
    lafs, resp = det(torch.tensor(blobs, dtype=torch.float32)[None, None])
    put("ssd.lafs", lafs)
    put("ssd.resp", resp)
    sift = feature.SIFTFeature(8)
    lafs, resp, desc = sift(x)
    put("sift_feature.lafs", lafs)
    put("sift_feature.resp", resp)
    put("sift_feature.desc", desc)
    gftt = feature.CornerGFTT()
    put("corner_gftt", gftt(x))
    put("blob_dog", feature.BlobDoG()(img((1, 1, 3, 12, 12), 241)))


import kornia_aug_cases  # noqa: E402, F401  (registers the augmentation cases)

main()
