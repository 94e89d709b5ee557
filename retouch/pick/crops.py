"""Second network looks on a crop of the photo: the zoom on a small product, the refocus on a soft one.

* :func:`zoom`: at 256 px a small product is a few dozen px wide in the network's input and its outline
  comes out half-confident; a crop around it is looked at again (:attr:`PickConfig.zoom_area`).
* :func:`refocus`: a kept mask that is smoother inside than around it holds a blurred object (a
  soft-focus cup under the product); the network looks again at the in-focus detail inside it
  (:func:`focus_crop`).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from ..models import NetworkConfig
from ..segment import NETWORK_INPUT_PX, predict_mask
from .config import PickConfig
from .signals import Pick, focus_contrast, luma, mask_signals, sharpness_near

__all__ = [
    "REFOCUS_SOURCE",
    "ZOOM_SOURCE",
    "focus_crop",
    "leaves_crop",
    "refocus",
    "wants_zoom",
    "zoom",
    "zoom_box",
]

#: :attr:`Pick.source` of a zoomed mask.
ZOOM_SOURCE = f"{NETWORK_INPUT_PX}-zoom"
#: :attr:`Pick.source` of a refocused mask.
REFOCUS_SOURCE = "refocus"


def focus_crop(
    small: np.ndarray,
    candidates: dict[str, np.ndarray],
    ratio: np.ndarray,
    contrast: np.ndarray,
    *,
    config: PickConfig,
) -> tuple[int, int, int, int] | None:
    """Box (x0, y0, x1, y1) around the in-focus detail inside the candidates' masks, or ``None``.

    In-focus detail = pixels at least 8 px inside a mask (so its own outline, and background seen through
    its soft rim, do not count) whose block has an in-focus edge (:attr:`~PickConfig.sharp_ratio`) of
    contrast at least 2 x :attr:`~PickConfig.min_contrast` and whose gradient reaches half the block's strongest. The detail is
    grouped (dilation and closing by 3 px) and the largest group's box, grown by 25 % of its size on
    every side (at least 16 px), is returned when it is smaller than half of the masks' box (else there
    is no separate sharp object to look at).
    """
    union = np.zeros(ratio.shape, bool)
    for m in candidates.values():
        union |= m >= 0.5
    if not union.any():
        return None
    inside = ndi.binary_erosion(union, iterations=8)
    grey = luma(small)
    mag = np.hypot(ndi.sobel(grey, axis=1), ndi.sobel(grey, axis=0)) * 0.125
    detail = (
        inside
        & (ratio >= config.sharp_ratio)
        & (contrast >= 2 * config.min_contrast)
        & (mag >= 0.5 * ratio * contrast)
    )
    if int(detail.sum()) < 20:
        return None
    groups, n = ndi.label(ndi.binary_closing(ndi.binary_dilation(detail, iterations=3), iterations=3))
    sizes = np.bincount(groups.ravel(), minlength=n + 1)
    sizes[0] = 0
    ys, xs = np.nonzero(detail & (groups == int(sizes.argmax())))
    if ys.size < 20:
        return None
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())
    uy, ux = np.nonzero(union)
    box_area = (y1 - y0 + 1) * (x1 - x0 + 1)
    if box_area > 0.5 * (uy.max() - uy.min() + 1) * (ux.max() - ux.min() + 1):
        return None
    h, w = ratio.shape
    gy, gx = max(16.0, 0.25 * (y1 - y0)), max(16.0, 0.25 * (x1 - x0))
    return (
        int(max(0, x0 - gx)),
        int(max(0, y0 - gy)),
        int(min(w, x1 + gx + 1)),
        int(min(h, y1 + gy + 1)),
    )


def wants_zoom(sig: dict[str, float], *, config: PickConfig) -> bool:
    """Whether a first mask that raised no doubt is small enough to be zoomed into
    (:attr:`~PickConfig.zoom_area`)."""
    return sig["area"] < config.zoom_area


def leaves_crop(
    crop_mask: np.ndarray,
    box: tuple[int, int, int, int],
    shape: tuple[int, int],
    *,
    config: PickConfig,
) -> bool:
    """Whether a crop's binary mask covers more than :attr:`~PickConfig.zoom_border` of the crop's sides that are not
    the frame's own border (``box`` = (x0, y0, x1, y1) in a frame of ``shape`` = (H, W)): the object goes
    on past the crop, so the crop did not hold all of it."""
    x0, y0, x1, y1 = box
    h, w = shape
    edges = (
        (crop_mask[0], y0 > 0),
        (crop_mask[-1], y1 < h),
        (crop_mask[:, 0], x0 > 0),
        (crop_mask[:, -1], x1 < w),
    )
    sides = [side for side, inner in edges if inner]
    return bool(sides) and float(np.concatenate(sides).mean()) > config.zoom_border


def zoom_box(mask: np.ndarray, *, config: PickConfig) -> tuple[int, int, int, int] | None:
    """The box a zoomed look crops: ``mask``'s bounding box grown on every side by
    :attr:`~PickConfig.zoom_margin` of its size (at least 16 px), clipped to the image.

    Args:
        mask: bool (H, W).
        config: the margin.

    Returns:
        ``(x0, y0, x1, y1)`` in px (end exclusive), or ``None`` when ``mask`` is empty.
    """
    ys, xs = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if ys.size == 0:
        return None
    h, w = mask.shape
    y0, y1, x0, x1 = int(ys[0]), int(ys[-1]) + 1, int(xs[0]), int(xs[-1]) + 1
    gy, gx = max(16.0, config.zoom_margin * (y1 - y0)), max(16.0, config.zoom_margin * (x1 - x0))
    return int(max(0, x0 - gx)), int(max(0, y0 - gy)), int(min(w, x1 + gx)), int(min(h, y1 + gy))


def zoom(
    small: np.ndarray,
    first: np.ndarray,
    model_name: str,
    *,
    config: PickConfig,
    network: NetworkConfig,
) -> np.ndarray | None:
    """Second network look at a small product, on a crop around it.

    At 256 px a product covering 1 % of a 0.35 MP working image is ~25 px wide in the network's input
    (rembg at 320 px: ~32 px); on a crop of its box grown by :attr:`~PickConfig.zoom_margin` per side it fills about
    half of the input, so its outline is drawn at (about) the working resolution.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        first: float32 (H, W) first network mask.
        model_name: a :data:`retouch.segment.U2NET_FAMILY` model.
        config: the zoom's margin and border, the smallest mask (:attr:`~PickConfig.min_area`).
        network: as :func:`retouch.segment.predict_mask`.

    Returns:
        float32 (H, W) mask: the crop's network mask inside the crop (the first mask's box at 0.2,
        grown by :attr:`~PickConfig.zoom_margin`) and 0 outside; ``None`` when the first mask is empty, or the
        zoomed mask is empty or leaves its crop (:attr:`~PickConfig.zoom_border`).
    """
    box = zoom_box(first >= 0.2, config=config)
    if box is None:
        return None
    h, w = first.shape
    cx0, cy0, cx1, cy1 = box
    crop = predict_mask(np.ascontiguousarray(small[cy0:cy1, cx0:cx1]), model_name, network=network)
    cb = crop >= 0.5
    if cb.mean() < config.min_area or leaves_crop(cb, box, (h, w), config=config):
        return None
    mask = np.zeros_like(first)
    mask[cy0:cy1, cx0:cx1] = crop
    return mask


def refocus(
    small: np.ndarray,
    grey: np.ndarray,
    pick: Pick,
    model_name: str,
    *,
    config: PickConfig,
    network: NetworkConfig,
) -> Pick:
    """Look again at the in-focus part of a kept mask that is smoother inside than around it.

    A mask that fails the focus test (:func:`focus_contrast` < :attr:`~PickConfig.review_focus`) holds a blurred
    object (a soft-focus cup under the product); the product is the sharp detail inside it. The network
    runs once more, at :attr:`~PickConfig.refocus_input_px`, on the box of that detail (:func:`focus_crop`, as the
    second look does when every candidate swallowed something soft), and the crop's mask replaces the kept
    one when it covers at least :attr:`~PickConfig.min_area` of the frame, does not go on past the crop's sides
    (:func:`leaves_crop`: then the sharp detail is part of a larger object, such as a print on a plain
    product) and passes the focus test itself.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        grey: float32 (H, W) its luma (:func:`retouch.pick.signals.luma`).
        pick: the kept pick, with its ``focus`` signal.
        model_name: a :data:`retouch.segment.U2NET_FAMILY` model.
        config: the thresholds named above.
        network: as :func:`retouch.segment.predict_mask`.

    Returns:
        ``pick`` (one more network evaluation counted, signal ``refocus`` = 0) when the crop's mask is not
        used or no crop was found (no evaluation); else a new :class:`Pick` (source
        :data:`REFOCUS_SOURCE`, signals of the crop's mask, ``refocus`` = 1, ``kept_focus`` the old
        mask's focus) whose ``first`` is the crop's mask, so :func:`retouch.pick.guard` checks the refined matte against
        it. Either way the result stays flagged for review (:func:`retouch.pick.confidence`).
    """
    ratio, contrast = sharpness_near(grey, pick.mask >= 0.5)
    crop = focus_crop(small, {"kept": pick.mask}, ratio, contrast, config=config)
    if crop is None:
        return pick
    x0, y0, x1, y1 = crop
    crop_mask = predict_mask(
        np.ascontiguousarray(small[y0:y1, x0:x1]), model_name, config.refocus_input_px, network=network
    )
    pick.evaluations += 1
    pick.signals["refocus"] = 0.0
    if leaves_crop(
        crop_mask >= 0.5, crop, grey.shape, config=config
    ):  # a detail of a larger object, not a product
        return pick
    inner = np.zeros_like(pick.mask)
    inner[y0:y1, x0:x1] = crop_mask
    binary = inner >= 0.5
    if float(binary.mean()) < config.min_area:
        return pick
    focus = focus_contrast(grey, binary, config=config)
    if focus < config.review_focus:
        return pick
    ratio, contrast = sharpness_near(grey, binary)
    signals = {**pick.signals, **mask_signals(inner, ratio, contrast, config=config)}
    signals.update(refocus=1.0, kept_focus=pick.signals["focus"], focus=min(focus, 99.0))
    return Pick(inner, REFOCUS_SOURCE, pick.evaluations, signals, first=inner)
