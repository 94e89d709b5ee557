"""The retouch pipeline: decode -> segment -> refine -> correct -> compose -> encode.

``retouch(data, options)`` is the one entry point the Temporal activity and the CLI call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from .decode import DEFAULT_MAX_INPUT_BYTES, decode_image
from .encode import encode_jpeg, encode_png, encode_webp
from .errors import BadImageError
from .layout import plan_placement, product_bbox, resample_region
from .presets import get_preset
from .segment import DEFAULT_MODEL, predict_mask

__all__ = ["RetouchOptions", "RetouchResult", "retouch", "SMART_BACKGROUND_CATEGORIES", "WORK_MAX_PIXELS"]

#: Smart background categories (SPEC.md §9).
SMART_BACKGROUND_CATEGORIES = (
    "minimal_studio",
    "home_lifestyle",
    "outdoor_natural",
    "professional_office",
    "seasonal_themed",
)

#: Working resolution cap for segmentation and matte refinement (pixels). The network sees 320x320
#: anyway; refinement at ~1.5 MP keeps edges sharp while staying far cheaper than full resolution.
WORK_MAX_PIXELS = 1_500_000


@dataclass(frozen=True)
class RetouchOptions:
    """What the seller asked for.

    Attributes:
        preset: output preset name (``amazon``, ``zalando``, ``etsy``, ``shopify``, ``original``).
        shadow: add a soft natural shadow under the product.
        background_category: ``None`` = pure white RGB 255,255,255; else one of
            :data:`SMART_BACKGROUND_CATEGORIES` (procedural smart background).
        brand: seller's brand hint (used in details and the SEO file name).
        category: seller's product-category hint (idem).
        short_id: short job/photo id appended to the SEO file name.
        max_input_bytes: larger uploads are refused with :class:`BadImageError`.
    """

    preset: str = "original"
    shadow: bool = True
    background_category: str | None = None
    brand: str | None = None
    category: str | None = None
    short_id: str | None = None
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES


@dataclass
class RetouchResult:
    """The processed photo.

    Attributes:
        jpeg: JPEG bytes of the result (sRGB, progressive).
        webp: WebP bytes of the same result.
        width, height: output size in px.
        details: JSON-serialisable ``processing_details`` (SPEC.md §3): seo_filename, brand, category,
            colors, compliance, byte counts, input size ...
        matte: uint8 (H, W) alpha matte at the *input* size (after EXIF rotation), 255 = product.
    """

    jpeg: bytes
    webp: bytes
    width: int
    height: int
    details: dict[str, Any]
    matte: np.ndarray
    _rgb: np.ndarray | None = field(default=None, repr=False)
    _cutout: bytes | None = field(default=None, repr=False)

    def cutout_png(self) -> bytes:
        """Transparent RGBA PNG of the product at the input size (alpha = :attr:`matte`), encoded lazily."""
        if self._cutout is None:
            if self._rgb is None:
                raise RuntimeError("cutout non disponibile")
            rgba = np.dstack([self._rgb, self.matte])
            self._cutout = encode_png(rgba)
        return self._cutout


def _working_size(w: int, h: int, max_pixels: int = WORK_MAX_PIXELS) -> tuple[int, int]:
    if w * h <= max_pixels:
        return w, h
    f = (max_pixels / (w * h)) ** 0.5
    return max(1, round(w * f)), max(1, round(h * f))


def _resize(arr: np.ndarray, size: tuple[int, int], resample: Image.Resampling) -> np.ndarray:
    mode = "L" if arr.ndim == 2 else "RGB"
    return np.asarray(Image.fromarray(arr, mode).resize(size, resample))


def retouch(
    data: bytes, options: RetouchOptions = RetouchOptions(), *, model_name: str = DEFAULT_MODEL
) -> RetouchResult:
    """Retouch one product photo.

    Args:
        data: the uploaded file's bytes (JPEG, PNG, WebP, TIFF, HEIC, camera RAW).
        options: :class:`RetouchOptions`.
        model_name: rembg segmentation model (file must be present under ``U2NET_HOME``).

    Returns:
        :class:`RetouchResult`.

    Raises:
        BadImageError: unreadable / unsupported / too large input.
        ValueError: unknown preset or background category.
    """
    preset = get_preset(options.preset)
    if (
        options.background_category is not None
        and options.background_category not in SMART_BACKGROUND_CATEGORIES
    ):
        raise ValueError(f"Categoria di sfondo sconosciuta: {options.background_category!r}")
    dec = decode_image(data, max_input_bytes=options.max_input_bytes)
    rgb = dec.rgb
    h, w = rgb.shape[:2]

    ww, wh = _working_size(w, h)
    small = rgb if (ww, wh) == (w, h) else _resize(rgb, (ww, wh), Image.Resampling.BILINEAR)
    if dec.alpha is not None:
        matte = dec.alpha
    else:
        mask = predict_mask(small, model_name)
        m8 = (mask * 255.0 + 0.5).astype(np.uint8)
        matte = m8 if (ww, wh) == (w, h) else _resize(m8, (w, h), Image.Resampling.BILINEAR)

    bbox = product_bbox(matte)
    if bbox is None:
        raise BadImageError("Nessun prodotto riconosciuto nell'immagine")
    placement = plan_placement(w, h, bbox, preset)
    fg = resample_region(rgb, placement, fill=255)
    a = resample_region(matte, placement, fill=0).astype(np.float32)[..., None] / 255.0
    out = (fg.astype(np.float32) * a + 255.0 * (1.0 - a) + 0.5).astype(np.uint8)

    jpeg = encode_jpeg(out)
    webp = encode_webp(out)
    details: dict[str, Any] = {
        "seo_filename": "foto-prodotto.jpg",
        "brand": options.brand,
        "category": options.category,
        "colors": [],
        "compliance": {},
        "bytes_in": len(data),
        "bytes_out_jpeg": len(jpeg),
        "bytes_out_webp": len(webp),
        "bytes_saved": len(data) - len(jpeg),
        "input_width": w,
        "input_height": h,
        "preset": preset.name,
    }
    return RetouchResult(
        jpeg=jpeg, webp=webp, width=out.shape[1], height=out.shape[0], details=details, matte=matte, _rgb=rgb
    )
