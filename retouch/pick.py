"""Pick the product, not the most salient blob; and say how sure we are.

U^2-Net answers "what is salient". In a product photo that is usually the product, but a large,
soft-focus object behind it (a cup and saucer under a banana, a sofa behind a lamp) can win, and then
the whole blob is kept. The product a seller photographs is the *sharp*, in-focus object. This module
runs the network once at :data:`retouch.segment.NETWORK_INPUT_PX` (256 px) and:

1. measures cheap signals on that mask (:func:`mask_signals`): how sharp the photo is along the mask's
   outline (:func:`edge_sharpness`), the mask's share of the frame, how much of the frame border it
   touches, how much of it is half-confident (a second opinion from the mirrored photo,
   :func:`second_opinion`, was measured and is off: :data:`MIRROR_SHARE`);
2. when those signals raise a doubt (:func:`in_doubt`), and only then, runs the network again at 320 px
   (rembg's own size) and at 320 px on the mirrored photo (two more evaluations) and keeps the
   candidate masks whose outline follows in-focus edges about as well as the best one
   (:func:`pick_product`), averaged: a mask that swallowed a soft-focus object has a long blurred
   stretch of outline and is dropped; candidates that are equally sharp are averaged (test-time
   augmentation over sizes and mirroring), the safe choice when the evidence does not separate them;
   when they raise none but the product is small in the frame (:data:`ZOOM_AREA`), runs it once more
   on a crop around the product (:func:`_zoom`): at 256 px a small product is a few dozen px wide in the
   network's input and its outline comes out half-confident;
3. after the refinement, :func:`guard` makes sure the result is never much less than plain rembg: an
   (almost) empty matte, or one that disagrees with rembg's own 320 px mask (:attr:`Pick.safe`, computed
   as rembg computes it) without decisive evidence for ours, falls back to that safe mask and is flagged;
4. turns the signals into a confidence in [0, 1] and a ``needs_review`` flag (:func:`confidence`), with
   weights fitted on the tuning data (``bench/tune_pick.py``, tuning GT fold + tuning composites).

Every threshold below was set from the physics of blur (stated with it) or chosen on the tuning fold of
the GT photos and the tuning composites
(``bench/composites.py``); the held-out fold and the held-out composites are only reported. The doubt
test's ``components < 1`` trigger and the guard's constants were chosen by
``bench/tune_guard.py`` on the 20 photos of the GT tuning fold plus 30 tuning composites of seed 1 and 30
of seed 3 (tuning-fold products; never the held-out seed 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .openings import DEFAULT_OPENINGS
from .segment import DEFAULT_MODEL, NETWORK_INPUT_PX, predict_mask

__all__ = [
    "ALT_INPUT_PX",
    "Pick",
    "confidence",
    "edge_sharpness",
    "guard",
    "in_doubt",
    "mask_signals",
    "pick_product",
]

#: Second network input size (px) used when the first mask is in doubt: rembg's own 320 px.
ALT_INPUT_PX = 320

#: Edge-sharpness ratio (max gradient / local contrast, see :func:`edge_sharpness`) above which an
#: outline pixel counts as a sharp edge. A step blurred by a Gaussian of sigma px has ratio ~0.4 / sigma,
#: so 0.16 separates edges blurred by more than ~2.5 working-resolution px (a defocused object)
#: from in-focus ones. Chosen on the tuning data.
SHARP_RATIO = 0.16

#: Local contrast (max - min of grey in [0, 1] over the window) below which an outline pixel has no
#: edge to measure (uniform area): it counts as neither sharp nor blurred.
MIN_CONTRAST = 0.08

#: Doubt test thresholds on the first (256 px) mask, chosen on the tuning data.
DOUBT_SHARP = 0.9  # sharp share of the outline below this
DOUBT_AREA = 0.45  # mask covers more of the frame than this
DOUBT_BORDER = 0.25  # mask touches more of the frame border than this
DOUBT_COMPONENTS = 2  # this many or more significant connected components

#: Candidates whose outline's sharp share is within this margin of the sharpest one's are averaged;
#: the others are dropped.
PICK_MARGIN = 0.08


@dataclass
class Pick:
    """The chosen coarse mask and what it was chosen from.

    Attributes:
        mask: float32 (H, W) in [0, 1], the network mask to refine.
        source: the candidates averaged into :attr:`mask`, joined by ``+``: ``"256"`` (first pass only),
            ``"320"``, ``"320-flip"`` (mirrored photo), ``"crop"`` (the in-focus part), e.g.
            ``"256+320+320-flip"``; or ``"256-zoom"`` (:func:`_zoom`, a small product looked at again).
        evaluations: network evaluations spent (1 when the first mask raised no doubt and the product is
            not small, 2 with the zoom; one more when the mirrored pass ran).
        signals: measurable signals (floats) used for the confidence, JSON-serialisable.
        safe: plain rembg's mask (u2netp at 320 px on the Lanczos-shrunk photo, exactly as ``rembg``
            computes it) when the second look ran, else ``None``; :func:`guard` falls back to it.
        first: the first (256 px) network mask.
    """

    mask: np.ndarray
    source: str
    evaluations: int
    signals: dict[str, float] = field(default_factory=dict)
    safe: np.ndarray | None = None
    first: np.ndarray | None = None


def _grey(rgb: np.ndarray) -> np.ndarray:
    """float32 (H, W) luma in [0, 1] (Rec. 601 weights) of a uint8 RGB image."""
    g = rgb[..., 0] * np.float32(0.299 / 255) + rgb[..., 1] * np.float32(0.587 / 255)
    g += rgb[..., 2] * np.float32(0.114 / 255)
    return g.astype(np.float32)


def edge_sharpness(grey: np.ndarray, block: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel edge sharpness and local contrast of a grey image.

    The sharpness is ``max |gradient| in the window / (max - min of grey in the window)``: for a step
    of any contrast blurred by a Gaussian of ``sigma`` px it is ~``1 / (sigma * sqrt(2 pi))``
    (0.4 / sigma), independent of the contrast, and ~0.5 for an in-focus edge. The gradient is the Sobel
    derivative (scipy) divided by 8 (grey units per px). The window is the 3 x 3 blocks of ``block`` x
    ``block`` px around the pixel's block (15 x 15 px by default, the pixel at least ``block`` px from
    its sides): block maxima and minima make it ~10x cheaper than sliding 15 x 15 filters at the
    working resolution (~10 ms at 0.35 MP).

    Args:
        grey: float32 (H, W) in [0, 1] at the working resolution.
        block: block size in px.

    Returns:
        ``(ratio, contrast)``: two float32 (H, W) arrays; ``ratio`` is ~0 where ``contrast`` is 0.
    """
    h, w = grey.shape
    mag = np.hypot(ndi.sobel(grey, axis=1), ndi.sobel(grey, axis=0))
    mag *= 0.125
    hb, wb = -(-h // block), -(-w // block)
    pad = ((0, hb * block - h), (0, wb * block - w))

    def pooled(x: np.ndarray, reduce: Any) -> np.ndarray:
        xp = np.pad(x, pad, mode="edge").reshape(hb, block, wb, block)
        return reduce(reduce(xp, axis=3), axis=1)

    gmax = ndi.maximum_filter(pooled(mag, np.max), size=3)
    contrast = ndi.maximum_filter(pooled(grey, np.max), size=3) - ndi.minimum_filter(
        pooled(grey, np.min), size=3
    )
    ratio = gmax / np.maximum(contrast, 1e-3)

    def full(x: np.ndarray) -> np.ndarray:
        return np.repeat(np.repeat(x.astype(np.float32), block, axis=0), block, axis=1)[:h, :w]

    return full(ratio), full(contrast)


def _sharpness_near(grey: np.ndarray, binary: np.ndarray, block: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """:func:`edge_sharpness` computed only in the box of ``binary`` grown by 16 px (zeros elsewhere).

    The box starts on the block grid and reaches 16 px past the mask, farther than the 15 x 15 window,
    so on the mask's outline the values equal those of the whole-image computation; a product that
    fills half the frame costs half as much.
    """
    h, w = grey.shape
    ys = np.flatnonzero(binary.any(axis=1))
    xs = np.flatnonzero(binary.any(axis=0))
    if ys.size == 0:
        return np.zeros_like(grey), np.zeros_like(grey)
    y0, x0 = max(0, int(ys[0]) - 16) // block * block, max(0, int(xs[0]) - 16) // block * block
    y1, x1 = min(h, int(ys[-1]) + 17), min(w, int(xs[-1]) + 17)
    if (y1 - y0) * (x1 - x0) > 0.8 * h * w:
        return edge_sharpness(grey, block)
    r, c = edge_sharpness(np.ascontiguousarray(grey[y0:y1, x0:x1]), block)
    ratio, contrast = np.zeros_like(grey), np.zeros_like(grey)
    ratio[y0:y1, x0:x1] = r
    contrast[y0:y1, x0:x1] = c
    return ratio, contrast


def _outline(binary: np.ndarray) -> np.ndarray:
    """bool (H, W): the 1-px inner outline of a binary mask (pixels with a 4-neighbour outside)."""
    pad = np.pad(binary, 1, mode="constant")
    inner = pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:]
    return binary & ~inner


def _sharp_share(binary: np.ndarray, ratio: np.ndarray, contrast: np.ndarray) -> tuple[float, float]:
    """(share of measurable outline pixels that are sharp, share of outline pixels that are measurable)."""
    out = _outline(binary)
    # the frame border is not an edge of the object
    out[0, :] = out[-1, :] = False
    out[:, 0] = out[:, -1] = False
    n = int(out.sum())
    if n == 0:
        return 0.0, 0.0
    measurable = out & (contrast >= MIN_CONTRAST)
    m = int(measurable.sum())
    if m == 0:
        return 0.0, 0.0
    return float((ratio[measurable] >= SHARP_RATIO).sum()) / m, m / n


def mask_signals(mask: np.ndarray, ratio: np.ndarray, contrast: np.ndarray) -> dict[str, float]:
    """Cheap signals of one network mask (no network call).

    Args:
        mask: float32 (H, W) in [0, 1].
        ratio, contrast: from :func:`edge_sharpness` on the same photo.

    Returns:
        ``sharp`` (sharp share of the outline, 0-1), ``edge_cover`` (measurable share of the outline),
        ``area`` (share of the frame with mask >= 0.5), ``border`` (share of the frame's border pixels
        with mask >= 0.5), ``uncertain`` (pixels with mask in [0.2, 0.8] over pixels >= 0.5),
        ``components`` (connected components of mask >= 0.5 larger than 0.5 % of the frame),
        ``centre`` (distance of the mask's centroid from the frame centre, as a share of the
        half-diagonal).
    """
    h, w = mask.shape
    b = mask >= 0.5
    area = float(b.mean())
    sharp, cover = _sharp_share(b, ratio, contrast)
    border_px = np.concatenate([b[0], b[-1], b[:, 0], b[:, -1]])
    lab, n = ndi.label(b)
    sizes = np.bincount(lab.ravel(), minlength=n + 1)[1:]
    comps = int((sizes >= 0.005 * h * w).sum())
    if b.any():
        ys, xs = np.nonzero(b)
        cy, cx = float(ys.mean()) / h - 0.5, float(xs.mean()) / w - 0.5
        centre = math.hypot(cx, cy) / math.hypot(0.5, 0.5)
    else:
        centre = 1.0
    unc = float(((mask >= 0.2) & (mask <= 0.8)).sum()) / max(1, int(b.sum()))
    return {
        "sharp": sharp,
        "edge_cover": cover,
        "area": area,
        "border": float(border_px.mean()),
        "uncertain": min(unc, 1.0),
        "components": float(comps),
        "centre": centre,
    }


#: :func:`focus_contrast`'s interior is the mask eroded by this many px, its ring lies this many px
#: (inner, outer) outside the mask: clear of the outline's own transition on both sides.
FOCUS_ERODE_PX = 4
FOCUS_RING_PX = (6, 24)
#: Ring detail (mean |Laplacian|, grey levels in [0, 1] per px) below which :func:`focus_contrast` sees a
#: plain backdrop and does not judge focus. Chosen on the tuning data only (``bench/tune_focus_floor.py``,
#: 229 photos): the rings of studio sweeps and defocused backdrops measure 0.0033-0.0084, the
#: lowest ring among the photos the focus test earns its flag or refocus on measures 0.0179, and every
#: floor from 1e-4 to 0.01 takes none of those out of the test. Without a floor, a flat-coloured product
#: on a plain backdrop (both sides ~0) read as a blurred object, went to a designer and cost a refocus.
FOCUS_RING_MIN = 0.01
#: A kept mask whose inside carries less than this share of the fine detail of the ring around it
#: (:func:`focus_contrast`) is flagged for review (:func:`confidence`): it sits on a soft, out-of-focus
#: object among sharper surroundings, not on the in-focus product. Chosen on the tuning data only
#: (``bench/tune_pick.py``: the GT tuning fold and composites of seeds 1, 3, 4, 5, 8 and 9, 240 photos):
#: it flags 26 instead of 22 of the 36 photos with IoU < 0.9 (the four it adds keep a
#: blurred cup or car, IoU 0.00-0.08, focus 0.19-0.40) and none more of the 204 good ones (lowest
#: focus of a good photo: 0.53; 0.45 and 0.50 flag the same photos, 0.6 adds two good ones).
REVIEW_FOCUS = 0.45


def focus_detail(grey: np.ndarray, binary: np.ndarray) -> tuple[float, float] | None:
    """Fine detail inside a mask and in the ring around it (the two halves of :func:`focus_contrast`).

    Args:
        grey: float32 (H, W) in [0, 1] at the working resolution.
        binary: bool (H, W) mask (mask >= 0.5).

    Returns:
        ``(inside, ring)``: mean |Laplacian| (scipy, 4-neighbour; grey levels in [0, 1] per px) inside
        ``binary`` eroded by :data:`FOCUS_ERODE_PX` px and in the ring :data:`FOCUS_RING_PX` px outside it,
        computed in the mask's box grown by the ring's outer radius only; ``None`` when the mask, its
        eroded inside or its ring is empty.
    """
    ys, xs = np.flatnonzero(binary.any(axis=1)), np.flatnonzero(binary.any(axis=0))
    if ys.size == 0:
        return None
    h, w = binary.shape
    r_in, r_out = FOCUS_RING_PX
    y0, y1 = max(0, int(ys[0]) - r_out - 1), min(h, int(ys[-1]) + r_out + 2)
    x0, x1 = max(0, int(xs[0]) - r_out - 1), min(w, int(xs[-1]) + r_out + 2)
    b = binary[y0:y1, x0:x1]
    lap = np.abs(ndi.laplace(grey[y0:y1, x0:x1]))
    inner = ndi.binary_erosion(b, iterations=FOCUS_ERODE_PX)
    dist = ndi.distance_transform_edt(~b)
    ring = (dist >= r_in) & (dist <= r_out)
    if not inner.any() or not ring.any():
        return None
    return float(lap[inner].mean()), float(lap[ring].mean())


def focus_contrast(grey: np.ndarray, binary: np.ndarray) -> float:
    """Fine detail inside a mask over fine detail in the ring around it.

    The product is the in-focus object the photo was taken of: its inside carries at least as much
    fine detail as its surroundings, while a large blurred object behind it (a cup under the product)
    is smoother than the sharp table or texture around it. The edge-sharpness test
    (:func:`edge_sharpness`) misses that case when the outline's 15 x 15 px windows reach into a sharp
    background; this measure stays off the outline (:data:`FOCUS_ERODE_PX`, :data:`FOCUS_RING_PX`).
    A plain backdrop around the mask (ring detail below :data:`FOCUS_RING_MIN`: a studio sweep, a wall)
    says nothing about focus: a flat-coloured product on it is not a blurred object.

    Args:
        grey: float32 (H, W) in [0, 1] at the working resolution.
        binary: bool (H, W) mask (mask >= 0.5).

    Returns:
        :func:`focus_detail`'s inside over its ring; ``inf`` when either region is empty or the ring's
        detail is below :data:`FOCUS_RING_MIN` (nothing to compare: no doubt from this test).
    """
    detail = focus_detail(grey, binary)
    if detail is None or detail[1] < FOCUS_RING_MIN:
        return math.inf
    return detail[0] / detail[1]


def _with_focus(pick: Pick, grey: np.ndarray) -> Pick:
    """``pick`` with the signal ``focus``: its mask's :func:`focus_contrast`, capped at 99 (JSON-safe)."""
    pick.signals["focus"] = min(focus_contrast(grey, pick.mask >= 0.5), 99.0)
    return pick


def in_doubt(signals: dict[str, float]) -> bool:
    """The cheap doubt test on the first mask: is a second look worth its network evaluations?

    True when the mask's outline is mostly blurred (:data:`DOUBT_SHARP`), it covers much of the frame
    (:data:`DOUBT_AREA`) or of its border (:data:`DOUBT_BORDER`), it falls into several large parts
    (:data:`DOUBT_COMPONENTS`) or into none (the network found almost nothing: no part reaches 0.5 % of
    the frame, the held-out composites' empty-matte failure mode).

    A trigger on half-confident masks (``uncertain`` > 0.2, ``bench/tune_guard.py``) was tried on the
    tuning data (80 photos): it sends 29 instead of 15 of them to the second look for one
    photo fewer more than 0.05 IoU below rembg (at a value on the threshold) and a lower mean IoU, and on
    ``make bench-speed``'s 53 photos it would send 11 instead of 3 (~15 % more CPU, under the 1.5x target);
    it is not used.
    """
    return (
        signals["sharp"] < DOUBT_SHARP
        or signals["area"] > DOUBT_AREA
        or signals["border"] > DOUBT_BORDER
        or signals["components"] >= DOUBT_COMPONENTS
        or signals["components"] < 1
    )


#: Smallest share of the frame a re-examined crop's mask must cover to count as a candidate.
MIN_AREA = 0.002


def _focus_crop(
    small: np.ndarray, candidates: dict[str, np.ndarray], ratio: np.ndarray, contrast: np.ndarray
) -> tuple[int, int, int, int] | None:
    """Box (x0, y0, x1, y1) around the in-focus detail inside the candidates' masks, or ``None``.

    In-focus detail = pixels at least 8 px inside a mask (so its own outline, and background seen through
    its soft rim, do not count) whose block has an in-focus edge (:data:`SHARP_RATIO`) of contrast at
    least 2 x :data:`MIN_CONTRAST` and whose gradient reaches half the block's strongest. The detail is
    grouped (dilation and closing by 3 px) and the largest group's box, grown by 25 % of its size on
    every side (at least 16 px), is returned when it is smaller than half of the masks' box (else there
    is no separate sharp object to look at).
    """
    union = np.zeros(ratio.shape, bool)
    for m in candidates.values():
        union |= m >= 0.5
    if not union.any():
        return None
    inside = ndi.binary_erosion(union, iterations=8)
    grey = _grey(small)
    mag = np.hypot(ndi.sobel(grey, axis=1), ndi.sobel(grey, axis=0)) * 0.125
    detail = (
        inside & (ratio >= SHARP_RATIO) & (contrast >= 2 * MIN_CONTRAST) & (mag >= 0.5 * ratio * contrast)
    )
    if int(detail.sum()) < 20:
        return None
    groups, n = ndi.label(ndi.binary_closing(ndi.binary_dilation(detail, iterations=3), iterations=3))
    sizes = np.bincount(groups.ravel(), minlength=n + 1)
    sizes[0] = 0
    ys, xs = np.nonzero(detail & (groups == int(sizes.argmax())))
    if ys.size < 20:
        return None
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())
    uy, ux = np.nonzero(union)
    box_area = (y1 - y0 + 1) * (x1 - x0 + 1)
    if box_area > 0.5 * (uy.max() - uy.min() + 1) * (ux.max() - ux.min() + 1):
        return None
    h, w = ratio.shape
    gy, gx = max(16.0, 0.25 * (y1 - y0)), max(16.0, 0.25 * (x1 - x0))
    return (
        int(max(0, x0 - gx)),
        int(max(0, y0 - gy)),
        int(min(w, x1 + gx + 1)),
        int(min(h, y1 + gy + 1)),
    )


#: Zoom (:func:`_zoom`): a first mask that raised no doubt and covers less than this share of the frame
#: is looked at again, on a crop around it. Chosen on the tuning data (``bench/tune_pick.py``'s 140
#: photos): every tuning photo below 0.10 gained or stayed within 0.002 IoU (+0.36 at most,
#: where the 256 px mask of a small product was half-confident); between 0.10 and 0.25 two lost
#: 0.075 and 0.124 (a product among busy clutter: the crop's view is dominated by the clutter), so 0.10
#: shipped, confirmed on fresh seed 7 (``bench/confirm_zoom.py``). Later widened to 0.15 on the 230
#: tuning photos of ``bench/tune_refocus_trigger.py`` (seeds 1, 3, 4, 5, 8, 9): photos more than 0.05 IoU
#: below plain rembg 5 -> 3 (small products whose 256 px outline is coarser than rembg's 320 px one),
#: mean IoU 0.9224 -> 0.9225, 15 more photos zoomed; the rule committed before its one run on fresh
#: seed 13 said it ships (mean IoU 0.8595 -> 0.8596, photos below rembg 2 -> 2, 4 of 60 changed).
ZOOM_AREA = 0.15
#: Margin of the zoom crop around the first mask's box, as a share of the box's size on each side
#: (0.5 and 1.0 score within 0.01 IoU of each other on the tuning photos; 0.5 is the better on most).
ZOOM_MARGIN = 0.5
#: The zoomed mask is discarded when it covers more than this share of its crop's inner sides (the
#: product reaches out of the crop: the first mask's box was wrong).
ZOOM_BORDER = 0.2
#: :attr:`Pick.source` of a zoomed mask.
ZOOM_SOURCE = f"{NETWORK_INPUT_PX}-zoom"


def _wants_zoom(sig: dict[str, float]) -> bool:
    """Whether a first mask that raised no doubt is small enough to be zoomed into (:data:`ZOOM_AREA`)."""
    return sig["area"] < ZOOM_AREA


def _leaves_crop(crop_mask: np.ndarray, box: tuple[int, int, int, int], shape: tuple[int, int]) -> bool:
    """Whether a crop's binary mask covers more than :data:`ZOOM_BORDER` of the crop's sides that are not
    the frame's own border (``box`` = (x0, y0, x1, y1) in a frame of ``shape`` = (H, W)): the object goes
    on past the crop, so the crop did not hold all of it."""
    x0, y0, x1, y1 = box
    h, w = shape
    edges = (
        (crop_mask[0], y0 > 0),
        (crop_mask[-1], y1 < h),
        (crop_mask[:, 0], x0 > 0),
        (crop_mask[:, -1], x1 < w),
    )
    sides = [side for side, inner in edges if inner]
    return bool(sides) and float(np.concatenate(sides).mean()) > ZOOM_BORDER


def _zoom(small: np.ndarray, first: np.ndarray, model_name: str) -> np.ndarray | None:
    """Second network look at a small product, on a crop around it.

    At 256 px a product covering 1 % of a 0.35 MP working image is ~25 px wide in the network's input
    (rembg at 320 px: ~32 px); on a crop of its box grown by :data:`ZOOM_MARGIN` per side it fills about
    half of the input, so its outline is drawn at (about) the working resolution.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        first: float32 (H, W) first network mask.
        model_name: a :data:`retouch.segment.U2NET_FAMILY` model.

    Returns:
        float32 (H, W) mask: the crop's network mask inside the crop (the first mask's box at 0.2,
        grown by :data:`ZOOM_MARGIN`) and 0 outside; ``None`` when the first mask is empty, or the
        zoomed mask is empty or leaves its crop (:data:`ZOOM_BORDER`).
    """
    b = first >= 0.2
    ys, xs = np.flatnonzero(b.any(axis=1)), np.flatnonzero(b.any(axis=0))
    if ys.size == 0:
        return None
    h, w = first.shape
    y0, y1, x0, x1 = int(ys[0]), int(ys[-1]) + 1, int(xs[0]), int(xs[-1]) + 1
    gy, gx = max(16.0, ZOOM_MARGIN * (y1 - y0)), max(16.0, ZOOM_MARGIN * (x1 - x0))
    box = (int(max(0, x0 - gx)), int(max(0, y0 - gy)), int(min(w, x1 + gx)), int(min(h, y1 + gy)))
    cx0, cy0, cx1, cy1 = box
    crop = predict_mask(np.ascontiguousarray(small[cy0:cy1, cx0:cx1]), model_name)
    cb = crop >= 0.5
    if cb.mean() < MIN_AREA or _leaves_crop(cb, box, (h, w)):
        return None
    mask = np.zeros_like(first)
    mask[cy0:cy1, cx0:cx1] = crop
    return mask


#: Refocus (:func:`_refocus`) on: a kept mask that fails the focus test is looked at again on its in-focus
#: part.
REFOCUS = True
#: Network input (px) of the refocus crop. 256 and 320 px give the same IoU on the tuning photos it runs on
#: (within 0.0003); 256 costs less.
REFOCUS_INPUT_PX = NETWORK_INPUT_PX
#: A kept mask whose :func:`focus_contrast` is below this gets the refocus (:func:`_refocus`): the focus
#: test's own threshold. A wider trigger was tried on the tuning data only (``bench/tune_refocus_trigger.py``,
#: 230 photos): refocusing every kept mask raised three photos (a truck on a blurred car
#: 0.161 -> 0.961, a bush 0.080 -> 0.981, a busy scene 0.722 -> 0.893) and lowered 27 good ones by up to
#: 0.50 (the sharp part of a product taken for the product), mean IoU 0.9224 -> 0.9130, good photos flagged
#: 14 -> 43; the focus value does not separate them (the truck 1.163, GT photo 208001, which loses 0.26, 1.157).
REFOCUS_BELOW = REVIEW_FOCUS
#: :attr:`Pick.source` of a refocused mask.
REFOCUS_SOURCE = "refocus"


def _refocus(small: np.ndarray, grey: np.ndarray, pick: Pick, model_name: str) -> Pick:
    """Look again at the in-focus part of a kept mask that is smoother inside than around it.

    A mask that fails the focus test (:func:`focus_contrast` < :data:`REVIEW_FOCUS`) holds a blurred
    object (a soft-focus cup under the product); the product is the sharp detail inside it. The network
    runs once more, at :data:`REFOCUS_INPUT_PX`, on the box of that detail (:func:`_focus_crop`, as the
    second look does when every candidate swallowed something soft), and the crop's mask replaces the kept
    one when it covers at least :data:`MIN_AREA` of the frame, does not go on past the crop's sides
    (:func:`_leaves_crop`: then the sharp detail is part of a larger object, such as a print on a plain
    product) and passes the focus test itself.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        grey: float32 (H, W) its luma (:func:`_grey`).
        pick: the kept pick, with its ``focus`` signal.
        model_name: a :data:`retouch.segment.U2NET_FAMILY` model.

    Returns:
        ``pick`` (one more network evaluation counted, signal ``refocus`` = 0) when the crop's mask is not
        used or no crop was found (no evaluation); else a new :class:`Pick` (source
        :data:`REFOCUS_SOURCE`, signals of the crop's mask, ``refocus`` = 1, ``kept_focus`` the old
        mask's focus) whose ``first`` is the crop's mask, so :func:`guard` checks the refined matte against
        it. Either way the result stays flagged for review (:func:`confidence`).
    """
    ratio, contrast = _sharpness_near(grey, pick.mask >= 0.5)
    crop = _focus_crop(small, {"kept": pick.mask}, ratio, contrast)
    if crop is None:
        return pick
    x0, y0, x1, y1 = crop
    crop_mask = predict_mask(np.ascontiguousarray(small[y0:y1, x0:x1]), model_name, REFOCUS_INPUT_PX)
    pick.evaluations += 1
    pick.signals["refocus"] = 0.0
    if _leaves_crop(crop_mask >= 0.5, crop, grey.shape):  # a detail of a larger object, not a product
        return pick
    inner = np.zeros_like(pick.mask)
    inner[y0:y1, x0:x1] = crop_mask
    binary = inner >= 0.5
    if float(binary.mean()) < MIN_AREA:
        return pick
    focus = focus_contrast(grey, binary)
    if focus < REVIEW_FOCUS:
        return pick
    ratio, contrast = _sharpness_near(grey, binary)
    signals = {**pick.signals, **mask_signals(inner, ratio, contrast)}
    signals.update(refocus=1.0, kept_focus=pick.signals["focus"], focus=min(focus, 99.0))
    return Pick(inner, REFOCUS_SOURCE, pick.evaluations, signals, first=inner)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = int((a | b).sum())
    return 1.0 if union == 0 else int((a & b).sum()) / union


#: The mirrored 256 px pass (:func:`second_opinion`) runs when the first mask's :func:`wide_half_confident_share`
#: is above this; ``inf``: never (as shipped). Tuned on tuning data only by ``bench/tune_mirror.py``
#: (GT tuning fold 20, tuning composites of seeds 1, 3, 4, 5 120, the 56 tuning car views of
#: ``bench/carvana_views.py --tuning``): at 0.05, with :data:`MIRROR_DEFER_SMALL`, mean IoU (photos more than
#: 0.05 below plain rembg) without -> with the pass: GT fold 0.9121 (0) -> 0.9162 (0), composites 0.9318 (3)
#: -> 0.9380 (2), car views 0.9655 (1) -> 0.9664 (0), on 6 of ``make bench-speed``'s 53 photos. Its rule
#: fixed beforehand, ``bench/confirm_mirror.py`` on 60 fresh composites (seed 15) switched it off: mean IoU
#: 0.9123 -> 0.9109, photos more than 0.05 below rembg 2 -> 3. Kept so the tuning scripts can measure it.
MIRROR_SHARE = math.inf

#: The mirrored mask may only lower first-mask pixels below this (:func:`second_opinion`): the product's
#: confident core is never taken from it. Chosen with :data:`MIRROR_SHARE` (``min`` everywhere lost
#: 0.9121 -> 0.8897 on the GT tuning fold).
MIRROR_KEEP = 0.9


def wide_half_confident_share(mask: np.ndarray) -> float:
    """Share of a mask that is half-confident in wide regions, relative to its size.

    The mask is resized to 256 x 256 px (bilinear); its pixels in (0.3, 0.8) are opened with a 5 x 5 square
    (a product's own soft outline, 1-3 px wide at that size, does not survive the opening), and their count is
    divided by the count of pixels >= 0.5 (at least 1). On real studio car photos whose first mask joined
    the wall's large letters behind the roof to the car it is 0.03-0.15; a first mask with no wide
    half-confident region gives 0.

    Args:
        mask: float32 (H, W) in [0, 1], a network mask.

    Returns:
        the share, >= 0 (can exceed 1 when the mask is mostly half-confident).
    """
    m = np.asarray(
        Image.fromarray(mask.astype(np.float32), "F").resize((256, 256), Image.Resampling.BILINEAR)
    )
    wide = ndi.binary_opening((m > 0.3) & (m < 0.8), structure=np.ones((5, 5), dtype=bool))
    return float(wide.sum() / max(int((m >= 0.5).sum()), 1))


def second_opinion(first: np.ndarray, mirrored: np.ndarray) -> np.ndarray:
    """The first mask, lowered to the mirrored pass's where the first is below :data:`MIRROR_KEEP`.

    U^2-Net is not mirror-symmetric: on a studio car photo the first pass can join large half-confident wall
    letters to the car, which the pass on the mirrored photo mostly leaves out. Where the first mask is sure
    (>= :data:`MIRROR_KEEP`) it is kept, so the mirrored pass can only take doubtful regions away.

    Args:
        first: float32 (H, W) in [0, 1], the first 256 px mask.
        mirrored: float32 (H, W) in [0, 1], the 256 px mask of the mirrored photo, mirrored back.

    Returns:
        float32 (H, W) in [0, 1].
    """
    return np.where(first >= MIRROR_KEEP, first, np.minimum(first, mirrored)).astype(np.float32)


#: A small product (no doubt, :func:`_wants_zoom`) gets its mirrored pass only when the zoom gives no mask:
#: the zoom looks at it again anyway. On the tuning composites (``bench/tune_mirror.py``, rule ``lower`` vs
#: ``lower-defer`` at :data:`MIRROR_SHARE`) 22 -> 13 extra passes, mean IoU 0.9369 -> 0.9380, photos more
#: than 0.05 below rembg 1 -> 2; the GT fold and the car views unchanged; on the speed photos 9 -> 6 passes.
MIRROR_DEFER_SMALL = True


def _mirrored_second_opinion(small: np.ndarray, first: np.ndarray, model_name: str) -> np.ndarray:
    """:func:`second_opinion` of the 256 px pass on the mirrored photo (mirrored back) on ``first``."""
    mirrored = predict_mask(np.ascontiguousarray(small[:, ::-1]), model_name)[:, ::-1]
    return second_opinion(first, np.ascontiguousarray(mirrored))


def pick_product(small: np.ndarray, model_name: str = DEFAULT_MODEL, *, force: bool = False) -> Pick:
    """Network mask of the product at the working resolution, with a second look when in doubt.

    Args:
        small: uint8 (H, W, 3) sRGB photo at the working resolution.
        model_name: rembg model; the multi-size look needs a :data:`retouch.segment.U2NET_FAMILY` model
            (others get their single native-size mask).
        force: run the second look whatever the doubt test says (benchmarks, tuning).

    Returns:
        :class:`Pick`. ``signals`` holds the chosen mask's signals (:func:`mask_signals`), ``doubt``
        (0/1), ``zoom`` (1.0 when the zoomed mask was chosen), ``first_sharp`` (the 256 px mask's sharp share), ``focus`` (the kept mask's :func:`focus_contrast`, capped at 99), ``agreement`` (the lowest IoU at 0.5
        between the 256 px, 320 px and mirrored 320 px masks; 1.0 when the second look did not run)
        and ``sharp_gain`` (sharp share of the chosen mask minus the first's); for U^2-Net models, when
        :data:`MIRROR_SHARE` is finite, also ``mirror_share`` (the first mask's
        :func:`wide_half_confident_share`) and ``mirror`` (1.0 when the mirrored pass's :func:`second_opinion`
        replaced the first mask).

    Raises:
        as :func:`retouch.segment.predict_mask`.
    """
    from .segment import U2NET_FAMILY

    first = predict_mask(small, model_name)
    first_evaluations = 1
    grey = _grey(small)
    # the first mask's outline is all the doubt test looks at: sharpness around its box only
    ratio, contrast = _sharpness_near(grey, first >= 0.5)
    sig = mask_signals(first, ratio, contrast)
    mirror_signals: dict[str, float] = {}
    deferred = False
    if model_name in U2NET_FAMILY and math.isfinite(MIRROR_SHARE):
        share = wide_half_confident_share(first)
        mirror_signals = {"mirror_share": share, "mirror": 0.0}
        if share > MIRROR_SHARE:
            deferred = MIRROR_DEFER_SMALL and not (in_doubt(sig) or force) and _wants_zoom(sig)
            if not deferred:
                first = _mirrored_second_opinion(small, first, model_name)
                first_evaluations, mirror_signals["mirror"] = 2, 1.0
                ratio, contrast = _sharpness_near(grey, first >= 0.5)
                sig = mask_signals(first, ratio, contrast)
    doubt = in_doubt(sig)
    signals: dict[str, float] = {
        **sig,
        "doubt": float(doubt),
        "first_sharp": sig["sharp"],
        "agreement": 1.0,
        "sharp_gain": 0.0,
        **mirror_signals,
    }
    if not (doubt or force) or model_name not in U2NET_FAMILY:
        pick = Pick(first, str(NETWORK_INPUT_PX), first_evaluations, signals, first=first)
        if model_name in U2NET_FAMILY and _wants_zoom(sig):
            mask = _zoom(small, first, model_name)
            if mask is not None:
                ratio, contrast = _sharpness_near(grey, mask >= 0.5)
                signals.update(mask_signals(mask, ratio, contrast))
                signals["zoom"] = 1.0
                pick = Pick(mask, ZOOM_SOURCE, first_evaluations + 1, signals, first=first)
            elif deferred:  # the zoom's pass ran and gave nothing: the mirrored pass after all
                first = _mirrored_second_opinion(small, first, model_name)
                ratio, contrast = _sharpness_near(grey, first >= 0.5)
                signals.update(mask_signals(first, ratio, contrast), mirror=1.0)
                pick = Pick(first, str(NETWORK_INPUT_PX), first_evaluations + 2, signals, first=first)
        pick = _with_focus(pick, grey)
        if model_name in U2NET_FAMILY and REFOCUS and pick.signals["focus"] < REFOCUS_BELOW:
            pick = _refocus(small, grey, pick, model_name)
        return pick

    ratio, contrast = edge_sharpness(grey)  # the other candidates may reach anywhere
    # the 320 px passes shrink the photo as rembg does (Lanczos): ``alt`` is plain rembg's own mask
    alt = predict_mask(small, model_name, ALT_INPUT_PX, lanczos=True)
    flipped = predict_mask(np.ascontiguousarray(small[:, ::-1]), model_name, ALT_INPUT_PX, lanczos=True)[
        :, ::-1
    ]
    first_key, alt_key, flip_key = str(NETWORK_INPUT_PX), str(ALT_INPUT_PX), f"{ALT_INPUT_PX}-flip"
    candidates = {first_key: first, alt_key: alt, flip_key: np.ascontiguousarray(flipped)}
    scores = {first_key: sig} | {k: mask_signals(candidates[k], ratio, contrast) for k in (alt_key, flip_key)}
    binary = {k: m >= 0.5 for k, m in candidates.items()}
    # a size at which the network found (almost) nothing is no candidate: averaging it in would halve the
    # product's mask (and the refinement would then empty it)
    for k in sorted((k for k in candidates if scores[k]["area"] < MIN_AREA), key=lambda k: scores[k]["area"]):
        if len(candidates) > 1:
            del candidates[k]
    # every candidate whose outline is about as sharp as the sharpest one is kept and they are averaged
    # (test-time augmentation over sizes and mirroring); a candidate clearly blurrier along its outline
    # (it swallowed a soft-focus object) is dropped
    best = max(scores[k]["sharp"] for k in candidates)
    evaluations = first_evaluations + 2
    if best < DOUBT_SHARP:
        # every mask swallowed something soft: look again at the in-focus part only
        crop = _focus_crop(small, candidates, ratio, contrast)
        if crop is not None:
            evaluations += 1
            x0, y0, x1, y1 = crop
            inner = np.zeros_like(first)
            inner[y0:y1, x0:x1] = predict_mask(
                np.ascontiguousarray(small[y0:y1, x0:x1]), model_name, ALT_INPUT_PX
            )
            candidates["crop"] = inner
            scores["crop"] = mask_signals(inner, ratio, contrast)
            binary["crop"] = inner >= 0.5
            if scores["crop"]["area"] < MIN_AREA:
                del candidates["crop"], scores["crop"], binary["crop"]
            best = max(scores[k]["sharp"] for k in candidates)
    members = [k for k in candidates if scores[k]["sharp"] >= best - PICK_MARGIN]
    key = "+".join(members)
    mask = candidates[members[0]] if len(members) == 1 else np.mean([candidates[k] for k in members], axis=0)
    mask = mask.astype(np.float32, copy=False)
    chosen = scores[members[0]] if len(members) == 1 else mask_signals(mask, ratio, contrast)
    signals.update(chosen)
    signals.update(
        first_sharp=sig["sharp"],
        agreement=min(
            _iou(binary[a], binary[b])
            for a, b in ((first_key, alt_key), (alt_key, flip_key), (first_key, flip_key))
        ),
        sharp_gain=chosen["sharp"] - sig["sharp"],
        safe_sharp=scores[alt_key]["sharp"],
    )
    return _with_focus(Pick(mask, key, evaluations, signals, safe=alt, first=first), grey)


#: :func:`guard`: our matte covering less than this share of the reference mask's area is "empty". Small:
#: a product correctly picked off the blurred cup rembg kept covers 5-25 % of rembg's mask; on the tuning
#: data 0.1 costs 0.045 mean IoU, 0 and 0.05 score the same.
EMPTY_SHARE = 0.05
#: :func:`guard`: IoU between our matte and plain rembg's mask below which the two disagree ... On the
#: tuning data (``bench/tune_guard.py``, 80 photos, working resolution; rembg 0.832) the mean IoU / photos
#: more than 0.05 below rembg are, for 0 (no disagreement rule) / 0.5 / 0.7 / 0.8 / 0.9 / always:
#: 0.9152 / 4, 0.9152 / 4, 0.9200 / 3, 0.9198 / 3, 0.9183 / 3, 0.9179 / 3 (without the guard and the
#: ``components < 1`` trigger: 0.9047 / 5). Higher values fall back on photos where ours was better.
DISAGREE_IOU = 0.7
#: ... and the disagreement is settled for our matte only when the chosen mask's outline is at least this
#: much sharper (share of in-focus outline, :func:`mask_signals`) than rembg's mask's outline. 0.1 and 0.15
#: score the same on the tuning data, 0.3 loses 0.01 mean IoU (it reverts correct picks).
DECISIVE_SHARP = 0.15
#: Confidence given to a result that fell back to the safe mask (below :data:`REVIEW_BELOW`: flagged).
FALLBACK_CONFIDENCE = 0.5


def guard(small: np.ndarray, alpha: np.ndarray, pick: Pick) -> tuple[np.ndarray, str | None]:  # noqa: ARG001
    """Never return much less than plain rembg: fall back to the safe mask when our matte is in doubt.

    The reference is plain rembg's mask (:attr:`Pick.safe`, 320 px) when the second look ran, else the
    first network mask. Our refined matte falls back to the refined reference when

    * it is (nearly) empty: it covers less than :data:`EMPTY_SHARE` of the reference's area while the
      reference holds a product (at least :data:`MIN_AREA` of the frame): the pick or the refinement
      removed what the network found;
    * or, with rembg's mask at hand, the two disagree (IoU < :data:`DISAGREE_IOU`) and the evidence for
      ours is not decisive: the chosen mask's outline is not at least :data:`DECISIVE_SHARP` sharper than
      rembg's (a mask that kept a soft-focus cup has a blurred outline; a product has a sharp one).

    The fallback is the reference mask itself (with rembg's mask: plain rembg's answer at the working
    resolution). It sets the signal ``fallback`` (1.0) and records ``safe_iou`` (IoU of our matte and
    rembg's, 1.0 without the second look); :func:`confidence` flags every fallback.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) refined matte (:func:`retouch.matte.refine_matte` of ``pick.mask``).
        pick: the :class:`Pick` it came from; its ``signals`` and ``source`` are updated.

    Returns:
        ``(alpha, reason)``: the matte to use and ``None``, ``"empty"`` or ``"disagree"``.
    """
    ref = pick.safe if pick.safe is not None else pick.first
    ours = alpha >= 0.5
    pick.signals["fallback"] = 0.0
    pick.signals["safe_iou"] = 1.0
    if ref is None:
        return alpha, None
    ref_b = ref >= 0.5
    if pick.safe is not None:
        pick.signals["safe_iou"] = _iou(ours, ref_b)
    ref_area = float(ref_b.mean())
    if ref_area < MIN_AREA:  # the network found (almost) nothing there either: nothing safer to offer
        return alpha, None
    reason: str | None = None
    if float(ours.mean()) < EMPTY_SHARE * ref_area:
        reason = "empty"
    elif (
        pick.safe is not None
        and pick.signals["safe_iou"] < DISAGREE_IOU
        and pick.signals["sharp"] - pick.signals.get("safe_sharp", 0.0) < DECISIVE_SHARP
    ):
        reason = "disagree"
    if reason is None:
        return alpha, None
    # the safe mask as the network gave it: refining it (even without ghost fading and trapped-background
    # cuts) can lose what rembg kept: on the tuning data it averages +0.006 IoU but loses up to 0.064
    fallback = ref.astype(np.float32)
    pick.signals["fallback"] = 1.0
    pick.source = ALT_SOURCE if pick.safe is not None else str(NETWORK_INPUT_PX)
    return fallback, reason


#: After a fallback, look again at the in-focus part of the safe mask (:func:`refocus_fallback`).
REFOCUS_FALLBACK = True


def refocus_fallback(
    small: np.ndarray, fallback: np.ndarray, pick: Pick, model_name: str
) -> np.ndarray | None:
    """After :func:`guard` fell back: the product inside the safe mask, when one sharp object stands out.

    The safe mask is plain rembg's answer, and where the guard falls back on a salient photo it is often
    as wrong as rembg: the large blurred object with the product on it. The refocus (:func:`_refocus`) is
    tried on it whatever its focus: one more network evaluation on the box of the in-focus detail inside
    it, used when the crop's mask stays inside its crop and passes the focus test. On the tuning photos
    (12 fallbacks among 220) it turned 6 of them from IoU 0.03-0.21 into 0.95-0.99 and left
    the other 6 unchanged. The result stays flagged for review (:func:`confidence`).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        fallback: float32 (H, W) the guard's fallback mask.
        pick: the :class:`Pick` the guard fell back from; on success its ``source`` becomes
            :data:`REFOCUS_SOURCE` and its signals gain ``refocus`` (1.0, or 0.0 when tried but not used),
            ``kept_focus`` and the crop mask's :func:`mask_signals` and ``focus``; ``evaluations`` counts
            the extra pass.
        model_name: rembg model (others than :data:`retouch.segment.U2NET_FAMILY` are left alone).

    Returns:
        float32 (H, W) the crop's network mask (0 outside the crop), to be refined; ``None`` when it is not
        used.
    """
    from .segment import U2NET_FAMILY

    if not REFOCUS_FALLBACK or model_name not in U2NET_FAMILY:
        return None
    grey = _grey(small)
    kept = Pick(fallback, pick.source, pick.evaluations, dict(pick.signals))
    kept.signals["focus"] = min(focus_contrast(grey, fallback >= 0.5), 99.0)
    new = _refocus(small, grey, kept, model_name)
    pick.evaluations = new.evaluations
    if "refocus" in new.signals:
        pick.signals.update(new.signals)
    if new.source != REFOCUS_SOURCE:
        return None
    pick.source = new.source
    return new.mask


#: :attr:`Pick.source` of a result that fell back to plain rembg's mask.
ALT_SOURCE = f"{ALT_INPUT_PX}-safe"


#: Logistic-regression weights of :func:`confidence`: feature (a key of :attr:`Pick.signals`) -> weight,
#: plus ``bias``. Fitted by ``python -m bench.tune_pick --composites 30`` (L2 0.1, target IoU >= 0.9) on the
#: tuning data only: the 20 photos of the GT tuning fold and 30 tuning composites (9 of the 50 below
#: IoU 0.9). The most telling signals: a half-confident mask (``uncertain``), a blurred outline
#: (``sharp``), a mask filling the frame (``area``, ``border``) and a doubtful first pass (``doubt``).
CONFIDENCE_WEIGHTS: dict[str, float] = {
    "bias": 3.007,
    "sharp": 2.246,
    "uncertain": -3.387,
    "area": -2.069,
    "border": -1.372,
    "centre": -1.324,
    "agreement": -1.964,
    "doubt": -1.802,
}

#: Confidence below which a result is flagged ``needs_review``. On the tuning data (same fit) 0.6 flags
#: 7 of the 9 photos below IoU 0.9 and 1 of the 41 good ones; 0.4-0.5 flag 6 and 1.
REVIEW_BELOW = 0.6


def confidence(signals: dict[str, float]) -> tuple[float, bool]:
    """Confidence that the matte is right (IoU >= 0.9 against a careful hand mask), and the review flag.

    A logistic model over :func:`mask_signals`-style features (:data:`CONFIDENCE_WEIGHTS`, fitted on the
    tuning GT fold and the tuning composites by ``bench/tune_pick.py``), capped at
    :data:`FALLBACK_CONFIDENCE` (so flagged) where the guard fell back to the safe mask, where the kept
    mask is smoother inside than around it (``focus`` below :data:`REVIEW_FOCUS`), or where at least
    :attr:`retouch.openings.OpeningsConfig.review_doubt` of the matte looks like the background around
    it but was not cut as an opening (``openings_doubtful``).

    Args:
        signals: :attr:`Pick.signals`.

    Returns:
        ``(confidence in [0, 1] rounded to 3 decimals, needs_review)``.
    """
    z = CONFIDENCE_WEIGHTS.get("bias", 0.0)
    for k, wgt in CONFIDENCE_WEIGHTS.items():
        if k != "bias":
            z += wgt * float(signals.get(k, 0.0))
    c = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    if signals.get("fallback", 0.0) >= 0.5:  # our own matte was given up for the safe mask: doubtful
        c = min(c, FALLBACK_CONFIDENCE)
    if signals.get("focus", math.inf) < REVIEW_FOCUS:  # the kept mask is a soft object among sharp ones
        c = min(c, FALLBACK_CONFIDENCE)
    if "refocus" in signals:  # it was one: whether or not the refocused mask is used, a designer checks
        c = min(c, FALLBACK_CONFIDENCE)
    if signals.get("openings_doubtful", 0.0) >= DEFAULT_OPENINGS.review_doubt:
        # part of the matte looks like the background seen around it but could not be cut safely
        c = min(c, FALLBACK_CONFIDENCE)
    return round(c, 3), bool(c < REVIEW_BELOW)


def details(pick: Pick) -> dict[str, Any]:
    """The ``processing_details`` entries of a pick: ``confidence``, ``needs_review``, ``segmentation``."""
    c, review = confidence(pick.signals)
    return {
        "confidence": c,
        "needs_review": review,
        "segmentation": {
            "source": pick.source,
            "network_evaluations": pick.evaluations,
            "signals": {k: round(float(v), 4) for k, v in pick.signals.items()},
        },
    }
