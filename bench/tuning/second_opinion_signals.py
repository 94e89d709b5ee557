"""Research collector: candidate second-opinion signals of the final matte, recorded with ``tune_pick --out``.

Runs :func:`bench.tuning.tune_pick.main` with an ``observe`` hook of :func:`retouch.retouch` so that every
tuning photo's ``segmentation.signals`` also carries ``so_*`` candidates measured against the final matte
(working resolution, ``alpha >= 0.5``), each with its wall-clock cost in ms (``so_ms_*``, noisy):

* ``so_mirror``: IoU with the 256 px network mask of the mirrored photo (int8 copy, as the first pass);
* ``so_s320``: IoU with the 320 px (Lanczos) mask: plain rembg's own;
* ``so_centre``: IoU, inside the central 70 % crop, with the network's mask of that crop at 256 px;
* ``so_rest_area`` / ``so_rest_mean``: the photo with the matte filled with the border's median colour, looked at
  again at 256 px: the share of the frame it calls product (over the matte's share) and its mean value there;
* ``so_mcrop`` / ``so_crop``: IoU, inside the matte's box grown by half its size per side (at least 16 px; its
  share of the frame ``so_crop_share``), with the 256 px network mask of that box mirrored / as it is (the
  shipped ``retouch.pick.second.second_opinion`` is ``so_mcrop``);
* ``so_first_out``: share of the first network mask (>= 0.5) outside the final matte; ``so_first_iou``: its IoU
  with the matte; ``so_first_parts``: parts of the first mask at 0.3 larger than 0.5 % of the frame.

Usage: ``python -m bench.tuning.second_opinion_signals TUNE_PICK_ARGS...`` (tuning seeds only: tune_pick
refuses the others). Not product code; the review second-opinion record in ``docs/decisions/`` says
which candidate was kept.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from retouch.pick.signals import iou  # noqa: E402
from retouch.segment import predict_mask  # noqa: E402


def candidates(
    small: np.ndarray, alpha: np.ndarray, first: np.ndarray | None, **net: Any
) -> dict[str, float]:
    """The ``so_*`` signals of one photo (see the module docstring)."""
    out: dict[str, float] = {}
    b = alpha >= 0.5
    h, w = b.shape

    t = time.perf_counter()
    m = predict_mask(np.ascontiguousarray(small[:, ::-1]), **net)[:, ::-1] >= 0.5
    out["so_mirror"] = iou(b, m)
    out["so_ms_mirror"] = 1000 * (time.perf_counter() - t)

    t = time.perf_counter()
    m = predict_mask(small, input_px=320, lanczos=True, **net) >= 0.5
    out["so_s320"] = iou(b, m)
    out["so_ms_s320"] = 1000 * (time.perf_counter() - t)

    t = time.perf_counter()
    y0, y1, x0, x1 = int(0.15 * h), int(0.85 * h), int(0.15 * w), int(0.85 * w)
    m = predict_mask(np.ascontiguousarray(small[y0:y1, x0:x1]), **net) >= 0.5
    out["so_centre"] = iou(b[y0:y1, x0:x1], m)
    out["so_ms_centre"] = 1000 * (time.perf_counter() - t)

    t = time.perf_counter()
    border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    filled = small.copy()
    filled[ndi.binary_dilation(b, iterations=3)] = np.median(border, axis=0).astype(np.uint8)
    rest = predict_mask(filled, **net)
    rb = (rest >= 0.5) & ~b
    out["so_rest_area"] = float(rb.mean()) / max(float(b.mean()), 1e-3)
    out["so_rest_mean"] = float(rest[rb].mean()) if rb.any() else 0.0
    out["so_ms_rest"] = 1000 * (time.perf_counter() - t)

    ys, xs = np.flatnonzero(b.any(axis=1)), np.flatnonzero(b.any(axis=0))
    if ys.size:
        y0, y1, x0, x1 = int(ys[0]), int(ys[-1]) + 1, int(xs[0]), int(xs[-1]) + 1
        gy, gx = max(16.0, 0.5 * (y1 - y0)), max(16.0, 0.5 * (x1 - x0))
        y0, y1 = int(max(0, y0 - gy)), int(min(h, y1 + gy))
        x0, x1 = int(max(0, x0 - gx)), int(min(w, x1 + gx))
        crop = np.ascontiguousarray(small[y0:y1, x0:x1])
        t = time.perf_counter()
        m = predict_mask(np.ascontiguousarray(crop[:, ::-1]), **net)[:, ::-1] >= 0.5
        out["so_mcrop"] = iou(b[y0:y1, x0:x1], m)
        out["so_ms_mcrop"] = 1000 * (time.perf_counter() - t)
        m = predict_mask(crop, **net) >= 0.5
        out["so_crop"] = iou(b[y0:y1, x0:x1], m)
        out["so_crop_share"] = (y1 - y0) * (x1 - x0) / (h * w)

    if first is not None:
        fb = first >= 0.5
        out["so_first_out"] = float((fb & ~b).sum()) / max(1, int(fb.sum()))
        out["so_first_iou"] = iou(b, fb)
        lab, n = ndi.label(first >= 0.3)
        sizes = np.bincount(lab.ravel(), minlength=n + 1)[1:]
        out["so_first_parts"] = float((sizes >= 0.005 * h * w).sum())
    return out


def main(argv: list[str]) -> int:
    """Run ``tune_pick`` with ``argv``, recording the candidates through ``retouch``'s ``observe`` hook."""

    def observe(small: np.ndarray, alpha: np.ndarray, pick: Any) -> None:
        pick.signals.update(candidates(small, alpha, pick.first, model_name="u2netp"))

    from bench.tuning import tune_pick

    return tune_pick.main(argv, observe=observe)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
