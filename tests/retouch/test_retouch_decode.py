"""Decoding: formats, orientation, colour management and refusals (no segmentation model needed)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from retouch_images import linear_srgb_icc, png_bomb, tiny_dng

from retouch import BadImageError
from retouch.decode import decode_image


def _save(im: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def test_exif_orientation_is_applied():
    # 60x40 image, red block in the top-left corner; EXIF orientation 6 = rotate 90° clockwise to view
    arr = np.full((40, 60, 3), 240, np.uint8)
    arr[:10, :10] = (255, 0, 0)
    im = Image.fromarray(arr)
    exif = im.getexif()
    exif[0x0112] = 6
    dec = decode_image(_save(im, "JPEG", quality=95, exif=exif.tobytes()))
    assert (dec.width, dec.height) == (40, 60)
    # after a 90° clockwise turn the top-left block is in the top-right corner
    assert dec.rgb[3, -4, 0] > 200 and dec.rgb[3, -4, 1] < 60
    assert dec.rgb[3, 3, 0] > 200 and dec.rgb[3, 3, 1] > 200  # grey there


def test_icc_profile_is_converted_to_srgb():
    icc = linear_srgb_icc()
    im = Image.new("RGB", (16, 16), (128, 128, 128))
    dec = decode_image(_save(im, "PNG", icc_profile=icc))
    assert dec.icc_converted
    # linear 0.5 is sRGB ~188
    assert 180 <= int(dec.rgb[0, 0, 0]) <= 195, dec.rgb[0, 0]


def test_srgb_profile_is_left_alone():
    from retouch.decode import srgb_icc_bytes

    im = Image.new("RGB", (8, 8), (10, 120, 230))
    dec = decode_image(_save(im, "JPEG", quality=100, icc_profile=srgb_icc_bytes()))
    assert not dec.icc_converted
    assert np.abs(dec.rgb[4, 4].astype(int) - (10, 120, 230)).max() <= 3


def test_cmyk_jpeg_becomes_rgb():
    im = Image.new("CMYK", (32, 32), (0, 255, 255, 0))  # no cyan, full magenta + yellow = red
    dec = decode_image(_save(im, "JPEG", quality=95))
    assert dec.mode == "CMYK" and dec.rgb.shape == (32, 32, 3)
    r, g, b = (int(v) for v in dec.rgb[16, 16])
    assert r > 200 and g < 60 and b < 60


def test_16bit_tiff_rgb_and_grey():
    import tifffile

    ramp = np.linspace(0, 65535, 64, dtype=np.uint16)
    rgb16 = np.dstack([np.tile(ramp, (8, 1))] * 3)
    buf = io.BytesIO()
    tifffile.imwrite(buf, rgb16, photometric="rgb")
    dec = decode_image(buf.getvalue())
    assert dec.rgb.dtype == np.uint8 and dec.rgb.shape == (8, 64, 3)
    assert abs(int(dec.rgb[0, -1, 0]) - 255) <= 1 and int(dec.rgb[0, 0, 0]) <= 1
    assert abs(int(dec.rgb[0, 32, 0]) - (int(ramp[32]) >> 8)) <= 1

    grey = np.tile(ramp, (8, 1))
    dec = decode_image(_save(Image.fromarray(grey), "PNG"))  # 16-bit greyscale PNG (mode I;16)
    assert dec.rgb.shape == (8, 64, 3) and abs(int(dec.rgb[0, -1, 1]) - 255) <= 1


def test_transparent_png_keeps_alpha():
    rgba = np.zeros((40, 40, 4), np.uint8)
    rgba[..., :3] = (30, 200, 30)
    rgba[10:30, 10:30, 3] = 255
    dec = decode_image(_save(Image.fromarray(rgba, "RGBA"), "PNG"))
    assert dec.alpha is not None and dec.alpha[20, 20] == 255 and dec.alpha[0, 0] == 0
    opaque = np.dstack([rgba[..., :3], np.full((40, 40), 255, np.uint8)])
    assert decode_image(_save(Image.fromarray(opaque, "RGBA"), "PNG")).alpha is None


def test_heic_made_with_pillow_heif():
    import pillow_heif

    pillow_heif.register_heif_opener()
    data = _save(Image.new("RGB", (64, 48), (200, 30, 40)), "HEIF", quality=90)
    dec = decode_image(data)
    assert dec.format == "HEIF" and (dec.width, dec.height) == (64, 48)
    assert np.abs(dec.rgb[20, 20].astype(int) - (200, 30, 40)).max() < 12


def test_raw_dng_written_in_the_test():
    dec = decode_image(tiny_dng())
    assert dec.format == "RAW" and dec.rgb.shape == (48, 64, 3)
    left, right = dec.rgb[24, 8].astype(int), dec.rgb[24, 56].astype(int)
    assert left[0] > right[0] and right[2] > left[2]


def test_webp_and_palette_png():
    dec = decode_image(_save(Image.new("RGB", (20, 10), (1, 2, 250)), "WEBP", quality=95))
    assert dec.rgb.shape == (10, 20, 3)
    dec = decode_image(_save(Image.new("RGB", (20, 10), (250, 2, 1)).convert("P"), "PNG"))
    assert dec.rgb[5, 5, 0] > 200


def test_decompression_bomb_is_refused():
    with pytest.raises(BadImageError, match="troppo grande"):
        decode_image(png_bomb())


def test_file_over_the_size_limit_is_refused():
    data = _save(Image.new("RGB", (64, 64), (9, 9, 9)), "PNG")
    with pytest.raises(BadImageError, match="File troppo grande"):
        decode_image(data, max_input_bytes=len(data) - 1)


@pytest.mark.parametrize(
    "data", [b"", b"not an image at all", b"\xff\xd8\xff\xe0" + b"\0" * 50, b"II*\x00garbage"]
)
def test_garbage_is_a_bad_image_with_italian_message(data: bytes):
    with pytest.raises(BadImageError) as err:
        decode_image(data)
    assert isinstance(err.value, ValueError)
    assert any(word in str(err.value) for word in ("Impossibile leggere", "vuoto"))
