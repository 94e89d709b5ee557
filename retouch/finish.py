"""The full-resolution steps of :func:`retouch.pipeline.retouch` after the matte: the matte upsampled and its
edges tightened, the product's light and colour, the shadow and the background, the encoding, and the
details' pieces that need no pipeline state."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .backgrounds import render_background, surface_row
from .colors import seo_filename
from .composite import blend, local_background, lookup_grid, shadow_layer, tighten_edges
from .correct import apply_lut, remove_dust
from .encode import encode_jpeg, encode_webp
from .layout import Placement, product_bbox
from .matte import upsample_matte
from .metrics import corner_min

if TYPE_CHECKING:
    from .pipeline import RetouchOptions

__all__ = [
    "DUST_MAX_PIXELS",
    "ENCODE_CONCURRENT_MAX_PIXELS",
    "bleed_into_transparent",
    "byte_and_pixel_sizes",
    "compose",
    "correct_product",
    "encode_both",
    "full_res_matte",
    "jpeg_corner_min",
    "product_seo_filename",
]

#: Largest canvas (px) whose JPEG and WebP are encoded concurrently, each from its own Pillow copy
#: (4 bytes per pixel each); larger canvases share one copy and are encoded one after the other.
ENCODE_CONCURRENT_MAX_PIXELS = 4_000_000

#: Largest product region (output pixels) on which dust removal runs; ``specks_removed`` is -1 when skipped.
DUST_MAX_PIXELS = 4_000_000


def bleed_into_transparent(
    rgb: np.ndarray, matte: np.ndarray, small: np.ndarray, alpha_small: np.ndarray
) -> None:
    """Give fully transparent pixels next to the product the local product colour (in place).

    The colour stored under alpha 0 in a PNG is arbitrary (often black); resampling for a preset would
    blend it into the product's soft edge as a dark fringe.
    """
    band = (matte == 0) & ndi.binary_dilation(matte > 0, iterations=3)
    ys, xs = np.nonzero(band)
    if ys.size == 0:
        return
    h, w = matte.shape
    grid = local_background(small, alpha_small, foreground=True)
    identity = Placement(w, h, 1.0, (0.0, 0.0, float(w), float(h)), (0, 0, w, h), (0, 0, w, h))
    rgb[ys, xs] = np.clip(lookup_grid(grid, ys, xs, identity, (w, h)) + 0.5, 0, 255).astype(np.uint8)


def jpeg_corner_min(jpeg: bytes) -> int:
    """Min channel over the corners of the encoded JPEG, decoded at 1/8 scale (DCT scaling: cheap)."""
    im = Image.open(io.BytesIO(jpeg))
    im.draft("RGB", (max(1, im.width // 8), max(1, im.height // 8)))
    return corner_min(np.asarray(im.convert("RGB")), size=2)


def full_res_matte(
    rgb: np.ndarray,
    small: np.ndarray,
    alpha_small: np.ndarray,
    bg_est: np.ndarray,
    fg_est: np.ndarray,
    *,
    tighten: bool,
) -> np.ndarray:
    """The working matte (float32 (h, w) in [0, 1]) upsampled once to ``rgb``'s size, uint8 (H, W); with
    ``tighten`` its edge pixels that still show the old background get a lower alpha
    (:func:`retouch.composite.tighten_edges`, full resolution, band only; a fallback to plain rembg's mask
    is not tightened)."""
    h, w = rgb.shape[:2]
    wh, ww = small.shape[:2]
    matte = upsample_matte(alpha_small, (w, h))
    if not tighten:
        return matte
    a_full = np.divide(matte, np.float32(255.0), dtype=np.float32)  # astype, then / 255, in one pass
    identity = Placement(w, h, 1.0, (0.0, 0.0, float(w), float(h)), (0, 0, w, h), (0, 0, w, h))
    # the band is grown by 2 px only where the matte was upsampled less than 2x (it is narrow)
    tighten_edges(rgb, a_full, bg_est, fg_est, identity, (w, h), band_growth=w * h < 4 * ww * wh)
    a_full *= 255.0
    a_full += 0.5
    return a_full.astype(np.uint8)


def correct_product(fg: np.ndarray, alpha_out: np.ndarray, lut: np.ndarray) -> int:
    """Apply the light and colour ``lut`` to the product's box of ``fg`` (uint8 (H, W, 3), in place) and remove
    dust there; returns the specks removed (-1: a box over :data:`DUST_MAX_PIXELS`, not searched; 0: no
    product)."""
    on_box = product_bbox((alpha_out > 0).view(np.uint8), threshold=0)
    if on_box is None:
        return 0
    x0, y0, x1, y1 = on_box
    fg[y0:y1, x0:x1] = apply_lut(fg[y0:y1, x0:x1], lut)
    # dust: on regions up to 4 MP (larger ones: specks are sub-pixel at the working resolution anyway
    # and the filters would dominate the run time)
    if (y1 - y0) * (x1 - x0) > DUST_MAX_PIXELS:
        return -1
    return int(remove_dust(fg[y0:y1, x0:x1], alpha_out[y0:y1, x0:x1]))


def encode_both(out: np.ndarray) -> tuple[bytes, bytes]:
    """JPEG and WebP bytes of the uint8 (H, W, 3) output. Each Pillow RGB image holds 4 bytes per pixel: a large
    canvas is wrapped once and encoded twice in turn (an Image's encoder settings live on the object, so it
    cannot be saved by two threads at once); a small one is encoded as JPEG and WebP concurrently (Pillow
    releases the GIL while encoding)."""
    if out.shape[0] * out.shape[1] > ENCODE_CONCURRENT_MAX_PIXELS:
        out_image = Image.fromarray(out, "RGB")
        return encode_jpeg(out_image), encode_webp(out_image)
    with ThreadPoolExecutor(max_workers=2) as pool:
        f_webp = pool.submit(encode_webp, out)
        jpeg = encode_jpeg(out)
        return jpeg, f_webp.result()


def byte_and_pixel_sizes(
    data: bytes, jpeg: bytes, webp: bytes, size: tuple[int, int], out: np.ndarray
) -> dict[str, int]:
    """The details' byte counts and sizes of the input (``size`` = (width, height)) and of the output."""
    return {
        "bytes_in": len(data),
        "bytes_out_jpeg": len(jpeg),
        "bytes_out_webp": len(webp),
        "bytes_saved": len(data) - len(jpeg),
        "input_width": size[0],
        "input_height": size[1],
        "output_width": int(out.shape[1]),
        "output_height": int(out.shape[0]),
    }


def compose(
    fg: np.ndarray, alpha_out: np.ndarray, options: RetouchOptions
) -> tuple[np.ndarray, np.ndarray | None, int | None]:
    """Step 5: the framed product (uint8 (H, W, 3)) with its shadow on white or on a smart background:
    ``(out, shadow layer or None, the smart background's surface row or None)``."""
    shadow_scale = max(4, round(max(alpha_out.shape) / 500))  # shadow maths on a ~500 px grid
    shadow = shadow_layer(alpha_out, scale=shadow_scale) if options.shadow else None
    background = None
    floor_row: int | None = None
    category = options.background_category
    if category is not None:
        floor_row = surface_row(alpha_out)
        background = render_background(
            category, alpha_out.shape[1], alpha_out.shape[0], floor_row / alpha_out.shape[0]
        )
    return blend(fg, alpha_out, background, shadow, saturation=0.08), shadow, floor_row


def product_seo_filename(options: RetouchOptions, colours: list[dict[str, Any]]) -> str:
    """The SEO file name from the options' hints and the product's colours (:func:`retouch.colors.seo_filename`)."""
    main_colour = str(colours[0]["name"]) if colours else None
    return seo_filename(
        options.brand,
        options.category,
        main_colour,
        options.short_id,
        original_filename=options.original_filename,
        colours=[str(c["name"]) for c in colours],
    )
