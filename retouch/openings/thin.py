"""The openings step's last touches: half-transparent ghosts cleared, thin product parts across an opening kept."""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from ..colors import mixture_log_density
from .arrays import _grey, _two_px_from_solid
from .config import OpeningsConfig


def _clear_ghosts(
    small: np.ndarray,
    new: np.ndarray,
    inner: np.ndarray,
    bg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """Set half-transparent background left inside the product's outline to 0, in place.

    Leaves seen through a frame triangle at alpha 0.2-0.5: pixels of ``new`` (float32 (H, W) matte at the
    working resolution) inside the outline (``inner``, bool), with 0.02 < alpha < 0.5, at least 2 px from
    the solid matte (alpha >= 0.5: an edge's own soft band is left to the edge refinement) and better
    explained by the background's colour mixture than by the product's. Returns how many were set to 0.
    """
    ghost = inner & (new > 0.02) & (new < 0.5)
    if not ghost.any():
        return 0
    ys, xs = np.nonzero(ghost)
    y0, y1, x0, x1 = max(0, ys.min() - 2), ys.max() + 3, max(0, xs.min() - 2), xs.max() + 3
    sub, g = new[y0:y1, x0:x1], ghost[y0:y1, x0:x1]
    # 2 px or more from the solid matte (the box reaches 2 px beyond every candidate, so no nearer solid
    # pixel lies outside it)
    g &= _two_px_from_solid(sub < 0.5)
    if not g.any():
        return 0
    x = small[y0:y1, x0:x1][g].astype(np.float32) / 255.0
    is_bg = mixture_log_density(x, bg_gmm) >= mixture_log_density(x, fg_gmm)
    gy, gx = np.nonzero(g)
    sub[gy[is_bg], gx[is_bg]] = 0.0
    return int(is_bg.sum())


def _keep_thin(
    small: np.ndarray,
    new: np.ndarray,
    cut_w: np.ndarray,
    bg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    cfg: OpeningsConfig,
) -> int:
    """Put back thin product parts crossing a cut opening (spokes, a chain), in place; returns their px.

    Decided pixel by pixel at the working resolution inside the cut openings' box (``cut_w``, bool):
    product posterior >= ``cfg.thin_posterior``, standing out from its surroundings (grey top-hat, dark or
    light, over 5 x 5 px >= ``cfg.thin_contrast``), no wider than 2 px (gone after an opening with a 3 x 3
    square), joined (8-connected) to the product and at least 6 px in all.
    """
    h, w = new.shape
    ys, xs = np.nonzero(cut_w)
    y0, y1, x0, x1 = max(0, ys.min() - 3), min(h, ys.max() + 4), max(0, xs.min() - 3), min(w, xs.max() + 4)
    open_w = cut_w[y0:y1, x0:x1]
    box = small[y0:y1, x0:x1]
    x = box[open_w].astype(np.float32) / 255.0
    d = mixture_log_density(x, fg_gmm) - mixture_log_density(x, bg_gmm)
    prod = np.zeros(open_w.shape, bool)
    prod[open_w] = d >= np.log(cfg.thin_posterior / (1.0 - cfg.thin_posterior))
    grey = _grey(box) / 255.0
    line = np.maximum(ndi.grey_closing(grey, size=(5, 5)) - grey, grey - ndi.grey_opening(grey, size=(5, 5)))
    prod &= line >= cfg.thin_contrast
    thin = prod & ~ndi.binary_opening(prod, structure=np.ones((3, 3), bool))
    sub = new[y0:y1, x0:x1]
    body = sub >= 0.5
    eight = np.ones((3, 3), bool)
    lab, _ = ndi.label(thin | body, structure=eight)
    joined = np.unique(lab[body])
    thin &= np.isin(lab, joined[joined > 0])
    if not thin.any():
        return 0
    tl, tn = ndi.label(thin, structure=eight)
    big = np.bincount(tl.ravel(), minlength=tn + 1) >= 6
    big[0] = False
    thin = big[tl]
    sub[thin] = 1.0
    return int(thin.sum())
