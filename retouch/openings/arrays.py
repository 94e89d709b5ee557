"""Array helpers of the openings step: resampling, distances and per-label statistics, each bit for bit what
the straightforward numpy or SciPy call computes (``tests/retouch/test_retouch_exact_steps.py``)."""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage as ndi


def _resize_f(x: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Bilinear resize of a float32 (H, W) array to ``size`` = (width, height)."""
    if (x.shape[1], x.shape[0]) == size:
        return x.astype(np.float32, copy=False)
    src = np.ascontiguousarray(x, dtype=np.float32)  # a copy only when strided or of another dtype
    return np.asarray(Image.fromarray(src, "F").resize(size, Image.Resampling.BILINEAR))


def _texture(grey: np.ndarray) -> np.ndarray:
    """Local grey standard deviation over 5 x 5 px of a float32 (H, W) grey image in [0, 1]."""
    m1 = ndi.uniform_filter(grey, size=5, mode="nearest")
    return np.sqrt(np.maximum(ndi.uniform_filter(grey * grey, size=5, mode="nearest") - m1 * m1, 0.0))


def _grey(rgb: np.ndarray) -> np.ndarray:
    """Mean of the 3 channels of an (H, W, 3) uint8 or float32 array as float32 (H, W): bit for bit
    ``rgb.astype(np.float32).mean(-1)`` (channels added left to right in float32, the sum divided by the
    integer count as numpy's mean divides), without numpy's slow reduction over a 3-long last axis."""
    s = rgb[..., 0].astype(np.float32)
    s += rgb[..., 1]
    s += rgb[..., 2]
    np.true_divide(s, np.intp(3), out=s, casting="unsafe")
    return s


def _unit(channel: np.ndarray) -> np.ndarray:
    """uint8 (H, W) -> float32 in [0, 1]: ``channel.astype(np.float32) / 255.0`` in one pass."""
    return np.divide(channel, np.float32(255.0), dtype=np.float32)


def _upsample_mask(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``_resize_f(mask.astype(np.float32), size) > 0.5`` for a bool (H, W) mask, ``size`` = (width,
    height); an empty mask is empty at any size (bilinear weights times 0), so it is not resampled."""
    if not mask.any():
        return np.zeros((size[1], size[0]), bool)
    return _resize_f(mask.astype(np.float32), size) > 0.5


def _grown_box(mask: np.ndarray, margin: int) -> tuple[slice, slice]:
    """Row and column slices of the bounding box of a non-empty bool (H, W) ``mask``, grown by ``margin``
    px on every side and clipped to the array."""
    rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
    return (
        slice(max(0, int(rows[0]) - margin), min(mask.shape[0], int(rows[-1]) + margin + 1)),
        slice(max(0, int(cols[0]) - margin), min(mask.shape[1], int(cols[-1]) + margin + 1)),
    )


def _band_outside(fg: np.ndarray, near: float, far: float) -> np.ndarray:
    """Pixels whose Euclidean distance ``d`` to the nearest ``fg`` pixel (bool (H, W)) has
    ``near < d <= far``: ``(d > near) & (d <= far)`` with ``d = ndi.distance_transform_edt(~fg)``.

    The transform runs on ``fg``'s bounding box grown by ``far`` + 1 px: every pixel outside it is
    farther than ``far``, and the exact transform gives the box's pixels the same distances (their
    nearest ``fg`` pixel lies in the box).
    """
    if not fg.any():
        d = ndi.distance_transform_edt(~fg)
        return (d > near) & (d <= far)
    box = _grown_box(fg, int(np.ceil(far)) + 1)
    d = ndi.distance_transform_edt(~fg[box])
    band = np.zeros(fg.shape, bool)
    band[box] = (d > near) & (d <= far)
    return band


def _two_px_from_solid(loose: np.ndarray) -> np.ndarray:
    """``ndi.distance_transform_edt(loose) >= 2`` for a bool (H, W) array (True: not solid): no solid
    pixel on the pixel itself or among its 8 neighbours (the only offsets shorter than 2 px have squared
    lengths 0, 1 and 2), by a 3 x 3 dilation instead of the distance transform. Without any solid pixel
    the transform itself is returned (it then measures from outside the array)."""
    if loose.all():
        return ndi.distance_transform_edt(loose) >= 2
    return ~ndi.binary_dilation(~loose, structure=np.ones((3, 3), bool))


def _label_means(values: np.ndarray, flat_labels: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Mean of ``values`` (any (H, W) numeric or bool) per label 0..n of ``flat_labels`` (the labels
    raveled, every label present): float64 (n + 1,), what ``ndi.mean(values, labels, np.arange(n + 1))``
    computes (a float64 bincount of the values over the float64 pixel counts ``counts``), without its
    three passes over the labels for every call."""
    return np.bincount(flat_labels, weights=values.ravel(), minlength=len(counts)) / counts


def _label_medians(values: np.ndarray, labels: np.ndarray, n: int) -> np.ndarray:
    """Median of ``values`` (float (H, W)) over each label 1..n of ``labels`` (int (H, W), 0 = none):
    float64 (n + 1,), index 0 and labels without pixels 0. Sorts only the labelled pixels (cheaper than
    :func:`scipy.ndimage.median` over the whole image)."""
    out = np.zeros(n + 1, np.float64)
    sel = labels > 0
    lab, val = labels[sel], values[sel]
    if not len(lab):
        return out
    order = np.lexsort((val, lab))
    lab, val = lab[order], val[order]
    starts = np.searchsorted(lab, np.arange(1, n + 1), side="left")
    ends = np.searchsorted(lab, np.arange(1, n + 1), side="right")
    for j, (a, b) in enumerate(zip(starts, ends, strict=True), start=1):
        if b > a:
            mid = (a + b - 1) / 2.0
            out[j] = 0.5 * (float(val[int(np.floor(mid))]) + float(val[int(np.ceil(mid))]))
    return out
