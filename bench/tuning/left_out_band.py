"""Research tool (not product code): a hoop or handle of the product left outside the matte, two cheap signals.

Measured as review-flag caps on the recorded tuning photos (the left-out band review record in ``docs/decisions/``);
neither met the round's rule, so the product does not run them. Both look outside the matte for a part of the
product it left out (a mug's or a bag's C-shaped handle, a hoop, beside the product on a busy or textured backdrop):

* :func:`hoop_arc`, a shape cue: the longest arc of a thin circular band of one colour that lies outside the matte's
  outer outline, differs from the backdrop on both of its sides, and runs out of the outline. Circles are proposed
  by OpenCV's Hough transform on the matte's box (grown by :data:`GROW` of its side, at most :data:`SIDE` px); each
  circle is read as the inner or the outer edge of a band :data:`BAND_WIDTHS` of its radius wide. Per angle
  (:data:`ANGLES` around the circle) the band's middle colour must keep the arc's median chromaticity (within
  :data:`CHROMA_TOL`, brightness 0.65-1.5 times the median: a handle is shaded), both neighbours (0.7 band widths
  inside and outside the band) must differ from it by more than :data:`CONTRAST` RGB levels, and the band and
  both neighbours must lie outside the matte's outer outline (holes filled, dilated 2 px). Options: ``width``
  (the band's colour also holds a third of a width in and out, within 20 levels), ``product`` (the arc's colour is
  within 25 levels of at least 2 % of the matte's pixels: a handle is painted in a colour of the product) and
  ``both_ends`` (the arc meets the outline at both of its ends, not one);
* :func:`reverse_cut`, a graph cut the other way round from :func:`retouch.pick.cut.cut_backdrop`: the product
  model frozen on the whole matte, the backdrop model on the box's border (3 px) or on the clear background more
  than 0.15 of the matte's side out, the matte product for sure, a zone ``zone`` of the side around it probably
  backdrop, the rest backdrop for sure; the signal is the zone's share the cut gives to the product, connected to
  the matte, over the matte's area.

``python -m bench.tuning.left_out_band ROWS.json:NPZ_DIR ... C.json:C-npz:control`` replays main's flag
(:func:`bench.tuning.recordings.replayed_flag`), measures every variant on the photos main leaves unflagged and
prints, per variant, the threshold flagging the most results under IoU 0.8 with at most one new good result
(IoU >= 0.95) and no control photo, in sample and product-grouped out of fold; then the variant and threshold chosen
together on each fold's other four, out of fold.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.backdrop_through import choose, counts  # noqa: E402
from bench.tuning.recordings import out_of_fold, recorded_photos, replayed_flag  # noqa: E402
from retouch.pick.config import SHIPPED_PICK  # noqa: E402
from retouch.pick.cut import MIN_SAMPLES, NO_RECT, frozen_models  # noqa: E402
from retouch.pick.through import matte_box  # noqa: E402

__all__ = ["ARC_VARIANTS", "MAIN", "hoop_arc", "reverse_cut", "main"]

#: Main's flag (the hoop-arc cap was not shipped: the combined held-out record of the separate piece and hoop-arc
#: caps).
MAIN = SHIPPED_PICK
#: The candidate's threshold (degrees), chosen on tuning photos (the left-out band record).
CANDIDATE_ARC = 145.0

#: Long side (px) of the box the circles are searched on.
SIDE = 160
#: The matte's box is grown by this share of its longer side on each side (a handle reaches up to ~0.8 of the
#: product's height out).
GROW = 0.75
#: Angles sampled around a circle.
ANGLES = 72
#: Band widths tried, as shares of the circle's radius (the generator's handles: 0.18-0.3 of the outer radius).
BAND_WIDTHS = (0.2, 0.3, 0.4)
#: Chromaticity distance (levels of ``255 * rgb / sum(rgb)``) within which the band keeps its colour.
CHROMA_TOL = 12.0
#: RGB distance (levels) the band's neighbours must keep from it on both sides.
CONTRAST = 30.0
#: Most Hough circles examined per photo (OpenCV returns them strongest first; the tuning runs with the plain
#: Hough transform kept 60).
MAX_CIRCLES = 100
#: Reverse-cut variants: (backdrop sample, zone as a share of the matte's side).
CUT_VARIANTS = (("border", 0.15), ("border", 0.3), ("far", 0.15), ("far", 0.3))
#: Hoop-arc variants: (width, product, both_ends, alt, centred); the last is the candidate the held-out run
#: rejected.
ARC_VARIANTS = (
    (False, False, False, False, False),
    (False, True, False, False, False),
    (True, True, False, False, False),
    (False, False, True, False, False),
    (False, False, False, True, False),
    (False, True, False, True, False),
    (False, False, False, True, True),
    (True, True, False, True, True),
    (False, True, True, True, True),
    (False, True, False, True, True),
)


def longest_attached_run(good: np.ndarray, touch: np.ndarray, both_ends: bool = False) -> int:
    """Length of the longest circular run of True in ``good`` (bool (n,)) that has a True of ``touch`` (bool (n,))
    within 2 steps before or after it (within 3 steps on both sides, with ``both_ends``); 0 when none does. A run
    covering the whole circle counts ``n``."""
    n = len(good)
    if good.all():
        return n
    start = int(np.flatnonzero(~good)[0])
    g, t = np.roll(good, -start), np.roll(touch, -start)
    reach = 3 if both_ends else 2
    best, i = 0, 0
    while i < n:
        if not g[i]:
            i += 1
            continue
        j = i
        while j < n and g[j]:
            j += 1
        before = t[[(i - 1 - k) % n for k in range(reach)]].any()
        after = t[[(j + k) % n for k in range(reach)]].any()
        if (before and after) if both_ends else (before or after):
            best = max(best, j - i)
        i = j
    return best


def hoop_arc(
    small: np.ndarray,
    alpha: np.ndarray,
    *,
    width: bool = False,
    product: bool = False,
    both_ends: bool = False,
    alt: bool = False,
    centred: bool = False,
) -> float:
    """Degrees (0-360) of the longest arc of a thin one-colour band outside the matte that runs out of its outline
    (see the module docstring for the tests and the options).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1] at the same resolution.
        width, product, both_ends: the optional tests.
        alt: propose circles with OpenCV's ``HOUGH_GRADIENT_ALT`` (dp 1.5, circularity 0.5; at most
            :data:`MAX_CIRCLES` of those passing within 2 px of the outline) instead of ``HOUGH_GRADIENT``
            (dp 1, accumulator 12; the :data:`MAX_CIRCLES` strongest).
        centred: also read each circle as the middle of a band (not only as its inner or outer edge).

    Returns:
        The arc in degrees, multiples of ``360 / ANGLES``; 0.0 for an empty matte or no circle found.

    Raises:
        ModuleNotFoundError: OpenCV is not installed.
    """
    import cv2

    fg = alpha >= 0.5
    rows, cols = np.flatnonzero(fg.any(1)), np.flatnonzero(fg.any(0))
    if rows.size == 0:
        return 0.0
    h, w = fg.shape
    side = max(int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1))
    g = int(GROW * side)
    y0, y1 = max(0, int(rows[0]) - g), min(h, int(rows[-1]) + 1 + g)
    x0, x1 = max(0, int(cols[0]) - g), min(w, int(cols[-1]) + 1 + g)
    f = min(1.0, SIDE / max(y1 - y0, x1 - x0))
    size = (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f)))
    crop = np.ascontiguousarray(small[y0:y1, x0:x1])
    rgb = np.asarray(Image.fromarray(crop, "RGB").resize(size, Image.Resampling.BOX), np.float32)
    a = np.asarray(
        Image.fromarray(np.ascontiguousarray(alpha[y0:y1, x0:x1], dtype=np.float32), "F").resize(
            size, Image.Resampling.BOX
        )
    )
    m = a >= 0.5
    if not m.any():
        return 0.0
    outline = ndi.binary_dilation(ndi.binary_fill_holes(m), iterations=2)
    s = side * f
    grey = cv2.GaussianBlur(rgb.mean(2).astype(np.uint8), (5, 5), 1.0)
    r_lo, r_hi = max(3, int(0.08 * s)), int(0.6 * s) + 1
    if alt:
        found = cv2.HoughCircles(
            grey, cv2.HOUGH_GRADIENT_ALT, 1.5, 2, param1=60, param2=0.5, minRadius=r_lo, maxRadius=r_hi
        )
    else:
        found = cv2.HoughCircles(
            grey, cv2.HOUGH_GRADIENT, 1, 2, param1=60, param2=12, minRadius=r_lo, maxRadius=r_hi
        )
    if found is None:
        return 0.0
    circles = np.asarray(found)[0]
    if alt:  # only circles passing within 2 px of the outline (the band runs out of it)
        oy, ox = np.nonzero(outline & ~ndi.binary_erosion(outline))
        near = [bool((np.abs(np.hypot(oy - c[1], ox - c[0]) - c[2]) <= 2.0).any()) for c in circles]
        circles = circles[np.array(near, bool)]
    prod = rgb[m]
    if len(prod) > 600:
        prod = prod[np.linspace(0, len(prod) - 1, 600).astype(int)]
    th = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False)
    cos, sin = np.cos(th), np.sin(th)
    hh, ww = m.shape
    chans = [np.ascontiguousarray(rgb[..., c]) for c in range(3)]

    def sample(r: float, cx: float, cy: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        yy, xx = cy + r * sin, cx + r * cos
        inside = (yy >= 0) & (yy <= hh - 1) & (xx >= 0) & (xx <= ww - 1)
        iy, ix = np.clip(np.round(yy).astype(int), 0, hh - 1), np.clip(np.round(xx).astype(int), 0, ww - 1)
        colour = np.stack([ndi.map_coordinates(c, [yy, xx], order=1, mode="nearest") for c in chans], -1)
        return colour, inside, outline[iy, ix]

    best = 0
    for cx, cy, r in circles[: MAX_CIRCLES if alt else 60]:
        for sign in (-1.0, 0.0, 1.0) if centred else (-1.0, 1.0):
            for share in BAND_WIDTHS:
                t = share * r
                mid = r + sign * t / 2
                r_in, r_out = mid - t / 2 - 0.7 * t, mid + t / 2 + 0.7 * t
                if r_in <= 1:
                    continue
                cb, ok_b, on_b = sample(mid, cx, cy)
                ci, _, on_i = sample(r_in, cx, cy)
                co, ok_o, on_o = sample(r_out, cx, cy)
                touch = ok_b & on_b
                valid = ok_b & ok_o & ~on_b & ~on_i & ~on_o
                if valid.sum() < ANGLES // 4 or not touch.any():
                    continue
                med = np.median(cb[valid], 0)
                chroma = np.linalg.norm(
                    cb / (cb.sum(1, keepdims=True) + 1e-3) * 255 - med / (med.sum() + 1e-3) * 255, axis=1
                )
                bright = cb.sum(1) / max(float(med.sum()), 1.0)
                same = (chroma <= CHROMA_TOL) & (bright > 0.65) & (bright < 1.5)
                contrast = (np.linalg.norm(ci - cb, axis=1) > CONTRAST) & (
                    np.linalg.norm(co - cb, axis=1) > CONTRAST
                )
                good = valid & same & contrast
                if width:
                    c1, _, _ = sample(mid - t / 3, cx, cy)
                    c2, _, _ = sample(mid + t / 3, cx, cy)
                    good &= (np.linalg.norm(c1 - cb, axis=1) <= 20) & (np.linalg.norm(c2 - cb, axis=1) <= 20)
                if product and float((np.linalg.norm(prod - med, axis=1) <= 25).mean()) < 0.02:
                    continue
                best = max(best, longest_attached_run(good, touch, both_ends))
    return best * 360.0 / ANGLES


def reverse_cut(
    small: np.ndarray, alpha: np.ndarray, *, backdrop: str = "border", zone: float = 0.15
) -> float:
    """Share of the zone around the matte that a frozen-model graph cut gives to the product, connected to the
    matte, over the matte's area (on :func:`retouch.pick.through.matte_box`'s box; see the module docstring).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1].
        backdrop: ``"border"`` (the box's outer 3 px) or ``"far"`` (clear background over 0.15 of the side out).
        zone: the probably-backdrop zone's width, share of the matte's side.

    Returns:
        The share (may exceed 1), rounded to 4 decimals; 0.0 when the box or its samples are too small.

    Raises:
        ModuleNotFoundError: OpenCV is not installed.
    """
    import cv2

    box = matte_box(small, alpha)
    if box is None:
        return 0.0
    m, scale = box.matte, box.scale
    d_out = ndi.distance_transform_edt(~m)
    if backdrop == "border":
        edge = np.zeros_like(m)
        edge[:3], edge[-3:], edge[:, :3], edge[:, -3:] = True, True, True, True
        back = edge & ~m & (box.alpha < 0.05)
    else:
        back = (d_out > 0.15 * scale) & (box.alpha < 0.05)
    if min(int(m.sum()), int(back.sum())) < MIN_SAMPLES:
        return 0.0
    rgb = np.clip(np.round(box.rgb), 0, 255).astype(np.uint8)
    backdrop_model, product_model = frozen_models(rgb, m, back)
    around = ~m & (d_out <= max(3.0, zone * scale))
    mask = np.full(m.shape, cv2.GC_BGD, np.uint8)
    mask[around] = cv2.GC_PR_BGD
    mask[m] = cv2.GC_FGD
    cv2.grabCut(rgb, mask, NO_RECT, backdrop_model, product_model, 1, cv2.GC_EVAL_FREEZE_MODEL)
    grown = around & (mask == cv2.GC_PR_FGD)
    lab, _ = ndi.label(grown | m)
    joined = grown & np.isin(lab, np.unique(lab[m]))
    return round(float(joined.sum() / m.sum()), 4)


def _flag_table(values: np.ndarray, main: np.ndarray) -> tuple[np.ndarray, list[float]]:
    """Flag table (thresholds, photos) of ``values`` (NaN where not measured) on top of ``main``, and the
    thresholds: infinity first (no new flag: what the choice falls back to when no threshold qualifies), then the
    distinct measured values above 0."""
    thresholds = [np.inf, *sorted({float(v) for v in values if np.isfinite(v) and v > 0})]
    x = np.nan_to_num(values, nan=-1.0)
    return np.stack([main | (x >= t) for t in thresholds]), thresholds


def _choose(rows: Sequence[dict], table: np.ndarray, main: np.ndarray, use: np.ndarray) -> int:
    """:func:`bench.tuning.backdrop_through.choose` with one new good result spared."""
    return choose(rows, table, main, use, 1)


def main(argv: list[str] | None = None) -> int:
    """Replay main's flag, measure both signals' variants and print their tuning figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args(argv)
    rows: list[dict] = []
    photos: list[tuple[np.ndarray, np.ndarray] | None] = []
    for r, control, small, alpha in recorded_photos(args.recordings):
        flag = replayed_flag(small, alpha, r["signals"], config=MAIN)
        rows.append({"name": r["name"], "iou": r["iou"], "control": control, "main": flag})
        photos.append(None if flag else (small, alpha))
    main_flags = np.array([r["main"] for r in rows])
    print(f"{len(rows)} photos, {sum(p is not None for p in photos)} left unflagged by main")
    print("main:", counts(rows, main_flags))
    variants: list[tuple[str, Callable[[np.ndarray, np.ndarray], float]]] = [
        (f"reverse cut {b} zone {z}", functools.partial(reverse_cut, backdrop=b, zone=z))
        for b, z in CUT_VARIANTS
    ]
    variants += [
        (
            f"hoop arc width {w} product {p} both_ends {e} alt {h} centred {c}",
            functools.partial(hoop_arc, width=w, product=p, both_ends=e, alt=h, centred=c),
        )
        for w, p, e, h, c in ARC_VARIANTS
    ]
    tables: list[np.ndarray] = []
    described: list[tuple[str, float]] = []
    for label, measure in variants:
        values = np.full(len(rows), np.nan)
        cpu: list[float] = []
        for j, photo in enumerate(photos):
            if photo is None:
                continue
            t = time.process_time()
            values[j] = measure(photo[0], photo[1])
            cpu.append(time.process_time() - t)
        table, thresholds = _flag_table(values, main_flags)
        k = choose(rows, table, main_flags, np.ones(len(rows), bool), 1)
        ms = 1000 * np.array(cpu)
        print(f"{label}: CPU mean {ms.mean():.0f} ms, max {ms.max():.0f} ms")
        print(f"  in sample: threshold {thresholds[k]} {counts(rows, table[k])}")
        for r, s, m in zip(rows, table[k], main_flags, strict=True):
            if s and not m:
                print(
                    f"    newly flagged: {r['name']} (IoU {r['iou']:.3f}{', control' if r['control'] else ''})"
                )
        oof, chosen = out_of_fold(
            rows, table, args.folds, functools.partial(_choose, rows, table, main_flags)
        )
        print(f"  out of fold (thresholds {[thresholds[c] for c in chosen]}): {counts(rows, oof)}")
        tables.append(table)
        described += [(label, t) for t in thresholds]
    every = np.concatenate(tables)
    oof, chosen = out_of_fold(rows, every, args.folds, functools.partial(_choose, rows, every, main_flags))
    print("every variant and threshold chosen together, out of fold:", counts(rows, oof))
    for f, c in enumerate(chosen):
        print(f"  fold {f}: {described[c][0]}, threshold {described[c][1]}")
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            print(
                f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}{', control' if r['control'] else ''})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
