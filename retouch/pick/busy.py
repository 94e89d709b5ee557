"""How busy the backdrop around the product is, as evidence for the review flag.

The results the review flag left wrong and unflagged sit on busy backdrops: another object kept with the product, a
part of it left out, an opening kept (the misses-by-kind record in ``docs/decisions/``). There the network's own
certainty means less than on a plain backdrop, so :func:`retouch.pick.confidence.confidence` flags a result on a busy
backdrop from a higher confidence (:attr:`~retouch.pick.config.PickConfig.review_below_busy`).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from .confidence import confidence
from .config import PickConfig
from .signals import Pick, luma

__all__ = ["backdrop_busy", "with_backdrop_busy"]


def backdrop_busy(small: np.ndarray, alpha: np.ndarray, *, config: PickConfig) -> float:
    """Share of the pixels outside the matte that lie on an edge of the photo.

    A pixel is on an edge when the Sobel gradient magnitude of the photo's luma (ITU-R BT.601), the 8-weight sum of
    each direction divided by 8, exceeds :attr:`~PickConfig.busy_edge_levels` (levels per px). Plain and
    out-of-focus backdrops read about 0.01, textured and cluttered ones 0.05-0.7.

    Args:
        small: uint8 (H, W, 3) sRGB photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1]; outside is ``alpha < 0.5``.
        config: the edge threshold.

    Returns:
        The share in [0, 1]; 0.0 when the matte covers the whole frame.
    """
    outside = alpha < 0.5
    if not outside.any():
        return 0.0
    grey = luma(small) * np.float32(255.0)  # levels
    magnitude = np.hypot(ndi.sobel(grey, 0), ndi.sobel(grey, 1)) / np.float32(8.0)
    return float((magnitude[outside] > config.busy_edge_levels).mean())


def with_backdrop_busy(small: np.ndarray, alpha: np.ndarray, pick: Pick, *, config: PickConfig) -> Pick:
    """``pick`` with the signal ``backdrop_busy`` (:func:`backdrop_busy`) added where it can change the review flag:
    the cap is switched on (:attr:`~PickConfig.review_busy_backdrop` above 0), :func:`confidence` does not flag the
    result already and its confidence is below :attr:`~PickConfig.review_below_busy`. Nothing else changes.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].
        pick: the result's :class:`Pick` (its ``signals`` are updated in place and it is returned).
        config: the thresholds.
    """
    if config.review_busy_backdrop <= 0:
        return pick
    c, flagged = confidence(pick.signals, config=config)
    if flagged or c >= config.review_below_busy:
        return pick
    pick.signals["backdrop_busy"] = backdrop_busy(small, alpha, config=config)
    return pick
