"""Holes punched through the product (a ring, a hoop, a frame), recognised by their shape and surface.

On a plain backdrop :func:`retouch.openings.clear_openings`'s region tests do not cut a region of the
backdrop's colour that the network matted with confidence: a silver car in a grey studio has panels of
the backdrop's colour, so colour alone proves nothing there. A hole punched through a product shows the
backdrop *behind it*, and has a shape and a surface of its own: it is fully enclosed by the product, it
fills the ellipse of its second moments (a round hole, or one seen at an angle) or its convex hull (a
frame's rectangle), a band of product surrounds it all round, its colour is the one the backdrop has at
that place (a studio sweep's gradient continues behind the product), and its fine texture is the
backdrop's (a hubcap, a window or a panel has edges, reflections and bolts, a print lacks the backdrop's
grain).

The backdrop's colour at every place is a quadratic surface in x and y per channel, fitted by least
squares to the confident background around the product (:func:`backdrop_fit`). Around the refused
regions, the matte's pixels of the backdrop's colour (near that surface, or typical of the background's
colour mixture) form pieces, less what a 3 x 3 opening removes: a hole the colour models split into
pieces is whole again, and a piece of clutter or of the product joined to it is left out, so the shape
tests judge the hole itself. Shape tests at the colour tests' resolution (<= ~0.12 MP); the fine
texture, at the working resolution, is computed only for pieces whose shape and colour pass. Nothing
here runs for a matte without an enclosed region that the colour tests refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage as ndi
from skimage.morphology import convex_hull_image

if TYPE_CHECKING:
    from .openings import OpeningsConfig

__all__ = ["backdrop_fit", "hole_shape", "round_holes"]


def _design(ys: np.ndarray, xs: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Quadratic design matrix float64 (N, 6) of pixel rows ``ys`` and columns ``xs`` scaled to [-1, 1]
    over an image of ``shape``: columns 1, x, y, x^2, xy, y^2."""
    h, w = shape
    x = 2.0 * xs / max(w - 1, 1) - 1.0
    y = 2.0 * ys / max(h - 1, 1) - 1.0
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


def backdrop_fit(rgb_s: np.ndarray, ring: np.ndarray, max_px: int = 4000) -> np.ndarray:
    """The backdrop's colour as a quadratic surface: float64 (6, 3) coefficients (see :func:`_design`).

    Fitted by least squares to at most ``max_px`` pixels of ``ring`` (bool (H, W), the confident
    background around the product; every k-th in raster order) of ``rgb_s`` (float32 (H, W, 3) in
    [0, 1]), then refitted to the three quarters of them nearest the first fit (clutter and the
    product's shadow left out).
    """
    ys, xs = np.nonzero(ring)
    step = max(1, len(ys) // max_px)
    ys, xs = ys[::step], xs[::step]
    a = _design(ys.astype(np.float64), xs.astype(np.float64), ring.shape)
    c = rgb_s[ys, xs].astype(np.float64)
    coef = np.linalg.lstsq(a, c, rcond=None)[0]
    res = np.abs(a @ coef - c).max(1)
    keep = res <= np.percentile(res, 75)
    if keep.sum() >= 12:
        coef = np.linalg.lstsq(a[keep], c[keep], rcond=None)[0]
    return coef


def hole_shape(region: np.ndarray, product: np.ndarray) -> dict[str, float]:
    """Shape measurements of one region (bool (H, W)) inside the product.

    ``product``: bool (H, W), matte pixels that are not typical of the background. The region's holes
    are filled; an ellipse with the same second moments is fitted (a uniform ellipse of semi-axes a, b
    has variances a^2/4, b^2/4).

    Returns:
        a dict: ``fit`` (IoU of the filled region and the ellipse), ``solidity`` (its area over its
        convex hull's), ``band_product`` (share of the band 4-6 px outside it that is ``product``),
        ``radius`` (the ellipse's minor semi-axis, px).
    """
    ys, xs = np.nonzero(region)
    h, w = region.shape
    y0, y1 = max(0, int(ys.min()) - 8), min(h, int(ys.max()) + 9)
    x0, x1 = max(0, int(xs.min()) - 8), min(w, int(xs.max()) + 9)
    filled = ndi.binary_fill_holes(region[y0:y1, x0:x1])
    fy, fx = np.nonzero(filled)
    cy, cx = fy.mean(), fx.mean()
    cov = np.cov(np.stack([fy - cy, fx - cx])) if len(fy) > 2 else np.eye(2)
    evals, evecs = np.linalg.eigh(cov)
    evals = np.maximum(evals, 1e-6)
    a, b = 2.0 * np.sqrt(evals[1]), 2.0 * np.sqrt(evals[0])
    yy, xx = np.mgrid[0 : y1 - y0, 0 : x1 - x0]
    dy, dx = yy - cy, xx - cx
    p0 = (dy * evecs[0, 0] + dx * evecs[1, 0]) / b
    p1 = (dy * evecs[0, 1] + dx * evecs[1, 1]) / a
    ell = np.hypot(p0, p1) <= 1.0
    band = ndi.binary_dilation(filled, iterations=6) & ~ndi.binary_dilation(filled, iterations=3)
    return {
        "fit": float((filled & ell).sum()) / max(float((filled | ell).sum()), 1.0),
        "solidity": float(filled.sum()) / max(float(convex_hull_image(filled).sum()), 1.0),
        "band_product": float((band & product[y0:y1, x0:x1]).sum()) / max(float(band.sum()), 1.0),
        "radius": float(b),
    }


def _shape_ok(f: dict[str, float], cfg: OpeningsConfig) -> bool:
    """Whether :func:`hole_shape`'s measurements pass ``cfg``'s shape tests."""
    return (
        (f["fit"] >= cfg.hole_fit or f["solidity"] >= cfg.hole_solidity)
        and f["radius"] >= cfg.hole_radius
        and f["band_product"] >= cfg.hole_band
    )


def _cores(zone: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, int]:
    """The pieces of backdrop inside ``zone`` (bool (H, W)): its pixels ``near`` the backdrop's colour
    (bool (H, W)), less what a 3 x 3 opening removes (the narrow joins to clutter or to the product), with
    the seams between a patterned backdrop's patches (blended colours, up to 4 px wide) closed again
    inside the zone. Returns the pieces' labels (int (H, W), 0 = none) and their count."""
    square = np.ones((3, 3), bool)
    core = ndi.binary_opening(zone & near, structure=square)
    core = ndi.binary_closing(core, structure=square, iterations=2) & zone
    lab, n = ndi.label(core)
    return lab, int(n)


def round_holes(
    labels: np.ndarray,
    regions: list[int],
    product: np.ndarray,
    rgb_s: np.ndarray,
    ring: np.ndarray,
    typical: np.ndarray,
    matte: np.ndarray,
    fine: Callable[[], tuple[np.ndarray, tuple[int, int], float]],
    cfg: OpeningsConfig,
) -> np.ndarray:
    """The holes punched through the product around ``regions``, to cut as openings.

    Args:
        labels: int (H, W), the candidate regions' labels at the colour tests' resolution.
        regions: labels of regions fully enclosed by the matte that the colour tests refused.
        product: bool (H, W), matte pixels that are not typical of the background.
        rgb_s: float32 (H, W, 3) in [0, 1], the photo at the colour tests' resolution.
        ring: bool (H, W), the confident background around the product (:func:`backdrop_fit`).
        typical: bool (H, W), matte pixels whose colour is typical of the background's colour mixture.
        matte: bool (H, W), the matte (alpha >= 0.5).
        fine: called at most once, when a piece's shape and colour pass: ``(tex_f, size_f, fine_bg)``,
            the fine texture (5 x 5 px grey standard deviation, grey in [0, 1]) at the working
            resolution, that resolution (width, height) and the texture's median over the background
            ring (> 0).
        cfg: the openings step's constants (its ``hole_*`` fields).

    The *zone* is the refused regions grown by 3 px inside the matte (a hole the candidates split into
    pieces, along seams the colour models doubted, is whole again); its pixels of the backdrop's colour
    (within ``cfg.hole_pixel``, max over R, G, B, of the backdrop's fitted surface, or typical of the
    background's mixture) form pieces (:func:`_cores`). A piece is a hole when at least ``cfg.hole_core``
    of it is refused candidate; (:func:`hole_shape`) it fills its ellipse (IoU >= ``cfg.hole_fit``) or
    its convex hull (solidity >= ``cfg.hole_solidity``), its minor semi-axis is at least
    ``cfg.hole_radius`` px and at least ``cfg.hole_band`` of the band 4-6 px around it is product; the
    median of its pixels' distance to the backdrop's surface is within ``cfg.hole_colour`` or at least
    ``cfg.hole_typical`` of them are typical of the background (a patterned backdrop that no smooth
    surface follows); and, over its pixels more than 1 px inside it at the working resolution, the
    median fine texture is within ``cfg.hole_texture`` times the background's and at most
    ``cfg.hole_busy`` of them exceed 3 times the background's (edges, reflections, bolts).

    Returns:
        bool (H, W): the holes (all False when there are none).
    """
    h, w = labels.shape
    found = np.zeros((h, w), bool)
    if not regions:
        return found
    seeds = np.isin(labels, regions)
    resid = _residual(rgb_s, ring)
    near = (resid <= cfg.hole_pixel) | typical
    # the zone: the refused regions grown by 3 px inside the matte, and the matte's backdrop-coloured
    # pixels joined to them (what the product's colour model claimed of the hole)
    comp, _ = ndi.label(matte & near)
    joined = np.unique(comp[seeds])
    zone = (ndi.binary_dilation(seeds, iterations=3) & matte) | np.isin(comp, joined[joined > 0])
    ys, xs = np.nonzero(zone)
    y0, y1 = max(0, int(ys.min()) - 8), min(h, int(ys.max()) + 9)
    x0, x1 = max(0, int(xs.min()) - 8), min(w, int(xs.max()) + 9)
    box = (slice(y0, y1), slice(x0, x1))
    resid, typ = resid[box], typical[box]
    lab, n = _cores(zone[box], near[box])
    if n == 0:
        return found
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    seeded = np.bincount(lab.ravel(), weights=seeds[box].ravel(), minlength=n + 1)
    cache: list[tuple[np.ndarray, tuple[int, int], float]] = []
    for k in range(1, n + 1):
        if sizes[k] < 12 or seeded[k] < cfg.hole_core * sizes[k]:
            continue
        piece = lab == k
        if not _shape_ok(hole_shape(piece, product[box]), cfg):
            continue
        if float(np.median(resid[piece])) > cfg.hole_colour and float(typ[piece].mean()) < cfg.hole_typical:
            continue
        if not cache:
            cache.append(fine())
        if _texture_ok(piece, box, (h, w), cache[0], cfg):
            found[box] |= piece
    return found


def _residual(rgb_s: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """Each pixel's distance (max over R, G, B, float (H, W)) to the backdrop's quadratic surface fitted over the
    background ring (:func:`backdrop_fit`)."""
    h, w = ring.shape
    coef = backdrop_fit(rgb_s, ring)
    yy, xx = np.mgrid[0:h, 0:w]
    pred = (_design(yy.ravel().astype(np.float64), xx.ravel().astype(np.float64), (h, w)) @ coef).reshape(
        h, w, 3
    )
    return np.abs(rgb_s - pred).max(-1)


def _texture_ok(
    piece: np.ndarray,
    box: tuple[slice, slice],
    shape: tuple[int, int],
    fine: tuple[np.ndarray, tuple[int, int], float],
    cfg: OpeningsConfig,
) -> bool:
    """Whether a piece (bool, on ``box`` of the colour tests' ``shape``) has the backdrop's grain: over its pixels
    more than 1 px inside it at the working resolution (``fine``: the fine texture there, that resolution and the
    ring's median), the median texture within ``cfg.hole_texture`` times the ring's and at most ``cfg.hole_busy`` of
    them above 3 times it. A piece with no such pixel is not."""
    from PIL import Image

    tex_f, size_f, fine_bg = fine
    lo, hi = cfg.hole_texture
    # the texture away from the piece's rim (the zone reaches 3 px into the product's blended edge)
    inner = np.zeros(shape, bool)
    inner[box] = ndi.binary_erosion(piece, iterations=2)
    piece_f = np.asarray(Image.fromarray(inner).resize(size_f, Image.Resampling.NEAREST))
    tex = tex_f[ndi.binary_erosion(piece_f, iterations=2)]
    if len(tex) == 0:
        return False
    return (
        lo <= float(np.median(tex)) / fine_bg <= hi and float((tex > 3.0 * fine_bg).mean()) <= cfg.hole_busy
    )
