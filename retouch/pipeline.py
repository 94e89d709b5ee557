"""The retouch pipeline: decode -> segment -> refine -> correct -> compose -> encode.

``retouch(data, options)`` is the one entry point the Temporal activity and the CLI call.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .backgrounds import render_background, surface_row
from .colors import dominant_colours, seo_filename
from .compliance import compliance_report
from .composite import blend, decontaminate, local_background, lookup_grid, shadow_layer, tighten_edges
from .correct import apply_lut, estimate_correction, remove_dust
from .decode import DEFAULT_MAX_INPUT_BYTES, Decoded, decode_image
from .encode import encode_jpeg, encode_png, encode_webp
from .errors import BadImageError
from .layout import Placement, plan_placement, product_bbox, resample_region
from .matte import refine_matte, upsample_matte
from .metrics import corner_min
from .models import DEFAULT_NETWORK, NetworkConfig
from .openings import DEFAULT_OPENINGS, OpeningsConfig, clear_openings
from .pick import (
    SHIPPED_PICK,
    Pick,
    PickConfig,
    clear_backdrop_pieces,
    frame_sides,
    guard,
    pick_product,
    refocus_fallback,
    with_backdrop_busy,
    with_backdrop_through,
    with_cut_disagreement,
    with_joined_object,
    with_second_opinion,
)
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

#: ``observe(small, alpha, pick)`` of :func:`retouch`: sees the working-resolution photo, its final matte and the
#: pick before the confidence is computed (research tools record candidate signals in ``pick.signals``).
MatteObserver = Callable[[np.ndarray, np.ndarray, Pick], None]

#: Largest canvas (px) whose JPEG and WebP are encoded concurrently, each from its own Pillow copy
#: (4 bytes per pixel each); larger canvases share one copy and are encoded one after the other.
ENCODE_CONCURRENT_MAX_PIXELS = 4_000_000

#: Largest product region (output pixels) on which dust removal runs; ``specks_removed`` is -1 when skipped.
DUST_MAX_PIXELS = 4_000_000


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
    """The product's refined alpha matte at the working resolution: pick, refinement, guard, refocus.

    :func:`retouch.pick.pick_product` -> :func:`retouch.matte.refine_matte` -> :func:`retouch.pick.guard`
    (never much less than plain rembg); after a fallback, :func:`retouch.pick.refocus_fallback` may find
    the product inside the safe mask, whose crop mask is then refined and used; then the background seen
    through the product's openings is cleared (:func:`retouch.openings.clear_openings`, then the large
    backdrop-coloured pieces a graph cut gives to the backdrop: :func:`retouch.pick.cut.clear_backdrop_pieces`, the
    signal ``cut_cleared``); a small product's result
    the confidence would not flag gets a second opinion (:func:`retouch.pick.with_second_opinion`; a large one too
    where its first mask was half-confident); a result still unflagged is checked for a region that continues the
    backdrop through the product (:func:`retouch.pick.with_backdrop_through`, the signal ``through``), and one
    still unflagged for another object in the matte (:func:`retouch.pick.with_joined_object`, the signals
    ``frame_join`` and ``blurred_outline``), and one still unflagged for a graph cut that gives part of the matte
    to the backdrop (:func:`retouch.pick.with_cut_disagreement`, the signal ``cut_backdrop``), and one still
    unflagged with a confidence under :attr:`~retouch.pick.PickConfig.review_below_busy` for a busy backdrop
    (:func:`retouch.pick.with_backdrop_busy`, the signal ``backdrop_busy``).

    Args:
        small: uint8 (H, W, 3) sRGB photo at the working resolution.
        model_name: rembg model.
        pick_config: the pick's thresholds and switches (:class:`retouch.pick.PickConfig`).
        network: where the model files are, which copy runs the 256 px passes
            (:class:`retouch.models.NetworkConfig`).
        openings: constants of the openings step; ``None`` skips it (before/after measurements).
        **kw: passed to :func:`retouch.matte.refine_matte`.

    Returns:
        ``(alpha, fell_back, pick)``: float32 (H, W) matte in [0, 1]; the guard's reason (``"empty"``,
        ``"disagree"``) when the matte is its fallback, else ``None``; the :class:`retouch.pick.Pick`
        with its signals.
    """
    pick = pick_product(small, model_name, config=pick_config, network=network)
    coarse = pick.mask
    alpha, fell_back = guard(small, refine_matte(small, coarse, **kw), pick, config=pick_config)
    if fell_back is not None:
        coarse = pick.safe if pick.safe is not None else alpha
        refocused = refocus_fallback(small, alpha, pick, model_name, config=pick_config, network=network)
        if refocused is not None:
            alpha, fell_back, coarse = refine_matte(small, refocused, **kw), None, refocused
    cut_share: float | None = None
    if openings is not None:
        found = clear_openings(small, alpha, coarse, openings)
        pick.signals.update(found.signals())
        alpha, pick.signals["cut_cleared"], cut_share = clear_backdrop_pieces(
            small, found.alpha, config=pick_config
        )
        if pick.signals["cut_cleared"] > 0:
            cut_share = None  # the matte changed: the review cap measures the cut again
    pick.signals["frame_sides"] = frame_sides(alpha, config=pick_config)
    pick = with_second_opinion(small, alpha, pick, model_name, config=pick_config, network=network)
    pick = with_backdrop_through(small, alpha, pick, config=pick_config)
    pick = with_joined_object(small, alpha, pick, config=pick_config)
    pick = with_cut_disagreement(small, alpha, pick, config=pick_config, measured=cut_share)
    pick = with_backdrop_busy(small, alpha, pick, config=pick_config)
    return alpha, fell_back, pick


def _bleed_into_transparent(
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


def _jpeg_corner_min(jpeg: bytes) -> int:
    """Min channel over the corners of the encoded JPEG, decoded at 1/8 scale (DCT scaling: cheap)."""
    im = Image.open(io.BytesIO(jpeg))
    im.draft("RGB", (max(1, im.width // 8), max(1, im.height // 8)))
    return corner_min(np.asarray(im.convert("RGB")), size=2)


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
    category = options.background_category
    rgb = dec.rgb
    h, w = rgb.shape[:2]
    dec_alpha, dec_format, dec_icc = dec.alpha, dec.format, dec.icc_converted
    del dec

    # 1. segmentation and refinement at the working resolution
    ww, wh = _working_size(w, h)
    small = rgb if (ww, wh) == (w, h) else _resize(rgb, (ww, wh), Image.Resampling.BILINEAR)
    if dec_alpha is not None:
        full_res.enter_context(FULL_RES_BUDGET.hold(w * h))
        matte = dec_alpha
        alpha_small = matte if (ww, wh) == (w, h) else _resize(matte, (ww, wh), Image.Resampling.BILINEAR)
        alpha_small = alpha_small.astype(np.float32) / 255.0
        matte_source = "alpha"
        # the seller's own transparency: nothing was guessed
        seg_details: dict[str, Any] = {"confidence": 1.0, "needs_review": False}
        _bleed_into_transparent(rgb, matte, small, alpha_small)
    else:
        # never much less than plain rembg: an empty or doubtful matte falls back to the safe mask
        alpha_small, fell_back, pick = product_matte(
            small, model_name, pick_config=pick_config, network=network, openings=openings
        )
        if observe is not None:
            observe(small, alpha_small, pick)
        seg_details = pick_details(pick, config=pick_config)
        del pick
        full_res.enter_context(FULL_RES_BUDGET.hold(w * h))
        matte = upsample_matte(alpha_small, (w, h))
        matte_source = model_name
        # edge pixels that still show the old background: lower their alpha (full resolution, band only)
        bg_est = local_background(small, alpha_small)
        fg_est = local_background(small, alpha_small, foreground=True)
        if fell_back is None:  # a fallback is plain rembg's mask: its edges are not tightened either
            a_full = np.divide(matte, np.float32(255.0), dtype=np.float32)  # astype, then / 255, in one pass
            identity = Placement(w, h, 1.0, (0.0, 0.0, float(w), float(h)), (0, 0, w, h), (0, 0, w, h))
            # the band is grown by 2 px only where the matte was upsampled less than 2x (it is narrow)
            tighten_edges(rgb, a_full, bg_est, fg_est, identity, (w, h), band_growth=w * h < 4 * ww * wh)
            a_full *= 255.0
            a_full += 0.5
            matte = a_full.astype(np.uint8)
            del a_full
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
    if matte_source != "alpha":
        decontaminate(fg, alpha_out, bg_est, placement, (w, h), fg_est)

    # 4. light and colour on the product only
    corr = estimate_correction(small, alpha_small)
    on_box = product_bbox((alpha_out > 0).view(np.uint8), threshold=0)
    if on_box is not None:
        x0, y0, x1, y1 = on_box
        region = fg[y0:y1, x0:x1]
        fg[y0:y1, x0:x1] = apply_lut(region, corr.lut())
        # dust: on regions up to 4 MP (larger ones: specks are sub-pixel at the working resolution anyway
        # and the filters would dominate the run time)
        if (y1 - y0) * (x1 - x0) <= DUST_MAX_PIXELS:
            specks = remove_dust(fg[y0:y1, x0:x1], alpha_out[y0:y1, x0:x1])
        else:
            specks = -1
    else:
        specks = 0

    # 5. shadow and background
    shadow_scale = max(4, round(max(alpha_out.shape) / 500))  # shadow maths on a ~500 px grid
    shadow = shadow_layer(alpha_out, scale=shadow_scale) if options.shadow else None
    background = None
    floor_row: int | None = None
    if category is not None:
        floor_row = surface_row(alpha_out)
        background = render_background(
            category, alpha_out.shape[1], alpha_out.shape[0], floor_row / alpha_out.shape[0]
        )
    out = blend(fg, alpha_out, background, shadow, saturation=0.08)

    # 6. encode. Each Pillow RGB image holds 4 bytes per pixel: a large canvas is wrapped once and
    # encoded twice in turn (an Image's encoder settings live on the object, so it cannot be saved by
    # two threads at once); a small one is encoded as JPEG and WebP concurrently (Pillow releases the
    # GIL while encoding).
    if out.shape[0] * out.shape[1] > ENCODE_CONCURRENT_MAX_PIXELS:
        out_image = Image.fromarray(out, "RGB")
        jpeg = encode_jpeg(out_image)
        webp = encode_webp(out_image)
        del out_image
    else:
        with ThreadPoolExecutor(max_workers=2) as pool:
            f_webp = pool.submit(encode_webp, out)
            jpeg = encode_jpeg(out)
            webp = f_webp.result()

    # 7. details
    colours = dominant_colours(small, alpha_small)
    main_colour = str(colours[0]["name"]) if colours else None
    compliance = compliance_report(
        preset=preset,
        out=out,
        alpha_out=alpha_out,
        shadow=shadow,
        jpeg_corner_min=_jpeg_corner_min(jpeg),
        smart_background=category is not None,
        below_minimum=placement.below_minimum,
    )
    details: dict[str, Any] = {
        "seo_filename": seo_filename(
            options.brand,
            options.category,
            main_colour,
            options.short_id,
            original_filename=options.original_filename,
            colours=[str(c["name"]) for c in colours],
        ),
        "brand": options.brand,
        "category": options.category,
        "colors": colours,
        "compliance": compliance,
        "bytes_in": len(data),
        "bytes_out_jpeg": len(jpeg),
        "bytes_out_webp": len(webp),
        "bytes_saved": len(data) - len(jpeg),
        "input_width": w,
        "input_height": h,
        "input_format": dec_format,
        "icc_converted": dec_icc,
        "preset": preset.name,
        "output_width": int(out.shape[1]),
        "output_height": int(out.shape[0]),
        "background": category or "white",
        "floor_row": floor_row,
        "shadow": bool(options.shadow),
        "matte_source": matte_source,
        "framing": {
            "scale": round(placement.scale, 6),
            "src_box": [round(v, 3) for v in placement.src_box],
            "product_bbox": list(placement.bbox),
        },
        "specks_removed": int(specks),
        # the card's warning: kept at native resolution under the marketplace's minimum
        "resolution_notice": compliance.get("notice"),
        "correction": corr.as_dict(),
        **seg_details,
    }
    return RetouchResult(
        jpeg=jpeg,
        webp=webp,
        width=int(out.shape[1]),
        height=int(out.shape[0]),
        details=details,
        matte=matte,
        _rgb=kept_rgb,
    )
