"""Another object in the matte: a part taken from the backdrop photo, seen from the frame and from the outline.

A matte that joins the product to an object of the backdrop (a car of the backdrop photo running off the frame,
blurred apples behind a banana), or that holds a defocused backdrop object instead of the product, reads as a good
result to every signal of the network's view. Two cheap pieces of physical evidence, read from the final matte and
the working image only (:func:`joined_evidence`):

* **a part running off the frame that is another object**: the matte covers a long run of one frame side
  (:attr:`Joined.touch`, the largest share of one side's length) *and* its end at that side and its far end
  (the quarters of the matte nearest and farthest from that side) hold different colours
  (:attr:`Joined.ends_overlap`, the intersection of their colour histograms). A product cut by the frame (a car
  cropped by a close shot) has the same paint, glass and tyres at both ends; a backdrop object joined to a
  product placed in the frame does not.
* **a blurred outline**: a product photographed for sale is in focus, so where the outline separates two different
  colours the image changes there within a few pixels. A matte whose outline runs along defocused edges holds a
  blurred backdrop object. Per outline pixel (:data:`OUTLINE_SIDE` px scale) the contrast across the outline
  (colour 3 px inside vs 3 px outside, along the matte's normal) and the edge's width (that contrast over the
  strongest colour gradient across the outline within 2 px) are measured (:attr:`Joined.contrast`,
  :attr:`Joined.width`).

:func:`joined_signals` turns them into the signals ``frame_join`` and ``blurred_outline``; the confidence caps them
(:attr:`~retouch.pick.PickConfig.review_frame_join`, :attr:`~retouch.pick.PickConfig.review_blurred_outline`).
Cost: a few ms CPU per photo, no network pass; :func:`with_joined_object` runs it only on results the confidence
does not already flag.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .confidence import confidence
from .config import PickConfig
from .signals import Pick, side_shares

__all__ = ["OUTLINE_SIDE", "Joined", "joined_evidence", "joined_signals", "with_joined_object"]

#: Long side (px) of the copy of photo and matte the evidence is read at: edge widths are in its pixels.
OUTLINE_SIDE = 256
#: Distance (px at :data:`OUTLINE_SIDE`) inside and outside the outline at which the colours compared lie.
ACROSS = 3
#: Colour histogram bins per channel for the ends' colours (levels 0-255 in bins of 43).
BINS = 6
#: Fewest outline pixels with contrast for a blurred-outline share to be read (fewer: 0).
MIN_EDGES = 10


@dataclass(frozen=True)
class Joined:
    """What :func:`joined_evidence` read of one matte.

    Attributes:
        touch: largest share (0-1) of one frame side's length the matte (``alpha >= 0.5``) covers.
        ends_overlap: histogram intersection (0-1) of the colours of the matte's quarter nearest that side and of
            its quarter farthest from it (distance from the side, over the matte's extent); 1.0 when no frame side
            is touched.
        contrast: float32 (N,) RGB distance (levels) across the outline at its N inner outline pixels off the
            frame's edge (3 px inside vs 3 px outside along the matte's normal, photo smoothed by 1 px).
        width: float32 (N,) edge width there (px at :data:`OUTLINE_SIDE`): ``contrast`` over the strongest colour
            gradient across the outline within 2 px.
    """

    touch: float
    ends_overlap: float
    contrast: np.ndarray
    width: np.ndarray


def _colour_histogram(px: np.ndarray) -> np.ndarray:
    """Normalised colour histogram (``BINS**3`` bins, float64) of uint8 pixels (N, 3)."""
    q = np.minimum(px.astype(np.int64) // 43, BINS - 1)
    h = np.bincount((q[:, 0] * BINS + q[:, 1]) * BINS + q[:, 2], minlength=BINS**3).astype(np.float64)
    return h / max(float(h.sum()), 1.0)


def joined_evidence(small: np.ndarray, alpha: np.ndarray) -> Joined:
    """Read the frame and outline evidence of one matte.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].

    Returns:
        The :class:`Joined` measures (empty outline arrays for an empty matte).
    """
    h, w = alpha.shape
    s = OUTLINE_SIDE / max(h, w)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    img = np.asarray(Image.fromarray(small).resize(size, Image.Resampling.BILINEAR), np.float32)
    a = np.asarray(Image.fromarray(alpha.astype(np.float32)).resize(size, Image.Resampling.BILINEAR))
    m = a >= 0.5
    hh, ww = m.shape
    shares = side_shares(a)
    touch = max(shares)
    ends_overlap = 1.0
    if touch > 0:
        yy, xx = np.mgrid[:hh, :ww]
        k = int(np.argmax(shares))
        dist = (yy, hh - 1 - yy, xx, ww - 1 - xx)[k]
        extent = float(dist[m].max())
        near, far = m & (dist <= 0.25 * extent), m & (dist >= 0.75 * extent)
        if near.any() and far.any():
            pix = _to_uint8(img)
            ends_overlap = float(np.minimum(_colour_histogram(pix[near]), _colour_histogram(pix[far])).sum())
    empty = np.zeros(0, np.float32)
    edge = m & ~ndi.binary_erosion(m)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = False
    ys, xs = np.nonzero(edge)
    if len(ys) == 0:
        return Joined(touch, ends_overlap, empty, empty)
    soft = ndi.gaussian_filter(a.astype(np.float32), 2.0)
    gy, gx = np.gradient(soft)
    norm = np.hypot(gy[ys, xs], gx[ys, xs]) + 1e-9
    ny, nx = gy[ys, xs] / norm, gx[ys, xs] / norm  # towards the inside of the matte
    im = ndi.gaussian_filter(img, (1.0, 1.0, 0.0))

    def at(step: float) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.clip(np.round(ys + step * ny).astype(np.int64), 0, hh - 1),
            np.clip(np.round(xs + step * nx).astype(np.int64), 0, ww - 1),
        )

    contrast = np.linalg.norm(im[at(ACROSS)] - im[at(-ACROSS)], axis=1)
    grad_y = np.stack([ndi.sobel(im[..., c], 0) for c in range(3)]) / 8.0
    grad_x = np.stack([ndi.sobel(im[..., c], 1) for c in range(3)]) / 8.0
    steepest = np.zeros(len(ys))
    for step in (-2, -1, 0, 1, 2):
        py, px = at(step)
        across = grad_y[:, py, px] * ny + grad_x[:, py, px] * nx
        steepest = np.maximum(steepest, np.sqrt((across**2).sum(0)))
    width = contrast / (steepest + 1e-6)
    return Joined(touch, ends_overlap, contrast.astype(np.float32), width.astype(np.float32))


def _to_uint8(img: np.ndarray) -> np.ndarray:
    """``img`` (float32 (h, w, 3), 0-255) back to uint8 for the colour histograms."""
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def joined_signals(found: Joined, *, config: PickConfig) -> dict[str, float]:
    """The signals of :func:`joined_evidence`'s measures under ``config``.

    Returns:
        ``frame_join``: :attr:`Joined.touch` where the matte's two ends differ in colour
        (:attr:`Joined.ends_overlap` at most :attr:`~PickConfig.frame_join_overlap`), else 0;
        ``blurred_outline``: the share of the outline pixels with a contrast of at least
        :attr:`~PickConfig.blur_contrast` whose edge is wider than :attr:`~PickConfig.blur_width` (0 when
        fewer than :data:`MIN_EDGES` such pixels).
    """
    join = found.touch if found.ends_overlap <= config.frame_join_overlap else 0.0
    strong = found.contrast >= config.blur_contrast
    blurred = float((found.width[strong] > config.blur_width).mean()) if strong.sum() >= MIN_EDGES else 0.0
    return {"frame_join": round(join, 4), "blurred_outline": round(blurred, 4)}


def with_joined_object(small: np.ndarray, alpha: np.ndarray, pick: Pick, *, config: PickConfig) -> Pick:
    """``pick`` with the signals ``frame_join`` and ``blurred_outline`` (:func:`joined_signals`) added where they
    can change the review flag: a cap is switched on (:attr:`~PickConfig.review_frame_join` or
    :attr:`~PickConfig.review_blurred_outline` above 0) and :func:`confidence` does not flag the result already.
    Nothing else changes (the matte is never touched).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].
        pick: the result's :class:`Pick` (its ``signals`` are updated in place and it is returned).
        config: the thresholds.
    """
    if config.review_frame_join <= 0 and config.review_blurred_outline <= 0:
        return pick
    if confidence(pick.signals, config=config)[1]:
        return pick
    pick.signals.update(joined_signals(joined_evidence(small, alpha), config=config))
    return pick
