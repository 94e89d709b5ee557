"""``retouch.encode``: the encoders write through an in-memory file (GIL released) and give Pillow's bytes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from retouch import encode


def _photo() -> np.ndarray:
    """A 300 x 200 px RGB gradient with a little noise (uint8), a stand-in for a retouched photo."""
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[:200, :300]
    base = np.stack([xx * 255 // 299, yy * 255 // 199, (xx + yy) * 255 // 498], axis=-1)
    return np.clip(base + rng.integers(-6, 7, base.shape), 0, 255).astype(np.uint8)


def _pillow_bytes(image: Image.Image, file_format: str, **params: object) -> bytes:
    buf = io.BytesIO()
    image.save(buf, file_format, **params)
    return buf.getvalue()


@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "bytesio-fallback"])
def test_encoders_give_the_same_bytes_as_pillow_into_bytesio(memfd: bool, monkeypatch) -> None:
    """The in-memory file (``memfd_create``, where Pillow's encoders release the GIL) changes no byte of the
    JPEG, the WebP or the PNG; nor does the ``io.BytesIO`` fallback used where ``memfd_create`` is missing."""
    if not memfd:
        monkeypatch.delattr(encode.os, "memfd_create", raising=False)
    elif not hasattr(encode.os, "memfd_create"):
        pytest.skip("no memfd_create on this OS")
    rgb = _photo()
    image = Image.fromarray(rgb, "RGB")
    icc = encode.srgb_icc_bytes()
    expected_jpeg = _pillow_bytes(
        image,
        "JPEG",
        quality=encode.JPEG_QUALITY,
        optimize=True,
        progressive=True,
        subsampling="4:2:0",
        icc_profile=icc,
    )
    assert encode.encode_jpeg(rgb) == expected_jpeg
    assert encode.encode_jpeg(image) == expected_jpeg
    expected_webp = _pillow_bytes(
        image, "WEBP", quality=encode.WEBP_QUALITY, method=encode.WEBP_METHOD, icc_profile=icc
    )
    assert encode.encode_webp(rgb) == expected_webp
    assert encode.encode_png(rgb) == _pillow_bytes(image, "PNG", compress_level=3)
    # and they decode to the photo (PNG exactly)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(encode.encode_png(rgb)))), rgb)
    assert Image.open(io.BytesIO(expected_jpeg)).size == (300, 200)
