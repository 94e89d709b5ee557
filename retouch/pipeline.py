"""The retouch pipeline: decode -> segment -> refine -> correct -> compose -> encode.

``retouch(data, options)`` is the one entry point the Temporal activity and the CLI call.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from . import cutout
from .colors import dominant_colours
from .compliance import compliance_report
from .composite import decontaminate, local_background
from .correct import estimate_correction
from .cutout import MatteObserver
from .decode import DEFAULT_MAX_INPUT_BYTES, Decoded, decode_image
from .encode import encode_png
from .errors import BadImageError
from .finish import (
    bleed_into_transparent,
    byte_and_pixel_sizes,
    compose,
    correct_product,
    encode_both,
    full_res_matte,
    jpeg_corner_min,
    product_seo_filename,
)
from .layout import Placement, plan_placement, product_bbox, resample_region
from .models import DEFAULT_NETWORK, NetworkConfig
from .openings import DEFAULT_OPENINGS, OpeningsConfig
from .pick import SHIPPED_PICK, Pick, PickConfig
from .pick import details as pick_details
from .presets import DEFAULT_PRESET, SMART_BACKGROUND_CATEGORIES, Preset, get_preset
from .runtime import FULL_RES_BUDGET, RUNTIME, limit_blas_threads, release_free_heap, tune_malloc
from .segment import DEFAULT_MODEL

__all__ = [
    "MatteObserver",
    "RetouchOptions",
    "RetouchResult",
    "retouch",
    "SMART_BACKGROUND_CATEGORIES",
    "WORK_MAX_PIXELS",
]

#: Working resolution cap for segmentation and matte refinement (pixels). The network sees 256x256
#: anyway; the guided filter snaps the matte to the photo's edges at this resolution, the matte is
#: upsampled once and its edges are tightened at full resolution (:func:`retouch.composite.tighten_edges`).
#: On the shared GT photos (``bench/pipeline/quality.py``) the matte is as good at 0.35 MP as at
#: 0.5 MP (mean IoU 0.9242 / 0.9242, boundary F 0.8825 / 0.8816; 0.25 MP: 0.9240 / 0.8825) and every
#: working-resolution step is cheaper: 0.504 vs 0.564 s per GT photo on one core.
WORK_MAX_PIXELS = 350_000


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
        original_filename: the seller's file name; without brand and category its words describe
            the product in the SEO file name (:func:`retouch.names.seo_filename`).
        max_input_bytes: larger uploads are refused with :class:`BadImageError`.
    """

    preset: str = DEFAULT_PRESET
    shadow: bool = True
    background_category: str | None = None
    brand: str | None = None
    category: str | None = None
    short_id: str | None = None
    original_filename: str | None = None
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES


@dataclass
class RetouchResult:
    """The processed photo.

    Attributes:
        jpeg: JPEG bytes of the result (sRGB, progressive).
        webp: WebP bytes of the same result.
        width, height: output size in px.
        details: JSON-serialisable ``processing_details`` (SPEC.md §3): seo_filename, brand, category,
            colors, compliance, byte counts, input size ..., ``confidence`` (float in [0, 1]: how sure we
            are the matte holds the product, :func:`retouch.pick.confidence`), ``needs_review`` (bool:
            send it to a designer) and ``segmentation`` (which network passes were kept, their signals).
        matte: uint8 (H, W) alpha matte at the *input* size (after EXIF rotation), 255 = product.

    :meth:`cutout_png` needs the photo: call :func:`retouch` with ``cutout=True``.
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
                raise RuntimeError("cutout non disponibile: chiamare retouch(..., cutout=True)")
            rgba = np.dstack([self._rgb, self.matte])
            self._cutout = encode_png(rgba)
        return self._cutout


def _working_size(w: int, h: int, max_pixels: int = WORK_MAX_PIXELS) -> tuple[int, int]:
    if w * h <= max_pixels:
        return w, h
    f = (max_pixels / (w * h)) ** 0.5
    return max(1, round(w * f)), max(1, round(h * f))


def _resize(arr: np.ndarray, size: tuple[int, int], resample: Image.Resampling) -> np.ndarray:
    """Resize a uint8 (H, W) or (H, W, 3) array to ``size`` = (width, height); large reductions first
    reduce by an integer factor (box), then resample (Pillow's ``reducing_gap``, same look)."""
    mode = "L" if arr.ndim == 2 else "RGB"
    return np.asarray(Image.fromarray(arr, mode).resize(size, resample, reducing_gap=2.0))


def product_matte(
    small: np.ndarray,
    model_name: str = DEFAULT_MODEL,
    *,
    pick_config: PickConfig = SHIPPED_PICK,
    network: NetworkConfig = DEFAULT_NETWORK,
    openings: OpeningsConfig | None = DEFAULT_OPENINGS,
    **kw: Any,
) -> tuple[np.ndarray, str | None, Pick]:
    """The working-resolution entry point (benchmarks, tools, tests): :func:`retouch.cutout.product_matte` with the
    shipped configuration unless given. Same arguments and result."""
    return cutout.product_matte(
        small, model_name, pick_config=pick_config, network=network, openings=openings, **kw
    )


# few arenas and fixed thresholds, so freed memory is reused (the worker sets them earlier, before its threads)
tune_malloc(RUNTIME)
# one BLAS thread: the linear algebra here is small, and the photos already run one per thread
limit_blas_threads(RUNTIME.blas_threads)


def retouch(
    data: bytes,
    options: RetouchOptions = RetouchOptions(),
    *,
    model_name: str = DEFAULT_MODEL,
    cutout: bool = False,
    pick_config: PickConfig = SHIPPED_PICK,
    network: NetworkConfig = DEFAULT_NETWORK,
    openings: OpeningsConfig | None = DEFAULT_OPENINGS,
    observe: MatteObserver | None = None,
) -> RetouchResult:
    """Retouch one product photo: white (or smart) background, light and colour, shadow, framing.

    Steps: decode (EXIF orientation, ICC -> sRGB, CMYK, 16 bit, RAW, HEIC) -> segmentation at a working
    resolution of at most :data:`WORK_MAX_PIXELS` (rembg model, session reused; a second look at 320 px
    and mirrored on doubtful photos, :func:`retouch.pick.pick_product`) -> matte refinement
    (guided filter, trapped background) -> one upsampling of the matte to the input size -> framing for
    the preset (only the product region is resampled, once) -> edge decontamination -> light/colour
    correction and dust removal on the product -> soft shadow -> blend on white RGB 255,255,255 or a
    procedural background -> JPEG and WebP (encoded concurrently) -> processing details and compliance;
    every 8th photo the freed heap goes back to the OS (:func:`retouch.runtime.release_free_heap`).

    Args:
        data: the uploaded file's bytes (JPEG, PNG, WebP, TIFF, HEIC, camera RAW).
        options: :class:`RetouchOptions`.
        model_name: rembg segmentation model (its file must be in ``network``'s model directory).
        cutout: keep the decoded photo so :meth:`RetouchResult.cutout_png` can be called. Off by
            default: the decoded photo (3 bytes per input pixel) is then released as soon as the
            product is framed, instead of living as long as the result.
        pick_config: the product pick's thresholds and switches (benchmarks compare variants; the
            service runs :data:`retouch.pick.SHIPPED_PICK`).
        network: the model directory and the int8 choice (:class:`retouch.models.NetworkConfig`;
            default: the process's own).
        openings: the see-through openings step's constants (:class:`retouch.openings.OpeningsConfig`);
            ``None`` skips the step (the ablation; the service runs the default).
        observe: called as ``observe(small, alpha, pick)`` with the working-resolution photo (uint8 (h, w, 3)),
            its final matte (float32 (h, w) in [0, 1]) and the :class:`retouch.pick.Pick`, before the
            confidence is computed from ``pick.signals`` (research tools add candidate signals there; the
            service passes nothing). Not called for a photo with its own transparency.

    Returns:
        :class:`RetouchResult`.

    Raises:
        BadImageError: unreadable / unsupported / too large input, or no product found.
        ValueError: unknown preset or background category.
    """
    preset = get_preset(options.preset)
    category = options.background_category
    if category is not None and category not in SMART_BACKGROUND_CATEGORIES:
        raise ValueError(f"Categoria di sfondo sconosciuta: {category!r}")
    try:
        with ExitStack() as full_res:
            # the decoded photo is passed on, not kept here, so _retouch_decoded can release it early
            return _retouch_decoded(
                data,
                decode_image(data, max_input_bytes=options.max_input_bytes),
                preset,
                options,
                model_name,
                full_res,
                keep_rgb=cutout,
                pick_config=pick_config,
                network=network,
                openings=openings,
                observe=observe,
            )
    finally:
        release_free_heap()


def _retouch_decoded(
    data: bytes,
    dec: Decoded,
    preset: Preset,
    options: RetouchOptions,
    model_name: str,
    full_res: ExitStack,
    *,
    keep_rgb: bool,
    pick_config: PickConfig,
    network: NetworkConfig,
    openings: OpeningsConfig | None,
    observe: MatteObserver | None,
) -> RetouchResult:
    """:func:`retouch` after decoding; enters :data:`retouch.runtime.FULL_RES_BUDGET` on ``full_res`` before the
    first full-resolution step. Full-size arrays are dropped as soon as they are no longer needed
    (the 12 MP case: 36 MB for the photo, 48 MB per float32 plane)."""
    rgb = dec.rgb
    h, w = rgb.shape[:2]
    dec_alpha, dec_format, dec_icc = dec.alpha, dec.format, dec.icc_converted
    del dec

    # 1. segmentation and refinement at the working resolution
    cut = _matte(rgb, dec_alpha, model_name, full_res, pick_config, network, openings, observe)
    small, alpha_small, matte = cut.small, cut.alpha_small, cut.matte
    bbox = product_bbox(matte)
    if bbox is None:
        raise BadImageError("Nessun prodotto riconosciuto nell'immagine")

    # 2. framing: resample only the product region, once
    placement = plan_placement(w, h, bbox, preset, shadow_room=0.08 if options.shadow else 0.0)
    fg = resample_region(rgb, placement, fill=255)
    kept_rgb = rgb if keep_rgb else None
    del rgb
    alpha_out = np.divide(resample_region(matte, placement, fill=0), np.float32(255.0), dtype=np.float32)

    # 3. edge decontamination (photos only: a transparent PNG already has clean edge colours)
    if cut.bg_est is not None and cut.fg_est is not None:
        decontaminate(fg, alpha_out, cut.bg_est, placement, (w, h), cut.fg_est)

    # 4. light and colour on the product only
    corr = estimate_correction(small, alpha_small)
    specks = correct_product(fg, alpha_out, corr.lut())

    # 5. shadow and background
    out, shadow, floor_row = compose(fg, alpha_out, options)

    # 6. encode
    jpeg, webp = encode_both(out)

    # 7. details
    colours = dominant_colours(small, alpha_small)
    compliance = compliance_report(
        preset=preset,
        out=out,
        alpha_out=alpha_out,
        shadow=shadow,
        jpeg_corner_min=jpeg_corner_min(jpeg),
        smart_background=options.background_category is not None,
        below_minimum=placement.below_minimum,
    )
    details = _details(
        data=data,
        source=(dec_format, dec_icc, (w, h)),
        options=options,
        preset=preset,
        cut=cut,
        colours=colours,
        compliance=compliance,
        encoded=(jpeg, webp, out),
        placement=placement,
        floor_row=floor_row,
        specks=specks,
        correction=corr.as_dict(),
    )
    h_out, w_out = out.shape[:2]
    return RetouchResult(
        jpeg=jpeg, webp=webp, width=w_out, height=h_out, details=details, matte=matte, _rgb=kept_rgb
    )


@dataclass
class _Cut:
    """What step 1 of :func:`_retouch_decoded` found: the working copy (uint8 (h, w, 3)), its matte (float32 in
    [0, 1]), the full-resolution matte (uint8 (H, W)), its source (``"alpha"`` or the model), the pick's details,
    and the local backdrop and product colour grids (``None`` for the photo's own transparency)."""

    small: np.ndarray
    alpha_small: np.ndarray
    matte: np.ndarray
    source: str
    seg_details: dict[str, Any]
    bg_est: np.ndarray | None = None
    fg_est: np.ndarray | None = None


def _matte(
    rgb: np.ndarray,
    own_alpha: np.ndarray | None,
    model_name: str,
    full_res: ExitStack,
    pick_config: PickConfig,
    network: NetworkConfig,
    openings: OpeningsConfig | None,
    observe: MatteObserver | None,
) -> _Cut:
    """Step 1 of :func:`_retouch_decoded`: the product's matte at the working resolution and at full resolution
    (``rgb``: uint8 (H, W, 3), in place for a transparent upload; ``own_alpha``: its uint8 alpha or ``None``).
    Enters :data:`retouch.runtime.FULL_RES_BUDGET` on ``full_res`` before the full-resolution matte."""
    h, w = rgb.shape[:2]
    ww, wh = _working_size(w, h)
    small = rgb if (ww, wh) == (w, h) else _resize(rgb, (ww, wh), Image.Resampling.BILINEAR)
    if own_alpha is not None:
        full_res.enter_context(FULL_RES_BUDGET.hold(w * h))
        alpha8 = own_alpha if (ww, wh) == (w, h) else _resize(own_alpha, (ww, wh), Image.Resampling.BILINEAR)
        alpha_small = alpha8.astype(np.float32) / 255.0
        bleed_into_transparent(rgb, own_alpha, small, alpha_small)
        # the seller's own transparency: nothing was guessed
        return _Cut(small, alpha_small, own_alpha, "alpha", {"confidence": 1.0, "needs_review": False})
    # never much less than plain rembg: an empty or doubtful matte falls back to the safe mask
    alpha_small, fell_back, pick = cutout.product_matte(
        small, model_name, pick_config=pick_config, network=network, openings=openings
    )
    if observe is not None:
        observe(small, alpha_small, pick)
    seg_details = pick_details(pick, config=pick_config)
    del pick
    full_res.enter_context(FULL_RES_BUDGET.hold(w * h))
    # edge pixels that still show the old background: lower their alpha (full resolution, band only)
    bg_est = local_background(small, alpha_small)
    fg_est = local_background(small, alpha_small, foreground=True)
    matte = full_res_matte(rgb, small, alpha_small, bg_est, fg_est, tighten=fell_back is None)
    return _Cut(small, alpha_small, matte, model_name, seg_details, bg_est, fg_est)


def _details(
    *,
    data: bytes,
    source: tuple[str, bool, tuple[int, int]],
    options: RetouchOptions,
    preset: Preset,
    cut: _Cut,
    colours: list[dict[str, Any]],
    compliance: dict[str, Any],
    encoded: tuple[bytes, bytes, np.ndarray],
    placement: Placement,
    floor_row: int | None,
    specks: int,
    correction: dict[str, Any],
) -> dict[str, Any]:
    """Step 7: :attr:`RetouchResult.details` (``source``: the input's format, whether its ICC profile was
    converted, and its (width, height); ``encoded``: the JPEG, the WebP and the output array)."""
    dec_format, dec_icc, size = source
    jpeg, webp, out = encoded
    return {
        "seo_filename": product_seo_filename(options, colours),
        "brand": options.brand,
        "category": options.category,
        "colors": colours,
        "compliance": compliance,
        **byte_and_pixel_sizes(data, jpeg, webp, size, out),
        "input_format": dec_format,
        "icc_converted": dec_icc,
        "preset": preset.name,
        "background": options.background_category or "white",
        "floor_row": floor_row,
        "shadow": bool(options.shadow),
        "matte_source": cut.source,
        "framing": {
            "scale": round(placement.scale, 6),
            "src_box": [round(v, 3) for v in placement.src_box],
            "product_bbox": list(placement.bbox),
        },
        "specks_removed": int(specks),
        # the card's warning: kept at native resolution under the marketplace's minimum
        "resolution_notice": compliance.get("notice"),
        "correction": correction,
        **cut.seg_details,
    }
