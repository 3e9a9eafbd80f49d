"""chainrule.vision.transforms.v2 and tv_tensors against the real torchvision: the v2
functionals on plain tensors, PIL images, Image/Video/Mask/BoundingBoxes, the transform
classes on nested samples, and the TVTensor type rules."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch
from PIL import Image as PILImage

import chainrule
import chainrule.vision.transforms.v2 as cT
import chainrule.vision.transforms.v2.functional as cF
from chainrule.vision import tv_tensors as ctv

RNG = np.random.RandomState(1)
U8 = RNG.randint(0, 256, size=(3, 12, 15)).astype(np.uint8)
F32 = RNG.rand(3, 12, 15).astype(np.float32)
BATCH5_U8 = RNG.randint(0, 256, size=(2, 2, 3, 9, 12)).astype(np.uint8)
MASK = RNG.randint(0, 5, size=(12, 15)).astype(np.int64)
BOXES = np.array(
    [[1.0, 2.0, 9.0, 7.0], [0.0, 0.0, 15.0, 12.0], [4.5, 3.0, 6.0, 11.5]], dtype=np.float32
)
PIL_RGB = PILImage.fromarray(RNG.randint(0, 256, size=(12, 15, 3)).astype(np.uint8))


@pytest.fixture(scope="module")
def tT(tv):
    return importlib.import_module("torchvision.transforms.v2")


@pytest.fixture(scope="module")
def tF(tT):
    return tT.functional


@pytest.fixture(scope="module")
def ttv(tv):
    return importlib.import_module("torchvision.tv_tensors")


def same(c, t, atol=0.0, max_mismatch=0.0):
    """Equal values, dtype, shape and TVTensor type (metadata for boxes); PIL: pixels."""
    if isinstance(t, (tuple, list)):
        assert type(c) is type(t) and len(c) == len(t)
        for a, b in zip(c, t):
            same(a, b, atol, max_mismatch)
        return
    if isinstance(t, dict):
        assert c.keys() == t.keys()
        for k in t:
            same(c[k], t[k], atol, max_mismatch)
        return
    if isinstance(t, PILImage.Image):
        assert isinstance(c, PILImage.Image) and (c.mode, c.size) == (t.mode, t.size)
        np.testing.assert_allclose(np.asarray(c, np.float64), np.asarray(t, np.float64), atol=atol)
        return
    if not isinstance(t, torch.Tensor):
        assert c == t
        return
    assert type(c).__name__ == type(t).__name__
    assert str(c.dtype) == str(t.dtype) and tuple(c.shape) == tuple(t.shape)
    if type(t).__name__ == "BoundingBoxes":
        assert c.format.value == t.format.value and tuple(c.canvas_size) == tuple(t.canvas_size)
    a, b = c.detach().numpy(), t.detach().numpy()
    # atol is for integer data (a rounding on either side of .5); floats agree closely
    tol = min(atol, 1e-4) if np.issubdtype(a.dtype, np.floating) else atol
    np.testing.assert_allclose(a, b, atol=tol, rtol=1e-6)
    if max_mismatch and not np.issubdtype(a.dtype, np.floating):
        assert np.mean(a != b) <= max_mismatch


def sample(ttv_mod, torch_mod, image=U8):
    """An (image, target) sample of each library from the same arrays."""
    img = ttv_mod.Image(torch_mod.tensor(image.copy()))
    target = {
        "masks": ttv_mod.Mask(torch_mod.tensor(MASK.copy())),
        "boxes": ttv_mod.BoundingBoxes(
            torch_mod.tensor(BOXES.copy()), format="XYXY", canvas_size=(12, 15)
        ),
        "labels": torch_mod.tensor([1, 2, 3]),
        "name": "x",
    }
    return img, target


# ------------------------------------------------------------------ tv_tensors


def test_tv_tensor_types_and_repr(ttv):
    for mod, lib in ((ctv, chainrule), (ttv, torch)):
        i = mod.Image(lib.zeros(2, 3))
        assert tuple(i.shape) == (1, 2, 3)
        assert type(i + 1).__name__ == "Tensor" and type(i.flip(-1)).__name__ == "Tensor"
        assert type(i.clone()).__name__ == "Image" and type(i.to(lib.float64)).__name__ == "Image"
        assert type(i.float()).__name__ == "Tensor" and type(i.detach()).__name__ == "Image"
        with mod.set_return_type("TVTensor"):
            assert type(i + 1).__name__ == "Image"
        assert type(i + 1).__name__ == "Tensor"
    i_c, i_t = (
        ctv.Image(chainrule.tensor(F32[:1, :2, :2])),
        ttv.Image(torch.tensor(F32[:1, :2, :2])),
    )
    assert repr(i_c) == repr(i_t)
    assert repr(ctv.Mask(chainrule.tensor(MASK[:2, :3]))) == repr(
        ttv.Mask(torch.tensor(MASK[:2, :3]))
    )
    b_c = ctv.BoundingBoxes(chainrule.tensor(BOXES), format="XYXY", canvas_size=(12, 15))
    b_t = ttv.BoundingBoxes(torch.tensor(BOXES), format="XYXY", canvas_size=(12, 15))
    assert repr(b_c) == repr(b_t)
    assert (
        tuple(b_c.clone().canvas_size) == (12, 15)
        and b_c.clone().format == ctv.BoundingBoxFormat.XYXY
    )
    wrapped = ctv.wrap(chainrule.zeros(1, 4), like=b_c, canvas_size=(3, 3))
    assert isinstance(wrapped, ctv.BoundingBoxes) and wrapped.canvas_size == (3, 3)
    assert (
        tuple(ctv.Image(PIL_RGB).shape) == (3, 12, 15)
        and ctv.Image(PIL_RGB).dtype == chainrule.uint8
    )
    with pytest.raises(ValueError, match="Tensor must be 2D or higher"):
        ctv.Image(chainrule.zeros(3))


# ------------------------------------------------------------------ functionals

IMAGE_CASES = [
    ("resize", ([7, 19],), {}),
    ("resize", ([5],), {"interpolation": "bicubic"}),
    ("resize", (None,), {"max_size": 9}),
    ("resize", ([6, 9],), {"interpolation": "nearest"}),
    ("crop", (-1, 2, 8, 20), {}),
    ("center_crop", ([14, 5],), {}),
    ("resized_crop", (1, 2, 6, 7, [9, 9]), {}),
    ("pad", ([1, 2, 3, 4],), {"fill": 3, "padding_mode": "constant"}),
    ("pad", ([1, 2],), {"padding_mode": "reflect"}),
    ("pad", ([2],), {"fill": [1, 2, 3]}),
    ("horizontal_flip", (), {}),
    ("vertical_flip", (), {}),
    ("rotate", (30.0,), {"interpolation": "bilinear", "expand": True, "fill": [1.0, 2.0, 3.0]}),
    ("affine", (15.0, [2, -1], 1.2, [10.0, 5.0]), {"interpolation": "bilinear", "fill": 7}),
    (
        "perspective",
        ([[0, 0], [14, 0], [14, 11], [0, 11]], [[1, 2], [13, 0], [12, 10], [2, 11]]),
        {"fill": 2},
    ),
    ("gaussian_blur", ([3, 5], [0.8, 1.4]), {}),
    ("adjust_brightness", (1.3,), {}),
    ("adjust_contrast", (0.6,), {}),
    ("adjust_saturation", (1.7,), {}),
    ("adjust_hue", (0.2,), {}),
    ("adjust_gamma", (0.7, 1.1), {}),
    ("adjust_sharpness", (2.5,), {}),
    ("invert", (), {}),
    ("autocontrast", (), {}),
    ("equalize", (), {}),
    ("posterize", (3,), {}),
    ("solarize", (0.5,), {}),
    ("rgb_to_grayscale", (3,), {}),
    ("permute_channels", ([2, 0, 1],), {}),
    ("five_crop", (5,), {}),
    ("ten_crop", ([4, 6],), {"vertical_flip": True}),
]


@pytest.mark.parametrize(
    "name,args,kwargs", IMAGE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(IMAGE_CASES)]
)
@pytest.mark.parametrize("kind", ["u8", "f32", "image", "batch5"])
def test_functional_images(name, args, kwargs, kind, tF, ttv):
    arr = {"u8": U8, "f32": F32, "image": U8, "batch5": BATCH5_U8}[kind]
    if name == "solarize" and arr.dtype == np.uint8:
        args = (128,)
    c, t = chainrule.tensor(arr.copy()), torch.tensor(arr.copy())
    if kind == "image":
        c, t = ctv.Image(c), ttv.Image(t)
    if kind == "batch5" and name in ("five_crop", "ten_crop", "equalize"):
        c, t = c[0], t[0]
    out_c, out_t = getattr(cF, name)(c, *args, **kwargs), getattr(tF, name)(t, *args, **kwargs)
    if arr.dtype == np.uint8:
        # torch resizes uint8 in fixed point (bilinear, on the CPU): off by one more often
        same(out_c, out_t, atol=1, max_mismatch=0.35 if "resize" in name else 0.03)
    else:
        same(out_c, out_t, atol=1e-5)


@pytest.mark.parametrize("name,args,kwargs", IMAGE_CASES[:15], ids=[c[0] for c in IMAGE_CASES[:15]])
def test_functional_pil_and_mask(name, args, kwargs, tF, ttv):
    if name not in ("pad",) or kwargs.get("fill") != [1, 2, 3]:
        same(
            getattr(cF, name)(PIL_RGB, *args, **kwargs), getattr(tF, name)(PIL_RGB, *args, **kwargs)
        )
    kwargs = {k: v for k, v in kwargs.items() if k not in ("interpolation", "fill")}
    c, t = ctv.Mask(chainrule.tensor(MASK)), ttv.Mask(torch.tensor(MASK))
    same(getattr(cF, name)(c, *args, **kwargs), getattr(tF, name)(t, *args, **kwargs))


@pytest.mark.parametrize(
    "name,args",
    [
        ("horizontal_flip", ()),
        ("vertical_flip", ()),
        ("crop", (2, 3, 8, 9)),
        ("center_crop", ([8, 20],)),
        ("resize", ([24, 10],)),
        ("resize", ([6],)),
        ("pad", ([1, 2, 3, 4],)),
        ("resized_crop", (1, 2, 6, 7, [9, 9])),
        ("rotate", (30.0,)),
        ("rotate", (-70.0, "nearest", True)),
        ("rotate", (20.0, "nearest", False, [3, 4])),
        ("affine", (15.0, [2, -1], 1.2, [10.0, 5.0])),
        ("affine", (-5.0, [0, 3], 0.8, 4.0, "nearest", None, [2, 2])),
        (
            "perspective",
            ([[0, 0], [14, 0], [14, 11], [0, 11]], [[1, 2], [13, 0], [12, 10], [2, 11]]),
        ),
    ],
)
@pytest.mark.parametrize("fmt", ["XYXY", "XYWH", "CXCYWH"])
def test_functional_boxes(name, args, fmt, tF, ttv):
    t = tF.convert_bounding_box_format(
        ttv.BoundingBoxes(torch.tensor(BOXES), format="XYXY", canvas_size=(12, 15)), new_format=fmt
    )
    c = ctv.BoundingBoxes(chainrule.tensor(t.numpy()), format=fmt, canvas_size=(12, 15))
    same(getattr(cF, name)(c, *args), getattr(tF, name)(t, *args), atol=1e-5)


def test_box_format_and_clamp(tF, ttv):
    t = ttv.BoundingBoxes(torch.tensor(BOXES * 2 - 3), format="XYXY", canvas_size=(12, 15))
    c = ctv.BoundingBoxes(chainrule.tensor(BOXES * 2 - 3), format="XYXY", canvas_size=(12, 15))
    for fmt in ("XYWH", "CXCYWH"):
        same(
            cF.convert_bounding_box_format(c, new_format=fmt),
            tF.convert_bounding_box_format(t, new_format=fmt),
        )
        plain = cF.convert_bounding_box_format(
            chainrule.tensor(BOXES), old_format="XYXY", new_format=fmt
        )
        expected = tF.convert_bounding_box_format(
            torch.tensor(BOXES), old_format="XYXY", new_format=fmt
        )
        same(plain, expected)
    same(cF.clamp_bounding_boxes(c), tF.clamp_bounding_boxes(t))
    with pytest.raises(ValueError, match="`old_format` has to be passed"):
        cF.convert_bounding_box_format(chainrule.tensor(BOXES), new_format="XYWH")


def test_functional_conversions_and_errors(tF, ttv):
    same(cF.to_image(PIL_RGB), tF.to_image(PIL_RGB))
    arr = np.transpose(U8, (1, 2, 0)).copy()
    same(cF.to_image(arr), tF.to_image(arr))
    c, t = chainrule.tensor(U8), torch.tensor(U8)
    for dtype, scale in (("float32", True), ("float32", False), ("int16", True), ("uint8", True)):
        same(
            cF.to_dtype(c, getattr(chainrule, dtype), scale),
            tF.to_dtype(t, getattr(torch, dtype), scale),
        )
    same(
        cF.to_dtype(ctv.Image(chainrule.tensor(F32)), chainrule.uint8, True),
        tF.to_dtype(ttv.Image(torch.tensor(F32)), torch.uint8, True),
    )
    m_c, m_t = ctv.Mask(chainrule.tensor(MASK)), ttv.Mask(torch.tensor(MASK))
    same(cF.to_dtype(m_c, chainrule.uint8, scale=True), tF.to_dtype(m_t, torch.uint8, scale=True))
    same(cF.get_size(m_c), tF.get_size(m_t))
    assert cF.get_dimensions(PIL_RGB) == tF.get_dimensions(PIL_RGB)
    assert cF.get_size(c) == tF.get_size(t)
    same(
        cF.normalize(chainrule.tensor(F32), [0.4, 0.5, 0.6], [0.2, 0.3, 0.4]),
        tF.normalize(torch.tensor(F32), [0.4, 0.5, 0.6], [0.2, 0.3, 0.4]),
        atol=1e-6,
    )
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        cF.to_dtype(chainrule.tensor(F32), chainrule.int32, scale=True)
    with pytest.raises(TypeError, match=r"Functional F.resize supports inputs of type"):
        cF.resize("image", [3])
    with pytest.raises(TypeError, match=r"Functional F.five_crop supports inputs of type"):
        cF.five_crop(
            ctv.BoundingBoxes(chainrule.tensor(BOXES), format="XYXY", canvas_size=(12, 15)), 5
        )
    with pytest.raises(ValueError, match="Invalid interpolation mode: 'cubic'"):
        cF.resize(c, [3], interpolation="cubic")
    with pytest.raises(
        TypeError, match="Threshold should be less or equal the maximum value of the dtype"
    ):
        cF.solarize(chainrule.tensor(F32), 2.0)


def test_register_kernel():
    class MyTensor(ctv.TVTensor):
        pass

    @cF.register_kernel(cF.horizontal_flip, MyTensor)
    def flip_my(inpt):
        return "flipped"

    assert cF.horizontal_flip(chainrule.zeros(1, 2, 2).as_subclass(MyTensor)) == "flipped"
    with pytest.raises(ValueError, match="already has a kernel registered"):
        cF.register_kernel(cF.horizontal_flip, MyTensor)(flip_my)


# ------------------------------------------------------------------ transform classes


def _all_transforms(T, lib, tvt):
    return [
        T.ToImage(),
        T.ToDtype(lib.float32, scale=True),
        T.ToDtype({tvt.Image: lib.float32, "others": None}),
        T.ToPureTensor(),
        T.PILToTensor(),
        T.ToPILImage(),
        T.ConvertImageDtype(lib.float),
        T.Normalize((0.5,), (0.5,)),
        T.Resize(32),
        T.Resize((3, 4), antialias=False, interpolation=T.InterpolationMode.NEAREST),
        T.Resize(None, max_size=20, interpolation=2),
        T.CenterCrop(3),
        T.Pad(2),
        T.Pad([1, 2], fill={tvt.Image: 3, "others": 0}, padding_mode="constant"),
        T.Lambda(lambda x: x, int, float),
        T.RandomApply([T.CenterCrop(3), T.Pad(1)], p=0.3),
        T.RandomChoice([T.CenterCrop(3), T.Pad(1)], p=[1, 3]),
        T.RandomOrder([T.CenterCrop(3)]),
        T.RandomCrop(3, padding=1),
        T.RandomCrop([3, 5], padding=[1, 2], pad_if_needed=True, fill=2, padding_mode="edge"),
        T.RandomHorizontalFlip(),
        T.RandomVerticalFlip(0.2),
        T.RandomResizedCrop(5),
        T.FiveCrop(3),
        T.TenCrop((3, 4), vertical_flip=True),
        T.ColorJitter(0.1, 0.2, 0.3, 0.1),
        T.ColorJitter(),
        T.RandomRotation(10),
        T.RandomRotation((-5, 15), expand=True, center=[1, 2], fill=3, interpolation="bilinear"),
        T.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5),
        T.RandomAffine(
            0, shear=(1, 2, 3, 4), interpolation=T.InterpolationMode.BILINEAR, fill=1, center=[0, 1]
        ),
        T.Grayscale(),
        T.RandomGrayscale(),
        T.RGB(),
        T.RandomPerspective(),
        T.RandomErasing(),
        T.RandomErasing(p=1.0, value="random", inplace=True),
        T.GaussianBlur(3),
        T.GaussianBlur((3, 5), sigma=1.5),
        T.GaussianNoise(),
        T.RandomInvert(),
        T.RandomPosterize(2),
        T.RandomSolarize(100, p=0.1),
        T.RandomAdjustSharpness(2),
        T.RandomAutocontrast(),
        T.RandomEqualize(),
        T.ElasticTransform(),
        T.ElasticTransform(alpha=(10.0, 20.0), sigma=3.0, fill=(1, 2, 3)),
        T.AutoAugment(),
        T.AutoAugment(T.AutoAugmentPolicy.SVHN, fill=[1.0]),
        T.RandAugment(),
        T.TrivialAugmentWide(num_magnitude_bins=11),
        T.AugMix(),
        T.Identity(),
        T.RandomChannelPermutation(),
        T.RandomPhotometricDistort(),
        T.RandomZoomOut(),
        T.ScaleJitter((10, 10)),
        T.RandomShortestSize([10, 12], max_size=30),
        T.RandomResize(5, 10),
        T.LinearTransformation(lib.eye(2), lib.zeros(2)),
        T.SanitizeBoundingBoxes(),
        T.ClampBoundingBoxes(),
        T.ConvertBoundingBoxFormat("XYWH"),
        T.UniformTemporalSubsample(3),
        T.CutMix(num_classes=3),
        T.MixUp(alpha=0.5, num_classes=4),
    ]


def test_compose_repr(tT, ttv):
    assert repr(cT.Compose(_all_transforms(cT, chainrule, ctv))) == repr(
        tT.Compose(_all_transforms(tT, torch, ttv))
    )
    for ours, theirs in zip(_all_transforms(cT, chainrule, ctv), _all_transforms(tT, torch, ttv)):
        assert repr(ours) == repr(theirs)
    with pytest.raises(ValueError, match="Pass at least one transform"):
        cT.Compose([])


DETERMINISTIC = [
    ("Resize", lambda T: T.Resize([7, 9])),
    ("Resize1", lambda T: T.Resize(8, interpolation=T.InterpolationMode.NEAREST_EXACT)),
    ("CenterCrop", lambda T: T.CenterCrop([9, 20])),
    ("Pad", lambda T: T.Pad([1, 2, 3, 4], fill=5)),
    ("FiveCrop", lambda T: T.FiveCrop(5)),
    ("Grayscale", lambda T: T.Grayscale(3)),
    ("HFlip", lambda T: T.RandomHorizontalFlip(p=1.0)),
    ("VFlip", lambda T: T.RandomVerticalFlip(p=1.0)),
    ("Invert", lambda T: T.RandomInvert(p=1.0)),
    ("Equalize", lambda T: T.RandomEqualize(p=1.0)),
    ("Jitter", lambda T: T.ColorJitter(brightness=(1.3, 1.3))),
    ("Blur", lambda T: T.GaussianBlur(3, sigma=(0.7, 0.7))),
    ("Rotate0", lambda T: T.RandomRotation((33, 33), interpolation=T.InterpolationMode.BILINEAR)),
    (
        "Affine0",
        lambda T: T.RandomAffine((20, 20), interpolation=T.InterpolationMode.BILINEAR, fill=4),
    ),
    (
        "Compose",
        lambda T: T.Compose([T.Resize(10), T.CenterCrop(8), T.RandomHorizontalFlip(p=1.0)]),
    ),
]


@pytest.mark.parametrize("name,make", DETERMINISTIC, ids=[d[0] for d in DETERMINISTIC])
def test_transforms_on_samples(name, make, tT, ttv):
    """Images, masks and boxes of a sample transformed together; labels pass through."""
    if name == "FiveCrop":
        with pytest.raises(
            TypeError, match="BoundingBoxes'es and Mask's are not supported by FiveCrop()"
        ):
            make(cT)(sample(ctv, chainrule))
        same(make(cT)(chainrule.tensor(U8)), make(tT)(torch.tensor(U8)))
        return
    out_c, out_t = make(cT)(sample(ctv, chainrule)), make(tT)(sample(ttv, torch))
    same(out_c, out_t, atol=1, max_mismatch=0)
    same(make(cT)(PIL_RGB), make(tT)(PIL_RGB), atol=1)


def test_first_pure_tensor_heuristic(tT):
    a, b = RNG.rand(3, 5, 6).astype(np.float32), RNG.rand(3, 5, 6).astype(np.float32)
    out_c = cT.RandomHorizontalFlip(p=1.0)(chainrule.tensor(a), chainrule.tensor(b))
    out_t = tT.RandomHorizontalFlip(p=1.0)(torch.tensor(a), torch.tensor(b))
    same(out_c, out_t)
    # with an Image in the sample, plain tensors pass through
    out_c = cT.RandomHorizontalFlip(p=1.0)(
        {"img": ctv.Image(chainrule.tensor(a)), "t": chainrule.tensor(b)}
    )
    assert np.array_equal(out_c["t"].numpy(), b) and np.array_equal(
        out_c["img"].numpy(), a[..., ::-1]
    )


def test_to_image_to_dtype_pipeline(tT, ttv):
    pipe_c = cT.Compose(
        [
            cT.ToImage(),
            cT.ToDtype(chainrule.float32, scale=True),
            cT.Normalize([0.5] * 3, [0.25] * 3),
        ]
    )
    pipe_t = tT.Compose(
        [tT.ToImage(), tT.ToDtype(torch.float32, scale=True), tT.Normalize([0.5] * 3, [0.25] * 3)]
    )
    same(pipe_c(PIL_RGB), pipe_t(PIL_RGB), atol=1e-6)
    to_dtype_c = cT.ToDtype(
        {ctv.Image: chainrule.float32, ctv.Mask: chainrule.uint8, "others": None}, scale=True
    )
    to_dtype_t = tT.ToDtype(
        {ttv.Image: torch.float32, ttv.Mask: torch.uint8, "others": None}, scale=True
    )
    same(to_dtype_c(sample(ctv, chainrule)), to_dtype_t(sample(ttv, torch)), atol=1e-6)
    pure = cT.ToPureTensor()(sample(ctv, chainrule))
    assert type(pure[0]) is chainrule.Tensor and type(pure[1]["masks"]) is chainrule.Tensor
    assert isinstance(cT.ToPILImage()(ctv.Image(chainrule.tensor(U8))), PILImage.Image)
    same(cT.PILToTensor()(PIL_RGB), tT.PILToTensor()(PIL_RGB))


def test_random_transforms_keep_sample_consistent():
    """One draw of parameters per call: image and mask move together."""
    img = ctv.Image(chainrule.tensor(np.stack([MASK] * 3).astype(np.float32)))
    mask = ctv.Mask(chainrule.tensor(MASK.astype(np.float32)))
    for t in (
        cT.RandomCrop(7, padding=2),
        cT.RandomResizedCrop(6, interpolation=cT.InterpolationMode.NEAREST),
        cT.RandomHorizontalFlip(),
        cT.RandomRotation(45),
        cT.RandomAffine(30, translate=(0.2, 0.2)),
        cT.RandomZoomOut(p=1.0),
        cT.RandomShortestSize([6, 8], interpolation=cT.InterpolationMode.NEAREST),
        cT.RandomPerspective(p=1.0, interpolation=cT.InterpolationMode.NEAREST),
        cT.ElasticTransform(sigma=1.0, interpolation=cT.InterpolationMode.NEAREST),
    ):
        out_img, out_mask = t(img, mask)
        assert type(out_img) is ctv.Image and type(out_mask) is ctv.Mask
        assert np.array_equal(out_img.numpy()[0], out_mask.numpy()), type(t).__name__


def test_random_transforms_properties():
    c = chainrule.tensor(U8)
    assert cT.RandomHorizontalFlip(p=0.0)(c) is c
    assert cT.RandomApply([cT.RandomHorizontalFlip(p=1.0)], p=0.0)(c) is c
    assert tuple(cT.RandomCrop(20, pad_if_needed=True)(c).shape) == (3, 20, 20)
    assert tuple(cT.RandomResizedCrop([5, 6])(c).shape) == (3, 5, 6)
    assert tuple(cT.RandomResize(5, 6)(c).shape)[-2] == 5
    assert cT.RandomChoice([lambda x: 1, lambda x: 2], p=[0.0, 1.0])(c) == 2
    assert min(cT.ScaleJitter((20, 20), scale_range=(1.0, 1.0))(c).shape[-2:]) == 16
    out = cT.RandomErasing(p=1.0, value=7)(chainrule.tensor(F32))
    assert (out.numpy() == 7).any()
    noisy = cT.GaussianNoise(sigma=0.05)(chainrule.tensor(F32))
    assert (
        0.0 <= float(noisy.min())
        and float(noisy.max()) <= 1.0
        and 0.02 < float((noisy - chainrule.tensor(F32)).std()) < 0.08
    )
    perm = cT.RandomChannelPermutation()(c)
    assert sorted(perm.numpy().sum(axis=(1, 2)).tolist()) == sorted(
        U8.astype(np.int64).sum(axis=(1, 2)).tolist()
    )
    for t in (
        cT.AutoAugment(),
        cT.RandAugment(),
        cT.TrivialAugmentWide(),
        cT.AugMix(),
        cT.RandomPhotometricDistort(p=1.0),
    ):
        img, target = t(sample(ctv, chainrule))
        assert (
            type(img) is ctv.Image and tuple(img.shape) == U8.shape and img.dtype == chainrule.uint8
        )
        assert np.array_equal(target["masks"].numpy(), MASK)
    with pytest.raises(TypeError, match="does not support PIL images"):
        cT.Normalize([0.5], [0.5])(PIL_RGB)
    with pytest.raises(ValueError, match="`p` should be a floating point value"):
        cT.RandomHorizontalFlip(p=2.0)


def test_gradient_through_v2(tT):
    x_c = chainrule.tensor(F32, requires_grad=True)
    x_t = torch.tensor(F32, requires_grad=True)
    cT.Compose([cT.Resize([6, 7]), cT.Normalize([0.5] * 3, [0.2] * 3)])(x_c).pow(2).sum().backward()
    tT.Compose([tT.Resize([6, 7]), tT.Normalize([0.5] * 3, [0.2] * 3)])(x_t).pow(2).sum().backward()
    np.testing.assert_allclose(x_c.grad.numpy(), x_t.grad.numpy(), atol=1e-4, rtol=1e-5)


def test_box_transforms_and_sanitize(tT, tF, ttv):
    boxes = np.array(
        [[0, 0, 5, 5], [1, 1, 1.5, 8], [2, 2, 4, 4], [-1, 3, 5, 6], [3, 3, 9, 11]], np.float32
    )
    masks = RNG.randint(0, 2, size=(5, 10, 10)).astype(np.uint8)

    def make(mod, lib):
        return {
            "boxes": mod.BoundingBoxes(lib.tensor(boxes), format="XYXY", canvas_size=(10, 10)),
            "masks": mod.Mask(lib.tensor(masks)),
            "labels": lib.tensor([1, 2, 3, 4, 5]),
            "img": mod.Image(lib.zeros(3, 10, 10)),
        }

    same(
        cT.SanitizeBoundingBoxes()(make(ctv, chainrule)),
        tT.SanitizeBoundingBoxes()(make(ttv, torch)),
    )
    same(
        cT.SanitizeBoundingBoxes(min_size=2, min_area=5)(make(ctv, chainrule)),
        tT.SanitizeBoundingBoxes(min_size=2, min_area=5)(make(ttv, torch)),
    )
    same(cT.ClampBoundingBoxes()(make(ctv, chainrule)), tT.ClampBoundingBoxes()(make(ttv, torch)))
    same(
        cT.ConvertBoundingBoxFormat("CXCYWH")(make(ctv, chainrule)),
        tT.ConvertBoundingBoxFormat("CXCYWH")(make(ttv, torch)),
    )
    with pytest.raises(ValueError, match="When using the default labels_getter"):
        cT.SanitizeBoundingBoxes()(make(ctv, chainrule)["boxes"])
    video = RNG.rand(2, 10, 3, 4, 4).astype(np.float32)
    same(
        cF.uniform_temporal_subsample(chainrule.tensor(video), 4),
        tF.uniform_temporal_subsample(torch.tensor(video), 4),
    )
    same(
        cT.UniformTemporalSubsample(3)(ctv.Video(chainrule.tensor(video))),
        tT.UniformTemporalSubsample(3)(ttv.Video(torch.tensor(video))),
    )


def test_mixup_cutmix():
    images = RNG.rand(4, 3, 8, 8).astype(np.float32)
    labels = chainrule.tensor([0, 2, 1, 2])
    for cls in (cT.MixUp, cT.CutMix):
        out, mixed = cls(num_classes=3)(chainrule.tensor(images), labels)
        assert tuple(out.shape) == images.shape and tuple(mixed.shape) == (4, 3)
        np.testing.assert_allclose(mixed.sum(-1).numpy(), 1.0, rtol=1e-6)
        lam = float(mixed[0, 0])  # image 0 has class 0, the image rolled into it class 2
        rolled = np.roll(images, 1, axis=0)
        if cls is cT.MixUp:
            np.testing.assert_allclose(
                out.numpy(), lam * images + (1 - lam) * rolled, rtol=1e-5, atol=1e-6
            )
        else:
            from_self = np.isclose(out.numpy(), images).all(axis=1).mean(axis=(1, 2))
            np.testing.assert_allclose(from_self, lam, atol=1e-6)
        img_out, _ = cls(num_classes=3)(ctv.Image(chainrule.tensor(images)), labels)
        assert type(img_out) is ctv.Image
    with pytest.raises(ValueError, match="Expected a batched input with 4 dims"):
        cT.MixUp(num_classes=3)(chainrule.tensor(images[0]), labels)
    with pytest.raises(ValueError, match="does not support PIL images, bounding boxes and masks"):
        cT.CutMix(num_classes=3)(PIL_RGB, labels)


def test_signatures_match(tT, tF, ttv, tv):
    """Every public class and functional that exists on both sides takes the same
    parameters with the same defaults."""
    import enum
    import inspect

    import chainrule.vision.transforms as c1
    import chainrule.vision.transforms.functional as cf1
    from chainrule.vision.transforms import _presets as cp

    t1 = importlib.import_module("torchvision.transforms")
    tf1 = importlib.import_module("torchvision.transforms.functional")
    tp = importlib.import_module("torchvision.transforms._presets")

    def norm(v):
        if isinstance(v, enum.Enum):
            return f"{type(v).__name__}.{v.name}"
        return repr(v).replace("torch.", "").replace("chainrule.", "")

    def sig(f):
        f = f.__init__ if isinstance(f, type) else f
        return [(p.name, p.kind, norm(p.default)) for p in inspect.signature(f).parameters.values()]

    checked = 0
    for theirs, ours in ((t1, c1), (tf1, cf1), (tp, cp), (tT, cT), (tF, cF)):
        for name in dir(theirs):
            t, c = getattr(theirs, name), getattr(ours, name, None)
            if (
                name.startswith("_")
                or c is None
                or not callable(t)
                or (isinstance(t, type) and issubclass(t, enum.Enum))
            ):
                continue
            if name in ("Tensor", "Image", "adjust_gamma_image"):
                # Tensor/Image: the names the modules import; adjust_gamma_image: gain=1 here,
                # 1.0 there, the same value
                continue
            assert sig(c) == sig(t), name
            checked += 1
    assert checked > 250
