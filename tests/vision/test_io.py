"""chainrule.vision.io: PNG decodes exactly what was stored (checked against Pillow's and
the raw pixels), JPEG round-trips closely, modes convert, files read and write bytes.
(torchvision's io kernels are compiled and do not load here.)"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import chainrule
from chainrule.vision import io as vio

RNG = np.random.default_rng(2)


def _png_bytes(array: np.ndarray, **kwargs) -> chainrule.Tensor:
    buffer = io.BytesIO()
    Image.fromarray(array, **kwargs).save(buffer, format="PNG")
    return chainrule.from_numpy(np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy())


@pytest.mark.parametrize("shape", [(7, 9), (7, 9, 3), (7, 9, 4)])
def test_decode_png_exact(shape):
    pixels = RNG.integers(0, 256, shape, dtype=np.uint8)
    out = vio.decode_png(_png_bytes(pixels))
    assert out.dtype == chainrule.uint8
    expected = pixels[None] if pixels.ndim == 2 else pixels.transpose(2, 0, 1)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(vio.decode_image(_png_bytes(pixels)).numpy(), expected)


def test_decode_png_modes_palette_and_16_bit():
    rgba = RNG.integers(0, 256, (5, 6, 4), dtype=np.uint8)
    data = _png_bytes(rgba)
    np.testing.assert_array_equal(
        vio.decode_png(data, mode=vio.ImageReadMode.RGB).numpy(), rgba[..., :3].transpose(2, 0, 1)
    )
    # colour to gray as libpng with torchvision's weights (0.2989, 0.587): 15-bit fixed point, truncated
    r, g, b = (rgba[..., i].astype(np.int64) for i in range(3))
    expected_gray = (9794 * r + 19234 * g + 3740 * b) >> 15
    np.testing.assert_array_equal(vio.decode_png(data, mode="gray").numpy()[0], expected_gray)
    np.testing.assert_array_equal(vio.decode_png(data, mode="GRAY_ALPHA").numpy()[1], rgba[..., 3])
    assert tuple(vio.decode_png(data, mode="GRAY_ALPHA").shape) == (2, 5, 6)
    assert (
        vio.ImageReadMode.RGBA is vio.ImageReadMode.RGB_ALPHA and vio.ImageReadMode.RGBA.value == 4
    )
    gray = RNG.integers(0, 256, (5, 6), dtype=np.uint8)
    np.testing.assert_array_equal(
        vio.decode_png(_png_bytes(gray), mode="RGB").numpy(), np.stack([gray] * 3)
    )
    # a palette image: UNCHANGED gives the indices (one channel), RGB the colours
    palette_image = Image.fromarray(RNG.integers(0, 256, (4, 4, 3), dtype=np.uint8)).quantize(8)
    buffer = io.BytesIO()
    palette_image.save(buffer, format="PNG")
    data = chainrule.from_numpy(np.frombuffer(buffer.getvalue(), np.uint8).copy())
    np.testing.assert_array_equal(vio.decode_png(data).numpy(), np.asarray(palette_image)[None])
    np.testing.assert_array_equal(
        vio.decode_png(data, mode="RGB").numpy(),
        np.asarray(palette_image.convert("RGB")).transpose(2, 0, 1),
    )
    # 16-bit gray stays 16-bit
    deep = RNG.integers(0, 65536, (3, 4), dtype=np.uint16)
    buffer = io.BytesIO()
    Image.fromarray(deep).save(buffer, format="PNG")
    out = vio.decode_png(chainrule.from_numpy(np.frombuffer(buffer.getvalue(), np.uint8).copy()))
    assert out.dtype == chainrule.uint16
    np.testing.assert_array_equal(out.numpy()[0], deep)
    with pytest.raises(RuntimeError, match="Content is not png"):
        vio.decode_png(chainrule.tensor([1, 2, 3], dtype=chainrule.uint8))


@pytest.mark.parametrize("channels", [1, 3])
def test_encode_write_read_png_round_trip(tmp_path, channels):
    pixels = chainrule.from_numpy(RNG.integers(0, 256, (channels, 8, 5), dtype=np.uint8))
    encoded = vio.encode_png(pixels, compression_level=9)
    assert encoded.dtype == chainrule.uint8 and encoded.dim() == 1
    assert bytes(encoded.numpy()[:8]) == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(vio.decode_png(encoded).numpy(), pixels.numpy())
    vio.write_png(pixels, str(tmp_path / "x.png"))
    np.testing.assert_array_equal(vio.read_image(str(tmp_path / "x.png")).numpy(), pixels.numpy())
    decoded_by_pil = np.asarray(Image.open(tmp_path / "x.png"))
    np.testing.assert_array_equal(
        decoded_by_pil.reshape(8, 5, channels).transpose(2, 0, 1), pixels.numpy()
    )
    with pytest.raises(RuntimeError, match="The number of channels should be 1 or 3, got: 2"):
        vio.encode_png(chainrule.zeros((2, 3, 3), dtype=chainrule.uint8))


def test_jpeg_round_trip_close(tmp_path):
    ramp = (
        np.linspace(0, 255, 16 * 16 * 3)
        .reshape(16, 16, 3)
        .astype(np.uint8)
        .transpose(2, 0, 1)
        .copy()
    )
    image = chainrule.from_numpy(ramp)
    encoded = vio.encode_jpeg(image, quality=95)
    assert bytes(encoded.numpy()[:2]) == b"\xff\xd8"
    decoded = vio.decode_jpeg(encoded)
    assert decoded.dtype == chainrule.uint8 and tuple(decoded.shape) == (3, 16, 16)
    assert np.abs(decoded.numpy().astype(int) - ramp).mean() < 3
    pil = np.asarray(Image.open(io.BytesIO(bytes(encoded.numpy())))).transpose(2, 0, 1)
    np.testing.assert_array_equal(decoded.numpy(), pil)
    # gray from a colour JPEG is the decoded luma (libjpeg's grayscale output)
    luma = Image.open(io.BytesIO(bytes(encoded.numpy())))
    luma.draft("L", luma.size)
    np.testing.assert_array_equal(
        vio.decode_jpeg(encoded, mode="GRAY").numpy()[0], np.asarray(luma)
    )
    assert len(vio.decode_jpeg([encoded, encoded])) == 2
    vio.write_jpeg(image, str(tmp_path / "x.jpg"))
    assert tuple(vio.read_image(str(tmp_path / "x.jpg")).shape) == (3, 16, 16)
    with pytest.raises(
        ValueError, match="Image quality should be a positive number between 1 and 100"
    ):
        vio.encode_jpeg(image, quality=0)


def test_read_write_file_and_gif(tmp_path):
    data = chainrule.tensor([0, 1, 255, 7], dtype=chainrule.uint8)
    vio.write_file(str(tmp_path / "raw.bin"), data)
    assert (tmp_path / "raw.bin").read_bytes() == bytes([0, 1, 255, 7])
    read = vio.read_file(str(tmp_path / "raw.bin"))
    assert read.dtype == chainrule.uint8 and read.tolist() == [0, 1, 255, 7]
    frames = [Image.fromarray(np.full((4, 5, 3), v, np.uint8)) for v in (0, 128, 255)]
    frames[0].save(tmp_path / "a.gif", save_all=True, append_images=frames[1:])
    out = vio.decode_image(vio.read_file(str(tmp_path / "a.gif")))
    assert tuple(out.shape) == (3, 3, 4, 5)
    np.testing.assert_array_equal(out.numpy()[:, 0, 0, 0], [0, 128, 255])


def test_webp_lossless_decodes_exactly_and_video_is_not_implemented():
    pixels = RNG.integers(0, 256, (6, 7, 4), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="WEBP", lossless=True, exact=True)
    data = chainrule.from_numpy(np.frombuffer(buffer.getvalue(), np.uint8).copy())
    np.testing.assert_array_equal(vio.decode_webp(data).numpy(), pixels.transpose(2, 0, 1))
    np.testing.assert_array_equal(
        vio.decode_image(data, mode="RGB").numpy(), pixels[..., :3].transpose(2, 0, 1)
    )
    with pytest.raises(NotImplementedError, match="read_video"):
        vio.read_video()  # the name itself raises
