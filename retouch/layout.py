"""Framing: where the product goes on the output canvas, and resampling of the product region.

The marketplace presets centre the product's bounding box and scale it so that it covers
``preset.fill`` (85%, Amazon's main-image rule) of the frame along its limiting axis. Only the region
around the product is resampled (once, straight to the output scale), never the whole input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from .presets import Preset

__all__ = ["Placement", "product_bbox", "plan_placement", "resample_region"]

#: matte value (0..255) above which a pixel counts for the bounding box: ignores faint matte noise.
BBOX_THRESHOLD = 24


@dataclass(frozen=True)
class Placement:
    """Mapping from input pixels to the output canvas.

    ``out = (in - (src_x0, src_y0)) * scale + (dst_x0, dst_y0)``; ``src_box`` is the input region
    (left, top, right, bottom; floats, may extend beyond the input) that fills ``dst_box`` (ints).
    """

    out_w: int
    out_h: int
    scale: float
    src_box: tuple[float, float, float, float]
    dst_box: tuple[int, int, int, int]
    bbox: tuple[int, int, int, int]  # product bbox in input px (x0, y0, x1, y1), exclusive end
    below_minimum: bool = False  # kept at native resolution, under the preset's ``min_long_side``

    @classmethod
    def from_details(cls, details: dict[str, Any]) -> Placement:
        """The placement a result was framed with, rebuilt from its ``processing_details`` (``output_width``,
        ``output_height`` and ``framing``: ``scale``, ``src_box``, ``product_bbox``), the product filling
        the whole canvas; e.g. to map a mask at the input size onto the result with :func:`resample_region`.

        Raises:
            KeyError: ``details`` has no framing (not a :func:`retouch.retouch` result).
        """
        fr = details["framing"]
        w, h = int(details["output_width"]), int(details["output_height"])
        return cls(w, h, float(fr["scale"]), tuple(fr["src_box"]), (0, 0, w, h), tuple(fr["product_bbox"]))


def product_bbox(matte: np.ndarray, threshold: int = BBOX_THRESHOLD) -> tuple[int, int, int, int] | None:
    """Bounding box (x0, y0, x1, y1; end exclusive, input px) of ``matte > threshold``; ``None`` if empty.

    Args:
        matte: uint8 (H, W), 255 = product.
    """
    on = matte > threshold
    rows = np.flatnonzero(on.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(on[rows[0] : rows[-1] + 1].any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def plan_placement(
    in_w: int, in_h: int, bbox: tuple[int, int, int, int] | None, preset: Preset, *, shadow_room: float = 0.0
) -> Placement:
    """Decide the output size and where the product lands.

    Args:
        in_w, in_h: input size in px.
        bbox: product bounding box in input px (see :func:`product_bbox`); ``None`` keeps the framing.
        preset: target preset.
        shadow_room: fraction of the product height reserved below it for the shadow (the product is
            lifted by half of it so product + shadow stay centred).

    A preset with ``min_long_side`` (Amazon: 1000 px) never enlarges a photo whose long side is under
    it: the canvas shrinks to the photo's own resolution (scale 1, same aspect ratio and fill) and
    ``below_minimum`` is set.

    Returns:
        a :class:`Placement`.
    """
    out_w, out_h = preset.output_size(in_w, in_h)
    if preset.fill is None or bbox is None:
        scale = out_w / in_w
        return Placement(
            out_w,
            out_h,
            scale,
            (0.0, 0.0, float(in_w), float(in_h)),
            (0, 0, out_w, out_h),
            bbox or (0, 0, in_w, in_h),
        )
    x0, y0, x1, y1 = bbox
    bw, bh = max(1, x1 - x0), max(1, y1 - y0)
    scale = preset.fill * min(out_w / bw, out_h / bh)
    below_minimum = False
    if preset.min_long_side is not None and scale > 1.0 and max(in_w, in_h) < preset.min_long_side:
        out_w, out_h = max(1, round(out_w / scale)), max(1, round(out_h / scale))
        scale = preset.fill * min(out_w / bw, out_h / bh)
        below_minimum = True
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    lift = min(shadow_room * bh * scale / 2.0, (out_h - bh * scale) / 4.0)
    # canvas <- input: in = (out - out_centre) / scale + centre
    left = cx - (out_w / 2.0) / scale
    top = cy - (out_h / 2.0 - lift) / scale
    src_box = (left, top, left + out_w / scale, top + out_h / scale)
    return Placement(out_w, out_h, scale, src_box, (0, 0, out_w, out_h), (x0, y0, x1, y1), below_minimum)


def resample_region(arr: np.ndarray, placement: Placement, fill: int | tuple[int, ...] = 0) -> np.ndarray:
    """Resample ``arr`` so that ``placement.src_box`` fills the output canvas.

    Only the part of ``src_box`` inside the input is resized (Lanczos when shrinking, bicubic when
    enlarging); the rest of the canvas gets ``fill``.

    Args:
        arr: uint8 (H, W) or (H, W, C).
        placement: from :func:`plan_placement`.
        fill: value for canvas pixels outside the input.

    Returns:
        uint8 (out_h, out_w) or (out_h, out_w, C).
    """
    h, w = arr.shape[:2]
    sl, st, sr, sb = placement.src_box
    s = placement.scale
    # Visible part of the source box, in input px
    vl, vt, vr, vb = max(0.0, sl), max(0.0, st), min(float(w), sr), min(float(h), sb)
    shape = (placement.out_h, placement.out_w) + arr.shape[2:]
    out = np.empty(shape, dtype=np.uint8)
    out[...] = fill
    if vr <= vl or vb <= vt:
        return out
    dl = round((vl - sl) * s)
    dt = round((vt - st) * s)
    dr = min(placement.out_w, round((vr - sl) * s))
    db = min(placement.out_h, round((vb - st) * s))
    if dr <= dl or db <= dt:
        return out
    # exact source box for the integer destination box
    box = (
        min(max(0.0, sl + dl / s), float(w)),
        min(max(0.0, st + dt / s), float(h)),
        min(max(0.0, sl + dr / s), float(w)),
        min(max(0.0, st + db / s), float(h)),
    )
    mode = "L" if arr.ndim == 2 else {3: "RGB", 4: "RGBA"}[arr.shape[2]]
    im = Image.fromarray(arr, mode)
    if abs(s - 1.0) < 1e-9 and (dl, dt, dr, db) == (0, 0, w, h):
        out[...] = arr
        return out
    resample = Image.Resampling.LANCZOS if s < 1.0 else Image.Resampling.BICUBIC
    res = im.resize((dr - dl, db - dt), resample=resample, box=box, reducing_gap=3.0 if s < 0.5 else None)
    out[dt:db, dl:dr] = np.asarray(res)
    return out
