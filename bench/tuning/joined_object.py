"""Research tool: the "another object in the matte" review caps, chosen on recorded tuning photos only.

A matte that joins the product to an object of the backdrop (a car of the backdrop photo running off the frame,
blurred apples behind a banana), or that holds a defocused backdrop object instead of the product, reads as a good
result to every signal of the network's view. Two cheap pieces of physical evidence, read from the final matte and
the working image only (:func:`joined_evidence`):

* **a part running off the frame that is another object**: the matte covers a long run of one frame side
  (:attr:`Joined.touch`, the largest share of one side's length) *and* its end at that side and its far end (the
  quarters of the matte nearest and farthest from that side) hold different colours (:attr:`Joined.ends_overlap`,
  the intersection of their colour histograms). A product cut by the frame (a car cropped by a close shot) has the
  same paint, glass and tyres at both ends; a backdrop object joined to a product placed in the frame does not.
* **a blurred outline**: a product photographed for sale is in focus, so where the outline separates two different
  colours the image changes there within a few pixels. Per outline pixel (:data:`OUTLINE_SIDE` px scale) the
  contrast across the outline (colour 3 px inside vs 3 px outside, along the matte's normal) and the edge's width
  (that contrast over the strongest colour gradient across the outline within 2 px) are measured.

:func:`joined_signals` turns them into the signals ``frame_join`` and ``blurred_outline`` under :class:`Thresholds`.
Tried in the product as ``retouch.pick.joined`` with the caps in ``retouch.pick.confidence``; its held-out run
flagged no photo main does not, so it was not shipped (the another object in the matte record in
``docs/decisions/``); the measure lives here.

The replay reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` (rows ``name``,
``iou``, ``signals``, ``needs_review`` and a folder of ``NNNN.npz`` with each photo's working image ``small`` and final
matte ``alpha`` in the rows' order), given as ``ROWS.json:NPZ_DIR`` pairs, a pair marked ``control``
(``ROWS.json:NPZ_DIR:control``) holding real studio views of cars: any flag the new caps add there is a false flag.
Main's flag is replayed as the backdrop through the product tool does: :func:`retouch.pick.confidence` on the
recorded signals with the backdrop-through signal recomputed on the recorded matte
(:func:`retouch.pick.with_backdrop_through`). On the photos main leaves unflagged :func:`joined_evidence` is measured
once (CPU per photo with ``time.process_time``); every variant of :class:`Thresholds` (:func:`variants`) is replayed.
The operating point: the variant flagging the most results under IoU 0.8 with no new result at IoU >= 0.95 and no
control photo (ties: the fewest photos flagged, then the earliest variant, the record's values first), in sample and
on product-grouped folds (:func:`bench.tuning.tune_pick.grouped_folds`, chosen on the other folds).

Usage: ``python -m bench.tuning.joined_object /work/rec/A.json:/work/rec/A-npz ...
/work/rec/C.json:/work/rec/C-npz:control``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.backdrop_through import BAD, GOOD, choose, counts  # noqa: E402
from bench.tuning.tune_pick import grouped_folds  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402
from retouch.pick.config import SHIPPED_PICK  # noqa: E402
from retouch.pick.signals import Pick  # noqa: E402
from retouch.pick.through import with_backdrop_through  # noqa: E402

#: Long side (px) of the copy of photo and matte the evidence is read at: edge widths are in its pixels.
OUTLINE_SIDE = 256
#: Distance (px at :data:`OUTLINE_SIDE`) inside and outside the outline at which the colours compared lie.
ACROSS = 3
#: Colour histogram bins per channel for the ends' colours (levels 0-255 in bins of 43).
BINS = 6
#: Fewest outline pixels with contrast for a blurred-outline share to be read (fewer: 0).
MIN_EDGES = 10
OFF = float("inf")


@dataclass(frozen=True)
class Thresholds:
    """The two caps' thresholds; the defaults are the record's operating point (chosen on tuning only).

    Attributes:
        review_frame_join: flag from this share of one frame side covered by a matte whose ends differ (``inf``:
            off). Tuning failures 0.40-0.63, real car views cropped by the frame at most 0.36.
        frame_join_overlap: the ends differ at or below this colour histogram intersection (failures 0.02-0.51,
            cropped car views 0.61-0.82).
        review_blurred_outline: flag from this share of the contrasted outline wider than ``blur_width`` (``inf``:
            off). Good results and car views at most 0.105, failures holding a defocused object 0.26 and 0.61.
        blur_contrast: smallest RGB contrast (levels) across the outline for an edge width to be read.
        blur_width: an edge wider than this (px at :data:`OUTLINE_SIDE`) is blurred; a sharp step reads about 3.
    """

    review_frame_join: float = 0.35
    frame_join_overlap: float = 0.55
    review_blurred_outline: float = 0.18
    blur_contrast: float = 30.0
    blur_width: float = 4.5


@dataclass(frozen=True)
class Joined:
    """What :func:`joined_evidence` read of one matte.

    Attributes:
        touch: largest share (0-1) of one frame side's length the matte (``alpha >= 0.5``) covers.
        ends_overlap: histogram intersection (0-1) of the colours of the matte's quarter nearest that side and of
            its quarter farthest from it (distance from the side, over the matte's extent); 1.0 when no frame side
            is touched.
        contrast: float32 (N,) RGB distance (levels) across the outline at its N inner outline pixels off the
            frame's edge (3 px inside vs 3 px outside along the matte's normal, photo smoothed by 1 px).
        width: float32 (N,) edge width there (px at :data:`OUTLINE_SIDE`): ``contrast`` over the strongest colour
            gradient across the outline within 2 px.
    """

    touch: float
    ends_overlap: float
    contrast: np.ndarray
    width: np.ndarray


def _colour_histogram(px: np.ndarray) -> np.ndarray:
    """Normalised colour histogram (``BINS**3`` bins, float64) of uint8 pixels (N, 3)."""
    q = np.minimum(px.astype(np.int64) // 43, BINS - 1)
    h = np.bincount((q[:, 0] * BINS + q[:, 1]) * BINS + q[:, 2], minlength=BINS**3).astype(np.float64)
    return h / max(float(h.sum()), 1.0)


def joined_evidence(small: np.ndarray, alpha: np.ndarray) -> Joined:
    """Read the frame and outline evidence of one matte.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].

    Returns:
        The :class:`Joined` measures (empty outline arrays for an empty matte).
    """
    h, w = alpha.shape
    s = OUTLINE_SIDE / max(h, w)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    rgb = np.asarray(Image.fromarray(small).resize(size, Image.Resampling.BILINEAR))
    img = rgb.astype(np.float32)
    a = np.asarray(Image.fromarray(alpha.astype(np.float32)).resize(size, Image.Resampling.BILINEAR))
    m = a >= 0.5
    hh, ww = m.shape
    shares = [float(side.mean()) for side in (m[0, :], m[-1, :], m[:, 0], m[:, -1])]
    touch = max(shares)
    ends_overlap = 1.0
    if touch > 0:
        yy, xx = np.mgrid[:hh, :ww]
        dist = (yy, hh - 1 - yy, xx, ww - 1 - xx)[int(np.argmax(shares))]
        extent = float(dist[m].max())
        near, far = m & (dist <= 0.25 * extent), m & (dist >= 0.75 * extent)
        if near.any() and far.any():
            ends_overlap = float(np.minimum(_colour_histogram(rgb[near]), _colour_histogram(rgb[far])).sum())
    empty = np.zeros(0, np.float32)
    edge = m & ~ndi.binary_erosion(m)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = False
    ys, xs = np.nonzero(edge)
    if len(ys) == 0:
        return Joined(touch, ends_overlap, empty, empty)
    soft = ndi.gaussian_filter(a.astype(np.float32), 2.0)
    gy, gx = np.gradient(soft)
    norm = np.hypot(gy[ys, xs], gx[ys, xs]) + 1e-9
    ny, nx = gy[ys, xs] / norm, gx[ys, xs] / norm  # towards the inside of the matte
    im = ndi.gaussian_filter(img, (1.0, 1.0, 0.0))

    def at(step: float) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.clip(np.round(ys + step * ny).astype(np.int64), 0, hh - 1),
            np.clip(np.round(xs + step * nx).astype(np.int64), 0, ww - 1),
        )

    contrast = np.linalg.norm(im[at(ACROSS)] - im[at(-ACROSS)], axis=1)
    grad_y = np.stack([ndi.sobel(im[..., c], 0) for c in range(3)]) / 8.0
    grad_x = np.stack([ndi.sobel(im[..., c], 1) for c in range(3)]) / 8.0
    steepest = np.zeros(len(ys))
    for step in (-2, -1, 0, 1, 2):
        py, px = at(step)
        across = grad_y[:, py, px] * ny + grad_x[:, py, px] * nx
        steepest = np.maximum(steepest, np.sqrt((across**2).sum(0)))
    width = contrast / (steepest + 1e-6)
    return Joined(touch, ends_overlap, contrast.astype(np.float32), width.astype(np.float32))


def joined_signals(found: Joined, t: Thresholds = Thresholds()) -> dict[str, float]:
    """The signals of :func:`joined_evidence`'s measures under ``t``.

    Returns:
        ``frame_join``: :attr:`Joined.touch` where the matte's two ends differ in colour
        (:attr:`Joined.ends_overlap` at most :attr:`Thresholds.frame_join_overlap`), else 0;
        ``blurred_outline``: the share of the outline pixels with a contrast of at least
        :attr:`Thresholds.blur_contrast` whose edge is wider than :attr:`Thresholds.blur_width` (0 when fewer than
        :data:`MIN_EDGES` such pixels).
    """
    join = found.touch if found.ends_overlap <= t.frame_join_overlap else 0.0
    strong = found.contrast >= t.blur_contrast
    blurred = float((found.width[strong] > t.blur_width).mean()) if strong.sum() >= MIN_EDGES else 0.0
    return {"frame_join": round(join, 4), "blurred_outline": round(blurred, 4)}


def flagged_by(found: Joined | None, t: Thresholds) -> bool:
    """Whether the two caps under ``t`` flag a photo main leaves unflagged (``found`` its measures; ``None``: main
    flags it, the caps never run)."""
    if found is None:
        return False
    sig = joined_signals(found, t)
    return sig["frame_join"] >= t.review_frame_join or sig["blurred_outline"] >= t.review_blurred_outline


def _values(first: float, *others: float) -> list[float]:
    """``first`` (the record's value), then the ``others`` not equal to it."""
    return list(dict.fromkeys([first, *others]))


def variants() -> Iterable[Thresholds]:
    """The grid searched, the record's thresholds first (``inf``: that cap off)."""
    s = Thresholds()
    grid = itertools.product(
        _values(s.review_frame_join, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, OFF),
        _values(s.frame_join_overlap, 0.3, 0.4, 0.5, 0.55, 0.6, 0.7, 1.0),
        _values(s.review_blurred_outline, 0.12, 0.15, 0.18, 0.2, 0.23, 0.25, 0.3, 0.35, 0.4, OFF),
        _values(s.blur_contrast, 20.0, 30.0, 40.0),
        _values(s.blur_width, 3.5, 4.0, 4.5, 5.0),
    )
    for join, overlap, blurred, contrast, width in grid:
        yield Thresholds(join, overlap, blurred, contrast, width)


def load(specs: Sequence[str]) -> tuple[list[dict], list[Joined | None], list[float]]:
    """Rows (with ``control`` and ``main``: main's replayed flag), the measures on the photos main leaves unflagged
    (``None`` elsewhere) and their CPU seconds, from ``ROWS.json:NPZ_DIR[:control]`` pairs.

    Raises:
        ValueError: main's flag from the recorded signals alone differs from the recorded one.
    """
    rows: list[dict] = []
    found: list[Joined | None] = []
    cpu: list[float] = []
    main_config = dataclasses.replace(SHIPPED_PICK, review_through=0.0)
    for spec in specs:
        parts = spec.split(":")
        recorded = json.loads(Path(parts[0]).read_text())
        control = len(parts) > 2 and parts[2] == "control"
        for i, r in enumerate(recorded):
            if confidence(r["signals"], config=main_config)[1] != bool(r["needs_review"]):
                raise ValueError(f"{r['name']}: main's flag recomputed differs from the recorded one")
            z = np.load(Path(parts[1]) / f"{i:04d}.npz")
            small, alpha = z["small"], z["alpha"].astype(np.float32) / 255.0
            pick = Pick(mask=alpha, source="recorded", evaluations=0, signals=dict(r["signals"]))
            pick = with_backdrop_through(small, alpha, pick)
            main_flag = confidence(pick.signals)[1]
            rows.append({**r, "control": control, "main": main_flag})
            if main_flag:
                found.append(None)
                continue
            t = time.process_time()
            found.append(joined_evidence(small, alpha))
            cpu.append(time.process_time() - t)
    return rows, found, cpu


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the new flag's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--main-flags", nargs="*", default=(), help="JSON lists of rows with 'flag' to check main"
    )
    args = parser.parse_args(argv)
    rows, found, cpu = load(args.recordings)
    main_flags = np.array([r["main"] for r in rows])
    if args.main_flags:
        given = [bool(x["flag"]) for p in args.main_flags for x in json.loads(Path(p).read_text())]
        print("main's replayed flag equals the given flags:", given == list(main_flags))
    ms = 1000 * np.array(cpu)
    print(
        f"{len(rows)} photos; joined_evidence CPU on the {len(cpu)} main leaves unflagged: median "
        f"{np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, max {ms.max():.1f} ms"
    )
    print("main:", counts(rows, main_flags))
    configs = list(variants())
    table = np.stack([main_flags | np.array([flagged_by(f, c) for f in found]) for c in configs])
    print("the record's values, in sample:", counts(rows, table[0]), describe(configs[0]))
    for r, s, m in zip(rows, table[0], main_flags, strict=True):
        if s and not m:
            print(f"  newly flagged: {r['name']} (IoU {r['iou']:.3f})")
    v = choose(rows, table, main_flags, np.ones(len(rows), bool))
    print("operating point in sample:", counts(rows, table[v]), describe(configs[v]))
    iou = np.array([r["iou"] for r in rows])
    spare = np.array([r["control"] or r["iou"] >= GOOD for r in rows]) & ~main_flags
    best = int((table[v] & ~main_flags & (iou < BAD)).sum())
    ties = sum(int((t & ~main_flags & (iou < BAD)).sum()) == best and not (t & spare).any() for t in table)
    print(f"  {ties} variants reach {best} new failures with no new good result nor control view")
    fold = grouped_folds(rows, args.folds)
    oof = np.zeros(len(rows), bool)
    for k in range(args.folds):
        vk = choose(rows, table, main_flags, fold != k)
        oof[fold == k] = table[vk][fold == k]
        print(f"  fold {k}: {describe(configs[vk])}")
    print("out of fold:", counts(rows, oof))
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            print(f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}, control {r['control']})")
    return 0


def describe(t: Thresholds) -> str:
    """The thresholds of a variant, short."""
    return (
        f"frame join >= {t.review_frame_join} overlap <= {t.frame_join_overlap}; blurred outline >= "
        f"{t.review_blurred_outline} (contrast >= {t.blur_contrast}, width > {t.blur_width})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
