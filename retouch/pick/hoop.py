"""A hoop or handle of the product left outside the matte: a thin one-colour band running out of its outline.

A mug's or a bag's C-shaped handle, or a hoop, drawn on a busy or textured backdrop is sometimes left out of the
matte while the rest of the product is cut well; the confidence then stays high. Outside the matte such a part is
a band of roughly constant width along a circle's arc, in one of the product's colours, unlike the backdrop on
both of its sides, and it runs out of the matte's outline. :func:`hoop_arc` measures the longest such arc:

* the matte's box, grown by :data:`GROW` of its long side on each side, is resized to at most :data:`SIDE` px;
* circles are proposed by OpenCV's ``HOUGH_GRADIENT_ALT`` (dp 1.5, circularity 0.5, radii 0.08-0.6 of the
  matte's long side) on the blurred grey box; only those passing within 2 px of the matte's outer outline (holes
  filled, dilated 2 px) are kept, at most :data:`MAX_CIRCLES`;
* each circle is read as the inner edge, the middle or the outer edge of a band :data:`BAND_WIDTHS` of its radius
  wide; at :data:`ANGLES` angles around it the band's middle is sampled, and its two neighbours 0.7 band widths
  inside and outside the band;
* an angle is part of the band when the band and both neighbours lie outside the outline, the band keeps the arc's
  median chromaticity (within :data:`CHROMA_TOL`, brightness 0.65-1.5 times the median: a handle is shaded) and
  both neighbours differ from it by more than :data:`CONTRAST` RGB levels; the arc's median colour must be one of
  the product's (within :data:`PRODUCT_TOL` levels of at least :data:`PRODUCT_SHARE` of the matte's pixels);
* the signal ``hoop_arc`` is the longest run of such angles that meets the outline (the band in the outline within
  2 angles of the run's end), in degrees.

A backdrop's filled discs fail the contrast on their inner side, a blurred backdrop's soft rings the colour test,
a hoop or handle inside the matte the outline test. Constants were fixed before the threshold was chosen (the
left-out band review record in ``docs/decisions/``), the threshold on tuning photos only. Cost: about 16 ms CPU per
photo on average at :data:`SIDE` px (up to ~0.09 s on a busy backdrop); :func:`with_hoop_arc` runs it only on
results the confidence does not already flag.
"""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .confidence import confidence
from .config import SHIPPED_PICK, PickConfig
from .signals import Pick

__all__ = ["ANGLES", "hoop_arc", "longest_attached_run", "with_hoop_arc"]

#: Long side (px) of the box the circles are searched on (a handle 0.05-0.1 of the product wide is 3-6 px).
SIDE = 160
#: The matte's box is grown by this share of its long side on each side (a handle reaches up to ~0.8 of the
#: product's height out of it).
GROW = 0.75
#: Angles sampled around a circle (5 degrees apart).
ANGLES = 72
#: Band widths tried, as shares of the circle's radius (handles are 0.18-0.3 of their outer radius wide).
BAND_WIDTHS = (0.2, 0.3, 0.4)
#: Chromaticity distance (levels of ``255 * rgb / sum(rgb)``) within which the band keeps its colour.
CHROMA_TOL = 12.0
#: RGB distance (levels) the band's neighbours must keep from it on both sides.
CONTRAST = 30.0
#: RGB distance (levels) from a matte pixel for the band's colour to be the product's.
PRODUCT_TOL = 25.0
#: Share of the matte's pixels (of at most 600 sampled evenly) that must lie that close.
PRODUCT_SHARE = 0.02
#: Most circles examined per photo (OpenCV returns them strongest first).
MAX_CIRCLES = 100


def longest_attached_run(good: np.ndarray, touch: np.ndarray, both_ends: bool = False) -> int:
    """Length of the longest circular run of True in ``good`` (bool (n,)) that has a True of ``touch`` (bool (n,))
    within 2 steps before or after it (within 3 steps on both sides, with ``both_ends``); 0 when none does. A run
    covering the whole circle counts ``n``."""
    n = len(good)
    if good.all():
        return n
    start = int(np.flatnonzero(~good)[0])
    g, t = np.roll(good, -start), np.roll(touch, -start)
    reach = 3 if both_ends else 2
    best, i = 0, 0
    while i < n:
        if not g[i]:
            i += 1
            continue
        j = i
        while j < n and g[j]:
            j += 1
        before = t[[(i - 1 - k) % n for k in range(reach)]].any()
        after = t[[(j + k) % n for k in range(reach)]].any()
        if (before and after) if both_ends else (before or after):
            best = max(best, j - i)
        i = j
    return best


def hoop_arc(small: np.ndarray, alpha: np.ndarray) -> float:
    """Degrees (0-360) of the longest arc of a thin band in a product colour outside the matte that runs out of its
    outline (the module docstring lists the tests).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1] at the same resolution.

    Returns:
        The arc in degrees, a multiple of ``360 / ANGLES``; 0.0 for an empty matte or when no circle is found.

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    import cv2  # imported here: only results left unflagged by the other caps pay for loading it

    fg = alpha >= 0.5
    rows, cols = np.flatnonzero(fg.any(1)), np.flatnonzero(fg.any(0))
    if rows.size == 0:
        return 0.0
    h, w = fg.shape
    side = max(int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1))
    g = int(GROW * side)
    y0, y1 = max(0, int(rows[0]) - g), min(h, int(rows[-1]) + 1 + g)
    x0, x1 = max(0, int(cols[0]) - g), min(w, int(cols[-1]) + 1 + g)
    f = min(1.0, SIDE / max(y1 - y0, x1 - x0))
    size = (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f)))
    crop = np.ascontiguousarray(small[y0:y1, x0:x1])
    rgb = np.asarray(Image.fromarray(crop, "RGB").resize(size, Image.Resampling.BOX), np.float32)
    a = np.asarray(
        Image.fromarray(np.ascontiguousarray(alpha[y0:y1, x0:x1], dtype=np.float32), "F").resize(
            size, Image.Resampling.BOX
        )
    )
    m = a >= 0.5
    if not m.any():
        return 0.0
    outline = ndi.binary_dilation(ndi.binary_fill_holes(m), iterations=2)
    s = side * f
    grey = cv2.GaussianBlur(rgb.mean(2).astype(np.uint8), (5, 5), 1.0)
    found = cv2.HoughCircles(
        grey,
        cv2.HOUGH_GRADIENT_ALT,
        1.5,
        2,
        param1=60,
        param2=0.5,
        minRadius=max(3, int(0.08 * s)),
        maxRadius=int(0.6 * s) + 1,
    )
    if found is None:
        return 0.0
    circles = np.asarray(found, np.float64).reshape(-1, 3)
    oy, ox = np.nonzero(outline & ~ndi.binary_erosion(outline))
    near = [bool((np.abs(np.hypot(oy - cy, ox - cx) - r) <= 2.0).any()) for cx, cy, r in circles]
    circles = circles[np.array(near, bool)][:MAX_CIRCLES]
    prod = rgb[m]
    if len(prod) > 600:
        prod = prod[np.linspace(0, len(prod) - 1, 600).astype(int)]
    th = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False)
    cos, sin = np.cos(th), np.sin(th)
    hh, ww = m.shape
    planes = np.ascontiguousarray(np.moveaxis(rgb, -1, 0))
    best = 0
    for cx, cy, r in circles:
        # the band hypotheses: (middle radius, width); radii (k, 3) of the band and its inner and outer neighbour
        bands = [(r + sign * share * r / 2, share * r) for sign in (-1.0, 0.0, 1.0) for share in BAND_WIDTHS]
        bands = [(mid, t) for mid, t in bands if mid - t / 2 - 0.7 * t > 1]
        if not bands:
            continue
        mid, t = np.array(bands).T
        radii = np.stack([mid, mid - t / 2 - 0.7 * t, mid + t / 2 + 0.7 * t], 1)
        yy, xx = cy + radii[..., None] * sin, cx + radii[..., None] * cos
        inside = (yy >= 0) & (yy <= hh - 1) & (xx >= 0) & (xx <= ww - 1)
        on = outline[
            np.clip(np.round(yy).astype(int), 0, hh - 1), np.clip(np.round(xx).astype(int), 0, ww - 1)
        ]
        touch = inside[:, 0] & on[:, 0]
        valid = inside[:, 0] & inside[:, 2] & ~on.any(1)
        keep = np.flatnonzero((valid.sum(1) >= ANGLES // 4) & touch.any(1))
        if not len(keep):
            continue
        # bilinear colours of the kept hypotheses' points, one call for all three channels: (3 channels, k, 3, A)
        n = yy[keep].size
        coords = np.concatenate(
            [
                np.repeat(np.arange(3.0), n)[None],
                np.tile(yy[keep].ravel(), 3)[None],
                np.tile(xx[keep].ravel(), 3)[None],
            ]
        )
        colours = ndi.map_coordinates(planes, coords, order=1, mode="nearest").reshape(
            3, len(keep), 3, ANGLES
        )
        for j, k in enumerate(keep):
            cb, ci, co = (np.ascontiguousarray(colours[:, j, q].T) for q in range(3))
            ok = valid[k]
            med = np.median(cb[ok], 0)
            if float((np.linalg.norm(prod - med, axis=1) <= PRODUCT_TOL).mean()) < PRODUCT_SHARE:
                continue
            chroma = np.linalg.norm(
                cb / (cb.sum(1, keepdims=True) + 1e-3) * 255 - med / (med.sum() + 1e-3) * 255, axis=1
            )
            bright = cb.sum(1) / max(float(med.sum()), 1.0)
            same = (chroma <= CHROMA_TOL) & (bright > 0.65) & (bright < 1.5)
            contrast = (np.linalg.norm(ci - cb, axis=1) > CONTRAST) & (
                np.linalg.norm(co - cb, axis=1) > CONTRAST
            )
            best = max(best, longest_attached_run(ok & same & contrast, touch[k]))
    return best * 360.0 / ANGLES


def with_hoop_arc(
    small: np.ndarray, alpha: np.ndarray, pick: Pick, *, config: PickConfig = SHIPPED_PICK
) -> Pick:
    """``pick`` with the signal ``hoop_arc`` (:func:`hoop_arc`) added where it can change the review flag: the cap
    is switched on (:attr:`~PickConfig.review_hoop_arc` above 0) and :func:`confidence` does not flag the result
    already. Nothing else changes (the matte is never touched).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].
        pick: the result's :class:`Pick` (its ``signals`` are updated in place and it is returned).
        config: the thresholds.

    Raises:
        ModuleNotFoundError: OpenCV is not installed (only when the signal is measured).
    """
    if config.review_hoop_arc <= 0:
        return pick
    if confidence(pick.signals, config=config)[1]:
        return pick
    pick.signals["hoop_arc"] = hoop_arc(small, alpha)
    return pick
