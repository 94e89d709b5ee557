"""Round and frame-shaped holes on a plain backdrop, recognised by their shape and surface.

On a plain backdrop :func:`retouch.openings.clear_openings`'s region tests do not cut a region of the
backdrop's colour that the network matted with confidence: a silver car in a grey studio has panels of
the backdrop's colour, so colour alone proves nothing there. A hole punched through a product (a ring, a
hoop, a frame) shows the same backdrop, and its region has a shape and a surface of its own: it is fully
enclosed by the product (no contact with the outside background), it fills the ellipse of its second
moments (a round hole, or one seen at an angle) or its convex hull (a frame's rectangle), a band of
product surrounds it all round, and its fine texture and colour are the backdrop's (a plain backdrop
seen through a hole is as smooth as the backdrop; a hubcap, a window or a panel has edges, reflections
and bolts, and its own shade). :func:`round_holes` finds such regions among those the colour tests
refused.

Shape tests at the colour tests' resolution (<= ~0.12 MP); the fine texture, at the working
resolution, is computed only for regions whose shape passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage as ndi
from skimage.morphology import convex_hull_image

if TYPE_CHECKING:
    from .openings import OpeningsConfig

__all__ = ["hole_shape", "round_holes"]


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


def round_holes(
    labels: np.ndarray,
    regions: list[int],
    product: np.ndarray,
    rgb_s: np.ndarray,
    bg_colour: np.ndarray,
    fine: Callable[[], tuple[np.ndarray, np.ndarray, float]],
    cfg: OpeningsConfig,
) -> list[int]:
    """The regions among ``regions`` that are holes punched through the product, to cut as openings.

    Args:
        labels: int (H, W), the candidate regions' labels at the colour tests' resolution.
        regions: labels of regions fully enclosed by the matte that the colour tests refused.
        product: bool (H, W), matte pixels that are not typical of the background.
        rgb_s: float32 (H, W, 3) in [0, 1], the photo at the colour tests' resolution.
        bg_colour: float (3,), the median colour of the confident background around the product.
        fine: called at most once, when a region's shape passes: ``(tex_f, lab_f, fine_bg)``, the fine
            texture (5 x 5 px grey standard deviation, grey in [0, 1]) at the working resolution, the
            labels at that resolution and the texture's median over the background ring (> 0).
        cfg: the openings step's constants (its ``hole_*`` fields).

    A region is a hole when (:func:`hole_shape`) it fills its ellipse (IoU >= ``cfg.hole_fit``) or its
    convex hull (solidity >= ``cfg.hole_solidity``), its minor semi-axis is at least ``cfg.hole_radius``
    px, at least ``cfg.hole_band`` of the band 4-6 px around it is product; its median colour is within
    ``cfg.hole_colour`` (max over R, G, B) of the background's; and, over its pixels more than 1 px
    inside it at the working resolution, the median fine texture is within ``cfg.hole_texture`` times
    the background's and at most ``cfg.hole_busy`` of them exceed 3 times the background's (edges,
    reflections, bolts).

    Returns:
        the labels of the holes (possibly empty).
    """
    found: list[int] = []
    cache: list[tuple[np.ndarray, np.ndarray, float]] = []
    lo, hi = cfg.hole_texture
    for j in regions:
        region = labels == j
        if not _shape_ok(hole_shape(region, product), cfg):
            continue
        if float(np.abs(np.median(rgb_s[region], axis=0) - bg_colour).max()) > cfg.hole_colour:
            continue
        if not cache:
            cache.append(fine())
        tex_f, lab_f, fine_bg = cache[0]
        inner = ndi.binary_erosion(lab_f == j, iterations=2)
        tex = tex_f[inner]
        if len(tex) == 0:
            continue
        if (
            lo <= float(np.median(tex)) / fine_bg <= hi
            and float((tex > 3.0 * fine_bg).mean()) <= cfg.hole_busy
        ):
            found.append(j)
    return found
