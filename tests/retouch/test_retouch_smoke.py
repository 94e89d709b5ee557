"""End-to-end smoke test of the public API on a synthetic product photo."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image
from retouch_helpers import needs_model

from retouch import RetouchOptions, retouch


def synthetic_product(w: int = 480, h: int = 360) -> bytes:
    """A red ellipse on a light grey, slightly graded background, as JPEG bytes."""
    yy, xx = np.mgrid[0:h, 0:w]
    bg = 200 + 20 * (yy / h)
    img = np.dstack([bg, bg, bg - 5]).astype(np.float32)
    inside = ((xx - w / 2) / (w * 0.25)) ** 2 + ((yy - h / 2) / (h * 0.3)) ** 2 <= 1
    img[inside] = (200, 30, 40)
    buf = io.BytesIO()
    Image.fromarray(img.clip(0, 255).astype(np.uint8)).save(buf, "JPEG", quality=95)
    return buf.getvalue()


@needs_model
def test_retouch_white_background_smoke(save_failure):
    res = retouch(synthetic_product(1024, 768), RetouchOptions(preset="amazon"), cutout=True)
    out = np.asarray(Image.open(io.BytesIO(res.jpeg)).convert("RGB"))
    assert (res.width, res.height) == (2000, 2000) == out.shape[1::-1]
    corners = np.stack([out[:20, :20], out[:20, -20:], out[-20:, :20], out[-20:, -20:]])
    if corners.min() < 254:
        print("immagine:", save_failure("out.jpg", res.jpeg))
    assert corners.min() >= 254
    assert res.matte.shape == (768, 1024) and res.matte.dtype == np.uint8
    assert Image.open(io.BytesIO(res.webp)).format == "WEBP"
    assert Image.open(io.BytesIO(res.cutout_png())).mode == "RGBA"
