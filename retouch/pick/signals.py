"""Cheap signals of a network mask, measured on the photo without another network call.

* :func:`edge_sharpness`: how sharp the photo is along the mask's outline (a product is the in-focus
  object; a mask that swallowed a soft-focus object has a long blurred stretch of outline);
* :func:`mask_signals`: that sharp share plus the mask's share of the frame, of its border, its
  half-confident share, its parts and its centre;
* :func:`focus_contrast`: fine detail inside the mask over the ring around it (a large blurred object is
  smoother inside than the sharp texture around it);
* :class:`Pick`: the chosen mask and the signals it carries through the guard to the confidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage as ndi

from .config import PickConfig

__all__ = [
    "Pick",
    "edge_sharpness",
    "focus_contrast",
    "focus_detail",
    "frame_sides",
    "iou",
    "luma",
    "mask_signals",
    "sharpness_near",
    "with_focus",
]


@dataclass
class Pick:
    """The chosen coarse mask and what it was chosen from.

    Attributes:
        mask: float32 (H, W) in [0, 1], the network mask to refine.
        source: the candidates averaged into :attr:`mask`, joined by ``+``: ``"256"`` (first pass only),
            ``"320"``, ``"320-flip"`` (mirrored photo), ``"crop"`` (the in-focus part), e.g.
            ``"256+320+320-flip"``; or ``"256-zoom"`` (:func:`retouch.pick.crops.zoom`, a small product looked
            at again), ``"refocus"`` (:func:`retouch.pick.crops.refocus`).
        evaluations: network evaluations spent (1 when the first mask raised no doubt and the product is
            not small, 2 with the zoom, 3 with the second look, one more for a crop).
        signals: measurable signals (floats) used for the confidence, JSON-serialisable.
        safe: plain rembg's mask (u2netp at 320 px on the Lanczos-shrunk photo, exactly as ``rembg``
            computes it) when the second look ran, else ``None``; :func:`retouch.pick.guard` falls back to it.
        first: the first (256 px) network mask.
    """

    mask: np.ndarray
    source: str
    evaluations: int
    signals: dict[str, float] = field(default_factory=dict)
    safe: np.ndarray | None = None
    first: np.ndarray | None = None


def luma(rgb: np.ndarray) -> np.ndarray:
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

    def pooled(x: np.ndarray, extreme: np.ufunc) -> np.ndarray:
        # block maxima (or minima), ``np.max(np.max(xp, axis=3), axis=1)``: the block's rows are folded with
        # ``extreme`` slice by slice, then its columns, instead of numpy's slow reduction over 5-long axes
        # (~20x faster; a maximum or minimum is exact in any order)
        xp = np.pad(x, pad, mode="edge").reshape(hb, block, wb, block)
        rows = xp[:, 0].copy()
        for i in range(1, block):
            extreme(rows, xp[:, i], out=rows)
        out = rows[..., 0].copy()
        for j in range(1, block):
            extreme(out, rows[..., j], out=out)
        return out

    gmax = ndi.maximum_filter(pooled(mag, np.maximum), size=3)
    contrast = ndi.maximum_filter(pooled(grey, np.maximum), size=3) - ndi.minimum_filter(
        pooled(grey, np.minimum), size=3
    )
    ratio = gmax / np.maximum(contrast, 1e-3)

    def full(x: np.ndarray) -> np.ndarray:
        return np.repeat(np.repeat(x.astype(np.float32), block, axis=0), block, axis=1)[:h, :w]

    return full(ratio), full(contrast)


def sharpness_near(grey: np.ndarray, binary: np.ndarray, block: int = 5) -> tuple[np.ndarray, np.ndarray]:
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


def _sharp_share(
    binary: np.ndarray, ratio: np.ndarray, contrast: np.ndarray, config: PickConfig
) -> tuple[float, float]:
    """(share of measurable outline pixels that are sharp, share of outline pixels that are measurable)."""
    out = _outline(binary)
    # the frame border is not an edge of the object
    out[0, :] = out[-1, :] = False
    out[:, 0] = out[:, -1] = False
    n = int(out.sum())
    if n == 0:
        return 0.0, 0.0
    measurable = out & (contrast >= config.min_contrast)
    m = int(measurable.sum())
    if m == 0:
        return 0.0, 0.0
    return float((ratio[measurable] >= config.sharp_ratio).sum()) / m, m / n


def mask_signals(
    mask: np.ndarray, ratio: np.ndarray, contrast: np.ndarray, *, config: PickConfig
) -> dict[str, float]:
    """Cheap signals of one network mask (no network call).

    Args:
        mask: float32 (H, W) in [0, 1].
        ratio, contrast: from :func:`edge_sharpness` on the same photo.
        config: its :attr:`~PickConfig.sharp_ratio` and :attr:`~PickConfig.min_contrast` judge the outline.

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
    sharp, cover = _sharp_share(b, ratio, contrast, config)
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


def focus_detail(grey: np.ndarray, binary: np.ndarray, *, config: PickConfig) -> tuple[float, float] | None:
    """Fine detail inside a mask and in the ring around it (the two halves of :func:`focus_contrast`).

    Args:
        grey: float32 (H, W) in [0, 1] at the working resolution.
        binary: bool (H, W) mask (mask >= 0.5).

    Returns:
        ``(inside, ring)``: mean |Laplacian| (scipy, 4-neighbour; grey levels in [0, 1] per px) inside
        ``binary`` eroded by :attr:`~PickConfig.focus_erode_px` px and in the ring :attr:`~PickConfig.focus_ring_px` px outside it,
        computed in the mask's box grown by the ring's outer radius only; ``None`` when the mask, its
        eroded inside or its ring is empty.
    """
    ys, xs = np.flatnonzero(binary.any(axis=1)), np.flatnonzero(binary.any(axis=0))
    if ys.size == 0:
        return None
    h, w = binary.shape
    r_in, r_out = config.focus_ring_px
    y0, y1 = max(0, int(ys[0]) - r_out - 1), min(h, int(ys[-1]) + r_out + 2)
    x0, x1 = max(0, int(xs[0]) - r_out - 1), min(w, int(xs[-1]) + r_out + 2)
    b = binary[y0:y1, x0:x1]
    lap = np.abs(ndi.laplace(grey[y0:y1, x0:x1]))
    inner = ndi.binary_erosion(b, iterations=config.focus_erode_px)
    dist = ndi.distance_transform_edt(~b)
    ring = (dist >= r_in) & (dist <= r_out)
    if not inner.any() or not ring.any():
        return None
    return float(lap[inner].mean()), float(lap[ring].mean())


def focus_contrast(grey: np.ndarray, binary: np.ndarray, *, config: PickConfig) -> float:
    """Fine detail inside a mask over fine detail in the ring around it.

    The product is the in-focus object the photo was taken of: its inside carries at least as much
    fine detail as its surroundings, while a large blurred object behind it (a cup under the product)
    is smoother than the sharp table or texture around it. The edge-sharpness test
    (:func:`edge_sharpness`) misses that case when the outline's 15 x 15 px windows reach into a sharp
    background; this measure stays off the outline (:attr:`~PickConfig.focus_erode_px`,
    :attr:`~PickConfig.focus_ring_px`). A plain backdrop around the mask (ring detail below
    :attr:`~PickConfig.focus_ring_min`: a studio sweep, a wall) says nothing about focus: a flat-coloured product on it is not a blurred object.

    Args:
        grey: float32 (H, W) in [0, 1] at the working resolution.
        binary: bool (H, W) mask (mask >= 0.5).

    Returns:
        :func:`focus_detail`'s inside over its ring; ``inf`` when either region is empty or the ring's
        detail is below :attr:`~PickConfig.focus_ring_min` (nothing to compare: no doubt from this test).
    """
    detail = focus_detail(grey, binary, config=config)
    if detail is None or detail[1] < config.focus_ring_min:
        return math.inf
    return detail[0] / detail[1]


def with_focus(pick: Pick, grey_image: np.ndarray, *, config: PickConfig) -> Pick:
    """``pick`` with the signal ``focus``: its mask's :func:`focus_contrast`, capped at 99 (JSON-safe)."""
    pick.signals["focus"] = min(focus_contrast(grey_image, pick.mask >= 0.5, config=config), 99.0)
    return pick


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two bool (H, W) masks; 1.0 when both are empty."""
    union = int((a | b).sum())
    return 1.0 if union == 0 else int((a & b).sum()) / union


def frame_sides(alpha: np.ndarray, *, config: PickConfig) -> float:
    """Number of frame sides (0-4, as a float signal) along which the matte (``alpha >= 0.5``, float32 (H, W))
    covers more than :attr:`~PickConfig.frame_side_share` of the side's length: a product cut by the frame on one
    side is common (a table leg, a sleeve); a matte that runs out of the frame on two or more sides has often
    kept the floor, a wall or a surface the product stands on."""
    share = config.frame_side_share
    return float(sum(covered > share for covered in side_shares(alpha)))


def side_shares(alpha: np.ndarray) -> tuple[float, float, float, float]:
    """Share (0-1) of each frame side's length the matte covers (``alpha >= 0.5``; float32 (H, W) in [0, 1]):
    top, bottom, left, right. Only the frame's pixels are read."""
    top, bottom, left, right = (
        float((edge >= 0.5).mean()) for edge in (alpha[0], alpha[-1], alpha[:, 0], alpha[:, -1])
    )
    return top, bottom, left, right
