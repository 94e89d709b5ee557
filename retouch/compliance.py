"""Compliance report of a result against its preset's marketplace rules.

Rules (pass/fail each) and sources:

* ``background_white``: pure white background RGB 255,255,255 (Amazon main image requirement; checked
  on the background pixels before encoding, and on the four corners of the *encoded* JPEG, which must
  decode to >= 254 on every channel).
* ``fill_ratio``: the product's bounding box covers >= 85% of the frame along its limiting axis
  (Amazon: "the product should fill 85% or more of the image frame").
* ``size``: the output has the preset's size (Amazon: long side >= 1000 px for zoom; we check the preset
  size exactly, and for ``original`` only the zoom minimum). A photo kept at its native resolution
  under the preset's minimum fails it, and the report's ``notice`` says so ('Risoluzione sotto il
  minimo Amazon: 1000 px sul lato lungo').
* ``colour_space``: sRGB (the outputs carry the sRGB ICC profile).
* ``not_cropped``: the product does not touch the frame's edges (nothing cut off).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .layout import BBOX_THRESHOLD
from .presets import Preset

__all__ = ["compliance_report", "PURITY_MIN"]

PURITY_MIN = 0.999
ZOOM_MIN_SIDE = 1000


def _rule(label: str, passed: bool, value: Any, expected: str, applies: bool = True) -> dict[str, Any]:
    return {"label": label, "passed": bool(passed), "value": value, "expected": expected, "applies": applies}


def compliance_report(
    *,
    preset: Preset,
    out: np.ndarray,
    alpha_out: np.ndarray,
    shadow: np.ndarray | None,
    jpeg_corner_min: int,
    smart_background: bool,
    below_minimum: bool = False,
) -> dict[str, Any]:
    """Build the compliance report (``details["compliance"]``).

    Args:
        preset: the output preset.
        out: uint8 (H, W, 3) final image before encoding.
        alpha_out: float32 (H, W) product matte on the canvas, [0, 1].
        shadow: float16/float32 (H, W) shadow opacity or ``None``.
        jpeg_corner_min: min channel over the corners of the decoded JPEG (see ``metrics.corner_min``).
        smart_background: a smart background was used (so a white background is not expected).
        below_minimum: the framing kept the photo's native resolution, under ``preset.min_long_side``.

    Returns:
        ``{"preset", "passed", "rules": {name: {label, passed, value, expected, applies}}}``; ``passed``
        is the AND over the rules that apply; plus ``notice`` (Italian) when ``below_minimum``.
    """
    h, w = alpha_out.shape
    rules: dict[str, dict[str, Any]] = {}
    # purity on every other pixel in both directions (a statistic: 1/4 of the pixels is plenty)
    bg = alpha_out[::2, ::2] <= 0.0
    if shadow is not None:
        bg &= shadow[::2, ::2] <= 0.0
    n_bg = int(np.count_nonzero(bg))
    sub = out[::2, ::2]
    white = np.minimum(np.minimum(sub[..., 0], sub[..., 1]), sub[..., 2]) == 255  # no reduction over RGB
    purity = float(np.count_nonzero(white & bg) / n_bg) if n_bg else 1.0
    white_applies = preset.require_white and not smart_background
    rules["background_white"] = _rule(
        "Sfondo bianco puro (RGB 255,255,255)",
        purity >= PURITY_MIN and jpeg_corner_min >= 254,
        {"purity": round(purity, 5), "jpeg_corner_min": int(jpeg_corner_min)},
        f"≥ {PURITY_MIN:.1%} dei pixel di sfondo bianchi, angoli ≥ 254",
        white_applies,
    )
    level = BBOX_THRESHOLD / 255.0  # same threshold as the framing
    rows = np.flatnonzero(alpha_out.max(axis=1) > level)  # row/column maxima: no full-size mask
    cols = np.flatnonzero(alpha_out.max(axis=0) > level)
    if rows.size:
        bw, bh = int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)
        fill = max(bw / w, bh / h)
        touches = rows[0] == 0 or cols[0] == 0 or rows[-1] == h - 1 or cols[-1] == w - 1
    else:
        fill, touches = 0.0, False
    min_fill = preset.min_fill
    rules["fill_ratio"] = _rule(
        "Il prodotto occupa almeno l'85% dell'inquadratura",
        min_fill is None or fill >= min_fill - 1e-3,
        round(fill, 4),
        f"≥ {min_fill:.0%}" if min_fill is not None else "nessun requisito",
        min_fill is not None,
    )
    size_ok, expected = _size_rule(preset, w, h, below_minimum)
    rules["size"] = _rule("Dimensioni", size_ok, [w, h], expected)
    rules["colour_space"] = _rule("Spazio colore sRGB", True, "sRGB", "sRGB")
    rules["not_cropped"] = _rule(
        "Prodotto non tagliato ai bordi",
        not touches,
        bool(not touches),
        "nessun bordo toccato",
        preset.fill is not None,
    )
    passed = all(r["passed"] for r in rules.values() if r["applies"])
    report: dict[str, Any] = {"preset": preset.name, "passed": passed, "rules": rules}
    if below_minimum:
        report["notice"] = preset.below_minimum_notice()
    return report


def _size_rule(preset: Preset, w: int, h: int, below_minimum: bool) -> tuple[bool, str]:
    """Whether a ``w`` x ``h`` px output meets the preset's size, and the expected size in Italian: the
    marketplace's minimum long side when the photo kept its native resolution (``below_minimum``), else the
    preset's exact size or long side, else the zoom minimum."""
    if below_minimum and preset.min_long_side is not None:
        return max(
            w, h
        ) >= preset.min_long_side, f"lato lungo ≥ {preset.min_long_side} px (minimo {preset.marketplace})"
    if preset.width is not None and preset.height is not None:
        return (w, h) == (preset.width, preset.height), f"{preset.width}×{preset.height} px"
    if preset.long_side is not None:
        return max(w, h) == preset.long_side, f"lato lungo {preset.long_side} px"
    return max(w, h) >= ZOOM_MIN_SIDE, f"lato lungo ≥ {ZOOM_MIN_SIDE} px (zoom)"
