"""Research candidate (not product code): the backdrop seen inside the matte, from a local model of it.

Measured as a review-flag cap on the tuning photos by ``bench/tuning/flag_signals.py`` and tried in the product
(the local backdrop review record in ``docs/decisions/``); it failed its held-out rule (on the held-out GT fold it
flagged two good photos of a silver car whose hood and doors have the grey turntable's colour), so the product
does not run it.

The openings step (:mod:`retouch.openings`) cuts regions inside the product's outline whose colour the
background's *global* colour model explains. On a studio gradient or a blurred photo the background seen
through a hoop, a handle or a wheel has the colour of the backdrop *next to it* but not of the backdrop's median,
so the opening is kept whole, and every signal of the network's view reads a good result.

:func:`background_inside` models the backdrop locally: the colour (and its spread) of the clear-background ring
just outside the matte, spread inwards by normalised Gaussian convolution, so each pixel inside the product is
compared with the backdrop seen on the same side and rows. Pixels of the matte that match it in colour and are
no more textured than that ring are "background-like"; the connected regions of them that lie *inside* the
product (bordered by product-coloured pixels, not by the matte's outline) are background seen through an opening
the matte kept. Background-like pixels that reach the matte's outline (a product that merely shares the
backdrop's colour, a halo) are not enclosed and do not count.

Works on the matte's bounding box at most :data:`~retouch.pick.through.WORK_SIDE` px on its long side: a few ms per photo.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from retouch.pick.through import WORK_SIDE, local_backdrop, matte_box, normalized_convolution

__all__ = ["WORK_SIDE", "background_inside"]


def background_inside(
    small: np.ndarray,
    alpha: np.ndarray,
    *,
    colour_tol: float = 12.0,
    spread_k: float = 2.0,
    colour_cap: float = 30.0,
    texture_k: float = 1.5,
    enclosed_edge: float = 0.2,
    sigma_frac: float = 0.15,
    min_share: float = 0.003,
    versus_product: bool = True,
    rim_frac: float = 0.06,
    pre_blur: float = 1.0,
    inner_px: float = 0.0,
) -> dict[str, float]:
    """How much of the matte shows the local backdrop inside the product.

    Steps, on the matte's box (grown by a third of its size, at least 8 px) resized to at most
    :data:`~retouch.pick.through.WORK_SIDE` px and blurred by ``pre_blur`` px: the ring of clear background (``alpha < 0.05``) 2 px
    to ``R`` px outside the matte (``R`` = 12 % of the matte's box, at least 4 px) gives, by normalised
    Gaussian convolution (sigma ``sigma_frac`` of the matte's box; 3x that where the ring is far), the
    backdrop's local colour, its spread (RMS over the channels) and its texture (grey standard deviation over
    3 x 3 px); the band of the matte 1 px to ``rim_frac`` of the box inside its outline gives the product's
    own local colour the same way. A matte pixel more than ``inner_px`` px inside the outline is
    background-like when its colour is within ``spread_k`` times the spread of the local backdrop colour
    (clipped to ``colour_tol``..``colour_cap``; 0..255 RGB, Euclidean), closer to it than to the product's
    local colour (``versus_product``), and its texture is at most ``texture_k`` times the local texture plus 2
    grey levels. A connected (8-neighbour) region of background-like pixels is *enclosed* when fewer than
    ``enclosed_edge`` of the pixels around it lie outside the matte (the rest is product: the rim of a hoop,
    a wheel's tyre), and counts when it covers at least ``min_share`` of the matte (and 9 px). The defaults
    are the ones chosen on the tuning photos (the local backdrop review record in ``docs/decisions/``).
    Cost: ~7 ms CPU per photo, no network pass.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        colour_tol: smallest colour tolerance (RGB levels 0..255).
        spread_k: colour tolerance in units of the backdrop's local spread.
        texture_k: texture tolerance in units of the backdrop's local texture.
        enclosed_edge: largest share of a region's surroundings outside the matte (``inner_px`` 0) or of its
            boundary within 3.5 px of the outline (``inner_px`` > 0) for it to be enclosed.
        colour_cap: largest colour tolerance (RGB levels).
        sigma_frac: sigma of the local model as a share of the matte's box.
        min_share: smallest region counted, as a share of the matte.
        versus_product: a pixel is background-like only if it is also closer to the local backdrop than to the
            product's own colour near the outline (pixels 1 px to 6 % of the box inside it, same convolution).
        rim_frac: depth of that product band, as a share of the matte's box.
        pre_blur: Gaussian sigma (px at the working box) applied to the photo first (busy backdrops).
        inner_px: a matte pixel must lie more than this many px inside the outline to be background-like; 0
            counts every matte pixel and calls a region enclosed when fewer than ``enclosed_edge`` of the pixels
            around it (3 x 3 neighbours) are outside the matte.

    Returns:
        ``inside_bg`` (share of the matte in enclosed background-like regions), ``inside_bg_max`` (the largest
        one's share) and ``inside_bg_all`` (share of the matte that is background-like, enclosed or not); all 0.0
        for an empty matte or one without a clear-background ring.
    """
    zero = {"inside_bg": 0.0, "inside_bg_max": 0.0, "inside_bg_all": 0.0}
    box = matte_box(small, alpha)
    if box is None:
        return zero
    rgb, b, ring, scale = box.rgb, box.matte, box.ring, box.scale
    area = int(b.sum())
    if pre_blur > 0:
        rgb = ndi.gaussian_filter(rgb, (pre_blur, pre_blur, 0), mode="nearest")
    sigma = max(2.0, sigma_frac * scale)
    dist, spread, tex, tex_bg = local_backdrop(rgb, ring, sigma)
    d_in = ndi.distance_transform_edt(b)
    like = (
        (d_in > inner_px)
        & (dist <= np.clip(spread_k * spread, colour_tol, colour_cap))
        & (tex <= texture_k * tex_bg + 2.0)
    )
    if versus_product:
        rim = b & (d_in > 1.0) & (d_in <= max(3.0, rim_frac * scale))
        prod, pden = normalized_convolution(rgb, rim, sigma)
        like &= (dist < np.sqrt(((rgb - prod) ** 2).sum(-1))) | (pden < 1e-3)
    n_like = int(like.sum())
    if n_like == 0:
        return zero
    labels, n = ndi.label(like, structure=np.ones((3, 3), bool))
    flat = labels.ravel()
    sizes = np.bincount(flat, minlength=n + 1)
    if inner_px > 0:
        boundary = like & ~ndi.binary_erosion(like, border_value=0)
        on_edge = boundary & (d_in <= 3.5)
        b_count = np.bincount(labels[boundary], minlength=n + 1)
        e_count = np.bincount(labels[on_edge], minlength=n + 1)
    else:
        grown = ndi.maximum_filter(labels, size=3, mode="constant")
        around = (grown > 0) & ~like
        b_count = np.bincount(grown[around], minlength=n + 1)
        e_count = np.bincount(grown[around & ~b], minlength=n + 1)
    min_px = max(9.0, min_share * area)
    keep = (sizes >= min_px) & (e_count < enclosed_edge * np.maximum(b_count, 1))
    keep[0] = False
    enclosed = sizes[keep]
    return {
        "inside_bg": float(enclosed.sum()) / area,
        "inside_bg_max": float(enclosed.max()) / area if enclosed.size else 0.0,
        "inside_bg_all": n_like / area,
    }
