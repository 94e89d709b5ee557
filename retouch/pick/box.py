"""The matte's box at a small working scale, with the ring of clear backdrop around it, and a weighted local
average over it: what the backdrop-through review (:mod:`retouch.pick.through`) and the graph cut
(:mod:`retouch.pick.cut`) work on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

__all__ = ["WORK_SIDE", "MatteBox", "matte_box", "normalized_convolution"]

#: Long side (px) of the box the tests work at: openings worth flagging are several px wide at it.
WORK_SIDE = 128


@dataclass(frozen=True)
class MatteBox:
    """The matte's box at the tests' scale, with the ring of clear backdrop just outside the matte.

    Attributes:
        rgb: float32 (h, w, 3) the photo on the box (its bounding box grown by a third on each side, at least
            8 px), box-resampled so its long side is at most :data:`WORK_SIDE` px.
        alpha: float32 (h, w) the matte on the same box, resampled the same way.
        matte: bool (h, w) ``alpha >= 0.5``; never empty.
        ring: bool (h, w) clear background (``alpha < 0.05``) more than 2 px and at most 12 % of ``scale`` (at
            least 4 px) outside the matte; at least 8 px.
        scale: the matte's long side at the box's scale (px).
        bounds: ``(y0, y1, x0, x1)`` the box in the photo (px at the working resolution, end exclusive).
    """

    rgb: np.ndarray
    alpha: np.ndarray
    matte: np.ndarray
    ring: np.ndarray
    scale: float
    bounds: tuple[int, int, int, int]


def matte_box(small: np.ndarray, alpha: np.ndarray) -> MatteBox | None:
    """The matte's box and its backdrop ring (:class:`MatteBox`).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1] at the same resolution.

    Returns:
        The box, or None for an empty matte or one without 8 px of clear-background ring.
    """
    fg = alpha >= 0.5
    rows, cols = np.flatnonzero(fg.any(1)), np.flatnonzero(fg.any(0))
    if rows.size == 0:
        return None
    h, w = fg.shape
    bh, bw = int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1)
    gy, gx = max(8, bh // 3), max(8, bw // 3)
    y0, y1 = max(0, int(rows[0]) - gy), min(h, int(rows[-1]) + 1 + gy)
    x0, x1 = max(0, int(cols[0]) - gx), min(w, int(cols[-1]) + 1 + gx)
    f = min(1.0, WORK_SIDE / max(y1 - y0, x1 - x0))
    size = (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f)))
    rgb = np.asarray(
        Image.fromarray(np.ascontiguousarray(small[y0:y1, x0:x1]), "RGB").resize(size, Image.Resampling.BOX),
        dtype=np.float32,
    )
    a = np.asarray(
        Image.fromarray(np.ascontiguousarray(alpha[y0:y1, x0:x1], dtype=np.float32), "F").resize(
            size, Image.Resampling.BOX
        )
    )
    b = a >= 0.5
    if not b.any():
        return None
    scale = max(bh, bw) * f
    d_out = ndi.distance_transform_edt(~b)
    ring = (a < 0.05) & (d_out > 2.0) & (d_out <= max(4.0, 0.12 * scale))
    if int(ring.sum()) < 8:
        return None
    return MatteBox(rgb, a, b, ring, float(scale), (y0, y1, x0, x1))


def normalized_convolution(
    values: np.ndarray, weight: np.ndarray, sigma: float
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted Gaussian average of ``values`` (float32 (h, w, c)) with bool ``weight`` (h, w):
    ``(average (h, w, c), smoothed weight (h, w))``; the average is 0 where the smoothed weight is 0.

    Computed on a grid coarser by ``k = max(1, floor(sigma / 2))`` (block sums of ``k`` x ``k`` px, Gaussian of
    ``sigma / k``, bilinear back to (h, w)): the averages vary over ``sigma`` px, so the coarse grid loses
    nothing that matters and costs ``k**2`` times less."""
    h, w = weight.shape
    k = max(1, int(sigma // 2))
    hc, wc = -(-h // k), -(-w // k)
    wgt = np.zeros((hc * k, wc * k), np.float32)
    wgt[:h, :w] = weight
    vals = np.zeros((hc * k, wc * k, values.shape[-1]), np.float32)
    vals[:h, :w] = values * wgt[:h, :w, None]
    wsum = wgt.reshape(hc, k, wc, k).sum((1, 3)) / (k * k)
    vsum = vals.reshape(hc, k, wc, k, -1).sum((1, 3)) / (k * k)
    s = sigma / k
    den = ndi.gaussian_filter(wsum, s, mode="nearest")
    num = np.stack([ndi.gaussian_filter(vsum[..., c], s, mode="nearest") for c in range(vsum.shape[-1])], -1)
    if k > 1:
        both = _bilinear(np.concatenate([num, den[..., None]], -1), h, w, k)
        num, den = both[..., :-1], both[..., -1]
    return num / np.maximum(den, 1e-6)[..., None], den


def _bilinear(grid: np.ndarray, h: int, w: int, k: int) -> np.ndarray:
    """Bilinear interpolation of a coarse float32 (hc, wc, c) grid, whose cells are ``k`` x ``k`` px, back to
    (h, w, c) px (cell centres at ``(i + 0.5) * k``; clamped at the edges)."""
    hc, wc = grid.shape[:2]
    yy = np.clip((np.arange(h) + 0.5) / k - 0.5, 0, hc - 1)
    xx = np.clip((np.arange(w) + 0.5) / k - 0.5, 0, wc - 1)
    y0, x0 = np.floor(yy).astype(int), np.floor(xx).astype(int)
    y1, x1 = np.minimum(y0 + 1, hc - 1), np.minimum(x0 + 1, wc - 1)
    wy = (yy - y0).astype(np.float32)[:, None, None]
    wx = (xx - x0).astype(np.float32)[None, :, None]
    top = grid[y0][:, x0] * (1 - wx) + grid[y0][:, x1] * wx
    bottom = grid[y1][:, x0] * (1 - wx) + grid[y1][:, x1] * wx
    return top * (1 - wy) + bottom * wy
