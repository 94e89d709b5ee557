"""Research tool (not product code): does the network, asked again, notice the results the review flag misses?

The failures the shipped review flag leaves unflagged are sure-looking mattes (confidence 0.85-0.95) on busy
backdrops: another object kept, a part left out, an opening kept (the misses-by-kind record in ``docs/decisions/``).
This tool asks whether u2netp itself, shown the same evidence another way, draws another outline on those more
often than on the good results the flag leaves unflagged. Two measures per recorded photo:

- **views**: IoU between the final matte (``alpha >= 0.5``) and u2netp's mask (at 0.5, the product's 320 px pass,
  :func:`retouch.segment.predict_mask`) of the matte's box (:func:`retouch.pick.crops.zoom_box`, the zoom's margin)
  seen as it is, mirrored, upside down, in grey (ITU-R BT.601 luma in all three channels), with red and blue swapped,
  and of a wider box (margin :data:`WIDE_MARGIN` of the matte's size) as it is and in grey; and the smallest of them.
- **soft growth**: the network's soft mask (of the whole frame, and of the box) thresholded at each of
  :data:`LOW_THRESHOLDS` instead of 0.5: the share of the matte's area that this adds connected to the matte (all
  of it, and its largest piece); the share of the matte's area outside it where the soft mask is between 0.05 and
  0.5; and the soft mask's mean inside the matte. A part left out that the network half saw would grow it.

Main's flag is replayed on each recording (:func:`bench.tuning.recordings.replayed_flag`); only photos it leaves
unflagged are measured. Printed per measure: the AUC of unflagged failures (IoU under
:data:`~bench.tuning.backdrop_through.BAD`) against unflagged good results (IoU at least
:data:`~bench.tuning.backdrop_through.GOOD`), in the measure's better direction, and how many unflagged failures a
threshold on it newly flags when it may newly flag 0, 5, 10, 15 or 25 good results (in brackets: how many of those
good results are real photos of the GT fold).

Usage: ``python -m bench.tuning.network_views A.json:A-npz B.json:B-npz``. The record in ``docs/decisions/`` on the
network's other views says what it found.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.backdrop_through import BAD, GOOD  # noqa: E402
from bench.tuning.recordings import recorded_photos, replayed_flag  # noqa: E402
from retouch.pick.config import SHIPPED_PICK  # noqa: E402
from retouch.pick.crops import zoom_box  # noqa: E402
from retouch.pick.signals import iou, luma  # noqa: E402
from retouch.segment import predict_mask  # noqa: E402

__all__ = ["LOW_THRESHOLDS", "WIDE_MARGIN", "budget_table", "soft_growth", "views_agreement", "main"]

#: The wider box's margin, a share of the matte's box size on every side (the zoom's is 0.5).
WIDE_MARGIN = 1.2
#: Thresholds of the soft mask below the product's 0.5 at which the growth is measured.
LOW_THRESHOLDS = (0.02, 0.05, 0.1, 0.2, 0.3)
#: Newly flagged good results allowed, per column of the printed table.
BUDGETS = (0, 5, 10, 15, 25)

Network = Callable[[np.ndarray], np.ndarray]


def _u2netp(rgb: np.ndarray) -> np.ndarray:
    return predict_mask(rgb, "u2netp")


def _grey(rgb: np.ndarray) -> np.ndarray:
    levels = np.clip(np.rint(luma(rgb) * np.float32(255.0)), 0, 255).astype(np.uint8)
    return np.repeat(levels[..., None], 3, axis=2)


def views_agreement(small: np.ndarray, alpha: np.ndarray, network: Network = _u2netp) -> dict[str, float]:
    """IoU of the matte with the network's mask of its box seen other ways (the module docstring's "views").

    Args:
        small: uint8 (H, W, 3) working image.
        alpha: float32 (H, W) final matte in [0, 1].
        network: uint8 (h, w, 3) -> float32 (h, w) soft mask in [0, 1]; default u2netp at 320 px.

    Returns:
        ``{view: IoU}`` for ``plain``, ``mirror``, ``flipv``, ``grey``, ``bgr``, ``wide_plain``, ``wide_grey`` and
        ``min`` (the smallest); empty for an empty matte.
    """
    matte = alpha >= 0.5
    out: dict[str, float] = {}
    for prefix, margin, views in (
        ("", SHIPPED_PICK.zoom_margin, ("plain", "mirror", "flipv", "grey", "bgr")),
        ("wide_", WIDE_MARGIN, ("plain", "grey")),
    ):
        box = zoom_box(matte, config=replace(SHIPPED_PICK, zoom_margin=margin))
        if box is None:
            return {}
        x0, y0, x1, y1 = box
        crop = small[y0:y1, x0:x1]
        ref = matte[y0:y1, x0:x1]
        for view in views:
            if view == "mirror":
                mask = network(np.ascontiguousarray(crop[:, ::-1]))[:, ::-1]
            elif view == "flipv":
                mask = network(np.ascontiguousarray(crop[::-1]))[::-1]
            elif view == "grey":
                mask = network(_grey(crop))
            elif view == "bgr":
                mask = network(np.ascontiguousarray(crop[..., ::-1]))
            else:
                mask = network(np.ascontiguousarray(crop))
            out[prefix + view] = iou(ref, mask >= 0.5)
    out["min"] = min(out.values())
    return out


def soft_growth(matte: np.ndarray, soft: np.ndarray) -> dict[str, float]:
    """How the matte grows where the network's soft mask is below 0.5 but not far (the module docstring's "soft
    growth").

    Args:
        matte: bool (h, w), the final matte at 0.5.
        soft: float32 (h, w) the network's soft mask in [0, 1] over the same pixels.

    Returns:
        ``g{t}`` (everything ``soft >= t`` adds connected, 8-neighbourhood, to the matte) and ``gb{t}`` (its
        largest piece) per ``t`` in :data:`LOW_THRESHOLDS`, ``soft_out`` (pixels outside the matte with ``soft`` in
        (0.05, 0.5)) as shares of the matte's area in px, and ``mean_in`` (``soft``'s mean inside the matte); empty
        for an empty matte.

    Raises:
        ValueError: the shapes differ.
    """
    if matte.shape != soft.shape:
        raise ValueError(f"matte {matte.shape} and soft mask {soft.shape} differ in size")
    area = int(matte.sum())
    if area == 0:
        return {}
    eight = np.ones((3, 3), bool)
    out: dict[str, float] = {}
    for t in LOW_THRESHOLDS:
        labels, _ = ndi.label((soft >= t) | matte, structure=eight)
        touching = np.unique(labels[matte])
        grown = np.isin(labels, touching[touching > 0]) & ~matte
        pieces, n = ndi.label(grown, structure=eight)
        largest = int(np.bincount(pieces.ravel())[1:].max()) if n else 0
        out[f"g{t}"] = float(grown.sum()) / area
        out[f"gb{t}"] = largest / area
    out["soft_out"] = float(((soft > 0.05) & (soft < 0.5) & ~matte).sum()) / area
    out["mean_in"] = float(soft[matte].mean())
    return out


def budget_table(
    values: np.ndarray, failure: np.ndarray, good: np.ndarray, real: np.ndarray
) -> tuple[float, int, list[tuple[int, int]]]:
    """How well one measure separates unflagged failures from unflagged good results.

    Args:
        values: float (n,) the measure per unflagged photo (NaN: not measured, left out).
        failure: bool (n,) IoU under :data:`BAD`.
        good: bool (n,) IoU at least :data:`GOOD`.
        real: bool (n,) a real photo of the GT fold.

    Returns:
        ``(auc, direction, rows)``: the AUC (at least 0.5, ties counted half) of failures against good results in
        the better direction (+1: high values are failures, -1: low ones), and per budget ``b`` of :data:`BUDGETS`
        ``(failures, real good)`` flagged by the threshold that newly flags ``b`` good results (strictly beyond the
        ``b + 1``-th most failure-like good value).
    """
    ok = ~np.isnan(values)
    pos, neg = values[ok & failure], values[ok & good]
    if pos.size == 0 or neg.size == 0:
        return 0.5, 1, [(0, 0) for _ in BUDGETS]
    auc = float((pos[:, None] > neg[None]).mean() + 0.5 * (pos[:, None] == neg[None]).mean())
    direction = 1 if auc >= 0.5 else -1
    signed = np.where(ok, direction * np.nan_to_num(values), -np.inf)
    ranked = np.sort(signed[ok & good])[::-1]
    rows = []
    for b in BUDGETS:
        edge = ranked[b] if b < ranked.size else -np.inf
        hit = ok & (signed > edge)
        rows.append((int((hit & failure).sum()), int((hit & good & real).sum())))
    return max(auc, 1.0 - auc), direction, rows


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the recordings and print the table (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control] pairs")
    args = parser.parse_args(argv)
    measures: list[dict[str, float]] = []
    failure, good, real = [], [], []
    flagged_failures = flagged_good = total_failures = total_good = 0
    for row, control, small, alpha in recorded_photos(args.recordings):
        if control:
            continue
        flagged = replayed_flag(small, alpha, row["signals"])
        is_failure, is_good = row["iou"] < BAD, row["iou"] >= GOOD
        total_failures += is_failure
        total_good += is_good
        flagged_failures += is_failure and flagged
        flagged_good += is_good and flagged
        if flagged:
            continue
        m = {f"view_{k}": v for k, v in views_agreement(small, alpha).items()}
        matte = alpha >= 0.5
        m |= {f"frame_{k}": v for k, v in soft_growth(matte, _u2netp(small)).items()}
        box = zoom_box(matte)
        if box is not None:
            x0, y0, x1, y1 = box
            crop = np.ascontiguousarray(small[y0:y1, x0:x1])
            m |= {f"box_{k}": v for k, v in soft_growth(matte[y0:y1, x0:x1], _u2netp(crop)).items()}
        measures.append(m)
        failure.append(is_failure)
        good.append(is_good)
        real.append(row["name"][:1] not in ("c", "o"))
    f, g, r = np.array(failure), np.array(good), np.array(real)
    print(
        f"main's flag: {flagged_failures} of {total_failures} failures, {flagged_good} of {total_good} good results; "
        f"unflagged: {int(f.sum())} failures, {int(g.sum())} good ({int((g & r).sum())} real GT-fold photos)\n"
    )
    print("| measure | AUC | failures are | " + " | ".join(f"+{b} good" for b in BUDGETS) + " |")
    print("|---|---|---|" + "---|" * len(BUDGETS))
    for key in sorted({k for m in measures for k in m}):
        values = np.array([m.get(key, np.nan) for m in measures], float)
        auc, direction, rows = budget_table(values, f, g, r)
        cells = " | ".join(f"{n} ({real_good})" for n, real_good in rows)
        print(f"| {key} | {auc:.3f} | {'high' if direction > 0 else 'low'} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
