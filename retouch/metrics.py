"""Quality metrics for mattes and white-background outputs (used by the tests and ``bench/pipeline/quality.py``).

Conventions: mattes and ground-truth masks are uint8 (H, W), 255 = product. In ground-truth masks the
value 128 marks an unlabelled band along the edge (GrabCut data set, Rother et al. 2004); those
pixels are left out of every metric (``valid`` mask).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import ndimage as ndi

__all__ = [
    "UNLABELLED",
    "valid_mask",
    "iou",
    "alpha_mae",
    "boundary_f",
    "seg_boundary",
    "halo_score",
    "background_purity",
    "corner_min",
]

UNLABELLED = 128


def valid_mask(gt: np.ndarray) -> np.ndarray:
    """bool (H, W): pixels with a label (GT value other than 128)."""
    return np.asarray(gt != UNLABELLED)


def iou(pred: np.ndarray, gt: np.ndarray, threshold: int = 128) -> float:
    """Intersection over union of ``pred >= threshold`` and ``gt >= threshold`` over labelled pixels.

    Args:
        pred, gt: uint8 (H, W) mattes, 255 = product.
    Returns:
        IoU in [0, 1] (1.0 when both are empty).
    """
    v = valid_mask(gt)
    p = (pred >= threshold) & v
    g = (gt >= threshold) & v
    union = np.count_nonzero(p | g)
    return 1.0 if union == 0 else np.count_nonzero(p & g) / union


def alpha_mae(pred: np.ndarray, gt: np.ndarray) -> float:
    """Mean absolute error between the mattes in alpha units [0, 1], over labelled pixels."""
    v = valid_mask(gt)
    diff = np.abs(pred.astype(np.int16) - gt.astype(np.int16))[v]
    return float(diff.mean() / 255.0) if diff.size else 0.0


def seg_boundary(binary: np.ndarray) -> np.ndarray:
    """One-pixel boundary of a binary mask (foreground pixels with a 4-neighbour in the background).

    Same definition as ``seg2bmap`` of the DAVIS benchmark (Perazzi et al., CVPR 2016), without its
    resizing step.
    """
    b = binary.astype(bool)
    pad = np.pad(b, 1, mode="edge")
    inner = pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:]
    return b & ~inner


def boundary_f(pred: np.ndarray, gt: np.ndarray, threshold: int = 128, tolerance: float = 0.008) -> float:
    """Boundary F-measure (DAVIS, Perazzi et al. 2016) between ``pred`` and ``gt`` at a threshold.

    A predicted boundary pixel is correct when a ground-truth boundary pixel lies within
    ``ceil(tolerance * image diagonal)`` px (DAVIS default 0.008), and vice versa for recall. Where
    the GT has an unlabelled band (value 128), the whole band counts as ground-truth boundary (the true
    edge is somewhere inside it).

    Returns:
        F = 2PR / (P + R) in [0, 1].
    """
    h, w = gt.shape
    radius = max(1, math.ceil(tolerance * math.hypot(h, w)))
    band = gt == UNLABELLED
    gt_b = seg_boundary(gt >= threshold) | band
    pr_b = seg_boundary(pred >= threshold)
    n_pr, n_gt = np.count_nonzero(pr_b), np.count_nonzero(gt_b)
    if n_pr == 0 and n_gt == 0:
        return 1.0
    if n_pr == 0 or n_gt == 0:
        return 0.0
    dist_to_gt = ndi.distance_transform_edt(~gt_b)
    dist_to_pr = ndi.distance_transform_edt(~pr_b)
    precision = np.count_nonzero(pr_b & (dist_to_gt <= radius)) / n_pr
    recall = np.count_nonzero(gt_b & (dist_to_pr <= radius)) / n_gt
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def halo_score(out_rgb: np.ndarray, truth: np.ndarray, inner: int = 1, outer: int = 3) -> float:
    """How visible a halo is around the product in a white-background result.

    Looks at the ring of *true* background between ``inner`` and ``outer`` px outside the true product
    (``truth >= 128``; GT 128 band pixels and the lowest 15% of the product's height, where a shadow
    may legitimately be, are left out) and returns the median distance from pure white there (max
    over channels of ``255 - value``, in 8-bit levels). A halo runs along the whole outline, so the
    median picks it up while a local segmentation error does not dominate. 0 = clean; a visible grey
    or coloured fringe scores roughly 30 and more.

    Args:
        out_rgb: uint8 (H, W, 3) white-background result at the same size as ``truth``.
        truth: uint8 (H, W) ground-truth (or known) product mask, 255 = product.
    """
    fg = truth >= 128
    if truth.dtype == np.uint8:
        fg &= truth != UNLABELLED
    if not fg.any():
        return 0.0
    dist = ndi.distance_transform_edt(~fg)
    ring = (dist > inner) & (dist <= outer) & (truth < UNLABELLED)
    rows = np.flatnonzero(fg.any(axis=1))
    cut = rows[0] + int(0.85 * (rows[-1] - rows[0]))
    ring[cut:] = False
    if not ring.any():
        return 0.0
    dev = 255 - out_rgb[ring].min(axis=1).astype(np.int16)
    return float(np.median(dev))


def background_purity(out_rgb: np.ndarray, matte_out: np.ndarray, margin: int = 12) -> float:
    """Share of background pixels that are pure white (all channels >= 254; JPEG noise allowed).

    Background = farther than ``margin`` px from any pixel with matte > 0 (so shadows right under the
    product and the anti-aliased edge are not counted).

    Returns:
        share in [0, 1].
    """
    near = ndi.binary_dilation(matte_out > 0, iterations=margin) if margin else matte_out > 0
    bg = ~near
    if not bg.any():
        return 1.0
    return float(np.count_nonzero(out_rgb[bg].min(axis=1) >= 254) / np.count_nonzero(bg))


def corner_min(out_rgb: np.ndarray, size: int = 16) -> int:
    """Minimum channel value over the four ``size`` x ``size`` corners (255 = pure white corners)."""
    s = size
    corners = [out_rgb[:s, :s], out_rgb[:s, -s:], out_rgb[-s:, :s], out_rgb[-s:, -s:]]
    return int(min(int(c.min()) for c in corners))
